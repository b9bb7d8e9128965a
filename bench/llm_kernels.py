"""The kernels LLM inference spends its time in (issue 33), lowered by convert-linalg-to-xetile from
upstream linalg and priced by the performance model (docs/perf-model.md): for each Llama-like shape the
plan, the predicted time, TFLOP/s or GB/s and the bound.

    python bench/llm_kernels.py [--arch pvc|bmg] [--plans] [--weights kn|nk]

Attention (docs/attention.md): prefill with a causal mask, 32 heads x head dim 128, sequence 1k-8k,
chunked prefill (chunks of 128 and 512 new tokens over a KV cache of 4k and 16k, bottom-right causal: split
over K/V when the model says so), and decode (one query row, 4k-32k of K/V), bf16; published XeTLA figures
beside them (ATTENTION_PUBLISHED).

Quantized GEMM (docs/quantized-gemm.md): W8A16 and W4A16 linear layers of a 7B Llama (K = 4096; N = 4096
for the attention projections, 11008 for the MLP), M = 1 and 16 (decode) and 512 (prefill), per-group f16
scales (G = 128). Both are lowered to one fused kernel each; the plan's model reads the weights at 1 and 1/2
byte. `--weights nk`: the weights stored N x K (PyTorch's nn.Linear layout, B read transposed; i4 packed along
K); a form that is not fused prints as such.

Quantized gemv (docs/quantized-gemm.md "gemv"): the same layers at M = 1 written as a linalg.matvec of N x K
weights (a framework's [out, in]) in both forms: the default (dequant-gemv=dpas), the M = 1 DPAS GEMM with the
weights as B, first; then the gemv kernel (dequant-gemv=vector, vector FMAs) with, with IGC, the instructions of
its streaming loop per weight.

Published figures (QUANT_PUBLISHED, printed with the model's figure for the same shape on bmg): the only
per-kernel W4A16 times for an Intel GPU found are ARK's (AutoRound Kernel, intel/auto-round, whose XPU
kernels are SYCL / sycl-tla) on an Arc Pro B60 (BMG-G21, 456 GB/s, as our bmg table's B580) in
github.com/intel/auto-round/pull/2331. Searched without a kernel time: Intel Extension for PyTorch's INT4
GPU tutorial, Intel's "Weight-only Quantization in LLM Inference" article (end-to-end latency only),
llama.cpp's SYCL backend guide (tokens/s per model), pytorch/pytorch#137566 (oneDNN int4 WOQ on XPU, no
times).
For decode the reference is the bound itself: the GB/s column against the arch's HBM bandwidth.
"""
import argparse
import contextlib
import io
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import xedialects  # noqa: E402
from xedialects.arch import get_arch  # noqa: E402
from xedialects.lowering.linalg_to_xetile.convert import plan_recording  # noqa: E402
from xedialects.passes import run  # noqa: E402
from xedialects.passes.analysis.perf_model import predict, with_isa, work_from_plan  # noqa: E402
from quantized_source import quantized_gemm_source  # noqa: E402

QUANT_SHAPES = [(m, n, 4096) for n in (4096, 11008) for m in (1, 16, 512)]
# Published W4A16 kernel times on Intel GPUs: (M, N, K, group, what, source). f16 activations, scales and output,
# symmetric int4 weights; their GB/s counts the packed weights and the f16 scales.
QUANT_PUBLISHED = [
    (1, 16384, 4096, 32, "ARK bestla_s4_gemv, Arc Pro B60: 107.2 us, 352.65 GB/s",
     "github.com/intel/auto-round/pull/2331 (2026-09-09)"),
    (2, 16384, 4096, 32, "ARK woq_s4_dpas (sycl-tla DPAS), Arc Pro B60: 109.8 us",
     "github.com/intel/auto-round/pull/2331 (2026-09-09)"),
]


# ---- attention -------------------------------------------------------------------------------------
# docs/attention.md: one fused flash-attention kernel per program of bench/attention_source.py

