"""Fused flash attention (docs/attention.md): the recogniser's forms, the plan's rules, and the one
kernel against the unfused CPU reference of the same linalg program (xe-run --check) on the
simulator for f16/bf16, head dim 64/128, causal or not, additive masks, 3D and 4D, through XeGPU and
SPIR-V."""
import os
import sys
from dataclasses import replace

import pytest

from xedialects.arch import get_arch
from xedialects.lowering.linalg_to_xetile.attention_match import NotAttention
from xedialects.lowering.linalg_to_xetile.attention_plan import plan_attention
from xedialects.tools.xe_run import main as xe_run

sys.path.insert(0, os.path.dirname(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "bench"))
from attention_source import attention_source  # noqa: E402
from opencl_support import needs_rt  # noqa: E402


def _run(tmp_path, capsys, pipeline, **kw):
    path = tmp_path / "attention.mlir"
    path.write_text(attention_source(**kw))
    rc = xe_run([str(path), f"--pipeline={pipeline}", "--check"])
    out = capsys.readouterr()
    assert "not fused as attention" not in out.err
    assert rc == 0, out.out + out.err
    return out


@pytest.mark.parametrize("kw", [
    dict(batch=(2,), lq=64, lk=64, d=64, elt="f16"),
    dict(batch=(2,), lq=48, lk=96, d=64, elt="f16", scale=0.125, transpose_op=True),
    dict(batch=(1, 2), lq=64, lk=64, d=128, elt="bf16", out="bf16", causal=True, scale=0.088),
    dict(batch=(2,), lq=96, lk=96, d=64, elt="f16", out="f16", causal=True),
    dict(batch=(2,), lq=64, lk=64, d=64, elt="f16", scale=0.125, mask="full"),
    dict(batch=(2, 2), lq=96, lk=96, d=64, elt="bf16", causal=True, mask="shared"),
    dict(batch=(2,), lq=1, lk=512, d=64, elt="f16"),
    dict(batch=(1, 2), lq=3, lk=256, d=128, elt="bf16", out="bf16", mask="full", scale=0.088),
    dict(batch=(2,), lq=48, lk=144, d=64, elt="f16", out="f16", causal="bottom-right", scale=0.125),
    dict(batch=(1, 2), lq=16, lk=96, d=64, elt="bf16", causal="bottom-right"),
    dict(batch=(2,), lq=16, lk=64, d=64, elt="f16", causal=True),
    dict(batch=(2,), lq=24, lk=40, d=64, elt="f16", scale=0.125),
    dict(batch=(1, 2), lq=1, lk=1000, d=64, elt="bf16", out="bf16"),
    dict(batch=(2,), lq=40, lk=200, d=64, elt="f16", causal="bottom-right"),
    dict(batch=(1, 2), lq=64, lk=40, d=64, elt="f16", causal=True),
], ids=["f16-3d-d64", "unaligned-q-transpose-op", "bf16-4d-d128-causal", "f16-causal-2-loops", "additive-mask",
        "shared-mask-causal-4d", "decode-split", "decode-split-4d-mask", "bottom-right-causal-chunk",
        "bottom-right-diagonal-inside-block", "causal-block-wider-than-query-block", "tail-40-keys-16-rows",
        "tail-1000-keys-decode-split", "tail-hidden-by-bottom-right", "tail-seen-by-top-left-rows-past-lk"])
def test_fused_attention_matches_reference(tmp_path, capsys, kw):
    out = _run(tmp_path, capsys, "xe-gemm-to-xegpu", **kw)
    assert "PASS" in out.out


def test_fused_attention_through_spirv(tmp_path, capsys):
    out = _run(tmp_path, capsys, "xe-gemm-to-spirv", batch=(2,), lq=64, lk=64, d=64, elt="f16", causal=True)
    assert "PASS" in out.out


