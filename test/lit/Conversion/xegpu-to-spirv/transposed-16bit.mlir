// 16-bit blocks read transposed: a plain load only ever transposed (A^T of a GEMM) and a transposed
// VNNI load (B^T) are read as 32-bit pairs with `transpose_32b_16r8x1c` (one read per 16 rows and 16
// columns, at column / 2), which puts memory row r on lane r -- the A operand's and the VNNI B
// operand's lane image, where a plain read puts a memory column on each lane (IGC: 145 -> 25 non-DPAS
// instructions per DPAS for a 64x96x48 A^T GEMM). The column must be even: proven (a multiple of an
// even number), else tested at run time with the per-lane loads as the other branch, and a static odd
// column takes the plain read. `main` runs the kernel at columns 4 and 3 on the pvc emulation.
// RUN: xe-opt %s --convert-xegpu-to-spirv | FileCheck %s
// RUN: %if opencl %{ xe-run %s -e main --entry-point-result=void --pipeline=convert-xegpu-to-spirv --backend=opencl | FileCheck %s --check-prefix=EXEC %}

// CHECK-LABEL: spirv.func @at(
// CHECK:         %[[ODD:[0-9]+]] = spirv.BitwiseAnd
// CHECK:         spirv.IEqual %[[ODD]],
// CHECK:         spirv.mlir.selection {
// CHECK-COUNT-4: spirv.FunctionCall @__builtin_intel_sub_group_2d_block_read_transpose_32b_16r8x1c(
// CHECK:         spirv.mlir.merge

// CHECK-LABEL: spirv.func @even(
// CHECK-NOT:     spirv.BitwiseAnd
// CHECK-COUNT-2: spirv.FunctionCall @__builtin_intel_sub_group_2d_block_read_transpose_32b_16r8x1c(
// CHECK-NOT:     spirv.mlir.selection
// CHECK:         spirv.Return

// CHECK-LABEL: spirv.func @odd(
// CHECK-NOT:     transpose_32b
// CHECK:         spirv.FunctionCall @__builtin_intel_sub_group_2d_block_read_16b_32r16x1c(
// CHECK:         spirv.Return

// EXEC: [ALLCLOSE: TRUE]
// EXEC-NEXT: [ALLCLOSE: TRUE]

