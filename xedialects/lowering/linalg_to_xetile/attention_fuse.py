"""The attention side of `convert-linalg-to-xetile`: finds the attention chains of a host function
(`attention_match`), plans (`attention_plan`) and writes (`attention_kernel`) one fused kernel per
chain, and replaces each chain with its launch once the kernel module exists. A chain that is not
recognised gets a remark and keeps the op-by-op lowering."""
from __future__ import annotations

import sys

from ...passes.utils.ir_walk import walk
from . import attention_kernel
from .attention_match import NotAttention, could_start, match_attention
from .attention_plan import plan_attention


def fuse_attention(func, fname, hw, ctx, printing, claimed) -> list:
    """[(form, plan, kernel name, kernel text)] of the chains in `func`; their ops join `claimed`."""
    out = []
    for op in list(walk(func)):
        if op in claimed or not could_start(op):
            continue
        try:
            form = match_attention(op)
            plan = plan_attention(form, hw)
        except NotAttention as e:
            ctx.remark(op, f"not fused as attention: {e}")
            continue
        kname = f"{fname}_attention_{len(out)}"
        if printing:
            print(f"// attention plan for {op.name} at {op.location}\n{plan.describe()}", file=sys.stderr)
        out.append((form, plan, kname, attention_kernel.kernel_text(form, plan, kname)))
        claimed.update(form.ops)
    return out


def emit_attention(fused: list, mod_name: str) -> int:
    """Launch every fused kernel in place of its chain; the number of launches."""
    for form, plan, kname, _ in fused:
        attention_kernel.emit_launch(form, plan, mod_name, kname)
    return len(fused)
