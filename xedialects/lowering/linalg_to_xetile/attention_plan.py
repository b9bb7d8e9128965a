"""The flash-attention planner (stage 1): query rows per work-group and per subgroup, the K/V
block streamed per loop step, the register-file mode and the grid, each with its reason
(`--xe-print-plan`). Hardware numbers come from the `XeArch` table; the rules are in
docs/attention.md "Plan"."""
from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

from ...arch import XeArch
from .attention_match import AttentionForm, NotAttention

_BYTES = {"f16": 2, "bf16": 2, "f32": 4}
# a causal kernel is split over K/V only when the model predicts the split and combine kernels at most this
# fraction of the single kernel's time: a second launch costs what the model does not price
_SPLIT_GAIN = 0.8


@dataclass
class AttentionPlan:
    arch: str
    sg_rows: int          # query rows per subgroup (DPAS repeat count)
    num_subgroups: int    # subgroups of a work-group, stacked (sg_layout [num_subgroups, 1])
    block_n: int          # K/V rows per loop step
    grf_mode: str
    groups: tuple         # grid (x: query blocks, y: 1, z: batch x heads)
    reg_bytes: int        # estimated live registers per subgroup
    reasons: list = field(default_factory=list)
    kv_splits: int = 1    # flash-decoding: K/V slices over work-groups (grid y), combined by a second kernel
    form: AttentionForm | None = None

    @property
    def block_m(self) -> int:
        return self.sg_rows * self.num_subgroups

    @property
    def tail(self) -> int:
        """Keys in a partial last K/V block that the kernel masks with a -inf table (0: every block is
        whole, or a causal mask hides the keys past Lk from every query row)."""
        return 0 if _causal_hides_past_lk(self.form) else self.form.lk % self.block_n

    def describe(self) -> str:
        f = self.form
        gx, gy, gz = self.groups
        shape = "x".join(str(b) for b in f.batch)
        lines = [f"attention plan [{self.arch}]: {shape} x softmax({_mask_name(f)}Q[{f.lq}x{f.d} "
                 f"{f.elt}] . K^T[{f.d}x{f.lk}] * {f.scale:g}) . V[{f.lk}x{f.d}] -> {f.out_elt}",
                 f"  query block      : {self.block_m} rows ({self.num_subgroups} subgroups as "
                 f"{self.num_subgroups}x1, {self.sg_rows} whole rows each)",
                 f"  K/V block        : {self.block_n} rows per loop step, prefetched one step ahead"
                 + (f"; {self.kv_splits} slices (flash-decoding)" if self.kv_splits > 1 else ""),
                 f"  registers        : {self.grf_mode} GRF mode, ~{self.reg_bytes} B live per subgroup",
                 f"  grid             : x={gx} (query blocks) y={gy} (K/V slices) z={gz} (batch x heads) = "
                 f"{gx * gy * gz} work-groups",
                 "  reasons:"]
        lines += [f"    - {r}" for r in self.reasons]
        p, c = predict_attention(self), predict_combine(self)
        if p is not None:
            lines.append(f"  model [{self.arch}]      : predicted {p.time_s * 1e6:.3f} us, {p.tflops:.2f} TFLOP/s "
                         f"(useful), bound: {p.bound}"
                         + (f"; combine kernel {c.time_s * 1e6:.3f} us ({c.bound})" if c is not None else ""))
        return "\n".join(lines)


def _causal_hides_past_lk(f: AttentionForm) -> bool:
    """A causal mask hides the keys past Lk from every query row: the last row's diagonal is left of Lk
    (bottom-right always; top-left only when Lq <= Lk: a row i >= Lk sees keys up to i)."""
    return f.causal and f.lq - 1 + f.causal_offset < f.lk


def _mask_name(f: AttentionForm) -> str:
    if not f.causal:
        return ""
    return "causal bottom-right " if f.causal_offset else "causal "


def _regs(d: int, bn: int, rows: int, elt: str) -> int:
    """Live bytes per subgroup inside the loop: Q rows, the accumulator, one S/P block, and one K or V
    block (each subgroup holds the whole block: its rows need every key; K is dead once S is made,
    before V is loaded)."""
    e = _BYTES[elt]
    return rows * d * e + rows * d * 4 + rows * bn * (4 + e) + bn * d * e + 2 * rows * 4