HEADS, HEAD_DIM = 32, 128                     # Llama-2-7B / Llama-3-8B query heads and head size
PREFILL_SEQ = (1024, 2048, 4096, 8192)
DECODE_KV = (4096, 8192, 16384, 32768)
CHUNKS = [(lq, lk) for lq in (128, 512) for lk in (4096, 16384)]   # chunked prefill: (new tokens, KV cache)
# Published forward-attention figures on Intel GPUs (TFLOP/s as their authors count them; other shapes)
ATTENTION_PUBLISHED = [
    ("XeTLA FMHA fwd, GPU Max 1550, 4 x 48 heads, seq 1024, d 64, non-causal: 88 TFLOP/s",
     "github.com/intel/intel-xpu-backend-for-triton/issues/773 (comment of 2024-05-13)"),
    ("XeTLA FMHA fwd, GPU Max 1100, 4 x 48 heads, seq 1024, d 64: 65 TFLOP/s non-causal, 110 causal "
     "(full-matrix FLOP count)", "github.com/intel/intel-xpu-backend-for-triton/issues/773"),
    ("sycl-tla counts causal FLOPs as half the matrix, as the rows below do (kept (query, key) pairs only)",
     "github.com/intel/sycl-tla/pull/322"),
]


def attention_plan(arch: str, **shape):
    """The plan convert-linalg-to-xetile makes for attention_source(**shape)."""
    from xedialects.lowering.linalg_to_xetile.attention_match import match_attention
    from xedialects.lowering.linalg_to_xetile.attention_plan import plan_attention
    from xedialects.passes.utils.ir_walk import walk
    from attention_source import attention_source

    mod = xedialects.parse(attention_source(**shape), "attention.mlir")
    run(mod, "builtin.module(xe-bufferize)")
    first = next(o for o in walk(mod.operation) if o.name == "linalg.generic")
    return plan_attention(match_attention(first), get_arch(arch))


def kernel_isa(source: str, kernel: str, arch: str) -> dict | None:
    """IGC's machine-code counts of gpu.func `kernel` of linalg program `source` lowered for `arch` (the
    `isa_report` row perf_model.with_isa reads), or None without IGC."""
    from xedialects.lowering.xegpu_to_spirv.spirv_export import export_spirv
    from xedialects.runtime.igc import build_module, igc_available

    if not igc_available():
        return None
    mod = xedialects.parse(source, f"{kernel}.mlir")
    with contextlib.redirect_stderr(io.StringIO()):      # the blocking pass's remarks (e.g. on the K^T tile)
        run(mod, f"builtin.module(xe-gemm-to-xegpu{{arch={arch}}}, convert-xegpu-to-spirv{{target=pvc arch={arch}}})")
    binary, meta = export_spirv(mod, "pvc", arch)
    k = build_module(binary, meta, arch).kernels[kernel]
    counts = lambda c: c and {"instructions": c.instructions, "dpas": c.dpas,  # noqa: E731
                              "scratch_messages": c.scratch_messages}
    return {"total": counts(k.total), "k_loop": counts(k.k_loop)}


def attention_isa(arch: str, **shape) -> dict | None:
    """kernel_isa of the fused kernel for attention_source(**shape)."""
    from attention_source import attention_source

    return kernel_isa(attention_source(**shape), "attention_attention_0", arch)


