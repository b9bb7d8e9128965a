// xegpu-simt-distribute: VC-mode XeGPU to SIMT mode. Every tensor_desc gets an sg_map, `mode = vc`
// disappears and vectors become per-work-item fragments: A 8x16 bf16 [1, 16] x [1, 1] -> 8x1,
// B 16x16 bf16 VNNI [1, 16] x [2, 1] -> 8x1x2, C 8x16 f32 [1, 16] x [1, 1] -> 8x1. An A load
// larger than the DPAS block is split so that each DPAS A operand comes from its own block load
// (split-a-loads, default, in the hardware's element order); without it the fragments are sliced
// per work-item.
// RUN: xe-opt %s --xegpu-simt-distribute | FileCheck %s
// RUN: xe-opt %s --xegpu-simt-distribute=split-a-loads=false | FileCheck %s --check-prefix=SLICE

// CHECK-LABEL: gpu.func @gemm
// CHECK-NOT:  mode = vc
// CHECK:      %[[A0:.*]] = xegpu.create_nd_tdesc %arg0[%arg3, 0] : memref<64x64xbf16> -> !xegpu.tensor_desc<8x16xbf16, #xegpu.tdesc_attr<sg_map = <wi_layout = [1, 16], wi_data = [1, 1]>>>
// CHECK:      %[[M8:.*]] = arith.addi %arg3, %c8 : index
// CHECK:      %[[A1:.*]] = xegpu.create_nd_tdesc %arg0[%[[M8]], 0] : memref<64x64xbf16> -> !xegpu.tensor_desc<8x16xbf16, #xegpu.tdesc_attr<sg_map = <wi_layout = [1, 16], wi_data = [1, 1]>>>
// CHECK:      %[[B:.*]] = xegpu.create_nd_tdesc %arg1[0, %arg4] : memref<64x64xbf16> -> !xegpu.tensor_desc<16x16xbf16, #xegpu.tdesc_attr<sg_map = <wi_layout = [1, 16], wi_data = [2, 1]>>>
// CHECK:      xegpu.create_nd_tdesc %arg2[%arg3, %arg4] : memref<64x64xf32> -> !xegpu.tensor_desc<8x16xf32, #xegpu.tdesc_attr<sg_map = <wi_layout = [1, 16], wi_data = [1, 1]>>>
// CHECK:      %[[Z:.*]] = arith.constant dense<0.000000e+00> : vector<8x1xf32>
// CHECK:      scf.for {{.*}} iter_args(%[[ACC0:.*]] = %[[Z]], %[[ACC1:.*]] = %[[Z]], %[[TA0:.*]] = %[[A0]], %[[TA1:.*]] = %[[A1]], %[[TB:.*]] = %[[B]]) -> (vector<8x1xf32>, vector<8x1xf32>,
// CHECK:        %[[LA0:.*]] = xegpu.load_nd %[[TA0]] : !xegpu.tensor_desc<8x16xbf16, #xegpu.tdesc_attr<sg_map = <wi_layout = [1, 16], wi_data = [1, 1]>>> -> vector<8x1xbf16>
// CHECK:        %[[LA1:.*]] = xegpu.load_nd %[[TA1]] : {{.*}} -> vector<8x1xbf16>
// CHECK:        %[[LB:.*]] = xegpu.load_nd %[[TB]] {vnni_axis = 0} : !xegpu.tensor_desc<16x16xbf16, #xegpu.tdesc_attr<sg_map = <wi_layout = [1, 16], wi_data = [2, 1]>>> -> vector<8x1x2xbf16>
// CHECK:        xegpu.prefetch_nd %[[TA0]] {l1_hint = cached, l2_hint = cached}
// CHECK:        xegpu.prefetch_nd %[[TA1]] {l1_hint = cached, l2_hint = cached}
// CHECK:        %[[D0:.*]] = xegpu.dpas %[[LA0]], %[[LB]], %[[ACC0]] : vector<8x1xbf16>, vector<8x1x2xbf16>, vector<8x1xf32> -> vector<8x1xf32>
// CHECK:        %[[D1:.*]] = xegpu.dpas %[[LA1]], %[[LB]], %[[ACC1]] : vector<8x1xbf16>, vector<8x1x2xbf16>, vector<8x1xf32> -> vector<8x1xf32>
// CHECK:        xegpu.update_nd_offset %[[TA0]], [0, 16] : !xegpu.tensor_desc<8x16xbf16, #xegpu.tdesc_attr<sg_map = <wi_layout = [1, 16], wi_data = [1, 1]>>>
// CHECK:        xegpu.update_nd_offset %[[TA1]], [0, 16]
// CHECK:        xegpu.update_nd_offset %[[TB]], [16, 0] : !xegpu.tensor_desc<16x16xbf16, #xegpu.tdesc_attr<sg_map = <wi_layout = [1, 16], wi_data = [2, 1]>>>
// CHECK:        scf.yield %[[D0]], %[[D1]],
// CHECK:      %[[TWO:.*]] = arith.constant dense<2.000000e+00> : vector<8x1xf32>
// CHECK:      %[[S:.*]] = arith.mulf %{{.*}}#0, %[[TWO]] : vector<8x1xf32>
// CHECK:      xegpu.store_nd %[[S]], %{{.*}} : vector<8x1xf32>, !xegpu.tensor_desc<8x16xf32, #xegpu.tdesc_attr<sg_map = <wi_layout = [1, 16], wi_data = [1, 1]>>>
// CHECK:      xegpu.store_nd %{{.*}}#1, %{{.*}} : vector<8x1xf32>

