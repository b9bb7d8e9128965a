// A work-group kernel keeping an online softmax's row statistics (as attention does): each row's
// max and sum over four 32x16 column blocks, expanded to 32x1 by vector.shape_cast, then scaled,
// maxed, exponentiated and carried by scf.for. LLVM 22's xegpu-wg-to-sg-distribute distributes such
// a shape_cast only when it feeds vector.broadcast alone, so the import keeps those values 1D
// (unit_dims.py): the loop carries the rows as vectors, split into 8-row blocks by xegpu-blocking.
// xe-run simulates the kernel (as imported, and through our xegpu-simt-distribute) and the host
// checks m and l against its own f32 loops.
// RUN: xe-opt --convert-upstream-xegpu %s | FileCheck %s --check-prefix=SG
// RUN: xe-run %s -e main --entry-point-result=void | FileCheck %s
// RUN: xe-run %s -e main --entry-point-result=void --pipeline=xegpu-simt-distribute | FileCheck %s
// CHECK: [ALLCLOSE: TRUE]
// SG:       scf.for {{.*}} -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>)
// SG:         vector.multi_reduction <maximumf>, {{.*}} [1] : vector<8x16xf32> to vector<8xf32>
// SG:         math.exp {{.*}} : vector<8xf32>
// SG:         scf.yield {{.*}} : vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>
// SG:       vector.shape_cast {{.*}} : vector<16xf32> to vector<16x1xf32>
// SG:       vector.broadcast {{.*}} : vector<8x1xf32> to vector<8x16xf32>
// SG-NOT:   copysign
// SG-NOT:   sg_layout

