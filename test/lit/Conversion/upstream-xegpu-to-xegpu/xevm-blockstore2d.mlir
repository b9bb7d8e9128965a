// xevm.blockstore2d (lane level, on a raw global pointer) as our SIMT store: the same descriptor as
// blockload2d's (xevm-blockload2d.mlir); the lane's 1D value bitcast to the block's element type and
// reshaped to our fragment; store cache controls become our hints (write_back, write_through, ...).
// RUN: xe-opt --convert-upstream-xegpu %s | FileCheck %s

gpu.module @k {
  gpu.func @stores(%p: !llvm.ptr<1>, %v: vector<8xi32>, %f: vector<8xf16>) kernel {
    %w = arith.constant 64 : i32
    %h = arith.constant 8 : i32
    %x = arith.constant 16 : i32
    %y = arith.constant 0 : i32
    xevm.blockstore2d %p, %w, %h, %w, %x, %y, %v <{elem_size_in_bits=32 : i32, tile_width=16 : i32, tile_height=8 : i32, cache_control=#xevm.store_cache_control<L1wb_L2uc_L3wb>}> : (!llvm.ptr<1>, i32, i32, i32, i32, i32, vector<8xi32>)
    xevm.blockstore2d %p, %w, %h, %w, %x, %y, %f <{elem_size_in_bits=16 : i32, tile_width=16 : i32, tile_height=8 : i32}> : (!llvm.ptr<1>, i32, i32, i32, i32, i32, vector<8xf16>)
    gpu.return
  }
}

// CHECK-LABEL: gpu.func @stores
// CHECK-SAME:  (%[[P:.*]]: !llvm.ptr<1>, %[[V:.*]]: vector<8xi32>, %[[F:.*]]: vector<8xf16>)
// CHECK:       %[[ADDR:.*]] = llvm.ptrtoint %[[P]] : !llvm.ptr<1> to i64
// CHECK:       %[[FOUR:.*]] = arith.constant 4 : index
// CHECK:       %[[TD:.*]] = xegpu.create_nd_tdesc %[[ADDR]][{{.*}}] : i64 -> !xegpu.tensor_desc<8x16xi32, #xegpu.tdesc_attr<sg_map = <wi_layout = [1, 16], wi_data = [1, 1]>>>
// CHECK:       %[[FR:.*]] = vector.shape_cast %[[V]] : vector<8xi32> to vector<8x1xi32>
// CHECK:       xegpu.store_nd %[[FR]], %[[TD]] {l1_hint = write_back, l2_hint = uncached, l3_hint = write_back} : vector<8x1xi32>, !xegpu.tensor_desc<8x16xi32, {{.*}}>
// CHECK:       %[[TF:.*]] = xegpu.create_nd_tdesc {{.*}} : i64 -> !xegpu.tensor_desc<8x16xf16, #xegpu.tdesc_attr<sg_map = <wi_layout = [1, 16], wi_data = [1, 1]>>>
// CHECK:       %[[FF:.*]] = vector.shape_cast %[[F]] : vector<8xf16> to vector<8x1xf16>
// CHECK:       xegpu.store_nd %[[FF]], %[[TF]] : vector<8x1xf16>
