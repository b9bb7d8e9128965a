// The register file of each kernel is part of its ABI (`xe.kernel_abi`, target pvc): the 4096^3
// bf16 GEMM needs ~244 GRFs per subgroup, so the planner writes xe.grf_mode = "large" on its
// gpu.func and the conversion records "large" with the 256 GRFs of the pvc table; the 256^3 GEMM of
// examples/gemm_bf16.mlir fits the default 128. Both kernels go into one binary, whose metadata asks
// IGC for the large register file for the whole module (it takes the mode per module), and, as the
// kernels prefetch with 2D block builtins, for IGC's prefetch payload hoisting. Portable SPIR-V runs
// anywhere: "default" and no build options.
// RUN: xe-opt %s --xe-gemm-to-spirv | FileCheck %s
// RUN: xe-opt %s --xe-gemm-to-spirv --emit=spirv-binary -o %t.spv && FileCheck %s --input-file=%t.spv.json --check-prefix=JSON
// RUN: xe-opt %s --xe-gemm-to-spirv-portable --emit=spirv-binary -o %t.port.spv && FileCheck %s --input-file=%t.port.spv.json --check-prefix=PORT

// CHECK:      spirv.module @__spv__big_kernels {{.*}}xe.kernel_abi = {__arch__ = "pvc", __target__ = "pvc", big_0 = "{{.*}}\22grf_count\22: 256, \22grf_mode\22: \22large\22
// CHECK-NOT:  xe.grf_mode
// CHECK:      spirv.ExecutionMode @big_0 "LocalSize", 512, 1, 1
// CHECK:      gpu.func @big_0({{.*}}) kernel attributes {known_block_size = array<i32: 512, 1, 1>, xe.grf_mode = "large", xe.model = {{.*}}, xe.subgroup_size = 16 : i32}
// CHECK:      spirv.module @__spv__small_kernels {{.*}}xe.kernel_abi = {__arch__ = "pvc", __target__ = "pvc", small_0 = "{{.*}}\22grf_count\22: 128, \22grf_mode\22: \22default\22
// CHECK:      gpu.func @small_0({{.*}}) kernel attributes {known_block_size = array<i32: 128, 1, 1>, xe.grf_mode = "default", xe.model = {{.*}}, xe.subgroup_size = 16 : i32}

// JSON:      "build_options": "-ze-opt-large-register-file -igc_opts 'AllowPrefetchDecomposeWithHoisting=1'",
// JSON:      "grf_count": 256,
// JSON-NEXT: "grf_mode": "large",
// JSON-NEXT: "name": "big_0",
// JSON:      "grf_count": 128,
// JSON-NEXT: "grf_mode": "default",
// JSON-NEXT: "name": "small_0",
// JSON:      "target": "pvc"

// PORT:      "build_options": "",
// PORT-NOT:  "large"
// PORT:      "grf_count": null,
// PORT-NEXT: "grf_mode": "default",
// PORT-NEXT: "name": "big_0",
// PORT:      "target": "portable"

func.func @big(%A: memref<4096x4096xbf16>, %B: memref<4096x4096xbf16>, %C: memref<4096x4096xf32>) {
  linalg.matmul ins(%A, %B : memref<4096x4096xbf16>, memref<4096x4096xbf16>) outs(%C : memref<4096x4096xf32>)
  return
}

func.func @small(%A: memref<256x256xbf16>, %B: memref<256x256xbf16>, %C: memref<256x256xf32>) {
  linalg.matmul ins(%A, %B : memref<256x256xbf16>, memref<256x256xbf16>) outs(%C : memref<256x256xf32>)
  return
}
