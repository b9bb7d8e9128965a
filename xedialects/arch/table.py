"""The hardware table's classes -- `XeArch` and its parts (DPAS, block rules, surfaces, peak rates,
performance facts with their sources) -- and the element-type helpers (`elem_bits`, `elem_bytes`,
`canonical_type`). The facts of each architecture are in `pvc.py` / `bmg.py`; `get_arch` and the
registry in `arch/__init__.py`.
"""
from __future__ import annotations

from dataclasses import dataclass, field


class ArchError(ValueError):
    """A question the hardware table cannot answer positively (unsupported type, kind, ...)."""


# --------------------------------------------------------------------------------------------
# Element types (names as MLIR prints them, plus common aliases)
# --------------------------------------------------------------------------------------------

_BITS = {
    "f64": 64, "f32": 32, "tf32": 32, "f16": 16, "bf16": 16, "f8E4M3FN": 8, "f8E5M2": 8,
    "i64": 64, "si64": 64, "ui64": 64, "s64": 64, "u64": 64,
    "i32": 32, "si32": 32, "ui32": 32, "s32": 32, "u32": 32,
    "i16": 16, "si16": 16, "ui16": 16, "s16": 16, "u16": 16,
    "i8": 8, "si8": 8, "ui8": 8, "s8": 8, "u8": 8,
    "i4": 4, "si4": 4, "ui4": 4, "s4": 4, "u4": 4,
    "i2": 2, "si2": 2, "ui2": 2, "s2": 2, "u2": 2,
}

# canonical spelling used by the DPAS table: signed ints s*, unsigned u*, floats unchanged
_CANON = {
    "i64": "s64", "si64": "s64", "ui64": "u64",
    "i32": "s32", "si32": "s32", "ui32": "u32",
    "i16": "s16", "si16": "s16", "ui16": "u16",
    "i8": "s8", "si8": "s8", "ui8": "u8",
    "i4": "s4", "si4": "s4", "ui4": "u4",
    "i2": "s2", "si2": "s2", "ui2": "u2",
}


def _type_name(t) -> str:
    name = str(t).strip()
    if name not in _BITS:
        raise ArchError(f"unknown element type '{name}' (known: {', '.join(sorted(_BITS))})")
    return name


def elem_bits(name) -> int:
    """Storage size in bits of an element type name ("bf16" -> 16, "tf32" -> 32, "i4" -> 4)."""
    return _BITS[_type_name(name)]


def elem_bytes(name) -> int:
    """Storage size in bytes of an element type name; sub-byte types raise (use `elem_bits`)."""
    bits = elem_bits(name)
    if bits % 8:
        raise ArchError(f"'{name}' is a sub-byte type ({bits} bits); use elem_bits()")
    return bits // 8


def canonical_type(name) -> str:
    """Canonical spelling: i8/si8 -> s8, ui8 -> u8, i32 -> s32, ...; floats unchanged."""
    n = _type_name(name)
    return _CANON.get(n, n)


def _as_bytes(e) -> int:
    """Accept an element size in bytes (int) or an element type name."""
    if isinstance(e, str):
        return elem_bytes(e)
    e = int(e)
    if e <= 0:
        raise ArchError(f"element size must be positive, got {e}")
    return e


