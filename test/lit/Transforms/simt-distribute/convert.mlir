// xegpu-simt-distribute on vector.bitcast and on a layout conversion into a DPAS A operand.
// A narrowing bitcast (f32 -> f16) is a per-work-item bitcast: a K block read as f32 pairs, whose
// f16 transpose is the DPAS B operand, is loaded with [16, 1] x [1, 1] (work-item l: K row l), so
// the bitcast and the transposes stay inside the work-items (the B fragment is the loaded one).
// An element-wise chain from a DPAS result into a DPAS A operand (P = exp(S * 0.5 - rowmax) then
// P x V) is computed in the DPAS C layout (vector<8x1xf32> per work-item) and converted once into
// the packed A order (two gpu.shuffle idx and an in-register pick), shared by both DPAS.
// RUN: xe-opt %s --xegpu-simt-distribute | FileCheck %s

// CHECK-LABEL: gpu.func @bitcast_k_pairs
// CHECK:      %[[KD:.*]] = xegpu.create_nd_tdesc %arg1[0, 0] : memref<16x8xf32> -> !xegpu.tensor_desc<16x8xf32, #xegpu.tdesc_attr<sg_map = <wi_layout = [16, 1], wi_data = [1, 1]>>>
// CHECK:      %[[K32:.*]] = xegpu.load_nd %[[KD]] : {{.*}} -> vector<8x1xf32>
// CHECK:      %[[K:.*]] = vector.bitcast %[[K32]] : vector<8x1xf32> to vector<8x2xf16>
// CHECK:      %[[F:.*]] = vector.shape_cast %[[K]] : vector<8x2xf16> to vector<16xf16>
// CHECK:      %[[B:.*]] = vector.shape_cast %[[F]] : vector<16xf16> to vector<8x1x2xf16>
// CHECK:      xegpu.dpas %{{.*}}, %[[B]] : vector<8x1xf16>, vector<8x1x2xf16> -> vector<8x1xf32>
// CHECK-NOT:  gpu.shuffle
// CHECK:      gpu.return
gpu.module @k {
  gpu.func @bitcast_k_pairs(%Q: memref<8x16xf16>, %K: memref<16x8xf32>, %C: memref<8x16xf32>) kernel {
    %qd = xegpu.create_nd_tdesc %Q[0, 0] {mode = vc} : memref<8x16xf16> -> !xegpu.tensor_desc<8x16xf16>
    %q = xegpu.load_nd %qd {mode = vc} : !xegpu.tensor_desc<8x16xf16> -> vector<8x16xf16>
    %kd = xegpu.create_nd_tdesc %K[0, 0] {mode = vc} : memref<16x8xf32> -> !xegpu.tensor_desc<16x8xf32>
    %k32 = xegpu.load_nd %kd {mode = vc} : !xegpu.tensor_desc<16x8xf32> -> vector<16x8xf32>
    %k = vector.bitcast %k32 : vector<16x8xf32> to vector<16x16xf16>
    %kt = vector.transpose %k, [1, 0] : vector<16x16xf16> to vector<16x16xf16>
    %k3 = vector.shape_cast %kt : vector<16x16xf16> to vector<8x2x16xf16>
    %b = vector.transpose %k3, [0, 2, 1] : vector<8x2x16xf16> to vector<8x16x2xf16>
    %s = xegpu.dpas %q, %b {mode = vc} : vector<8x16xf16>, vector<8x16x2xf16> -> vector<8x16xf32>
    %cd = xegpu.create_nd_tdesc %C[0, 0] {mode = vc} : memref<8x16xf32> -> !xegpu.tensor_desc<8x16xf32>
    xegpu.store_nd %s, %cd {mode = vc} : vector<8x16xf32>, !xegpu.tensor_desc<8x16xf32>
    gpu.return
  }
}

