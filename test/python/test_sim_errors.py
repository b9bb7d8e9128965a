"""Simulator: errors are reported as located diagnostics, never as hangs or silent corruption."""
import numpy as np
import pytest

from xedialects.diagnostics import DiagnosticError
from xedialects.sim import simulate
from xedialects.sim.testing import (create_nd_tdesc, parse_module, single_kernel_module, tdesc_type,
                                    xegpu_gemm_module)


def sim(args_sig, body, arrays, grid=(1, 1, 1), block=(16, 1, 1), **kw):
    text = single_kernel_module(args_sig, body, grid=grid, block=block)
    return simulate(parse_module(text), "main", arrays, **kw), text


def _line_of(text, needle):
    for i, ln in enumerate(text.splitlines(), 1):
        if needle in ln:
            return i
    raise AssertionError(needle)


def test_memref_out_of_bounds_in_kernel_is_located():
    body = """
    %sg = gpu.subgroup_id : index
    %c2 = arith.constant 2 : index
    %i = arith.muli %sg, %c2 : index
    %v = memref.load %X[%i] : memref<6xf32>
    memref.store %v, %X[%sg] : memref<6xf32>
    """
    text = single_kernel_module([("X", "memref<6xf32>")], body, block=(64, 1, 1))
    with pytest.raises(DiagnosticError) as ei:
        simulate(parse_module(text), "main", [np.zeros(6, np.float32)])
    d = ei.value.diagnostics[0]
    assert d.severity == "error"
    assert d.line == _line_of(text, "memref.load")
    assert "out-of-bounds" in d.message and "subgroup 3" in d.message and "[6]" in d.message


def test_loop_cap():
    body = """
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %n = arith.constant 100000 : index
    scf.for %i = %c0 to %n step %c1 {
      %x = arith.addi %i, %c1 : index
    }
    """
    with pytest.raises(DiagnosticError, match="loop cap"):
        sim([], body, [], loop_cap=1000)


def test_divergent_barrier_is_reported():
    body = """
    %sg = gpu.subgroup_id : index
    %c1 = arith.constant 1 : index
    %p = arith.cmpi ult, %sg, %c1 : index
    scf.if %p {
      gpu.barrier
    }
    """
    with pytest.raises(DiagnosticError, match="deadlock"):
        sim([], body, [], block=(32, 1, 1))


def test_slm_overflow():
    body = """
    %a = memref.alloc() : memref<40000xf32, 3>
    """
    with pytest.raises(DiagnosticError, match=r"shared local memory overflow: 160000 bytes per work-group "
                                              r"allocated \(limit 131072: pvc SLM per work-group\)"):
        sim([], body, [])


def _kernel_recording_arch(arch, body):
    """A one-kernel module whose gpu.module also holds a spirv.module recording `arch` as
    convert-xegpu-to-spirv{arch=...} does (xe.kernel_abi.__arch__)."""
    text = single_kernel_module([], body)
    spv = (f'spirv.module Physical64 OpenCL attributes {{xe.kernel_abi = {{__arch__ = "{arch}", '
           '__target__ = "pvc"}} {\n    }\n')
    return text.replace("gpu.module @kernels {\n", "gpu.module @kernels {\n    " + spv, 1)


def test_slm_limit_comes_from_the_modules_arch(monkeypatch):
    # 100000 B of SLM per work-group: within pvc's and bmg's 128 KiB, beyond an architecture with
    # 64 KiB; the module's recorded arch picks the table, the error is at the allocation
    from dataclasses import replace

    from xedialects import arch

    monkeypatch.setitem(arch.ARCHS, "small", replace(arch.get_arch("pvc"), name="small",
                                                     slm_bytes_per_workgroup=64 * 1024))
    body = """
    %a = memref.alloc() : memref<25000xf32, 3>
    """
    for name in ("pvc", "bmg"):
        simulate(parse_module(_kernel_recording_arch(name, body)), "main", [])
    simulate(parse_module(single_kernel_module([], body)), "main", [])     # no arch recorded: pvc
    text = _kernel_recording_arch("small", body)
    with pytest.raises(DiagnosticError) as ei:
        simulate(parse_module(text), "main", [])
    d = ei.value.diagnostics[0]
    assert d.line == _line_of(text, "memref.alloc")
    assert d.message.endswith("100000 bytes per work-group allocated (limit 65536: small SLM per work-group)")
    # an explicit arch or slm_limit overrides the recorded arch
    simulate(parse_module(text), "main", [], arch="bmg")
    with pytest.raises(DiagnosticError, match=r"\(limit 1024: slm_limit\)"):
        simulate(parse_module(single_kernel_module([], body)), "main", [], slm_limit=1024)
    with pytest.raises(DiagnosticError, match="simulator: unknown architecture 'xe9'"):
        simulate(parse_module(text), "main", [], arch="xe9")


