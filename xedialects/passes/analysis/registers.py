"""Registers of one subgroup of an XeGPU kernel and the register-file (GRF) mode the kernel needs
(pipeline role: analysis; read by `xe-kernel-report`, the performance model through it, and
`convert-xegpu-to-spirv`).

`estimate_grfs(func, arch)`: the largest set of simultaneously live vectors (VC: the subgroup vector;
SIMT: the work-item fragment x the subgroup size) and block descriptors (one message header each),
each rounded up to whole GRFs of the architecture table; None for a kernel still at XeTile level.

`grf_mode(func, arch) -> GrfMode`, the one decision every consumer uses: "large" when the planner
asked for it (`xe.grf_mode = "large"` on the gpu.func, written by the GEMM kernel writer from
`GemmPlan.grf_mode`) or when the estimate exceeds the table's default `grf_count`; else "default".
The larger of the two wins. A kernel's `xe.grf_mode` other than "default" / "large" is a
`GrfModeError` located at the gpu.func.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from mlir import ir

from ...arch import XeArch, elem_bits
from ...core.typeinfo import vector_info
from ..utils.ir_walk import walk as _walk

__all__ = ["GRF_MODE_ATTR", "GRF_MODES", "GrfMode", "GrfModeError", "estimate_grfs", "grf_mode",
           "planned_grf_mode"]

GRF_MODE_ATTR = "xe.grf_mode"
GRF_MODES = ("default", "large")
SUBGROUP = 16  # default lanes when no arch is at hand; passes use arch.subgroup_size
DESCRIPTOR_BYTES = 32  # a 2D block message header: base, surface width/height/pitch, offsets, block shape (8 DW)


class GrfModeError(ValueError):
    """A gpu.func's `xe.grf_mode` is not a known mode; `op` is the gpu.func."""

    def __init__(self, op, message: str):
        super().__init__(message)
        self.op = op
        self.message = message


def _bits(elt):
    try:
        return elem_bits(elt)
    except Exception:  # noqa: BLE001 - index / i1 and other non-table types
        return {"i1": 8, "index": 64}.get(elt, 32)


def _is_simt(func) -> bool:
    return any(o.name.startswith("xegpu.") and o.name in _MODE_OPS and "mode" not in o.attributes
               for o in _walk(func))


_MODE_OPS = {"xegpu.create_nd_tdesc", "xegpu.load_nd", "xegpu.store_nd", "xegpu.prefetch_nd", "xegpu.dpas",
             "xegpu.update_nd_offset", "xegpu.create_tdesc", "xegpu.load_gather", "xegpu.store_scatter"}


