// convert-xegpu-to-spirv on math ops (as fused epilogues such as gelu use them): each register
// becomes an OpenCL extended instruction (spirv.CL.*, upstream math-to-spirv), bf16 computed in
// f32 and rounded back, f16 natively; tanh is expanded first (upstream math-expand-ops: exp and a
// division, never IGC's precise spirv.CL.tanh; docs/numerics.md "tanh").
// RUN: xe-opt %s --convert-xegpu-to-spirv=target=portable | FileCheck %s
// RUN: xe-opt %s --convert-xegpu-to-spirv=target=pvc | FileCheck %s

module attributes {gpu.container_module} {
  gpu.module @k {
    // CHECK-LABEL: spirv.func @gelu(
    // CHECK-NOT: spirv.CL.tanh
    // CHECK: spirv.FOrdLessThan %{{.*}}, %{{.*}} : f32
    // CHECK: spirv.CL.exp %{{.*}} : f32
    // CHECK: %[[Q:.*]] = spirv.FDiv %{{.*}}, %{{.*}} : f32
    // CHECK: %[[T:.*]] = spirv.FMul %{{.*}}, %[[Q]] : f32
    // CHECK: %[[E:.*]] = spirv.CL.erf %[[T]] : f32
    // CHECK: %[[X2:.*]] = spirv.CL.exp %[[E]] : f32
    // CHECK: spirv.CL.sqrt %[[X2]] : f32
    // bf16: widened to f32 (16-bit shift), tanh, rounded to nearest even
    // CHECK: %[[W:.*]] = spirv.ShiftLeftLogical %{{.*}}, %cst16_i32 : i32, i32
    // CHECK: %[[WF:.*]] = spirv.Bitcast %[[W]] : i32 to f32
    // CHECK: spirv.FOrdLessThan %[[WF]], %{{.*}} : f32
    // CHECK: spirv.CL.exp %{{.*}} : f32
    // CHECK: spirv.CL.erf %{{.*}} : f16
    // CHECK-NOT: math.
    // CHECK-NOT: spirv.CL.tanh
    // CHECK: spirv.Return
    gpu.func @gelu(%A: memref<16x16xf32>, %B: memref<16x16xbf16>, %H: memref<16x16xf16>) kernel attributes {known_block_size = array<i32: 16, 1, 1>} {
      %c0 = arith.constant 0 : index
      %ta = xegpu.create_nd_tdesc %A[%c0, %c0] {mode = vc} : memref<16x16xf32> -> !xegpu.tensor_desc<1x16xf32>
      %a = xegpu.load_nd %ta {mode = vc} : !xegpu.tensor_desc<1x16xf32> -> vector<1x16xf32>
      %t = math.tanh %a : vector<1x16xf32>
      %e = math.erf %t : vector<1x16xf32>
      %x = math.exp %e : vector<1x16xf32>
      %r = math.sqrt %x : vector<1x16xf32>
      xegpu.store_nd %r, %ta {mode = vc} : vector<1x16xf32>, !xegpu.tensor_desc<1x16xf32>
      %tb = xegpu.create_nd_tdesc %B[%c0, %c0] {mode = vc} : memref<16x16xbf16> -> !xegpu.tensor_desc<1x16xbf16>
      %b = xegpu.load_nd %tb {mode = vc} : !xegpu.tensor_desc<1x16xbf16> -> vector<1x16xbf16>
      %bt = math.tanh %b : vector<1x16xbf16>
      xegpu.store_nd %bt, %tb {mode = vc} : vector<1x16xbf16>, !xegpu.tensor_desc<1x16xbf16>
      %th = xegpu.create_nd_tdesc %H[%c0, %c0] {mode = vc} : memref<16x16xf16> -> !xegpu.tensor_desc<1x16xf16>
      %h = xegpu.load_nd %th {mode = vc} : !xegpu.tensor_desc<1x16xf16> -> vector<1x16xf16>
      %he = math.erf %h : vector<1x16xf16>
      xegpu.store_nd %he, %th {mode = vc} : vector<1x16xf16>, !xegpu.tensor_desc<1x16xf16>
      gpu.return
    }
  }
}
