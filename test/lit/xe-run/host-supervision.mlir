// The JIT-compiled host of a whole program runs supervised (issue 30): a crash in the user's host
// code is a located error with the last runtime call, exit 1 -- never a dead xe-run; --timeout
// stops an endless program; --host-checks (upstream's -generate-runtime-verification) and the
// user's own cf.assert report failed checks at their op. One RUN line per case (sed on its marker).
// RUN: xe-run %s -e main --entry-point-result=void | FileCheck %s --check-prefix=OK
// RUN: sed 's|// ABORT ||' %s | not xe-run - -e main 2>&1 | FileCheck %s --check-prefix=ABORT
// RUN: sed 's|// RECURSE ||' %s | not xe-run - -e main -O0 2>&1 | FileCheck %s --check-prefix=STACK
// RUN: sed 's|// RECURSE ||' %s | not xe-run - -e main -O2 --timeout 1 2>&1 | FileCheck %s --check-prefix=TIMEOUT
// RUN: sed 's|// FREED ||' %s | not xe-run - -e main 2>&1 | FileCheck %s --check-prefix=FREED
// RUN: sed 's|// OOB ||' %s | not xe-run - -e main --host-checks 2>&1 | FileCheck %s --check-prefix=OOB
// RUN: sed 's|// ASSERT ||' %s | not xe-run - -e main 2>&1 | FileCheck %s --check-prefix=ASSERT

// OK: ( 0, 0, 0, 0 )
// ABORT: <stdin>:33:3: error: host program crashed: SIGABRT (aborted)
// ABORT-NEXT: <stdin>:42:10: note: the host program's last runtime call: gpu.alloc
// STACK: <stdin>:33:3: error: host program crashed: SIGSEGV (segmentation fault: an invalid memory access or a stack overflow)
// TIMEOUT: <stdin>:33:3: error: @main did not finish within 1 s (--timeout): stopped
// FREED: <stdin>:33:3: error: host program crashed: SIGSEGV
// FREED-NEXT: <stdin>:43:5: note: the host program's last runtime call: gpu.dealloc
// OOB: <stdin>:40:5: error: host check failed: memref.store: out-of-bounds access
// ASSERT: <stdin>:41:5: error: cf.assert failed: the user's own check
// ABORT-NOT: Traceback

module attributes {gpu.container_module} {
  func.func private @abort()
  func.func @rec(%n: i64) -> i64 {
    %one = arith.constant 1 : i64
    %m = arith.addi %n, %one : i64
    %r = func.call @rec(%m) : (i64) -> i64
    %s = arith.addi %r, %one : i64
    return %s : i64
  }
  func.func @main() {
    %c0 = arith.constant 0 : index
    %c9 = arith.constant 9 : index
    %zero = arith.constant 0 : i64
    %false = arith.constant false
    %f = arith.constant 1.0 : f32
    %h = memref.alloc () : memref<4xf32>
    // OOB memref.store %f, %h[%c9] : memref<4xf32>
    // ASSERT cf.assert %false, "the user's own check"
    %d = gpu.alloc () : memref<4xf32>
    // FREED gpu.dealloc %d : memref<4xf32>
    // ABORT func.call @abort() : () -> ()
    // RECURSE %r = func.call @rec(%zero) : (i64) -> i64
    // RECURSE vector.print %r : i64
    %v = vector.load %d[%c0] : memref<4xf32>, vector<4xf32>
    vector.print %v : vector<4xf32>
    return
  }
}
