"""GEMM planner (pipeline role: chooses the work-group decomposition for `convert-linalg-to-xetile`).

`plan_gemm(M, N, K, a_type, b_type, c_type, ...)` returns a `GemmPlan`: the work-group tile, the
subgroup layout, the `wg_map`s of A/B/C and of the cooperative prefetch tiles, the K step, the
prefetch distance, split-K, the launch grid, the group order and the register mode, with a
`reasons` list explaining every choice. Pure Python: hardware numbers come from the `XeArch`
table, resolved once by `plan_gemm` and passed to every rule; the numbers here are policy, not
hardware facts. Each rule of docs/planner.md "Rules" is one function named after it
(`k_step_rule`, `work_group_tile_rule`, ...); `_rules_plan` applies them in order.

Dynamic sizes (None) are planned as 4096; split-K is then not used.
`overrides` may set wg_tile, sg_layout, sg_data, k_step, prefetch_distance, a_prefetch_map,
b_prefetch_map, k_slices, split_k_mode, group_order, group_size, grf_mode, local_k_slices; dependent
fields are re-derived and everything is validated (PlanError, a ValueError, says what is wrong).
Last, `plan_search.refine` lets the performance model replace the rules' default choices (rule 10).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field, fields, replace
from typing import NamedTuple

from ...arch import ArchError, XeArch, canonical_type, elem_bytes, get_arch
from ...passes.analysis.registers import GRF_MODES
from .local_kslice import local_kslice_errors
from .plan_search import refine
from .wg_map_rule import Pair, WgMap, map_text, wg_map_rule_error

__all__ = ["PlanError", "GemmPlan", "plan_gemm", "validate_plan", "wg_map_rule_error", "OVERRIDABLE"]

# ---- policy constants (not hardware facts) ----------------------------------------------------
DEFAULT_WG_TILE = (256, 256)      # rfc-xetile.md appendix 2.1
DEFAULT_SG_TILE = (32, 64)        # appendix 2.1 #mp_c sg_data
MIN_WG_TILE = (32, 64)            # smallest general tile when shrinking for occupancy
SPLIT_K_MIN_WG_TILE = (128, 128)  # keep big tiles when K slicing provides the parallelism
# at least one subgroup per vector engine of an Xe-core: hw.vector_engines_per_core (arch table)
DEFAULT_PREFETCH_DISTANCE = 3     # appendix 2.1: prefetch tiles start 3 K steps ahead
MAX_PREFETCH_DISTANCE = 64        # policy: prefetches ahead of a K loop whose trip count is unknown (each one unrolled)
MIN_K_STEPS_PER_SLICE = 16        # split-K: amortize prologue, prefetch warm-up and atomics
TALL_K_RATIO = 4                  # split-K only when K >= 4 x max(M, N)
DYNAMIC_SIZE = 4096               # planning size for dynamic dimensions

OVERRIDABLE = ("wg_tile", "sg_layout", "sg_data", "k_step", "prefetch_distance", "a_prefetch_map",
               "b_prefetch_map", "k_slices", "split_k_mode", "group_order", "group_size", "grf_mode",
               "local_k_slices")
_DERIVED = ("a_wg_map", "b_wg_map", "c_wg_map", "num_subgroups", "wg_size", "grid", "subgroup_size",
            "dpas", "acc_type")
GROUP_ORDERS = ("row_major", "swizzle")
SPLIT_K_MODES = ("none", "atomic")


class PlanError(ValueError):
    """An illegal plan (usually from an override); the message says which rule is broken."""


def _cdiv(a: int, b: int) -> int:
    return -(-a // b)


def _pow2_ceil(x: int) -> int:
    return 1 << max(0, (int(x) - 1).bit_length())


def _pow2_floor(x: float) -> int:
    return 1 << max(0, int(math.floor(math.log2(max(1.0, x)))))


def _fmt(p) -> str:
    return f"{p[0]}x{p[1]}"


def _per_sg(tile: Pair, layout: Pair, data: Pair) -> int:
    """Elements one subgroup holds under the RFC round-robin distribution."""
    n = 1
    for i in range(2):
        n *= data[i] * max(1, tile[i] // (layout[i] * data[i]))
    return n


# ---- the plan ---------------------------------------------------------------------------------

@dataclass
class GemmPlan:
    """A GEMM decomposition. Pairs are (rows, columns); wg_maps are (sg_layout, sg_data)."""

    arch: str
    m: int | None
    n: int | None
    k: int | None
    batch: int
    a_type: str
    b_type: str
    c_type: str
    acc_type: str
    transpose_a: bool
    transpose_b: bool
    planned_mnk: tuple[int, int, int]     # sizes planned for (dynamic dims -> DYNAMIC_SIZE)
    dpas: tuple[int, int, int]            # (max M, N, K) of one DPAS
    wg_tile: Pair
    sg_layout: Pair
    sg_data: Pair                         # C tile of one subgroup
    k_step: int
    a_wg_map: WgMap
    b_wg_map: WgMap
    c_wg_map: WgMap
    prefetch_distance: int
    a_prefetch_map: WgMap
    b_prefetch_map: WgMap
    k_slices: int
    split_k_mode: str                     # "none" | "atomic"
    grid: tuple[int, int, int]            # launch order (x = N tiles, y = M tiles, z = batch x k_slices)
    group_order: str                      # "row_major" | "swizzle"
    group_size: int                       # work-group rows per swizzle group (1 for row_major)
    num_subgroups: int
    subgroup_size: int
    wg_size: int                          # work-items = num_subgroups x subgroup_size
    grf_mode: str                         # "default" | "large"
    grf_count: int
    acc_bytes: int                        # per subgroup
    a_bytes: int
    b_bytes: int
    a_load: str
    b_load: str
    overrides: dict = field(default_factory=dict)
    reasons: list[str] = field(default_factory=list)
    local_k_slices: int = 1               # subgroup groups splitting K inside a work-group (SLM reduce)
    b_storage_type: str | None = None     # B's element type in memory when the kernel dequantizes it (i8)

    # ---- derived views -----------------------------------------------------------------------
    @property
    def grid_m(self) -> int:
        return self.grid[1]

    @property
    def grid_n(self) -> int:
        return self.grid[0]

    @property
    def num_work_groups(self) -> int:
        return self.grid[0] * self.grid[1] * self.grid[2]

    @property
    def dynamic(self) -> bool:
        return None in (self.m, self.n, self.k)

    @property
    def k_per_slice(self) -> int:
        steps = _cdiv(self.planned_mnk[2], self.k_step)
        return _cdiv(steps, self.k_slices) * self.k_step

    @property
    def inner_subgroups(self) -> int:
        """Subgroups of one local k-slice (sg_layout); num_subgroups counts all slices."""
        return self.sg_layout[0] * self.sg_layout[1]

    def to_dict(self) -> dict:
        def conv(v):
            if isinstance(v, tuple):
                return [conv(x) for x in v]
            if isinstance(v, list):
                return [conv(x) for x in v]
            if isinstance(v, dict):
                return {k: conv(x) for k, x in v.items()}
            return v

        d = {f.name: conv(getattr(self, f.name)) for f in fields(self)}
        d["num_work_groups"] = self.num_work_groups
        d["k_per_slice"] = self.k_per_slice
        return d

    def describe(self) -> str:
        """Readable multi-line plan (what `xe-opt --xe-print-plan` prints)."""
        M, N, K = ("?" if v is None else str(v) for v in (self.m, self.n, self.k))
        bt = f"{self.batch} x " if self.batch > 1 else ""
        ta = "^T" if self.transpose_a else ""
        tb = "^T" if self.transpose_b else ""
        lines = [
            f"GEMM plan [{self.arch}]: {bt}C[{M}x{N} {self.c_type}] += A{ta}[{M}x{K} {self.a_type}] "
            f"* B{tb}[{K}x{N} {self.b_type}]  (accumulate {self.acc_type})",
        ]
        if self.dynamic:
            pm, pn, pk = self.planned_mnk
            lines.append(f"  planned for      : {pm}x{pn}x{pk} (dynamic sizes)")
        dm, dn, dk = self.dpas
        slices = f", {self.k_slices} k-slices" if self.k_slices > 1 else ""
        lines += [
            f"  dpas             : M<={dm} N={dn} K={dk}",
            f"  work-group tile  : {_fmt(self.wg_tile)}  ({self.num_subgroups} subgroups as "
            f"{_fmt(self.sg_layout)}, {self.wg_size} work-items, subgroup size {self.subgroup_size})",
            f"  subgroup C tile  : {_fmt(self.sg_data)}",
            f"  k_step           : {self.k_step}",
            f"  wg_map A         : {map_text(self.a_wg_map)}   tile {self.wg_tile[0]}x{self.k_step}",
            f"  wg_map B         : {map_text(self.b_wg_map)}   tile {self.k_step}x{self.wg_tile[1]}",
            f"  wg_map C         : {map_text(self.c_wg_map)}   tile {_fmt(self.wg_tile)}",
            f"  prefetch         : distance {self.prefetch_distance} K steps",
            f"  prefetch map A   : {map_text(self.a_prefetch_map)}",
            f"  prefetch map B   : {map_text(self.b_prefetch_map)}",
            f"  loads            : A {self.a_load}; B {self.b_load}",
            f"  split-K          : {self.split_k_mode} (k_slices = {self.k_slices}, "
            f"{self.k_per_slice} of K per slice)",
            f"  grid             : x={self.grid[0]} (N tiles) y={self.grid[1]} (M tiles) "
            f"z={self.grid[2]} (batch{' x k-slices' if self.k_slices > 1 else ''}) "
            f"= {self.num_work_groups} work-groups{slices}",
            f"  group order      : {self.group_order}"
            + (f" (group_size {self.group_size})" if self.group_order == "swizzle" else ""),
            f"  registers        : {self.grf_mode} GRF mode ({self.grf_count} x 64 B); per subgroup "
            f"C {self.acc_bytes} B + A {self.a_bytes} B + B {self.b_bytes} B",
        ]
        if self.local_k_slices > 1:
            lines.insert(-3, f"  local k-slicing  : {self.local_k_slices} slices of each work-group's K range, "
                             f"{self.inner_subgroups} subgroups each; partial C tiles reduced through SLM")
        if self.overrides:
            lines.append("  overrides        : " + ", ".join(f"{k}={v}" for k, v in self.overrides.items()))
        lines.append("  reasons:")
        lines += [f"    - {r}" for r in self.reasons]
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.describe()


# ---- input normalisation ---------------------------------------------------------------------

def _pair(v, name) -> Pair:
    if isinstance(v, str):
        parts = v.lower().replace(",", "x").split("x")
    else:
        parts = list(v) if isinstance(v, (list, tuple)) else [v]
    try:
        p = tuple(int(x) for x in parts)
    except (TypeError, ValueError):
        raise PlanError(f"override {name}: expected two integers like [256, 256] or '256x256', got {v!r}") from None
    if len(p) != 2:
        raise PlanError(f"override {name}: expected two integers, got {v!r}")
    if min(p) < 1:
        raise PlanError(f"override {name}: sizes must be positive, got {list(p)}")
    return p


def _map(v, name) -> WgMap:
    if isinstance(v, dict):
        try:
            return _pair(v["sg_layout"], name + ".sg_layout"), _pair(v["sg_data"], name + ".sg_data")
        except KeyError:
            raise PlanError(f"override {name}: expected {{'sg_layout': [r, c], 'sg_data': [m, n]}}, got {v!r}") from None
    try:
        lay, dat = v
    except (TypeError, ValueError):
        raise PlanError(f"override {name}: expected (sg_layout, sg_data), got {v!r}") from None
    return _pair(lay, name + ".sg_layout"), _pair(dat, name + ".sg_data")


def _int(v, name, lo=None) -> int:
    try:
        i = int(v)
    except (TypeError, ValueError):
        raise PlanError(f"override {name}: expected an integer, got {v!r}") from None
    if isinstance(v, float) and v != i:
        raise PlanError(f"override {name}: expected an integer, got {v!r}")
    if lo is not None and i < lo:
        raise PlanError(f"override {name} must be >= {lo}, got {i}")
    return i


def _norm_overrides(overrides) -> dict:
    ov = {}
    for k, v in (overrides or {}).items():
        key = str(k).replace("-", "_")
        if key in _DERIVED:
            raise PlanError(f"override {key}: this field is derived (wg_maps from sg_layout, sg_data and "
                            f"k_step by the rfc-xetile tile_mma rule; sizes from the tiles); override "
                            f"one of {', '.join(OVERRIDABLE)} instead")
        if key not in OVERRIDABLE:
            raise PlanError(f"unknown override '{k}' (known: {', '.join(OVERRIDABLE)})")
        if v is None:
            continue
        ov[key] = v
    return ov


def _dim(v, name):
    if v is None:
        return None
    try:
        i = int(v)
    except (TypeError, ValueError):
        raise PlanError(f"{name} must be an integer or None (dynamic), got {v!r}") from None
    if i < 0:
        return None
    if i == 0:
        raise PlanError(f"{name} must be positive, got 0")
    return i


# ---- the planner: the problem the rules read -------------------------------------------------

def _acc_type(a: str, b: str, c: str) -> str:
    ca, cb, cc = canonical_type(a), canonical_type(b), canonical_type(c)
    if ca in ("bf16", "f16", "f32", "tf32") and cb in ("bf16", "f16", "f32", "tf32"):
        if cc not in ("f32", "f16", "bf16"):
            raise PlanError(f"C type {c} is not supported for {a} x {b} (use f32, f16 or bf16)")
        return "f32"
    if ca in ("s8", "u8") and cb in ("s8", "u8"):
        if cc not in ("s32", "u32"):
            raise PlanError(f"C type {c} is not supported for {a} x {b} (use i32)")
        return "i32"
    raise PlanError(f"unsupported GEMM input types {a} x {b} (supported: bf16, f16, f32/tf32, i8/u8)")


@dataclass
class _Problem:
    """One GEMM as the rules read it: sizes (None: dynamic), types, the accumulator and DPAS shape,
    the `XeArch` it is planned for (resolved once by `plan_gemm`), the overrides, and the reasons
    recorded so far."""

    hw: XeArch
    ov: dict
    m: int | None
    n: int | None
    k: int | None
    batch: int
    a_type: str
    b_type: str
    c_type: str
    acc: str
    dpas: tuple[int, int, int]
    a_eb: int
    b_eb: int
    acc_eb: int
    transpose_a: bool
    transpose_b: bool
    row_bytes: int                        # widest 2D block row of A (bytes)
    reasons: list[str] = field(default_factory=list)

    @property
    def dynamic(self) -> bool:
        return None in (self.m, self.n, self.k)

    @property
    def planned(self) -> tuple[int, int, int]:
        """(M, N, K) with each dynamic size planned as DYNAMIC_SIZE."""
        return tuple(DYNAMIC_SIZE if v is None else v for v in (self.m, self.n, self.k))

    def why(self, reason: str) -> None:
        self.reasons.append(reason)

    def n_wg(self, tile: Pair) -> int:
        """Work-groups of a launch with work-group tile `tile` (before k-slicing)."""
        pm, pn, _ = self.planned
        return _cdiv(pm, tile[0]) * _cdiv(pn, tile[1]) * self.batch


def _problem(hw: XeArch, ov: dict, M, N, K, a_type, b_type, c_type, batch, transpose_a, transpose_b) -> _Problem:
    m, n, k = _dim(M, "M"), _dim(N, "N"), _dim(K, "K")
    batch = 1 if batch is None or int(batch) < 1 else int(batch)
    try:
        a_type, b_type, c_type = str(a_type), str(b_type), str(c_type)
        acc = _acc_type(a_type, b_type, c_type)
        dpas = hw.dpas_shape(a_type, b_type, acc)
        a_eb, b_eb = elem_bytes(a_type), elem_bytes(b_type)
    except ArchError as e:
        raise PlanError(str(e)) from None
    return _Problem(hw=hw, ov=ov, m=m, n=n, k=k, batch=batch, a_type=a_type, b_type=b_type, c_type=c_type,
                    acc=acc, dpas=tuple(dpas), a_eb=a_eb, b_eb=b_eb, acc_eb=elem_bytes(acc),
                    transpose_a=bool(transpose_a), transpose_b=bool(transpose_b),
                    row_bytes=hw.block_rule("load", a_eb).max_row_bytes)


class SplitKEligibility(NamedTuple):
    """Whether rule 7 (split-K) may slice K, known before the work-group tile is chosen."""

    atomic_ok: bool       # C is the f32/i32 accumulator: partial results can be added atomically
    tall_k: bool          # K >= TALL_K_RATIO x max(M, N) and >= 2 x MIN_K_STEPS_PER_SLICE K steps
    allowed: bool         # both, and no override forbids it
    forced: str | None    # the split_k_mode override


# ---- the planner: the rules (docs/planner.md "Rules", one function per rule) -------------------

def plan_gemm(M, N, K, a_type, b_type, c_type, *, arch: XeArch | str = "pvc", batch=1, transpose_a=False,
              transpose_b=False, overrides: dict | None = None, search: bool = True) -> GemmPlan:
    """Plan C[M,N] (+)= A[M,K] x B[K,N] (per batch) on `arch` (an `XeArch`, as the pass hands it,
    or a name from Python: resolved here, once). M, N, K may be None (dynamic). Raises PlanError
    for unsupported types or illegal overrides."""
    try:
        hw = get_arch(arch)
    except ArchError as e:
        raise PlanError(str(e)) from None
    ov = _norm_overrides(overrides)
    p = _problem(hw, ov, M, N, K, a_type, b_type, c_type, batch, transpose_a, transpose_b)
    plan = _rules_plan(p)
    return model_refinement(p, plan) if search else plan


def _rules_plan(p: _Problem) -> GemmPlan:
    """The rules' plan, in the order each decision needs the earlier ones; validated."""
    dpas_rule(p)
    ks = k_step_rule(p)
    split = split_k_eligibility(p, ks)
    wg = work_group_tile_rule(p, split.allowed)
    lay, sg = subgroup_tile_rule(p, wg)
    lk = local_k_slicing_override(p, lay)
    a_map, b_map, c_map = wg_maps_rule(p, lay, sg, ks)
    mode, (acc_b, a_b, b_b) = register_rule(p, wg, lay, sg, ks)
    slices = split_k_rule(p, ks, wg, lay, lk, split)
    dist, pa, pb = prefetch_rule(p, wg, ks, lay, slices, lk)
    grid, order, gsize = group_order_rule(p, wg, lay, lk, slices, mode)
    a_load, b_load = operand_loads_rule(p)

    hw, nsg, large = p.hw, lay[0] * lay[1], mode == "large"
    plan = GemmPlan(
        arch=hw.name, m=p.m, n=p.n, k=p.k, batch=p.batch, a_type=p.a_type, b_type=p.b_type, c_type=p.c_type,
        acc_type=p.acc, transpose_a=p.transpose_a, transpose_b=p.transpose_b, planned_mnk=p.planned,
        dpas=p.dpas, wg_tile=wg, sg_layout=lay, sg_data=sg, k_step=ks, a_wg_map=a_map, b_wg_map=b_map,
        c_wg_map=c_map, prefetch_distance=dist, a_prefetch_map=pa, b_prefetch_map=pb, k_slices=slices,
        split_k_mode="atomic" if slices > 1 else "none", grid=grid, group_order=order, group_size=gsize,
        num_subgroups=nsg * lk, subgroup_size=hw.subgroup_size, wg_size=nsg * lk * hw.subgroup_size,
        grf_mode=mode, grf_count=hw.grf_count_large if large else hw.grf_count,
        acc_bytes=acc_b, a_bytes=a_b, b_bytes=b_b, a_load=a_load, b_load=b_load,
        overrides=dict(p.ov), reasons=p.reasons, local_k_slices=lk,
    )
    validate_plan(plan, hw)
    return plan


