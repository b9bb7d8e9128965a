// Memref sizes in a whole program's host code (issue 30): a type whose size overflows int64 is a
// located error before any type reaches LLVM (upstream asserted in its strided-layout code), and an
// allocation larger than the address space is an error at the alloc (a 400 GB one the system
// refuses too: test_whole_program.py, under a memory limit).
// RUN: xe-run %s -e main --entry-point-result=void | FileCheck %s --check-prefix=OK
// RUN: sed 's|// OVERFLOW-GPU ||' %s | not xe-run - -e main --pipeline=xe-gemm-to-xegpu 2>&1 | FileCheck %s --check-prefix=OVERFLOW-GPU
// RUN: sed 's|// OVERFLOW-HOST ||' %s | not xe-run - -e main 2>&1 | FileCheck %s --check-prefix=OVERFLOW-HOST
// RUN: sed 's|// TOO-BIG ||' %s | not xe-run - -e main 2>&1 | FileCheck %s --check-prefix=TOO-BIG
// RUN: sed 's|// DYNAMIC ||' %s | not xe-run - -e main 2>&1 | FileCheck %s --check-prefix=DYNAMIC

// OK: ( 0, 0 )
// OVERFLOW-GPU: <stdin>:23:10: error: memref<4611686018427387904x8xf32> has 36893488147419103232 elements (147573952589676412928 bytes): more than a 64-bit size can count
// OVERFLOW-HOST: <stdin>:24:10: error: memref<2305843009213693952x2xi64> has 4611686018427387904 elements (36893488147419103232 bytes): more than a 64-bit size can count
// TOO-BIG: <stdin>:25:10: error: memref.alloc of memref<1000000000000000xf32>: 4000000000000000 bytes (3638 TiB) cannot be allocated, more than the 128 TiB address space of the host
// DYNAMIC: <stdin>:26:10: error: memref.alloc of memref<?x8xf32> (sizes 4611686018427387904x8) failed: {{.*}} more than the host's address space
// OK-NOT: error

module attributes {gpu.container_module} {
  func.func private @printMemrefF32(memref<*xf32>)
  func.func @main() {
    %huge = arith.constant 4611686018427387904 : index
    %a = gpu.alloc () : memref<2xf32>
    // OVERFLOW-GPU %b = gpu.alloc () : memref<4611686018427387904x8xf32>
    // OVERFLOW-HOST %b = memref.alloc () : memref<2305843009213693952x2xi64>
    // TOO-BIG %b = memref.alloc () : memref<1000000000000000xf32>
    // DYNAMIC %b = memref.alloc (%huge) : memref<?x8xf32>
    %c0 = arith.constant 0 : index
    %v = vector.load %a[%c0] : memref<2xf32>, vector<2xf32>
    vector.print %v : vector<2xf32>
    return
  }
}
