// f32 -> bf16 (arith.truncf here; also a DPAS with a bf16 result and every bf16 epilogue): target
// pvc calls the imported conversion builtin under IGC's SPIR-V friendly name (one hardware
// conversion per register on IGC, docs/spirv.md), target portable keeps the integer
// round-to-nearest-even sequence. bf16 -> f32 stays a 16-bit shift on both. Bits: test_pvc_on_cpu
// (simulator and pvc emulation) and test_pvc_emulation (the emulation's builtin).
// RUN: xe-opt %s --convert-xegpu-to-spirv=target=pvc | FileCheck %s --check-prefix=PVC
// RUN: xe-opt %s --convert-xegpu-to-spirv=target=portable | FileCheck %s --check-prefix=PORT

// PVC: spirv.func @__builtin___spirv_ConvertFToBF16INTEL(f32) -> i16 "None" attributes {linkage_attributes = #spirv.linkage_attributes<linkage_name = "_Z27__spirv_ConvertFToBF16INTELf", linkage_type = <Import>>}
// PVC-LABEL: spirv.func @t(
// PVC: spirv.ShiftLeftLogical %{{.*}}, %{{.*}} : i32, i32
// PVC-COUNT-2: spirv.FunctionCall @__builtin___spirv_ConvertFToBF16INTEL(%{{.*}}) : (f32) -> i16
// PVC-NOT: spirv.Unordered
// PVC: spirv.Return

// PORT-NOT: ConvertFToBF16
// PORT-LABEL: spirv.func @t(
// PORT: spirv.ShiftLeftLogical %{{.*}}, %{{.*}} : i32, i32
// PORT: spirv.IAdd %{{.*}}, %cst32767_i32 : i32
// PORT: spirv.Unordered
// PORT: spirv.BitwiseOr %{{.*}}, %cst64_i32 : i32
// PORT: spirv.Select
// PORT: spirv.SConvert %{{.*}} : i32 to i16
// PORT-NOT: ConvertFToBF16
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @t(%A: memref<16x16xf32>, %B: memref<16x16xbf16>) kernel
        attributes {known_block_size = array<i32: 16, 1, 1>, xe.subgroup_size = 16 : i32} {
      %c0 = arith.constant 0 : index
      %ta = xegpu.create_nd_tdesc %A[%c0, %c0] {mode = vc} : memref<16x16xf32> -> !xegpu.tensor_desc<2x16xf32>
      %tb = xegpu.create_nd_tdesc %B[%c0, %c0] {mode = vc} : memref<16x16xbf16> -> !xegpu.tensor_desc<2x16xbf16>
      %b = xegpu.load_nd %tb {mode = vc} : !xegpu.tensor_desc<2x16xbf16> -> vector<2x16xbf16>
      %bf = arith.extf %b : vector<2x16xbf16> to vector<2x16xf32>
      %a = xegpu.load_nd %ta {mode = vc} : !xegpu.tensor_desc<2x16xf32> -> vector<2x16xf32>
      %s = arith.addf %a, %bf : vector<2x16xf32>
      %t = arith.truncf %s : vector<2x16xf32> to vector<2x16xbf16>
      xegpu.store_nd %t, %tb {mode = vc} : vector<2x16xbf16>, !xegpu.tensor_desc<2x16xbf16>
      gpu.return
    }
  }
}
