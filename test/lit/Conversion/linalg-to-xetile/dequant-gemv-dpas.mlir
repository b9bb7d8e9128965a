// A dequantizing linalg.matvec / linalg.vecmat is lowered by default (dequant-gemv=dpas) as the M = 1 DPAS GEMM:
// x and y as 1 x n views, the weights as B (a matvec's N x K read transposed) dequantized in the GEMM kernel's B
// path; dequant-gemv=vector keeps the vector-FMA gemv kernel (docs/quantized-gemm.md "gemv").
// RUN: xe-opt %s --split-input-file --convert-linalg-to-xetile 2>/dev/null | FileCheck %s
// RUN: xe-opt %s --split-input-file --convert-linalg-to-xetile=dequant-gemv=vector 2>/dev/null | FileCheck %s --check-prefix=VEC
// RUN: xe-opt %s --split-input-file --xe-print-plan --convert-linalg-to-xetile -o /dev/null 2>&1 | FileCheck %s --check-prefix=PLAN
// RUN: xe-opt %s --split-input-file --xe-print-plan --convert-linalg-to-xetile=dequant-gemv=vector -o /dev/null 2>&1 | FileCheck %s --check-prefix=VPLAN

// PLAN-LABEL: GEMM plan [pvc]: C[1x64 f16] += A[1x256 f16] * B^T[256x64 f16]  (accumulate f32)
// PLAN:       B prologue       : i4 weights dequantized to f16 in registers (per group of 64 K columns
// PLAN:       form             : the dequantizing gemv as the M = 1 DPAS GEMM (dequant-gemv=dpas; IGC 2.40, 4096 x 4096: pvc W8A16 8.5 us against the gemv's 16.7 us
// PLAN-LABEL: GEMM plan [pvc]: C[1x96 f32] += A[1x128 bf16] * B[128x96 bf16]  (accumulate f32)
// PLAN:       form             : the dequantizing gemv as the M = 1 DPAS GEMM
// PLAN-LABEL: GEMM plan [pvc]: C[1x64 f16] += A[1x256 f16] * B^T[256x64 f16]  (accumulate f32)
// PLAN:       prologue         : linalg.fill fused
// PLAN:       form             : the dequantizing gemv as the M = 1 DPAS GEMM

// VPLAN-LABEL: memory-bound plan [pvc]: matvec (y = A x) on 64x256 f16
// VPLAN:       A prologue
// VPLAN:       form             : the vector-FMA gemv kernel (dequant-gemv=vector; the default M = 1 DPAS GEMM is faster: IGC 2.40
// VPLAN-LABEL: memory-bound plan [pvc]: vecmat (y = x A) on 128x96 bf16
// VPLAN:       form             : the vector-FMA gemv kernel (dequant-gemv=vector