def test_mask_hiding_a_row_with_a_partial_last_block(tmp_path, capsys):
    """An additive mask of -inf (padding: batch 1 hides keys 30.., batch 0 row 5 every key) over 40 keys, a
    partial last block of 8: the hidden row is NaN as in the reference's softmax. The tail table held -1e30,
    the running max's start, so that row took P = 1 on the 24 keys past Lk and stored 0 / 24 = 0."""
    import numpy as np
    path = tmp_path / "attention.mlir"
    path.write_text(attention_source(batch=(2,), lq=16, lk=40, d=64, elt="f16", mask="full"))
    rng = np.random.default_rng(0)
    q, k, v = (rng.standard_normal((2, n, 64)).astype(np.float16) for n in (16, 40, 40))
    m = np.zeros((2, 16, 40), np.float32)
    m[1, :, 30:] = -np.inf
    m[0, 5, :] = -np.inf
    np.savez(tmp_path / "in.npz", Q=q, K=k, V=v, M=m)
    rc = xe_run([str(path), "--pipeline=xe-gemm-to-xegpu", "--check", "--inputs", str(tmp_path / "in.npz"),
                 "--output", str(tmp_path / "out.npz")])
    out = capsys.readouterr()
    assert rc == 0 and "not fused as attention" not in out.err and "PASS" in out.out, out.out + out.err
    o = np.load(tmp_path / "out.npz")["result0"]
    assert np.isnan(o[0, 5]).all() and not np.isnan(np.delete(o[0], 5, axis=0)).any() and not np.isnan(o[1]).any()


def test_f16_mask_through_extf_is_fused(tmp_path, capsys):
    """An f16 additive mask reaches S's f32 through arith.extf in the mask step's body: fused like an f32 mask
    (the body evaluator took no arith.extf, so an f16/bf16 mask was a remark and the unfused lowering)."""
    src = attention_source(batch=(2,), lq=64, lk=64, d=64, elt="f16", mask="shared")
    src = src.replace("tensor<64x64xf32>", "tensor<64x64xf16>").replace(
        "%mv: f32, %out_: f32):\n    %amr = arith.addf %x, %mv : f32",
        "%mv: f16, %out_: f32):\n    %mve = arith.extf %mv : f16 to f32\n    %amr = arith.addf %x, %mve : f32")
    assert "arith.extf %mv" in src and "%M: tensor<64x64xf16>" in src
    path = tmp_path / "attention.mlir"
    path.write_text(src)
    rc = xe_run([str(path), "--pipeline=xe-gemm-to-xegpu", "--check"])
    out = capsys.readouterr()
    assert rc == 0 and "not fused as attention" not in out.err, out.out + out.err
    assert "PASS" in out.out


def _form(**kw):
    from mlir import ir

    from xedialects.lowering.linalg_to_xetile.attention_match import match_attention
    from xedialects.passes import run
    from xedialects.passes.utils.ir_walk import walk
    from xedialects.syntax import parse_source

    ctx = ir.Context()
    m = parse_source(attention_source(**kw), "<attention>", ctx)
    run(m, "builtin.module(xe-bufferize)")
    first = next(o for o in walk(m.operation) if o.name == "linalg.generic")
    return match_attention(first)


def test_recogniser_reads_scale_and_causal_mask():
    f = _form(batch=(2, 3), lq=32, lk=64, d=64, elt="bf16", causal=True, scale=0.25)
    assert (f.batch, f.lq, f.lk, f.d, f.elt, f.out_elt) == ((2, 3), 32, 64, 64, "bf16", "f32")
    assert f.causal and f.scale == 0.25
    assert len(f.temps) == 4           # S, S scaled and masked, P, P rounded: erased with the chain


