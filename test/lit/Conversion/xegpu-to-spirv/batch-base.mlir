// The surface base of a batch's subview (a kernel buffer argument at block_id * rows * cols
// elements) is 64-byte aligned when rows * cols * element bytes is a multiple of 64: then no run-time
// base test and no per-lane fallback (IGC: linalg.batch_matmul 3x64x32x48, pvc, 205 -> 37 non-DPAS
// instructions per DPAS; the kernel was versioned with both copies). A batch stride that is not a
// multiple of 64 bytes keeps the test.
// RUN: xe-opt %s --convert-xegpu-to-spirv | FileCheck %s

// CHECK-LABEL: spirv.func @aligned(
// CHECK-NOT:     spirv.ConvertPtrToU
// CHECK-NOT:     spirv.mlir.selection
// CHECK:         spirv.FunctionCall @__builtin_intel_sub_group_2d_block_read_16b_8r16x1c(
// CHECK:         spirv.Return

// CHECK-LABEL: spirv.func @unaligned(
// CHECK:         spirv.ConvertPtrToU
// CHECK:         spirv.mlir.selection
// CHECK:         spirv.Return

module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @aligned(%a: memref<3x64x48xbf16>, %o: memref<3x8x16xbf16>) kernel {
      %c0 = arith.constant 0 : index
      %g = gpu.block_id z
      %s = memref.subview %a[%g, 0, 0] [1, 64, 48] [1, 1, 1] : memref<3x64x48xbf16> to memref<64x48xbf16, strided<[48, 1], offset: ?>>
      %d = xegpu.create_nd_tdesc %s[%c0, %c0] {mode = vc} : memref<64x48xbf16, strided<[48, 1], offset: ?>> -> !xegpu.tensor_desc<8x16xbf16>
      %v = xegpu.load_nd %d {mode = vc} : !xegpu.tensor_desc<8x16xbf16> -> vector<8x16xbf16>
      %so = memref.subview %o[%g, 0, 0] [1, 8, 16] [1, 1, 1] : memref<3x8x16xbf16> to memref<8x16xbf16, strided<[16, 1], offset: ?>>
      %od = xegpu.create_nd_tdesc %so[%c0, %c0] {mode = vc} : memref<8x16xbf16, strided<[16, 1], offset: ?>> -> !xegpu.tensor_desc<8x16xbf16>
      xegpu.store_nd %v, %od {mode = vc} : vector<8x16xbf16>, !xegpu.tensor_desc<8x16xbf16>
      gpu.return
    }
    gpu.func @unaligned(%a: memref<3x7x48xbf16>, %o: memref<8x16xbf16>) kernel {
      %c0 = arith.constant 0 : index
      %g = gpu.block_id z
      %s = memref.subview %a[%g, 0, 0] [1, 7, 48] [1, 1, 1] : memref<3x7x48xbf16> to memref<7x48xbf16, strided<[48, 1], offset: ?>>
      %d = xegpu.create_nd_tdesc %s[%c0, %c0] {mode = vc} : memref<7x48xbf16, strided<[48, 1], offset: ?>> -> !xegpu.tensor_desc<8x16xbf16>
      %v = xegpu.load_nd %d {mode = vc} : !xegpu.tensor_desc<8x16xbf16> -> vector<8x16xbf16>
      %od = xegpu.create_nd_tdesc %o[%c0, %c0] {mode = vc} : memref<8x16xbf16> -> !xegpu.tensor_desc<8x16xbf16>
      xegpu.store_nd %v, %od {mode = vc} : vector<8x16xbf16>, !xegpu.tensor_desc<8x16xbf16>
      gpu.return
    }
  }
}
