"""Raw pointer arguments of XeVM-level kernels from the host (xe-run -e main): a memref's aligned
pointer, or a pointer into the middle of a gpu.alloc buffer, reaches the kernel as the simulator's
address of that byte (on OpenCL: its buffer and the byte offset); a pointer into host memory is a
located error at the launch."""
import os
import subprocess
import sys

import pytest

from opencl_support import needs_rt

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# lane level: copy the 8x16 i32 block at row 0 of the source pointer to the destination pointer
KERNEL = """
  gpu.module @k {
    gpu.func @copy(%src: !llvm.ptr<1>, %dst: !llvm.ptr<1>) kernel {
      %w = arith.constant 64 : i32
      %h = arith.constant 8 : i32
      %z = arith.constant 0 : i32
      %v = xevm.blockload2d %src, %w, %h, %w, %z, %z <{elem_size_in_bits=32 : i32, tile_width=16 : i32, tile_height=8 : i32, v_blocks=1 : i32, transpose=false, pack_register=false}> : (!llvm.ptr<1>, i32, i32, i32, i32, i32) -> vector<8xi32>
      xevm.blockstore2d %dst, %w, %h, %w, %z, %z, %v <{elem_size_in_bits=32 : i32, tile_width=16 : i32, tile_height=8 : i32}> : (!llvm.ptr<1>, i32, i32, i32, i32, i32, vector<8xi32>)
      gpu.return
    }
  }
"""

MAIN = """
  func.func @ptr(%m: memref<16x16xi32>, %bytes: i64) -> !llvm.ptr<1> {
    %i = memref.extract_aligned_pointer_as_index %m : memref<16x16xi32> -> index
    %j = arith.index_cast %i : index to i64
    %k = arith.addi %j, %bytes : i64
    %p = llvm.inttoptr %k : i64 to !llvm.ptr
    %q = llvm.addrspacecast %p : !llvm.ptr to !llvm.ptr<1>
    return %q : !llvm.ptr<1>
  }
  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %z = arith.constant 0 : i64
    %off = arith.constant OFFSET : i64
    %S = memref.alloc() : memref<16x16xi32>
    scf.for %i = %c0 to %c16 step %c1 {
      scf.for %j = %c0 to %c16 step %c1 {
        %a = arith.muli %i, %c16 : index
        %b = arith.addi %a, %j : index
        %n = arith.index_cast %b : index to i32
        memref.store %n, %S[%i, %j] : memref<16x16xi32>
      }
    }
    %gS = gpu.alloc () : memref<16x16xi32>
    %gD = gpu.alloc () : memref<16x16xi32>
    gpu.memcpy %gS, %S : memref<16x16xi32>, memref<16x16xi32>
    %ps = call @ptr(SOURCE, %off) : (memref<16x16xi32>, i64) -> !llvm.ptr<1>
    %pd = call @ptr(%gD, %z) : (memref<16x16xi32>, i64) -> !llvm.ptr<1>
    gpu.launch_func @k::@copy blocks in (%c1, %c1, %c1) threads in (%c16, %c1, %c1) args(%ps : !llvm.ptr<1>, %pd : !llvm.ptr<1>)
    %D = memref.alloc() : memref<16x16xi32>
    gpu.memcpy %D, %gD : memref<16x16xi32>, memref<16x16xi32>
    %row0 = memref.subview %D[0, 0] [1, 16] [1, 1] : memref<16x16xi32> to memref<16xi32, strided<[1]>>
    %u = memref.cast %row0 : memref<16xi32, strided<[1]>> to memref<*xi32>
    call @printMemrefI32(%u) : (memref<*xi32>) -> ()
    return
  }
  func.func private @printMemrefI32(memref<*xi32>) attributes {llvm.emit_c_interface}
"""


def _run(tmp_path, source: str, offset: int, *options: str):
    text = ("module attributes {gpu.container_module} {" + KERNEL +
            MAIN.replace("SOURCE", source).replace("OFFSET", str(offset)) + "}\n")
    path = tmp_path / "ptr.mlir"
    path.write_text(text)
    cmd = [sys.executable, os.path.join(ROOT, "tools", "xe-run.py"), str(path), "-e", "main",
           "--entry-point-result=void", *options]
    line = text[:text.index("gpu.launch_func")].count("\n") + 1
    return subprocess.run(cmd, capture_output=True, text=True, timeout=600, cwd=ROOT), f"{path}:{line}:5"


def test_pointer_into_the_middle_of_a_device_buffer(tmp_path):
    p, _ = _run(tmp_path, "%gS", 4 * 16 * 2)       # row 2 of the source
    assert p.returncode == 0, p.stderr
    assert "[32,  33,  34,  35,  36,  37,  38,  39,  40,  41,  42,  43,  44,  45,  46,  47]" in p.stdout, p.stdout


@needs_rt
@pytest.mark.parametrize("offset,row", [(4 * 16 * 2, 32), (4, 1)], ids=["row_2", "4_bytes_in"])
def test_pointer_into_a_device_buffer_on_opencl(tmp_path, offset, row):
    """On OpenCL (a pvc binary, emulated builtins) the pointer is its buffer, passed whole, and the byte
    offset (metadata offset_of): 128 bytes in, the 2D block builtins read the row; 4 bytes in, the
    surface base is not 64-byte aligned, so the run-time surface test takes the per-lane loads."""
    p, _ = _run(tmp_path, "%gS", offset, "--backend=opencl", "--pipeline=convert-xegpu-to-spirv")
    assert p.returncode == 0, p.stderr
    want = "[" + ",  ".join(str(row + i) for i in range(16)) + "]"
    assert want in p.stdout, p.stdout


def test_pointer_into_host_memory_is_a_located_error(tmp_path):
    p, where = _run(tmp_path, "%S", 0)
    assert p.returncode == 1, (p.returncode, p.stderr)
    assert "Traceback" not in p.stderr
    assert f"{where}: error: gpu.launch_func @k::@copy: argument 0 (!llvm.ptr<1>)" in p.stderr, p.stderr
    assert "does not point into a buffer of gpu.alloc" in p.stderr
