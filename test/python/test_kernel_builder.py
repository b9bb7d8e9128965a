"""Kernels built from Python (`xedialects.kernel`): one call makes the whole module, `kernel[grid](*arrays)`
simulates it into the arrays; `sim.simulate` runs a gpu.func kernel by name given a grid."""
import ml_dtypes
import numpy as np
import pytest
from mlir import ir
from mlir.dialects import arith, gpu

import xedialects
from xedialects import DiagnosticError
from xedialects.kernel import xe_kernel
from xedialects.sim import simulate
from xedialects.xetile.attributes import TileType
from xedialects.xetile.ops import InitTileOp, LoadTileOp, StoreTileOp, TileMmaOp

M, N, K, BM, BN = 16, 32, 32, 8, 16


def _gemm(**options):
    """C = A x B (bf16 -> f32), one 8x16 C tile per work-group of one subgroup, at work-group ids (x: N, y: M)."""
    @xe_kernel([f"memref<{M}x{K}xbf16>", f"memref<{K}x{N}xbf16>", f"memref<{M}x{N}xf32>"], **options)
    def gemm(A, B, C):
        idx = ir.IndexType.get()
        m = arith.muli(gpu.block_id(gpu.Dimension.y), arith.constant(idx, BM))
        n = arith.muli(gpu.block_id(gpu.Dimension.x), arith.constant(idx, BN))
        a = LoadTileOp.build(tile=InitTileOp.build(source=A, offsets=[m, 0],
                                                   result_types=[TileType.get([BM, K], "bf16")]).result)
        b = LoadTileOp.build(tile=InitTileOp.build(source=B, offsets=[0, n],
                                                   result_types=[TileType.get([K, BN], "bf16")]).result)
        acc = arith.constant(ir.VectorType.get([BM, BN], ir.F32Type.get()), ir.DenseElementsAttr.get_splat(
            ir.VectorType.get([BM, BN], ir.F32Type.get()), ir.FloatAttr.get_f32(0.0)))
        c = TileMmaOp.build(a=a.result, b=b.result, c=acc)
        StoreTileOp.build(value=c.result, tile=InitTileOp.build(source=C, offsets=[m, n],
                                                                result_types=[TileType.get([BM, BN], "f32")]).result)
    return gemm


def _inputs():
    rng = np.random.default_rng(0)
    a = rng.integers(-3, 4, (M, K)).astype(ml_dtypes.bfloat16)
    b = rng.integers(-3, 4, (K, N)).astype(ml_dtypes.bfloat16)
    return a, b, np.zeros((M, N), np.float32), a.astype(np.float32) @ b.astype(np.float32)


