"""Whole programs (xe-run -e main --entry-point-result=void): the host JIT-compiled by upstream MLIR,
gpu memory ops on the CPU, kernels on the simulator or OpenCL, runner utilities with their exact
output text, stdout order, and the errors (kernel failure, host code the CPU cannot run)."""
import os
import subprocess
import sys
import textwrap

import pytest
from opencl_support import needs_rt

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# a subgroup-level XeTile kernel: c = a + b on one 16x32 f32 block (16 work-items = 1 subgroup)
ADD_KERNEL = """
  gpu.module @k {
    gpu.func @add(%a: memref<16x32xf32>, %b: memref<16x32xf32>, %c: memref<16x32xf32>) kernel {
      %c0 = arith.constant 0 : index
      %ta = xetile.init_tile %a[%c0, %c0] : memref<16x32xf32> -> !xetile.tile<16x32xf32>
      %tb = xetile.init_tile %b[%c0, %c0] : memref<16x32xf32> -> !xetile.tile<16x32xf32>
      %tc = xetile.init_tile %c[%c0, %c0] : memref<16x32xf32> -> !xetile.tile<16x32xf32>
      %va = xetile.load_tile %ta : !xetile.tile<16x32xf32> -> vector<16x32xf32>
      %vb = xetile.load_tile %tb : !xetile.tile<16x32xf32> -> vector<16x32xf32>
      %s = arith.addf %va, %vb : vector<16x32xf32>
      xetile.store_tile %s, %tc : vector<16x32xf32>, !xetile.tile<16x32xf32>
      gpu.return
    }
  }
"""

DECLS = """
  func.func private @printAllcloseF32(memref<*xf32>, memref<*xf32>)
  func.func private @printMemrefF32(memref<*xf32>)
"""

# host: a[i,j] = i, b[i,j] = j, ref = a + b; two device buffers filled by memcpy, one by memset
ADD_MAIN = """
  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %zero = arith.constant 0.0 : f32
    %a = memref.alloc() : memref<16x32xf32>
    %b = memref.alloc() : memref<16x32xf32>
    %ref = memref.alloc() : memref<16x32xf32>
    %out = memref.alloc() : memref<16x32xf32>
    scf.for %i = %c0 to %c16 step %c1 {
      scf.for %j = %c0 to %c32 step %c1 {
        %ii = arith.index_cast %i : index to i32
        %jj = arith.index_cast %j : index to i32
        %fi = arith.sitofp %ii : i32 to f32
        %fj = arith.sitofp %jj : i32 to f32
        memref.store %fi, %a[%i, %j] : memref<16x32xf32>
        memref.store %fj, %b[%i, %j] : memref<16x32xf32>
        %s = arith.addf %fi, %fj : f32
        memref.store %s, %ref[%i, %j] : memref<16x32xf32>
      }
    }
    %t0 = gpu.wait async
    %da, %t1 = gpu.alloc async [%t0] () : memref<16x32xf32>
    %db = gpu.alloc () : memref<16x32xf32>
    %dc = gpu.alloc () : memref<16x32xf32>
    %t2 = gpu.memcpy async [%t1] %da, %a : memref<16x32xf32>, memref<16x32xf32>
    gpu.memcpy %db, %b : memref<16x32xf32>, memref<16x32xf32>
    %t3 = gpu.memset async [%t2] %dc, %zero : memref<16x32xf32>, f32
    gpu.wait [%t3]
    LAUNCHES
    gpu.memcpy %out, %dc : memref<16x32xf32>, memref<16x32xf32>
    gpu.dealloc %da : memref<16x32xf32>
    gpu.dealloc %db : memref<16x32xf32>
    gpu.dealloc %dc : memref<16x32xf32>
    %u = memref.cast %out : memref<16x32xf32> to memref<*xf32>
    %r = memref.cast %ref : memref<16x32xf32> to memref<*xf32>
    call @printAllcloseF32(%u, %r) : (memref<*xf32>, memref<*xf32>) -> ()
    %sv = memref.subview %out[1, 2] [2, 3] [1, 1] : memref<16x32xf32> to memref<2x3xf32, strided<[32, 1], offset: 34>>
    %su = memref.cast %sv : memref<2x3xf32, strided<[32, 1], offset: 34>> to memref<*xf32>
    call @printMemrefF32(%su) : (memref<*xf32>) -> ()
    return
  }
"""

