// A dequantizing linalg.generic feeding a linalg.matvec (weights N x K, a linear layer's out x in) or a
// linalg.vecmat (K x N) is fused into the gemv kernel's A tile: one launch, the integer weights (i4: their
// packed bytes through one host cast) loaded by the loop, dequantized in registers (the generic's body replayed),
// multiplied by x and reduced; the dequantized matrix is never written. Forms not fused keep two kernels and a
// remark saying why (docs/quantized-gemm.md "gemv"). The default (dequant-gemv=dpas) is the M = 1 GEMM instead:
// dequant-gemv-dpas.mlir.
// RUN: xe-opt %s --split-input-file --convert-linalg-to-xetile=dequant-gemv=vector --verify-diagnostics -o /dev/null
// RUN: xe-opt %s --split-input-file --convert-linalg-to-xetile=dequant-gemv=vector 2>/dev/null | FileCheck %s
// RUN: xe-opt %s --split-input-file --xe-print-plan --convert-linalg-to-xetile=dequant-gemv=vector -o /dev/null 2>&1 | FileCheck %s --check-prefix=PLAN

// PLAN-LABEL: memory-bound plan [pvc]: matvec (y = A x) on 64x256 f16
// PLAN:       reason: A holds i4 weights dequantized to f16 in registers: tiles of 64 columns (0.5 byte(s) per weight in memory: 32-byte rows of the weights' bytes
// PLAN:       A prologue       : i4 weights dequantized to f16 in registers (per group of 64 K columns; group f16, group i8); the f16 A is never written
// PLAN-LABEL: memory-bound plan [pvc]: vecmat (y = x A) on 128x96 bf16
// PLAN:       A prologue       : i8 weights dequantized to bf16 in registers (per column; col bf16); the bf16 A is never written

