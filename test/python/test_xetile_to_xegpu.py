"""convert-xetile-to-xegpu and xegpu-simt-distribute, numerically: a hand-written blocked subgroup
XeTile GEMM (pipeline stage 3: inner_blocks, tile_unpack/tile_pack re-blocking, prefetch tiles,
a K loop carrying the accumulator) is converted to VC-mode XeGPU and then distributed to SIMT,
and each form is simulated (`xedialects.sim`) and compared with numpy. Unaligned shapes whose
surfaces the 2D block messages cannot address run through the scattered fallback. A kernel with a
wrong offset must fail the comparison."""
import ml_dtypes
import numpy as np
import pytest

import xedialects
from xedialects.passes import run as run_pipeline
from xedialects.sim import simulate
from xedialects.sim.reference import compare
from xedialects.xegpu.attributes import TensorDescType

BF16 = ml_dtypes.bfloat16


def _tile(shape, elt, ib=None):
    attr = f", #xetile.tile_attr<inner_blocks = [{ib[0]}, {ib[1]}]>" if ib else ""
    return f"!xetile.tile<{shape[0]}x{shape[1]}x{elt}{attr}>"


def _v(shape, elt):
    return "vector<" + "x".join(map(str, shape)) + f"x{elt}>"


MMA_K = {"bf16": 16, "f16": 16, "f32": 8, "i8": 32}
ACC = {"bf16": "f32", "f16": "f32", "f32": "f32", "i8": "i32"}


