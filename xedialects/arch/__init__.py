"""Hardware descriptions (pipeline role: the single source of hardware facts).

Every pass that needs a number about the GPU -- DPAS shapes, 2D block load/store/prefetch limits,
surface alignment, register file, Xe-core count, peak rates -- asks the architecture table returned
by `get_arch(name)`. The table classes and the element-type helpers live in `table.py`; the facts
for each architecture live in exactly one module (`pvc.py` for Ponte Vecchio / Xe-HPC, `bmg.py` for
Battlemage / Xe2; docs/arch.md compares them).

    >>> from xedialects.arch import get_arch
    >>> pvc = get_arch("pvc")
    >>> pvc.dpas_shape("bf16", "bf16", "f32")
    (8, 16, 16)
    >>> pvc.is_legal_block_load(32, 16, 2, array_len=2, vnni=True)
    (True, '')
"""
from __future__ import annotations

from .bmg import BMG
from .pvc import PVC
from .table import (ArchError, BlockRule, DpasSpec, Fact, PeakRates, PerfFacts, SurfaceRules, XeArch, canonical_type,
                    elem_bits, elem_bytes)

__all__ = [
    "ArchError", "XeArch", "DpasSpec", "BlockRule", "SurfaceRules", "PeakRates", "Fact", "PerfFacts",
    "get_arch", "ARCHS", "shared_dpas_shape", "elem_bits", "elem_bytes", "canonical_type",
]

ARCHS: dict[str, XeArch] = {"pvc": PVC, "bmg": BMG}
_ALIASES = {"xe-hpc": "pvc", "xehpc": "pvc", "ponte-vecchio": "pvc", "max1550": "pvc", "xe_hpc": "pvc",
            "battlemage": "bmg", "b580": "bmg", "xe2": "bmg", "bmg-g21": "bmg", "intel_gpu_bmg_g21": "bmg"}


def shared_dpas_shape(a_type, b_type, acc_type, d_type=None) -> tuple[int, int, int]:
    """(max M, N, K) of one DPAS under the rules every architecture of ARCHS shares: for checks that
    cannot see the target (the xegpu.dpas verifier; passes with `arch=` ask their own table). pvc
    and bmg have the same DPAS (arch/bmg.py). Raises the first architecture's ArchError when one of
    them does not support the types, and an ArchError naming the shapes when they disagree."""
    shapes = {name: arch.dpas_shape(a_type, b_type, acc_type, d_type) for name, arch in ARCHS.items()}
    if len(set(shapes.values())) > 1:
        each = "; ".join(f"{name}: M<={m}, N={n}, K={k}" for name, (m, n, k) in shapes.items())
        raise ArchError(f"the DPAS shape of {a_type} x {b_type} -> {acc_type} differs between the "
                        f"architectures ({each}); a check that does not know the target cannot tell which applies")
    return next(iter(shapes.values()))


def get_arch(name: str | XeArch = "pvc") -> XeArch:
    """The hardware table for `name` (case-insensitive; 'pvc', 'xe-hpc', ...). Raises ArchError."""
    if isinstance(name, XeArch):
        return name
    key = str(name).strip().lower()
    key = _ALIASES.get(key, key)
    if key not in ARCHS:
        raise ArchError(f"unknown architecture '{name}' (known: {', '.join(sorted(ARCHS))})")
    return ARCHS[key]