LAUNCH = ("gpu.launch_func @k::@add blocks in (%c1, %c1, %c1) threads in (%c16, %c1, %c1) "
          "args(%da : memref<16x32xf32>, %db : memref<16x32xf32>, %dc : memref<16x32xf32>)")


def program(body: str, *parts: str) -> str:
    return "module attributes {gpu.container_module} {\n" + "".join(parts) + body + "}\n"


def add_program(launches: int = 1) -> str:
    return program(ADD_MAIN.replace("LAUNCHES", "\n    ".join([LAUNCH] * launches)), ADD_KERNEL, DECLS)


def xe_run(tmp_path, text, *args, name="prog.mlir"):
    path = tmp_path / name
    path.write_text(text)
    cmd = [sys.executable, os.path.join(ROOT, "tools", "xe-run.py"), str(path), "-e", "main",
           "--entry-point-result=void", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=600, cwd=ROOT), str(path)


def lines(out: str) -> list[str]:
    return [ln for ln in out.splitlines() if not ln.startswith("Unranked Memref base@")]


SUBVIEW = ["[[3,   4,   5], ", " [4,   5,   6]]"]


def test_xetile_kernel_with_gpu_memory_ops_and_async_tokens(tmp_path):
    p, _ = xe_run(tmp_path, add_program())
    assert p.returncode == 0, p.stderr
    assert lines(p.stdout) == ["[ALLCLOSE: TRUE]"] + SUBVIEW
    assert "rank = 2 offset = 34 sizes = [2, 3] strides = [32, 1]" in p.stdout
    assert "Traceback" not in p.stderr


def test_two_launches_accumulate_on_the_device(tmp_path):
    # launching c = a + b twice gives the same result; a third program launches c = c + b below
    p, _ = xe_run(tmp_path, add_program(2))
    assert p.returncode == 0, p.stderr
    assert lines(p.stdout)[0] == "[ALLCLOSE: TRUE]"


def test_second_launch_sees_the_first_launchs_result(tmp_path):
    text = add_program(1).replace(LAUNCH, LAUNCH + "\n    " + LAUNCH.replace("%da : memref", "%dc : memref"))
    # second launch: c = c + b = (i + j) + j; compare with ref + b computed on the host
    text = text.replace("%s = arith.addf %fi, %fj : f32", "%s0 = arith.addf %fi, %fj : f32\n"
                        "        %s = arith.addf %s0, %fj : f32")
    p, _ = xe_run(tmp_path, text)
    assert p.returncode == 0, p.stderr
    assert lines(p.stdout)[0] == "[ALLCLOSE: TRUE]"


def test_pipeline_on_a_whole_program_and_timing(tmp_path):
    p, _ = xe_run(tmp_path, add_program(), "--pipeline=xe-gemm-to-xegpu", "-O0", "--time")
    assert p.returncode == 0, p.stderr
    assert lines(p.stdout) == ["[ALLCLOSE: TRUE]"] + SUBVIEW
    assert "kernel launch" in p.stderr and "jit" in p.stderr


