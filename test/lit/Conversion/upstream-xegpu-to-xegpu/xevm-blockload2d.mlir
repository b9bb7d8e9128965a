// xevm.blockload2d (lane level, on a raw global pointer) as our SIMT load: the pointer's address
// under a descriptor of the op's base (height rows; width and pitch in bytes, divided by the element
// size) at [y, x]; each lane's column of the block, reshaped (and bitcast) to the op's 1D result.
// pack_register of a 16-bit block (DPAS B) is the same per-lane order, two rows to an i32; 8-bit
// blocks 32 wide give each lane two consecutive bytes (wi_data [1, 2]); float results keep their
// type; cache controls become our l1/l2/l3 hints.
// RUN: xe-opt --convert-upstream-xegpu %s | FileCheck %s

gpu.module @k {
  gpu.func @loads(%p: !llvm.ptr<1>, %x: i32, %y: i32) kernel {
    %w = arith.constant 64 : i32
    %h = arith.constant 16 : i32
    %pitch = arith.constant 128 : i32
    %a = xevm.blockload2d %p, %w, %h, %pitch, %x, %y <{elem_size_in_bits=16 : i32, tile_width=16 : i32, tile_height=8 : i32, v_blocks=1 : i32, transpose=false, pack_register=false, cache_control=#xevm.load_cache_control<L1c_L2uc_L3c>}> : (!llvm.ptr<1>, i32, i32, i32, i32, i32) -> vector<8xi16>
    %b = xevm.blockload2d %p, %w, %h, %pitch, %x, %y <{elem_size_in_bits=16 : i32, tile_width=16 : i32, tile_height=16 : i32, v_blocks=1 : i32, transpose=false, pack_register=true}> : (!llvm.ptr<1>, i32, i32, i32, i32, i32) -> vector<8xi32>
    %f = xevm.blockload2d %p, %w, %h, %pitch, %x, %y <{elem_size_in_bits=32 : i32, tile_width=16 : i32, tile_height=8 : i32, v_blocks=1 : i32, transpose=false, pack_register=false}> : (!llvm.ptr<1>, i32, i32, i32, i32, i32) -> vector<8xf32>
    %q = xevm.blockload2d %p, %w, %h, %pitch, %x, %y <{elem_size_in_bits=8 : i32, tile_width=32 : i32, tile_height=8 : i32, v_blocks=1 : i32, transpose=false, pack_register=false}> : (!llvm.ptr<1>, i32, i32, i32, i32, i32) -> vector<8xi16>
    gpu.return
  }
}

// CHECK-LABEL: gpu.func @loads
// CHECK-SAME:  (%[[P:.*]]: !llvm.ptr<1>, %[[X:.*]]: i32, %[[Y:.*]]: i32)
// CHECK:       %[[ADDR:.*]] = llvm.ptrtoint %[[P]] : !llvm.ptr<1> to i64
// CHECK:       %[[W:.*]] = arith.index_cast %{{.*}} : i32 to index
// CHECK:       %[[H:.*]] = arith.index_cast %{{.*}} : i32 to index
// CHECK:       %[[PB:.*]] = arith.index_cast %{{.*}} : i32 to index
// CHECK:       %[[XI:.*]] = arith.index_cast %[[X]] : i32 to index
// CHECK:       %[[YI:.*]] = arith.index_cast %[[Y]] : i32 to index
// CHECK:       %[[TWO:.*]] = arith.constant 2 : index
// CHECK:       %[[WE:.*]] = arith.divui %[[W]], %[[TWO]] : index
// CHECK:       %[[PE:.*]] = arith.divui %[[PB]], %[[TWO]] : index
// CHECK:       %[[ONE:.*]] = arith.constant 1 : index
// CHECK:       %[[TD:.*]] = xegpu.create_nd_tdesc %[[ADDR]][%[[YI]], %[[XI]]], [%[[H]], %[[WE]]], [%[[PE]], %[[ONE]]] : i64 -> !xegpu.tensor_desc<8x16xi16, #xegpu.tdesc_attr<sg_map = <wi_layout = [1, 16], wi_data = [1, 1]>>>
// CHECK:       %[[V:.*]] = xegpu.load_nd %[[TD]] {l1_hint = cached, l2_hint = uncached, l3_hint = cached} : {{.*}} -> vector<8x1xi16>
// CHECK:       vector.shape_cast %[[V]] : vector<8x1xi16> to vector<8xi16>
// CHECK:       xegpu.create_nd_tdesc {{.*}} : i64 -> !xegpu.tensor_desc<16x16xi16, #xegpu.tdesc_attr<sg_map = <wi_layout = [1, 16], wi_data = [1, 1]>>>
// CHECK:       %[[B:.*]] = xegpu.load_nd %{{.*}} : {{.*}} -> vector<16x1xi16>
// CHECK:       %[[BF:.*]] = vector.shape_cast %[[B]] : vector<16x1xi16> to vector<16xi16>
// CHECK:       vector.bitcast %[[BF]] : vector<16xi16> to vector<8xi32>
// CHECK:       arith.constant 4 : index
// CHECK:       xegpu.create_nd_tdesc {{.*}} : i64 -> !xegpu.tensor_desc<8x16xf32, #xegpu.tdesc_attr<sg_map = <wi_layout = [1, 16], wi_data = [1, 1]>>>
// CHECK:       %[[F:.*]] = xegpu.load_nd %{{.*}} -> vector<8x1xf32>
// CHECK:       vector.shape_cast %[[F]] : vector<8x1xf32> to vector<8xf32>
// CHECK:       arith.constant 1 : index
// CHECK:       xegpu.create_nd_tdesc {{.*}} : i64 -> !xegpu.tensor_desc<8x32xi8, #xegpu.tdesc_attr<sg_map = <wi_layout = [1, 16], wi_data = [1, 2]>>>
// CHECK:       %[[Q:.*]] = xegpu.load_nd %{{.*}} -> vector<8x2xi8>
// CHECK:       %[[QF:.*]] = vector.shape_cast %[[Q]] : vector<8x2xi8> to vector<16xi8>
// CHECK:       vector.bitcast %[[QF]] : vector<16xi8> to vector<8xi16>