def test_bottom_right_causal_is_recognised():
    """Bottom-right aligned causal (query i sees keys j <= i + Lk - Lq: chunked prefill, a decode step with its
    own KV-cache write) is read from the mask's values like the top-left one; a top-left mask with Lq < Lk
    stays top-left; with Lq = 1 the bottom-right mask hides no key, so the chain is the unmasked decode
    (flash-decoding's slices); with Lq > Lk the first rows would see no key (a remark)."""
    hw = get_arch("pvc")
    br = _form(lq=64, lk=192, d=64, causal="bottom-right")
    assert (br.causal, br.causal_offset) == (True, 128)
    tl = _form(lq=64, lk=192, d=64, causal=True)
    assert (tl.causal, tl.causal_offset) == (True, 0)
    p = plan_attention(_form(lq=128, lk=320, d=64, causal="bottom-right"), hw)
    assert "causal bottom-right" in p.describe() and "keys <= i + 192" in p.describe()
    from xedialects.lowering.linalg_to_xetile.attention_plan import key_blocks, useful_flops
    assert key_blocks(p) == [(64 + 192) // 32, (128 + 192) // 32]          # to each block's last diagonal
    assert useful_flops(p.form) == 4 * 64 * sum(q + 1 + 192 for q in range(128)) * 2
    dec = _form(batch=(1, 8), lq=1, lk=512, d=64, causal="bottom-right")
    assert not dec.causal and plan_attention(dec, hw).kv_splits > 1
    with pytest.raises(NotAttention, match="Lq = 64 > Lk = 32 leaves the first 32 query rows no key"):
        _form(lq=64, lk=32, d=64, causal="bottom-right")


def test_plan_rules():
    hw = get_arch("pvc")
    p = plan_attention(_form(lq=256, lk=256, d=128, causal=True), hw)
    assert (p.sg_rows, p.block_m, p.block_n, p.grf_mode, p.groups) == (8, 64, 16, "large", (4, 1, 2))
    p = plan_attention(_form(lq=128, lk=128, d=64), hw)   # d 64: 16 rows per subgroup (a 32-key block fits)
    assert (p.sg_rows, p.num_subgroups, p.block_n) == (16, 4, 32)
    p = plan_attention(_form(lq=16, lk=64, d=64), hw)
    assert (p.sg_rows, p.num_subgroups, p.block_n) == (16, 1, 32)     # 16 query rows: one subgroup
    d = plan_attention(_form(lq=1, lk=512, d=64), hw)          # decode: 2 heads, 2 x 8 slices <= 128 cores
    assert (d.kv_splits, d.groups, d.block_m) == (8, (1, 8, 2), 8)
    assert plan_attention(_form(lq=64, lk=512, d=64, causal=True), hw).kv_splits == 1   # keys end at the diagonal
    t = plan_attention(_form(lq=16, lk=40, d=64), hw)     # no block divides 40: 32, a last block of 8 keys
    assert (t.block_n, t.tail) == (32, 8) and "the last block holds 8 keys" in t.describe()
    t = plan_attention(_form(lq=40, lk=40, d=64, causal=True), hw)
    assert (t.block_n, t.tail) == (32, 0)                 # causal, Lq <= Lk: the mask hides keys past Lk from every row
    t = plan_attention(_form(lq=64, lk=40, d=64, causal=True), hw)
    assert (t.block_n, t.tail) == (32, 8)                 # top-left, Lq > Lk: rows 40..63 see the keys past Lk
    t = plan_attention(_form(lq=40, lk=24, d=64, causal=True), hw)   # one K/V block: no slices to price
    assert (t.block_n, t.kv_splits) == (32, 1)            # (raised ValueError: min() arg is an empty sequence)
    t = plan_attention(_form(lq=16, lk=8, d=64), hw)
    assert (t.block_n, t.tail) == (16, 8)                 # not a block wider than Lk rounded up to 16
    dt = plan_attention(_form(batch=(1, 2), lq=1, lk=1000, d=64), hw)   # 32 blocks of 32, 16 slices of 64 keys
    assert (dt.block_n, dt.tail, dt.kv_splits) == (32, 8, 16)
    from xedialects.lowering.linalg_to_xetile.attention_plan import key_blocks
    assert key_blocks(dt) == [2] * 16


def test_causal_split_plan_for_chunked_prefill():
    """Chunked prefill (a few query blocks per head over a long KV cache, bottom-right causal) leaves most
    Xe-cores idle: the model prices each power of two of K/V slices (split kernel + combine) and keeps the
    fastest; a full prefill (a grid of 512 work-groups) and bmg's 20 Xe-cores under 64 work-groups are not
    split. Each work-group's blocks are clipped to its slice: the diagonal ones fall in the last slices."""
    from xedialects.lowering.linalg_to_xetile.attention_plan import key_blocks, predict_attention

    pvc, bmg = get_arch("pvc"), get_arch("bmg")
    llama = dict(batch=(1, 32), d=128, elt="bf16", causal="bottom-right")
    chunk = _form(lq=128, lk=4096, **llama)
    p = plan_attention(chunk, pvc)
    assert (p.kv_splits, p.groups, p.block_n) == (4, (2, 4, 32), 16)
    assert "K/V slices under a causal mask: 64 work-groups < 128 Xe-cores" in p.describe()
    assert "1 slice 80.62 us" in p.describe() and "combine kernel" in p.describe()
    # query block 0 ends at key 64 + 3968 = 4032: 252 blocks of 16, the last slice holds 60 of them
    assert key_blocks(p) == [64, 64, 64, 60, 64, 64, 64, 64]
    single = replace(p, kv_splits=1, groups=(2, 1, 32))
    assert predict_attention(p).time_s < 0.5 * predict_attention(single).time_s
    assert plan_attention(_form(lq=1024, lk=1024, **dict(llama, causal=True)), pvc).kv_splits == 1
    assert plan_attention(chunk, bmg).kv_splits == 1
    small = plan_attention(_form(lq=40, lk=256, d=64, causal="bottom-right"), pvc)   # 1 work-group, 8 blocks
    assert small.kv_splits == 1 and "a split must save 20%" in small.describe()


def _split_40x256(monkeypatch, slices):
    """Force `slices` K/V slices on the 40 x 256 bottom-right plan (the model keeps one): slices of 32 keys,
    narrower than the 40 query rows, so the last slice [224, 256) is right of rows 0-7's diagonals (<= 216)."""
    from xedialects.lowering.linalg_to_xetile import attention_fuse

    def forced(form, hw):
        p = plan_attention(form, hw)
        return replace(p, kv_splits=slices, groups=(p.groups[0], slices, p.groups[2]))
    monkeypatch.setattr(attention_fuse, "plan_attention", forced)
    return dict(batch=(1,), lq=40, lk=256, d=64, elt="f16", causal="bottom-right")


@pytest.mark.parametrize("kw", [dict(batch=(1,), lq=16, lk=1000, d=64, elt="bf16", out="bf16", causal="bottom-right"),
                                dict(batch=(1,), lq=72, lk=1000, d=64, elt="f16", causal="bottom-right", scale=0.125),
                                "forced-8-slices"],
                         ids=["16x1000-bf16-4-slices", "72x1000-f16-2-query-blocks", "40x256-f16-8-slices"])
def test_causal_split_matches_reference(tmp_path, capsys, monkeypatch, kw):
    """Causal flash-decoding against the unfused CPU program: 4 slices of 256 keys over a 1,000-key cache (the
    last slice holds the diagonal and the partial block), two query blocks per head (the combine kernel's
    grid x), and slices narrower than the chunk (rows that see no key of a slice)."""
    if kw == "forced-8-slices":
        kw = _split_40x256(monkeypatch, 8)
    else:
        assert plan_attention(_form(**kw), get_arch("pvc")).kv_splits == 4
    out = _run(tmp_path, capsys, "xe-gemm-to-xegpu", **kw)
    assert "PASS" in out.out


def test_slice_right_of_a_rows_diagonal_is_neutral(monkeypatch):
    """A row that sees no key of its slice stores the neutral partial (row max -1e30, row sum 0, accumulator 0):
    the diagonal's penalty (-2e30 per key) stays below the running max's start, so P = 0 there (with -1e30 the
    row would sum exp2(0) = 1 per key and only the combine's weight would hide it)."""
    import numpy as np

    import xedialects
    from xedialects.passes import run
    from xedialects.sim import simulate

    kw = _split_40x256(monkeypatch, 8)
    m = xedialects.parse(attention_source(**kw), "attention.mlir")
    run(m, "builtin.module(xe-gemm-to-xegpu)")
    rng = np.random.default_rng(0)
    q, k, v = (rng.uniform(-1, 1, (1, n, 64)).astype(np.float16) for n in (40, 256, 256))
    diag = np.array([[c - r for c in range(32)] for r in range(64)], np.float32)     # the kernel's c - r table
    ws = np.full((8 * 64, 96), np.nan, np.float32)
    res = simulate(m, "attention_attention_0", [q, k, v, np.zeros((1, 40, 64), np.float32), diag, ws],
                   grid=(1, 8, 1))
    w = res.buffers[5].reshape(8, 64, 96)
    last = w[7]                                    # keys 224..255; row r sees keys <= r + 216
    assert (last[:8, :64] == 0).all() and (last[:8, 64:80] == -1e30).all() and (last[:8, 80:] == 0).all()
    assert (last[8:40, 80:] > 0).all() and not np.isnan(w[:, :40]).any()


def test_model_counts_only_kept_pairs_and_skipped_blocks():
    from xedialects.lowering.linalg_to_xetile.attention_plan import key_blocks, predict_attention, useful_flops

    hw = get_arch("pvc")
    full = plan_attention(_form(lq=256, lk=256, d=64), hw)
    causal = plan_attention(_form(lq=256, lk=256, d=64, causal=True), hw)
    assert key_blocks(full) == [8, 8, 8, 8] and key_blocks(causal) == [2, 4, 6, 8]    # 32-row K/V blocks
    assert useful_flops(full.form) == 4 * 64 * 256 * 256 * 2
    assert useful_flops(causal.form) == 4 * 64 * (256 * 257 // 2) * 2
    p, pc = predict_attention(full), predict_attention(causal)
    # 8 work-groups on 128 Xe-cores: the last query block reads every key, and it sets the time
    assert 0 < pc.time_s == p.time_s and pc.flops < p.flops
    many = dict(batch=(1, 32), lq=1024, lk=1024, d=128, elt="bf16")   # 512 work-groups of all lengths share the cores
    p, pc = predict_attention(plan_attention(_form(**many), hw)), predict_attention(plan_attention(
        _form(**many, causal=True), hw))
    assert 0 < pc.time_s < p.time_s and pc.flops < p.flops
    assert "model [pvc]" in causal.describe()



@needs_rt
@pytest.mark.parametrize("kw", [dict(lq=64, lk=64, causal=True), dict(lq=16, lk=40)], ids=["causal", "tail-40-keys"])
def test_pvc_binary_under_emulation_agrees(tmp_path, capsys, kw):
    """The pvc SPIR-V on OpenCL with the DPAS / 2D block emulation library (P = exp2 through the
    imported builtin), against the simulator and the reference: both comparisons take the rounded-P
    tolerance (OpenCL's exp may round P to the other f16 neighbour than numpy's). With 40 keys the
    last K/V block reads past Lk (the 2D block loads' zeros) and the tail table masks them."""
    path = tmp_path / "attention.mlir"
    path.write_text(attention_source(batch=(1,), d=64, **kw))
    rc = xe_run([str(path), "--pipeline=xe-gemm-to-spirv", "--backend=both", "--check"])
    out = capsys.readouterr()
    assert rc == 0, out.out + out.err
    assert "backends agree" in out.out and "PASS" in out.out


EXP2 = """#id = affine_map<(i, j) -> (i, j)>
func.func @e2(%A: memref<32x64xf32>, %B: memref<32x64xf32>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%A : memref<32x64xf32>) outs(%B : memref<32x64xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = math.exp2 %x : f32
    linalg.yield %y : f32
  }
  return
}
"""


@needs_rt
@pytest.mark.parametrize("pipeline", ["xe-gemm-to-spirv", "xe-gemm-to-spirv-portable"])
def test_exp2_on_opencl(tmp_path, capsys, pipeline):
    """math.exp2 (the kernel's P) on OpenCL: pvc's imported builtin (the emulation library's exp2.cl) and
    the portable exp(x ln 2), against the simulator and the reference."""
    path = tmp_path / "exp2.mlir"
    path.write_text(EXP2)
    rc = xe_run([str(path), f"--pipeline={pipeline}", "--backend=both", "--check"])
    out = capsys.readouterr()
    assert rc == 0, out.out + out.err
    assert "backends agree" in out.out and "PASS" in out.out


@pytest.mark.parametrize("arch", ["pvc", "bmg"])
def test_k_loop_machine_code(arch):
    """IGC's K/V loop of examples/attention_f16.mlir (docs/attention.md "Machine code"): no spill, no
    scratch or scattered (SLM, per-lane) message, and the non-DPAS work per DPAS well under what it was
    before the row reductions combined their registers and P used exp2 (63.6 on pvc), then 16 query rows
    per subgroup shared each reduction and rescale (21.6 -> 20.0, 32 DPAS per iteration)."""
    from xedialects.runtime.igc import igc_available

    if not igc_available():
        pytest.skip("IGC not installed (xe-opt --install-igc)")
    import xedialects
    from xedialects.passes import run
    from xedialects.passes.analysis.kernel_report import kernel_report

    src = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "attention_f16.mlir")
    m = xedialects.parse(open(src).read(), src)
    run(m, f"builtin.module(xe-gemm-to-xegpu{{arch={arch}}})")
    isa = kernel_report(m, arch, isa=True)[0]["isa"]
    loop = isa["k_loop"]
    assert (isa["spill_bytes"], loop["scratch_messages"], loop["scattered_messages"]) == (0, 0, 0), isa
    assert loop["dpas"] == 32 and loop["non_dpas_per_dpas"] < 24, loop


@pytest.mark.parametrize("kw", [dict(d=128, elt="f16"), dict(d=64, elt="bf16", causal=True, mask="shared"),
                                dict(d=128, elt="bf16", causal="bottom-right", lk=256),
                                dict(d=64, elt="bf16", lk=1000)],
                         ids=["f16-d128", "bf16-d64-causal-mask", "bf16-d128-bottom-right", "bf16-d64-tail-1000"])
def test_igc_compiles_without_spill(kw):
    """Plans beyond the examples (which test_igc.py's corpus builds for pvc and bmg): IGC builds every
    kernel for pvc in the GRF mode the plan asks for, with no spill and no scratch message."""
    _igc_builds_without_spill({"batch": (1, 2), "lq": 128, "lk": 128, **kw}, "pvc")


@pytest.mark.parametrize("arch", ["pvc", "bmg"])
def test_igc_compiles_causal_split_without_spill(arch):
    """The causal kernel split over K/V (bf16 d 128, 16 queries over 1,024 keys bottom-right: 2 heads, so the
    model splits) and its combine kernel: IGC builds both with the large register file and no spill."""
    kw = dict(batch=(1, 2), lq=16, lk=1024, d=128, elt="bf16", out="bf16", causal="bottom-right")
    assert plan_attention(_form(**kw), get_arch(arch)).kv_splits > 1
    names = _igc_builds_without_spill(kw, arch)
    assert sorted(names) == ["attention_attention_0", "attention_attention_0_combine"]


def _igc_builds_without_spill(kw, arch):
    """IGC builds every kernel of attention_source(**kw) for `arch` with 256 registers, no spill and no scratch
    message; their names."""
    from xedialects.runtime.igc import build_module, igc_available

    if not igc_available():
        pytest.skip("IGC not installed (xe-opt --install-igc)")
    import xedialects
    from xedialects.lowering.xegpu_to_spirv.spirv_export import export_spirv
    from xedialects.passes import run

    m = xedialects.parse(attention_source(**kw), "attention.mlir")
    run(m, f"builtin.module(xe-gemm-to-xegpu{{arch={arch}}}, convert-xegpu-to-spirv{{target=pvc arch={arch}}})")
    binary, meta = export_spirv(m, "pvc", arch)
    build = build_module(binary, meta, arch)
    for k in meta["kernels"]:
        isa = build.kernels[k["name"]]
        assert (isa.grf_count, isa.spill_bytes, isa.total.scratch_messages) == (256, 0, 0), k["name"]
    return [k["name"] for k in meta["kernels"]]


def test_unusual_element_wise_bodies_are_remarks(tmp_path, capsys):
    """A body the probes cannot read as a scale or a mask (here x / 0.0: inf, NaN) is a remark and the
    op-by-op lowering, never an internal error."""
    from xedialects.tools.xe_opt import main as xe_opt

    src = attention_source(scale=0.125).replace("%c = arith.constant 0.125 : f32\n    %sy = arith.mulf %x, %c",
                                                "%c = arith.constant 0.0 : f32\n    %sy = arith.divf %x, %c")
    path = tmp_path / "div0.mlir"
    path.write_text(src)
    assert xe_opt([str(path), "--xe-linalg-to-xetile"]) == 0
    err = capsys.readouterr().err
    assert "remark: not fused as attention" in err and "internal error" not in err