# a linalg function lowered to a kernel by the pipeline, called from main
LINALG = """
  func.func @gemm(%A: memref<32x32xbf16>, %B: memref<32x32xbf16>, %C: memref<32x32xf32>) {
    linalg.matmul ins(%A, %B : memref<32x32xbf16>, memref<32x32xbf16>) outs(%C : memref<32x32xf32>)
    return
  }
  func.func private @gemmBF16BF16F32(memref<*xbf16>, memref<*xbf16>, memref<*xf32>)
  func.func private @printAllcloseF32(memref<*xf32>, memref<*xf32>)
  func.func private @printMaxErrorF32(memref<*xf32>, memref<*xf32>)
  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %c7 = arith.constant 7 : index
    %zero = arith.constant 0.0 : f32
    %A = memref.alloc() : memref<32x32xbf16>
    %B = memref.alloc() : memref<32x32xbf16>
    %C = memref.alloc() : memref<32x32xf32>
    %R = memref.alloc() : memref<32x32xf32>
    scf.for %i = %c0 to %c32 step %c1 {
      scf.for %j = %c0 to %c32 step %c1 {
        %s = arith.addi %i, %j : index
        %m = arith.remui %s, %c7 : index
        %k = arith.index_cast %m : index to i32
        %f = arith.sitofp %k : i32 to bf16
        memref.store %f, %A[%i, %j] : memref<32x32xbf16>
        memref.store %f, %B[%j, %i] : memref<32x32xbf16>
        memref.store %zero, %C[%i, %j] : memref<32x32xf32>
        memref.store %zero, %R[%i, %j] : memref<32x32xf32>
      }
    }
    call @gemm(%A, %B, %C) : (memref<32x32xbf16>, memref<32x32xbf16>, memref<32x32xf32>) -> ()
    %ua = memref.cast %A : memref<32x32xbf16> to memref<*xbf16>
    %ub = memref.cast %B : memref<32x32xbf16> to memref<*xbf16>
    %uc = memref.cast %C : memref<32x32xf32> to memref<*xf32>
    %ur = memref.cast %R : memref<32x32xf32> to memref<*xf32>
    call @gemmBF16BF16F32(%ua, %ub, %ur) : (memref<*xbf16>, memref<*xbf16>, memref<*xf32>) -> ()
    call @printAllcloseF32(%uc, %ur) : (memref<*xf32>, memref<*xf32>) -> ()
    call @printMaxErrorF32(%uc, %ur) : (memref<*xf32>, memref<*xf32>) -> ()
    return
  }
"""


def test_linalg_function_lowered_to_a_kernel_and_gemm_utility(tmp_path):
    p, _ = xe_run(tmp_path, program(LINALG), "--pipeline=xe-gemm-to-xegpu")
    assert p.returncode == 0, p.stderr
    assert p.stdout.splitlines() == ["[ALLCLOSE: TRUE]", "Max absolute error 0 at idx=0 (i=inf, j=inf)",
                                     "Max relative error 0 at idx=0 (i=inf, j=inf)"]


UTILS = """
  func.func private @printAllcloseF32(memref<*xf32>, memref<*xf32>)
  func.func private @printAllcloseF16(memref<*xf16>, memref<*xf32>)
  func.func private @printAllcloseBF16(memref<*xbf16>, memref<*xf32>)
  func.func private @printAllcloseI32(memref<*xi32>, memref<*xi32>)
  func.func private @allcloseF32(memref<*xf32>, memref<*xf32>) -> i1
  func.func private @printMaxErrorF32(memref<*xf32>, memref<*xf32>)
  func.func private @printMaxErrorF16(memref<*xf16>, memref<*xf16>)
  func.func private @fillResource1DF32(memref<*xf32>, f32)
  func.func private @fillResource1DRandomF16(memref<*xf16>, f32, f32, i1)
  func.func private @printMemrefF32(memref<*xf32>)
  func.func private @printMemrefF16(memref<*xf16>)
  func.func private @printMemrefI32(memref<*xi32>)
  func.func private @printI64(i64)
  func.func private @printNewline()
  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %x = memref.alloc() : memref<4xf32>
    %y = memref.alloc() : memref<4xf32>
    %ux = memref.cast %x : memref<4xf32> to memref<*xf32>
    %uy = memref.cast %y : memref<4xf32> to memref<*xf32>
    %v = arith.constant 1.5 : f32
    %w = arith.constant 1.5005 : f32
    call @fillResource1DF32(%ux, %v) : (memref<*xf32>, f32) -> ()
    call @fillResource1DF32(%uy, %w) : (memref<*xf32>, f32) -> ()
    call @printMemrefF32(%ux) : (memref<*xf32>) -> ()
    call @printAllcloseF32(%ux, %uy) : (memref<*xf32>, memref<*xf32>) -> ()
    %far = arith.constant 2.0 : f32
    memref.store %far, %y[%c2] : memref<4xf32>
    call @printAllcloseF32(%ux, %uy) : (memref<*xf32>, memref<*xf32>) -> ()
    %ok = call @allcloseF32(%ux, %uy) : (memref<*xf32>, memref<*xf32>) -> i1
    %oki = arith.extui %ok : i1 to i64
    call @printI64(%oki) : (i64) -> ()
    call @printNewline() : () -> ()
    call @printMaxErrorF32(%ux, %uy) : (memref<*xf32>, memref<*xf32>) -> ()
    %h = memref.alloc() : memref<8xf16>
    %uh = memref.cast %h : memref<8xf16> to memref<*xf16>
    %lo = arith.constant -3.0 : f32
    %hi = arith.constant 3.0 : f32
    %true = arith.constant true
    call @fillResource1DRandomF16(%uh, %lo, %hi, %true) : (memref<*xf16>, f32, f32, i1) -> ()
    call @printMaxErrorF16(%uh, %uh) : (memref<*xf16>, memref<*xf16>) -> ()
    %i = memref.alloc() : memref<3xi32>
    %j = memref.alloc() : memref<3xi32>
    %seven = arith.constant 7 : i32
    %eight = arith.constant 8 : i32
    scf.for %k = %c0 to %c3 step %c1 {
      memref.store %seven, %i[%k] : memref<3xi32>
      memref.store %seven, %j[%k] : memref<3xi32>
    }
    %ui = memref.cast %i : memref<3xi32> to memref<*xi32>
    %uj = memref.cast %j : memref<3xi32> to memref<*xi32>
    call @printAllcloseI32(%ui, %uj) : (memref<*xi32>, memref<*xi32>) -> ()
    memref.store %eight, %j[%c1] : memref<3xi32>
    call @printAllcloseI32(%ui, %uj) : (memref<*xi32>, memref<*xi32>) -> ()
    call @printMemrefI32(%uj) : (memref<*xi32>) -> ()
    return
  }
"""