#t = #xegpu.layout<sg_layout = [2, 1], sg_data = [16, 16], inst_data = [8, 16]>
#r = #xegpu.layout<sg_layout = [2, 1], sg_data = [16, 1], inst_data = [8, 1]>
#v = #xegpu.layout<sg_layout = [2], sg_data = [16], inst_data = [8]>
module attributes {gpu.container_module} {
  gpu.module @kernels {
    // m' = max(m, rowmax(x_j) / 2), l' = l * exp(m - m') + rowsum(exp(x_j / 2 - m')); o = [m | l]
    gpu.func @row_stats(%x: memref<32x64xf32>, %o: memref<32x32xf32>) kernel {
      %c0 = arith.constant 0 : index
      %c16 = arith.constant 16 : index
      %c64 = arith.constant 64 : index
      %tx = xegpu.create_nd_tdesc %x : memref<32x64xf32> -> !xegpu.tensor_desc<32x16xf32, #t>
      %m0 = arith.constant {layout_result_0 = #r} dense<0xFF800000> : vector<32x1xf32>
      %l0 = arith.constant {layout_result_0 = #r} dense<0.0> : vector<32x1xf32>
      %half_r = arith.constant {layout_result_0 = #r} dense<0.5> : vector<32x1xf32>
      %half_t = arith.constant {layout_result_0 = #t} dense<0.5> : vector<32x16xf32>
      %ninf = arith.constant {layout_result_0 = #v} dense<0xFF800000> : vector<32xf32>
      %zero = arith.constant {layout_result_0 = #v} dense<0.0> : vector<32xf32>
      %res:2 = scf.for %j = %c0 to %c64 step %c16 iter_args(%m = %m0, %l = %l0) -> (vector<32x1xf32>, vector<32x1xf32>) {
        %xt = xegpu.load_nd %tx[%c0, %j] {layout = #t} : !xegpu.tensor_desc<32x16xf32, #t> -> vector<32x16xf32>
        %mx = vector.multi_reduction <maximumf>, %xt, %ninf {layout_result_0 = #xegpu.slice<#t, dims = [1]>} [1] : vector<32x16xf32> to vector<32xf32>
        %mx_r = vector.shape_cast %mx {layout_result_0 = #r} : vector<32xf32> to vector<32x1xf32>
        %mx_s = arith.mulf %mx_r, %half_r {layout_result_0 = #r} : vector<32x1xf32>
        %mn = arith.maximumf %mx_s, %m {layout_result_0 = #r} : vector<32x1xf32>
        %xs = arith.mulf %xt, %half_t {layout_result_0 = #t} : vector<32x16xf32>
        %mb = vector.broadcast %mn {layout_result_0 = #t} : vector<32x1xf32> to vector<32x16xf32>
        %d = arith.subf %xs, %mb {layout_result_0 = #t} : vector<32x16xf32>
        %e = math.exp %d {layout_result_0 = #t} : vector<32x16xf32>
        %sum = vector.multi_reduction <add>, %e, %zero {layout_result_0 = #xegpu.slice<#t, dims = [1]>} [1] : vector<32x16xf32> to vector<32xf32>
        %sum_r = vector.shape_cast %sum {layout_result_0 = #r} : vector<32xf32> to vector<32x1xf32>
        %dm = arith.subf %m, %mn {layout_result_0 = #r} : vector<32x1xf32>
        %alpha = math.exp %dm {layout_result_0 = #r} : vector<32x1xf32>
        %la = arith.mulf %l, %alpha {layout_result_0 = #r} : vector<32x1xf32>
        %ln = arith.addf %la, %sum_r {layout_result_0 = #r} : vector<32x1xf32>
        scf.yield %mn, %ln : vector<32x1xf32>, vector<32x1xf32>
      } {layout_result_0 = #r, layout_result_1 = #r}
      %mo = vector.broadcast %res#0 {layout_result_0 = #t} : vector<32x1xf32> to vector<32x16xf32>
      %lo = vector.broadcast %res#1 {layout_result_0 = #t} : vector<32x1xf32> to vector<32x16xf32>
      %to = xegpu.create_nd_tdesc %o : memref<32x32xf32> -> !xegpu.tensor_desc<32x16xf32, #t>
      xegpu.store_nd %mo, %to[%c0, %c0] {layout = #t} : vector<32x16xf32>, !xegpu.tensor_desc<32x16xf32, #t>
      xegpu.store_nd %lo, %to[%c0, %c16] {layout = #t} : vector<32x16xf32>, !xegpu.tensor_desc<32x16xf32, #t>
      gpu.return
    }
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c5 = arith.constant 5 : index
    %c13 = arith.constant 13 : index
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %c64 = arith.constant 64 : index
    %quarter = arith.constant 0.25 : f32
    %off = arith.constant 1.5 : f32
    %half = arith.constant 0.5 : f32
    %ninf = arith.constant 0xFF800000 : f32
    %zero = arith.constant 0.0 : f32
    %X = memref.alloc() : memref<32x64xf32>
    %O = memref.alloc() : memref<32x32xf32>
    %R = memref.alloc() : memref<32x32xf32>
    // x[i, j] = ((5 i + 3 j) mod 13) / 4 - 1.5
    scf.for %i = %c0 to %c32 step %c1 {
      scf.for %j = %c0 to %c64 step %c1 {
        %a = arith.muli %i, %c5 : index
        %b = arith.addi %a, %j : index
        %b2 = arith.addi %b, %j : index
        %b3 = arith.addi %b2, %j : index
        %m = arith.remui %b3, %c13 : index
        %n = arith.index_cast %m : index to i32
        %f = arith.sitofp %n : i32 to f32
        %g = arith.mulf %f, %quarter : f32
        %h = arith.subf %g, %off : f32
        memref.store %h, %X[%i, %j] : memref<32x64xf32>
      }
    }
    // the same recurrence, one row at a time
    scf.for %i = %c0 to %c32 step %c1 {
      %st:2 = scf.for %jb = %c0 to %c64 step %c16 iter_args(%m = %ninf, %l = %zero) -> (f32, f32) {
        %mx = scf.for %jj = %c0 to %c16 step %c1 iter_args(%a = %ninf) -> (f32) {
          %j = arith.addi %jb, %jj : index
          %v = memref.load %X[%i, %j] : memref<32x64xf32>
          %a2 = arith.maximumf %a, %v : f32
          scf.yield %a2 : f32
        }
        %mxs = arith.mulf %mx, %half : f32
        %mn = arith.maximumf %mxs, %m : f32
        %s = scf.for %jj = %c0 to %c16 step %c1 iter_args(%a = %zero) -> (f32) {
          %j = arith.addi %jb, %jj : index
          %v = memref.load %X[%i, %j] : memref<32x64xf32>
          %vs = arith.mulf %v, %half : f32
          %d = arith.subf %vs, %mn : f32
          %e = math.exp %d : f32
          %a2 = arith.addf %a, %e : f32
          scf.yield %a2 : f32
        }
        %dm = arith.subf %m, %mn : f32
        %alpha = math.exp %dm : f32
        %la = arith.mulf %l, %alpha : f32
        %ln = arith.addf %la, %s : f32
        scf.yield %mn, %ln : f32, f32
      }
      scf.for %j = %c0 to %c16 step %c1 {
        %j2 = arith.addi %j, %c16 : index
        memref.store %st#0, %R[%i, %j] : memref<32x32xf32>
        memref.store %st#1, %R[%i, %j2] : memref<32x32xf32>
      }
    }
    %gX = gpu.alloc () : memref<32x64xf32>
    %gO = gpu.alloc () : memref<32x32xf32>
    gpu.memcpy %gX, %X : memref<32x64xf32>, memref<32x64xf32>
    gpu.launch_func @kernels::@row_stats blocks in (%c1, %c1, %c1) threads in (%c32, %c1, %c1) args(%gX : memref<32x64xf32>, %gO : memref<32x32xf32>)
    gpu.memcpy %O, %gO : memref<32x32xf32>, memref<32x32xf32>
    %uO = memref.cast %O : memref<32x32xf32> to memref<*xf32>
    %uR = memref.cast %R : memref<32x32xf32> to memref<*xf32>
    call @printAllcloseF32(%uO, %uR) : (memref<*xf32>, memref<*xf32>) -> ()
    return
  }
  func.func private @printAllcloseF32(memref<*xf32>, memref<*xf32>) attributes {llvm.emit_c_interface}
}
