// REQUIRES: mlir-opt
// A column bias too narrow for 2D block access (memref<64xf32>: 4 bytes wide) is gathered by the
// scattered fallback row by row (8 masked 1-lane load_gathers inserted into vector<8x1xf32>) and
// broadcast over the tile. The export writes that broadcast as 8 uniform scalar loads of the 1D bias
// (offset 0 where the row's mask is off; the masked-off value where it is off), each broadcast to a
// vector<1x16xf32> row (docs/upstream-xegpu.md, step 1: LLVM 22's subgroup distribution asserts on
// the gathered rows otherwise); no gather, no vector<8x1xf32> is left; upstream distributes it, and the route
// (xe-gemm-to-spirv-upstream, spirv-val inside) reaches SPIR-V.
// RUN: xe-opt %s --xe-gemm-to-xegpu --emit=upstream-xegpu 2>/dev/null | FileCheck %s
// RUN: xe-opt %s --xe-gemm-to-xegpu --emit=upstream-xegpu 2>/dev/null | %mlir-opt --xegpu-propagate-layout=layout-kind=lane --xegpu-subgroup-distribute | FileCheck %s --check-prefix=DIST
// RUN: xe-opt %s --xe-gemm-to-spirv-upstream 2>/dev/null | FileCheck %s --check-prefix=SPV

func.func @f(%A: memref<64x32xbf16>, %B: memref<32x80xbf16>, %C: memref<64x80xf32>, %bias: memref<64xf32>) {
  %z = arith.constant 0.0 : f32
  linalg.fill ins(%z : f32) outs(%C : memref<64x80xf32>)
  linalg.matmul ins(%A, %B : memref<64x32xbf16>, memref<32x80xbf16>) outs(%C : memref<64x80xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%bias : memref<64xf32>) outs(%C : memref<64x80xf32>) {
  ^bb0(%b: f32, %x: f32):
    %s = arith.addf %x, %b : f32
    %r = arith.maximumf %s, %z : f32
    linalg.yield %r : f32
  }
  return
}

// CHECK-NOT:  xegpu.load {{.*}}memref<64xf32>
// CHECK-NOT:  vector<8x1xf32> to
// CHECK:      %[[I:.*]] = arith.select %[[M:[^,]*]], %{{.*}}, %{{.*}} : index
// CHECK-NEXT: %[[S:.*]] = memref.load %{{.*}}[%[[I]]] : memref<64xf32>
// CHECK-NEXT: %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %[[V:.*]] = arith.select %[[M]], %[[S]], %[[Z]] : f32
// CHECK-NEXT: %[[B:.*]] = vector.broadcast %[[V]] : f32 to vector<1x16xf32>
// CHECK-NEXT: vector.insert_strided_slice %[[B]], %{{.*}} {offsets = [0, 0], strides = [1, 1]} : vector<1x16xf32> into vector<8x16xf32>
// CHECK-COUNT-7: memref.load %{{.*}} : memref<64xf32>
// CHECK-NOT:  xegpu.load
// CHECK-NOT:  vector<8x1xf32>

// DIST:       gpu.func @f_0
// DIST-COUNT-8: memref.load %{{.*}} : memref<64xf32>
// DIST:       xegpu.dpas {{.*}} : vector<8xbf16>, vector<16xbf16>, vector<8xf32> -> vector<8xf32>

// SPV:        OpEntryPoint Kernel
// SPV:        intel_sub_group_bf16_bf16_matrix_mad_k16
