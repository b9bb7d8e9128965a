// Flash-decoding (docs/attention.md "Decode"): one query row per head, so the plan splits K/V into
// 16 slices over work-groups; the host allocates the slices' workspace, launches the slice kernel
// (grid y = slices) and the combine kernel (one work-group per head), and frees the workspace.
// RUN: xe-opt %S/../../../../examples/attention_decode_bf16.mlir --xe-linalg-to-xetile | FileCheck %s

// CHECK-LABEL: func.func @attention(
// CHECK:         %[[W:.*]] = memref.alloc() : memref<1024x160xf32>
// CHECK:         gpu.launch_func @attention_kernels::@attention_attention_0 blocks in (%{{.*}}, %c16, %c8) {{.*}} %[[W]] : memref<1024x160xf32>)
// CHECK:         gpu.launch_func @attention_kernels::@attention_attention_0_combine blocks in (%{{.*}}, %{{.*}}, %c8) {{.*}} args(%[[W]] : memref<1024x160xf32>
// CHECK:         memref.dealloc %[[W]]
// CHECK:       gpu.func @attention_attention_0(
// CHECK:         gpu.block_id  y
// CHECK:         scf.for
// CHECK:         scf.yield
// CHECK-NOT:     arith.divf
// CHECK-COUNT-3: xetile.store_tile
// CHECK:       gpu.func @attention_attention_0_combine(
// CHECK:         scf.for
// CHECK:           xetile.tile_reduce <maximumf>
// CHECK:           math.exp
// CHECK:           scf.yield
// CHECK:         arith.divf
// CHECK:         xetile.store_tile
