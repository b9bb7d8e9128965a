// A whole program whose kernel uses forms of IMEX's XeTile programs that convert-xegpu-to-spirv
// lowers without XeTile's help: `index` dialect arithmetic (floordivs, and, mul) for subgroup
// coordinates, a column-major `memref.reinterpret_cast` view of a kernel argument read through an
// `order = [0, 1]` tile, and a `vector.create_mask` selecting the columns below a bound.
// o[i, j] = j < n ? a[i, j] + b[j, i] : 0, on the simulator, lowered, and as SPIR-V on OpenCL.
// RUN: xe-run %s -e main --entry-point-result=void | FileCheck %s
// RUN: xe-run %s -e main --entry-point-result=void --pipeline=xe-gemm-to-xegpu | FileCheck %s
// RUN: xe-opt %s --xe-gemm-to-spirv-portable | FileCheck %s --check-prefix=SPV
// RUN: %if opencl %{ xe-run %s -e main --entry-point-result=void --pipeline=xe-gemm-to-spirv-portable --backend=opencl | FileCheck %s %}

// CHECK:      [ALLCLOSE: TRUE]
// CHECK-NEXT: Max absolute error 0 at idx=0 (i=inf, j=inf)

// SPV-LABEL: spirv.func @k(
// SPV-NOT: index.
// floordivs: a truncating division corrected by the signs of the remainder and the divisor
// SPV: %[[Q:.*]] = spirv.SDiv
// SPV: spirv.UMod
// SPV: %[[NEG:.*]] = spirv.SLessThan
// SPV: %[[QM1:.*]] = spirv.ISub %[[Q]], %cst1_i64
// SPV: spirv.Select %{{.*}}, %[[QM1]], %[[Q]]
// SPV: spirv.BitwiseAnd

module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @k(%a: memref<16x32xf32>, %b: memref<32x16xf32>, %o: memref<16x32xf32>, %n: index) kernel {
      %c0 = arith.constant 0 : index
      %c8 = arith.constant 8 : index
      %i1 = index.constant 1
      %i2 = index.constant 2
      %i8 = index.constant 8
      %sg = gpu.subgroup_id : index
      %i3 = index.constant 3
      // floordivs(2 sg - 3, 2) + 2 - sg is 0 for both subgroups (-2 and -1 rounded down, not toward 0)
      %t2 = index.mul %sg, %i2
      %t = index.sub %t2, %i3
      %q = index.floordivs %t, %i2
      %q2 = index.add %q, %i2
      %adj = index.sub %q2, %sg
      %r = index.and %sg, %i1
      %rr = index.mul %r, %i8
      %row = index.add %rr, %adj
      %bt = memref.reinterpret_cast %b to offset: [0], sizes: [16, 32], strides: [1, 16] : memref<32x16xf32> to memref<16x32xf32, strided<[1, 16]>>
      %ta = xetile.init_tile %a[%row, %c0] : memref<16x32xf32> -> !xetile.tile<8x32xf32>
      %tb = xetile.init_tile %bt[%row, %c0] : memref<16x32xf32, strided<[1, 16]>> -> !xetile.tile<8x32xf32, #xetile.tile_attr<order = [0, 1]>>
      %va = xetile.load_tile %ta : !xetile.tile<8x32xf32> -> vector<8x32xf32>
      %vb = xetile.load_tile %tb : !xetile.tile<8x32xf32, #xetile.tile_attr<order = [0, 1]>> -> vector<8x32xf32>
      %s = arith.addf %va, %vb : vector<8x32xf32>
      %mask = vector.create_mask %c8, %n : vector<8x32xi1>
      %zero = arith.constant dense<0.0> : vector<8x32xf32>
      %v = arith.select %mask, %s, %zero : vector<8x32xi1>, vector<8x32xf32>
      %to = xetile.init_tile %o[%row, %c0] : memref<16x32xf32> -> !xetile.tile<8x32xf32>
      xetile.store_tile %v, %to : vector<8x32xf32>, !xetile.tile<8x32xf32>
      gpu.return
    }
  }
  func.func private @printAllcloseF32(memref<*xf32>, memref<*xf32>)
  func.func private @printMaxErrorF32(memref<*xf32>, memref<*xf32>)
  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %c32x = arith.constant 32 : index
    %n = arith.constant 21 : index
    %zero = arith.constant 0.0 : f32
    %a = memref.alloc() : memref<16x32xf32>
    %b = memref.alloc() : memref<32x16xf32>
    %ref = memref.alloc() : memref<16x32xf32>
    %out = memref.alloc() : memref<16x32xf32>
    scf.for %i = %c0 to %c16 step %c1 {
      scf.for %j = %c0 to %c32 step %c1 {
        %k = arith.muli %i, %c32x : index
        %kj = arith.addi %k, %j : index
        %ki = arith.index_cast %kj : index to i32
        %f = arith.sitofp %ki : i32 to f32
        memref.store %f, %a[%i, %j] : memref<16x32xf32>
        %g = arith.negf %f : f32
        %h = arith.mulf %g, %f : f32
        memref.store %h, %b[%j, %i] : memref<32x16xf32>
        %s = arith.addf %f, %h : f32
        %in = arith.cmpi ult, %j, %n : index
        %e = arith.select %in, %s, %zero : f32
        memref.store %e, %ref[%i, %j] : memref<16x32xf32>
      }
    }
    %da = gpu.alloc () : memref<16x32xf32>
    %db = gpu.alloc () : memref<32x16xf32>
    %do = gpu.alloc () : memref<16x32xf32>
    gpu.memcpy %da, %a : memref<16x32xf32>, memref<16x32xf32>
    gpu.memcpy %db, %b : memref<32x16xf32>, memref<32x16xf32>
    gpu.launch_func @m::@k blocks in (%c1, %c1, %c1) threads in (%c32, %c1, %c1) args(%da : memref<16x32xf32>, %db : memref<32x16xf32>, %do : memref<16x32xf32>, %n : index)
    gpu.memcpy %out, %do : memref<16x32xf32>, memref<16x32xf32>
    %u = memref.cast %out : memref<16x32xf32> to memref<*xf32>
    %r = memref.cast %ref : memref<16x32xf32> to memref<*xf32>
    call @printAllcloseF32(%u, %r) : (memref<*xf32>, memref<*xf32>) -> ()
    call @printMaxErrorF32(%u, %r) : (memref<*xf32>, memref<*xf32>) -> ()
    return
  }
}
