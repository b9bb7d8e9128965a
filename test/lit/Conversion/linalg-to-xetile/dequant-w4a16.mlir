// W4A16: i4 weights (memref<K x N x i4>, two per byte along N, even elements in the low nibble) reach the
// fused GEMM kernel as their bytes: the host casts them to memref<K x N/2 x i8>, the kernel's B tiles cover
// half the columns at half the offset, and each K step unpacks the bytes in registers (extsi to i16, the
// nibbles sign-extended by shifts, (hi << 8) | (lo & 0xff), vector.bitcast to i8) before the dequantizing
// body and tile_mma (docs/quantized-gemm.md). xetile-wg-to-sg bitcasts each subgroup's piece (sg_data
// [32, 16] bytes -> [32, 32] values); convert-xetile-to-xegpu bitcasts block by block.
// RUN: xe-opt %s --convert-linalg-to-xetile | FileCheck %s
// RUN: xe-opt %s --convert-linalg-to-xetile --xetile-wg-to-sg | FileCheck %s --check-prefix=SG
// RUN: xe-opt %s --xe-gemm-to-xegpu 2>/dev/null | FileCheck %s --check-prefix=XEGPU

// CHECK-LABEL: func.func @w4(
// CHECK:       %[[BYTES:.*]] = builtin.unrealized_conversion_cast %arg1 : memref<128x128xi4> to memref<128x64xi8>
// CHECK-NOT:   linalg.
// CHECK:       gpu.launch_func @w4_kernels::@w4_0 {{.*}} args(%arg0 : memref<32x128xf16>, %[[BYTES]] : memref<128x64xi8>, %arg3 : memref<32x128xf32>, %arg2 : memref<128xf16>)
// CHECK:       gpu.func @w4_0(%{{.*}}: memref<32x128xf16>, %[[W:.*]]: memref<128x64xi8>,
// CHECK:       %[[N:.*]] = arith.muli %block_id_x
// CHECK:       %[[NQ:.*]] = arith.divui %[[N]], %c2 : index
// CHECK:       xetile.init_tile %[[W]][%{{.*}}, %[[NQ]]] : memref<128x64xi8> -> !xetile.tile<32x32xi8, #xetile.tile_attr<wg_map = <sg_layout = [4, 2], sg_data = [32, 16]>>>
// CHECK:       scf.for
// CHECK:       %[[VB:.*]] = xetile.load_tile {{.*}} -> vector<32x32xi8>
// CHECK:       %[[X:.*]] = arith.extsi %[[VB]] {wg_map = #xetile.wg_map<sg_layout = [4, 2], sg_data = [32, 16]>} : vector<32x32xi8> to vector<32x32xi16>
// CHECK:       %[[LO:.*]] = arith.shli %[[X]]
// CHECK:       arith.shrsi %[[LO]]
// CHECK:       arith.andi
// CHECK:       arith.shrsi %[[X]]
// CHECK:       arith.shli
// CHECK:       %[[WORD:.*]] = arith.ori
// CHECK:       %[[V:.*]] = vector.bitcast %[[WORD]] {wg_map = #xetile.wg_map<sg_layout = [4, 2], sg_data = [32, 32]>} : vector<32x32xi16> to vector<32x64xi8>
// CHECK:       %[[F:.*]] = arith.sitofp %[[V]] {{.*}} : vector<32x64xi8> to vector<32x64xf16>
// CHECK:       %[[B:.*]] = arith.mulf %[[F]]
// CHECK:       xetile.tile_mma %{{.*}}, %[[B]], %{{.*}} : vector<32x32xf16>, vector<32x64xf16>, vector<32x64xf32>

// SG-LABEL:    gpu.func @w4_0(
// SG:          %[[X:.*]] = arith.extsi %{{.*}} : vector<32x16xi8> to vector<32x16xi16>
// SG:          %[[V:.*]] = vector.bitcast %{{.*}} : vector<32x16xi16> to vector<32x32xi8>
// SG:          arith.sitofp %[[V]] : vector<32x32xi8> to vector<32x32xf16>

// XEGPU-LABEL: gpu.func @w4_0(
// XEGPU:       xegpu.load_nd %{{.*}} : !xegpu.tensor_desc<32x16xi8> -> vector<32x16xi8>
// XEGPU:       vector.bitcast %{{.*}} : vector<32x16xi16> to vector<32x32xi8>

#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
func.func @w4(%A: memref<32x128xf16>, %W: memref<128x128xi4>, %S: memref<128xf16>, %C: memref<32x128xf32>) {
  %Bd = memref.alloc() : memref<128x128xf16>
  linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%W, %S : memref<128x128xi4>, memref<128xf16>) outs(%Bd : memref<128x128xf16>) {
  ^bb0(%w: i4, %s: f16, %o: f16):
    %f = arith.sitofp %w : i4 to f16
    %r = arith.mulf %f, %s : f16
    linalg.yield %r : f16
  }
  linalg.matmul ins(%A, %Bd : memref<32x128xf16>, memref<128x128xf16>) outs(%C : memref<32x128xf32>)
  return
}
