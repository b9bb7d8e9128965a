// A loop whose trip count is a kernel argument and that carries values: upstream scf-to-spirv
// returns loop results through variables only the loop body writes, so the lowering guards the
// loop with `lb < ub` (canonicalized to n > 0 here) and yields the initial values otherwise.
// Loops with constant bounds that run at least once are not guarded (gemm.mlir).
// test_opencl_backend.py::test_loop_with_dynamic_trip_count_including_zero_trips runs it with n = 0.
// RUN: xe-opt %s --convert-xegpu-to-spirv=target=portable | FileCheck %s
// RUN: xe-opt %s --convert-xegpu-to-spirv=target=pvc | FileCheck %s

// CHECK: spirv.func @acc(%{{.*}}, %{{.*}}, %[[N:.*]]: i64)
// CHECK: %[[RUNS:.*]] = spirv.SGreaterThan %[[N]], %{{.*}} : i64
// CHECK: spirv.mlir.selection {
// CHECK-NEXT: spirv.BranchConditional %[[RUNS]], ^bb1, ^bb2
// CHECK: spirv.mlir.loop {
// CHECK: spirv.SLessThan %{{.*}}, %[[N]] : i64
// CHECK: spirv.mlir.merge
// CHECK: ^bb2:
// CHECK: spirv.Store "Function"
// CHECK: spirv.mlir.merge

module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @acc(%arg0: memref<16x32xf32>, %arg1: memref<16x32xf32>, %arg2: index) kernel attributes {known_block_size = array<i32: 16, 1, 1>, xe.subgroup_size = 16 : i32} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %0 = xegpu.create_nd_tdesc %arg0[0, 0] {mode = vc} : memref<16x32xf32> -> !xegpu.tensor_desc<16x16xf32>
      %1 = xegpu.create_nd_tdesc %arg0[0, 16] {mode = vc} : memref<16x32xf32> -> !xegpu.tensor_desc<16x16xf32>
      %2 = xegpu.create_nd_tdesc %arg1[0, 0] {mode = vc} : memref<16x32xf32> -> !xegpu.tensor_desc<8x16xf32>
      %3 = xegpu.create_nd_tdesc %arg1[0, 16] {mode = vc} : memref<16x32xf32> -> !xegpu.tensor_desc<8x16xf32>
      %4 = xegpu.create_nd_tdesc %arg1[8, 0] {mode = vc} : memref<16x32xf32> -> !xegpu.tensor_desc<8x16xf32>
      %5 = xegpu.create_nd_tdesc %arg1[8, 16] {mode = vc} : memref<16x32xf32> -> !xegpu.tensor_desc<8x16xf32>
      %6 = xegpu.load_nd %0 {mode = vc} : !xegpu.tensor_desc<16x16xf32> -> vector<16x16xf32>
      %7 = xegpu.load_nd %1 {mode = vc} : !xegpu.tensor_desc<16x16xf32> -> vector<16x16xf32>
      %8 = xegpu.load_nd %2 {mode = vc} : !xegpu.tensor_desc<8x16xf32> -> vector<8x16xf32>
      %9 = xegpu.load_nd %3 {mode = vc} : !xegpu.tensor_desc<8x16xf32> -> vector<8x16xf32>
      %10 = xegpu.load_nd %4 {mode = vc} : !xegpu.tensor_desc<8x16xf32> -> vector<8x16xf32>
      %11 = xegpu.load_nd %5 {mode = vc} : !xegpu.tensor_desc<8x16xf32> -> vector<8x16xf32>
      %12:4 = scf.for %arg3 = %c0 to %arg2 step %c1 iter_args(%arg4 = %8, %arg5 = %9, %arg6 = %10, %arg7 = %11) -> (vector<8x16xf32>, vector<8x16xf32>, vector<8x16xf32>, vector<8x16xf32>) {
        %13 = vector.extract_strided_slice %6 {offsets = [0, 0], sizes = [8, 16], strides = [1, 1]} : vector<16x16xf32> to vector<8x16xf32>
        %14 = vector.extract_strided_slice %7 {offsets = [0, 0], sizes = [8, 16], strides = [1, 1]} : vector<16x16xf32> to vector<8x16xf32>
        %15 = vector.extract_strided_slice %6 {offsets = [8, 0], sizes = [8, 16], strides = [1, 1]} : vector<16x16xf32> to vector<8x16xf32>
        %16 = vector.extract_strided_slice %7 {offsets = [8, 0], sizes = [8, 16], strides = [1, 1]} : vector<16x16xf32> to vector<8x16xf32>
        %17 = arith.addf %arg4, %13 : vector<8x16xf32>
        %18 = arith.addf %arg5, %14 : vector<8x16xf32>
        %19 = arith.addf %arg6, %15 : vector<8x16xf32>
        %20 = arith.addf %arg7, %16 : vector<8x16xf32>
        scf.yield %17, %18, %19, %20 : vector<8x16xf32>, vector<8x16xf32>, vector<8x16xf32>, vector<8x16xf32>
      }
      xegpu.store_nd %12#0, %2 {mode = vc} : vector<8x16xf32>, !xegpu.tensor_desc<8x16xf32>
      xegpu.store_nd %12#1, %3 {mode = vc} : vector<8x16xf32>, !xegpu.tensor_desc<8x16xf32>
      xegpu.store_nd %12#2, %4 {mode = vc} : vector<8x16xf32>, !xegpu.tensor_desc<8x16xf32>
      xegpu.store_nd %12#3, %5 {mode = vc} : vector<8x16xf32>, !xegpu.tensor_desc<8x16xf32>
      gpu.return
    }
  }
  func.func @main(%arg0: memref<16x32xf32>, %arg1: memref<16x32xf32>, %arg2: memref<16x32xf32>) {
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %c0 = arith.constant 0 : index
    %c3 = arith.constant 3 : index
    gpu.launch_func  @k::@acc blocks in (%c1, %c1, %c1) threads in (%c16, %c1, %c1)  args(%arg0 : memref<16x32xf32>, %arg1 : memref<16x32xf32>, %c0 : index)
    gpu.launch_func  @k::@acc blocks in (%c1, %c1, %c1) threads in (%c16, %c1, %c1)  args(%arg0 : memref<16x32xf32>, %arg2 : memref<16x32xf32>, %c3 : index)
    return
  }
}