// CHECK-LABEL: func.func @matvec_w4(
// CHECK-NOT:     linalg.
// CHECK-NOT:     memref.alloc
// CHECK:         %[[Q:[0-9]+]] = builtin.unrealized_conversion_cast %arg0 : memref<64x256xi4> to memref<64x128xi8>
// CHECK-NOT:     memref.alloc
// CHECK:         gpu.launch_func @matvec_w4_kernels::@matvec_w4_0 {{.*}} args(%[[Q]] : memref<64x128xi8>, %arg3 : memref<256xf16>, %arg4 : memref<64xf16>, %arg1 : memref<64x4xf16>, %arg2 : memref<64x4xi8>)
// CHECK-NOT:     gpu.launch_func
// CHECK:         return
// CHECK:       gpu.func @matvec_w4_0(%[[W:arg[0-9]+]]: memref<64x128xi8>, %{{.*}}: memref<256xf16>, %{{.*}}: memref<64xf16>, %[[S:arg[0-9]+]]: memref<64x4xf16>, %[[Z:arg[0-9]+]]: memref<64x4xi8>)
// CHECK:         scf.for %[[K:arg[0-9]+]] = {{.*}} -> (vector<8x1xf16>) {
// CHECK:           %[[KB:[0-9]+]] = arith.divui %[[K]], %{{.*}} : index
// CHECK:           xetile.init_tile %[[W]][%{{.*}}, %[[KB]]] : memref<64x128xi8> -> !xetile.tile<8x32xi8
// CHECK:           arith.extsi %{{.*}} : vector<8x32xi8> to vector<8x32xi16>
// CHECK:           vector.bitcast %{{.*}} : vector<8x32xi16> to vector<8x64xi8>
// CHECK:           %[[G:[0-9]+]] = arith.divui %[[K]], %{{.*}} : index
// CHECK:           xetile.init_tile %[[S]][%{{.*}}, %[[G]]] : memref<64x4xf16> -> !xetile.tile<8x1xf16
// CHECK:           xetile.tile_broadcast %{{.*}} [1] {{.*}} : vector<8x1xf16> -> vector<8x64xf16>
// CHECK:           xetile.init_tile %[[Z]][%{{.*}}, %[[G]]] : memref<64x4xi8> -> !xetile.tile<8x1xi8
// CHECK:           arith.sitofp %{{.*}} : vector<8x64xi8> to vector<8x64xf16>
// CHECK:           arith.subf
// CHECK:           %[[D:[0-9]+]] = arith.mulf
// CHECK:           %[[XB:[0-9]+]] = xetile.tile_broadcast %{{.*}} [0] {{.*}} : vector<1x64xf16> -> vector<8x64xf16>
// CHECK:           %[[P:[0-9]+]] = arith.mulf %[[D]], %[[XB]]
// CHECK:           xetile.tile_reduce <add> %[[P]] [1] {{.*}} : vector<8x64xf16> -> vector<8x1xf16>
#id = affine_map<(d0, d1) -> (d0, d1)>
#p = affine_map<(d0, d1) -> (d0, d1 floordiv 64)>
func.func @matvec_w4(%W: memref<64x256xi4>, %S: memref<64x4xf16>, %Z: memref<64x4xi8>, %x: memref<256xf16>,
                     %y: memref<64xf16>) {
  %B = memref.alloc() : memref<64x256xf16>
  linalg.generic {indexing_maps = [#id, #p, #p, #id], iterator_types = ["parallel", "parallel"]}
      ins(%W, %S, %Z : memref<64x256xi4>, memref<64x4xf16>, memref<64x4xi8>) outs(%B : memref<64x256xf16>) {
  ^bb0(%w: i4, %s: f16, %z: i8, %o: f16):
    %e = arith.extsi %w : i4 to i8
    %f = arith.sitofp %e : i8 to f16
    %zf = arith.sitofp %z : i8 to f16
    %d = arith.subf %f, %zf : f16
    %r = arith.mulf %d, %s : f16
    linalg.yield %r : f16
  }
  linalg.matvec ins(%B, %x : memref<64x256xf16>, memref<256xf16>) outs(%y : memref<64xf16>)
  memref.dealloc %B : memref<64x256xf16>
  return
}

// -----
// vecmat: K x N weights, a scale per output column (a 1 x N row broadcast along K), bf16 into an f32 y.
// CHECK-LABEL: func.func @vecmat_w8(
// CHECK-NOT:     linalg.
// CHECK:         gpu.launch_func @vecmat_w8_kernels::@vecmat_w8_0 {{.*}} args(%arg0 : memref<128x96xi8>, %arg2 : memref<128xbf16>, %arg3 : memref<96xf32>, %arg1 : memref<96xbf16>)
// CHECK-NOT:     gpu.launch_func
// CHECK:       gpu.func @vecmat_w8_0(
// CHECK:         memref.expand_shape %{{.*}} output_shape [1, 96] : memref<96xbf16> into memref<1x96xbf16>
// CHECK:         scf.for
// CHECK:           xetile.load_tile {{.*}} -> vector<8x32xi8>
// CHECK:           xetile.tile_broadcast %{{.*}} [0] {{.*}} : vector<1x32xbf16> -> vector<8x32xbf16>
// CHECK:           arith.sitofp %{{.*}} : vector<8x32xi8> to vector<8x32xbf16>
// CHECK:           arith.extf %{{.*}} : vector<8x32xbf16> to vector<8x32xf32>
// CHECK:           xetile.tile_reduce <add> %{{.*}} [0] {{.*}} : vector<8x32xf32> -> vector<1x32xf32>
#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
func.func @vecmat_w8(%W: memref<128x96xi8>, %S: memref<96xbf16>, %x: memref<128xbf16>, %y: memref<96xf32>) {
  %B = memref.alloc() : memref<128x96xbf16>
  linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%W, %S : memref<128x96xi8>, memref<96xbf16>) outs(%B : memref<128x96xbf16>) {
  ^bb0(%w: i8, %s: bf16, %o: bf16):
    %f = arith.sitofp %w : i8 to bf16
    %r = arith.mulf %f, %s : bf16
    linalg.yield %r : bf16
  }
  linalg.vecmat ins(%x, %B : memref<128xbf16>, memref<128x96xbf16>) outs(%y : memref<96xf32>)
  return
}

// -----
// A matvec's N x K matrix scaled per column (map (d1)): a matvec's per-output parameters are per row (d0).
// CHECK-LABEL: func.func @matvec_scale_per_k(
// CHECK-COUNT-2: gpu.launch_func
#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
func.func @matvec_scale_per_k(%W: memref<64x128xi8>, %S: memref<128xf16>, %x: memref<128xf16>, %y: memref<64xf16>) {
  %B = memref.alloc() : memref<64x128xf16>
  // expected-remark @+1 {{dequantization not fused into 'linalg.matvec': input 1 (memref<128xf16>) has the map (d1) (fused: the weights (d0, d1), per-row (d0), per-group (d0, d1 floordiv G))}}
  linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%W, %S : memref<64x128xi8>, memref<128xf16>) outs(%B : memref<64x128xf16>) {
  ^bb0(%w: i8, %s: f16, %o: f16):
    %f = arith.sitofp %w : i8 to f16
    %r = arith.mulf %f, %s : f16
    linalg.yield %r : f16
  }
  linalg.matvec ins(%B, %x : memref<64x128xf16>, memref<128xf16>) outs(%y : memref<64xf16>)
  return
}

// -----
// The dequantized matrix is also copied out: not a temporary only the gemv reads.
// CHECK-LABEL: func.func @matrix_read_again(
// CHECK-COUNT-2: gpu.launch_func
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @matrix_read_again(%W: memref<64x128xi8>, %S: memref<64xf16>, %x: memref<128xf16>, %y: memref<64xf16>,
                             %D: memref<64x128xf16>) {
  %B = memref.alloc() : memref<64x128xf16>
  // expected-remark @+1 {{dequantization not fused into 'linalg.matvec': the dequantized matrix is also used by 'memref.copy' (it must stay a temporary only the gemv reads)}}
  linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%W, %S : memref<64x128xi8>, memref<64xf16>) outs(%B : memref<64x128xf16>) {
  ^bb0(%w: i8, %s: f16, %o: f16):
    %f = arith.sitofp %w : i8 to f16
    %r = arith.mulf %f, %s : f16
    linalg.yield %r : f16
  }
  linalg.matvec ins(%B, %x : memref<64x128xf16>, memref<128xf16>) outs(%y : memref<64xf16>)
  memref.copy %B, %D : memref<64x128xf16> to memref<64x128xf16>
  return
}
