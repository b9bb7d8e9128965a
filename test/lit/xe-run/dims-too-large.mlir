// xe-run --dims asking for more memory than the machine has: an error naming the argument, its shape
// and the bytes it would need, before anything is allocated (was "internal error: MemoryError");
// a size past int64 is an error too. Issue 30 defect 9.
// RUN: not xe-run %s --dims M=1099511627776,K=1048576,A=MxK,B=Kx16,C=Mx16 2>&1 | FileCheck %s
// RUN: not xe-run %s --dims M=100000000000000000000,K=8,A=MxK,B=Kx16,C=Mx16 2>&1 | FileCheck %s --check-prefix=BIG
// CHECK: xe-run: error: --dims: argument %A (memref<?x?xbf16>) of shape 1099511627776x1048576 would need 2 EiB (1152921504606846976 elements of 2 bytes); the arguments together need {{.*}}, more than this machine's memory ({{.*}}): give smaller sizes
// CHECK-NOT: internal error
// BIG: xe-run: error: --dims M=100000000000000000000: a size is at most 2^63 - 1
func.func @gemm(%A: memref<?x?xbf16>, %B: memref<?x16xbf16>, %C: memref<?x16xf32>) {
  linalg.matmul ins(%A, %B : memref<?x?xbf16>, memref<?x16xbf16>) outs(%C : memref<?x16xf32>)
  return
}