// SLICE-LABEL: gpu.func @gemm
// A fragments sliced in registers use the packed A order of rfc-xetile-xegpu.md ([2, 8] x [1, 2]:
// a work-item holds rows i and i+2, ..., two columns), whose 8-row slices are per-work-item slices
// SLICE:      %[[LA:.*]] = xegpu.load_nd %{{.*}} : !xegpu.tensor_desc<16x16xbf16, #xegpu.tdesc_attr<sg_map = <wi_layout = [2, 8], wi_data = [1, 2]>>> -> vector<8x2xbf16>
// SLICE:      %[[S0:.*]] = vector.extract_strided_slice %[[LA]] {offsets = [0, 0], sizes = [4, 2], strides = [1, 1]} : vector<8x2xbf16> to vector<4x2xbf16>
// SLICE:      %[[S1:.*]] = vector.extract_strided_slice %[[LA]] {offsets = [4, 0], sizes = [4, 2], strides = [1, 1]} : vector<8x2xbf16> to vector<4x2xbf16>
// SLICE:      xegpu.dpas %[[S0]], %{{.*}}, %{{.*}} : vector<4x2xbf16>, vector<8x1x2xbf16>, vector<8x1xf32> -> vector<8x1xf32>
// SLICE:      xegpu.dpas %[[S1]],

gpu.module @k {
  gpu.func @gemm(%A: memref<64x64xbf16>, %B: memref<64x64xbf16>, %C: memref<64x64xf32>, %m: index, %n: index) kernel {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %c64 = arith.constant 64 : index
    %a0 = xegpu.create_nd_tdesc %A[%m, 0] {mode = vc} : memref<64x64xbf16> -> !xegpu.tensor_desc<16x16xbf16>
    %b0 = xegpu.create_nd_tdesc %B[0, %n] {mode = vc} : memref<64x64xbf16> -> !xegpu.tensor_desc<16x16xbf16>
    %c0d = xegpu.create_nd_tdesc %C[%m, %n] {mode = vc} : memref<64x64xf32> -> !xegpu.tensor_desc<8x16xf32>
    %c1d = xegpu.create_nd_tdesc %C[%m, %n] {mode = vc} : memref<64x64xf32> -> !xegpu.tensor_desc<8x16xf32>
    %z = arith.constant dense<0.0> : vector<8x16xf32>
    %r:4 = scf.for %k = %c0 to %c64 step %c16 iter_args(%acc0 = %z, %acc1 = %z, %a = %a0, %b = %b0) -> (vector<8x16xf32>, vector<8x16xf32>, !xegpu.tensor_desc<16x16xbf16>, !xegpu.tensor_desc<16x16xbf16>) {
      %la = xegpu.load_nd %a {mode = vc} : !xegpu.tensor_desc<16x16xbf16> -> vector<16x16xbf16>
      %lb = xegpu.load_nd %b {mode = vc, vnni_axis = 0} : !xegpu.tensor_desc<16x16xbf16> -> vector<8x16x2xbf16>
      xegpu.prefetch_nd %a {mode = vc, l1_hint = cached, l2_hint = cached} : !xegpu.tensor_desc<16x16xbf16>
      %a00 = vector.extract_strided_slice %la {offsets = [0, 0], sizes = [8, 16], strides = [1, 1]} : vector<16x16xbf16> to vector<8x16xbf16>
      %a10 = vector.extract_strided_slice %la {offsets = [8, 0], sizes = [8, 16], strides = [1, 1]} : vector<16x16xbf16> to vector<8x16xbf16>
      %d0 = xegpu.dpas %a00, %lb, %acc0 {mode = vc} : vector<8x16xbf16>, vector<8x16x2xbf16>, vector<8x16xf32> -> vector<8x16xf32>
      %d1 = xegpu.dpas %a10, %lb, %acc1 {mode = vc} : vector<8x16xbf16>, vector<8x16x2xbf16>, vector<8x16xf32> -> vector<8x16xf32>
      %a2 = xegpu.update_nd_offset %a, [0, 16] {mode = vc} : !xegpu.tensor_desc<16x16xbf16>
      %b2 = xegpu.update_nd_offset %b, [16, 0] {mode = vc} : !xegpu.tensor_desc<16x16xbf16>
      scf.yield %d0, %d1, %a2, %b2 : vector<8x16xf32>, vector<8x16xf32>, !xegpu.tensor_desc<16x16xbf16>, !xegpu.tensor_desc<16x16xbf16>
    }
    %two = arith.constant dense<2.0> : vector<8x16xf32>
    %s = arith.mulf %r#0, %two : vector<8x16xf32>
    xegpu.store_nd %s, %c0d {mode = vc} : vector<8x16xf32>, !xegpu.tensor_desc<8x16xf32>
    xegpu.store_nd %r#1, %c1d {mode = vc} : vector<8x16xf32>, !xegpu.tensor_desc<8x16xf32>
    gpu.return
  }
}
