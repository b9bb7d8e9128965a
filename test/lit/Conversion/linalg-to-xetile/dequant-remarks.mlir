// Dequantizing producers of a matmul's B that are not fused get a remark saying why and keep the old
// lowering: the dequantization as its own element-wise kernel writing the f16 B, then the GEMM kernel (or,
// for maps the element-wise kernels do not take either, the generic stays on the host with their remark).
// RUN: xe-opt %s --split-input-file --convert-linalg-to-xetile --verify-diagnostics
// RUN: xe-opt %s --split-input-file --convert-linalg-to-xetile 2>/dev/null | FileCheck %s

#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
#t = affine_map<(d0, d1) -> (d1, d0)>

// The dequantized B is also read after the matmul: it is not a temporary only the matmul reads.
// CHECK-LABEL: func.func @b_read_again(
// CHECK-COUNT-2: gpu.launch_func
func.func @b_read_again(%A: memref<32x64xf16>, %W: memref<64x64xi8>, %S: memref<64xf16>, %C: memref<32x64xf32>,
                        %D: memref<64x64xf16>) {
  %Bd = memref.alloc() : memref<64x64xf16>
  // expected-remark @+1 {{dequantization not fused into the GEMM: the dequantized B is also used by 'memref.copy'}}
  linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%W, %S : memref<64x64xi8>, memref<64xf16>) outs(%Bd : memref<64x64xf16>) {
  ^bb0(%w: i8, %s: f16, %o: f16):
    %f = arith.sitofp %w : i8 to f16
    %r = arith.mulf %f, %s : f16
    linalg.yield %r : f16
  }
  linalg.matmul ins(%A, %Bd : memref<32x64xf16>, memref<64x64xf16>) outs(%C : memref<32x64xf32>)
  memref.copy %Bd, %D : memref<64x64xf16> to memref<64x64xf16>
  return
}

// -----
// Unsigned weights (arith.uitofp) are not a fused form.
#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @unsigned(
// CHECK-COUNT-2: gpu.launch_func
func.func @unsigned(%A: memref<32x64xf16>, %W: memref<64x64xi8>, %S: memref<64xf16>, %C: memref<32x64xf32>) {
  %Bd = memref.alloc() : memref<64x64xf16>
  // expected-remark @+1 {{dequantization not fused into the GEMM: 'arith.uitofp' in the dequantization body}}
  linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%W, %S : memref<64x64xi8>, memref<64xf16>) outs(%Bd : memref<64x64xf16>) {
  ^bb0(%w: i8, %s: f16, %o: f16):
    %f = arith.uitofp %w : i8 to f16
    %r = arith.mulf %f, %s : f16
    linalg.yield %r : f16
  }
  linalg.matmul ins(%A, %Bd : memref<32x64xf16>, memref<64x64xf16>) outs(%C : memref<32x64xf32>)
  memref.dealloc %Bd : memref<64x64xf16>
  return
}

// -----
// Weights stored N x K (read transposed by the generic): the scale map is per row of the weights.
#t = affine_map<(d0, d1) -> (d1, d0)>
#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @transposed_weights(
// CHECK:       linalg.generic
// CHECK:       gpu.launch_func @transposed_weights_kernels::@transposed_weights_0
func.func @transposed_weights(%A: memref<32x64xf16>, %W: memref<64x64xi8>, %S: memref<64xf16>, %C: memref<32x64xf32>) {
  %Bd = memref.alloc() : memref<64x64xf16>
  // expected-remark @+2 {{dequantization not fused into the GEMM: input 0 (memref<64x64xi8>) has the map (d1, d0)}}
  // expected-remark @+1 {{not lowered to XeTile: input 0 of 'linalg.generic' has the map (d1, d0)}}
  linalg.generic {indexing_maps = [#t, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%W, %S : memref<64x64xi8>, memref<64xf16>) outs(%Bd : memref<64x64xf16>) {
  ^bb0(%w: i8, %s: f16, %o: f16):
    %f = arith.sitofp %w : i8 to f16
    %r = arith.mulf %f, %s : f16
    linalg.yield %r : f16
  }
  linalg.matmul ins(%A, %Bd : memref<32x64xf16>, memref<64x64xf16>) outs(%C : memref<32x64xf32>)
  return
}

// -----
// A group that is not a multiple of DPAS K = 16.
#id = affine_map<(d0, d1) -> (d0, d1)>
#g8 = affine_map<(d0, d1) -> (d0 floordiv 8, d1)>
// CHECK-LABEL: func.func @group_of_8(
// CHECK:       linalg.generic
// CHECK:       gpu.launch_func @group_of_8_kernels::@group_of_8_0
func.func @group_of_8(%A: memref<32x64xf16>, %W: memref<64x64xi8>, %S: memref<8x64xf16>, %C: memref<32x64xf32>) {
  %Bd = memref.alloc() : memref<64x64xf16>
  // expected-remark @+2 {{not lowered to XeTile: input 1 of 'linalg.generic' has the map (d0 floordiv 8, d1)}}
  // expected-remark @+1 {{dequantization not fused into the GEMM: input 1 (memref<8x64xf16>): group 8 is not a multiple of 16}}
  linalg.generic {indexing_maps = [#id, #g8, #id], iterator_types = ["parallel", "parallel"]}
      ins(%W, %S : memref<64x64xi8>, memref<8x64xf16>) outs(%Bd : memref<64x64xf16>) {
  ^bb0(%w: i8, %s: f16, %o: f16):
    %f = arith.sitofp %w : i8 to f16
    %r = arith.mulf %f, %s : f16
    linalg.yield %r : f16
  }
  linalg.matmul ins(%A, %Bd : memref<32x64xf16>, memref<64x64xf16>) outs(%C : memref<32x64xf32>)
  return
}

// -----
// i4 weights whose body computes in i4 (a zero point subtracted in i4, which wraps at 4 bits): the kernel holds
// the weights sign-extended in i8, only conversions from i4 are fused; the generic stays on the host with the
// element-wise lowering's remark, the GEMM is lowered.
#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @int4_arith(
// CHECK:       linalg.generic
// CHECK:       gpu.launch_func @int4_arith_kernels::@int4_arith_0
func.func @int4_arith(%A: memref<32x64xf16>, %W: memref<64x64xi4>, %S: memref<64xf16>, %C: memref<32x64xf32>) {
  %Bd = memref.alloc() : memref<64x64xf16>
  %z = arith.constant 1 : i4
  // expected-remark @+2 {{dequantization not fused into the GEMM: 'arith.subi' computes in i4}}
  // expected-remark @+1 {{not lowered to XeTile: input 0 of 'linalg.generic' has element type i4}}
  linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%W, %S : memref<64x64xi4>, memref<64xf16>) outs(%Bd : memref<64x64xf16>) {
  ^bb0(%w: i4, %s: f16, %o: f16):
    %d = arith.subi %w, %z : i4
    %f = arith.sitofp %d : i4 to f16
    %r = arith.mulf %f, %s : f16
    linalg.yield %r : f16
  }
  linalg.matmul ins(%A, %Bd : memref<32x64xf16>, memref<64x64xf16>) outs(%C : memref<32x64xf32>)
  return
}
