// IMEX's upstream-syntax VC programs use three forms LLVM 22 does not take as written: `xegpu.compile_hint`
// (no upstream op: kept as ours), `load_nd` with `transpose_bit_width = 32` (16-bit data transposed as
// 32-bit pairs: imported as the plain load, shape_cast H x W -> H x W/2 x 2, transpose [1, 0, 2]) and a
// `packed` load through an array_length = 2 descriptor (one VNNI load per block, stacked).
// out1[r][2c+k] = A[c][2r+k]; out2[8b+k][2n+p] = B[2k+p][16b+n]; A[i][j] = B[i][j] = 32 i + j.
// RUN: xe-opt --convert-upstream-xegpu %s | FileCheck %s --check-prefix=SG
// RUN: xe-run %s -e main --entry-point-result=void | FileCheck %s
// SG:      %[[L:.*]] = xegpu.load_nd %{{.*}} {mode = vc} : !xegpu.tensor_desc<8x16xf16> -> vector<8x16xf16>
// SG-NEXT: %[[P:.*]] = vector.shape_cast %[[L]] : vector<8x16xf16> to vector<8x8x2xf16>
// SG-NEXT: vector.transpose %[[P]], [1, 0, 2] : vector<8x8x2xf16> to vector<8x8x2xf16>
// SG-NEXT: xegpu.compile_hint
// SG-COUNT-2: xegpu.load_nd %{{.*}} {mode = vc, vnni_axis = 0} : !xegpu.tensor_desc<16x16xf16> -> vector<8x16x2xf16>
// CHECK:      sizes = [8, 16]
// CHECK-NEXT: {{\[}}[0,   1,   32,   33,   64,   65,   96,   97,   128,   129,   160,   161,   192,   193,   224,   225],
// CHECK-NEXT: [2,   3,   34,   35,   66,   67,   98,   99,   130,   131,   162,   163,   194,   195,   226,   227],
// CHECK:      [14,   15,   46,   47,   78,   79,   110,   111,   142,   143,   174,   175,   206,   207,   238,   239]]
// CHECK:      sizes = [16, 32]
// CHECK-NEXT: {{\[}}[0,   32,   1,   33,   2,   34,   3,   35,   4,   36,   5,   37,   6,   38,   7,   39,   8,   40,   9,   41,   10,   42,   11,   43,   12,   44,   13,   45,   14,   46,   15,   47],
// CHECK-NEXT: [64,   96,   65,   97,   66,   98,   67,   99,   68,   100,   69,   101,   70,   102,   71,   103,   72,   104,   73,   105,   74,   106,   75,   107,   76,   108,   77,   109,   78,   110,   79,   111],
// CHECK:      [16,   48,   17,   49,   18,   50,   19,   51,   20,   52,   21,   53,   22,   54,   23,   55,   24,   56,   25,   57,   26,   58,   27,   59,   28,   60,   29,   61,   30,   62,   31,   63],
// CHECK:      [464,   496,   465,   497,   466,   498,   467,   499,   468,   500,   469,   501,   470,   502,   471,   503,   472,   504,   473,   505,   474,   506,   475,   507,   476,   508,   477,   509,   478,   510,   479,   511]]

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @k(%a: memref<8x32xf16>, %b: memref<16x32xf16>, %o1: memref<8x16xf16>, %o2: memref<16x32xf16>) kernel attributes {VectorComputeFunctionINTEL} {
      %ta = xegpu.create_nd_tdesc %a[0, 0] : memref<8x32xf16> -> !xegpu.tensor_desc<8x16xf16>
      %va = xegpu.load_nd %ta <{transpose = array<i64: 1, 0>, transpose_bit_width = 32 : i32}> : !xegpu.tensor_desc<8x16xf16> -> vector<8x8x2xf16>
      xegpu.compile_hint
      %tb = xegpu.create_nd_tdesc %b[0, 0] : memref<16x32xf16> -> !xegpu.tensor_desc<16x16xf16, #xegpu.block_tdesc_attr<array_length = 2 : i64>>
      %vb = xegpu.load_nd %tb <{packed}> : !xegpu.tensor_desc<16x16xf16, #xegpu.block_tdesc_attr<array_length = 2 : i64>> -> vector<2x8x16x2xf16>
      %fa = vector.shape_cast %va : vector<8x8x2xf16> to vector<8x16xf16>
      %fb = vector.shape_cast %vb : vector<2x8x16x2xf16> to vector<16x32xf16>
      %t1 = xegpu.create_nd_tdesc %o1[0, 0] : memref<8x16xf16> -> !xegpu.tensor_desc<8x16xf16>
      %t2 = xegpu.create_nd_tdesc %o2[0, 0] : memref<16x32xf16> -> !xegpu.tensor_desc<16x32xf16>
      xegpu.store_nd %fa, %t1 : vector<8x16xf16>, !xegpu.tensor_desc<8x16xf16>
      xegpu.store_nd %fb, %t2 : vector<16x32xf16>, !xegpu.tensor_desc<16x32xf16>
      gpu.return
    }
  }
  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %A = memref.alloc() : memref<8x32xf16>
    %B = memref.alloc() : memref<16x32xf16>
    scf.for %i = %c0 to %c16 step %c1 {
      scf.for %j = %c0 to %c32 step %c1 {
        %r = arith.muli %i, %c32 : index
        %s = arith.addi %r, %j : index
        %n = arith.index_cast %s : index to i32
        %f = arith.sitofp %n : i32 to f16
        memref.store %f, %B[%i, %j] : memref<16x32xf16>
        %lt = arith.cmpi ult, %i, %c8 : index
        scf.if %lt {
          memref.store %f, %A[%i, %j] : memref<8x32xf16>
        }
      }
    }
    %gA = gpu.alloc () : memref<8x32xf16>
    %gB = gpu.alloc () : memref<16x32xf16>
    %g1 = gpu.alloc () : memref<8x16xf16>
    %g2 = gpu.alloc () : memref<16x32xf16>
    gpu.memcpy %gA, %A : memref<8x32xf16>, memref<8x32xf16>
    gpu.memcpy %gB, %B : memref<16x32xf16>, memref<16x32xf16>
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%gA : memref<8x32xf16>, %gB : memref<16x32xf16>, %g1 : memref<8x16xf16>, %g2 : memref<16x32xf16>)
    %O1 = memref.alloc() : memref<8x16xf16>
    %O2 = memref.alloc() : memref<16x32xf16>
    gpu.memcpy %O1, %g1 : memref<8x16xf16>, memref<8x16xf16>
    gpu.memcpy %O2, %g2 : memref<16x32xf16>, memref<16x32xf16>
    %u1 = memref.cast %O1 : memref<8x16xf16> to memref<*xf16>
    %u2 = memref.cast %O2 : memref<16x32xf16> to memref<*xf16>
    call @printMemrefF16(%u1) : (memref<*xf16>) -> ()
    call @printMemrefF16(%u2) : (memref<*xf16>) -> ()
    return
  }
  func.func private @printMemrefF16(memref<*xf16>) attributes {llvm.emit_c_interface}
}
