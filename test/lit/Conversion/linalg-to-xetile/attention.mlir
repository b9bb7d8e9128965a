// Attention chains fused into one flash-attention kernel: one launch replaces the chain, S and P
// are never allocated, and the kernel streams K/V blocks through one scf.for (two for a causal
// mask: unmasked blocks, then the blocks crossing the diagonal), with the online softmax.
// RUN: xe-opt %s --split-input-file --xe-linalg-to-xetile | FileCheck %s
// RUN: xe-opt %s --split-input-file --xe-linalg-to-xetile --xe-print-plan 2>&1 >/dev/null | FileCheck %s --check-prefix=PLAN

// PLAN: attention plan [pvc]: 2 x softmax(Q[64x64 f16] . K^T[64x64] * 0.125) . V[64x64] -> f32
// PLAN: query block      : 64 rows (4 subgroups as 4x1, 16 whole rows each)
// PLAN: K/V block        : 32 rows per loop step, prefetched one step ahead

// CHECK-LABEL: func.func @plain(
// CHECK-NOT:     memref.alloc() {{.*}}x64x64xf16
// CHECK:         gpu.launch_func @plain_kernels::@plain_attention_0 blocks in (%{{.*}}, %{{.*}}, %{{.*}}) threads in (%c64
// CHECK-NOT:     linalg.
// CHECK:         return
// CHECK:       gpu.func @plain_attention_0(
// CHECK-SAME:    xe.grf_mode = "large"
// CHECK:         memref.transpose
// CHECK:         xetile.load_tile {{.*}} -> vector<64x64xf16>
// CHECK-COUNT-2: xetile.prefetch_tile
// CHECK:         %[[SC:.*]] = arith.constant {{.*}} dense<0.180336878> : vector<64x32xf32>
// CHECK:         scf.for
// CHECK:           xetile.tile_mma {{.*}} : vector<64x64xf16>, vector<64x32xf16>, vector<64x32xf32> -> vector<64x32xf32>
// CHECK:           arith.mulf %{{.*}}, %[[SC]]
// CHECK:           xetile.tile_reduce <maxnumf>
// CHECK:           math.exp2
// CHECK:           xetile.tile_reduce <add>
// CHECK:           arith.truncf {{.*}} to vector<64x32xf16>
// CHECK:           xetile.tile_mma {{.*}} : vector<64x32xf16>, vector<32x64xf16>, vector<64x64xf32> -> vector<64x64xf32>
// CHECK:           scf.yield
// CHECK:         arith.divf
// CHECK:         xetile.store_tile
#q = affine_map<(b, m, n, k) -> (b, m, k)>
#k = affine_map<(b, m, n, k) -> (b, n, k)>
#s = affine_map<(b, m, n, k) -> (b, m, n)>
#id = affine_map<(b, m, n) -> (b, m, n)>
func.func @plain(%Q: memref<2x64x64xf16>, %K: memref<2x64x64xf16>, %V: memref<2x64x64xf16>, %O: memref<2x64x64xf32>) {
  %z = arith.constant 0.0 : f32
  %c = arith.constant 0.125 : f32
  %S = memref.alloc() : memref<2x64x64xf32>
  %P = memref.alloc() : memref<2x64x64xf32>
  %Ph = memref.alloc() : memref<2x64x64xf16>
  linalg.fill ins(%z : f32) outs(%S : memref<2x64x64xf32>)
  linalg.batch_matmul indexing_maps = [#q, #k, #s] ins(%Q, %K : memref<2x64x64xf16>, memref<2x64x64xf16>) outs(%S : memref<2x64x64xf32>)
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%S : memref<2x64x64xf32>) outs(%S : memref<2x64x64xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.mulf %c, %x : f32
    linalg.yield %y : f32
  }
  linalg.softmax dimension(2) ins(%S : memref<2x64x64xf32>) outs(%P : memref<2x64x64xf32>)
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%P : memref<2x64x64xf32>) outs(%Ph : memref<2x64x64xf16>) {
  ^bb0(%x: f32, %o: f16):
    %t = arith.truncf %x : f32 to f16
    linalg.yield %t : f16
  }
  linalg.fill ins(%z : f32) outs(%O : memref<2x64x64xf32>)
  linalg.batch_matmul ins(%Ph, %V : memref<2x64x64xf16>, memref<2x64x64xf16>) outs(%O : memref<2x64x64xf32>)
  memref.dealloc %S : memref<2x64x64xf32>
  memref.dealloc %P : memref<2x64x64xf32>
  memref.dealloc %Ph : memref<2x64x64xf16>
  return
}

