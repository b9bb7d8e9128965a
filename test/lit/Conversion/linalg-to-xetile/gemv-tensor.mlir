// gemv on tensors: the named pipeline xe-linalg-to-xetile bufferizes (xe-bufferize) and outlines
// linalg.matvec / linalg.vecmat into memory-bound XeTile kernels; xe-run checks the bufferized
// program against upstream MLIR on the CPU (returned buffer included) through the XeGPU stage.
// The linalg.fill of y before linalg.vecmat starts the accumulator (y is then not loaded).
// RUN: xe-opt %s --xe-linalg-to-xetile | FileCheck %s
// RUN: xe-run %s --pipeline xe-gemm-to-xegpu --check --entry mv | FileCheck %s --check-prefix=OK
// RUN: xe-run %s --pipeline xe-gemm-to-xegpu --check --entry vm | FileCheck %s --check-prefix=OK

// CHECK-LABEL: func.func @mv
// CHECK-NOT:   linalg.matvec
// CHECK:       gpu.launch_func @mv_kernels::@mv_0 {{.*}} args(%{{.*}} : memref<65x130xf32>, %{{.*}} : memref<130xf32>, %{{.*}} : memref<65xf32>)
// CHECK-LABEL: func.func @vm
// CHECK-NOT:   linalg.
// CHECK:       gpu.launch_func @vm_kernels::@vm_0
// CHECK:       gpu.func @mv_0(
// CHECK:         xetile.tile_reduce <add> {{.*}} [1]
// CHECK:       gpu.func @vm_0(
// CHECK:         %[[ZERO:.*]] = arith.constant {wg_map = {{.*}}} dense<0.000000e+00> : vector<1x32xbf16>
// CHECK:         %[[RED:.*]] = scf.for {{.*}} iter_args(%{{.*}} = %[[ZERO]])
// CHECK:           xetile.tile_reduce <add> {{.*}} [0]
// CHECK-NOT:     xetile.load_tile
// CHECK:         xetile.store_tile %[[RED]]

// OK:        result0: max abs error {{.*}}  ok
// OK-NEXT:  PASS

func.func @mv(%A: tensor<65x130xf32>, %x: tensor<130xf32>, %y: tensor<65xf32>) -> tensor<65xf32> {
  %r = linalg.matvec ins(%A, %x : tensor<65x130xf32>, tensor<130xf32>) outs(%y : tensor<65xf32>) -> tensor<65xf32>
  return %r : tensor<65xf32>
}

func.func @vm(%x: tensor<33xbf16>, %A: tensor<33x70xbf16>) -> tensor<70xbf16> {
  %zero = arith.constant 0.0 : bf16
  %e = tensor.empty() : tensor<70xbf16>
  %y = linalg.fill ins(%zero : bf16) outs(%e : tensor<70xbf16>) -> tensor<70xbf16>
  %r = linalg.vecmat ins(%x, %A : tensor<33xbf16>, tensor<33x70xbf16>) outs(%y : tensor<70xbf16>) -> tensor<70xbf16>
  return %r : tensor<70xbf16>
}