// CHECK-LABEL: gpu.func @exp_chain_into_dpas_a
// CHECK:      %[[S:.*]] = xegpu.dpas %{{.*}}, %{{.*}} : vector<8x1xf16>, vector<8x1x2xf16> -> vector<8x1xf32>
// CHECK:      gpu.subgroup_reduce  maximumf
// CHECK:      %[[SS:.*]] = arith.mulf %[[S]], %{{.*}} : vector<8x1xf32>
// CHECK:      %[[D:.*]] = arith.subf %[[SS]], %{{.*}} : vector<8x1xf32>
// CHECK:      %[[E:.*]] = math.exp %[[D]] : vector<8x1xf32>
// CHECK:      %[[P:.*]] = arith.truncf %[[E]] : vector<8x1xf32> to vector<8x1xf16>
// CHECK:      %[[PF:.*]] = vector.shape_cast %[[P]] : vector<8x1xf16> to vector<8xf16>
// CHECK:      gpu.shuffle  idx %[[PF]], %{{.*}}, %{{.*}} : vector<8xf16>
// CHECK:      gpu.shuffle  idx %[[PF]], %{{.*}}, %{{.*}} : vector<8xf16>
// CHECK-NOT:  gpu.shuffle
// CHECK:      %[[PE:.*]] = vector.from_elements {{.*}} : vector<8xf16>
// CHECK:      %[[PA:.*]] = vector.shape_cast %[[PE]] : vector<8xf16> to vector<4x2xf16>
// CHECK:      xegpu.dpas %[[PA]], %{{.*}} : vector<4x2xf16>, vector<8x1x2xf16> -> vector<8x1xf32>
// CHECK:      xegpu.dpas %[[PA]], %{{.*}} : vector<4x2xf16>, vector<8x1x2xf16> -> vector<8x1xf32>
// CHECK:      gpu.return
gpu.module @k2 {
  gpu.func @exp_chain_into_dpas_a(%V: memref<16x32xf16>, %O: memref<8x32xf32>) kernel {
    %ad = xegpu.create_nd_tdesc %V[0, 0] {mode = vc} : memref<16x32xf16> -> !xegpu.tensor_desc<8x16xf16>
    %a = xegpu.load_nd %ad {mode = vc} : !xegpu.tensor_desc<8x16xf16> -> vector<8x16xf16>
    %v0d = xegpu.create_nd_tdesc %V[0, 0] {mode = vc} : memref<16x32xf16> -> !xegpu.tensor_desc<16x16xf16>
    %v1d = xegpu.create_nd_tdesc %V[0, 16] {mode = vc} : memref<16x32xf16> -> !xegpu.tensor_desc<16x16xf16>
    %v0 = xegpu.load_nd %v0d {mode = vc, vnni_axis = 0} : !xegpu.tensor_desc<16x16xf16> -> vector<8x16x2xf16>
    %v1 = xegpu.load_nd %v1d {mode = vc, vnni_axis = 0} : !xegpu.tensor_desc<16x16xf16> -> vector<8x16x2xf16>
    %s = xegpu.dpas %a, %v0 {mode = vc} : vector<8x16xf16>, vector<8x16x2xf16> -> vector<8x16xf32>
    %ninf = arith.constant dense<0xFF800000> : vector<8xf32>
    %half = arith.constant dense<0.5> : vector<8x16xf32>
    %mx = vector.multi_reduction <maximumf>, %s, %ninf [1] : vector<8x16xf32> to vector<8xf32>
    %m8 = vector.shape_cast %mx : vector<8xf32> to vector<8x1xf32>
    %mb = vector.broadcast %m8 : vector<8x1xf32> to vector<8x16xf32>
    %ss = arith.mulf %s, %half : vector<8x16xf32>
    %d = arith.subf %ss, %mb : vector<8x16xf32>
    %e = math.exp %d : vector<8x16xf32>
    %p = arith.truncf %e : vector<8x16xf32> to vector<8x16xf16>
    %o0 = xegpu.dpas %p, %v0 {mode = vc} : vector<8x16xf16>, vector<8x16x2xf16> -> vector<8x16xf32>
    %o1 = xegpu.dpas %p, %v1 {mode = vc} : vector<8x16xf16>, vector<8x16x2xf16> -> vector<8x16xf32>
    %o0d = xegpu.create_nd_tdesc %O[0, 0] {mode = vc} : memref<8x32xf32> -> !xegpu.tensor_desc<8x16xf32>
    %o1d = xegpu.create_nd_tdesc %O[0, 16] {mode = vc} : memref<8x32xf32> -> !xegpu.tensor_desc<8x16xf32>
    xegpu.store_nd %o0, %o0d {mode = vc} : vector<8x16xf32>, !xegpu.tensor_desc<8x16xf32>
    xegpu.store_nd %o1, %o1d {mode = vc} : vector<8x16xf32>, !xegpu.tensor_desc<8x16xf32>
    gpu.return
  }
}