// CHECK-LABEL: func.func @matvec_w4(
// CHECK-NOT:     linalg.
// CHECK-DAG:     %[[X:.*]] = memref.expand_shape %arg3 {{\[\[}}0, 1]] output_shape [1, 256] : memref<256xf16> into memref<1x256xf16>
// CHECK-DAG:     %[[Y:.*]] = memref.expand_shape %arg4 {{\[\[}}0, 1]] output_shape [1, 64] : memref<64xf16> into memref<1x64xf16>
// CHECK-DAG:     %[[Q:[0-9]+]] = builtin.unrealized_conversion_cast %arg0 : memref<64x256xi4> to memref<64x128xi8>
// CHECK-NOT:     memref.alloc
// CHECK:         gpu.launch_func @matvec_w4_kernels::@matvec_w4_0 {{.*}} args(%[[X]] : memref<1x256xf16>, %[[Q]] : memref<64x128xi8>, %[[Y]] : memref<1x64xf16>, %arg1 : memref<64x4xf16>, %arg2 : memref<64x4xi8>)
// CHECK-NOT:     gpu.launch_func
// CHECK:       gpu.func @matvec_w4_0(
// CHECK:         scf.for
// CHECK:           xetile.tile_transpose
// CHECK:           xetile.tile_mma
// CHECK-NOT:     xetile.tile_reduce
// VEC-LABEL: func.func @matvec_w4(
// VEC:         gpu.launch_func @matvec_w4_kernels::@matvec_w4_0 {{.*}} args(%{{.*}} : memref<64x128xi8>, %arg3 : memref<256xf16>, %arg4 : memref<64xf16>, %arg1 : memref<64x4xf16>, %arg2 : memref<64x4xi8>)
// VEC:       gpu.func @matvec_w4_0(
// VEC-NOT:       xetile.tile_mma
// VEC:           xetile.tile_reduce <add> %{{.*}} [1]
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
// vecmat: K x N weights as B, a scale per column; the fill of y is fused (into its view): no load of C.
// CHECK-LABEL: func.func @vecmat_w8(
// CHECK-NOT:     linalg.
// CHECK:         gpu.launch_func @vecmat_w8_kernels::@vecmat_w8_0 {{.*}} args(%{{.*}} : memref<1x128xbf16>, %arg0 : memref<128x96xi8>, %{{.*}} : memref<1x96xf32>, %arg1 : memref<96xbf16>)
// CHECK:       gpu.func @vecmat_w8_0(
// CHECK:           xetile.tile_mma
// CHECK-NOT:     xetile.load_tile {{.*}}xf32
// CHECK:         xetile.store_tile {{.*}}xf32
// VEC-LABEL: func.func @vecmat_w8(
// VEC:         gpu.launch_func @vecmat_w8_kernels::@vecmat_w8_0 {{.*}} args(%arg0 : memref<128x96xi8>, %arg2 : memref<128xbf16>, %arg3 : memref<96xf32>, %arg1 : memref<96xbf16>)
// VEC:           xetile.tile_reduce <add> %{{.*}} [0]
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
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%y : memref<96xf32>)
  linalg.vecmat ins(%x, %B : memref<128xbf16>, memref<128x96xbf16>) outs(%y : memref<96xf32>)
  memref.dealloc %B : memref<128x96xbf16>
  return
}

// -----
// y allocated after the dequantization (the tensor program's form after bufferization): its 1 x N view goes right
// after its alloc, between the dequantization and the matmul; the GEMM still takes it, the fill fused.
// CHECK-LABEL: func.func @matvec_late_y(
// CHECK:         %[[Y:.*]] = memref.alloc() : memref<64xf16>
// CHECK-NEXT:    %[[YV:.*]] = memref.expand_shape %[[Y]] {{\[\[}}0, 1]] output_shape [1, 64] : memref<64xf16> into memref<1x64xf16>
// CHECK:         gpu.launch_func @matvec_late_y_kernels::@matvec_late_y_0 {{.*}} args(%{{.*}} : memref<1x256xf16>, %arg0 : memref<64x256xi8>, %[[YV]] : memref<1x64xf16>, %arg1 : memref<64xf16>)
// CHECK-NOT:     linalg.
// CHECK:         return %[[Y]]
// CHECK:       gpu.func @matvec_late_y_0(
// CHECK:           xetile.tile_mma
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @matvec_late_y(%W: memref<64x256xi8>, %S: memref<64xf16>, %x: memref<256xf16>) -> memref<64xf16> {
  %B = memref.alloc() : memref<64x256xf16>
  linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%W, %S : memref<64x256xi8>, memref<64xf16>) outs(%B : memref<64x256xf16>) {
  ^bb0(%w: i8, %s: f16, %o: f16):
    %f = arith.sitofp %w : i8 to f16
    %r = arith.mulf %f, %s : f16
    linalg.yield %r : f16
  }
  %y = memref.alloc() : memref<64xf16>
  %zero = arith.constant 0.0 : f16
  linalg.fill ins(%zero : f16) outs(%y : memref<64xf16>)
  linalg.matvec ins(%B, %x : memref<64x256xf16>, memref<256xf16>) outs(%y : memref<64xf16>)
  memref.dealloc %B : memref<64x256xf16>
  return %y : memref<64xf16>
}