def stage3_gemm(M, N, K, elt="bf16", wg=(256, 256), sg_layout=(8, 4), k_step=32, prefetch=True,
                bug_offset=0, epilogue=False, dynamic=False, transpose_b=False):
    """Blocked subgroup XeTile GEMM C += A x B (pipeline.md stage 3). Each subgroup owns a
    (wg / sg_layout) C tile; A loads in [32, 16] blocks ([32, 32] for i8) re-blocked to DPAS
    [8, K] blocks, B loads in [32, 16] blocks re-blocked to [K, 16], C in [8, 16] blocks.
    A cooperative prefetch tile 8 x k_step advances with the loop. `bug_offset` shifts the A
    tile's column (a wrong kernel); `dynamic` passes memref<?x?> operands (shape and strides to
    init_tile); `transpose_b` reads B from an N x K matrix through memref.transpose and an
    order = [0, 1] tile; `epilogue` scales the result by 2 before the store."""
    WM, WN = wg
    LM, LN = sg_layout
    SM, SN = WM // LM, WN // LN
    nsg = LM * LN
    ks = k_step
    kd = MMA_K[elt]
    acc = ACC[elt]
    grid = (-(-N // WN), -(-M // WM))
    al = (32, 32) if elt == "i8" else (32, 16)
    bl = (32, 16) if not transpose_b else (16, 16)
    order = ", order = [0, 1]" if transpose_b else ""
    ta = _tile((SM, ks), elt, al)
    tb = f"!xetile.tile<{ks}x{SN}x{elt}, #xetile.tile_attr<inner_blocks = [{bl[0]}, {bl[1]}]{order}>>"
    tc = _tile((SM, SN), acc, (8, 16))
    tpa = _tile((8, ks), elt, (8, ks) if ks * (1 if elt == "i8" else 2 if elt != "f32" else 4) <= 64 else (8, 16))
    va = _v((SM // al[0], ks // al[1], al[0], al[1]), elt)
    va2 = _v((SM, ks), elt)
    va3 = _v((SM // 8, ks // kd, 8, kd), elt)
    vb = _v((ks // bl[0], SN // bl[1], bl[0], bl[1]), elt)
    vb2 = _v((ks, SN), elt)
    vb3 = _v((ks // kd, SN // 16, kd, 16), elt)
    vc = _v((SM // 8, SN // 16, 8, 16), acc)
    d = "?" if dynamic else None
    mA = f"memref<{d or M}x{d or K}x{elt}>"
    mB = f"memref<{d or K}x{d or N}x{elt}>" if not transpose_b else f"memref<{d or N}x{d or K}x{elt}>"
    mC = f"memref<{d or M}x{d or N}x{acc}>"
    kend = -(-K // ks) * ks
    if dynamic:
        shp_a, shp_c = ", [%M, %K], [%K, %c1]", ", [%M, %N], [%N, %c1]"
        shp_b = ", [%K, %N], [%N, %c1]" if not transpose_b else ", [%K, %N], [%c1, %K]"
        dims = """
      %c1 = arith.constant 1 : index
      %M = memref.dim %A, %c0 : MA
      %K = memref.dim %A, %c1 : MA
      %N = memref.dim %C, %c1 : MC""".replace("MA", mA).replace("MC", mC)
        kloop = """
      %ksm1 = arith.constant KSM1 : index
      %kp = arith.addi %K, %ksm1 : index
      %ksteps = arith.divui %kp, %cks : index
      %cK = arith.muli %ksteps, %cks : index""".replace("KSM1", str(ks - 1))
    else:
        shp_a = shp_b = shp_c = ""
        dims = ""
        kloop = f"\n      %cK = arith.constant {kend} : index"
    if transpose_b:
        tB = f"memref<{d or K}x{d or N}x{elt}, strided<[1, {d or K}]>>"
        bview = f"\n      %Bt = memref.transpose %B (d0, d1) -> (d1, d0) : {mB} to {tB}"
        bsrc = "%Bt"
    else:
        tB, bview, bsrc = mB, "", "%B"
    body = f"""
      %c0 = arith.constant 0 : index
      %cks = arith.constant {ks} : index{dims}{kloop}
      %cWM = arith.constant {WM} : index
      %cWN = arith.constant {WN} : index
      %cSM = arith.constant {SM} : index
      %cSN = arith.constant {SN} : index
      %cLN = arith.constant {LN} : index
      %c8 = arith.constant 8 : index
      %cbug = arith.constant {bug_offset} : index
      %bx = gpu.block_id x
      %by = gpu.block_id y
      %sg = gpu.subgroup_id : index
      %sgm = arith.divui %sg, %cLN : index
      %sgn = arith.remui %sg, %cLN : index
      %wm = arith.muli %by, %cWM : index
      %wn = arith.muli %bx, %cWN : index
      %om = arith.muli %sgm, %cSM : index
      %on = arith.muli %sgn, %cSN : index
      %m0 = arith.addi %wm, %om : index
      %n0 = arith.addi %wn, %on : index
      %pm = arith.muli %sg, %c8 : index
      %pam = arith.addi %wm, %pm : index{bview}
      %a0 = xetile.init_tile %A[%m0, %cbug]{shp_a} : {mA} -> {ta}
      %b0 = xetile.init_tile {bsrc}[%c0, %n0]{shp_b} : {tB} -> {tb}
      %ct = xetile.init_tile %C[%m0, %n0]{shp_c} : {mC} -> {tc}
      %pa0 = xetile.init_tile %A[%pam, %c0]{shp_a} : {mA} -> {tpa}
      %c = xetile.load_tile %ct : {tc} -> {vc}
      %r:4 = scf.for %k = %c0 to %cK step %cks iter_args(%acc = %c, %at = %a0, %bt = %b0, %pat = %pa0) -> ({vc}, {ta}, {tb}, {tpa}) {{
        %va = xetile.load_tile %at : {ta} -> {va}
        %va2 = xetile.tile_unpack %va {{inner_blocks = [{al[0]}, {al[1]}]}} : {va} -> {va2}
        %va3 = xetile.tile_pack %va2 {{inner_blocks = [8, {kd}]}} : {va2} -> {va3}
        %vb = xetile.load_tile %bt : {tb} -> {vb}
        %vb2 = xetile.tile_unpack %vb {{inner_blocks = [{bl[0]}, {bl[1]}]}} : {vb} -> {vb2}
        %vb3 = xetile.tile_pack %vb2 {{inner_blocks = [{kd}, 16]}} : {vb2} -> {vb3}
        {"xetile.prefetch_tile %pat : " + tpa if prefetch else ""}
        %acc2 = xetile.tile_mma %va3, %vb3, %acc : {va3}, {vb3}, {vc} -> {vc}
        %at2 = xetile.update_tile_offset %at, [%c0, %cks] : {ta}
        %bt2 = xetile.update_tile_offset %bt, [%cks, %c0] : {tb}
        %pat2 = xetile.update_tile_offset %pat, [%c0, %cks] : {tpa}
        scf.yield %acc2, %at2, %bt2, %pat2 : {vc}, {ta}, {tb}, {tpa}
      }}"""
    if epilogue:
        two = "2.0" if acc == "f32" else "2"
        mul = "arith.mulf" if acc == "f32" else "arith.muli"
        body += f"""
      %two = arith.constant dense<{two}> : {vc}
      %res = {mul} %r#0, %two : {vc}
      xetile.store_tile %res, %ct : {vc}, {tc}"""
    else:
        body += f"""
      xetile.store_tile %r#0, %ct : {vc}, {tc}"""
    text = "module attributes {gpu.container_module} {\n  gpu.module @kernels {\n"
    text += (f"    gpu.func @gemm(%A: {mA}, %B: {mB}, %C: {mC}) kernel "
             f"attributes {{known_block_size = array<i32: {nsg * 16}, 1, 1>}} {{{body}\n      gpu.return\n    }}\n  }}\n")
    text += (f"  func.func @main(%A: {mA}, %B: {mB}, %C: {mC}) {{\n"
             f"    %gx = arith.constant {grid[0]} : index\n    %gy = arith.constant {grid[1]} : index\n"
             f"    %one = arith.constant 1 : index\n    %nt = arith.constant {nsg * 16} : index\n"
             f"    gpu.launch_func @kernels::@gemm blocks in (%gx, %gy, %one) threads in (%nt, %one, %one) "
             f"args(%A : {mA}, %B : {mB}, %C : {mC})\n    return\n  }}\n}}\n")
    return text


def inputs(M, N, K, elt="bf16", seed=0, transpose_b=False):
    rng = np.random.default_rng(seed)
    if elt == "i8":
        A = rng.integers(-8, 8, (M, K)).astype(np.int8)
        B = rng.integers(-8, 8, (K, N)).astype(np.int8)
        C = rng.integers(-100, 100, (M, N)).astype(np.int32)
    else:
        dt = {"bf16": BF16, "f16": np.float16, "f32": np.float32}[elt]
        A = rng.standard_normal((M, K)).astype(np.float32).astype(dt)
        B = rng.standard_normal((K, N)).astype(np.float32).astype(dt)
        C = rng.standard_normal((M, N)).astype(np.float32)
    return A, B, C


def lower(text, pipeline, name="gemm.mlir"):
    m = xedialects.parse(text, name)
    if pipeline:
        run_pipeline(m, f"builtin.module({pipeline})")
    return m


def check(module, M, N, K, elt="bf16", seed=0, scale=1, trace=False, transpose_b=False):
    A, B, C = inputs(M, N, K, elt, seed)
    Bin = np.ascontiguousarray(B.T) if transpose_b else B
    res = simulate(module, "main", [A, Bin, C], trace=trace)
    if elt == "i8":
        ref = scale * (C + A.astype(np.int32) @ B.astype(np.int32))
        out = res.buffers[2]
        return bool(np.array_equal(out, ref)), (int(np.abs(out - ref).max()),), res
    if elt == "f32":
        # the DPAS rounds f32 operands to tf32
        from xedialects.sim.numerics import round_tf32 as _round_tf32
        ref = scale * (C + _round_tf32(A).astype(np.float64) @ _round_tf32(B).astype(np.float64))
    else:
        ref = scale * (C + A.astype(np.float32) @ B.astype(np.float32))
    ok, mx, rel = compare(res.buffers[2], ref, elt, ACC[elt], k=K)
    return ok, (mx, rel), res


VC = "convert-xetile-to-xegpu"
SIMT = "convert-xetile-to-xegpu, xegpu-simt-distribute"


def _run(text, pipeline, M, N, K, **kw):
    m = lower(text, pipeline)
    ok, info, res = check(m, M, N, K, trace=True, **kw)
    return m, ok, info, res


@pytest.mark.parametrize("elt", ["bf16", "f16"])
def test_gemm_256_vc_and_simt(elt):
    M = N = K = 256
    text = stage3_gemm(M, N, K, elt=elt)
    _, ok, info, vc = _run(text, VC, M, N, K, elt=elt)
    assert ok, info
    tr = vc.trace
    # 32 subgroups x 8 K steps x (4x4 C blocks x 2 K blocks) DPAS; per step 2 A + 4 B block loads
    assert tr.dpas == 32 * 8 * 32
    assert tr.block_loads == 32 * (16 + 8 * 6)
    assert tr.block_stores == 32 * 16
    assert tr.prefetches == 32 * 8
    assert tr.gathers == 0 and tr.scatters == 0
    _, ok, info, simt = _run(text, SIMT, M, N, K, elt=elt)
    assert ok, info
    assert simt.trace.launches[0].level == "simt"
    assert simt.trace.dpas == tr.dpas
    # the 32x16 A loads are split into the four 8x16 DPAS A blocks
    assert simt.trace.block_loads == 32 * (16 + 8 * 12)
    # same instructions on the same data: identical results
    np.testing.assert_array_equal(simt.buffers[2], vc.buffers[2])


def test_unaligned_gemm_uses_scattered_fallback():
    M, N, K = 100, 70, 50
    text = stage3_gemm(M, N, K)
    m, ok, info, res = _run(text, VC, M, N, K)
    assert ok, info
    tr = res.trace
    # pitches of 100 B, 140 B, 280 B are not 16-byte aligned: no 2D block message may address them
    assert tr.block_loads == 0 and tr.block_stores == 0
    assert tr.gathers > 0 and tr.scatters > 0
    text_ir = xedialects.print_ir(m)
    assert "create_nd_tdesc" not in text_ir and "xegpu.create_tdesc" in text_ir


def test_unaligned_gemm_simt_scattered():
    # the scattered fallback distributes too: per-work-item create_tdesc / load_gather / store_scatter
    # (test_simt_scattered.py has the details); same messages, same result as VC mode
    M, N, K = 100, 70, 50
    text = stage3_gemm(M, N, K)
    m, ok, info, simt = _run(text, SIMT, M, N, K)
    assert ok, info
    assert simt.trace.launches[0].level == "simt"
    _, ok, info, vc = _run(text, VC, M, N, K)
    assert ok, info
    assert (simt.trace.gathers, simt.trace.scatters) == (vc.trace.gathers, vc.trace.scatters)
    np.testing.assert_array_equal(simt.buffers[2], vc.buffers[2])
    text_ir = xedialects.print_ir(m)
    assert "mode = vc" not in text_ir and "xegpu.load_gather" in text_ir


@pytest.mark.parametrize("pipeline", [VC, SIMT])
def test_wrong_offset_fails(pipeline):
    M = N = K = 64
    text = stage3_gemm(M, N, K, wg=(64, 64), sg_layout=(2, 2), bug_offset=16)
    _, ok, info, _ = _run(text, pipeline, M, N, K)
    assert not ok, info


@pytest.mark.parametrize("kw", [
    dict(elt="f32"), dict(elt="i8"), dict(dynamic=True), dict(epilogue=True),
    dict(transpose_b=True), dict(elt="f32", transpose_b=True), dict(elt="f16", dynamic=True, epilogue=True),
], ids=lambda kw: "-".join(f"{k}={v}" for k, v in kw.items()))
@pytest.mark.parametrize("pipeline", [VC, SIMT], ids=["vc", "simt"])
def test_gemm_variants(kw, pipeline):
    M, N, K = 64, 64, 96
    elt = kw.get("elt", "bf16")
    text = stage3_gemm(M, N, K, wg=(64, 64), sg_layout=(2, 2), **kw)
    if pipeline == SIMT and kw.get("transpose_b") and elt != "f32":
        # the 32-bit transpose of 16-bit B (VNNI result): each work-item reads the memory rows that
        # become its B columns (sg_map wi_layout [16, 1], wi_data [1, 2] on the memory block)
        ir_text = xedialects.print_ir(lower(text, pipeline))
        assert "vnni_axis = 0, transpose = [1, 0]} : !xegpu.tensor_desc<16x16xbf16, #xegpu.tdesc_attr<sg_map = " \
               "<wi_layout = [16, 1], wi_data = [1, 2]>>> -> vector<8x1x2xbf16>" in ir_text
    _, ok, info, _ = _run(text, pipeline, M, N, K, elt=elt, scale=2 if kw.get("epilogue") else 1,
                          transpose_b=kw.get("transpose_b", False))
    assert ok, info


def test_unaligned_dynamic_shapes_block_path():
    # dynamic shapes: the surface rules are a runtime contract, so 2D blocks are used and clip
    M, N, K = 72, 80, 40
    text = stage3_gemm(M, N, K, wg=(64, 64), sg_layout=(2, 2), dynamic=True)
    for pipeline in (VC, SIMT):
        _, ok, info, res = _run(text, pipeline, M, N, K)
        assert ok, info
        assert res.trace.block_loads > 0


def test_kernel_report_api():
    from xedialects.passes.analysis.kernel_report import format_report, kernel_report

    m = lower(stage3_gemm(256, 256, 256), VC)
    (r,) = kernel_report(m)
    assert r["kernel"] == "gemm" and r["mode"] == "vc"
    ps = r["per_k_step"]
    assert ps["dpas"] == 32 and ps["block_loads"] == 6 and ps["block_prefetches"] == 1
    assert ps["bytes_loaded"] == 2 * 32 * 16 * 2 + 4 * 32 * 16 * 2
    assert ps["bytes_per_dpas"] == ps["bytes_loaded"] / 32
    assert 128 < r["est_grfs"] <= 256 and r["grf_limit"] == 256
    assert "needs large-GRF mode" in format_report([r])
    s = lower(stage3_gemm(256, 256, 256), SIMT)
    (rs,) = kernel_report(s)
    assert rs["mode"] == "simt" and rs["per_k_step"]["dpas"] == 32


def test_pipeline_registered():
    from xedialects.passes import lookup
    from xedialects.passes.registry import PipelineInfo

    info = lookup("xe-gemm-to-xegpu")
    assert isinstance(info, PipelineInfo)
    for name in ("convert-linalg-to-xetile", "xe-bufferize", "xetile-wg-to-sg",
                 "convert-xetile-to-xegpu", "canonicalize", "cse"):
        assert name in info.pipeline


def _matmul_text(M, N, K):
    return f"""
func.func @main(%A: memref<{M}x{K}xbf16>, %B: memref<{K}x{N}xbf16>, %C: memref<{M}x{N}xf32>) {{
  linalg.matmul ins(%A, %B : memref<{M}x{K}xbf16>, memref<{K}x{N}xbf16>) outs(%C : memref<{M}x{N}xf32>)
  return
}}"""


@pytest.mark.parametrize("shape", [(256, 256, 256), (100, 70, 50)], ids=["256", "unaligned"])
def test_linalg_to_xegpu_without_blocking(shape):
    # subgroup XeTile (stage 2, no inner_blocks) converts directly: tiles take the largest legal
    # hardware blocks, tile_mma DPAS-sized blocks
    M, N, K = shape
    stages = "convert-linalg-to-xetile, xetile-wg-to-sg, convert-xetile-to-xegpu, canonicalize, cse"
    _, ok, info, res = _run(_matmul_text(M, N, K), stages, M, N, K)
    assert ok, info
    assert res.trace.dpas > 0
    if shape == (256, 256, 256):
        _, ok, info, res = _run(_matmul_text(M, N, K), stages + ", xegpu-simt-distribute", M, N, K)
        assert ok, info
        assert res.trace.launches[0].level == "simt"


def test_linalg_to_simt_through_named_pipeline():
    M = N = K = 256
    text = _matmul_text(M, N, K)
    for pipeline in ("xe-gemm-to-xegpu", "xe-gemm-to-xegpu, xegpu-simt-distribute"):
        _, ok, info, res = _run(text, pipeline, M, N, K)
        assert ok, info
        assert res.trace.dpas > 0


def pipelined_gemm():
    """64x64x64 bf16, 2x2 subgroups of 32x32: the A and B tiles of the next K step are loaded
    while the current ones are multiplied (loaded vectors carried through the loop)."""
    ta = _tile((32, 32), "bf16", (32, 16))
    tc = _tile((32, 32), "f32", (8, 16))
    va = _v((1, 2, 32, 16), "bf16")
    vc = _v((4, 2, 8, 16), "f32")
    mm = """
    %va2 = xetile.tile_unpack LA {inner_blocks = [32, 16]} : VA -> vector<32x32xbf16>
    %va3 = xetile.tile_pack %va2 {inner_blocks = [8, 16]} : vector<32x32xbf16> -> vector<4x2x8x16xbf16>
    %vb2 = xetile.tile_unpack LB {inner_blocks = [32, 16]} : VA -> vector<32x32xbf16>
    %vb3 = xetile.tile_pack %vb2 {inner_blocks = [16, 16]} : vector<32x32xbf16> -> vector<2x2x16x16xbf16>
    RES = xetile.tile_mma %va3, %vb3, ACC : vector<4x2x8x16xbf16>, vector<2x2x16x16xbf16>, VC -> VC"""

    def mma(la, lb, acc, res):
        return mm.replace("LA", la).replace("LB", lb).replace("ACC", acc).replace("RES", res) \
                 .replace("VA", va).replace("VC", vc)
    body = f"""
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %sg = gpu.subgroup_id : index
  %sgm = arith.divui %sg, %c2 : index
  %sgn = arith.remui %sg, %c2 : index
  %m0 = arith.muli %sgm, %c32 : index
  %n0 = arith.muli %sgn, %c32 : index
  %a0 = xetile.init_tile %A[%m0, %c0] : memref<64x64xbf16> -> {ta}
  %b0 = xetile.init_tile %B[%c0, %n0] : memref<64x64xbf16> -> {ta}
  %ct = xetile.init_tile %C[%m0, %n0] : memref<64x64xf32> -> {tc}
  %c = xetile.load_tile %ct : {tc} -> {vc}
  %la0 = xetile.load_tile %a0 : {ta} -> {va}
  %lb0 = xetile.load_tile %b0 : {ta} -> {va}
  %a1 = xetile.update_tile_offset %a0, [%c0, %c32] : {ta}
  %b1 = xetile.update_tile_offset %b0, [%c32, %c0] : {ta}
  %r:5 = scf.for %k = %c0 to %c32 step %c32 iter_args(%acc = %c, %at = %a1, %bt = %b1, %la = %la0, %lb = %lb0) -> ({vc}, {ta}, {ta}, {va}, {va}) {{
    {mma("%la", "%lb", "%acc", "%acc2")}
    %nla = xetile.load_tile %at : {ta} -> {va}
    %nlb = xetile.load_tile %bt : {ta} -> {va}
    %at2 = xetile.update_tile_offset %at, [%c0, %c32] : {ta}
    %bt2 = xetile.update_tile_offset %bt, [%c32, %c0] : {ta}
    scf.yield %acc2, %at2, %bt2, %nla, %nlb : {vc}, {ta}, {ta}, {va}, {va}
  }}
  {mma("%r#3", "%r#4", "%r#0", "%fin")}
  xetile.store_tile %fin, %ct : {vc}, {tc}
  gpu.return"""
    mt = "memref<64x64xbf16>"
    return ("module attributes {gpu.container_module} {\n  gpu.module @kernels {\n"
            f"    gpu.func @gemm(%A: {mt}, %B: {mt}, %C: memref<64x64xf32>) kernel {{{body}\n    }}\n  }}\n"
            f"  func.func @main(%A: {mt}, %B: {mt}, %C: memref<64x64xf32>) {{\n"
            "    %one = arith.constant 1 : index\n    %nt = arith.constant 64 : index\n"
            "    gpu.launch_func @kernels::@gemm blocks in (%one, %one, %one) threads in (%nt, %one, %one) "
            f"args(%A : {mt}, %B : {mt}, %C : memref<64x64xf32>)\n    return\n  }}\n}}\n")


@pytest.mark.parametrize("pipeline", [VC, SIMT], ids=["vc", "simt"])
def test_software_pipelined_gemm(pipeline):
    # loaded A/B blocks carried through the loop (VNNI B included); in SIMT the carried A fragments
    # use the packed A order, as they do not reach the DPAS straight from a load
    m, ok, info, _ = _run(pipelined_gemm(), pipeline, 64, 64, 64)
    assert ok, info
    if pipeline == SIMT:
        assert "vector<4x2xbf16>" in xedialects.print_ir(m)


@pytest.mark.parametrize("elt", ["f32", "bf16"])
@pytest.mark.parametrize("pipeline", ["", VC, SIMT], ids=["xetile", "vc", "simt"])
def test_transposed_load_tile(elt, pipeline):
    # load_tile {transpose = [1, 0]}: a transposing block load for 32-bit data, a load plus an
    # in-register transpose for 16-bit data; in SIMT each work-item reads a row of the block
    from xedialects.sim.testing import single_kernel_module

    dt = {"f32": np.float32, "bf16": BF16}[elt]
    body = f"""
%c0 = arith.constant 0 : index
%c2 = arith.constant 2 : index
%t = xetile.init_tile %X[%c2, %c0] : memref<40x48x{elt}> -> !xetile.tile<16x8x{elt}>
%v = xetile.load_tile %t {{transpose = array<i64: 1, 0>}} : !xetile.tile<16x8x{elt}> -> vector<8x16x{elt}>
%o = xetile.init_tile %Y[%c0, %c0] : memref<8x32x{elt}> -> !xetile.tile<8x16x{elt}>
xetile.store_tile %v, %o : vector<8x16x{elt}>, !xetile.tile<8x16x{elt}>
"""
    text = single_kernel_module([("X", f"memref<40x48x{elt}>"), ("Y", f"memref<8x32x{elt}>")], body)
    X = np.arange(40 * 48).reshape(40, 48).astype(np.float32).astype(dt)
    m = lower(text, pipeline)
    r = simulate(m, "main", [X, np.zeros((8, 32), dt)])
    np.testing.assert_array_equal(r.buffers[1][:, :16].astype(np.float32), X[2:18, 0:8].T.astype(np.float32))
    if pipeline == VC:
        ir_text = xedialects.print_ir(m)
        assert ("transpose = [1, 0]" in ir_text) == (elt == "f32")
        assert ("vector.transpose" in ir_text) == (elt == "bf16")


def _illegal_blocks(module):
    """Every 2D block message of a converted module checked against the architecture table."""
    from xedialects.arch import get_arch
    from xedialects.core.typeinfo import our_type
    from xedialects.lowering.xetile_to_xegpu.tile_plans import memref_view
    from xedialects.passes.utils.ir_walk import walk as _walk_ops

    a = get_arch("pvc")
    bad = []
    op = module.operation
    for o in _walk_ops(op):
        n = o.name
        if n == "xegpu.create_nd_tdesc":
            mi = memref_view(o.operands[0])
            if mi is not None and all(isinstance(x, int) for x in mi[0]) and mi[2] is not None:
                shape, elt, strides, _ = mi
                eb = np.dtype(np.float32).itemsize if elt in ("f32", "i32") else 1 if elt == "i8" else 2
                ok, why = a.legal_surface(64, strides[0] * eb, shape[1] * eb, shape[0])
                if not ok:
                    bad.append(f"{n}: {why}")
        if n not in ("xegpu.load_nd", "xegpu.store_nd", "xegpu.prefetch_nd"):
            continue
        td = o.operands[1] if n == "xegpu.store_nd" else o.operands[0]
        tv = our_type(td)
        (h, w), elt = tv.shape, tv.element_type
        if n == "xegpu.load_nd":
            vnni = "vnni_axis" in o.attributes
            tr = "transpose" in o.attributes
            if tr and vnni and elt not in ("f32", "i32"):
                bits = 16 if elt in ("bf16", "f16") else 8
                ok, why = a.is_legal_block_load(h, w * bits // 32, 4, transpose=True)
            else:
                ok, why = a.is_legal_block_load(h, w, elt, transpose=tr, vnni=vnni and elt not in ("f32", "i32"))
        elif n == "xegpu.store_nd":
            ok, why = a.is_legal_block_store(h, w, elt)
        else:
            ok, why = a.is_legal_block_prefetch(h, w, elt)
        if not ok:
            bad.append(f"{n} {h}x{w}x{elt}: {why}")
    return bad


@pytest.mark.parametrize("elt", ["bf16", "f32", "i8"])
@pytest.mark.parametrize("tile,inner", [((32, 32), None), ((32, 64), (32, 32)), ((64, 64), (64, 64)),
                                        ((16, 128), (16, 64)), ((8, 16), None)])
@pytest.mark.parametrize("cols", [256, 100, 24])
def test_never_illegal_blocks(elt, tile, inner, cols):
    ib = f", #xetile.tile_attr<inner_blocks = [{inner[0]}, {inner[1]}]>" if inner else ""
    tt = f"!xetile.tile<{tile[0]}x{tile[1]}x{elt}{ib}>"
    shp = ((tile[0] // inner[0], tile[1] // inner[1], inner[0], inner[1]) if inner else tile)
    vt = "vector<" + "x".join(map(str, shp)) + f"x{elt}>"
    mt = f"memref<256x{cols}x{elt}>"
    text = f"""
gpu.module @k {{
  gpu.func @f(%X: {mt}, %i: index) kernel {{
    %t = xetile.init_tile %X[%i, %i] : {mt} -> {tt}
    xetile.prefetch_tile %t : {tt}
    %v = xetile.load_tile %t : {tt} -> {vt}
    xetile.store_tile %v, %t : {vt}, {tt}
    gpu.return
  }}
}}"""
    m = lower(text, VC)
    assert _illegal_blocks(m) == []


@pytest.mark.parametrize("kw", [dict(), dict(elt="i8"), dict(elt="f32"), dict(transpose_b=True),
                                dict(elt="f32", transpose_b=True)], ids=str)
def test_gemm_blocks_are_legal(kw):
    m = lower(stage3_gemm(256, 256, 256, **kw), VC)
    assert _illegal_blocks(m) == []


@pytest.mark.parametrize("kind,dims", [("add", [1]), ("maximumf", [0]), ("add", [0, 1]), ("minimumf", [1])])
def test_tile_reduce_numeric(kind, dims):
    # a blocked 16x32 f32 tile (8x16 blocks) reduced over columns, rows or both, stored as R x 1 / 1 x C / 1 x 1
    from xedialects.sim import simulate
    from xedialects.sim.testing import single_kernel_module

    out_shape = {(1,): (16, 1), (0,): (1, 32), (0, 1): (1, 1)}[tuple(dims)]
    ot = f"memref<{out_shape[0]}x{out_shape[1]}xf32>"
    ib = "#xetile.tile_attr<inner_blocks = [8, 16]>"
    body = f"""
%c0 = arith.constant 0 : index
%t = xetile.init_tile %A[%c0, %c0] : memref<16x32xf32> -> !xetile.tile<16x32xf32, {ib}>
%v = xetile.load_tile %t : !xetile.tile<16x32xf32, {ib}> -> vector<2x2x8x16xf32>
%u = xetile.tile_unpack %v {{inner_blocks = [8, 16]}} : vector<2x2x8x16xf32> -> vector<16x32xf32>
%r = xetile.tile_reduce <{kind}> %u {dims} : vector<16x32xf32> -> vector<{out_shape[0]}x{out_shape[1]}xf32>
%o = xetile.init_tile %O[%c0, %c0] : {ot} -> !xetile.tile<{out_shape[0]}x{out_shape[1]}xf32>
xetile.store_tile %r, %o : vector<{out_shape[0]}x{out_shape[1]}xf32>, !xetile.tile<{out_shape[0]}x{out_shape[1]}xf32>
"""
    text = single_kernel_module([("A", "memref<16x32xf32>"), ("O", ot)], body)
    A = np.random.default_rng(3).uniform(-1, 1, (16, 32)).astype(np.float32)
    fn = {"add": np.sum, "maximumf": np.max, "minimumf": np.min}[kind]
    want = fn(A, axis=tuple(dims), keepdims=True)
    m = xedialects.parse(text, "reduce.mlir")
    run_pipeline(m, "builtin.module(convert-xetile-to-xegpu, canonicalize, cse)")
    assert "xetile.tile_reduce" not in xedialects.print_ir(m)
    got = simulate(m, "main", [A, np.zeros(out_shape, np.float32)]).buffers[1]
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("pipeline", ["convert-xetile-to-xegpu", "convert-xetile-to-xegpu, xegpu-simt-distribute"])
def test_tile_carried_by_nested_loops(pipeline):
    # both loops carry the tile (advanced in the inner one): sums A[8:16, 0:16] over 8 x 4 steps with
    # the tile moving 16 columns right per inner step and wrapping back by the outer re-init
    from xedialects.sim import simulate
    from xedialects.sim.testing import single_kernel_module

    body = """
%c0 = arith.constant 0 : index
%c1 = arith.constant 1 : index
%c2 = arith.constant 2 : index
%c4 = arith.constant 4 : index
%zero = arith.constant dense<0.0> : vector<8x16xf32>
%l = xetile.init_tile %A[8, 0] : memref<64x64xf32> -> !xetile.tile<8x16xf32>
%r:2 = scf.for %i = %c0 to %c2 step %c1 iter_args(%acc = %zero, %la = %l) -> (vector<8x16xf32>, !xetile.tile<8x16xf32>) {
  %in:2 = scf.for %j = %c0 to %c4 step %c1 iter_args(%a2 = %acc, %li = %la) -> (vector<8x16xf32>, !xetile.tile<8x16xf32>) {
    %v = xetile.load_tile %li : !xetile.tile<8x16xf32> -> vector<8x16xf32>
    %s = arith.addf %a2, %v : vector<8x16xf32>
    %ln = xetile.update_tile_offset %li, [0, 16] : !xetile.tile<8x16xf32>
    scf.yield %s, %ln : vector<8x16xf32>, !xetile.tile<8x16xf32>
  }
  %back = xetile.update_tile_offset %in#1, [8, -64] : !xetile.tile<8x16xf32>
  scf.yield %in#0, %back : vector<8x16xf32>, !xetile.tile<8x16xf32>
}
%o = xetile.init_tile %O[0, 0] : memref<8x16xf32> -> !xetile.tile<8x16xf32>
xetile.store_tile %r#0, %o : vector<8x16xf32>, !xetile.tile<8x16xf32>
"""
    text = single_kernel_module([("A", "memref<64x64xf32>"), ("O", "memref<8x16xf32>")], body)
    A = np.random.default_rng(4).uniform(-1, 1, (64, 64)).astype(np.float32)
    want = sum(A[8 + 8 * i:16 + 8 * i, 16 * j:16 * j + 16] for i in range(2) for j in range(4))
    m = xedialects.parse(text, "nested.mlir")
    run_pipeline(m, f"builtin.module({pipeline})")
    got = simulate(m, "main", [A, np.zeros((8, 16), np.float32)]).buffers[1]
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_tile_reduce_of_loop_result():
    # the row sums of a GEMM accumulator carried by an scf.for over K (blocked 4D reduce dims [1, 3]
    # whose source is the loop's already-converted result)
    from xedialects.sim import simulate
    from xedialects.sim.testing import single_kernel_module

    body = """
%c0 = arith.constant 0 : index
%c1 = arith.constant 1 : index
%c4 = arith.constant 4 : index
%zero = arith.constant dense<0.0> : vector<8x16xf32>
%ta = xetile.init_tile %A[0, 0] : memref<8x64xf16> -> !xetile.tile<8x16xf16>
%tb = xetile.init_tile %B[0, 0] : memref<64x32xf16> -> !xetile.tile<16x16xf16>
%r:3 = scf.for %k = %c0 to %c4 step %c1 iter_args(%acc = %zero, %a = %ta, %b = %tb)
    -> (vector<8x16xf32>, !xetile.tile<8x16xf16>, !xetile.tile<16x16xf16>) {
  %va = xetile.load_tile %a : !xetile.tile<8x16xf16> -> vector<8x16xf16>
  %vb = xetile.load_tile %b : !xetile.tile<16x16xf16> -> vector<16x16xf16>
  %c = xetile.tile_mma %va, %vb, %acc : vector<8x16xf16>, vector<16x16xf16>, vector<8x16xf32> -> vector<8x16xf32>
  %a2 = xetile.update_tile_offset %a, [0, 16] : !xetile.tile<8x16xf16>
  %b2 = xetile.update_tile_offset %b, [16, 0] : !xetile.tile<16x16xf16>
  scf.yield %c, %a2, %b2 : vector<8x16xf32>, !xetile.tile<8x16xf16>, !xetile.tile<16x16xf16>
}
%s = xetile.tile_reduce <add> %r#0 [1] : vector<8x16xf32> -> vector<8x1xf32>
%to = xetile.init_tile %O[0, 0] : memref<8x1xf32> -> !xetile.tile<8x1xf32>
xetile.store_tile %s, %to : vector<8x1xf32>, !xetile.tile<8x1xf32>
"""
    args = [("A", "memref<8x64xf16>"), ("B", "memref<64x32xf16>"), ("O", "memref<8x1xf32>")]
    rng = np.random.default_rng(5)
    A = rng.integers(-3, 4, (8, 64)).astype(np.float16)
    B = rng.integers(-3, 4, (64, 32)).astype(np.float16)
    # small integers: every product and partial sum is exact in f32
    want = (A.astype(np.float64)[:, :, None] * B[:, :16].astype(np.float64)[None]).sum(axis=(1, 2))[:, None]
    m = xedialects.parse(single_kernel_module(args, body), "reduce_loop.mlir")
    run_pipeline(m, "builtin.module(xetile-blocking, convert-xetile-to-xegpu, canonicalize, cse)")
    assert "xetile." not in xedialects.print_ir(m)
    got = simulate(m, "main", [A, B, np.zeros((8, 1), np.float32)]).buffers[2]
    np.testing.assert_array_equal(got, want.astype(np.float32))


@pytest.mark.parametrize("space,tile_space", [("#gpu.address_space<workgroup>", ", memory_space = 3 : i32"),
                                              ("3 : i64", ", memory_space = 3 : i32")])
def test_slm_tile_spellings_use_slm_scattered_messages(space, tile_space):
    """A tile on a shared-local-memory memref is an SLM tile whatever the spelling of the memref's
    space (read through the MLIR API; the tile itself must say memory_space = 3, the init_tile
    verifier rejects a global tile on either spelling: lit Dialect/XeTile/imex-invalid.mlir): scattered stores with an "slm" descriptor, never a 2D block
    descriptor (a global one would address SLM as global memory)."""
    t = f"memref<64x64xf32, {space}>"
    tile = f"!xetile.tile<8x16xf32, #xetile.tile_attr<inner_blocks = [8, 16]{tile_space}>>"
    m = lower(f"""gpu.module @k {{
  gpu.func @slm(%i: index) kernel {{
    %s = memref.alloc() : {t}
    %t = xetile.init_tile %s[%i, %i] : {t} -> {tile}
    %z = arith.constant dense<1.0> : vector<1x1x8x16xf32>
    xetile.store_tile %z, %t : vector<1x1x8x16xf32>, {tile}
    gpu.return
  }}
}}""", "convert-xetile-to-xegpu", "slm.mlir")
    ops = [op for op in m.body.operations[0].regions[0].blocks[0].operations[0].regions[0].blocks[0].operations]
    descs = [op.results[0].type for op in ops if op.operation.name == "xegpu.create_tdesc"]
    assert descs and all(TensorDescType(d).memory_scope == "slm" for d in descs)
    names = [op.operation.name for op in ops]
    assert names.count("xegpu.store_scatter") == 8 and "xegpu.create_nd_tdesc" not in names