def _value_bytes(v, simt: bool, grf_bytes: int, lanes: int = SUBGROUP) -> int:
    """Register bytes of a value: vectors rounded up to whole GRFs, block descriptors one header."""
    t = v.type
    vi = vector_info(t)
    if vi is not None:
        shape, elt = vi
        n = math.prod(shape) if shape else 1
        nbytes = n * _bits(elt) // 8 or 1
        if simt:
            nbytes *= lanes
        return -(-nbytes // grf_bytes) * grf_bytes
    if str(t).startswith("!xegpu.tensor_desc"):
        return DESCRIPTOR_BYTES
    return 0


_VIEWS = ("vector.extract_strided_slice", "vector.shape_cast")


class _Liveness:
    """Peak simultaneously-live register bytes of a region tree (a linear scan per block)."""

    def __init__(self, simt, grf_bytes, lanes=SUBGROUP):
        self.simt = simt
        self.grf_bytes = grf_bytes
        self.lanes = lanes

    def grfs(self, v):
        """(bytes)"""
        return _value_bytes(v, self.simt, self.grf_bytes, self.lanes)

    def block_peak(self, block, live_in_grfs=0):
        ops = [o.operation for o in block.operations]
        pos = {}
        for i, op in enumerate(ops):
            pos[op] = i
        last = {}
        # values defined in this block (args and results) and their last use position in it
        defs = [(a, -1) for a in block.arguments]
        for i, op in enumerate(ops):
            defs += [(r, i) for r in op.results]

        def top_position(user):
            # climb from a (possibly nested) user to the op of this block
            o = user
            while o is not None:
                if o in pos:
                    return pos[o]
                parent = o.parent
                o = parent.operation if parent is not None and hasattr(parent, "operation") else parent
            return None

        for v, d in defs:
            lu = d
            for use in v.uses:
                u = use.owner
                u = u.operation if hasattr(u, "operation") and not isinstance(u, ir.Operation) else u
                p = top_position(u)
                if p is not None and p > lu:
                    lu = p
            last[v] = [d, lu]
        # register views: a slice / shape_cast aliases its source, which stays live as long as the view
        cost = {}
        for v, d in defs:
            cost[v] = self.grfs(v)
        for i in reversed(range(len(ops))):
            op = ops[i]
            if op.name in _VIEWS and op.operands and op.operands[0] in last:
                r = op.results[0]
                cost[r] = 0
                src = last[op.operands[0]]
                src[1] = max(src[1], last[r][1])
        peak = 0
        for i, op in enumerate(ops):
            live = live_in_grfs
            loop_inits = set()
            if op.regions and op.name in ("scf.for", "scf.while"):
                # init operands become the iter_args and the results are the yielded values:
                # both are counted inside the loop body
                loop_inits = {v for v in op.operands} or {None}
            for v, (d, lu) in last.items():
                if v in loop_inits and lu == i:
                    continue   # becomes the loop's iter_arg (counted inside)
                if d < i <= lu or (d == i and lu > i and not loop_inits):
                    live += cost[v]
            nested = 0
            for region in op.regions:
                for b in region.blocks:
                    nested = max(nested, self.block_peak(b, 0))
            peak = max(peak, live + nested)
        return peak


def estimate_grfs(func, arch: XeArch) -> int | None:
    """GRFs one subgroup of the gpu.func `func` keeps live at its peak (the arch table's GRF size);
    None when the kernel is still XeTile (its registers are decided by the later stages)."""
    names = [o.name for o in _walk(func)]
    if any(n.startswith("xetile.") for n in names) and not any(n.startswith("xegpu.") for n in names):
        return None
    if not func.regions[0].blocks:
        return 0
    live = _Liveness(_is_simt(func), arch.grf_bytes, arch.subgroup_size)
    return -(-live.block_peak(func.regions[0].blocks[0]) // arch.grf_bytes)


def planned_grf_mode(func) -> str | None:
    """The GRF mode the planner recorded on the gpu.func (`xe.grf_mode`), None when it has none."""
    if GRF_MODE_ATTR not in func.attributes:
        return None
    attr = func.attributes[GRF_MODE_ATTR]
    try:
        value = ir.StringAttr(attr).value
    except ValueError:
        value = None
    if value not in GRF_MODES:
        raise GrfModeError(func, f"{GRF_MODE_ATTR} must be one of {', '.join(repr(m) for m in GRF_MODES)}, "
                                 f"got {attr}")
    return value


@dataclass(frozen=True)
class GrfMode:
    """The register file of one kernel: `mode` "default" | "large", `grf_count` its GRFs per
    subgroup (arch table), from `planned` (xe.grf_mode or None) and `estimate` (GRFs or None)."""

    mode: str
    grf_count: int
    planned: str | None
    estimate: int | None

    @property
    def large(self) -> bool:
        return self.mode == "large"

    def reason(self) -> str:
        parts = []
        if self.planned is not None:
            parts.append(f"planned {self.planned}")
        if self.estimate is not None:
            parts.append(f"estimate {self.estimate} GRFs")
        return (f"{self.mode} GRF mode ({self.grf_count} GRFs): "
                + (", ".join(parts) if parts else "no plan and no estimate"))


def grf_mode(func, arch: XeArch, estimate: int | None = None) -> GrfMode:
    """The GRF mode of the gpu.func `func` on `arch` (see the module docstring for the rule);
    `estimate` = a known `estimate_grfs(func, arch)` (computed here when None)."""
    planned = planned_grf_mode(func)
    if estimate is None:
        estimate = estimate_grfs(func, arch)
    large = planned == "large" or (estimate is not None and estimate > arch.grf_count)
    return GrfMode("large" if large else "default", arch.grf_count_large if large else arch.grf_count,
                   planned, estimate)
