// A 16-bit store wider than the write builtins (16 columns): one 2D block write per 16 columns, at
// column + 16 for the second (the bf16 / f16 C tile of a GEMM is 8 x 32: two block stores, as
// upstream's route writes it), never per-lane stores (docs/igc.md "bf16 output").
// RUN: xe-opt %s --convert-xegpu-to-spirv=target=pvc | FileCheck %s
// CHECK-LABEL: spirv.func @copy
// CHECK-DAG: %[[AT16:.*]] = spirv.Constant dense<[16, 8]> : vector<2xi32>
// CHECK-DAG: %[[AT0:.*]] = spirv.Constant dense<[0, 8]> : vector<2xi32>
// CHECK: spirv.FunctionCall @__builtin_intel_sub_group_2d_block_read_16b_8r16x2c
// CHECK-NOT: spirv.Store "CrossWorkgroup"
// CHECK: spirv.FunctionCall @__builtin_intel_sub_group_2d_block_write_16b_8r16x1c(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[AT0]], %{{.*}})
// CHECK-NEXT: spirv.FunctionCall @__builtin_intel_sub_group_2d_block_write_16b_8r16x1c(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[AT16]], %{{.*}})
// CHECK-NOT: spirv.Store "CrossWorkgroup"
// CHECK: spirv.Return

module attributes {gpu.container_module} {
  func.func @host(%A: memref<64x64xbf16>, %C: memref<64x64xbf16>) {
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    gpu.launch_func @k::@copy blocks in (%c1, %c1, %c1) threads in (%c16, %c1, %c1) args(%A : memref<64x64xbf16>, %C : memref<64x64xbf16>)
    return
  }
  gpu.module @k {
    gpu.func @copy(%A: memref<64x64xbf16>, %C: memref<64x64xbf16>) kernel attributes {known_block_size = array<i32: 16, 1, 1>, xe.subgroup_size = 16 : i32} {
      %c0 = arith.constant 0 : index
      %c8 = arith.constant 8 : index
      %a = xegpu.create_nd_tdesc %A[%c8, %c0] {mode = vc} : memref<64x64xbf16> -> !xegpu.tensor_desc<8x32xbf16>
      %c = xegpu.create_nd_tdesc %C[%c8, %c0] {mode = vc} : memref<64x64xbf16> -> !xegpu.tensor_desc<8x32xbf16>
      %v = xegpu.load_nd %a {mode = vc} : !xegpu.tensor_desc<8x32xbf16> -> vector<8x32xbf16>
      xegpu.store_nd %v, %c {mode = vc} : vector<8x32xbf16>, !xegpu.tensor_desc<8x32xbf16>
      gpu.return
    }
  }
}