module attributes {gpu.container_module} {
  gpu.module @k {
    // A 32x32 block at a dynamic column (tested at run time), transposed and written out as f32.
    gpu.func @at(%a: memref<32x64xbf16>, %o: memref<32x32xf32>, %col: index) kernel {
      %c0 = arith.constant 0 : index
      %d = xegpu.create_nd_tdesc %a[%c0, %col] {mode = vc} : memref<32x64xbf16> -> !xegpu.tensor_desc<32x32xbf16>
      %v = xegpu.load_nd %d {mode = vc} : !xegpu.tensor_desc<32x32xbf16> -> vector<32x32xbf16>
      %t = vector.transpose %v, [1, 0] : vector<32x32xbf16> to vector<32x32xbf16>
      %f = arith.extf %t : vector<32x32xbf16> to vector<32x32xf32>
      %c8 = arith.constant 8 : index
      %c16 = arith.constant 16 : index
      %c24 = arith.constant 24 : index
      %f0 = vector.extract_strided_slice %f {offsets = [0, 0], sizes = [8, 16], strides = [1, 1]} : vector<32x32xf32> to vector<8x16xf32>
      %f1 = vector.extract_strided_slice %f {offsets = [0, 16], sizes = [8, 16], strides = [1, 1]} : vector<32x32xf32> to vector<8x16xf32>
      %f2 = vector.extract_strided_slice %f {offsets = [8, 0], sizes = [8, 16], strides = [1, 1]} : vector<32x32xf32> to vector<8x16xf32>
      %f3 = vector.extract_strided_slice %f {offsets = [8, 16], sizes = [8, 16], strides = [1, 1]} : vector<32x32xf32> to vector<8x16xf32>
      %f4 = vector.extract_strided_slice %f {offsets = [16, 0], sizes = [8, 16], strides = [1, 1]} : vector<32x32xf32> to vector<8x16xf32>
      %f5 = vector.extract_strided_slice %f {offsets = [16, 16], sizes = [8, 16], strides = [1, 1]} : vector<32x32xf32> to vector<8x16xf32>
      %f6 = vector.extract_strided_slice %f {offsets = [24, 0], sizes = [8, 16], strides = [1, 1]} : vector<32x32xf32> to vector<8x16xf32>
      %f7 = vector.extract_strided_slice %f {offsets = [24, 16], sizes = [8, 16], strides = [1, 1]} : vector<32x32xf32> to vector<8x16xf32>
      %o0 = xegpu.create_nd_tdesc %o[%c0, %c0] {mode = vc} : memref<32x32xf32> -> !xegpu.tensor_desc<8x16xf32>
      %o1 = xegpu.create_nd_tdesc %o[%c0, %c16] {mode = vc} : memref<32x32xf32> -> !xegpu.tensor_desc<8x16xf32>
      %o2 = xegpu.create_nd_tdesc %o[%c8, %c0] {mode = vc} : memref<32x32xf32> -> !xegpu.tensor_desc<8x16xf32>
      %o3 = xegpu.create_nd_tdesc %o[%c8, %c16] {mode = vc} : memref<32x32xf32> -> !xegpu.tensor_desc<8x16xf32>
      %o4 = xegpu.create_nd_tdesc %o[%c16, %c0] {mode = vc} : memref<32x32xf32> -> !xegpu.tensor_desc<8x16xf32>
      %o5 = xegpu.create_nd_tdesc %o[%c16, %c16] {mode = vc} : memref<32x32xf32> -> !xegpu.tensor_desc<8x16xf32>
      %o6 = xegpu.create_nd_tdesc %o[%c24, %c0] {mode = vc} : memref<32x32xf32> -> !xegpu.tensor_desc<8x16xf32>
      %o7 = xegpu.create_nd_tdesc %o[%c24, %c16] {mode = vc} : memref<32x32xf32> -> !xegpu.tensor_desc<8x16xf32>
      xegpu.store_nd %f0, %o0 {mode = vc} : vector<8x16xf32>, !xegpu.tensor_desc<8x16xf32>
      xegpu.store_nd %f1, %o1 {mode = vc} : vector<8x16xf32>, !xegpu.tensor_desc<8x16xf32>
      xegpu.store_nd %f2, %o2 {mode = vc} : vector<8x16xf32>, !xegpu.tensor_desc<8x16xf32>
      xegpu.store_nd %f3, %o3 {mode = vc} : vector<8x16xf32>, !xegpu.tensor_desc<8x16xf32>
      xegpu.store_nd %f4, %o4 {mode = vc} : vector<8x16xf32>, !xegpu.tensor_desc<8x16xf32>
      xegpu.store_nd %f5, %o5 {mode = vc} : vector<8x16xf32>, !xegpu.tensor_desc<8x16xf32>
      xegpu.store_nd %f6, %o6 {mode = vc} : vector<8x16xf32>, !xegpu.tensor_desc<8x16xf32>
      xegpu.store_nd %f7, %o7 {mode = vc} : vector<8x16xf32>, !xegpu.tensor_desc<8x16xf32>
      gpu.return
    }
    // A transposed VNNI load (B^T) at a column that is a multiple of 16: no run-time test.
    gpu.func @even(%b: memref<64x64xbf16>, %o: memref<8x32x2xbf16>) kernel {
      %c0 = arith.constant 0 : index
      %c16 = arith.constant 16 : index
      %g = gpu.block_id x
      %col = arith.muli %g, %c16 : index
      %d = xegpu.create_nd_tdesc %b[%c0, %col] {mode = vc} : memref<64x64xbf16> -> !xegpu.tensor_desc<32x16xbf16>
      %v = xegpu.load_nd %d {mode = vc, vnni_axis = 0, transpose = [1, 0]} : !xegpu.tensor_desc<32x16xbf16> -> vector<8x32x2xbf16>
      %s = vector.shape_cast %v : vector<8x32x2xbf16> to vector<8x64xbf16>
      %s0 = vector.extract_strided_slice %s {offsets = [0, 0], sizes = [8, 16], strides = [1, 1]} : vector<8x64xbf16> to vector<8x16xbf16>
      %m = memref.collapse_shape %o [[0], [1, 2]] : memref<8x32x2xbf16> into memref<8x64xbf16>
      %od = xegpu.create_nd_tdesc %m[%c0, %c0] {mode = vc} : memref<8x64xbf16> -> !xegpu.tensor_desc<8x16xbf16>
      xegpu.store_nd %s0, %od {mode = vc} : vector<8x16xbf16>, !xegpu.tensor_desc<8x16xbf16>
      gpu.return
    }
    // A static odd column: the plain read.
    gpu.func @odd(%a: memref<32x64xbf16>, %o: memref<16x32xbf16>) kernel {
      %c0 = arith.constant 0 : index
      %c3 = arith.constant 3 : index
      %d = xegpu.create_nd_tdesc %a[%c0, %c3] {mode = vc} : memref<32x64xbf16> -> !xegpu.tensor_desc<32x16xbf16>
      %v = xegpu.load_nd %d {mode = vc} : !xegpu.tensor_desc<32x16xbf16> -> vector<32x16xbf16>
      %t = vector.transpose %v, [1, 0] : vector<32x16xbf16> to vector<16x32xbf16>
      %t0 = vector.extract_strided_slice %t {offsets = [0, 0], sizes = [8, 16], strides = [1, 1]} : vector<16x32xbf16> to vector<8x16xbf16>
      %od = xegpu.create_nd_tdesc %o[%c0, %c0] {mode = vc} : memref<16x32xbf16> -> !xegpu.tensor_desc<8x16xbf16>
      xegpu.store_nd %t0, %od {mode = vc} : vector<8x16xbf16>, !xegpu.tensor_desc<8x16xbf16>
      gpu.return
    }
  }
  func.func private @printAllcloseF32(memref<*xf32>, memref<*xf32>)
  // A[i][j] = (i + 3 j) mod 97 (exact in bf16); O[r][c] = A[c][col + r] for 32 columns from col.
  func.func @run(%col: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %c64 = arith.constant 64 : index
    %a = memref.alloc() : memref<32x64xbf16>
    %ref = memref.alloc() : memref<32x32xf32>
    %out = memref.alloc() : memref<32x32xf32>
    scf.for %i = %c0 to %c32 step %c1 {
      scf.for %j = %c0 to %c64 step %c1 {
        %c3i = arith.constant 3 : index
        %c97 = arith.constant 97 : index
        %j3 = arith.muli %j, %c3i : index
        %s = arith.addi %i, %j3 : index
        %m = arith.remui %s, %c97 : index
        %mi = arith.index_cast %m : index to i32
        %mf = arith.sitofp %mi : i32 to bf16
        memref.store %mf, %a[%i, %j] : memref<32x64xbf16>
      }
    }
    scf.for %r = %c0 to %c32 step %c1 {
      scf.for %c = %c0 to %c32 step %c1 {
        %j = arith.addi %col, %r : index
        %in = arith.cmpi ult, %j, %c64 : index
        %v = scf.if %in -> (f32) {
          %x = memref.load %a[%c, %j] : memref<32x64xbf16>
          %xf = arith.extf %x : bf16 to f32
          scf.yield %xf : f32
        } else {
          %z = arith.constant 0.0 : f32
          scf.yield %z : f32
        }
        memref.store %v, %ref[%r, %c] : memref<32x32xf32>
      }
    }
    %da = gpu.alloc () : memref<32x64xbf16>
    %do = gpu.alloc () : memref<32x32xf32>
    gpu.memcpy %da, %a : memref<32x64xbf16>, memref<32x64xbf16>
    gpu.launch_func @k::@at blocks in (%c1, %c1, %c1) threads in (%c16, %c1, %c1) args(%da : memref<32x64xbf16>, %do : memref<32x32xf32>, %col : index)
    gpu.memcpy %out, %do : memref<32x32xf32>, memref<32x32xf32>
    gpu.dealloc %da : memref<32x64xbf16>
    gpu.dealloc %do : memref<32x32xf32>
    %u = memref.cast %out : memref<32x32xf32> to memref<*xf32>
    %rr = memref.cast %ref : memref<32x32xf32> to memref<*xf32>
    call @printAllcloseF32(%u, %rr) : (memref<*xf32>, memref<*xf32>) -> ()
    return
  }
  func.func @main() {
    %c4 = arith.constant 4 : index
    %c3 = arith.constant 3 : index
    call @run(%c4) : (index) -> ()
    call @run(%c3) : (index) -> ()
    return
  }
}