def test_kernel_builder_makes_the_whole_module_and_runs_it_on_a_grid():
    k = _gemm(grid=(N // BN, M // BM), arch="bmg")
    text = str(k)
    assert 'gpu.module @kernels attributes {xe.arch = "bmg"}' in text
    assert "gpu.func @gemm(" in text and "kernel attributes {known_block_size = array<i32: 16, 1, 1>}" in text
    assert "xetile.tile_mma" in text and "func.func @main(" in text
    assert "gpu.launch_func  @kernels::@gemm blocks in (%c2, %c2, %c1) threads in (%c16, %c1, %c1)" in text
    assert k.module.operation.verify()
    a, b, c, want = _inputs()
    r = k[(N // BN, M // BM)](a, b, c)                 # Triton-style: the kernel on a grid, C written in place
    assert np.array_equal(c, want) and np.array_equal(r.buffers[2], want)
    c[:] = 0
    k(a, b, c)                                          # the host function launches it on its own grid
    assert np.array_equal(c, want)
    c[:] = 0
    k[(1,)](a, b, c)                                    # one work-group: only C's first tile
    assert np.array_equal(c[:BM, :BN], want[:BM, :BN]) and not c[BM:].any() and not c[:, BN:].any()


def test_simulate_runs_a_kernel_by_name_or_says_how():
    k = _gemm()
    a, b, c, want = _inputs()
    r = simulate(k.module, "gemm", [a, b, c], grid=(2, 2))            # block: the kernel's known_block_size
    assert np.array_equal(r.buffers[2], want)
    with pytest.raises(DiagnosticError, match=r"'@gemm' is a gpu.func kernel: run it directly with simulate\("
                                              r"module, \"gemm\", arrays, grid=\(x, y, z\), block=\(x, y, z\)\)"):
        simulate(k.module, "gemm", [a, b, c])
    with pytest.raises(DiagnosticError, match=r"entry function '@nope' not found; host functions: @main; "
                                              r"kernels \(simulate\(..., grid=, block=\)\): @gemm"):
        simulate(k.module, "nope", [a, b, c])
    with pytest.raises(DiagnosticError, match=r"@main is a host function: grid= and block= launch a gpu.func"):
        simulate(k.module, "main", [a, b, c], grid=(1, 1))
    with pytest.raises(DiagnosticError, match=r"grid must be 1 to 3 positive sizes, got \(0,\)"):
        simulate(k.module, "gemm", [a, b, c], grid=(0,))
    with pytest.raises(ValueError, match=r"grid must be 1 to 3 positive integers \(x, y, z\), got \(1, 2, 3, 4\)"):
        k[(1, 2, 3, 4)]


def test_simulate_takes_the_text_str_prints():
    """simulate() given text reads what str() of a module prints for a user (the readable syntax since
    str() of IR became readable; MLIR's parser alone failed with 'Unable to parse module assembly') as well
    as MLIR's encoding (get_asm()), and runs it as the module itself."""
    k = _gemm()
    text = str(k.module)
    assert "!xetile.tile<8x32xbf16>" in text
    a, b, c, want = _inputs()
    for src in (text, k.module.operation.get_asm()):
        r = simulate(src, "gemm", [a, b, c], grid=(2, 2))
        assert np.array_equal(r.buffers[2], want)


def test_type_text_as_str_prints_it():
    """Types given as text -- a builder's result_types, xe_kernel's argument types -- read what str() of a
    type prints for a user (readable: '!xetile.tile<8x32xbf16>', which MLIR's parser refuses with
    "expected ','") as well as MLIR's encoding."""
    with xedialects.make_context(), ir.Location.unknown():
        t = TileType.get([BM, K], "bf16")
        assert str(t) == "!xetile.tile<8x32xbf16>"

    @xe_kernel([f"memref<{M}x{K}xbf16>", f"memref<{M}x{K}xbf16>"])
    def copy(A, O):
        for src in (A, O):
            tiles = [InitTileOp.build(source=src, offsets=[0, 0], result_types=[text]).result
                     for text in ("!xetile.tile<8x32xbf16>", "!xetile.tile<array<i64: 8, 32>, bf16, unit>")]
            assert tiles[0].type == tiles[1].type and str(tiles[0].type) == "!xetile.tile<8x32xbf16>"
            if src is A:
                v = LoadTileOp.build(tile=tiles[0]).result
            else:
                StoreTileOp.build(value=v, tile=tiles[1])
    a = np.arange(M * K).reshape(M, K).astype(ml_dtypes.bfloat16)
    o = np.zeros_like(a)
    copy[(1,)](a, o)
    assert np.array_equal(o[:BM], a[:BM]) and not o[BM:].any()

    @xe_kernel([f"memref<{M}x{K}xbf16>", "!xetile.tile<8x32xbf16>"])
    def takes_a_tile(A, T):
        pass
    assert "gpu.func @takes_a_tile(%arg0: memref<16x32xbf16>, %arg1: !xetile.tile<8x32xbf16>) kernel" in str(takes_a_tile)


def test_kernel_builder_uses_the_enclosing_context():
    with xedialects.make_context() as ctx:
        k = _gemm()
        assert k.module.context is ctx


def test_readme_kernel_example_runs_as_written(capsys):
    """The README's Python kernel example (build, print, verify, simulate; under 20 lines) runs as written and
    computes C = A x B."""
    import pathlib
    import re

    readme = (pathlib.Path(__file__).resolve().parents[2] / "README.md").read_text()
    blocks = [b for b in re.findall(r"```python\n(.*?)```", readme, re.S) if "from xedialects.kernel import" in b]
    assert len(blocks) == 1
    code = blocks[0]
    assert len([line for line in code.splitlines() if line.strip()]) < 20
    env = {}
    exec(compile(code, "README.md", "exec"), env)
    A, B, C = env["A"], env["B"], env["C"]
    assert C.any() and np.array_equal(C, A.astype(np.float32) @ B.astype(np.float32))
    out = capsys.readouterr().out
    assert "xetile.tile_mma" in out and "gpu.launch_func  @kernels::@gemm" in out


def test_kernel_builder_takes_a_work_group_level_body():
    """A work-group XeTile body (tiles with wg_map: 2x2 subgroups of 16x16 each) on 64 work-items runs at
    work-group level: each work-group copies its 32x32 block."""
    wgm = {"sg_layout": [2, 2], "sg_data": [16, 16]}

    @xe_kernel(["memref<64x64xf32>", "memref<64x64xf32>"], block=(64, 1, 1))
    def copy(src, dst):
        idx = ir.IndexType.get()
        m = arith.muli(gpu.block_id(gpu.Dimension.y), arith.constant(idx, 32))
        n = arith.muli(gpu.block_id(gpu.Dimension.x), arith.constant(idx, 32))
        tile = TileType.get([32, 32], "f32", wg_map=wgm)
        v = LoadTileOp.build(tile=InitTileOp.build(source=src, offsets=[m, n], result_types=[tile]))
        StoreTileOp.build(value=v, tile=InitTileOp.build(source=dst, offsets=[m, n], result_types=[tile]))

    a = np.arange(64 * 64, dtype=np.float32).reshape(64, 64)
    b = np.zeros_like(a)
    r = copy[(2, 2)](a, b, trace=True)
    assert np.array_equal(a, b) and r.trace.launches[0].level == "workgroup"