def test_unsupported_op():
    body = """
    "test.unknown_op"() : () -> ()
    """
    with pytest.raises(DiagnosticError, match="unsupported operation 'test.unknown_op'"):
        sim([], body, [])


def test_descriptor_beyond_allocation():
    d = tdesc_type((8, 16), "f32")
    body = f"""
    %c0 = arith.constant 0 : index
    %c64 = arith.constant 64 : index
    %p = memref.extract_aligned_pointer_as_index %X : memref<32x16xf32> -> index
    %pi = arith.index_cast %p : index to i64
    {create_nd_tdesc("%d", "%pi", "i64", ["%c0", "%c0"], d, shape=[64, 16], strides=[16, 1])}
    {create_nd_tdesc("%e", "%pi", "i64", ["%c64", "%c0"], d, shape=[128, 16], strides=[16, 1])}
    %v = "xegpu.load_nd"(%d) {{mode = "vc"}} : ({d}) -> vector<8x16xf32>
    %w = "xegpu.load_nd"(%e) {{mode = "vc"}} : ({d}) -> vector<8x16xf32>
    """
    text = single_kernel_module([("X", "memref<32x16xf32>")], body)
    with pytest.raises(DiagnosticError, match="outside the allocated buffer") as ei:
        simulate(parse_module(text), "main", [np.zeros((32, 16), np.float32)])
    # the first descriptor overstates the base but only touches valid rows: no error there
    assert ei.value.diagnostics[0].line == _line_of(text, "%w = ")


def test_non_uniform_launch_arguments_and_entry_errors():
    text = xegpu_gemm_module(32, 32, 32, wg_tile=(32, 32), sg_layout=(2, 1))
    with pytest.raises(DiagnosticError, match="not found"):
        simulate(parse_module(text), "nope", [])
    with pytest.raises(DiagnosticError, match="does not match"):
        simulate(parse_module(text), "main", [np.zeros((32, 16), np.float32)] * 3)


def test_trace_summary():
    text = xegpu_gemm_module(32, 32, 32, wg_tile=(32, 32), sg_layout=(2, 1))
    import ml_dtypes

    a = np.ones((32, 32), ml_dtypes.bfloat16)
    r = simulate(parse_module(text), "main", [a, a, np.zeros((32, 32), np.float32)], trace=True)
    s = r.trace.summary()
    assert "dpas: 16" in s and "xegpu.load_nd" in s
    assert np.all(r.buffers[2] == 32)


def test_tile_load_from_an_empty_memref_reads_padding():
    """A tile on a 0-row surface is entirely outside it: the load gives the padding (was numpy's
    IndexError text as a 'simulator failure')."""
    import xedialects

    text = """module attributes {gpu.container_module} {
gpu.module @k {
  gpu.func @f(%A: memref<0x16xf32>, %B: memref<8x16xf32>) kernel attributes {known_block_size = array<i32: 16, 1, 1>} {
    %c0 = arith.constant 0 : index
    %t = xetile.init_tile %A[%c0, %c0] : memref<0x16xf32> -> !xetile.tile<8x16xf32>
    %v = xetile.load_tile %t : !xetile.tile<8x16xf32> -> vector<8x16xf32>
    %o = xetile.init_tile %B[%c0, %c0] : memref<8x16xf32> -> !xetile.tile<8x16xf32>
    xetile.store_tile %v, %o : vector<8x16xf32>, !xetile.tile<8x16xf32>
    gpu.return
  }
}
func.func @main(%A: memref<0x16xf32>, %B: memref<8x16xf32>) {
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  gpu.launch_func @k::@f blocks in (%c1, %c1, %c1) threads in (%c16, %c1, %c1) args(%A : memref<0x16xf32>, %B : memref<8x16xf32>)
  return
}
}"""
    out = simulate(xedialects.parse(text, "empty.mlir"), "main",
                   [np.zeros((0, 16), np.float32), np.ones((8, 16), np.float32)])
    assert np.array_equal(out.buffers[1], np.zeros((8, 16), np.float32))