def test_runner_utilities_exact_text_and_order(tmp_path):
    p, _ = xe_run(tmp_path, program(UTILS))
    assert p.returncode == 0, p.stderr
    assert lines(p.stdout) == [
        "[1.5,  1.5,  1.5,  1.5]",
        "[ALLCLOSE: TRUE]",
        "[ALLCLOSE: FALSE]",
        "0",
        "Max absolute error 0.5 at idx=2 (i=1.5, j=2)",
        "Max relative error 0.25 at idx=2 (i=1.5, j=2)",
        "Max absolute error 0 at idx=0 (i=inf, j=inf)",
        "Max relative error 0 at idx=0 (i=inf, j=inf)",
        "[ALLCLOSE: TRUE]",
        "[ALLCLOSE: FALSE]",
        "[7,  8,  7]",
    ]


def test_random_fill_gives_integers_in_range(tmp_path):
    text = program(UTILS.replace("call @printMaxErrorF16(%uh, %uh)", "call @printMemrefF16(%uh) : "
                                 "(memref<*xf16>) -> ()\n    call @printMaxErrorF16(%uh, %uh)"))
    p, _ = xe_run(tmp_path, text)
    assert p.returncode == 0, p.stderr
    row = next(ln for ln in lines(p.stdout) if ln.startswith("[") and "ALLCLOSE" not in ln and "1.5" not in ln)
    values = [float(x) for x in row.strip("[]").split(",")]
    assert len(values) == 8 and all(v == int(v) and -3 <= v < 3 for v in values)


def test_kernel_error_exits_1_with_a_located_message(tmp_path):
    # the kernel reads a 16x32 block at row 8 of a 16x32 memref with memref.load beyond its end
    bad = ADD_KERNEL.replace("%s = arith.addf %va, %vb : vector<16x32xf32>",
                             "%c40 = arith.constant 40 : index\n"
                             "      %x = memref.load %a[%c40, %c0] : memref<16x32xf32>\n"
                             "      %s = arith.addf %va, %vb : vector<16x32xf32>")
    text = program(ADD_MAIN.replace("LAUNCHES", "call @printAllcloseF32(%ua0, %ua0) : (memref<*xf32>, memref<*xf32>) "
                                    "-> ()\n    " + LAUNCH).replace(
        "%t0 = gpu.wait async", "%ua0 = memref.cast %a : memref<16x32xf32> to memref<*xf32>\n    "
                                "%t0 = gpu.wait async"), bad, DECLS)
    p, path = xe_run(tmp_path, text)
    assert p.returncode == 1
    assert p.stdout == "[ALLCLOSE: TRUE]\n"                 # output before the failing launch is kept
    assert p.stderr.startswith(f"{path}:")
    assert "error" in p.stderr and "Traceback" not in p.stderr


