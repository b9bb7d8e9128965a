// Bias + relu epilogue fused into the GEMM kernel: the fill of C starts the accumulator (C is not
// read), the bias row is loaded with its own 1 x N tile (sg_data [1, 32]) and expanded with
// tile_broadcast (rfc-xetile appendix 2.2); every epilogue vector op carries C's wg_map.
// RUN: xe-opt %s --convert-linalg-to-xetile | FileCheck %s
// RUN: xe-opt %s --convert-linalg-to-xetile --xetile-wg-to-sg | FileCheck %s --check-prefix=SG

// CHECK-LABEL: func.func @bias_relu(
// CHECK-NOT:   linalg.
// CHECK:       gpu.launch_func @bias_relu_kernels::@bias_relu_0 {{.*}} args(%arg0 : memref<256x128xbf16>, %arg1 : memref<128x512xbf16>, %arg3 : memref<256x512xf32>, %arg2 : memref<512xf32>)
// CHECK-NOT:   linalg.
// CHECK:       return
// CHECK:       gpu.func @bias_relu_0(%{{.*}}: memref<256x128xbf16>, %{{.*}}: memref<128x512xbf16>, %[[C:.*]]: memref<256x512xf32>, %[[BIAS:.*]]: memref<512xf32>)
// CHECK-DAG:   %[[BX:.*]] = gpu.block_id x
// CHECK-DAG:   %[[N:.*]] = arith.muli %[[BX]], %{{.*}} : index
// CHECK:       %[[CT:.*]] = xetile.init_tile %[[C]]
// CHECK-NOT:   xetile.load_tile %[[CT]]
// CHECK:       %[[ZERO:.*]] = arith.constant {wg_map = #xetile.wg_map<sg_layout = [4, 2], sg_data = [8, 32]>} dense<0.000000e+00> : vector<32x64xf32>
// CHECK:       %[[R:.*]]:5 = scf.for {{.*}} iter_args(%{{.*}} = %[[ZERO]],
// CHECK:       }
// CHECK:       %[[B2:.*]] = memref.expand_shape %[[BIAS]] {{\[\[}}0, 1]] output_shape [1, 512] : memref<512xf32> into memref<1x512xf32>
// CHECK:       %[[BT:.*]] = xetile.init_tile %[[B2]][%c0, %[[N]]] : memref<1x512xf32> -> !xetile.tile<1x64xf32, #xetile.tile_attr<wg_map = <sg_layout = [4, 2], sg_data = [1, 32]>>>
// CHECK:       %[[BV:.*]] = xetile.load_tile %[[BT]] : {{.*}} -> vector<1x64xf32>
// CHECK:       %[[BB:.*]] = xetile.tile_broadcast %[[BV]] [0] {wg_map = #xetile.wg_map<sg_layout = [4, 2], sg_data = [8, 32]>} : vector<1x64xf32> -> vector<32x64xf32>
// CHECK:       %[[S:.*]] = arith.addf %[[R]]#0, %[[BB]] {wg_map = #xetile.wg_map<sg_layout = [4, 2], sg_data = [8, 32]>} : vector<32x64xf32>
// CHECK:       %[[Z2:.*]] = arith.constant {wg_map = #xetile.wg_map<sg_layout = [4, 2], sg_data = [8, 32]>} dense<0.000000e+00> : vector<32x64xf32>
// CHECK:       %[[Y:.*]] = arith.maximumf %[[S]], %[[Z2]] {wg_map = #xetile.wg_map<sg_layout = [4, 2], sg_data = [8, 32]>} : vector<32x64xf32>
// CHECK:       xetile.store_tile %[[Y]], %[[CT]] : vector<32x64xf32>

// SG-LABEL:    gpu.func @bias_relu_0(
// SG-NOT:      wg_map
// SG:          xetile.tile_mma {{.*}} : vector<8x32xbf16>, vector<32x32xbf16>, vector<8x32xf32> -> vector<8x32xf32>
// SG:          %[[BV:.*]] = xetile.load_tile %{{.*}} : !xetile.tile<1x32xf32> -> vector<1x32xf32>
// SG:          %[[BB:.*]] = xetile.tile_broadcast %[[BV]] [0] : vector<1x32xf32> -> vector<8x32xf32>
// SG:          %[[S:.*]] = arith.addf %{{.*}}, %[[BB]] : vector<8x32xf32>
// SG:          %[[Y:.*]] = arith.maximumf %[[S]], %{{.*}} : vector<8x32xf32>
// SG:          xetile.store_tile %[[Y]], %{{.*}} : vector<8x32xf32>, !xetile.tile<8x32xf32>

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
func.func @bias_relu(%A: memref<256x128xbf16>, %B: memref<128x512xbf16>, %bias: memref<512xf32>, %C: memref<256x512xf32>) {
  %cst = arith.constant 0.0 : f32
  linalg.fill ins(%cst : f32) outs(%C : memref<256x512xf32>)
  linalg.matmul ins(%A, %B : memref<256x128xbf16>, memref<128x512xbf16>) outs(%C : memref<256x512xf32>)
  linalg.generic {indexing_maps = [#row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%bias : memref<512xf32>) outs(%C : memref<256x512xf32>) {
  ^bb0(%b: f32, %c: f32):
    %s = arith.addf %c, %b : f32
    %r = arith.maximumf %s, %cst : f32
    linalg.yield %r : f32
  }
  return
}
