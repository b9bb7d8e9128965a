// REQUIRES: mlir-opt
// A GEMM with K = 1 (2x1 A: 2 bytes wide, so its rows are gathered by the scattered fallback and
// inserted into the DPAS A block). LLVM 22's subgroup distribution asserts on those gathered rows
// (XeGPUSubgroupDistribute.cpp:90), so the route's default (distribute=auto) falls back to our
// xegpu-simt-distribute and the lane-level export, with a remark at the kernel naming upstream's
// failure; distribute=xedialects takes that road directly, distribute=upstream stops with upstream's
// error. The lane-level text: descriptors without layouts, offsets on the accesses, per-lane 1D
// vectors (packed B), per-lane scattered xegpu.load of one element, A reordered across lanes
// (gpu.shuffle idx) from our packed SIMT order into the DPAS order, a 16-lane kernel
// (intel_reqd_sub_group_size); the binary has the DPAS builtin and is written only on success.
// RUN: xe-opt %s --xe-gemm-to-spirv-upstream 2>&1 | FileCheck %s --check-prefix=AUTO
// RUN: xe-opt %s --pass-pipeline="builtin.module(xe-gemm-to-xegpu, convert-xegpu-to-upstream{route=spirv distribute=xedialects})" --emit=upstream-xegpu 2>/dev/null | FileCheck %s
// RUN: xe-opt %s --pass-pipeline="builtin.module(xe-gemm-to-xegpu, convert-xegpu-to-upstream{route=spirv distribute=xedialects})" --emit=upstream-xegpu 2>/dev/null | %mlir-opt --verify-each > /dev/null
// RUN: rm -f %t.spv && xe-opt %s --xe-gemm-to-spirv-upstream --emit=spirv-binary -o %t.spv 2>/dev/null && test -s %t.spv
// RUN: not xe-opt %s --pass-pipeline="builtin.module(xe-gemm-to-xegpu, convert-xegpu-to-upstream{route=spirv distribute=upstream})" 2>&1 | FileCheck %s --check-prefix=UPSTREAM
// RUN: xe-opt %s --pass-pipeline="builtin.module(xe-gemm-to-xegpu, convert-xegpu-to-upstream{level=lane})" 2>&1 | FileCheck %s --check-prefix=LANE
// RUN: xe-opt %s --xe-gemm-to-xegpu --convert-xegpu-to-upstream=level=lane 2>&1 | FileCheck %s --check-prefix=LANE
// RUN: xe-opt %s --xe-gemm-to-xegpu --convert-xegpu-to-upstream=level=lane | %mlir-opt --verify-each > /dev/null

func.func @f(%A: memref<2x1xbf16>, %B: memref<1x64xbf16>, %C: memref<2x64xbf16>) {
  linalg.matmul ins(%A, %B : memref<2x1xbf16>, memref<1x64xbf16>) outs(%C : memref<2x64xbf16>)
  return
}

// AUTO: remark: xe-gemm-to-spirv-upstream: upstream's subgroup distribution / xegpu lowering failed ({{.*}}XeGPUSubgroupDistribute.cpp:90{{.*}}); the kernel was distributed by xegpu-simt-distribute, exported at lane level and lowered from convert-xegpu-to-xevm on
// AUTO: OpEntryPoint Kernel
// AUTO: intel_sub_group_bf16_bf16_matrix_mad_k16

// CHECK: gpu.module @f_kernels [#xevm.target<chip = "pvc">]
// CHECK: gpu.func @f_0({{.*}}) kernel attributes {intel_reqd_sub_group_size = 16 : i32
// CHECK: xegpu.create_nd_tdesc %arg1 : memref<1x64xbf16> -> !xegpu.tensor_desc<16x16xbf16>
// CHECK: xegpu.load_nd %{{.*}}[%{{.*}}, %{{.*}}] : !xegpu.tensor_desc<8x16xbf16> -> vector<8xbf16>
// CHECK: memref.collapse_shape %arg0 {{\[}}[0, 1]] : memref<2x1xbf16> into memref<2xbf16>
// CHECK: xegpu.load %{{.*}}[%{{.*}}], %{{.*}} : memref<2xbf16>, index, i1 -> vector<1xbf16>
// CHECK: xegpu.load_nd %{{.*}}[%{{.*}}, %{{.*}}] <{packed}> : !xegpu.tensor_desc<16x16xbf16> -> vector<16xbf16>
// CHECK: gpu.shuffle idx
// CHECK: xegpu.dpas %{{.*}}, %{{.*}}, %{{.*}} : vector<8xbf16>, vector<16xbf16>, vector<8xf32> -> vector<8xf32>
// CHECK: xegpu.store_nd %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] : vector<8xbf16>, !xegpu.tensor_desc<8x16xbf16>
// CHECK-NOT: sg_map
// CHECK-NOT: mode = vc

// UPSTREAM: error: xe-gemm-to-spirv-upstream: mlir-opt (upstream's xegpu passes) failed: {{.*}}XeGPUSubgroupDistribute.cpp:90

// The export pass with level=lane alone: xe-opt prints the lane-level text (not the subgroup level's)
// LANE-NOT: error
// LANE: gpu.func @f_0({{.*}}) kernel attributes {intel_reqd_sub_group_size = 16 : i32
// LANE: xegpu.load %{{.*}}[%{{.*}}], %{{.*}} : memref<2xbf16>, index, i1 -> vector<1xbf16>
// LANE: xegpu.dpas %{{.*}}, %{{.*}}, %{{.*}} : vector<8xbf16>, vector<16xbf16>, vector<8xf32> -> vector<8xf32>
// LANE-NOT: layout