@pytest.mark.parametrize("host, message", [
    ("%c1 = arith.constant 1 : index\n    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) "
     "threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {\n      gpu.terminator\n    }\n",
     "non-outlined gpu.launch"),
    ("call @mystery() : () -> ()\n", "external function @mystery"),
    ("%t = tensor.empty() : tensor<4xf32>\n    call @use(%t) : (tensor<4xf32>) -> ()\n",
     "'tensor.empty' cannot be compiled for the CPU"),
    ("%m = memref.alloc() : memref<4xf32>\n    %u = memref.cast %m : memref<4xf32> to memref<*xf32>\n"
     "    call @printAllcloseF32(%u) : (memref<*xf32>) -> ()\n", "@printAllcloseF32 takes 2 arguments"),
])
def test_host_code_the_cpu_cannot_run(tmp_path, host, message):
    decl = ("  func.func private @mystery()\n" if "mystery" in host else
            "  func.func private @printAllcloseF32(memref<*xf32>)\n" if "printAllclose" in host else "")
    if "tensor" in host:
        decl = "  func.func private @use(tensor<4xf32>)\n"
    text = program(f"  func.func @main() {{\n    {host}    return\n  }}\n", decl)
    p, path = xe_run(tmp_path, text)
    assert p.returncode == 1
    assert message in p.stderr and p.stderr.startswith(path), p.stderr
    assert "Traceback" not in p.stderr


def test_entry_with_arguments_and_result_flags(tmp_path):
    text = program("  func.func @main(%n: index) {\n    return\n  }\n")
    p, _ = xe_run(tmp_path, text)
    assert p.returncode == 1 and "must take no arguments" in p.stderr
    p, _ = xe_run(tmp_path, add_program(), "--entry-point-result=i32")
    assert p.returncode == 1 and "only 'void'" in p.stderr


def test_shared_libs_runner_utils_used_others_noted(tmp_path):
    p, _ = xe_run(tmp_path, add_program(), "--shared-libs=/x/libimex_runner_utils.so,/x/libmlir_runner_utils.so",
                  "-O3")
    assert p.returncode == 0, p.stderr
    assert lines(p.stdout)[0] == "[ALLCLOSE: TRUE]"
    assert "ignoring /x/libimex_runner_utils.so" in p.stderr and "libmlir_runner_utils" not in p.stderr


def test_vc_kernels_count_threads_as_subgroups(tmp_path):
    # IMEX's convention: threads in (2, 1, 1) of a VectorComputeFunctionINTEL kernel = 2 subgroups;
    # each writes its gpu.thread_id x (and block_dim x) into its own 16x32 block
    kernel = """
  gpu.module @k {
    gpu.func @ids(%c: memref<32x32xf32>) kernel attributes {VectorComputeFunctionINTEL} {
      %c16 = arith.constant 16 : index
      %c0 = arith.constant 0 : index
      %t = gpu.thread_id x
      %n = gpu.block_dim x
      %row = arith.muli %t, %c16 : index
      %tile = xetile.init_tile %c[%row, %c0] : memref<32x32xf32> -> !xetile.tile<16x32xf32>
      %s = arith.addi %t, %n : index
      %i = arith.index_cast %s : index to i32
      %f = arith.sitofp %i : i32 to f32
      %v = vector.broadcast %f : f32 to vector<16x32xf32>
      xetile.store_tile %v, %tile : vector<16x32xf32>, !xetile.tile<16x32xf32>
      gpu.return
    }
  }
"""
    main = """
  func.func private @printMemrefF32(memref<*xf32>)
  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %d = gpu.alloc () : memref<32x32xf32>
    gpu.launch_func @k::@ids blocks in (%c1, %c1, %c1) threads in (%c2, %c1, %c1) args(%d : memref<32x32xf32>)
    %sv = memref.subview %d[15, 0] [2, 1] [1, 1] : memref<32x32xf32> to memref<2xf32, strided<[32], offset: 480>>
    %u = memref.cast %sv : memref<2xf32, strided<[32], offset: 480>> to memref<*xf32>
    call @printMemrefF32(%u) : (memref<*xf32>) -> ()
    return
  }
"""
    p, _ = xe_run(tmp_path, program(main, kernel))
    assert p.returncode == 0, p.stderr
    assert lines(p.stdout) == ["[2,  3]"]


