// Activation epilogues (relu, gelu in its tanh and erf forms, named element-wise ops): the body of
// each fused linalg op is replayed on the work-group accumulator, op by op, each vector op with
// C's wg_map; the C tile is stored once.
// RUN: xe-opt %s --split-input-file --convert-linalg-to-xetile | FileCheck %s

// CHECK-LABEL: func.func @relu(
// CHECK-NOT:   linalg.generic
// CHECK:       gpu.func @relu_0(
// CHECK:       %[[R:.*]]:5 = scf.for
// CHECK:       %[[Z:.*]] = arith.constant {wg_map = #xetile.wg_map<sg_layout = [4, 2], sg_data = [8, 32]>} dense<0.000000e+00> : vector<32x64xf32>
// CHECK:       %[[Y:.*]] = arith.maximumf %[[R]]#0, %[[Z]] {wg_map = #xetile.wg_map<sg_layout = [4, 2], sg_data = [8, 32]>} : vector<32x64xf32>
// CHECK:       xetile.store_tile %[[Y]]
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @relu(%A: memref<64x64xbf16>, %B: memref<64x64xbf16>, %C: memref<64x64xf32>) {
  linalg.matmul ins(%A, %B : memref<64x64xbf16>, memref<64x64xbf16>) outs(%C : memref<64x64xf32>)
  linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]} outs(%C : memref<64x64xf32>) {
  ^bb0(%x: f32):
    %z = arith.constant 0.0 : f32
    %y = arith.maximumf %x, %z : f32
    linalg.yield %y : f32
  }
  return
}

// -----
// i8 x i8 -> i32 with an integer relu
// CHECK-LABEL: gpu.func @relu_i32_0(
// CHECK:       %[[R:.*]]:5 = scf.for
// CHECK:       %[[Z:.*]] = arith.constant {wg_map = {{.*}}} dense<0> : vector<32x64xi32>
// CHECK:       arith.maxsi %[[R]]#0, %[[Z]] {wg_map = #xetile.wg_map<sg_layout = [4, 2], sg_data = [8, 32]>} : vector<32x64xi32>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @relu_i32(%A: memref<64x64xi8>, %B: memref<64x64xi8>, %C: memref<64x64xi32>) {
  linalg.matmul ins(%A, %B : memref<64x64xi8>, memref<64x64xi8>) outs(%C : memref<64x64xi32>)
  linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]} outs(%C : memref<64x64xi32>) {
  ^bb0(%x: i32):
    %z = arith.constant 0 : i32
    %y = arith.maxsi %x, %z : i32
    linalg.yield %y : i32
  }
  return
}

// -----
// gelu, tanh approximation: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
// CHECK-LABEL: gpu.func @gelu_tanh_0(
// CHECK:       %[[R:.*]]:5 = scf.for
// CHECK:       %[[X2:.*]] = arith.mulf %[[R]]#0, %[[R]]#0 {wg_map = {{.*}}} : vector<32x64xf32>
// CHECK:       %[[X3:.*]] = arith.mulf %[[X2]], %[[R]]#0 {wg_map = {{.*}}} : vector<32x64xf32>
// CHECK:       %[[T:.*]] = math.tanh %{{.*}} {wg_map = #xetile.wg_map<sg_layout = [4, 2], sg_data = [8, 32]>} : vector<32x64xf32>
// CHECK:       %[[S:.*]] = arith.addf %[[T]], %{{.*}} {wg_map = {{.*}}} : vector<32x64xf32>
// CHECK:       %[[Y:.*]] = arith.mulf %{{.*}}, %[[S]] {wg_map = {{.*}}} : vector<32x64xf32>
// CHECK:       xetile.store_tile %[[Y]]
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @gelu_tanh(%A: memref<64x64xbf16>, %B: memref<64x64xbf16>, %C: memref<64x64xf32>) {
  linalg.matmul ins(%A, %B : memref<64x64xbf16>, memref<64x64xbf16>) outs(%C : memref<64x64xf32>)
  linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]} outs(%C : memref<64x64xf32>) {
  ^bb0(%x: f32):
    %half = arith.constant 0.5 : f32
    %one = arith.constant 1.0 : f32
    %k0 = arith.constant 0.797884583 : f32
    %k1 = arith.constant 0.044715 : f32
    %x2 = arith.mulf %x, %x : f32
    %x3 = arith.mulf %x2, %x : f32
    %t1 = arith.mulf %x3, %k1 : f32
    %t2 = arith.addf %x, %t1 : f32
    %t3 = arith.mulf %t2, %k0 : f32
    %th = math.tanh %t3 : f32
    %s = arith.addf %th, %one : f32
    %hx = arith.mulf %x, %half : f32
    %y = arith.mulf %hx, %s : f32
    linalg.yield %y : f32
  }
  return
}

