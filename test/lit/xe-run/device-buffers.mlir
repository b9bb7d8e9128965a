// The device runtime tracks every gpu.alloc (size, live or freed): misuse of device memory in the
// host code is a located error naming the op, exit 1 (issue 30) -- never glibc's "double free"
// abort or a kernel reading freed memory. Each RUN line enables one misuse (sed on its marker).
// RUN: xe-run %s -e main --entry-point-result=void | FileCheck %s --check-prefix=OK
// RUN: sed 's|// COPY-SIZES ||' %s | not xe-run - -e main 2>&1 | FileCheck %s --check-prefix=SIZES
// RUN: sed 's|// TWICE ||' %s | not xe-run - -e main 2>&1 | FileCheck %s --check-prefix=TWICE
// RUN: sed 's|// LAUNCH-FREED ||' %s | not xe-run - -e main 2>&1 | FileCheck %s --check-prefix=LAUNCH
// RUN: sed 's|// COPY-FREED ||' %s | not xe-run - -e main 2>&1 | FileCheck %s --check-prefix=COPY
// RUN: sed 's|// HOST-FREE ||' %s | not xe-run - -e main 2>&1 | FileCheck %s --check-prefix=HOST
// RUN: sed 's|// MEMREF-FREE ||' %s | not xe-run - -e main 2>&1 | FileCheck %s --check-prefix=MEMREF

// OK: ( 1, 1, 0, 0 )

// SIZES: <stdin>:41:5: error: gpu.memcpy between buffers of different sizes: the destination has 4 elements, the source 8 (shapes 4 and 8)
// TWICE: <stdin>:45:5: error: gpu.dealloc of a buffer that is already freed (memref<?xf32>, 16 bytes)
// TWICE-NEXT: <stdin>:44:5: note: freed here
// TWICE-NEXT: <stdin>:38:10: note: allocated here
// LAUNCH: <stdin>:46:5: error: gpu.launch_func @k::@ones: argument 0 (memref<?xf32>) is a buffer freed by gpu.dealloc (memref<?xf32>, 16 bytes)
// LAUNCH-NEXT: <stdin>:44:5: note: freed here
// COPY: <stdin>:47:5: error: gpu.memcpy: the source (memref<?xf32>) is a buffer freed by gpu.dealloc
// MEMREF: <stdin>:49:5: error: memref.dealloc of a gpu.alloc buffer: device memory is freed with gpu.dealloc
// HOST: <stdin>:48:5: error: gpu.dealloc of a memref<?xf32> that gpu.alloc did not return

module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @ones(%a: memref<?xf32>) kernel {
      %i = gpu.thread_id x
      %one = arith.constant 1.0 : f32
      memref.store %one, %a[%i] : memref<?xf32>
      gpu.return
    }
  }
  func.func @main() {
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %a = gpu.alloc (%c4) : memref<?xf32>
    %b = gpu.alloc (%c8) : memref<?xf32>
    %h = memref.alloc (%c4) : memref<?xf32>
    // COPY-SIZES gpu.memcpy %a, %b : memref<?xf32>, memref<?xf32>
    gpu.launch_func @k::@ones blocks in (%c1, %c1, %c1) threads in (%c2, %c1, %c1) args(%a : memref<?xf32>)
    gpu.memcpy %h, %a : memref<?xf32>, memref<?xf32>
    gpu.dealloc %a : memref<?xf32>
    // TWICE gpu.dealloc %a : memref<?xf32>
    // LAUNCH-FREED gpu.launch_func @k::@ones blocks in (%c1, %c1, %c1) threads in (%c2, %c1, %c1) args(%a : memref<?xf32>)
    // COPY-FREED gpu.memcpy %h, %a : memref<?xf32>, memref<?xf32>
    // HOST-FREE gpu.dealloc %h : memref<?xf32>
    // MEMREF-FREE memref.dealloc %b : memref<?xf32>
    %c0 = arith.constant 0 : index
    %v = vector.load %h[%c0] : memref<?xf32>, vector<4xf32>
    vector.print %v : vector<4xf32>
    return
  }
}