@needs_rt
def test_opencl_backend(tmp_path):
    p, _ = xe_run(tmp_path, add_program(2), "--pipeline=xe-gemm-to-spirv-portable", "--backend=opencl")
    assert p.returncode == 0, p.stderr
    assert lines(p.stdout) == ["[ALLCLOSE: TRUE]"] + SUBVIEW


def test_existing_mode_unchanged(tmp_path):
    path = tmp_path / "f.mlir"
    path.write_text(textwrap.dedent("""\
        func.func @f(%A: memref<4xf32>) {
          return
        }
        """))
    p = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "xe-run.py"), str(path)], capture_output=True,
                       text=True, timeout=300, cwd=ROOT)
    assert p.returncode == 0, p.stderr
    assert "simulated @f" in p.stdout


def test_kernel_with_an_slm_view_and_index_floordivs(tmp_path):
    # the block goes through SLM (memref.view of a byte buffer) and gets floordivs(-7, 2) = -4 added
    kernel = ADD_KERNEL.replace(
        "%s = arith.addf %va, %vb : vector<16x32xf32>\n",
        "%s0 = arith.addf %va, %vb : vector<16x32xf32>\n"
        "      %bytes = memref.alloc() : memref<4096xi8, 3>\n"
        "      %c64 = arith.constant 64 : index\n"
        "      %slm = memref.view %bytes[%c64][] : memref<4096xi8, 3> to memref<16x32xf32, 3>\n"
        "      %ts = xetile.init_tile %slm[%c0, %c0] : memref<16x32xf32, 3> -> "
        "!xetile.tile<16x32xf32, #xetile.tile_attr<memory_space = 3 : i32>>\n"
        "      xetile.store_tile %s0, %ts : vector<16x32xf32>, !xetile.tile<16x32xf32, "
        "#xetile.tile_attr<memory_space = 3 : i32>>\n"
        "      %back = xetile.load_tile %ts : !xetile.tile<16x32xf32, #xetile.tile_attr<memory_space = 3 : i32>> "
        "-> vector<16x32xf32>\n"
        "      %m7 = index.constant -7\n"
        "      %two = index.constant 2\n"
        "      %q = index.floordivs %m7, %two\n"
        "      %qi = arith.index_cast %q : index to i32\n"
        "      %qf = arith.sitofp %qi : i32 to f32\n"
        "      %qv = vector.broadcast %qf : f32 to vector<16x32xf32>\n"
        "      %s = arith.addf %back, %qv : vector<16x32xf32>\n")
    text = program(ADD_MAIN.replace("LAUNCHES", LAUNCH), kernel, DECLS)
    p, _ = xe_run(tmp_path, text)
    assert p.returncode == 0, p.stderr
    assert lines(p.stdout) == ["[ALLCLOSE: FALSE]", "[[-1,   0,   1], ", " [0,   1,   2]]"]


def test_async_token_through_a_loop_is_a_located_error(tmp_path):
    text = program("""
  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %t0 = gpu.wait async
    %r = scf.for %i = %c0 to %c1 step %c1 iter_args(%t = %t0) -> (!gpu.async.token) {
      %d, %t2 = gpu.alloc async [%t] () : memref<4xf32>
      scf.yield %t2 : !gpu.async.token
    }
    gpu.wait [%r]
    return
  }
""")
    p, path = xe_run(tmp_path, text)
    assert p.returncode == 1
    assert p.stderr.startswith(f"{path}:7:") and "scf.for uses an async token of gpu.wait" in p.stderr


# eight work-groups, each adding its own 16x32 block of rows: c = a + b on 128x32
ROWS_KERNEL = ADD_KERNEL.replace("16x32xf32", "128x32xf32").replace(
    "      %c0 = arith.constant 0 : index\n",
    "      %c0 = arith.constant 0 : index\n      %c16 = arith.constant 16 : index\n"
    "      %bx = gpu.block_id x\n      %r = arith.muli %bx, %c16 : index\n").replace(
    "[%c0, %c0] : memref<128x32xf32> -> !xetile.tile<128x32xf32>",
    "[%r, %c0] : memref<128x32xf32> -> !xetile.tile<16x32xf32>").replace(
    "!xetile.tile<128x32xf32> -> vector<128x32xf32>", "!xetile.tile<16x32xf32> -> vector<16x32xf32>").replace(
    "arith.addf %va, %vb : vector<128x32xf32>", "arith.addf %va, %vb : vector<16x32xf32>").replace(
    "xetile.store_tile %s, %tc : vector<128x32xf32>, !xetile.tile<128x32xf32>",
    "xetile.store_tile %s, %tc : vector<16x32xf32>, !xetile.tile<16x32xf32>")


