// --emit=device-binary / --emit=isa: IGC's binary and assembly of the pvc SPIR-V, built with the
// metadata's options (the kernel prefetches: IGC's prefetch payload hoisting; docs/igc.md).
// REQUIRES: igc
// RUN: xe-opt %s --xe-gemm-to-spirv --emit=isa | FileCheck %s
// RUN: xe-opt %s --xe-gemm-to-spirv=arch=bmg --emit=isa | FileCheck %s --check-prefix=BMG
// RUN: rm -f %t.bin && xe-opt %s --xe-gemm-to-spirv --emit=device-binary -o %t.bin && %python -c "import sys; sys.exit(open(sys.argv[1], 'rb').read(4) != b'\x7fELF')" %t.bin
// RUN: not xe-opt %s --xe-gemm-to-spirv --emit=device-binary 2>&1 | FileCheck %s --check-prefix=NOOUT
// RUN: not xe-opt %s --split-input-file --xe-gemm-to-spirv --emit=isa 2>&1 | FileCheck %s --check-prefix=SPLIT

// CHECK: // ===== kernel gemm_0: pvc -igc_opts 'AllowPrefetchDecomposeWithHoisting=1', SIMD16, 128 GRFs, spill 0 B, {{[0-9]+}} instructions
// CHECK-NEXT: //.kernel gemm_0
// CHECK-NEXT: //.platform PVC
// CHECK: dpas.8x8

// BMG: // ===== kernel gemm_0: bmg -igc_opts 'AllowPrefetchDecomposeWithHoisting=1', SIMD16, 128 GRFs, spill 0 B
// BMG: //.platform XE2

// NOOUT: xe-opt: error: --emit=device-binary needs an output file (-o FILE)
// SPLIT: xe-opt: error: --emit=isa cannot be combined with --split-input-file

func.func @gemm(%A: memref<256x256xbf16>, %B: memref<256x256xbf16>, %C: memref<256x256xf32>) {
  linalg.matmul ins(%A, %B : memref<256x256xbf16>, memref<256x256xbf16>) outs(%C : memref<256x256xf32>)
  return
}