// -----

// A causal mask (column > row to -inf, written as i < j with index casts) through a
// linalg.transpose feeding a plain batch_matmul: the key loop ends at the work-group's last row,
// and the blocks from its first row on run in a second loop with the mask table (c - r) from a
// host constant.
// CHECK-LABEL: func.func @causal(
// CHECK:         %[[D:.*]] = memref.get_global @__xe_attention_diag_64x32 : memref<64x32xf32>
// CHECK:         gpu.launch_func @causal_kernels::@causal_attention_0 {{.*}} args({{.*}}, %[[D]] : memref<64x32xf32>)
// CHECK:       gpu.func @causal_attention_0(
// CHECK:         arith.minui
// CHECK:         scf.for
// CHECK-NOT:       arith.sitofp
// CHECK:           scf.yield
// CHECK:         scf.for
// CHECK:           arith.sitofp
// CHECK:           arith.maxnumf
// CHECK:           scf.yield
#id2 = affine_map<(b, m, n) -> (b, m, n)>
func.func @causal(%Q: memref<2x64x64xf16>, %K: memref<2x64x64xf16>, %V: memref<2x64x64xf16>, %O: memref<2x64x64xf16>) {
  %z = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %Kt = memref.alloc() : memref<2x64x64xf16>
  %S = memref.alloc() : memref<2x64x64xf32>
  %P = memref.alloc() : memref<2x64x64xf32>
  %Ph = memref.alloc() : memref<2x64x64xf16>
  %O32 = memref.alloc() : memref<2x64x64xf32>
  linalg.transpose ins(%K : memref<2x64x64xf16>) outs(%Kt : memref<2x64x64xf16>) permutation = [0, 2, 1]
  linalg.fill ins(%z : f32) outs(%S : memref<2x64x64xf32>)
  linalg.batch_matmul ins(%Q, %Kt : memref<2x64x64xf16>, memref<2x64x64xf16>) outs(%S : memref<2x64x64xf32>)
  linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%S : memref<2x64x64xf32>) outs(%S : memref<2x64x64xf32>) {
  ^bb0(%x: f32, %o: f32):
    %i = linalg.index 1 : index
    %j = linalg.index 2 : index
    %i64 = arith.index_cast %i : index to i64
    %j64 = arith.index_cast %j : index to i64
    %lt = arith.cmpi slt, %i64, %j64 : i64
    %r = arith.select %lt, %ninf, %x : f32
    linalg.yield %r : f32
  }
  linalg.softmax dimension(2) ins(%S : memref<2x64x64xf32>) outs(%P : memref<2x64x64xf32>)
  linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%P : memref<2x64x64xf32>) outs(%Ph : memref<2x64x64xf16>) {
  ^bb0(%x: f32, %o: f16):
    %t = arith.truncf %x : f32 to f16
    linalg.yield %t : f16
  }
  linalg.fill ins(%z : f32) outs(%O32 : memref<2x64x64xf32>)
  linalg.batch_matmul ins(%Ph, %V : memref<2x64x64xf16>, memref<2x64x64xf16>) outs(%O32 : memref<2x64x64xf32>)
  linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%O32 : memref<2x64x64xf32>) outs(%O : memref<2x64x64xf16>) {
  ^bb0(%x: f32, %o: f16):
    %t = arith.truncf %x : f32 to f16
    linalg.yield %t : f16
  }
  return
}

