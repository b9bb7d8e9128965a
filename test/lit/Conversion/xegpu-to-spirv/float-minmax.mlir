// arith.maximumf / minimumf as upstream arith-expand writes them (float_minmax.py): an unordered compare
// and a select, then the right operand where it is NaN -- not spirv.CL.fmax / fmin with a NaN test
// and select per operand; maxnumf / minnumf stay spirv.CL.fmax / fmin (one IGC instruction).
// RUN: xe-opt %s --convert-xegpu-to-spirv=target=pvc | FileCheck %s
// RUN: xe-opt %s --convert-xegpu-to-spirv=target=portable | FileCheck %s

module attributes {gpu.container_module} {
  gpu.module @k {
    // CHECK-LABEL: spirv.func @minmax(
    // relu, max(x, 0): the NaN test of the constant folds away
    // CHECK: %[[GT:.*]] = spirv.FUnordGreaterThan %[[X:.*]], %[[Z:.*]] : f32
    // CHECK-NEXT: %[[R:.*]] = spirv.Select %[[GT]], %[[X]], %[[Z]] : i1, f32
    // CHECK-NEXT: %[[LT:.*]] = spirv.FUnordLessThan %[[R]], %[[SIX:.*]] : f32
    // CHECK-NEXT: %[[C:.*]] = spirv.Select %[[LT]], %[[R]], %[[SIX]] : i1, f32
    // CHECK-NEXT: %[[M:.*]] = spirv.CL.fmax %[[C]], %[[X]] : f32
    // max(m, x): x may be NaN
    // CHECK-NEXT: %[[GT2:.*]] = spirv.FUnordGreaterThan %[[M]], %[[X]] : f32
    // CHECK-NEXT: %[[S:.*]] = spirv.Select %[[GT2]], %[[M]], %[[X]] : i1, f32
    // CHECK-NEXT: %[[N:.*]] = spirv.Unordered %[[X]], %[[X]] : f32
    // CHECK-NEXT: spirv.Select %[[N]], %[[X]], %[[S]] : i1, f32
    // CHECK-NOT: spirv.CL.fmin
    // CHECK-NOT: spirv.IsNan
    // CHECK: spirv.Return
    gpu.func @minmax(%A: memref<16x16xf32>) kernel attributes {known_block_size = array<i32: 16, 1, 1>} {
      %c0 = arith.constant 0 : index
      %zero = arith.constant dense<0.0> : vector<1x16xf32>
      %six = arith.constant dense<6.0> : vector<1x16xf32>
      %t = xegpu.create_nd_tdesc %A[%c0, %c0] {mode = vc} : memref<16x16xf32> -> !xegpu.tensor_desc<1x16xf32>
      %a = xegpu.load_nd %t {mode = vc} : !xegpu.tensor_desc<1x16xf32> -> vector<1x16xf32>
      %r = arith.maximumf %a, %zero : vector<1x16xf32>
      %c = arith.minimumf %r, %six : vector<1x16xf32>
      %m = arith.maxnumf %c, %a : vector<1x16xf32>
      %x = arith.maximumf %m, %a : vector<1x16xf32>
      xegpu.store_nd %x, %t {mode = vc} : vector<1x16xf32>, !xegpu.tensor_desc<1x16xf32>
      gpu.return
    }
  }
}