# --------------------------------------------------------------------------------------------
# Table classes (no numbers here: the values come from one module per architecture)
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class DpasSpec:
    """The matrix engine (XMX) instruction: C[M,N] += A[M,K] x B[K,N] per subgroup."""

    systolic_depth: int          # pipeline stages; each consumes one 32-bit channel of A/B
    max_repeat_count: int        # M: 1 <= M <= this
    exec_size: int               # N: fixed
    channel_bits: int            # bits of A/B consumed per systolic stage and work-item
    # supported (A, B, C/D) element types; int rows list all A x B combinations
    float_combos: tuple[tuple[str, str, tuple[str, ...]], ...]
    int_ab_types: tuple[str, ...]
    int_acc_types: tuple[str, ...]
    source: str = ""

    def k_for_bits(self, bits: int) -> int:
        """K = systolic depth x elements per 32-bit channel (= 32 bytes / element size for 8..32 bit)."""
        return self.systolic_depth * (self.channel_bits // bits)


@dataclass(frozen=True)
class BlockRule:
    """Limits of one kind of 2D block message for one element size (sizes as seen in memory)."""

    op: str                      # load | load_vnni | load_transpose | store | prefetch
    elem_bits: int
    min_height: int
    max_height: int              # rows
    min_width: int
    max_width: int               # elements of one block
    array_lengths: tuple[int, ...]  # legal block counts (blocks adjacent along the width)
    max_row_bytes: int           # width * elem_bytes * array_len <= this
    max_bytes: int               # payload of one message (registers written / read)
    height_multiple: int = 1     # VNNI packs this many rows into one 32-bit value
    source: str = ""

    @property
    def elem_bytes(self) -> int:
        return self.elem_bits // 8

    def max_block(self) -> tuple[int, int, int]:
        """(max height, max width in elements, max array length) -- each bound on its own; the
        row rule width*elem_bytes*array_len <= max_row_bytes also applies to the combination."""
        return self.max_height, self.max_width, max(self.array_lengths)

    def check(self, height: int, width: int, array_len: int = 1) -> tuple[bool, str]:
        eb = self.elem_bytes
        what = f"{self.op.replace('_', ' ')} of {self.elem_bits}-bit data"
        if array_len not in self.array_lengths:
            return False, (f"{what}: array length {array_len} is not supported "
                           f"(allowed: {', '.join(map(str, self.array_lengths))})")
        if not self.min_height <= height <= self.max_height:
            return False, (f"{what}: block height {height} is outside [{self.min_height}, "
                           f"{self.max_height}]")
        if height % self.height_multiple:
            return False, (f"{what}: block height {height} must be a multiple of "
                           f"{self.height_multiple} (rows packed into one 32-bit VNNI value)")
        if not self.min_width <= width <= self.max_width:
            return False, (f"{what}: block width {width} elements is outside [{self.min_width}, "
                           f"{self.max_width}]")
        if (width * eb) % 4:
            return False, f"{what}: block width {width} x {eb} B = {width * eb} B is not a multiple of 4 bytes"
        row = width * eb * array_len
        if row > self.max_row_bytes:
            return False, (f"{what}: width x element size x array length = {width} x {eb} x {array_len} "
                           f"= {row} B exceeds {self.max_row_bytes} B")
        total = row * height
        if total > self.max_bytes:
            return False, f"{what}: block payload {total} B exceeds {self.max_bytes} B"
        return True, ""


@dataclass(frozen=True)
class SurfaceRules:
    """Rules on the 2D surface (the whole matrix) a block message addresses."""

    base_align: int              # bytes
    pitch_align: int             # bytes
    width_align: int             # bytes
    max_width_bytes: int
    max_pitch_bytes: int
    max_height: int              # rows (elements)
    min_pitch_bytes: int
    min_width_bytes: int
    source: str = ""


@dataclass(frozen=True)
class PeakRates:
    """Per-Xe-core throughput per clock (dense) and memory bandwidth."""

    xmx_ops_per_clk: tuple[tuple[str, int], ...]   # (type, ops per clock per Xe-core); 1 FMA = 2 ops
    vector_ops_per_clk: tuple[tuple[str, int], ...]
    mem_bandwidth_gbs: float
    source: str = ""


@dataclass(frozen=True)
class Fact:
    """One number of the performance model with its unit and where it comes from."""

    value: float
    unit: str
    source: str


@dataclass(frozen=True)
class PerfFacts:
    """Facts and calibrated parameters of the performance model (passes/analysis/perf_model.py).
    Each field is a `Fact` naming its source; `assumed` ones are model parameters, not measurements."""

    stacks: Fact                    # stacks (tiles) of the device; xe_cores counts all of them
    hbm_gbs_per_stack: Fact         # sustained HBM bandwidth of one stack
    l2_gbs_per_stack: Fact          # sustained L2 (last-level cache) bandwidth of one stack
    mem_latency_clk: Fact           # load-to-use latency of a 2D block load that misses L1
    xmx_efficiency: Fact            # sustained fraction of the XMX peak in a GEMM main loop

    def items(self) -> list[tuple[str, Fact]]:
        return [(f, getattr(self, f)) for f in self.__dataclass_fields__]


@dataclass(frozen=True)
class XeArch:
    """One architecture's hardware table. All values are set by the architecture module."""

    name: str
    full_name: str
    xe_cores: int
    vector_engines_per_core: int
    threads_per_engine: int
    threads_per_engine_large_grf: int
    subgroup_size: int
    subgroup_sizes: tuple[int, ...]
    grf_count: int
    grf_count_large: int
    grf_bytes: int
    slm_bytes_per_core: int
    slm_bytes_per_workgroup: int
    max_workgroup_size: int
    named_barriers: int
    l1_bytes_per_core: int
    l2_bytes: int
    clock_mhz: int
    base_clock_mhz: int
    dpas: DpasSpec
    blocks: tuple[BlockRule, ...]
    surface: SurfaceRules
    peak: PeakRates
    notes: tuple[str, ...] = field(default=())
    perf: PerfFacts | None = None
    igc_device: str = ""                        # IGC / ocloc's `-device` name (runtime/igc); "" = not compiled
    sources: tuple[tuple[str, str], ...] = ()   # (fact, source) for facts without a Fact wrapper

    def source(self, key: str, default: str = "") -> str:
        """Where the fact `key` (xe_cores, clock, threads, slm, ...) comes from."""
        return dict(self.sources).get(key, default)

    # ---- derived quantities --------------------------------------------------------------

    @property
    def hw_threads_per_core(self) -> int:
        return self.vector_engines_per_core * self.threads_per_engine

    def threads_per_core(self, large_grf: bool = False) -> int:
        """Hardware threads (= subgroups) an Xe-core holds in the given GRF mode."""
        per = self.threads_per_engine_large_grf if large_grf else self.threads_per_engine
        return self.vector_engines_per_core * per

    def grf_file_bytes(self, large_grf: bool = False) -> int:
        """Register file of one hardware thread (one subgroup) in bytes."""
        return (self.grf_count_large if large_grf else self.grf_count) * self.grf_bytes

    @property
    def max_subgroups_per_workgroup(self) -> int:
        return self.max_workgroup_size // self.subgroup_size

    def peak_tflops(self, elem_type: str, *, engine: str = "xmx") -> float:
        """Dense peak (TFLOP/s, TOP/s for ints) at the max clock: cores x ops/clk x clock."""
        t = canonical_type(elem_type)
        table = dict(self.peak.xmx_ops_per_clk if engine == "xmx" else self.peak.vector_ops_per_clk)
        if t not in table:
            raise ArchError(f"{self.name}: no {engine} peak rate for {elem_type} "
                            f"(known: {', '.join(table)})")
        return self.xe_cores * table[t] * self.clock_mhz * 1e6 / 1e12

    @property
    def mem_bandwidth_gbs(self) -> float:
        return self.peak.mem_bandwidth_gbs

    # ---- DPAS ----------------------------------------------------------------------------

    def _dpas_ab(self, t: str) -> str:
        c = canonical_type(t)
        return "tf32" if c == "f32" else c   # f32 operands run as tf32 on the matrix engine

    def dpas_types(self) -> list[tuple[str, str, str]]:
        """All supported (A, B, C/D) combinations."""
        out = []
        for a, b, accs in self.dpas.float_combos:
            out += [(a, b, c) for c in accs]
        for a in self.dpas.int_ab_types:
            for b in self.dpas.int_ab_types:
                out += [(a, b, c) for c in self.dpas.int_acc_types]
        return out

    def dpas_shape(self, a_type, b_type, acc_type, d_type=None) -> tuple[int, int, int]:
        """(max M, N, K) of one DPAS for these operand types; raises ArchError if unsupported.

        M is the repeat count (any 1 <= M <= max), N the execution size, K = systolic depth x
        elements per 32-bit channel. f32 A/B mean tf32. `d_type` (result) defaults to `acc_type`.
        """
        a, b = self._dpas_ab(a_type), self._dpas_ab(b_type)
        c = canonical_type(acc_type)
        d = canonical_type(d_type) if d_type is not None else c
        ok = False
        for fa, fb, accs in self.dpas.float_combos:
            if (a, b) == (fa, fb):
                ok = c in accs and d in accs
                break
        else:
            ints = self.dpas.int_ab_types
            if a in ints and b in ints:
                ok = c in self.dpas.int_acc_types and d in self.dpas.int_acc_types
        if not ok:
            combos = "; ".join(f"{x} x {y} -> {'/'.join(z)}" for x, y, z in self.dpas.float_combos)
            combos += (f"; {{{', '.join(self.dpas.int_ab_types)}}} x {{same}} -> "
                       f"{'/'.join(self.dpas.int_acc_types)}")
            raise ArchError(
                f"{self.name}: DPAS does not support {a_type} x {b_type} -> {acc_type}"
                + (f" (result {d_type})" if d_type is not None else "")
                + f"; supported: {combos}")
        bits = max(elem_bits(a), elem_bits(b))
        return self.dpas.max_repeat_count, self.dpas.exec_size, self.dpas.k_for_bits(bits)

    def dpas_k(self, ab_type) -> int:
        return self.dpas.k_for_bits(elem_bits(self._dpas_ab(ab_type)))

    def vnni_factor(self, elem) -> int:
        """Elements packed into one 32-bit VNNI value: 32 bits / element bits (8-bit: 4, 16-bit: 2)."""
        bits = elem_bits(elem) if isinstance(elem, str) else 8 * int(elem)
        if bits > self.dpas.channel_bits:
            return 1
        return self.dpas.channel_bits // bits

    # ---- 2D block messages ---------------------------------------------------------------

    def block_rule(self, op: str, elem) -> BlockRule:
        """The BlockRule for `op` in {load, load_vnni, load_transpose, store, prefetch}."""
        eb = _as_bytes(elem)
        kinds = sorted({r.op for r in self.blocks})
        if op not in kinds:
            raise ArchError(f"unknown 2D block operation '{op}' (known: {', '.join(kinds)})")
        for r in self.blocks:
            if r.op == op and r.elem_bits == 8 * eb:
                return r
        sizes = sorted(r.elem_bits for r in self.blocks if r.op == op)
        raise ArchError(f"{self.name}: 2D block {op.replace('_', ' ')} does not support "
                        f"{8 * eb}-bit elements (supported: {', '.join(f'{s}-bit' for s in sizes)})")

    @staticmethod
    def _load_kind(transpose: bool, vnni: bool) -> str:
        if transpose and vnni:
            raise ArchError("transpose and VNNI transform are mutually exclusive on a 2D block load")
        return "load_transpose" if transpose else "load_vnni" if vnni else "load"

    def max_load_block(self, elem, *, transpose: bool = False, vnni: bool = False) -> tuple[int, int, int]:
        """(max height, max width in elements, max array length) of a 2D block load.
        Each is an independent bound; also width x elem_bytes x array_len <= 64 B."""
        return self.block_rule(self._load_kind(transpose, vnni), elem).max_block()

    def max_store_block(self, elem) -> tuple[int, int, int]:
        return self.block_rule("store", elem).max_block()

    def max_prefetch_block(self, elem) -> tuple[int, int, int]:
        return self.block_rule("prefetch", elem).max_block()

    def _check(self, op, h, w, elem, array_len) -> tuple[bool, str]:
        try:
            rule = self.block_rule(op, elem)
        except ArchError as e:
            return False, str(e)
        return rule.check(int(h), int(w), int(array_len))

    def is_legal_block_load(self, h, w, elem, array_len=1, transpose=False, vnni=False) -> tuple[bool, str]:
        """(ok, reason) for loading an h x w block (w in elements, as in memory) of `elem`
        (bytes or a type name), `array_len` blocks side by side, optionally transposed or
        VNNI-transformed."""
        try:
            op = self._load_kind(transpose, vnni)
        except ArchError as e:
            return False, str(e)
        ok, why = self._check(op, h, w, elem, array_len)
        if not ok and transpose and "does not support" in why:
            why += ("; transpose 8/16-bit data as 32-bit elements (the result is VNNI-packed, "
                    "xe-cute-architecture.md)")
        return ok, why

    def is_legal_block_store(self, h, w, elem, array_len=1) -> tuple[bool, str]:
        return self._check("store", h, w, elem, array_len)

    def is_legal_block_prefetch(self, h, w, elem, array_len=1) -> tuple[bool, str]:
        return self._check("prefetch", h, w, elem, array_len)

    def legal_surface(self, base_align_bytes, pitch_bytes, width_bytes, height) -> tuple[bool, str]:
        """(ok, reason) for a 2D surface: base address alignment (the largest power of two known
        to divide the address), row pitch and width in bytes, height in rows."""
        s = self.surface
        if base_align_bytes % s.base_align:
            return False, f"base address must be {s.base_align}-byte aligned, got {base_align_bytes}-byte alignment"
        if not s.min_width_bytes <= width_bytes <= s.max_width_bytes:
            return False, f"surface width {width_bytes} B is outside [{s.min_width_bytes}, {s.max_width_bytes}] B"
        if width_bytes % s.width_align:
            return False, f"surface width {width_bytes} B must be a multiple of {s.width_align} B"
        if not s.min_pitch_bytes <= pitch_bytes <= s.max_pitch_bytes:
            return False, f"pitch {pitch_bytes} B is outside [{s.min_pitch_bytes}, {s.max_pitch_bytes}] B"
        if pitch_bytes % s.pitch_align:
            return False, f"pitch {pitch_bytes} B must be a multiple of {s.pitch_align} B"
        if pitch_bytes < width_bytes:
            return False, f"pitch {pitch_bytes} B is smaller than the width {width_bytes} B"
        if not 1 <= height <= s.max_height:
            return False, f"surface height {height} rows is outside [1, {s.max_height}]"
        return True, ""

    def summary(self) -> str:
        """A few human-readable lines about the table."""
        return "\n".join([
            f"{self.full_name} ({self.name}): {self.xe_cores} Xe-cores x {self.vector_engines_per_core} "
            f"vector engines x {self.threads_per_engine} threads, subgroup size {self.subgroup_size}",
            f"  GRF {self.grf_count} (large: {self.grf_count_large}) x {self.grf_bytes} B; SLM "
            f"{self.slm_bytes_per_core // 1024} KiB/Xe-core; L1 {self.l1_bytes_per_core // 1024} KiB/Xe-core; "
            f"L2 {self.l2_bytes // 2**20} MiB",
            f"  DPAS M<={self.dpas.max_repeat_count} N={self.dpas.exec_size} K=8x(32/bits); peak bf16 "
            f"{self.peak_tflops('bf16'):.1f} TFLOP/s at {self.clock_mhz} MHz; "
            f"memory {self.mem_bandwidth_gbs:.0f} GB/s",
        ])
