// Subgroup-level upstream xegpu (LLVM 22 syntax) imported into our VC-mode XeGPU, op by op:
// descriptors without offsets start at 0, offsets on an access become a descriptor at those offsets,
// array_length = 2 becomes two single-block loads (each `vector.extract` of the pair takes its own),
// a B block used only by dpas is loaded in VNNI layout (vnni_axis = 0), cache hints become our enum
// values, layouts are dropped, gpu.thread_id becomes the subgroup's first lane.
// RUN: xe-opt --convert-upstream-xegpu %s | FileCheck %s

gpu.module @k {
  gpu.func @ops(%a: memref<64x64xf16>, %b: memref<64x64xf16>, %c: memref<64x64xf32>, %i: index) kernel {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %ta = xegpu.create_nd_tdesc %a : memref<64x64xf16> -> !xegpu.tensor_desc<8x16xf16, #xegpu.block_tdesc_attr<array_length = 2>>
    %tb = xegpu.create_nd_tdesc %b : memref<64x64xf16> -> !xegpu.tensor_desc<16x16xf16>
    %tc = xegpu.create_nd_tdesc %c[%i, 16] : memref<64x64xf32> -> !xegpu.tensor_desc<8x16xf32>
    xegpu.prefetch_nd %tb[%c0, %c16] <{l1_hint = #xegpu.cache_hint<cached>}> : !xegpu.tensor_desc<16x16xf16>
    %va = xegpu.load_nd %ta[%i, %c0] <{l1_hint = #xegpu.cache_hint<cached>, l2_hint = #xegpu.cache_hint<uncached>}> : !xegpu.tensor_desc<8x16xf16, #xegpu.block_tdesc_attr<array_length = 2>> -> vector<2x8x16xf16>
    %a0 = vector.extract %va[0] : vector<8x16xf16> from vector<2x8x16xf16>
    %vb = xegpu.load_nd %tb[%c16, %c0] {layout = #xegpu.layout<lane_layout = [1, 16], lane_data = [2, 1]>} : !xegpu.tensor_desc<16x16xf16> -> vector<16x16xf16>
    %vc = xegpu.load_nd %tc : !xegpu.tensor_desc<8x16xf32> -> vector<8x16xf32>
    %d = xegpu.dpas %a0, %vb, %vc : vector<8x16xf16>, vector<16x16xf16>, vector<8x16xf32> -> vector<8x16xf32>
    %tc2 = xegpu.update_nd_offset %tc, [%c0, %c16] : !xegpu.tensor_desc<8x16xf32>
    xegpu.store_nd %d, %tc2 <{l1_hint = #xegpu.cache_hint<write_back>}> : vector<8x16xf32>, !xegpu.tensor_desc<8x16xf32>
    %tid = gpu.thread_id x
    xegpu.fence memory_kind = global, fence_scope = workgroup
    gpu.return
  }
}

// CHECK-LABEL: gpu.func @ops
// CHECK:      %[[TA:.*]] = xegpu.create_nd_tdesc %arg0[0, 0] {mode = vc} : memref<64x64xf16> -> !xegpu.tensor_desc<8x16xf16>
// CHECK:      %[[TB:.*]] = xegpu.create_nd_tdesc %arg1[0, 0] {mode = vc} : memref<64x64xf16> -> !xegpu.tensor_desc<16x16xf16>
// CHECK:      %[[TC:.*]] = xegpu.create_nd_tdesc %arg2[%arg3, 16] {mode = vc} : memref<64x64xf32> -> !xegpu.tensor_desc<8x16xf32>
// CHECK:      %[[P:.*]] = xegpu.create_nd_tdesc %arg1[%c0, %c16] {mode = vc}
// CHECK-NEXT: xegpu.prefetch_nd %[[P]] {mode = vc, l1_hint = cached} : !xegpu.tensor_desc<16x16xf16>
// CHECK:      %[[A0:.*]] = xegpu.create_nd_tdesc %arg0[%arg3, %c0] {mode = vc}
// CHECK:      %[[A1:.*]] = xegpu.create_nd_tdesc %arg0[%arg3, %{{.*}}] {mode = vc}
// CHECK:      %[[L0:.*]] = xegpu.load_nd %[[A0]] {mode = vc, l1_hint = cached, l2_hint = uncached} : !xegpu.tensor_desc<8x16xf16> -> vector<8x16xf16>
// CHECK:      xegpu.load_nd %[[A1]] {mode = vc, l1_hint = cached, l2_hint = uncached}
// CHECK:      %[[X0:.*]] = vector.shape_cast %[[L0]] : vector<8x16xf16> to vector<8x16xf16>
// CHECK:      %[[VB:.*]] = xegpu.load_nd %{{.*}} {mode = vc, vnni_axis = 0} : !xegpu.tensor_desc<16x16xf16> -> vector<8x16x2xf16>
// CHECK:      %[[VC:.*]] = xegpu.load_nd %[[TC]] {mode = vc} : !xegpu.tensor_desc<8x16xf32> -> vector<8x16xf32>
// CHECK-NEXT: %[[D:.*]] = xegpu.dpas %[[X0]], %[[VB]], %[[VC]] {mode = vc} : vector<8x16xf16>, vector<8x16x2xf16>, vector<8x16xf32> -> vector<8x16xf32>
// CHECK:      %[[TC2:.*]] = xegpu.update_nd_offset %[[TC]], [%c0, %c16] {mode = vc} : !xegpu.tensor_desc<8x16xf32>
// CHECK:      xegpu.store_nd %[[D]], %[[TC2]] {mode = vc, l1_hint = write_back}
// CHECK:      gpu.subgroup_id
// CHECK:      arith.remui
// CHECK:      xegpu.mfence {memory_kind = "ugm", fence_op = "none", fence_scope = "group"}
// CHECK-NOT:  #xegpu.layout
// CHECK-NOT:  gpu.thread_id

// IMEX's VC-mode programs load B packed into a 3D VNNI vector at subgroup level: our vnni_axis = 0.
gpu.module @vnni {
  gpu.func @packed(%b: memref<16x16xf16>) kernel {
    %t = xegpu.create_nd_tdesc %b[0, 0] : memref<16x16xf16> -> !xegpu.tensor_desc<16x16xf16>
    %v = xegpu.load_nd %t <{packed}> : !xegpu.tensor_desc<16x16xf16> -> vector<8x16x2xf16>
    gpu.return
  }
}
// CHECK-LABEL: gpu.func @packed
// CHECK:       xegpu.load_nd %{{.*}} {mode = vc, vnni_axis = 0} : !xegpu.tensor_desc<16x16xf16> -> vector<8x16x2xf16>
