// XeVM's id ops in a lane-level kernel (one with a 2D block op or an mma) as the gpu ops of the same
// value, cast from index to the op's integer type: lane_id, subgroup_id, subgroup_size, and per
// dimension local_id (gpu.thread_id), local_size (gpu.block_dim), group_id (gpu.block_id),
// group_count (gpu.grid_dim). In a subgroup-level kernel they are a located error (xevm-errors.mlir).
// RUN: xe-opt --convert-upstream-xegpu %s | FileCheck %s

gpu.module @k {
  gpu.func @ids(%p: !llvm.ptr<1>, %v: vector<8xi32>) kernel {
    %lane = xevm.lane_id : i32
    %sg = xevm.subgroup_id : i32
    %n = xevm.subgroup_size : i32
    %tx = xevm.local_id.y : i64
    %bx = xevm.local_size.x : i32
    %gz = xevm.group_id.z : i32
    %cx = xevm.group_count.x : i32
    %w = arith.constant 64 : i32
    %h = arith.constant 8 : i32
    xevm.blockstore2d %p, %w, %h, %w, %lane, %sg, %v <{elem_size_in_bits=32 : i32, tile_width=16 : i32, tile_height=8 : i32}> : (!llvm.ptr<1>, i32, i32, i32, i32, i32, vector<8xi32>)
    gpu.return
  }
}

// CHECK-LABEL: gpu.func @ids
// CHECK:       %[[L:.*]] = gpu.lane_id
// CHECK-NEXT:  arith.index_cast %[[L]] : index to i32
// CHECK-NEXT:  %[[S:.*]] = gpu.subgroup_id : index
// CHECK-NEXT:  arith.index_cast %[[S]] : index to i32
// CHECK-NEXT:  %[[N:.*]] = gpu.subgroup_size : index
// CHECK-NEXT:  arith.index_cast %[[N]] : index to i32
// CHECK-NEXT:  %[[T:.*]] = gpu.thread_id y
// CHECK-NEXT:  arith.index_cast %[[T]] : index to i64
// CHECK-NEXT:  %[[B:.*]] = gpu.block_dim x
// CHECK-NEXT:  arith.index_cast %[[B]] : index to i32
// CHECK-NEXT:  %[[G:.*]] = gpu.block_id z
// CHECK-NEXT:  arith.index_cast %[[G]] : index to i32
// CHECK-NEXT:  %[[C:.*]] = gpu.grid_dim x
// CHECK-NEXT:  arith.index_cast %[[C]] : index to i32
// CHECK:       xegpu.store_nd