def dpas_rule(p: _Problem) -> None:
    """Rule 1: the DPAS shape of the arch for (A, B, accumulator). Every tile below is a whole
    number of DPAS operations, so this is recorded first (with the planning size of dynamic
    dimensions)."""
    dm, dn, dk = p.dpas
    f32_in = canonical_type(p.a_type) == "f32"
    ab_name = "tf32" if f32_in else p.a_type
    p.why(f"DPAS {ab_name} x {ab_name} -> {p.acc}: M <= {dm} (repeat count), N = {dn} (execution size), "
          f"K = {dk} (systolic depth {p.hw.dpas.systolic_depth} x 32 bits / {8 * p.a_eb} bits)"
          + ("; f32 inputs run as tf32" if f32_in else "")
          + (f"; C {p.c_type} is converted from the {p.acc} accumulator once at the end"
             if p.c_type != p.acc else ""))
    if p.dynamic:
        pm, pn, pk = p.planned
        p.why(f"dynamic sizes: planned for {pm}x{pn}x{pk} (a typical large GEMM); no split-K without a known K")


def k_step_rule(p: _Problem) -> int:
    """Rule 2: one K step loads one full 2D block row of A (the widest block message), rounded to
    DPAS K; smaller when K itself is smaller."""
    if "k_step" in p.ov:
        ks = _int(p.ov["k_step"], "k_step", 1)
        p.why(f"k_step {ks}: override")
        return ks
    dk, pk = p.dpas[2], p.planned[2]
    ks = max(dk, p.row_bytes // p.a_eb)
    ks -= ks % dk
    note = f"one {p.row_bytes}-byte 2D block row of {p.a_type} = {ks}, {ks // dk} x DPAS K"
    if not p.dynamic and pk < ks:
        ks = max(dk, _cdiv(pk, dk) * dk)
        note = f"K = {pk} is smaller than a {p.row_bytes}-byte row; rounded up to DPAS K"
    p.why(f"k_step {ks}: {note}")
    return ks


def split_k_eligibility(p: _Problem, ks: int) -> SplitKEligibility:
    """Rule 7's conditions, needed before the work-group tile (rule 3 keeps tiles big when K will
    be sliced): C must take atomic adds, K must be known and tall, and no override forbids it."""
    pm, pn, pk = p.planned
    atomic_ok = canonical_type(p.c_type) in ("f32", "s32") and p.c_type == p.acc
    tall_k = not p.dynamic and pk >= TALL_K_RATIO * max(pm, pn) and pk >= 2 * MIN_K_STEPS_PER_SLICE * ks
    allowed = atomic_ok and tall_k
    forced = p.ov.get("split_k_mode")
    if forced is not None and forced not in SPLIT_K_MODES:
        raise PlanError(f"override split_k_mode: expected one of {', '.join(SPLIT_K_MODES)}, got {forced!r}")
    if forced == "none" or ("k_slices" in p.ov and _int(p.ov["k_slices"], "k_slices", 1) == 1):
        allowed = False
    return SplitKEligibility(atomic_ok, tall_k, allowed, forced)


def work_group_tile_rule(p: _Problem, split_ok: bool) -> Pair:
    """Rule 3: start from 256x256 (the RFC's appendix 2.1) clamped to the problem, and halve the
    larger dimension while the work-groups do not fill the Xe-cores -- down to a floor that keeps
    DPAS-sized subgroup tiles (smaller for GEMV-like shapes, 128x128 when split-K will give the
    parallelism instead)."""
    ov, n_wg, cores = p.ov, p.n_wg, p.hw.xe_cores
    if "wg_tile" in ov:
        wg = _pair(ov["wg_tile"], "wg_tile")
        p.why(f"wg_tile {_fmt(wg)}: override ({n_wg(wg)} work-groups before k-slicing)")
        return wg
    if "sg_layout" in ov and "sg_data" in ov:
        lay0, dat0 = _pair(ov["sg_layout"], "sg_layout"), _pair(ov["sg_data"], "sg_data")
        wg = (lay0[0] * dat0[0], lay0[1] * dat0[1])
        p.why(f"wg_tile {_fmt(wg)} = sg_layout x sg_data (overrides)")
        return wg
    dm, dn, _ = p.dpas
    pm, pn, _ = p.planned
    wm = min(DEFAULT_WG_TILE[0], max(dm, _pow2_ceil(pm)))
    wn = min(DEFAULT_WG_TILE[1], max(dn, _pow2_ceil(pn)))
    clamped = (wm, wn) != DEFAULT_WG_TILE
    floor_m, floor_n = min(MIN_WG_TILE[0], wm), min(MIN_WG_TILE[1], wn)
    shape = ""
    if wm <= 2 * dm:
        floor_n, shape = min(dn, wn), "GEMV-like (small M): tiles may narrow to 16 columns; "
    if wn <= dn:
        floor_m, shape = min(dm, wm), "small N: tiles may shrink to 8 rows; "
    if split_ok:
        floor_m, floor_n = min(SPLIT_K_MIN_WG_TILE[0], wm), min(SPLIT_K_MIN_WG_TILE[1], wn)
        shape = "tall K with split-K available: keep tiles >= 128x128; "
    start = (wm, wn)
    while n_wg((wm, wn)) < cores:
        order = ("n", "m") if wn >= wm else ("m", "n")
        for d in order:
            if d == "n" and wn // 2 >= floor_n and wn > dn:
                wn //= 2
                break
            if d == "m" and wm // 2 >= floor_m and wm > dm:
                wm //= 2
                break
        else:
            break
    wg = (wm, wn)
    msg = f"wg_tile {_fmt(wg)}: "
    msg += ("start from 256x256 (rfc-xetile appendix 2.1)"
            + (f", clamped to the problem as {_fmt(start)}" if clamped else ""))
    if wg != start:
        msg += f"; {shape}halved the larger dimension until {n_wg(wg)} work-groups"
        msg += (f" >= {cores} Xe-cores" if n_wg(wg) >= cores
                else f" (floor {floor_m}x{floor_n} reached, < {cores} Xe-cores)")
    else:
        msg += (f"; {n_wg(wg)} work-groups >= {cores} Xe-cores" if n_wg(wg) >= cores
                else f"; {n_wg(wg)} work-groups < {cores} Xe-cores, "
                     f"{shape or 'problem smaller than the minimum tile'}".rstrip("; "))
    p.why(msg)
    return wg


def subgroup_tile_rule(p: _Problem, wg: Pair) -> tuple[Pair, Pair]:
    """Rule 4: a 32x64 C tile per subgroup (appendix 2.1), shrunk until the work-group has one
    subgroup per vector engine of its Xe-core; sg_layout = wg_tile / sg_data, so every C element
    belongs to exactly one subgroup. Returns (sg_layout, sg_data)."""
    ov, dm, dn = p.ov, p.dpas[0], p.dpas[1]
    engines = p.hw.vector_engines_per_core
    if "sg_layout" in ov and "sg_data" in ov:
        lay, sg = _pair(ov["sg_layout"], "sg_layout"), _pair(ov["sg_data"], "sg_data")
        p.why(f"sg_layout {_fmt(lay)}, sg_data {_fmt(sg)}: overrides")
        return lay, sg
    if "sg_layout" in ov:
        lay = _pair(ov["sg_layout"], "sg_layout")
        if wg[0] % lay[0] or wg[1] % lay[1]:
            raise PlanError(f"override sg_layout {list(lay)} does not divide wg_tile {list(wg)}; choose a layout "
                            f"that divides it (pass option sg-layout=RxC) or a work-group tile it divides "
                            f"(wg-tile=MxN); from Python, overrides may also give sg_data")
        sg = (wg[0] // lay[0], wg[1] // lay[1])
        p.why(f"sg_layout {_fmt(lay)}: override; sg_data {_fmt(sg)} = wg_tile / sg_layout")
        return lay, sg
    if "sg_data" in ov:
        sg = _pair(ov["sg_data"], "sg_data")
        if wg[0] % sg[0] or wg[1] % sg[1]:
            raise PlanError(f"override sg_data {list(sg)} does not divide wg_tile {list(wg)}; "
                            f"also give sg_layout or choose a dividing subgroup tile (sg_data is a planner "
                            f"override of the Python API: plan_gemm(..., overrides={{'sg_data': (m, n)}}))")
        lay = (wg[0] // sg[0], wg[1] // sg[1])
        p.why(f"sg_data {_fmt(sg)}: override; sg_layout {_fmt(lay)} = wg_tile / sg_data")
        return lay, sg
    sm, sn = min(DEFAULT_SG_TILE[0], wg[0]), min(DEFAULT_SG_TILE[1], wg[1])
    if wg[0] % sm or wg[1] % sn or sm % dm or sn % dn:
        raise PlanError(f"wg_tile {list(wg)} cannot be split into subgroup tiles that are multiples of "
                        f"the DPAS shape {dm}x{dn}: use multiples of {dm} rows and {dn} columns")
    while (wg[0] // sm) * (wg[1] // sn) < engines:
        if sn > 32 and (sn // 2) % dn == 0:
            sn //= 2
        elif sm > dm and (sm // 2) % dm == 0:
            sm //= 2
        elif sn > dn and (sn // 2) % dn == 0:
            sn //= 2
        else:
            break
    sg = (sm, sn)
    lay = (wg[0] // sm, wg[1] // sn)
    nsg = lay[0] * lay[1]
    msg = f"subgroup C tile {_fmt(sg)}"
    msg += (" (appendix 2.1)" if sg == DEFAULT_SG_TILE
            else f" (32x64 shrunk/clamped to give {nsg} subgroups)")
    msg += f" -> sg_layout {_fmt(lay)} = {nsg} subgroups"
    if nsg < engines:
        msg += f" (fewer than {engines}: the tile is too small for one per vector engine)"
    p.why(msg)
    return lay, sg


def local_k_slicing_override(p: _Problem, lay: Pair) -> int:
    """Local k-slicing (docs/planner.md "Local k-slicing") from an override; otherwise 1 here and
    the model may choose it (rule 10): the rules alone cannot tell when SLM reduction pays."""
    if "local_k_slices" not in p.ov:
        return 1
    lk = _int(p.ov["local_k_slices"], "local_k_slices", 1)
    nsg = lay[0] * lay[1]
    if lk > 1:
        p.why(f"local k-slicing {lk}: override; {lk} x {nsg} = {lk * nsg} subgroups, slice s = subgroup_id / "
              f"{nsg} runs 1/{lk} of the K steps, partial C tiles reduced through SLM")
    return lk


def wg_maps_rule(p: _Problem, lay: Pair, sg: Pair, ks: int) -> tuple[WgMap, WgMap, WgMap]:
    """Rule 5: the wg_maps of A, B and C follow from sg_layout, sg_data and k_step by the RFC's
    tile_mma rule, so the DPAS operands of a subgroup meet in its registers."""
    p.why(f"wg_maps by the rfc-xetile tile_mma rule: A sg_data [{sg[0]}, {ks}], B [{ks}, {sg[1]}], "
          f"C [{sg[0]}, {sg[1]}], all with sg_layout {list(lay)}")
    return (lay, (sg[0], ks)), (lay, (ks, sg[1])), (lay, sg)


def _registers(wg, lay, sg, ks, a_eb, b_eb, acc_eb):
    c_el = _per_sg(wg, lay, sg)
    a_el = _per_sg((wg[0], ks), lay, (sg[0], ks))
    b_el = _per_sg((ks, wg[1]), lay, (ks, sg[1]))
    return c_el * acc_eb, a_el * a_eb, b_el * b_eb


def _grf_mode_for(hw: XeArch, acc, total):
    for mode, large in (("default", False), ("large", True)):
        file = hw.grf_file_bytes(large)
        if acc <= file // 2 and total <= file:
            return mode
    return None


def register_rule(p: _Problem, wg: Pair, lay: Pair, sg: Pair, ks: int) -> tuple[str, tuple[int, int, int]]:
    """Rule 6: the C accumulator must fit in half a subgroup's GRF file and A + B + C in all of
    it; the default GRF mode when they fit, else large-GRF mode (half the threads). Returns the
    mode and the (C, A, B) bytes per subgroup."""
    hw = p.hw
    acc_b, a_b, b_b = _registers(wg, lay, sg, ks, p.a_eb, p.b_eb, p.acc_eb)
    need = _grf_mode_for(hw, acc_b, acc_b + a_b + b_b)
    if "grf_mode" in p.ov:
        mode = p.ov["grf_mode"]
        if mode not in GRF_MODES:
            raise PlanError(f"override grf_mode: expected one of {', '.join(GRF_MODES)}, got {mode!r}")
        p.why(f"grf_mode {mode}: override")
    else:
        mode = need or "large"
        file = hw.grf_file_bytes(mode == "large")
        p.why(f"registers per subgroup: C {acc_b} B ({p.acc}) + A {a_b} B + B {b_b} B = {acc_b + a_b + b_b} B; "
              f"{mode} GRF mode ({file // hw.grf_bytes} x {hw.grf_bytes} B = {file} B, accumulator <= half)")
    return mode, (acc_b, a_b, b_b)


def split_k_rule(p: _Problem, ks: int, wg: Pair, lay: Pair, lk: int, split: SplitKEligibility) -> int:
    """Rule 7: slice K over work-groups (atomic adds of partial C tiles) when a tall K would
    otherwise leave Xe-cores idle, or when too few subgroups are in flight to stream the operands
    (GEMV-like shapes); each slice keeps enough K steps to amortize its prologue. Returns k_slices."""
    ov, pk, cores = p.ov, p.planned[2], p.hw.xe_cores
    base_wg = p.n_wg(wg)
    nsg = lay[0] * lay[1]
    if "k_slices" in ov:
        slices = _int(ov["k_slices"], "k_slices", 1)
        if p.k is not None and slices > _cdiv(pk, ks):
            raise PlanError(f"override k_slices {slices} exceeds the {_cdiv(pk, ks)} K steps of K = {pk} with k_step "
                            f"{ks}: every slice needs at least one K step")
        p.why(f"k_slices {slices}: override")
    elif split.forced == "atomic":
        slices = 2
        while base_wg * slices * 2 <= cores and pk // (slices * 2) >= MIN_K_STEPS_PER_SLICE * ks:
            slices *= 2
        p.why(f"k_slices {slices}: split_k_mode=atomic override; largest power of two keeping "
              f"<= {cores} work-groups and >= {MIN_K_STEPS_PER_SLICE} K steps per slice (at least 2)")
    else:
        slices = 1
        if split.allowed and base_wg * 2 <= cores:
            while base_wg * slices * 2 <= cores and pk // (slices * 2) >= MIN_K_STEPS_PER_SLICE * ks:
                slices *= 2
        if slices > 1:
            p.why(f"split-K: {base_wg} work-groups cover <= half of {cores} Xe-cores and K = {pk} is tall "
                  f"(>= {TALL_K_RATIO} x max(M, N)); {slices} k-slices of {pk // slices} "
                  f"-> {base_wg * slices} work-groups, partial C tiles combined with atomic add ({p.c_type})")
        # few subgroups in flight (e.g. GEMV: 1 x 4096 x 4096 gives 128 work-groups of 2 subgroups):
        # stream B with more threads by slicing a long K, up to one subgroup per vector engine
        engines = cores * p.hw.vector_engines_per_core
        in_flight = base_wg * nsg * lk
        if (slices == 1 and split.atomic_ok and not p.dynamic and split.forced != "none"
                and in_flight * 2 <= engines and pk >= 2 * MIN_K_STEPS_PER_SLICE * ks and "k_slices" not in ov):
            while in_flight * slices * 2 <= engines and pk // (slices * 2) >= MIN_K_STEPS_PER_SLICE * ks:
                slices *= 2
            p.why(f"split-K for occupancy: {base_wg} work-groups x {nsg} subgroups = {in_flight} subgroups for "
                  f"{engines} vector engines; {slices} k-slices of {pk // slices} (>= {MIN_K_STEPS_PER_SLICE} K "
                  f"steps each) -> {in_flight * slices} subgroups, partial C tiles combined with atomic add "
                  f"({p.c_type})")
        elif split.tall_k and base_wg * 2 <= cores and not split.atomic_ok:
            p.why(f"no split-K although K is tall: C is {p.c_type}; atomic accumulation needs C = f32/i32 "
                  f"(the accumulator type)")
        elif not p.dynamic and base_wg < cores:
            p.why(f"no split-K: {'K is not tall enough' if not split.tall_k else 'enough work-groups'} "
                  f"(split-K needs C f32/i32, K >= {TALL_K_RATIO} x max(M, N) and >= "
                  f"{2 * MIN_K_STEPS_PER_SLICE} K steps, and <= {cores // 2} work-groups)")
    if split.forced == "none" and slices > 1:
        raise PlanError(f"override split_k_mode='none' contradicts k_slices={slices}")
    return slices


def _coop_map(rows: int, cols: int, nsg: int, eb: int, row_bytes: int, transposed: bool) -> WgMap:
    """Split a [rows, cols] tile over all nsg subgroups, each taking blocks at most one 64-byte
    memory row wide. `transposed`: the tile is stored column-major (split along memory)."""
    if transposed:
        (l0, l1), (d0, d1) = _coop_map(cols, rows, nsg, eb, row_bytes, False)
        return (l1, l0), (d1, d0)
    pc = max(1, min(cols, row_bytes // eb))
    lc = math.gcd(max(1, cols // pc), nsg)
    pc = max(1, cols // lc)
    lr = nsg // lc
    pr = max(1, rows // lr)
    return (lr, lc), (pr, pc)


def prefetch_rule(p: _Problem, wg: Pair, ks: int, lay: Pair, slices: int, lk: int) -> tuple[int, WgMap, WgMap]:
    """Rule 8: prefetch 3 K steps ahead (appendix 2.1), at most the K steps of a work-group's
    loop, and share each K step's A and B tiles among all subgroups (cooperative prefetch) so each
    subgroup issues few, full-width block prefetches. Returns (distance, A map, B map)."""
    ov, pk, nsg = p.ov, p.planned[2], lay[0] * lay[1]
    steps = _cdiv(_cdiv(_cdiv(pk, ks), slices), lk)
    if "prefetch_distance" in ov:
        dist = _int(ov["prefetch_distance"], "prefetch_distance", 0)
        limit = steps if p.k is not None else MAX_PREFETCH_DISTANCE
        if dist > limit:
            raise PlanError(f"override prefetch_distance {dist} exceeds the {limit} K steps of a work-group's loop"
                            if p.k is not None else f"override prefetch_distance {dist} exceeds {limit} K steps (K "
                            "is dynamic; the prefetches ahead are unrolled before the loop)")
        p.why(f"prefetch_distance {dist}: override")
    else:
        dist = min(DEFAULT_PREFETCH_DISTANCE, steps)
        p.why(f"prefetch distance {dist} K steps"
              + (" (rfc-xetile appendix 2.1: prefetch tiles start at K = 3 x k_step)"
                 if dist == DEFAULT_PREFETCH_DISTANCE else f" (only {steps} K steps per work-group)"))
    a_tile, b_tile = (wg[0], ks), (ks, wg[1])
    if "a_prefetch_map" in ov:
        pa = _map(ov["a_prefetch_map"], "a_prefetch_map")
    else:
        pa = _coop_map(*a_tile, nsg, p.a_eb, p.row_bytes, p.transpose_a)
    if "b_prefetch_map" in ov:
        pb = _map(ov["b_prefetch_map"], "b_prefetch_map")
    else:
        pb = _coop_map(*b_tile, nsg, p.b_eb, p.hw.block_rule("load", p.b_eb).max_row_bytes, p.transpose_b)
    p.why(f"cooperative prefetch: all {nsg} subgroups share the A tile {_fmt(a_tile)} as {_fmt(pa[0])} x "
          f"{_fmt(pa[1])} and the B tile {_fmt(b_tile)} as {_fmt(pb[0])} x {_fmt(pb[1])} "
          f"(blocks at most {p.row_bytes} B wide along memory rows)")
    return dist, pa, pb


def group_order_rule(p: _Problem, wg: Pair, lay: Pair, lk: int, slices: int,
                     mode: str) -> tuple[tuple[int, int, int], str, int]:
    """Rule 9: launch the grid row-major unless it needs several waves and a swizzle (group
    remapping) lets each wave touch fewer A/B panels, which then stay in L2. Returns (grid,
    group order, group size)."""
    ov, hw = p.ov, p.hw
    pm, pn, _ = p.planned
    gm, gn = _cdiv(pm, wg[0]), _cdiv(pn, wg[1])
    grid = (gn, gm, p.batch * slices)
    per_core = max(1, hw.threads_per_core(mode == "large") // max(1, lay[0] * lay[1] * lk))
    wave = hw.xe_cores * per_core
    if "group_order" in ov:
        order = ov["group_order"]
        if order not in GROUP_ORDERS:
            raise PlanError(f"override group_order: expected one of {', '.join(GROUP_ORDERS)}, got {order!r}")
        gsize = _int(ov.get("group_size", 1 if order == "row_major" else min(8, gm)), "group_size", 1)
        p.why(f"group_order {order}: override")
        return grid, order, gsize
    order, gsize = "row_major", 1
    total = gm * gn
    if total > wave and gm > 1 and gn > 1:
        g = min(_pow2_floor(math.sqrt(wave)), gm)
        rm_panels = _cdiv(wave, gn) + min(wave, gn)
        sw_panels = g + _cdiv(wave, g)
        if 1 < g <= gm and sw_panels < rm_panels:   # g == gm: column-major sweep
            order, gsize = "swizzle", g
            p.why(f"group remapping: {total} work-groups > {wave} per wave; swizzle in groups of {g} "
                  f"work-group rows touches {sw_panels} A/B panels per wave instead of {rm_panels} (row-major)")
        else:
            p.why(f"group order row_major: a wave of {wave} work-groups already touches few panels "
                  f"({rm_panels}; swizzle would touch {sw_panels})")
    if "group_size" in ov:
        gsize = _int(ov["group_size"], "group_size", 1)
        p.why(f"group_size {gsize}: override")
    return grid, order, gsize


def operand_loads_rule(p: _Problem) -> tuple[str, str]:
    """Rule 1's operand layouts: how A and B reach the DPAS registers with 2D block loads (B in
    VNNI form below 32 bits; transposed operands through the block transpose, which moves 32-bit
    units only). Returns the load kinds of A and B."""
    ea, eb = p.a_eb, p.b_eb
    vf = p.hw.vnni_factor(eb)
    if not p.transpose_a:
        a = "2D block load"
    elif ea >= 4:
        a = "2D block load with transpose"
    else:
        a = (f"2D block load with 32-bit transpose of packed {8 * ea}-bit pairs + in-register "
             f"reorder (transposed A below 32 bits has no direct block layout)")
    if not p.transpose_b:
        b = "2D block load with VNNI transform" if vf > 1 else "2D block load"
    elif eb >= 4:
        b = "2D block load with transpose"
    else:
        b = f"2D block load with 32-bit transpose (yields the VNNI layout for {8 * eb}-bit data)"
    p.why(f"operand loads: A {a}; B {b}")
    return a, b


def model_refinement(p: _Problem, plan: GemmPlan) -> GemmPlan:
    """Rule 10: the performance model may replace the rules' default choices (`plan_search`):
    the rules are fixed heuristics, the model sees L2 re-reads and SLM reduction costs. Each
    candidate is the rules' plan with more overrides, on the same `XeArch`."""
    def replan(extra):
        return _rules_plan(replace(p, ov=_norm_overrides({**p.ov, **extra}), reasons=[]))
    return refine(plan, replan, p.hw, p.ov)


# ---- validation -------------------------------------------------------------------------------

def validate_plan(plan: GemmPlan, hw: XeArch) -> None:
    """Check every rule a plan must obey on `hw` (the XeArch it was planned for); raise PlanError
    listing all violations."""
    errs: list[str] = []
    e = errs.append
    dm, dn, dk = plan.dpas
    wg, lay, sg, ks = plan.wg_tile, plan.sg_layout, plan.sg_data, plan.k_step
    nsg = lay[0] * lay[1]
    lk = getattr(plan, "local_k_slices", 1)
    if lk != 1:
        errs.extend(local_kslice_errors(plan, hw))

    if wg[0] % dm or wg[1] % dn:
        e(f"wg_tile {list(wg)} must be a multiple of the DPAS shape {dm}x{dn} (rows x columns)")
    if sg[0] % dm:
        e(f"sg_data {list(sg)}: M = {sg[0]} is not a multiple of DPAS M = {dm}")
    if sg[1] % dn:
        e(f"sg_data {list(sg)}: N = {sg[1]} is not a multiple of DPAS N = {dn} (the execution size)")
    if sg[0] > wg[0] or sg[1] > wg[1]:
        e(f"sg_data {list(sg)} is larger than wg_tile {list(wg)}")
    if ks % dk:
        e(f"k_step {ks} is not a multiple of DPAS K = {dk} for {plan.a_type}")
    for name, tile, m in (("wg_map A", (wg[0], ks), plan.a_wg_map), ("wg_map B", (ks, wg[1]), plan.b_wg_map),
                          ("wg_map C", wg, plan.c_wg_map),
                          ("prefetch map A", (wg[0], ks), plan.a_prefetch_map),
                          ("prefetch map B", (ks, wg[1]), plan.b_prefetch_map)):
        msg = wg_map_rule_error(name, tile, *m)
        if msg:
            e(msg)
        if m[0][0] * m[0][1] != nsg:
            e(f"{name}: sg_layout {list(m[0])} has {m[0][0] * m[0][1]} subgroups but the work-group has {nsg}")
    # the tile_mma derivation (rfc-xetile): same sg_layout, M/N from C, K from the operands
    if plan.a_wg_map != (lay, (sg[0], ks)) or plan.b_wg_map != (lay, (ks, sg[1])) or plan.c_wg_map != (lay, sg):
        e("wg_maps of A/B/C do not follow the tile_mma rule (same sg_layout; A [m, k_step], B [k_step, n], C [m, n])")
    if nsg * max(1, lk) > hw.max_subgroups_per_workgroup:
        e(f"{nsg * max(1, lk)} subgroups x {hw.subgroup_size} = {nsg * max(1, lk) * hw.subgroup_size} work-items "
          f"exceed the maximum work-group size {hw.max_workgroup_size}")
    large = plan.grf_mode == "large"
    if plan.grf_mode not in GRF_MODES:
        e(f"grf_mode must be one of {', '.join(GRF_MODES)}, got {plan.grf_mode!r}")
    cap = hw.threads_per_core(large)
    if nsg * max(1, lk) > cap:
        e(f"{nsg * max(1, lk)} subgroups do not fit one Xe-core: {cap} hardware threads in {plan.grf_mode} GRF mode")
    file = hw.grf_file_bytes(large)
    total = plan.acc_bytes + plan.a_bytes + plan.b_bytes
    if plan.acc_bytes > file // 2 or total > file:
        e(f"registers: C accumulator {plan.acc_bytes} B (must be <= {file // 2} B, half the GRF file) and "
          f"A + B + C = {total} B (must be <= {file} B) per subgroup in {plan.grf_mode} GRF mode"
          + ("" if large else "; try grf_mode='large' or a smaller subgroup tile"))
    if plan.k_slices < 1:
        e(f"k_slices must be >= 1, got {plan.k_slices}")
    if plan.k_slices > 1:
        if plan.split_k_mode != "atomic":
            e(f"k_slices {plan.k_slices} needs split_k_mode 'atomic', got {plan.split_k_mode!r}")
        if canonical_type(plan.c_type) not in ("f32", "s32") or plan.c_type != plan.acc_type:
            e(f"split-K ({plan.k_slices} k-slices) adds partial results atomically: C must be f32 or i32 "
              f"(the accumulator type), got {plan.c_type}")
        for i in range(2):
            if lay[i] * sg[i] > wg[i]:
                e(f"split-K: C wg_map replicates data along dimension {i} (sg_layout x sg_data = "
                  f"{lay[i] * sg[i]} > {wg[i]}); replicated subgroups would add their partial results twice")
    elif plan.split_k_mode != "none":
        e(f"split_k_mode {plan.split_k_mode!r} with k_slices = 1")
    if plan.prefetch_distance < 0:
        e(f"prefetch_distance must be >= 0, got {plan.prefetch_distance}")
    if plan.group_order not in GROUP_ORDERS:
        e(f"group_order must be one of {', '.join(GROUP_ORDERS)}, got {plan.group_order!r}")
    if plan.group_size < 1:
        e(f"group_size must be >= 1, got {plan.group_size}")
    if errs:
        raise PlanError("illegal GEMM plan: " + "; ".join(errs))