def plan_attention(form: AttentionForm, hw: XeArch) -> AttentionPlan:
    reasons = []
    _, _, dk = hw.dpas_shape(form.elt, form.elt, "f32")
    m_rep = hw.dpas.max_repeat_count
    if form.d % dk or form.d > 256:
        raise NotAttention(f"head dimension {form.d} is not a multiple of {dk} (the DPAS K of {form.elt}) up to 256")
    large = hw.grf_file_bytes(True)
    rows = min(8, m_rep)
    # not causal: the diagonal table and the masked loop's copy of the body spill at 16 rows (IGC 2.40,
    # pvc, d 64 bf16: 7,296 B; docs/attention.md "Plan")
    wide_fits = _block_n(form, 2 * rows, large, strict=False)[0] >= 32
    if form.lq > rows and not form.causal and wide_fits:
        rows *= 2
        reasons.append(f"{rows} query rows per subgroup: two DPAS row blocks (repeat count <= {m_rep}) share "
                       "each row reduction, rescale and K/V block read (a K/V block of 32+ rows fits the "
                       "large register file); a subgroup owns whole rows, so the row max and row sum never leave it")
    else:
        reasons.append(f"{rows} query rows per subgroup: one DPAS row block (repeat count <= {m_rep}); a subgroup "
                       "owns whole rows, so the row max and row sum never leave it")
    sgs = 64 // rows
    while sgs > 1 and (sgs // 2) * rows >= form.lq:
        sgs //= 2
    reasons.append(f"{sgs} subgroups stacked: {sgs * rows} query rows per work-group "
                   + ("(the largest: 64 rows)" if sgs * rows == 64 else f"(Lq = {form.lq} needs no more)"))
    budget = large if rows > 8 else int(large * 0.75)
    bn, tail = _block_n(form, rows, budget)
    reasons.append(f"K/V block {bn}: the largest of 64/32/16 " + ("" if tail else f"dividing Lk = {form.lk} ")
                   + "whose K, V, S, P, Q and accumulator fit " + ("" if rows > 8 else "3/4 of ")
                   + f"the large register file ({budget} B)"
                   + (f"; none divides Lk = {form.lk}: the last block holds {tail} keys, the keys past Lk "
                      + ("are hidden from every query row by the causal mask" if _causal_hides_past_lk(form) else
                         "get -inf from a table in a last, masked step (a load past Lk reads 0)")
                      if tail else ""))
    reg = _regs(form.d, bn, rows, form.elt)
    grf = "large" if reg > hw.grf_file_bytes(False) // 2 else "default"
    reasons.append(f"{grf} GRF mode: ~{reg} B live per subgroup vs {hw.grf_file_bytes(False)} B (default) / "
                   f"{large} B (large)")
    gx = -(-form.lq // (sgs * rows))
    gz = 1
    for b in form.batch:
        gz *= b
    plan = AttentionPlan(hw.name, rows, sgs, bn, grf, (gx, 1, gz), reg, reasons, form=form)
    splits = _causal_splits(plan, hw) if form.causal else _kv_splits(form, gx, gz, bn, hw, reasons)
    plan.kv_splits, plan.groups = splits, (gx, splits, gz)
    reasons.append(f"grid {gx} x {splits} x {gz}: one work-group per query block"
                   + (f" and K/V slice of {slice_keys(plan)} keys" if splits > 1 else "")
                   + " of one (batch, head)")
    if form.causal:
        dg = form.causal_offset
        reasons.append("causal" + (f" bottom-right (query i sees keys <= i + {dg} = Lk - Lq)" if dg else "")
                       + ": the K/V loop stops at the block holding the work-group's last query row's diagonal "
                       "(blocks above it are never read); the blocks crossing the diagonal run in a second loop "
                       "that masks" + ("; a slice starting right of a row's diagonal leaves that row the neutral "
                                       "partial (row max -1e30, row sum 0)" if splits > 1 else ""))
    return plan


def _up16(n: int) -> int:
    return -(-n // 16) * 16


def _block_n(form: AttentionForm, rows: int, budget: int, strict: bool = True) -> tuple[int, int]:
    """(K/V rows per loop step, keys in the partial last block or 0): the largest of 64/32/16 dividing Lk
    whose live registers fit `budget`; when none divides Lk, the largest that fits and does not pass Lk
    rounded up to 16 (a K/V cache of 1000 keys: 64, a last block of 40). The kernel masks the partial
    block's missing keys (a block load past Lk reads 0, which would enter the row max and sum). Nothing
    fits: NotAttention, or (0, 0) when not `strict`."""
    fits = [c for c in (64, 32, 16) if _regs(form.d, c, rows, form.elt) <= budget]
    for c in fits:
        if form.lk % c == 0:
            return c, 0
    for c in fits:
        if c <= _up16(form.lk):
            return c, form.lk % c
    if not strict:
        return 0, 0
    raise NotAttention(f"no K/V block of 64, 32 or 16 rows fits {budget} B of registers at head dimension "
                       f"{form.d}")


def _kv_splits(form: AttentionForm, gx: int, gz: int, bn: int, hw: XeArch, reasons: list) -> int:
    """Flash-decoding: with one query block per head and fewer work-groups than Xe-cores, the keys are
    split into slices (a power of two, whole K/V blocks, at least 2 blocks each; the last slice holds a
    partial last block) until the Xe-cores are covered; a second kernel combines the slices. A causal mask's
    slices are the model's choice (`_causal_splits`)."""
    if gx != 1 or form.causal or gz >= hw.xe_cores:
        return 1
    s, blocks = 1, -(-form.lk // bn)
    while gz * s * 2 <= hw.xe_cores and blocks % (s * 2) == 0 and blocks // (s * 2) >= 2:
        s *= 2
    if s > 1:
        reasons.append(f"flash-decoding: {gz} work-groups (one query block per head) < {hw.xe_cores} Xe-cores, "
                       f"so K/V are split into {s} slices of {blocks // s * bn} keys over work-groups; a combine "
                       "kernel folds their (accumulator, row max, row sum)")
    return s


def _causal_splits(plan: AttentionPlan, hw: XeArch) -> int:
    """K/V slices of a causal kernel, chosen by the perf model: with fewer work-groups than Xe-cores (chunked
    prefill: a few query blocks per head over a long KV cache), each power of two of slices (whole K/V blocks,
    at least 2 per slice) is priced -- the split kernel plus the combine kernel -- and the fastest kept. Every
    slice but those crossing the diagonal is unmasked."""
    f, (gx, _, gz) = plan.form, plan.groups
    if gx * gz >= hw.xe_cores or hw.perf is None:
        return 1
    blocks = -(-f.lk // plan.block_n)
    if blocks < 4:       # two slices of at least 2 blocks each are not possible (1 block: the loop prices nothing)
        return 1
    wave = hw.xe_cores * max(1, hw.threads_per_core(plan.grf_mode == "large") // plan.num_subgroups)
    times, s = {}, 1
    while blocks % s == 0 and blocks // s >= 2 and gx * gz * s <= wave:     # more slices than one wave: no gain
        trial = replace(plan, kv_splits=s, groups=(gx, s, gz), reasons=[])
        times[s] = predict_attention(trial).time_s + (predict_combine(trial).time_s if s > 1 else 0.0)
        s *= 2
    best = min(times, key=lambda k: (times[k], k))
    if times[best] > _SPLIT_GAIN * times[1]:
        best = 1
    if len(times) > 1:
        priced = ", ".join(f"{k} slice{'s' if k > 1 else ''} {t * 1e6:.2f} us" for k, t in times.items())
        plan.reasons.append(
            f"K/V slices under a causal mask: {gx * gz} work-groups < {hw.xe_cores} Xe-cores; the model (split "
            f"kernel + combine kernel) predicts {priced}: "
            + (f"{best} slices of {blocks // best * plan.block_n} keys; a work-group's blocks crossing its rows' "
               "diagonals fall in its last slice(s), the slices left of them run unmasked, those right of them "
               "are empty" if best > 1 else
               f"one slice (a split must save {1 - _SPLIT_GAIN:.0%}: the model does not price the combine's launch)"))
    return best


def slice_keys(plan: AttentionPlan) -> int:
    """Keys of one K/V slice (whole blocks; the last slice holds a partial last block)."""
    return -(-plan.form.lk // plan.block_n) // plan.kv_splits * plan.block_n


def key_blocks(plan: AttentionPlan) -> list[int]:
    """K/V blocks each work-group of one (batch, head) reads: all of Lk, its slice (flash-decoding), or
    (causal) up to its last row's diagonal, within its slice; a partial last block counts whole."""
    f, bm, bn = plan.form, plan.block_m, plan.block_n
    gx, splits = plan.groups[0], plan.kv_splits
    if not f.causal:
        return [-(-f.lk // bn) // splits] * (gx * splits)
    per = slice_keys(plan) // bn
    ends = [-(-min(f.lk, (i + 1) * bm + f.causal_offset) // bn) for i in range(gx)]
    return [max(0, min(e, (s + 1) * per) - s * per) for e in ends for s in range(splits)]


def busiest_steps(plan: AttentionPlan, hw: XeArch) -> float:
    """K/V steps the model charges each work-group: the mean over work-groups (work-groups of all lengths
    share the Xe-cores), but at least the longest work-group's over the work-groups of one Xe-core (with fewer
    work-groups than Xe-cores, a causal work-group that reads all of Lk sets the time)."""
    blocks = key_blocks(plan)
    per_core = -(-plan.groups[0] * plan.groups[1] * plan.groups[2] // hw.xe_cores)
    return max(sum(blocks) / len(blocks), max(blocks) / per_core)


def useful_flops(form: AttentionForm) -> int:
    """2 x 2 x d per (query, key) pair the program keeps: every pair, or (causal) key <= query + offset."""
    heads = 1
    for b in form.batch:
        heads *= b
    dg = form.causal_offset
    pairs = form.lq * form.lk if not form.causal else sum(min(q + 1 + dg, form.lk) for q in range(form.lq))
    return 4 * form.d * pairs * heads


def model_work(plan: AttentionPlan, hw: XeArch):
    """The perf model's `KernelWork` of the fused kernel (docs/attention.md "Model"): per subgroup and
    K/V step two DPAS products of sg_rows x block_n x d, ~10 vector operations per S element and one
    rescale per accumulator element; HBM reads Q, K, V once and writes O once (one head's K and V fit
    L2), L2 serves every work-group's K/V blocks."""
    from ...passes.analysis.perf_model import KernelWork

    f, rows, bn, d = plan.form, plan.sg_rows, plan.block_n, plan.form.d
    eb = _BYTES[f.elt]
    blocks = key_blocks(plan)
    heads = plan.groups[2]
    mean = sum(blocks) / len(blocks)
    steps = math.ceil(busiest_steps(plan, hw))
    vec = int(mean * (rows * bn * (10 + (4 if f.causal else 0)) + rows * d))
    qo = f.lq * d * (eb + _BYTES[f.out_elt]) * heads
    kv = 2 * f.lk * d * eb * heads
    l2 = int(qo + heads * sum(blocks) * 2 * bn * d * eb)
    if plan.kv_splits > 1:       # the slices' (acc, max, sum) written (the combine kernel reads them back)
        l2 += workspace_bytes(plan)
    return KernelWork(
        work_groups=plan.groups[0] * plan.groups[1] * heads, subgroups_per_wg=plan.num_subgroups, k_steps=steps,
        dpas_ops_per_step=4 * rows * bn * d, dpas_type=f.elt, vector_elems_per_sg=vec,
        bytes_hbm=qo + kv, bytes_l2=l2, large_grf=plan.grf_mode == "large", prefetch_distance=1,
        flops=useful_flops(f),
        assumptions=("HBM: Q, K, V read and O written once (one head's K and V fit L2)",
                     "vector work: ~10 operations per S element (scale, max, subtract, exp, sum, round), "
                     "+4 with the mask, 1 per accumulator element per step")
        + (("flash-decoding: the workspace written to L2; the combine kernel is priced on its own (predict_combine)",)
           if plan.kv_splits > 1 else ()))


def workspace_bytes(plan: AttentionPlan) -> int:
    """Flash-decoding's f32 workspace: block_m rows of [acc (d) | row max (16) | row sum (16)] per (batch x head,
    query block, slice)."""
    gx, gy, gz = plan.groups
    return gz * gx * gy * plan.block_m * (plan.form.d + 32) * 4


def combine_work(plan: AttentionPlan, hw: XeArch):
    """The perf model's `KernelWork` of flash-decoding's combine kernel: one work-group per (batch x head,
    query block) reads its slices' partials (one step each, ~4 vector operations per accumulator element) and
    writes O; the workspace comes from HBM when it does not fit L2."""
    from ...passes.analysis.perf_model import KernelWork

    f, (gx, gy, gz) = plan.form, plan.groups
    ws = workspace_bytes(plan)
    o = f.lq * f.d * _BYTES[f.out_elt] * gz
    return KernelWork(
        work_groups=gx * gz, subgroups_per_wg=plan.num_subgroups, k_steps=gy, dpas_ops_per_step=0, dpas_type=None,
        vector_elems_per_sg=gy * plan.sg_rows * (4 * f.d + 40), bytes_hbm=o + (ws if ws > hw.l2_bytes else 0),
        bytes_l2=ws + o, flops=0,
        assumptions=("combine: each slice's partial read once (the workspace stays in L2 when it fits), "
                     "O written once",))


def predict_combine(plan: AttentionPlan):
    """The perf model's prediction for the combine kernel of a plan with K/V slices, or None without
    performance facts or slices."""
    from ...arch import get_arch
    from ...passes.analysis.perf_model import predict

    hw = get_arch(plan.arch)
    if hw.perf is None or plan.kv_splits < 2:
        return None
    return predict(hw, combine_work(plan, hw))


def predict_attention(plan: AttentionPlan):
    """The perf model's prediction for the fused kernel, or None without performance facts."""
    from ...arch import get_arch
    from ...passes.analysis.perf_model import predict

    hw = get_arch(plan.arch)
    if hw.perf is None:
        return None
    return predict(hw, model_work(plan, hw))
