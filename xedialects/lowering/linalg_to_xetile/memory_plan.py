"""Planner for memory-bound kernels (element-wise, reductions): work-group and subgroup tiles sized
for full-width 2D block loads, shrunk until the grid has enough work-groups for every Xe-core."""
from __future__ import annotations

import math
from dataclasses import dataclass, field

from ...arch import XeArch

_BYTES = {"f32": 4, "i32": 4, "f16": 2, "bf16": 2, "i16": 2, "i8": 1}


def _pow2_ceil(x: int) -> int:
    p = 1
    while p < x:
        p *= 2
    return p


@dataclass
class MemPlan:
    kind: str
    m: int | None
    n: int | None
    elt: str
    arch: str
    wg_tile: tuple
    sg_layout: tuple
    sg_data: tuple
    reasons: list = field(default_factory=list)
    fixed_grid: tuple | None = None   # reductions: one grid dimension only

    @property
    def num_subgroups(self) -> int:
        return self.sg_layout[0] * self.sg_layout[1]

    def grid(self):
        if self.fixed_grid is not None:
            return self.fixed_grid
        if self.m is None or self.n is None:
            return None
        return -(-self.n // self.wg_tile[1]), -(-self.m // self.wg_tile[0])

    def describe(self) -> str:
        d = lambda x: "?" if x is None else str(x)  # noqa: E731
        g = self.grid()
        lines = [f"memory-bound plan [{self.arch}]: {self.kind} on {d(self.m)}x{d(self.n)} {self.elt}",
                 f"work-group tile  : {self.wg_tile[0]}x{self.wg_tile[1]}  ({self.num_subgroups} subgroups as "
                 f"{self.sg_layout[0]}x{self.sg_layout[1]}, {self.num_subgroups * 16} work-items)",
                 f"subgroup tile    : {self.sg_data[0]}x{self.sg_data[1]}",
                 "grid             : " + (f"x={g[0]} (N tiles) y={g[1]} (M tiles) = {g[0] * g[1]} work-groups"
                                          if g else "from the runtime sizes")]
        lines += [f"  reason: {r}" for r in self.reasons]
        return "\n".join(lines)


def _xe_core_reason(groups: int, want: int, hw: XeArch, too_small: str) -> str:
    """Whether `groups` work-groups give each of the `want` Xe-cores work; `too_small`: why not."""
    if groups >= want:
        return f"{groups} work-groups >= {want} Xe-cores of {hw.name}: every Xe-core gets work"
    return f"only {groups} work-groups for {want} Xe-cores: {too_small} to fill {hw.name}"


def plan_memory_bound(kind: str, m, n, elt: str, hw: XeArch, whole_rows: bool = False) -> MemPlan:
    """Tiles for a streaming kernel over an m x n array (None: dynamic). `whole_rows`: one
    work-group owns complete rows (row reductions / softmax need the whole row)."""
    eb = _BYTES.get(elt, 4)
    reasons = []
    row_bytes = max(r.max_row_bytes for r in hw.blocks) if hw.blocks else 64
    sg_cols = max(1, row_bytes // eb)
    sg_rows = 32
    reasons.append(f"subgroup tile width {sg_cols}: one full-width 2D block row is {row_bytes} bytes "
                   f"= {sg_cols} {elt} (rows start at {sg_rows} per subgroup)")
    layout = [4, 2]
    if n is not None and n <= sg_cols:
        layout = [8, 1]
        reasons.append("subgroups stacked 8x1: the whole width fits in one subgroup tile")
    if m is not None:
        start = sg_rows * layout[0]
        while sg_rows * layout[0] >= 2 * m and (layout[0] > 1 or sg_rows > 8):
            if layout[0] > 1:
                layout[0] //= 2
            else:
                sg_rows //= 2
        if sg_rows * layout[0] < start:
            reasons.append(f"work-group tile rows {sg_rows * layout[0]}: M={m} is short")
    if whole_rows and n is not None and n > sg_cols * layout[1]:
        layout[1] = min(32 // layout[0], _pow2_ceil(-(-n // sg_cols)))
        sg_cols = _pow2_ceil(-(-n // layout[1])) if layout[1] else sg_cols
        reasons.append(f"a work-group owns whole rows of {n}: {layout[1]} subgroups across")
    wg = [sg_rows * layout[0], sg_cols * layout[1]]
    if m is not None and n is not None:
        want = hw.xe_cores
        shrunk = False
        while -(-m // wg[0]) * -(-n // wg[1]) < want and (layout[0] > 1 or sg_rows > 8):
            if layout[0] > 1:
                layout[0] //= 2
            else:
                sg_rows //= 2
            wg[0] = sg_rows * layout[0]
            shrunk = True
        if shrunk:
            reasons.append(f"work-group tile rows {wg[0]}: more work-groups for the {want} Xe-cores")
        groups = -(-m // wg[0]) * -(-n // wg[1])
        reasons.append(_xe_core_reason(groups, want, hw, "the array is too small"))
    return MemPlan(kind, m, n, elt, hw.name, tuple(wg), tuple(layout), (sg_rows, sg_cols), reasons)


# the narrowest plain 8-bit 2D block read the SPIR-V lowering has (spirv_builtins.block_read: 32 or 64 bytes
# wide); a 16-byte-wide i4 tile of a gemv went per lane (IGC 2.40, 4096 x 4096 W4A16 matvec: 36 scattered loads
# and 98 branches per loop iteration)
MIN_8BIT_READ_BYTES = 32
GATHER_ADDRESS_BYTES = 8    # a gather's per-lane address: 64-bit (Physical64 kernels; IGC: load.ugm.*.a64)
GATHER_SLOT_BYTES = 4       # a gather returns each element in a 32-bit slot (IGC: load.ugm.d16u32 for 16-bit data)


def gather_step_rows(rows: int, width: int, m: int, n: int, elt: str, hw: XeArch) -> tuple[int, str]:
    """Rows of one loop step over an m x n row-major array whose tiles are read by gathers because
    the surface breaks the 2D block rules (e.g. a 129 x f16 row is 258 bytes, not a multiple of 4),
    and why they changed ("" when they did not). Each gather reads one subgroup-wide piece of a row
    into its own registers -- an element per lane in a 32-bit slot -- from a 64-bit address per lane,
    and IGC issues all gathers of a step before it uses their data (for the latency), so a step's
    gathers and their addresses are live at once. Rows are halved (down to 8) until they fit in
    half the register file; the accumulators and the reduction's temporaries need the rest (IGC
    2.40: the 16-row step of a 37x129 f16 column max -- 32 gathers, 6 KiB of data and addresses --
    spilled 1.4 KiB on pvc, the 8-row step none)."""
    if m is None or n is None:
        return rows, ""
    eb = _BYTES.get(elt, 4)
    ok, rule = hw.legal_surface(hw.surface.base_align, n * eb, n * eb, m)
    if ok:
        return rows, ""
    sg = hw.subgroup_size
    per_gather = sg * (max(eb, GATHER_SLOT_BYTES) + GATHER_ADDRESS_BYTES)
    pieces = -(-width // sg)
    budget = hw.grf_file_bytes() // 2
    start = rows
    while rows > 8 and rows * pieces * per_gather > budget:
        rows //= 2
    if rows == start:
        return rows, ""
    return rows, (f"reduced-dimension step {rows} rows: the {m}x{n} {elt} surface takes gathers, not 2D blocks "
                  f"({rule}); {start} rows would be {start * pieces} gathers of {per_gather} bytes of data and "
                  f"64-bit addresses in flight, more than half the {hw.grf_file_bytes()}-byte register file")


def plan_reduction(m: int, n: int, dim: int, elt: str, hw: XeArch) -> MemPlan:
    """Tiles for reducing an m x n array along `dim`: every subgroup owns whole output rows (dim 1)
    or columns (dim 0), so tile_reduce needs no exchange between subgroups; the work-group tile is
    one step of the loop over the reduced dimension."""
    eb = _BYTES.get(elt, 4)
    row_bytes = max(r.max_row_bytes for r in hw.blocks) if hw.blocks else 64
    width = max(1, row_bytes // eb)
    want = hw.xe_cores
    reasons = [f"reduced-dimension step: full-width 2D block rows of {row_bytes} bytes = {width} {elt}"]
    kind = f"reduce dimension {dim}"
    if dim == 1:
        layout, data = [4, 1], [16, width]
        while -(-m // (layout[0] * data[0])) < want and (layout[0] > 1 or data[0] > 8):
            if layout[0] > 1:
                layout[0] //= 2
            else:
                data[0] //= 2
        wg = (layout[0] * data[0], width)
        groups = -(-m // wg[0])
        reasons.append(f"{layout[0]} subgroups stacked, {data[0]} whole rows each: the row sums stay in "
                       "their subgroup")
    else:
        layout, data = [1, 4], [16, width]
        while -(-n // (layout[1] * data[1])) < want and layout[1] > 1:
            layout[1] //= 2
        data[0], why = gather_step_rows(data[0], width, m, n, elt, hw)
        if why:
            reasons.append(why)
        wg = (data[0], layout[1] * width)
        groups = -(-n // wg[1])
        reasons.append(f"{layout[1]} subgroups side by side, {width} whole columns each: the column sums stay "
                       "in their subgroup")
    reasons.append(_xe_core_reason(groups, want, hw, f"too few output {'rows' if dim == 1 else 'columns'}"))
    p = MemPlan(kind, m, n, elt, hw.name, wg, tuple(layout), tuple(data), reasons)
    p.fixed_grid = (1, groups) if dim == 1 else (groups, 1)
    return p


@dataclass
class GemvPlan(MemPlan):
    """A gemv plan: a reduction plan over A (per batch) plus the engine choice."""
    batch: int = 1
    engine: str = "vector"
    unroll: int = 1     # A tiles per subgroup and loop step
    slices: int = 1     # split reduction: work-groups along the reduced dimension (atomic adds into y)
    chunk: int = 0      # elements of the reduced dimension per slice (a multiple of the loop step)

    def describe(self) -> str:
        text = super().describe()
        if self.batch > 1:
            x, y = self.grid()
            text = text.replace(" work-groups\n", f" work-groups per batch, z={self.batch} (batches) = "
                                                 f"{x * y * self.batch} work-groups\n", 1)
        if self.slices > 1:
            text = text.replace("(M tiles)", "(K slices)", 1)
        return text


def gemv_engine(elt_in: str, hw: XeArch, stored_bytes: float | None = None) -> tuple[str, str]:
    """The engine of a gemv and why: a gemv uses each element of A in one multiply-add, so either
    engine streams A once at full width; DPAS would pay off only if the vector units could not
    multiply-add as fast as memory delivers A (the reason says so; the kernel uses FMAs). `stored_bytes`:
    A's bytes per element in memory when they differ from `elt_in`'s (dequantized weights)."""
    eb = stored_bytes or _BYTES.get(elt_in, 4)
    if stored_bytes:
        elt_in = f"{elt_in} (stored at {stored_bytes:g} B)"
    need = hw.peak.mem_bandwidth_gbs * 1e9 / eb                  # A elements per second
    vec = dict(hw.peak.vector_ops_per_clk)
    ops = vec.get(elt_in if elt_in in vec else "f32", 0)          # bf16 math runs as f32
    have = ops / 2 * hw.xe_cores * hw.clock_mhz * 1e6               # multiply-adds per second
    n = hw.dpas.exec_size
    if have >= need:
        return "vector", (f"vector FMAs + tile_reduce: memory delivers {need / 1e9:.0f} G {elt_in} of A/s "
                          f"({hw.peak.mem_bandwidth_gbs:g} GB/s), the vector units multiply-add {have / 1e9:.0f} G/s "
                          f"({have / need:.0f}x); DPAS would pad x to {n} columns and use 1 of them")
    return "vector", (f"vector FMAs + tile_reduce, though DPAS would keep up better: the vector units "
                      f"multiply-add {have / 1e9:.0f} G/s, fewer than the {need / 1e9:.0f} G {elt_in} of A/s "
                      "memory delivers (there is no DPAS gemv kernel)")


MIN_GEMV_STEPS_PER_SLICE = 4   # split reduction: loop steps per work-group that amortize its start and atomics


def _in_flight_target(hw: XeArch) -> tuple[float, str]:
    """Bytes one Xe-core must have in flight to stream at its share of the sustained bandwidth
    (Little's law: bandwidth per Xe-core x load latency), and how that was computed."""
    f = hw.perf
    gbs = (f.hbm_gbs_per_stack.value * f.stacks.value) if f else hw.peak.mem_bandwidth_gbs
    lat_ns = (f.mem_latency_clk.value if f else 1000) * 1000.0 / hw.clock_mhz
    per_core = gbs / hw.xe_cores
    return per_core * lat_ns, f"{per_core:.1f} GB/s per Xe-core x {lat_ns:.0f} ns latency"


def plan_gemv(m: int, n: int, dim: int, batch: int, elt_in: str, hw: XeArch, can_split: bool = False,
              weights: tuple | None = None) -> GemvPlan:
    """Tiles for y = A x (dim 1: matvec, rows of A reduced) or y = x A (dim 0: vecmat) on an m x n A,
    `batch` times: every subgroup owns whole output rows / columns (tile_reduce stays inside it);
    tiles shrink until batch x tiles fills every Xe-core (subgroups are given up last: each brings
    its own registers for loads in flight); then each loop step loads `unroll` full-width A tiles
    per subgroup until an Xe-core has the bytes in flight its share of the bandwidth needs. With
    `can_split` (a gemv into an f32/i32 y that is not overwritten first), too few outputs to fill
    the Xe-cores, or too few bytes in flight, split the reduced dimension over work-groups that add
    their partial sums into y atomically. `weights` = (storage type, group or None): A is integer weights
    dequantized to `elt_in` in registers (docs/quantized-gemm.md "gemv"): the tiles are those of the `elt_in`
    gemv (the registers hold the dequantized values), A's bytes in flight are counted at the weights' width,
    and the K extent of an A tile divides the group."""
    eb = _BYTES.get(elt_in, 4)
    row_bytes = max(r.max_row_bytes for r in hw.blocks) if hw.blocks else 64
    width = max(1, row_bytes // eb)
    want = hw.xe_cores
    sb = eb   # bytes of an A element in memory
    if weights is not None:
        sb = _BYTES[weights[0]] if weights[0] in _BYTES else 0.5    # i4: two per byte
    engine, why = gemv_engine(elt_in, hw, sb if weights is not None else None)
    reasons = [why, f"A streams in full-width 2D block rows of {row_bytes} bytes = {width} {elt_in}"]
    if weights is not None:
        wtype, group = weights
        wide = max(width, int(MIN_8BIT_READ_BYTES / sb))
        reasons[1] = (f"A holds {wtype} weights dequantized to {elt_in} in registers: tiles of {wide} columns "
                      f"({sb:g} byte(s) per weight in memory: {int(wide * sb)}-byte rows of the weights' bytes, "
                      f"at least the {MIN_8BIT_READ_BYTES} bytes of the narrowest plain 8-bit 2D block read; "
                      f"narrower ones are per-lane loads)")
        width = wide
        if group and dim == 1 and group % width:
            width = math.gcd(group, width)
            reasons.append(f"A tiles of {width} columns of K: the step divides the dequantization group {group} "
                           "(one parameter column per tile)")
    if dim == 1:
        layout, data = [4, 1], [16, width]
        while m is not None and batch * -(-m // (layout[0] * data[0])) < want and (layout[0] > 1 or data[0] > 8):
            if data[0] > 8:
                data[0] //= 2
            else:
                layout[0] //= 2
        wg = (layout[0] * data[0], width)
        groups = -(-m // wg[0]) if m is not None else None
        extent, tile = n, width
        reasons.append(f"{layout[0]} subgroups stacked, {data[0]} whole rows of A each: the dot products stay "
                       "in their subgroup")
    else:
        layout, data = [1, 4], [8, width]
        while n is not None and batch * -(-n // (layout[1] * data[1])) < want and layout[1] > 1:
            layout[1] //= 2
        wg = (data[0], layout[1] * width)
        groups = -(-n // wg[1]) if n is not None else None
        extent, tile = m, data[0]
        reasons.append(f"{layout[1]} subgroups side by side, {width} whole columns of A each: the column sums "
                       "stay in their subgroup; A tiles of 8 rows (an 8-row slice of x stays whole in every "
                       "work-item after SIMT distribution; a 16-row one would be spread across the work-items, "
                       "unlike A's rows)")
    total = groups * batch if groups is not None else None
    # loads in flight: `unroll` A tiles per subgroup and step, bounded by a quarter of the register
    # file (the x slices and products need the rest) and by the reduced extent
    target, how = _in_flight_target(hw)
    per_core = -(-total // want) if total is not None else 1   # dynamic: one work-group per Xe-core
    sg_bytes = data[0] * data[1] * eb
    step_bytes = int(per_core * layout[0] * layout[1] * data[0] * data[1] * sb)
    unroll = 1
    while (unroll * step_bytes < target and unroll < 8 and 2 * unroll * sg_bytes <= hw.grf_file_bytes() // 4
           and (extent is None or 2 * unroll * tile <= -(-extent // tile) * tile)):
        unroll *= 2
    what = "columns" if dim == 1 else "rows"
    reasons.append(f"{unroll} A tile{'s' if unroll > 1 else ''} per subgroup and step (the loop steps "
                   f"{unroll * tile} {what}): {unroll * step_bytes / 1024:.1f} KiB in flight per Xe-core for the "
                   f"{target / 1024:.1f} KiB its share of the bandwidth needs ({how})")
    slices, chunk = 1, 0
    step = unroll * tile
    in_flight = unroll * step_bytes
    short = total is not None and (total < want or in_flight < target)
    if can_split and short and extent is not None:
        steps = -(-extent // step)
        need = max(-(-want // total), -(-int(target) // in_flight))
        slices = max(1, min(need, steps // MIN_GEMV_STEPS_PER_SLICE))
        if slices > 1:
            chunk = -(-steps // slices) * step
            slices = -(-extent // chunk)
            total *= slices
            why_split = (f"too few outputs to fill {hw.name} otherwise" if total // slices < want else
                         f"{slices} work-groups per Xe-core put {slices * in_flight / 1024:.1f} KiB in flight")
            reasons.append(f"{slices} slices of {chunk} {what} along the reduced dimension (grid "
                           f"{'x' if dim == 1 else 'y'}): {why_split}; each work-group adds its partial sums "
                           "into y atomically (the summation order varies from run to run)")
    if total is None:
        reasons.append("dynamic shape: the grid comes from the runtime sizes")
    else:
        reasons.append(_xe_core_reason(total, want, hw, "too few outputs"))
    kind = ("batch " if batch > 1 else "") + ("matvec (y = A x)" if dim == 1 else "vecmat (y = x A)")
    p = GemvPlan(kind, m, n, elt_in, hw.name, wg, tuple(layout), tuple(data), reasons, batch=batch, engine=engine,
                 unroll=unroll, slices=slices, chunk=chunk)
    if groups is not None:
        p.fixed_grid = (slices, groups) if dim == 1 else (groups, slices)
    return p


def plan_ger(m, n, elt: str, hw: XeArch, accumulate: bool) -> MemPlan:
    """Tiles for an outer product C = x yT (+ C): C's traffic dominates (x and y are read once per
    work-group tile), so C is tiled as an element-wise array (`plan_memory_bound`)."""
    p = plan_memory_bound("ger (outer product" + (", C accumulated)" if accumulate else ")"), m, n, elt, hw)
    wm, wn = p.wg_tile
    share = (wm + wn) / ((2 if accumulate else 1) * wm * wn)
    p.reasons.insert(0, f"C is {'read and written' if accumulate else 'written'} once; x and y come in as "
                        f"{wm}x1 and 1x{wn} tiles per {wm}x{wn} C tile ({share:.0%} of C's traffic), "
                        "broadcast with tile_broadcast")
    return p


def _two_pass_chunk(start: int, across: int, extent: int, budget: int) -> int:
    """The chunk a two-pass softmax streams along an axis of `extent`, `across` lines at a time:
    `start`, doubled while the doubled chunk (across x chunk f32 values) fits in half the register
    `budget` and within the extent."""
    chunk = start
    while across * chunk * 2 * 4 <= budget // 2 and chunk * 2 <= extent:
        chunk *= 2
    return chunk


def plan_softmax(m, n: int, elt: str, hw: XeArch) -> MemPlan:
    """Tiles for a softmax along the rows of an m x n array: every subgroup owns whole rows
    (`sg_layout = [R, 1]`); rows are kept in registers (loaded once) when a subgroup's rows in f32
    fill at most half of its register file, else the kernel streams column chunks twice."""
    eb = _BYTES.get(elt, 4)
    row_bytes = max(r.max_row_bytes for r in hw.blocks) if hw.blocks else 64
    width = max(1, row_bytes // eb)
    budget = hw.grf_file_bytes() // 2
    want = hw.xe_cores
    npad = -(-n // width) * width
    reasons = [f"column tiles: full-width 2D block rows of {row_bytes} bytes = {width} {elt}, the last one as "
               "wide as the remainder (padding never enters the max or the sum)"]
    layout, rows = 4, 8
    engines = hw.xe_cores * hw.vector_engines_per_core
    if m is not None and -(-m // rows) < engines:
        while rows > 2 and -(-m // rows) < engines:
            rows //= 2
        reasons.append(f"{rows} rows per subgroup: {-(-m // rows)} subgroups for the {engines} vector engines "
                       "(more loads in flight)")
    while m is not None and -(-m // (layout * rows)) < want and layout > 1:
        layout //= 2
    chunk, fitted = None, False
    if rows * npad * 4 > budget:
        fit = rows
        while fit > 2 and fit * npad * 4 > budget:
            fit //= 2
        if fit * npad * 4 <= budget:
            rows, fitted = fit, True
            reasons.append(f"{rows} rows per subgroup: whole rows of {n} in f32 fit in half the register file "
                           f"({budget} bytes)")
        else:
            chunk = _two_pass_chunk(width, rows, n, budget)
            reasons.append(f"rows of {n} do not fit in registers: two passes over {chunk}-column chunks "
                           "(online max and sum, then the normalised write)")
    if chunk is None and not fitted:
        reasons.append(f"whole rows in registers: {rows} rows x {npad} columns in f32 per subgroup, loaded once")
    wg = (layout * rows, chunk or npad)
    reasons.append(f"{layout} subgroups stacked, {rows} whole rows each: the row max and sum stay in their "
                   "subgroup")
    if m is None:
        reasons.append("dynamic rows: the grid comes from the runtime row count")
        p = MemPlan("softmax along dimension 1", m, n, elt, hw.name, wg, (layout, 1), (rows, width), reasons)
        p.chunk = chunk
        return p
    groups = -(-m // wg[0])
    reasons.append(_xe_core_reason(groups, want, hw, "too few rows"))
    p = MemPlan("softmax along dimension 1", m, n, elt, hw.name, wg, (layout, 1), (rows, width), reasons)
    p.fixed_grid = (1, groups)
    p.chunk = chunk
    return p



def plan_reduction_sized(m, n, dim: int, elt: str, hw: XeArch) -> MemPlan:
    """`plan_reduction` for static or dynamic (None) sizes: a dynamic kept extent is planned as if
    it filled the device (the grid then comes from the runtime sizes)."""
    if m is not None and n is not None:
        return plan_reduction(m, n, dim, elt, hw)
    big = 64 * hw.xe_cores * 16
    p = plan_reduction(big if m is None else m, big if n is None else n, dim, elt, hw)
    p.m, p.n = m, n
    kept = m if dim == 1 else n
    if kept is None:
        p.fixed_grid = None
        p.reasons = [r for r in p.reasons if "Xe-core" not in r]
        p.reasons.append(f"dynamic {'rows' if dim == 1 else 'columns'}: the grid comes from the runtime sizes, "
                         "the tiles are those of a size that fills the device")
    return p


def plan_full_reduction(shape: tuple, elt: str, hw: XeArch) -> MemPlan:
    """Tiles for reducing a whole 1D/2D array to a scalar in two stages: stage 1 gives every
    work-group (one subgroup) `rows` whole rows (2D) or a `band` of columns (1D) and as many
    work-groups as the array allows up to filling the device; stage 2 (one work-group) reduces
    the partial values and the remainder."""
    eb = _BYTES.get(elt, 4)
    row_bytes = max(r.max_row_bytes for r in hw.blocks) if hw.blocks else 64
    width = max(1, row_bytes // eb)
    want = hw.xe_cores
    n = shape[-1]
    step = width * (4 if n is None else min(4, max(1, n // width)))
    reasons = [f"loop step {step} columns: full-width 2D block rows of {row_bytes} bytes = {width} {elt}, "
               "the last tile exactly as wide as the remainder (no padding, no clamping)",
               "two stages (partials buffer, then one work-group): the same result on every run, no float "
               "or 16-bit atomics needed"]
    rows, band = 8, None
    if None in shape:
        reasons[0] = f"loop step {step} columns: full-width 2D block rows of {row_bytes} bytes = {width} {elt}"
        if len(shape) == 2:
            band, wg, what = None, (rows, step), f"{rows} rows"
        else:
            band = step * 16
            wg, what = (1, step), f"{band} columns"
        reasons.append(f"dynamic shape (sums only): stage 1 has one work-group per {what} of the runtime size, "
                       "edge tiles read zeros past the array (which add nothing)")
        p = MemPlan("reduce to a scalar", shape[0] if len(shape) == 2 else 1, n, elt, hw.name, wg, (1, 1), wg,
                    reasons)
        p.rows, p.band, p.step, p.width = rows, band, step, width
        return p
    if len(shape) == 2:
        m = shape[0]
        while m // rows < want and rows > 1:
            rows //= 2
        groups = m // rows
        reasons.append(f"stage 1: {groups} work-groups, {rows} whole row(s) each; stage 2 reduces the {groups} partial "
                       f"values and the last {m - groups * rows} rows")
        wg = (rows, step)
    else:
        band = step * max(1, n // (step * want))
        groups = n // band
        reasons.append(f"stage 1: {groups} work-groups, {band} columns each; stage 2 reduces the {groups} partial "
                       f"values and the last {n - groups * band} columns")
        wg = (1, step)
    reasons.append(_xe_core_reason(groups, want, hw, "the array is too small"))
    m2 = shape[0] if len(shape) == 2 else 1
    p = MemPlan("reduce to a scalar", m2, n, elt, hw.name, wg, (1, 1), wg, reasons)
    p.fixed_grid = (1, groups)
    p.rows, p.band, p.step, p.width = rows, band, step, width
    return p


def plan_softmax_columns(m: int, n: int, elt: str, hw: XeArch) -> MemPlan:
    """Tiles for a softmax along the columns (dimension 0) of an m x n array: every subgroup owns
    whole full-width column strips (`sg_layout = [1, C]`); columns are kept in registers when a
    subgroup's strip in f32 fills at most half of its register file, else two passes over row
    chunks."""
    eb = _BYTES.get(elt, 4)
    row_bytes = max(r.max_row_bytes for r in hw.blocks) if hw.blocks else 64
    width = max(1, row_bytes // eb)
    budget = hw.grf_file_bytes() // 2
    want = hw.xe_cores
    unit = 8
    mpad = -(-m // unit) * unit
    reasons = [f"column strips: full-width 2D block rows of {row_bytes} bytes = {width} {elt}; rows in tiles of "
               f"{unit}, the last one as high as the remainder (padding never enters the max or the sum)"]
    layout = 4
    while -(-n // (layout * width)) < want and layout > 1:
        layout //= 2
    chunk = None
    if mpad * width * 4 <= budget:
        reasons.append(f"whole columns in registers: {mpad} rows x {width} columns in f32 per subgroup, loaded once")
    else:
        chunk = _two_pass_chunk(unit, width, m, budget)
        reasons.append(f"columns of {m} do not fit in registers: two passes over {chunk}-row chunks (online max "
                       "and sum, then the normalised write)")
    wg = (chunk or mpad, layout * width)
    groups = -(-n // wg[1])
    reasons.append(f"{layout} subgroups side by side, {width} whole columns each: the column max and sum stay "
                   "in their subgroup")
    reasons.append(_xe_core_reason(groups, want, hw, "too few columns"))
    p = MemPlan("softmax along dimension 0", m, n, elt, hw.name, wg, (1, layout), (unit, width), reasons)
    p.fixed_grid = (groups, 1)
    p.chunk = chunk
    return p
