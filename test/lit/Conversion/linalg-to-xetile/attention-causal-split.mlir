// Chunked prefill (72 new queries over a 1,000-key cache, bottom-right causal, one head): few work-groups, so
// the plan splits K/V into slices priced by the perf model (docs/attention.md "Plan", "Decode"). The kernel
// clips its unmasked and diagonal loops to its slice (maxui / minui of each bound with the slice's ends);
// the workspace holds (head, query block, slice) partials and the combine kernel runs per query block.
// RUN: xe-opt %s --xe-linalg-to-xetile | FileCheck %s
// RUN: xe-opt %s --xe-linalg-to-xetile --xe-print-plan 2>&1 >/dev/null | FileCheck %s --check-prefix=PLAN

// PLAN: K/V block        : 32 rows per loop step, prefetched one step ahead; 4 slices (flash-decoding)
// PLAN: grid             : x=2 (query blocks) y=4 (K/V slices) z=1 (batch x heads) = 8 work-groups
// PLAN: K/V slices under a causal mask: 2 work-groups < 128 Xe-cores; the model (split kernel + combine kernel) predicts 1 slice {{.*}} us, 2 slices {{.*}}: 4 slices of 256 keys
// PLAN: model [pvc]      : predicted {{.*}}; combine kernel {{.*}} us

// CHECK-LABEL: func.func @attention(
// CHECK:         %[[W:.*]] = memref.alloc() : memref<512x96xf32>
// CHECK:         gpu.launch_func @attention_kernels::@attention_attention_0 blocks in (%c2, %c4, %c1) {{.*}} %[[W]] : memref<512x96xf32>)
// CHECK:         gpu.launch_func @attention_kernels::@attention_attention_0_combine blocks in (%c2, %{{.*}}, %c1) {{.*}} args(%[[W]] : memref<512x96xf32>
// CHECK:         memref.dealloc %[[W]]
// CHECK:       gpu.func @attention_attention_0(
// CHECK:         %[[BY:.*]] = gpu.block_id  y
// CHECK:         %[[KLO:.*]] = arith.muli %[[BY]], %c256 : index
// CHECK:         %[[KHI:.*]] = arith.addi %[[KLO]], %c256 : index
// CHECK:         %[[U0:.*]] = arith.maxui %{{.*}}, %[[KLO]] : index
// CHECK:         %[[U:.*]] = arith.minui %[[U0]], %[[KHI]] : index
// CHECK:         %[[C0:.*]] = arith.maxui %{{.*}}, %[[KLO]] : index
// CHECK:         %[[C:.*]] = arith.minui %[[C0]], %[[KHI]] : index
// CHECK:         scf.for %{{.*}} = %[[KLO]] to %[[U]] step %c32
// CHECK:         scf.for %{{.*}} = %[[U]] to %[[C]] step %c32
// CHECK-NOT:     arith.divf
// CHECK-COUNT-3: xetile.store_tile
// CHECK:       gpu.func @attention_attention_0_combine(
// CHECK:         gpu.block_id  x
// CHECK:         scf.for
// CHECK:         arith.divf
// CHECK:         xetile.store_tile
func.func @attention(%Q: tensor<1x72x64xf16>, %K: tensor<1x1000x64xf16>, %V: tensor<1x1000x64xf16>) -> tensor<1x72x64xf32> {
  %z = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %se = tensor.empty() : tensor<1x72x1000xf32>
  %sf = linalg.fill ins(%z : f32) outs(%se : tensor<1x72x1000xf32>) -> tensor<1x72x1000xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%Q, %K : tensor<1x72x64xf16>, tensor<1x1000x64xf16>) outs(%sf : tensor<1x72x1000xf32>) {
  ^bb0(%x: f16, %y: f16, %acc: f32):
    %sxe = arith.extf %x : f16 to f32
    %sye = arith.extf %y : f16 to f32
    %smul = arith.mulf %sxe, %sye : f32
    %sadd = arith.addf %acc, %smul : f32
    linalg.yield %sadd : f32
  } -> tensor<1x72x1000xf32>
  %sme = tensor.empty() : tensor<1x72x1000xf32>
  %sm = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%s : tensor<1x72x1000xf32>) outs(%sme : tensor<1x72x1000xf32>) {
  ^bb0(%x: f32, %out_: f32):
    %c = arith.constant 0.125 : f32
    %sy = arith.mulf %x, %c : f32
    %i = linalg.index 1 : index
    %j = linalg.index 2 : index
    %coff = arith.constant 928 : index
    %ioff = arith.addi %i, %coff : index
    %gt = arith.cmpi ugt, %j, %ioff : index
    %msk = arith.select %gt, %ninf, %sy : f32
    linalg.yield %msk : f32
  } -> tensor<1x72x1000xf32>
  %pe = tensor.empty() : tensor<1x72x1000xf32>
  %p = linalg.softmax dimension(2) ins(%sm : tensor<1x72x1000xf32>) outs(%pe : tensor<1x72x1000xf32>) -> tensor<1x72x1000xf32>
  %phe = tensor.empty() : tensor<1x72x1000xf16>
  %ph = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%p : tensor<1x72x1000xf32>) outs(%phe : tensor<1x72x1000xf16>) {
  ^bb0(%x: f32, %out_: f16):
    %pr = arith.truncf %x : f32 to f16
    linalg.yield %pr : f16
  } -> tensor<1x72x1000xf16>
  %oe = tensor.empty() : tensor<1x72x64xf32>
  %of = linalg.fill ins(%z : f32) outs(%oe : tensor<1x72x64xf32>) -> tensor<1x72x64xf32>
  %o = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%ph, %V : tensor<1x72x1000xf16>, tensor<1x1000x64xf16>) outs(%of : tensor<1x72x64xf32>) {
  ^bb0(%x: f16, %y: f16, %acc: f32):
    %oxe = arith.extf %x : f16 to f32
    %oye = arith.extf %y : f16 to f32
    %omul = arith.mulf %oxe, %oye : f32
    %oadd = arith.addf %acc, %omul : f32
    linalg.yield %oadd : f32
  } -> tensor<1x72x64xf32>
  return %o : tensor<1x72x64xf32>
}