def attention_prediction(plan, arch: str, isa: dict | None):
    """The perf model's prediction for `plan`, with IGC's instruction counts (`isa`) when given: one K/V
    step issues 2 x (block_n / 16) x (d / 16) DPAS per subgroup, the steps the model charges a work-group."""
    from xedialects.lowering.linalg_to_xetile.attention_plan import busiest_steps, model_work

    hw = get_arch(arch)
    work = model_work(plan, hw)
    if isa is not None:
        step_dpas = 2 * (plan.block_n // 16) * (plan.form.d // 16)
        work = with_isa(work, isa, step_dpas, busiest_steps(plan, hw))
    return predict(hw, work)


def _us(t: float) -> str:
    return f"{t * 1e6:.1f} us" if t < 1e-3 else f"{t * 1e3:.3f} ms"


def print_attention(arch: str, show_plans: bool = False, use_isa: bool = True):
    from xedialects.lowering.linalg_to_xetile.attention_plan import predict_combine, useful_flops

    print(f"## Attention [{arch}] ({HEADS} heads, head dim {HEAD_DIM}, bf16, one fused flash-attention kernel)")
    print(f"{'form':<9} {'Lq':>6} {'Lk':>6} {'block':>9} {'slices':>6} {'WGs':>6} {'time':>10} {'combine':>8} "
          f"{'TFLOP/s':>8} {'GB/s':>7}  bound")
    # (block: query rows x K/V rows per step; WGs = query blocks x heads x K/V slices)
    cases = ([("prefill c", s, s, True) for s in PREFILL_SEQ]
             + [("chunk br", lq, lk, "bottom-right") for lq, lk in CHUNKS]
             + [("decode", 1, kv, False) for kv in DECODE_KV])
    for form, lq, lk, causal in cases:
        shape = dict(batch=(1, HEADS), lq=lq, lk=lk, d=HEAD_DIM, elt="bf16", out="bf16", causal=causal,
                     scale=HEAD_DIM ** -0.5)
        plan = attention_plan(arch, **shape)
        isa = attention_isa(arch, **shape) if use_isa else None
        p, c = attention_prediction(plan, arch, isa), predict_combine(plan)
        t = p.time_s + (c.time_s if c else 0.0)
        wgs = plan.groups[0] * plan.groups[1] * plan.groups[2]
        print(f"{form:<9} {lq:>6} {lk:>6} {plan.block_m:>4}x{plan.block_n:<4} {plan.kv_splits:>6} {wgs:>6} "
              f"{_us(p.time_s):>10} {_us(c.time_s) if c else '-':>8} {useful_flops(plan.form) / t / 1e12:>8.2f} "
              f"{p.gbs:>7.0f}  {p.bound}{' [IGC code]' if isa else ''}")
        if show_plans:
            print("\n".join("    " + x for x in plan.describe().splitlines()))
    print("[IGC code]: the model's issue term reads IGC's machine code for the kernel (perf_model.with_isa); "
          "--no-isa: DPAS / vector terms only")
    print("slices > 1: flash-decoding, K/V split into slices over work-groups, then a combine kernel (its time in "
          "'combine', latency-bound; its launch not priced); TFLOP/s: the kept (query, key) pairs (causal: below "
          "the diagonal) over time + combine; GB/s and bound: the split kernel's")
    print("chunk br: a chunk of Lq new tokens over Lk keys with the bottom-right causal mask (chunked prefill)")
    print("published, for scale:")
    for what, src in ATTENTION_PUBLISHED:
        print(f"  {what}\n    {src}")
    print()


# ---- quantized GEMM --------------------------------------------------------------------------------

def quantized_plan(m, n, k, arch: str, wtype="i8", layout="kn"):
    """The GEMM plan convert-linalg-to-xetile makes for the fused program (b_storage_type = `wtype`); None when
    the dequantization is not fused (its remark says why)."""
    mod = xedialects.parse(quantized_gemm_source(m, n, k, wtype, layout=layout), f"qgemm_{m}x{n}x{k}.mlir")
    with plan_recording() as plans, contextlib.redirect_stderr(io.StringIO()):
        run(mod, f"builtin.module(convert-linalg-to-xetile{{arch={arch}}})")
    plan = plans.get("qgemm_0")
    return plan if plan is not None and plan.b_storage_type == wtype else None


def quantized_rows(arch: str, use_isa: bool = True, layout: str = "kn"):
    """(kernel, M, N, K, plan, work, prediction) per shape and weight type (plan, work and prediction None
    when not fused); with IGC (and `use_isa`) the model's issue term reads the kernel's machine code, which
    holds the dequantization's vector work."""
    hw = get_arch(arch)
    rows = []
    for m, n, k in QUANT_SHAPES:
        for wtype in ("i8", "i4"):
            name = f"W{8 if wtype == 'i8' else 4}A16"
            plan = quantized_plan(m, n, k, arch, wtype, layout)
            if plan is None:
                rows.append((name, m, n, k, None, None, None))
                continue
            work = gemm_work(quantized_gemm_source(m, n, k, wtype, layout=layout), "qgemm_0", plan, arch, use_isa)
            rows.append((name, m, n, k, plan, work, predict(hw, work)))
    return rows


def gemm_work(source: str, kernel: str, plan, arch: str, use_isa: bool = True):
    """The model's work for the GEMM kernel `kernel` of `source` planned as `plan`, its issue term from IGC's
    machine code when `use_isa` and IGC is present."""
    work = work_from_plan(plan, get_arch(arch))
    isa = kernel_isa(source, kernel, arch) if use_isa else None
    if isa is not None:
        dm, dn, dk = plan.dpas
        step_dpas = -(-plan.sg_data[0] // dm) * -(-plan.sg_data[1] // dn) * (plan.k_step // dk)
        work = with_isa(work, isa, step_dpas, -(-plan.planned_mnk[2] // (plan.k_step * max(1, plan.k_slices))))
    return work


def print_quantized(arch: str, use_isa: bool = True, layout: str = "kn"):
    print(f"## Quantized GEMM [{arch}] (f16 activations, f32 result, scales per 128 rows of K, weights stored "
          f"{'N x K' if layout == 'nk' else 'K x N'})")
    print(f"{'kernel':<7} {'M':>4} {'N':>6} {'K':>5}  {'plan (wg tile, sg layout, k_step, grid)':<38} "
          f"{'time':>10} {'TFLOP/s':>8} {'GB/s':>7}  bound")
    for name, m, n, k, plan, work, p in quantized_rows(arch, use_isa, layout):
        if plan is None:
            print(f"{name:<7} {m:>4} {n:>6} {k:>5}  not fused (two kernels; docs/quantized-gemm.md \"N x K weights\")")
            continue
        gx, gy, gz = plan.grid
        desc = (f"{plan.wg_tile[0]}x{plan.wg_tile[1]}, {plan.sg_layout[0]}x{plan.sg_layout[1]}, "
                f"k{plan.k_step}, {gx}x{gy}x{gz}")
        t = p.time_s
        ts = f"{t * 1e6:.1f} us" if t < 1e-3 else f"{t * 1e3:.3f} ms"
        print(f"{name:<7} {m:>4} {n:>6} {k:>5}  {desc:<38} {ts:>10} {p.tflops:>8.2f} "
              f"{work.bytes_hbm / t / 1e9:>7.0f}  {p.bound}")


def print_quantized_published(use_isa: bool = True):
    """The published W4A16 kernel times beside the model's figure for the same shape and layout (N x K weights,
    i4 packed along K, f16 output) on bmg, with IGC's code when present."""
    hw = get_arch("bmg")
    print("## Quantized GEMM beside published figures [bmg] (W4A16, N x K weights, f16 scales and output)")
    for m, n, k, group, what, src in QUANT_PUBLISHED:
        source = quantized_gemm_source(m, n, k, "i4", group=group, acc="f16", layout="nk")
        mod = xedialects.parse(source, f"qgemm_{m}x{n}x{k}.mlir")
        with plan_recording() as plans, contextlib.redirect_stderr(io.StringIO()):
            run(mod, "builtin.module(convert-linalg-to-xetile{arch=bmg})")
        plan = plans.get("qgemm_0")
        if plan is None or plan.b_storage_type != "i4":
            ours = "not fused"
        else:
            work = gemm_work(source, "qgemm_0", plan, "bmg", use_isa)
            isa = work.isa_instructions_per_sg > 0
            p = predict(hw, work)
            scales = n * (k // group) * 2
            ours = (f"ours (model{', IGC code' if isa else ''}): {p.time_s * 1e6:.1f} us, "
                    f"{(n * k // 2 + scales) / p.time_s / 1e9:.0f} GB/s counted as they count, {p.bound}")
        print(f"  M={m} N={n} K={k} G={group}: {what}\n    {ours}\n    {src}")


# ---- quantized gemv --------------------------------------------------------------------------------
# docs/quantized-gemm.md "gemv": the decode (M = 1) linear layer as a linalg.matvec of N x K weights (a
# framework's [out, in] layout), the dequantization fused into the gemv kernel (vector FMAs + tile_reduce)

GEMV_SHAPES = [(4096, 4096), (11008, 4096)]    # (N, K): the attention projections and the MLP's up projection


def gemv_loop_issue(work, isa: dict | None, report: dict, trips: int):
    """`work` with the issue term of IGC's machine code for a kernel without DPAS: its streaming loop (the
    `hot_loop` of the ISA row, one iteration) times the iterations (the IR loop's `trips`, scaled by the IR's
    block loads per step over the machine loop's block loads: IGC may unroll), plus the code outside it."""
    from dataclasses import replace

    hot = isa and isa.get("hot_loop")
    loads = (report.get("per_k_step") or {}).get("block_loads")
    if not hot or not trips or not loads or not hot["block_loads"]:
        return work, None
    iters = trips * loads / hot["block_loads"]
    total = isa["total"]["instructions"] - hot["instructions"] + hot["instructions"] * iters
    return replace(work, isa_instructions_per_sg=int(round(total)),
                   assumptions=work.assumptions + (f"issue: IGC's loop, {hot['instructions']} instructions per "
                                                   f"iteration, {iters:g} iterations",)), hot


def quantized_gemv_rows(arch: str, use_isa: bool = True):
    """(kernel, N, K, plan, prediction, IGC loop row or None, weights per loop iteration of a subgroup) per shape
    and weight type: the fused dequantizing matvec (f16 x, f32 y, scales per 128 K), priced from its XeGPU
    (kernel_report: the launch's bytes, the weights at their width) and, with IGC, its machine code."""
    from xedialects.lowering.linalg_to_xetile.memory_plan import plan_gemv
    from xedialects.passes.analysis.kernel_report import kernel_report
    from xedialects.passes.analysis.launch_sizes import launches
    from xedialects.passes.analysis.perf_model import work_from_report
    from quantized_source import quantized_gemv_source

    hw = get_arch(arch)
    rows = []
    for n, k in GEMV_SHAPES:
        for wtype in ("i8", "i4"):
            src = quantized_gemv_source(n, k, wtype, 128, "f16", "f32")
            mod = xedialects.parse(src, f"qgemv_{n}x{k}.mlir")
            with contextlib.redirect_stderr(io.StringIO()):
                run(mod, f"builtin.module(xe-gemm-to-xegpu{{arch={arch} dequant-gemv=vector}})")
            (r,) = kernel_report(mod, hw, isa=use_isa and igc_ok())
            plan = plan_gemv(n, k, 1, 1, "f16", hw, can_split=True, weights=(wtype, 128))
            step = plan.unroll * plan.wg_tile[1]
            trips = -(-(plan.chunk if plan.slices > 1 else k) // step)     # loop steps of one work-group
            work = work_from_report(dict(r, isa=None), launches(mod).get(r["kernel"]), hw)
            work, hot = gemv_loop_issue(work, r.get("isa"), r, trips)
            per_iter = plan.sg_data[0] * plan.sg_data[1] * plan.unroll
            if hot is not None:
                hot = dict(hot, spill_bytes=r["isa"]["spill_bytes"])
            rows.append((f"W{8 if wtype == 'i8' else 4}A16", n, k, plan, predict(hw, work), hot, per_iter))
    return rows


def quantized_gemv_dpas_rows(arch: str, use_isa: bool = True):
    """(kernel, N, K, plan, prediction) of the default lowering of the same matvecs: the M = 1 DPAS GEMM
    (gemv_as_gemm), the weights as B read transposed, priced as the GEMM rows (with IGC's code when present)."""
    from quantized_source import quantized_gemv_source

    hw = get_arch(arch)
    rows = []
    for n, k in GEMV_SHAPES:
        for wtype in ("i8", "i4"):
            src = quantized_gemv_source(n, k, wtype, 128, "f16", "f32")
            with plan_recording() as plans, contextlib.redirect_stderr(io.StringIO()):
                run(xedialects.parse(src, f"qgemv_{n}x{k}.mlir"),
                    f"builtin.module(convert-linalg-to-xetile{{arch={arch}}})")
            plan = plans["qgemv_0"]
            rows.append((f"W{8 if wtype == 'i8' else 4}A16", n, k, plan,
                         predict(hw, gemm_work(src, "qgemv_0", plan, arch, use_isa))))
    return rows


def igc_ok() -> bool:
    from xedialects.runtime.igc import igc_available

    return igc_available()


def print_quantized_gemv(arch: str, use_isa: bool = True):
    print(f"## Quantized gemv [{arch}] (M = 1 as linalg.matvec of N x K weights: f16 x, f32 y, scales per 128 of K)")
    print("dequant-gemv=dpas (the default): the M = 1 DPAS GEMM, B = the weights read transposed")
    print(f"{'kernel':<7} {'N':>6} {'K':>5}  {'plan (wg tile, sg layout, k_step, grid)':<38} {'time':>10} {'GB/s':>7}  "
          "bound")
    for name, n, k, plan, p in quantized_gemv_dpas_rows(arch, use_isa):
        gx, gy, gz = plan.grid
        desc = (f"{plan.wg_tile[0]}x{plan.wg_tile[1]}, {plan.sg_layout[0]}x{plan.sg_layout[1]}, k{plan.k_step}, "
                f"{gx}x{gy}x{gz}")
        print(f"{name:<7} {n:>6} {k:>5}  {desc:<38} {_us(p.time_s):>10} {p.gbs:>7.0f}  {p.bound}")
    print("dequant-gemv=vector: the gemv kernel (vector FMAs and a reduction per row)")
    print(f"{'kernel':<7} {'N':>6} {'K':>5}  {'plan (wg tile, sg tile, unroll, grid)':<38} {'time':>10} {'GB/s':>7}  "
          "bound        IGC loop: instr / weights, spill")
    for name, n, k, plan, p, hot, per_iter in quantized_gemv_rows(arch, use_isa):
        gx, gy = plan.grid()
        desc = (f"{plan.wg_tile[0]}x{plan.wg_tile[1]}, {plan.sg_data[0]}x{plan.sg_data[1]}, x{plan.unroll}, "
                f"{gx}x{gy}")
        t = p.time_s
        ts = f"{t * 1e6:.1f} us" if t < 1e-3 else f"{t * 1e3:.3f} ms"
        isa = (f"{hot['instructions']} / {per_iter} = {hot['instructions'] / per_iter:.2f}, {hot['spill_bytes']} B"
               if hot else "")
        print(f"{name:<7} {n:>6} {k:>5}  {desc:<38} {ts:>10} {p.gbs:>7.0f}  {p.bound:<12} {isa}")
    print("GB/s: the launch's HBM bytes (the weights at 1 or 1/2 byte, x, y, the scales) over the model's time; "
          "IGC loop: instructions of one iteration of the machine code's streaming loop per weight a subgroup "
          "dequantizes in it")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--arch", default="pvc", choices=["pvc", "bmg"])
    ap.add_argument("--plans", action="store_true", help="print each attention kernel's plan with its reasons")
    ap.add_argument("--no-isa", action="store_true", help="without IGC's instruction counts (the model's "
                    "DPAS / vector terms only; faster)")
    ap.add_argument("--weights", default="kn", choices=["kn", "nk"], help="the quantized GEMMs' weights stored "
                    "K x N or N x K (a framework's linear layer, B read transposed)")
    args = ap.parse_args(argv)
    print_attention(args.arch, args.plans, not args.no_isa)
    print_quantized(args.arch, not args.no_isa, args.weights)
    print()
    print_quantized_gemv(args.arch, not args.no_isa)
    print()
    print_quantized_published(not args.no_isa)


if __name__ == "__main__":
    main()
