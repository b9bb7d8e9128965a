// Every supported element type combination: the accumulator is f32 (i32 for i8); narrow C types
// are extended after the load and truncated before the store; the K step is one 64-byte row
// (32 for 16-bit inputs, 16 for f32 = tf32 DPAS, 64 for i8).
// RUN: xe-opt %s --split-input-file --convert-linalg-to-xetile | FileCheck %s

// CHECK-LABEL: gpu.func @bf16_f32_0(
// CHECK-DAG:   %[[KS:.*]] = arith.constant 32 : index
// CHECK:       scf.for %{{.*}} step %[[KS]]
// CHECK:       xetile.tile_mma {{.*}} : vector<32x32xbf16>, vector<32x64xbf16>, vector<32x64xf32> -> vector<32x64xf32>
func.func @bf16_f32(%A: memref<64x64xbf16>, %B: memref<64x64xbf16>, %C: memref<64x64xf32>) {
  linalg.matmul ins(%A, %B : memref<64x64xbf16>, memref<64x64xbf16>) outs(%C : memref<64x64xf32>)
  return
}

// -----
// CHECK-LABEL: gpu.func @f16_f32_0(
// CHECK:       xetile.tile_mma {{.*}} : vector<32x32xf16>, vector<32x64xf16>, vector<32x64xf32> -> vector<32x64xf32>
func.func @f16_f32(%A: memref<64x64xf16>, %B: memref<64x64xf16>, %C: memref<64x64xf32>) {
  linalg.matmul ins(%A, %B : memref<64x64xf16>, memref<64x64xf16>) outs(%C : memref<64x64xf32>)
  return
}

// -----
// CHECK-LABEL: gpu.func @f16_f16_0(
// CHECK:       %[[CV:.*]] = xetile.load_tile %{{.*}} -> vector<32x64xf16>
// CHECK:       %[[ACC:.*]] = arith.extf %[[CV]] {wg_map = #xetile.wg_map<sg_layout = [4, 2], sg_data = [8, 32]>} : vector<32x64xf16> to vector<32x64xf32>
// CHECK:       scf.for {{.*}} iter_args(%{{.*}} = %[[ACC]],
// CHECK:       xetile.tile_mma {{.*}} : vector<32x32xf16>, vector<32x64xf16>, vector<32x64xf32> -> vector<32x64xf32>
// CHECK:       %[[RES:.*]] = arith.truncf %{{.*}}#0 {wg_map = #xetile.wg_map<sg_layout = [4, 2], sg_data = [8, 32]>} : vector<32x64xf32> to vector<32x64xf16>
// CHECK:       xetile.store_tile %[[RES]], %{{.*}} : vector<32x64xf16>
func.func @f16_f16(%A: memref<64x64xf16>, %B: memref<64x64xf16>, %C: memref<64x64xf16>) {
  linalg.matmul ins(%A, %B : memref<64x64xf16>, memref<64x64xf16>) outs(%C : memref<64x64xf16>)
  return
}

// -----
// CHECK-LABEL: gpu.func @bf16_bf16_0(
// CHECK:       arith.extf {{.*}} : vector<32x64xbf16> to vector<32x64xf32>
// CHECK:       arith.truncf {{.*}} : vector<32x64xf32> to vector<32x64xbf16>
func.func @bf16_bf16(%A: memref<64x64xbf16>, %B: memref<64x64xbf16>, %C: memref<64x64xbf16>) {
  linalg.matmul ins(%A, %B : memref<64x64xbf16>, memref<64x64xbf16>) outs(%C : memref<64x64xbf16>)
  return
}

// -----
// CHECK-LABEL: gpu.func @tf32_0(
// CHECK-DAG:   %[[KS:.*]] = arith.constant 16 : index
// CHECK:       scf.for %{{.*}} step %[[KS]]
// CHECK:       xetile.tile_mma {{.*}} : vector<32x16xf32>, vector<16x64xf32>, vector<32x64xf32> -> vector<32x64xf32>
func.func @tf32(%A: memref<64x64xf32>, %B: memref<64x64xf32>, %C: memref<64x64xf32>) {
  linalg.matmul ins(%A, %B : memref<64x64xf32>, memref<64x64xf32>) outs(%C : memref<64x64xf32>)
  return
}

// -----
// CHECK-LABEL: gpu.func @i8_0(
// CHECK-DAG:   %[[KS:.*]] = arith.constant 64 : index
// CHECK:       scf.for %{{.*}} step %[[KS]]
// CHECK:       xetile.tile_mma {{.*}} : vector<32x64xi8>, vector<64x64xi8>, vector<32x64xi32> -> vector<32x64xi32>
func.func @i8(%A: memref<64x128xi8>, %B: memref<128x64xi8>, %C: memref<64x64xi32>) {
  linalg.matmul ins(%A, %B : memref<64x128xi8>, memref<128x64xi8>) outs(%C : memref<64x64xi32>)
  return
}
