// Upstream's shared-local-memory matrices (LLVM 22) imported: create_mem_desc becomes a flat typed
// view of its SLM buffer (memref.view of bytes, memref.reinterpret_cast of a typed buffer); the
// element at (r, c) sits at LLVM 22's linear offset sum_d (x_d / B_d) * outer_d + (x_d % B_d) * inner_d
// (getStrideShape of the mem_layout's stride and block). Subgroup level: the block's offsets (a
// constant for literal offsets, vector arithmetic for dynamic ones) feed 16-lane gathers / scatters;
// lane level: a lane's elements are the ones after its linear offset, or a subgroup block read's
// (offset + 16 k + lane) with subgroup_block_io.
// RUN: xe-opt --convert-upstream-xegpu %s | FileCheck %s

gpu.module @k {
  // stride [1, 32], block [16, 16] on 32x32: outer strides [256, 512], inner [1, 16]
  gpu.func @subgroup(%v: vector<2x16xf16>, %i: index) kernel {
    %slm = memref.alloc() : memref<2048xi8, 3>
    %m = xegpu.create_mem_desc %slm : memref<2048xi8, 3> -> !xegpu.mem_desc<32x32xf16, #xegpu.mem_layout<stride = [1, 32], block = [16, 16]>>
    // the lane layout says subgroup level (a 2D vector alone cannot tell)
    xegpu.store_matrix %v, %m[15, 16] <{layout = #xegpu.layout<lane_layout = [1, 16], lane_data = [1, 1]>}> : vector<2x16xf16>, !xegpu.mem_desc<32x32xf16, #xegpu.mem_layout<stride = [1, 32], block = [16, 16]>>
    %w = xegpu.load_matrix %m[%i, 0] : !xegpu.mem_desc<32x32xf16, #xegpu.mem_layout<stride = [1, 32], block = [16, 16]>>, index -> vector<2x16xf16>
    gpu.return
  }
}

// CHECK-LABEL: gpu.func @subgroup
// CHECK:      %[[S:.*]] = memref.alloc() : memref<2048xi8, 3>
// CHECK:      %[[Z:.*]] = arith.constant 0 : index
// CHECK:      %[[M:.*]] = memref.view %[[S]][%[[Z]]][] : memref<2048xi8, 3> to memref<1024xf16, 3>
// (15, 16 + j) -> 15 + 512 + 16 j; (16, 16 + j) -> 256 + 512 + 16 j
// CHECK:      %[[A:.*]] = arith.constant dense<{{\[}}[527, 543, 559, 575, 591, 607, 623, 639, 655, 671, 687, 703, 719, 735, 751, 767], [768, 784, 800, 816, 832, 848, 864, 880, 896, 912, 928, 944, 960, 976, 992, 1008]]> : vector<2x16xindex>
// CHECK:      %[[ALL:.*]] = arith.constant dense<true> : vector<16xi1>
// CHECK:      %[[A0:.*]] = vector.extract %[[A]][0] : vector<16xindex> from vector<2x16xindex>
// CHECK:      %[[T0:.*]] = xegpu.create_tdesc %[[M]], %[[A0]] {mode = vc} : memref<1024xf16, 3>, vector<16xindex> -> !xegpu.tensor_desc<16xf16, #xegpu.tdesc_attr<memory_scope = slm, scattered = true>>
// CHECK:      %[[V0:.*]] = vector.extract %arg0[0] : vector<16xf16> from vector<2x16xf16>
// CHECK:      xegpu.store_scatter %[[V0]], %[[T0]], %[[ALL]] {mode = vc}
// CHECK:      xegpu.store_scatter
// the dynamic row offset: divsi / remsi by the block, times the outer / inner strides
// CHECK:      %[[R:.*]] = vector.broadcast %arg1 : index to vector<2xindex>
// CHECK:      arith.divsi
// CHECK:      arith.remsi
// CHECK:      arith.constant dense<256> : vector<2xindex>
// CHECK:      arith.constant dense<1> : vector<2xindex>
// CHECK:      %[[COLS:.*]] = arith.constant dense<[0, 16, 32, 48, 64, 80, 96, 112, 128, 144, 160, 176, 192, 208, 224, 240]> : vector<16xindex>
// CHECK:      vector.broadcast %{{.*}} : vector<2x1xindex> to vector<2x16xindex>
// CHECK:      vector.broadcast %[[COLS]] : vector<16xindex> to vector<2x16xindex>
// CHECK:      %[[L:.*]] = arith.addi
// CHECK:      xegpu.load_gather %{{.*}} {mode = vc} : !xegpu.tensor_desc<16xf16, #xegpu.tdesc_attr<memory_scope = slm, scattered = true>>, vector<16xi1> -> vector<16xf16>
// CHECK:      xegpu.load_gather
// CHECK:      %{{.*}} = vector.insert %{{.*}} [1] : vector<16xf16> into vector<2x16xf16>
// CHECK-NOT:  xegpu.load_matrix



gpu.module @l {
  gpu.func @lane(%a: memref<8x16xf32>, %buf: memref<64x16xf32, 3>) kernel {
    %l = gpu.lane_id
    %ta = xegpu.create_nd_tdesc %a : memref<8x16xf32> -> !xegpu.tensor_desc<8x16xf32>
    %v = xegpu.load_nd %ta[0, 0] : !xegpu.tensor_desc<8x16xf32> -> vector<8xf32>
    %m = xegpu.create_mem_desc %buf : memref<64x16xf32, 3> -> !xegpu.mem_desc<32x32xf32, #xegpu.mem_layout<block = [8, 16]>>
    xegpu.store_matrix %v, %m[%l, 0] : vector<8xf32>, !xegpu.mem_desc<32x32xf32, #xegpu.mem_layout<block = [8, 16]>>, index
    %w = xegpu.load_matrix %m[8, 16] <{subgroup_block_io}> : !xegpu.mem_desc<32x32xf32, #xegpu.mem_layout<block = [8, 16]>> -> vector<2xf32>
    gpu.return
  }
}

// row-major, block [8, 16] on 32x32: outer strides [256, 128], inner [16, 1]
// CHECK-LABEL: gpu.func @lane
// CHECK:      %[[M:.*]] = memref.reinterpret_cast %arg1 to offset: [0], sizes: [1024], strides: [1] : memref<64x16xf32, 3> to memref<1024xf32, 3>
// CHECK-DAG:  %[[B:.*]] = arith.constant 8 : index
// CHECK-DAG:  %[[O:.*]] = arith.constant 256 : index
// CHECK-DAG:  %[[I:.*]] = arith.constant 16 : index
// CHECK:      %[[Q:.*]] = arith.divsi %0, %[[B]] : index
// CHECK:      %[[R:.*]] = arith.remsi %0, %[[B]] : index
// CHECK:      arith.muli %[[Q]], %[[O]] : index
// CHECK:      arith.muli %[[R]], %[[I]] : index
// CHECK:      %[[LIN:.*]] = arith.addi
// CHECK:      %[[K1:.*]] = arith.addi %[[LIN]], %{{.*}} : index
// CHECK:      %[[T:.*]] = xegpu.create_tdesc %[[M]], %[[LIN]] : memref<1024xf32, 3>, index -> !xegpu.tensor_desc<16xf32, #xegpu.tdesc_attr<memory_scope = slm, scattered = true, sg_map = <wi_layout = [1, 16], wi_data = [1, 1]>>>
// CHECK:      xegpu.store_scatter %{{.*}}, %[[T]], %{{.*}} : f32, !xegpu.tensor_desc<16xf32, #xegpu.tdesc_attr<memory_scope = slm, scattered = true, sg_map = <wi_layout = [1, 16], wi_data = [1, 1]>>>, i1
// subgroup_block_io at (8, 16): 256 + 128 = 384, then + lane, + 16 for the second element
// CHECK:      %[[BASE:.*]] = arith.constant 384 : index
// CHECK:      %[[LANE:.*]] = gpu.lane_id
// CHECK:      %[[E0:.*]] = arith.addi %[[BASE]], %[[LANE]] : index
// CHECK:      %[[C16:.*]] = arith.constant 16 : index
// CHECK:      %[[E1:.*]] = arith.addi %[[E0]], %[[C16]] : index
// CHECK:      xegpu.load_gather %{{.*}} : !xegpu.tensor_desc<16xf32, {{.*}}>, i1 -> f32
// CHECK:      xegpu.load_gather %{{.*}} : !xegpu.tensor_desc<16xf32, {{.*}}>, i1 -> f32
// CHECK:      vector.from_elements %{{.*}}, %{{.*}} : vector<2xf32>
// CHECK-NOT:  mode = vc
