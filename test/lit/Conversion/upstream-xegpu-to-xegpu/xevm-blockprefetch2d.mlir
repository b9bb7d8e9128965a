// xevm.blockprefetch2d (a cache hint, lane level, on a raw global pointer) as our SIMT prefetch_nd of
// the same descriptor as blockload2d's (xevm-blockload2d.mlir), its cache control as our hints.
// RUN: xe-opt --convert-upstream-xegpu %s | FileCheck %s

gpu.module @k {
  gpu.func @prefetch(%p: !llvm.ptr<1>, %x: i32, %y: i32) kernel {
    %w = arith.constant 64 : i32
    %h = arith.constant 32 : i32
    xevm.blockprefetch2d %p, %w, %h, %w, %x, %y <{elem_size_in_bits=8 : i32, tile_width=32 : i32, tile_height=8 : i32, v_blocks=1 : i32, cache_control=#xevm.load_cache_control<L1uc_L2c_L3c>}> : (!llvm.ptr<1>, i32, i32, i32, i32, i32)
    xevm.blockprefetch2d %p, %w, %h, %w, %x, %y <{elem_size_in_bits=16 : i32, tile_width=16 : i32, tile_height=8 : i32, v_blocks=1 : i32}> : (!llvm.ptr<1>, i32, i32, i32, i32, i32)
    gpu.return
  }
}

// CHECK-LABEL: gpu.func @prefetch
// CHECK:       %[[ADDR:.*]] = llvm.ptrtoint %{{.*}} : !llvm.ptr<1> to i64
// CHECK:       %[[TD:.*]] = xegpu.create_nd_tdesc %[[ADDR]][{{.*}}] : i64 -> !xegpu.tensor_desc<8x32xi8, #xegpu.tdesc_attr<sg_map = <wi_layout = [1, 16], wi_data = [1, 2]>>>
// CHECK:       xegpu.prefetch_nd %[[TD]] {l1_hint = uncached, l2_hint = cached, l3_hint = cached} : !xegpu.tensor_desc<8x32xi8
// CHECK:       %[[TD2:.*]] = xegpu.create_nd_tdesc {{.*}} : i64 -> !xegpu.tensor_desc<8x16xi16, #xegpu.tdesc_attr<sg_map = <wi_layout = [1, 16], wi_data = [1, 1]>>>
// CHECK:       xegpu.prefetch_nd %[[TD2]] : !xegpu.tensor_desc<8x16xi16