// -----
// gelu, erf form: 0.5 x (1 + erf(x / sqrt(2))), into a separate f16 output
// CHECK-LABEL: func.func @gelu_erf(
// CHECK:       gpu.launch_func {{.*}} args(%arg0 : memref<64x64xbf16>, %arg1 : memref<64x64xbf16>, %arg2 : memref<64x64xf32>, %arg3 : memref<64x64xf16>)
// CHECK-LABEL: gpu.func @gelu_erf_0(
// CHECK:       %[[E:.*]] = math.erf %{{.*}} {wg_map = #xetile.wg_map<sg_layout = [4, 2], sg_data = [8, 32]>} : vector<32x64xf32>
// CHECK:       %[[H:.*]] = arith.truncf %{{.*}} {wg_map = {{.*}}} : vector<32x64xf32> to vector<32x64xf16>
// C keeps the matmul result, D gets the activation
// CHECK:       xetile.store_tile %{{.*}}#0, %{{.*}} : vector<32x64xf32>, !xetile.tile<32x64xf32
// CHECK:       %[[DT:.*]] = xetile.init_tile %arg3[%{{.*}}, %{{.*}}] : memref<64x64xf16> -> !xetile.tile<32x64xf16, #xetile.tile_attr<wg_map = <sg_layout = [4, 2], sg_data = [8, 32]>>>
// CHECK:       xetile.store_tile %[[H]], %[[DT]] : vector<32x64xf16>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @gelu_erf(%A: memref<64x64xbf16>, %B: memref<64x64xbf16>, %C: memref<64x64xf32>, %D: memref<64x64xf16>) {
  linalg.matmul ins(%A, %B : memref<64x64xbf16>, memref<64x64xbf16>) outs(%C : memref<64x64xf32>)
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%C : memref<64x64xf32>) outs(%D : memref<64x64xf16>) {
  ^bb0(%x: f32, %o: f16):
    %half = arith.constant 0.5 : f32
    %one = arith.constant 1.0 : f32
    %r2 = arith.constant 0.707106769 : f32
    %xs = arith.mulf %x, %r2 : f32
    %e = math.erf %xs : f32
    %s = arith.addf %e, %one : f32
    %hx = arith.mulf %x, %half : f32
    %y = arith.mulf %hx, %s : f32
    %h = arith.truncf %y : f32 to f16
    linalg.yield %h : f16
  }
  return
}

// -----
// named element-wise ops and a column bias through linalg.broadcast into a temporary
// CHECK-LABEL: func.func @named(
// CHECK-NOT:   linalg.
// CHECK-NOT:   memref.alloc
// CHECK:       gpu.launch_func
// CHECK-LABEL: gpu.func @named_0(
// CHECK:       %[[R:.*]]:5 = scf.for
// CHECK:       memref.expand_shape %{{.*}} {{\[\[}}0, 1]] output_shape [64, 1] : memref<64xf32> into memref<64x1xf32>
// CHECK:       xetile.init_tile {{.*}} : memref<64x1xf32> -> !xetile.tile<32x1xf32, #xetile.tile_attr<wg_map = <sg_layout = [4, 2], sg_data = [8, 1]>>>
// CHECK:       %[[BB:.*]] = xetile.tile_broadcast %{{.*}} [1] {wg_map = #xetile.wg_map<sg_layout = [4, 2], sg_data = [8, 32]>} : vector<32x1xf32> -> vector<32x64xf32>
// CHECK:       %[[S:.*]] = arith.addf %[[R]]#0, %[[BB]] {wg_map = {{.*}}}
// CHECK:       %[[E:.*]] = math.exp %[[S]] {wg_map = {{.*}}}
// CHECK:       xetile.store_tile %[[E]]
func.func @named(%A: memref<64x64xbf16>, %B: memref<64x64xbf16>, %C: memref<64x64xf32>, %bias: memref<64xf32>) {
  %t = memref.alloc() : memref<64x64xf32>
  linalg.matmul ins(%A, %B : memref<64x64xbf16>, memref<64x64xbf16>) outs(%C : memref<64x64xf32>)
  linalg.broadcast ins(%bias : memref<64xf32>) outs(%t : memref<64x64xf32>) dimensions = [1]
  linalg.add ins(%C, %t : memref<64x64xf32>, memref<64x64xf32>) outs(%C : memref<64x64xf32>)
  linalg.exp ins(%C : memref<64x64xf32>) outs(%C : memref<64x64xf32>)
  memref.dealloc %t : memref<64x64xf32>
  return
}