// -----

// A bottom-right aligned causal mask (query i sees keys j <= i + Lk - Lq; here written j - i > 64 with
// Lq = 32, Lk = 96: chunked prefill): the first loop runs the blocks left of the work-group's first
// row's shifted diagonal (r0 + 64: a whole number of 32-key blocks), the second the blocks up to its last
// row's, masked by the same c - r table.
// PLAN: attention plan [pvc]: 2 x softmax(causal bottom-right Q[32x64 f16] . K^T[64x96] * 1) . V[96x64] -> f32
// PLAN: query block      : 32 rows (4 subgroups as 4x1, 8 whole rows each)
// PLAN: K/V block        : 32 rows per loop step
// PLAN: - causal bottom-right (query i sees keys <= i + 64 = Lk - Lq)
// CHECK-LABEL: func.func @bottom_right(
// CHECK:         %[[D:.*]] = memref.get_global @__xe_attention_diag_32x32 : memref<32x32xf32>
// CHECK:         gpu.launch_func @bottom_right_kernels::@bottom_right_attention_0 {{.*}} args({{.*}}, %[[D]] : memref<32x32xf32>)
// CHECK:       gpu.func @bottom_right_attention_0(
// CHECK:         %[[OFF:.*]] = arith.constant 64 : index
// CHECK:         %[[RDG:.*]] = arith.addi %{{.*}}, %[[OFF]] : index
// CHECK:         %[[REND:.*]] = arith.addi %[[RDG]], %{{.*}} : index
// CHECK:         %[[CEND:.*]] = arith.minui %[[REND]], %{{.*}} : index
// CHECK:         %[[UEND:.*]] = arith.minui %[[RDG]], %[[CEND]] : index
// CHECK:         scf.for %{{.*}} = %{{.*}} to %[[UEND]] step
// CHECK-NOT:       arith.sitofp
// CHECK:           scf.yield
// CHECK:         scf.for %[[J:.*]] = %[[UEND]] to %[[CEND]] step
// CHECK:           arith.subi %[[J]], %[[RDG]] : index
// CHECK:           arith.sitofp
// CHECK:           scf.yield
#q3 = affine_map<(b, m, n, k) -> (b, m, k)>
#k3 = affine_map<(b, m, n, k) -> (b, n, k)>
#s3 = affine_map<(b, m, n, k) -> (b, m, n)>
#id3 = affine_map<(b, m, n) -> (b, m, n)>
func.func @bottom_right(%Q: memref<2x32x64xf16>, %K: memref<2x96x64xf16>, %V: memref<2x96x64xf16>, %O: memref<2x32x64xf32>) {
  %z = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %c64 = arith.constant 64 : index
  %S = memref.alloc() : memref<2x32x96xf32>
  %P = memref.alloc() : memref<2x32x96xf32>
  %Ph = memref.alloc() : memref<2x32x96xf16>
  linalg.fill ins(%z : f32) outs(%S : memref<2x32x96xf32>)
  linalg.batch_matmul indexing_maps = [#q3, #k3, #s3] ins(%Q, %K : memref<2x32x64xf16>, memref<2x96x64xf16>) outs(%S : memref<2x32x96xf32>)
  linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%S : memref<2x32x96xf32>) outs(%S : memref<2x32x96xf32>) {
  ^bb0(%x: f32, %o: f32):
    %i = linalg.index 1 : index
    %j = linalg.index 2 : index
    %d = arith.subi %j, %i : index
    %gt = arith.cmpi sgt, %d, %c64 : index
    %r = arith.select %gt, %ninf, %x : f32
    linalg.yield %r : f32
  }
  linalg.softmax dimension(2) ins(%S : memref<2x32x96xf32>) outs(%P : memref<2x32x96xf32>)
  linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%P : memref<2x32x96xf32>) outs(%Ph : memref<2x32x96xf16>) {
  ^bb0(%x: f32, %o: f16):
    %t = arith.truncf %x : f32 to f16
    linalg.yield %t : f16
  }
  linalg.fill ins(%z : f32) outs(%O : memref<2x32x64xf32>)
  linalg.batch_matmul ins(%Ph, %V : memref<2x32x96xf16>, memref<2x96x64xf16>) outs(%O : memref<2x32x64xf32>)
  return
}

