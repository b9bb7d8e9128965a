// math.exp2 on f32 registers: on pvc a call of OpenCL's exp2 builtin, imported under IGC's SPIR-V
// friendly name (upstream's SPIR-V dialect has no CL exp2; IGC compiles it to one hardware exp, where
// spirv.CL.exp is a range-reduced sequence); on the portable target exp(x ln 2). bf16 in f32.
// RUN: xe-opt %s --convert-xegpu-to-spirv=target=pvc | FileCheck %s --check-prefix=PVC
// RUN: xe-opt %s --convert-xegpu-to-spirv=target=portable | FileCheck %s --check-prefix=PORT

// PVC: spirv.func @__builtin___spirv_ocl_exp2(f32) -> f32 "None" attributes {linkage_attributes = #spirv.linkage_attributes<linkage_name = "_Z16__spirv_ocl_exp2f", linkage_type = <Import>>}
// PVC-LABEL: spirv.func @exp2(
// PVC: spirv.FunctionCall @__builtin___spirv_ocl_exp2(%{{.*}}) : (f32) -> f32
// PVC: spirv.ShiftLeftLogical
// PVC: spirv.FunctionCall @__builtin___spirv_ocl_exp2(%{{.*}}) : (f32) -> f32
// PVC-NOT: spirv.CL.exp
// PVC: spirv.Return
// PORT-LABEL: spirv.func @exp2(
// PORT: %[[X:.*]] = spirv.FMul %{{.*}}, %{{.*}} : f32
// PORT: spirv.CL.exp %[[X]] : f32
// PORT-NOT: spirv.FunctionCall
// PORT: spirv.Return
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @exp2(%A: memref<16x16xf32>, %B: memref<16x16xbf16>) kernel attributes {known_block_size = array<i32: 16, 1, 1>} {
      %c0 = arith.constant 0 : index
      %ta = xegpu.create_nd_tdesc %A[%c0, %c0] {mode = vc} : memref<16x16xf32> -> !xegpu.tensor_desc<1x16xf32>
      %a = xegpu.load_nd %ta {mode = vc} : !xegpu.tensor_desc<1x16xf32> -> vector<1x16xf32>
      %e = math.exp2 %a : vector<1x16xf32>
      xegpu.store_nd %e, %ta {mode = vc} : vector<1x16xf32>, !xegpu.tensor_desc<1x16xf32>
      %tb = xegpu.create_nd_tdesc %B[%c0, %c0] {mode = vc} : memref<16x16xbf16> -> !xegpu.tensor_desc<1x16xbf16>
      %b = xegpu.load_nd %tb {mode = vc} : !xegpu.tensor_desc<1x16xbf16> -> vector<1x16xbf16>
      %be = math.exp2 %b : vector<1x16xbf16>
      xegpu.store_nd %be, %tb {mode = vc} : vector<1x16xbf16>, !xegpu.tensor_desc<1x16xbf16>
      gpu.return
    }
  }
}
