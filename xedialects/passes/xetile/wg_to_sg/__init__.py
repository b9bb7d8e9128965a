"""`xetile-wg-to-sg`: distribute work-group level XeTile to subgroup level XeTile (pipeline stage 2).

Inside each `gpu.func`, every work-group value (a tile whose type carries `wg_map`, a vector produced
by a work-group op) becomes the subgroup value(s) of the executing subgroup, per the RFC rule in
`distribution` (round-robin: one work-group value maps to N subgroup values; wrap-around:
subgroups share data). Per function (`distributor.WgToSg`): layout analysis (`layout_analysis`),
checks before the IR is touched (`checks`), then the 1:N rewrite with one rule per op family
(`tile_rules`, `mma_rules`, `elementwise_rules`, `vector_layout_rules` with `slm_exchange`,
`control_flow_rules`; offsets from `subgroup_ids`). The design, rule by rule: docs/wg-to-sg.md.
"""
from __future__ import annotations

from ...registry import Option, register_pass
from ...utils.arch_option import arch_option, pass_arch, record_told_arch
from ...utils.ir_walk import functions
from .distributor import WgToSg


def slm_budget(option: int, arch) -> int | None:
    """The bytes of SLM one data exchange may use: the slm-budget option, or for 0 half of the
    arch table's SLM per work-group (the other half is left to the kernel's own buffers); None for
    a negative option."""
    option = int(option)
    if option < 0:
        return None
    return option if option > 0 else arch.slm_bytes_per_workgroup // 2


@register_pass("xetile-wg-to-sg",
               "Distribute work-group XeTile (wg_map) to subgroup XeTile for the executing subgroup",
               options=[arch_option("its subgroup size counts a kernel's subgroups when the kernel has no "
                                    "xe.subgroup_size"),
                        Option("slm-budget", int, 0,
                               "bytes of shared local memory one data exchange (transpose, conv_layout, "
                               "broadcast) may use; larger work-group values move in bands, each under an "
                               "scf.if (0, the default: half the arch's SLM per work-group)")])
def xetile_wg_to_sg(module_op, options, ctx):
    arch = pass_arch(module_op, options, ctx)
    if arch is None:
        return False
    record_told_arch(module_op, options, arch)
    budget = slm_budget(options["slm-budget"], arch)
    if budget is None:
        ctx.fail(f"xetile-wg-to-sg: slm-budget={options['slm-budget']} is negative (0 takes half the SLM "
                 f"of a {arch.name} work-group)")
        return False
    ok = True
    for func in functions(module_op):
        if func.name == "func.func":
            w = WgToSg(func, arch, options, ctx, budget)
            if w.is_wg_function():
                ctx.error(func, "work-group level XeTile (wg_map) is distributed inside gpu.func kernels only; "
                                "outline this function into a gpu.module")
                ok = False
            continue
        ok = WgToSg(func, arch, options, ctx, budget).run() and ok
    return ok