// -----

// 40 keys (a K/V cache length no 16-row block divides): whole 32-key blocks in the first loop, then
// the partial last block in a second loop (one step) that adds a host table, -inf past the 40th key,
// to S before the row max and sum (a load past Lk reads 0); each table row: 8 zeros, 24 x -inf (0xFF800000).
// PLAN: attention plan [pvc]: 2 x softmax(Q[64x64 f16] . K^T[64x40] * 1) . V[40x64] -> f32
// PLAN: K/V block        : 32 rows per loop step
// PLAN: - K/V block 32: the largest of 64/32/16 whose K, V, S, P, Q and accumulator fit the large register file (16384 B); none divides Lk = 40: the last block holds 8 keys
// CHECK:       memref.global "private" constant @__xe_attention_tail_64x32_8 : memref<64x32xf32> = dense<"0x0000000000000000000000000000000000000000000000000000000000000000000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF0000
// CHECK-LABEL: func.func @keys_40(
// CHECK:         %[[T:.*]] = memref.get_global @__xe_attention_tail_64x32_8 : memref<64x32xf32>
// CHECK:         gpu.launch_func @keys_40_kernels::@keys_40_attention_0 {{.*}} args({{.*}}, %[[T]] : memref<64x32xf32>)
// CHECK:       gpu.func @keys_40_attention_0(
// CHECK-SAME:    %[[TL:[^:]*]]: memref<64x32xf32>)
// CHECK:         scf.for %{{.*}} = %{{.*}} to %[[LKF:[^ ]*]] step
// CHECK-NOT:       %[[TL]]
// CHECK:           scf.yield
// CHECK:         scf.for %{{.*}} = %[[LKF]] to %{{.*}} step
// CHECK:           xetile.init_tile %[[TL]]
// CHECK:           xetile.load_tile
// CHECK:           arith.addf
// CHECK:           xetile.tile_reduce <maxnumf>
// CHECK:           scf.yield
#q4 = affine_map<(b, m, n, k) -> (b, m, k)>
#k4 = affine_map<(b, m, n, k) -> (b, n, k)>
#s4 = affine_map<(b, m, n, k) -> (b, m, n)>
#id4 = affine_map<(b, m, n) -> (b, m, n)>
func.func @keys_40(%Q: memref<2x64x64xf16>, %K: memref<2x40x64xf16>, %V: memref<2x40x64xf16>, %O: memref<2x64x64xf32>) {
  %z = arith.constant 0.0 : f32
  %S = memref.alloc() : memref<2x64x40xf32>
  %P = memref.alloc() : memref<2x64x40xf32>
  %Ph = memref.alloc() : memref<2x64x40xf16>
  linalg.fill ins(%z : f32) outs(%S : memref<2x64x40xf32>)
  linalg.batch_matmul indexing_maps = [#q4, #k4, #s4] ins(%Q, %K : memref<2x64x64xf16>, memref<2x40x64xf16>) outs(%S : memref<2x64x40xf32>)
  linalg.softmax dimension(2) ins(%S : memref<2x64x40xf32>) outs(%P : memref<2x64x40xf32>)
  linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel"]} ins(%P : memref<2x64x40xf32>) outs(%Ph : memref<2x64x40xf16>) {
  ^bb0(%x: f32, %o: f16):
    %t = arith.truncf %x : f32 to f16
    linalg.yield %t : f16
  }
  linalg.fill ins(%z : f32) outs(%O : memref<2x64x64xf32>)
  linalg.batch_matmul ins(%Ph, %V : memref<2x64x40xf16>, memref<2x40x64xf16>) outs(%O : memref<2x64x64xf32>)
  return
}
