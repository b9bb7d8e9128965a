// Two forms of IMEX's XeTileToXeGPU tests (sg_init_tile.mlir, sg_load_tile.mlir), lowered: three offsets
// into a 3D memref with dynamic dims, its shape and strides given -- the leading offset selects the
// batch: a 2D memref.reinterpret_cast at offset + b * stride0 with the last two sizes and strides,
// then the 2D tile's blocks -- and `padding = 0 : i32` on an f16 tile (zero: plain block loads).
// Simulated against numpy in test/python/test_imex_xetile.py.
// RUN: xe-opt %s --imex-xetile-to-xegpu | FileCheck %s

gpu.module @test_kernel {
  // CHECK-LABEL: gpu.func @sg_init_tile
  gpu.func @sg_init_tile(%c: memref<?x128x96xf32>, %b: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %c96 = arith.constant 96 : index
    %c128 = arith.constant 128 : index
    %c12288 = arith.constant 12288 : index
    %result = arith.constant dense<0.0>: vector<32x32xf32>
    // (the memref's own offset, 0 for this identity layout, and static sizes folded by canonicalize)
    // CHECK: %[[B:.*]] = arith.muli %{{.*}}, %{{.*}} : index
    // CHECK: %[[R:.*]] = memref.reinterpret_cast %{{.*}} to offset: [%[[B]]], sizes: [128, 96], strides: [96, 1] : memref<?x128x96xf32> to memref<128x96xf32, strided<[96, 1], offset: ?>>
    // CHECK: %[[V:.*]] = memref.cast %[[R]]
    // CHECK-COUNT-8: xegpu.create_nd_tdesc %[[V]][{{[0-9]+, [0-9]+}}], [%{{.*}}, %{{.*}}], [%{{.*}}, %{{.*}}] {mode = vc} : memref<?x?xf32, strided<[?, ?], offset: ?>> -> !xegpu.tensor_desc<8x16xf32>
    %t = xetile.init_tile %c[%b, %c0, %c32],[%c128, %c128, %c96], [%c12288, %c96, %c1]  : memref<?x128x96xf32> -> !xetile.tile<32x32xf32>
    xetile.store_tile %result, %t: vector<32x32xf32>, !xetile.tile<32x32xf32>
    gpu.return
  }

  // CHECK-LABEL: gpu.func @sg_load_tile
  gpu.func @sg_load_tile(%a: memref<1024x1024xf16>, %o: memref<1024x1024xf16>) {
    %c0 = arith.constant 0 : index
    %c64 = arith.constant 64 : index
    %1 = xetile.init_tile %a[%c0, %c64] : memref<1024x1024xf16> -> !xetile.tile<32x32xf16>
    // CHECK: xegpu.load_nd %{{.*}} {mode = vc} : !xegpu.tensor_desc<32x32xf16> -> vector<32x32xf16>
    // CHECK-NOT: xegpu.load {
    %2 = xetile.load_tile %1 {padding = 0 : i32} : !xetile.tile<32x32xf16> -> vector<32x32xf16>
    %3 = xetile.init_tile %o[%c0, %c64] : memref<1024x1024xf16> -> !xetile.tile<32x32xf16>
    xetile.store_tile %2, %3 : vector<32x32xf16>, !xetile.tile<32x32xf16>
    gpu.return
  }
}