def test_jobs_run_work_groups_in_parallel_with_the_serial_output(tmp_path, capfd, monkeypatch):
    from xedialects.sim import parallel
    from xedialects.tools import xe_run_program

    monkeypatch.setattr(parallel, "MIN_SECONDS", 0.0)       # even this small launch runs in parallel
    monkeypatch.setattr(parallel, "CHUNK_SUBGROUPS", 2)
    log = tmp_path / "modes.txt"            # the host runs in a supervised child: modes come back in a file
    call = parallel.Scheduler.__call__

    def spy(self, *args):
        call(self, *args)
        with open(log, "a") as f:
            f.writelines(m + "\n" for m in self.modes[-1:])

    monkeypatch.setattr(parallel.Scheduler, "__call__", spy)
    text = (add_program().replace("16x32xf32", "128x32xf32").replace("%c16 step", "%c128 step")
            .replace("%c16 = arith.constant 16", "%c16 = arith.constant 16 : index\n    %c8 = arith.constant 8")
            .replace("blocks in (%c1, %c1, %c1)", "blocks in (%c8, %c1, %c1)"))
    text = text.replace("%c8 = arith.constant 8 : index", "%c8 = arith.constant 8 : index\n"
                        "    %c128 = arith.constant 128 : index")
    text = text.replace(ADD_KERNEL.replace("16x32xf32", "128x32xf32"), ROWS_KERNEL)
    path = tmp_path / "rows.mlir"
    path.write_text(text)
    outs = []
    for jobs in ("1", "2"):
        assert xe_run_program.main([str(path), "-e", "main", "--entry-point-result=void", "--jobs", jobs,
                                    "--quiet"]) == 0
        outs.append(lines(capfd.readouterr().out))
    assert outs[0][0] == "[ALLCLOSE: TRUE]"
    assert outs[0] == outs[1]
    modes = log.read_text().splitlines()
    assert modes[0].startswith("serial") and modes[1].startswith("parallel"), modes


# gpu.alloc memory reads 0 (f32 and i32); a host linalg.softmax (no --pipeline); a column
# vector.transfer_read and vector.print as mlir-runner prints them
HOST_VECTOR = """
  func.func private @printMemrefF32(memref<*xf32>)
  func.func private @printAllcloseF32(memref<*xf32>, memref<*xf32>)
  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %pad = arith.constant 0.0 : f32
    %d = gpu.alloc () : memref<2x4xf32>
    %di = gpu.alloc () : memref<4xi32>
    %h = memref.alloc() : memref<2x4xf32>
    %hi = memref.alloc() : memref<4xi32>
    gpu.memcpy %h, %d : memref<2x4xf32>, memref<2x4xf32>
    gpu.memcpy %hi, %di : memref<4xi32>, memref<4xi32>
    %u = memref.cast %h : memref<2x4xf32> to memref<*xf32>
    call @printMemrefF32(%u) : (memref<*xf32>) -> ()
    %x = memref.load %hi[%c1] : memref<4xi32>
    vector.print %x : i32
    scf.for %i = %c0 to %c2 step %c1 {
      scf.for %j = %c0 to %c4 step %c1 {
        %k = arith.index_cast %j : index to i32
        %f = arith.sitofp %k : i32 to f32
        memref.store %f, %h[%i, %j] : memref<2x4xf32>
      }
    }
    %s = memref.alloc() : memref<2x4xf32>
    linalg.softmax dimension(1) ins(%h : memref<2x4xf32>) outs(%s : memref<2x4xf32>)
    %us = memref.cast %s : memref<2x4xf32> to memref<*xf32>
    call @printMemrefF32(%us) : (memref<*xf32>) -> ()
    %col = vector.transfer_read %s[%c0, %c2], %pad : memref<2x4xf32>, vector<2x1xf32>
    vector.print %col : vector<2x1xf32>
    %v = vector.transfer_read %h[%c1, %c0], %pad : memref<2x4xf32>, vector<4xf32>
    vector.print %v : vector<4xf32>
    gpu.dealloc %d : memref<2x4xf32>
    gpu.dealloc %di : memref<4xi32>
    return
  }
"""


