"""A whole program end to end: an N x N x N bf16 GEMM (default 1024) written as `main` that fills A
and B on the host, copies them to the device, calls a linalg.matmul function that `--pipeline`
lowers to a kernel, computes the f32 reference in a host triple loop and checks the result with
printAllcloseF32 / printMaxErrorF32. Prints the program's output and the time of every phase.

    python bench/whole_program_gemm.py [--size 1024] [--pipeline xe-gemm-to-xegpu] [--backend sim|opencl] [-O 2]
                                       [--host-checks] [--unsupervised]

`--host-checks` adds upstream's runtime verification to the host code (as `xe-run --host-checks`);
`--unsupervised` runs the host in this process instead of a forked child (to measure supervision).
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

PROGRAM = """
module attributes {gpu.container_module} {
  func.func @gemm(%A: memref<NxNxbf16>, %B: memref<NxNxbf16>, %C: memref<NxNxf32>) {
    linalg.matmul ins(%A, %B : memref<NxNxbf16>, memref<NxNxbf16>) outs(%C : memref<NxNxf32>)
    return
  }
  func.func private @printAllcloseF32(memref<*xf32>, memref<*xf32>)
  func.func private @printMaxErrorF32(memref<*xf32>, memref<*xf32>)
  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %n = arith.constant N : index
    %c5 = arith.constant 5 : index
    %c7 = arith.constant 7 : index
    %zero = arith.constant 0.0 : f32
    %A = memref.alloc() : memref<NxNxbf16>
    %B = memref.alloc() : memref<NxNxbf16>
    %C = memref.alloc() : memref<NxNxf32>
    %R = memref.alloc() : memref<NxNxf32>
    // A[i, k] = (i + 2k) mod 7 - 3, B[k, j] = (3k + j) mod 5 - 2: small integers, exact in bf16
    scf.for %i = %c0 to %n step %c1 {
      scf.for %j = %c0 to %n step %c1 {
        %j2 = arith.addi %j, %j : index
        %s = arith.addi %i, %j2 : index
        %m = arith.remui %s, %c7 : index
        %mi = arith.index_cast %m : index to i32
        %c3i = arith.constant 3 : i32
        %v = arith.subi %mi, %c3i : i32
        %f = arith.sitofp %v : i32 to bf16
        memref.store %f, %A[%i, %j] : memref<NxNxbf16>
        %i3 = arith.muli %i, %c5 : index
        %t = arith.addi %i3, %j : index
        %tm = arith.remui %t, %c5 : index
        %ti = arith.index_cast %tm : index to i32
        %c2i = arith.constant 2 : i32
        %w = arith.subi %ti, %c2i : i32
        %g = arith.sitofp %w : i32 to bf16
        memref.store %g, %B[%i, %j] : memref<NxNxbf16>
        memref.store %zero, %C[%i, %j] : memref<NxNxf32>
        memref.store %zero, %R[%i, %j] : memref<NxNxf32>
      }
    }
    %dA = gpu.alloc () : memref<NxNxbf16>
    %dB = gpu.alloc () : memref<NxNxbf16>
    %dC = gpu.alloc () : memref<NxNxf32>
    gpu.memcpy %dA, %A : memref<NxNxbf16>, memref<NxNxbf16>
    gpu.memcpy %dB, %B : memref<NxNxbf16>, memref<NxNxbf16>
    gpu.memcpy %dC, %C : memref<NxNxf32>, memref<NxNxf32>
    call @gemm(%dA, %dB, %dC) : (memref<NxNxbf16>, memref<NxNxbf16>, memref<NxNxf32>) -> ()
    gpu.memcpy %C, %dC : memref<NxNxf32>, memref<NxNxf32>
    gpu.dealloc %dA : memref<NxNxbf16>
    gpu.dealloc %dB : memref<NxNxbf16>
    gpu.dealloc %dC : memref<NxNxf32>
    // the CPU reference: R[i, j] += A[i, k] * B[k, j] in f32
    scf.for %i = %c0 to %n step %c1 {
      scf.for %k = %c0 to %n step %c1 {
        %a = memref.load %A[%i, %k] : memref<NxNxbf16>
        %af = arith.extf %a : bf16 to f32
        scf.for %j = %c0 to %n step %c1 {
          %b = memref.load %B[%k, %j] : memref<NxNxbf16>
          %bf = arith.extf %b : bf16 to f32
          %r = memref.load %R[%i, %j] : memref<NxNxf32>
          %p = arith.mulf %af, %bf : f32
          %q = arith.addf %r, %p : f32
          memref.store %q, %R[%i, %j] : memref<NxNxf32>
        }
      }
    }
    %uc = memref.cast %C : memref<NxNxf32> to memref<*xf32>
    %ur = memref.cast %R : memref<NxNxf32> to memref<*xf32>
    call @printAllcloseF32(%uc, %ur) : (memref<*xf32>, memref<*xf32>) -> ()
    call @printMaxErrorF32(%uc, %ur) : (memref<*xf32>, memref<*xf32>) -> ()
    return
  }
}
"""


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size", type=int, default=1024, help="N of the N x N x N GEMM (default 1024)")
    ap.add_argument("--pipeline", default="xe-gemm-to-xegpu", help="pipeline lowering @gemm to a kernel")
    ap.add_argument("--backend", default="sim", choices=["sim", "opencl"])
    ap.add_argument("-O", dest="opt", type=int, default=2, choices=range(4), help="host JIT optimization level")
    ap.add_argument("--host-checks", action="store_true", help="runtime verification of the host's memref accesses")
    ap.add_argument("--unsupervised", action="store_true", help="run the host in this process (no fork)")
    args = ap.parse_args(argv)

    from xedialects import parse
    from xedialects.passes import run as run_pipeline
    from xedialects.runtime.host import run_program

    n = args.size
    text = PROGRAM.replace("NxNx", f"{n}x{n}x").replace("constant N :", f"constant {n} :")
    phases = {}
    t0 = time.perf_counter()
    module = parse(text, "whole_program_gemm.mlir")
    phases["parse"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    pipeline = args.pipeline if "(" in args.pipeline else f"builtin.module({args.pipeline})"
    run_pipeline(module, pipeline)
    phases["pipeline"] = time.perf_counter() - t0
    program = None
    if args.backend == "opencl":
        from xedialects.runtime.opencl import program_for_module

        t0 = time.perf_counter()
        program = program_for_module(module)
        phases["opencl build"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    stats = run_program(module, "main", program=program, opt_level=args.opt, host_checks=args.host_checks,
                        supervised=not args.unsupervised)
    whole = time.perf_counter() - t0
    run = stats.seconds.pop("run")
    kernels = stats.seconds.pop("kernels")
    phases.update(stats.seconds)
    phases[f"kernels ({args.backend}, {stats.launches} launch{'es' if stats.launches != 1 else ''})"] = kernels
    phases["host run (fills, copies, reference, checks)"] = run - kernels
    phases["supervision (fork, wait) and the rest of run_program"] = whole - sum(stats.seconds.values()) - run
    total = sum(phases.values())
    mode = (", host checks" if args.host_checks else "") + (", unsupervised" if args.unsupervised else "")
    print(f"{n}x{n}x{n} bf16 GEMM whole program, -O{args.opt}, pipeline {args.pipeline}{mode}:")
    for k, v in phases.items():
        print(f"  {k:<48} {v:8.3f} s")
    print(f"  {'total':<48} {total:8.3f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
