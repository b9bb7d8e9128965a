// A whole program whose kernel goes through shared local memory by a typed view of a byte
// buffer (`memref.view` at a byte shift), as IMEX's SLM programs do: each of the two subgroups
// stores its 8 x 16 block there, and after a work-group barrier reads the other one's block.
// RUN: xe-run %s -e main --entry-point-result=void | FileCheck %s
// RUN: xe-run %s -e main --entry-point-result=void --pipeline=xe-gemm-to-xegpu | FileCheck %s
// RUN: xe-opt %s --xe-gemm-to-spirv-portable | FileCheck %s --check-prefix=SPV
// RUN: %if opencl %{ xe-run %s -e main --entry-point-result=void --pipeline=xe-gemm-to-spirv-portable --backend=opencl | FileCheck %s %}

// CHECK:      [ALLCLOSE: TRUE]
// CHECK-NEXT: Max absolute error 0 at idx=0 (i=inf, j=inf)

// the view: the byte pointer moved by 512 and cast to f32
// SPV: %[[B:.*]] = spirv.AccessChain %{{.*}} -> !spirv.ptr<i8, Workgroup>
// SPV: %[[S:.*]] = spirv.PtrAccessChain %[[B]][%{{.*}}] : !spirv.ptr<i8, Workgroup>, i64
// SPV: spirv.Bitcast %[[S]] : !spirv.ptr<i8, Workgroup> to !spirv.ptr<f32, Workgroup>

module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @swap(%a: memref<16x16xf32>, %o: memref<16x16xf32>) kernel {
      %c1 = arith.constant 1 : index
      %c8 = arith.constant 8 : index
      %c512 = arith.constant 512 : index
      %sg = gpu.subgroup_id : index
      %row = arith.muli %sg, %c8 : index
      %osg = arith.subi %c1, %sg : index
      %orow = arith.muli %osg, %c8 : index
      %ta = xetile.init_tile %a[%row, 0] : memref<16x16xf32> -> !xetile.tile<8x16xf32>
      %v = xetile.load_tile %ta : !xetile.tile<8x16xf32> -> vector<8x16xf32>
      %buf = memref.alloc() : memref<2048xi8, 3>
      %view = memref.view %buf[%c512][] : memref<2048xi8, 3> to memref<16x16xf32, 3>
      %ts = xetile.init_tile %view[%row, 0] : memref<16x16xf32, 3> -> !xetile.tile<8x16xf32, #xetile.tile_attr<memory_space = 3>>
      xetile.store_tile %v, %ts : vector<8x16xf32>, !xetile.tile<8x16xf32, #xetile.tile_attr<memory_space = 3>>
      gpu.barrier
      %tr = xetile.init_tile %view[%orow, 0] : memref<16x16xf32, 3> -> !xetile.tile<8x16xf32, #xetile.tile_attr<memory_space = 3>>
      %w = xetile.load_tile %tr : !xetile.tile<8x16xf32, #xetile.tile_attr<memory_space = 3>> -> vector<8x16xf32>
      %to = xetile.init_tile %o[%row, 0] : memref<16x16xf32> -> !xetile.tile<8x16xf32>
      xetile.store_tile %w, %to : vector<8x16xf32>, !xetile.tile<8x16xf32>
      gpu.return
    }
  }
  func.func private @printAllcloseF32(memref<*xf32>, memref<*xf32>)
  func.func private @printMaxErrorF32(memref<*xf32>, memref<*xf32>)
  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %a = memref.alloc() : memref<16x16xf32>
    %ref = memref.alloc() : memref<16x16xf32>
    %out = memref.alloc() : memref<16x16xf32>
    scf.for %i = %c0 to %c16 step %c1 {
      scf.for %j = %c0 to %c16 step %c1 {
        %k = arith.muli %i, %c16 : index
        %kj = arith.addi %k, %j : index
        %ki = arith.index_cast %kj : index to i32
        %f = arith.sitofp %ki : i32 to f32
        memref.store %f, %a[%i, %j] : memref<16x16xf32>
        %i8 = arith.addi %i, %c8 : index
        %src = arith.remui %i8, %c16 : index
        %k2 = arith.muli %src, %c16 : index
        %k2j = arith.addi %k2, %j : index
        %k2i = arith.index_cast %k2j : index to i32
        %g = arith.sitofp %k2i : i32 to f32
        memref.store %g, %ref[%i, %j] : memref<16x16xf32>
      }
    }
    %da = gpu.alloc () : memref<16x16xf32>
    %do = gpu.alloc () : memref<16x16xf32>
    gpu.memcpy %da, %a : memref<16x16xf32>, memref<16x16xf32>
    gpu.launch_func @k::@swap blocks in (%c1, %c1, %c1) threads in (%c32, %c1, %c1) args(%da : memref<16x16xf32>, %do : memref<16x16xf32>)
    gpu.memcpy %out, %do : memref<16x16xf32>, memref<16x16xf32>
    %u = memref.cast %out : memref<16x16xf32> to memref<*xf32>
    %r = memref.cast %ref : memref<16x16xf32> to memref<*xf32>
    call @printAllcloseF32(%u, %r) : (memref<*xf32>, memref<*xf32>) -> ()
    call @printMaxErrorF32(%u, %r) : (memref<*xf32>, memref<*xf32>) -> ()
    return
  }
}
