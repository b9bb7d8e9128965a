// distribute=auto when both distributions fail: LLVM 22's (the dpas carries its layout only as
// layout_result_0) and ours (A's map [4, 8] x [64, 32] does not match C's [8, 4] x [32, 64], which
// xetile-wg-to-sg needs): our error, with upstream's as a note; exit 1.
// RUN: not xe-opt --convert-upstream-xegpu %s 2>&1 | FileCheck %s
// CHECK: error: convert-upstream-xegpu: our work-group distribution cannot take the kernel (as work-group XeTile it does not verify)
// CHECK: wg-fallback-both.mlir:22:10: error: 'xetile.tile_mma' op wg_map_a.sg_data[0] = 64 must equal wg_map_c.sg_data[0] = 32 (M)
// CHECK: note: convert-upstream-xegpu: upstream's xegpu-wg-to-sg-distribute failed (failed to legalize unresolved materialization {{.*}})
// CHECK-NOT: the work-group kernel was imported

#a = #xegpu.layout<sg_layout = [4, 8], sg_data = [64, 32], inst_data = [8, 16]>
#b = #xegpu.layout<sg_layout = [8, 4], sg_data = [32, 64], inst_data = [16, 16]>
#c = #xegpu.layout<sg_layout = [8, 4], sg_data = [32, 64], inst_data = [8, 16]>
gpu.module @kernels {
  gpu.func @mm(%a: memref<256x32xf16>, %b: memref<32x256xf16>, %c: memref<256x256xf32>) kernel {
    %c0 = arith.constant 0 : index
    %tc = xegpu.create_nd_tdesc %c : memref<256x256xf32> -> !xegpu.tensor_desc<256x256xf32, #c>
    %ta = xegpu.create_nd_tdesc %a : memref<256x32xf16> -> !xegpu.tensor_desc<256x32xf16, #a>
    %tb = xegpu.create_nd_tdesc %b : memref<32x256xf16> -> !xegpu.tensor_desc<32x256xf16, #b>
    %vc = xegpu.load_nd %tc[%c0, %c0] {layout = #c} : !xegpu.tensor_desc<256x256xf32, #c> -> vector<256x256xf32>
    %va = xegpu.load_nd %ta[%c0, %c0] {layout = #a} : !xegpu.tensor_desc<256x32xf16, #a> -> vector<256x32xf16>
    %vb = xegpu.load_nd %tb[%c0, %c0] {layout = #b} : !xegpu.tensor_desc<32x256xf16, #b> -> vector<32x256xf16>
    %d = xegpu.dpas %va, %vb, %vc {layout_result_0 = #c} : vector<256x32xf16>, vector<32x256xf16>, vector<256x256xf32> -> vector<256x256xf32>
    xegpu.store_nd %d, %tc[%c0, %c0] {layout = #c} : vector<256x256xf32>, !xegpu.tensor_desc<256x256xf32, #c>
    gpu.return
  }
}