def test_zeroed_gpu_alloc_host_softmax_and_vector_print(tmp_path):
    p, _ = xe_run(tmp_path, program(HOST_VECTOR))
    assert p.returncode == 0, p.stderr
    softmax = "[0.0320586,   0.0871443,   0.236883,   0.643914]"
    assert lines(p.stdout) == ["[[0,   0,   0,   0], ", " [0,   0,   0,   0]]", "0",
                               f"[{softmax}, ", f" {softmax}]", "( ( 0.236883 ), ( 0.236883 ) )",
                               "( 0, 1, 2, 3 )"]


def _memory_limit():
    import resource

    limit = 32 << 30                    # 32 GiB of address space: a 400 GB allocation fails on any machine
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


@pytest.mark.parametrize("alloc, message", [
    ("%b = memref.alloc () : memref<100000x1000000xf32>",
     "7:10: error: memref.alloc of memref<100000x1000000xf32> (sizes 100000x1000000) failed: 400000000000 bytes "
     "(372.5 GiB): out of memory"),
    ("%n = arith.constant 100000 : index\n    %b = gpu.alloc (%n) : memref<?x1000000xf32>",
     "8:10: error: gpu.alloc of memref<?x1000000xf32> (400000000000 bytes) failed: not enough memory"),
])
def test_a_refused_allocation_is_an_error_at_the_alloc(tmp_path, alloc, message):
    # issue 30: a 400 GB host memref.alloc the system refuses made printMemrefF32 segfault on its null
    # pointer; now the alloc is checked (guards.py; gpu.alloc: buffers.py) and named
    text = program(f"""
  func.func @main() {{
    {alloc}
    %u = memref.cast %b : {alloc.rsplit(': ', 1)[1]} to memref<*xf32>
    call @printMemrefF32(%u) : (memref<*xf32>) -> ()
    return
  }}
""", DECLS)
    path = tmp_path / "big.mlir"
    path.write_text(text)
    p = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "xe-run.py"), str(path), "-e", "main"],
                       capture_output=True, text=True, timeout=300, cwd=ROOT, preexec_fn=_memory_limit)
    assert p.returncode == 1
    assert p.stderr == f"{path}:{message}\n" and p.stdout == ""


def test_supervisor_reports_crash_timeout_and_the_childs_own_exit():
    # the supervisor itself, in process: a signal, a timeout, a DiagnosticError and os._exit(1) in the child
    import signal

    from xedialects.diagnostics import DiagnosticError
    from xedialects.runtime.host import supervise

    board = supervise.Board()

    def crash():
        board.note("gpu.launch_func @k::@f", 'loc("p.mlir":7:5)')
        os.kill(os.getpid(), signal.SIGSEGV)

    with pytest.raises(DiagnosticError) as e:
        supervise.run(crash, board=board, loc='loc("p.mlir":2:3)', entry="main")
    assert str(e.value) == ("p.mlir:2:3: error: host program crashed: SIGSEGV (segmentation fault: an invalid memory "
                            "access or a stack overflow)\np.mlir:7:5: note: the host program's last runtime call: "
                            "gpu.launch_func @k::@f")

    def endless():
        board.note("running @main, before any runtime call")
        import time
        time.sleep(60)

    with pytest.raises(DiagnosticError, match=r"p.mlir:2:3: error: @main did not finish within 0.3 s \(--timeout\): "
                                              r"stopped$"):
        supervise.run(endless, board=board, loc='loc("p.mlir":2:3)', entry="main", timeout=0.3)

    def located():
        raise DiagnosticError([])

    with pytest.raises(DiagnosticError):
        supervise.run(located, board=board, loc="", entry="main")
    with pytest.raises(supervise.HostExit) as e:
        supervise.run(lambda: os._exit(1), board=board, loc="", entry="main")
    assert e.value.code == 1
    assert supervise.run(lambda: {"launches": 2}, board=board, loc="", entry="main") == {"launches": 2}
