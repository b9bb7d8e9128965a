// xetile-check-hw with arch=bmg: Xe2 registers the same 2D block and DPAS instructions as PVC
// (upstream MLIR BMGuArch), so the same blocks are legal and the same ones are rejected, naming
// bmg; what the blocking produces for a bmg plan passes with require-blocked.
// RUN: xe-opt %s --split-input-file --xetile-check-hw=arch=bmg --verify-diagnostics
// RUN: not xe-opt %s --split-input-file --xetile-check-hw=arch=pvc 2>&1 | FileCheck %s --check-prefix=PVC
// RUN: xe-opt %S/../../Conversion/linalg-to-xetile/bmg-plan.mlir --convert-linalg-to-xetile=arch=bmg --xetile-wg-to-sg --xetile-blocking=arch=bmg --xetile-check-hw=arch=bmg,require-blocked=true -o /dev/null
// RUN: not xe-opt %s --split-input-file --xetile-check-hw=arch=pvc2 2>&1 | FileCheck %s --check-prefix=BAD

// PVC: not a legal 2D block store on pvc: store of 32-bit data: block height 16 is outside [1, 8]
// PVC: not a legal 2D block VNNI load on pvc
// PVC: tile_mma is not DPAS-sized on pvc: the A block 16x16 has 16 rows; DPAS repeats 1..8 rows
// BAD: error: unknown architecture 'pvc2' (known: bmg, pvc)

gpu.module @k {
  gpu.func @store_too_tall(%C: memref<64x64xf32>) kernel {
    %c0 = arith.constant 0 : index
    %cst = arith.constant dense<0.0> : vector<1x1x16x16xf32>
    %ct = xetile.init_tile %C[%c0, %c0] : memref<64x64xf32> -> !xetile.tile<16x16xf32, #xetile.tile_attr<inner_blocks = [16, 16]>>
    // expected-error @+1 {{xetile-check-hw: inner block 16x16 of the 16x16xf32 tile is not a legal 2D block store on bmg: store of 32-bit data: block height 16 is outside [1, 8]}}
    xetile.store_tile %cst, %ct : vector<1x1x16x16xf32>, !xetile.tile<16x16xf32, #xetile.tile_attr<inner_blocks = [16, 16]>>
    gpu.return
  }
}

// -----
gpu.module @k {
  gpu.func @vnni_too_wide(%A: memref<64x64xbf16>, %B: memref<64x64xbf16>) kernel {
    %c0 = arith.constant 0 : index
    %a = xetile.init_tile %A[%c0, %c0] : memref<64x64xbf16> -> !xetile.tile<8x16xbf16, #xetile.tile_attr<inner_blocks = [8, 16]>>
    %b = xetile.init_tile %B[%c0, %c0] : memref<64x64xbf16> -> !xetile.tile<16x32xbf16, #xetile.tile_attr<inner_blocks = [16, 32]>>
    %va = xetile.load_tile %a : !xetile.tile<8x16xbf16, #xetile.tile_attr<inner_blocks = [8, 16]>> -> vector<1x1x8x16xbf16>
    // expected-error @+1 {{not a legal 2D block VNNI load on bmg: load vnni of 16-bit data: block width 32 elements is outside [2, 16]}}
    %vb = xetile.load_tile %b : !xetile.tile<16x32xbf16, #xetile.tile_attr<inner_blocks = [16, 32]>> -> vector<1x1x16x32xbf16>
    %ub = xetile.tile_unpack %vb {inner_blocks = [16, 32]} : vector<1x1x16x32xbf16> -> vector<16x32xbf16>
    %pb = xetile.tile_pack %ub {inner_blocks = [16, 16]} : vector<16x32xbf16> -> vector<1x2x16x16xbf16>
    %d = xetile.tile_mma %va, %pb : vector<1x1x8x16xbf16>, vector<1x2x16x16xbf16> -> vector<1x2x8x16xf32>
    gpu.return
  }
}

// -----
gpu.module @k {
  gpu.func @mma_blocks(%x: vector<1x1x16x16xbf16>, %y: vector<1x1x16x16xbf16>) kernel {
    // expected-error @+1 {{xetile-check-hw: tile_mma is not DPAS-sized on bmg: the A block 16x16 has 16 rows; DPAS repeats 1..8 rows}}
    %d = xetile.tile_mma %x, %y : vector<1x1x16x16xbf16>, vector<1x1x16x16xbf16> -> vector<1x1x16x16xf32>
    gpu.return
  }
}

// -----
// tf32 (f32 operands) is a DPAS type on Xe2 as on PVC (SYCL matrix combinations for bmg_g21)
gpu.module @k {
  gpu.func @tf32_ok(%x: vector<1x1x8x8xf32>, %y: vector<1x1x8x16xf32>) kernel {
    %d = xetile.tile_mma %x, %y : vector<1x1x8x8xf32>, vector<1x1x8x16xf32> -> vector<1x1x8x16xf32>
    gpu.return
  }
}
