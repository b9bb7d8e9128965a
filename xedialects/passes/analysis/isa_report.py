"""The machine-code half of the kernel report (`xe-kernel-report{isa=true}`): the module's kernels compiled
by IGC for the architecture's device, with the build options of their metadata, read back per kernel.

`isa_reports(module, arch) -> {kernel: row}`; each row has the GRF mode and count, spill bytes, the
instruction, DPAS, 2D block load / store / prefetch and scratch-message counts of the whole kernel and of
one K-loop iteration (non-DPAS instructions per DPAS there) -- for a kernel without one (memory-bound), of
one iteration of its loop with the most memory messages (instructions per message there) --, the build
options and IGC's version.
The module is converted to `pvc` SPIR-V on a copy when it is not SPIR-V yet (docs/igc.md).
"""
from __future__ import annotations

from ...runtime.igc.isa import Counts, memory_messages

COUNT_KEYS = ("instructions", "dpas", "block_loads", "block_stores", "block_prefetches", "scattered_messages",
              "scratch_messages")


def _counts(c: Counts | None) -> dict | None:
    if c is None:
        return None
    d = {k: getattr(c, k) for k in COUNT_KEYS}
    d["non_dpas_per_dpas"] = c.non_dpas_per_dpas
    n = memory_messages(c)
    d["instructions_per_message"] = c.instructions / n if n else None
    return d


def isa_reports(module, arch) -> dict:
    """{kernel name: ISA row} of IGC's build of `module` for `arch` (an XeArch). Raises DiagnosticError
    (located at the kernel) when IGC rejects or crashes, IgcError when IGC is not installed."""
    from ...runtime.igc.device_build import build_ir_module

    build, meta = build_ir_module(module, arch.name)
    version = build.toolchain.igc_version if build.toolchain else "unknown"
    rows = {}
    for name, k in build.kernels.items():
        rows[name] = {"device": build.device, "build_options": build.options, "igc": version,
                      "simd": k.simd, "grf_mode": k.grf_mode, "grf_count": k.grf_count,
                      "spill_bytes": k.spill_bytes, "total": _counts(k.total), "k_loop": _counts(k.k_loop),
                      "hot_loop": _counts(k.hot_loop),
                      "undefined_symbols": list(build.undefined)}
    return rows


def isa_lines(row: dict) -> list[str]:
    """The report's text lines of one kernel's ISA row."""
    t, loop = row["total"], row["k_loop"]
    lines = [f"  IGC {row['igc']} for {row['device']}{' (' + row['build_options'] + ')' if row['build_options'] else ''}: "
             f"SIMD{row['simd']}, {row['grf_mode']} GRF mode ({row['grf_count']} GRFs), spill {row['spill_bytes']} B",
             f"    ISA: {t['instructions']} instructions, DPAS {t['dpas']}, 2D block loads {t['block_loads']}, "
             f"stores {t['block_stores']}, prefetches {t['block_prefetches']}, scattered messages "
             f"{t['scattered_messages']}, scratch messages {t['scratch_messages']}"]
    hot = row.get("hot_loop")
    if loop is None and hot is not None:
        lines.append(f"    ISA hot loop (one iteration; no DPAS): {hot['instructions']} instructions, block loads "
                     f"{hot['block_loads']}, stores {hot['block_stores']}, prefetches {hot['block_prefetches']}, "
                     f"scattered messages {hot['scattered_messages']}, scratch messages {hot['scratch_messages']}, "
                     f"{hot['instructions_per_message']:.1f} instructions per memory message")
    elif loop is None:
        lines.append("    ISA K loop: none (no loop with DPAS in the machine code)")
    else:
        per = f"{loop['non_dpas_per_dpas']:.2f}" if loop["non_dpas_per_dpas"] is not None else "n/a"
        lines.append(f"    ISA K loop (one iteration): {loop['instructions']} instructions, DPAS {loop['dpas']}, "
                     f"non-DPAS per DPAS {per}, block loads {loop['block_loads']}, prefetches "
                     f"{loop['block_prefetches']}, scratch messages {loop['scratch_messages']}")
    if row["undefined_symbols"]:
        lines.append(f"    undefined symbols (a driver cannot load the binary): {', '.join(row['undefined_symbols'])}")
    return lines
