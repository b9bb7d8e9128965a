"""The memory-bound side of `convert-linalg-to-xetile`: collects the stand-alone element-wise ops
(and reductions) of one host function, plans and writes their kernels, and replaces each op with
its `gpu.launch_func` once the kernel module exists."""
from __future__ import annotations

import sys
from dataclasses import dataclass

from . import elementwise, full_reduce, reduce, softmax
from .gemm_epilogue import NotFusible
from .memory_plan import (plan_full_reduction, plan_memory_bound, plan_reduction_sized, plan_softmax,
                          plan_softmax_columns)


@dataclass
class MbKernel:
    op: object
    form: object
    plan: object
    name: str
    io: object
    text: str
    module: object  # the generator module (elementwise, reduce, ...)


class MemoryBound:
    def __init__(self, fname, hw, ctx, report, printing):
        self.fname, self.hw, self.ctx, self.report, self.printing = fname, hw, ctx, report, printing
        self.kernels: list[MbKernel] = []
        self.noted: set = set()   # ops the GEMM fusion already remarked on

    def consider(self, op, index: int) -> None:
        """Plan and write the kernel of `op` if it is a memory-bound op we lower; remark (or
        error under strict) why not when it is one of ours but has an unsupported form."""
        try:
            if op.name in elementwise.STANDALONE:
                gen = elementwise
                form = gen.match_elementwise(op)
                shape, elt = gen.output_shape(form)
                plan = plan_memory_bound("element-wise " + op.name, shape[0], shape[1], elt, self.hw)
                io = gen.EwIO(form)
            elif full_reduce.is_full(op):
                gen = full_reduce
                form = gen.match_full_reduce(op)
                plan = plan_full_reduction(form.shape, form.elt, self.hw)
                io = gen.FullReduceIO(form)
            elif op.name == "linalg.reduce":
                gen = reduce
                form = gen.match_reduce(op)
                plan = plan_reduction_sized(form.m, form.n, form.dim, form.elt, self.hw)
                gen.check_plan(form, plan)
                io = gen.ReduceIO(form)
            elif op.name == "linalg.softmax":
                gen = softmax
                form = gen.match_softmax(op)
                plan = (plan_softmax if form.axis else plan_softmax_columns)(form.m, form.n, form.elt, self.hw)
                io = gen.SoftmaxIO(form)
            else:
                return
        except NotFusible as e:
            if op not in self.noted:
                self.ctx.remark(op, f"not lowered to XeTile: {e}")
            return
        name = f"{self.fname}_{index}"
        if self.printing:
            print(f"// memory-bound plan for {op.name} at {op.location}\n{plan.describe()}", file=sys.stderr)
        self.kernels.append(MbKernel(op, form, plan, name, io, gen.kernel_text(form, plan, name, io), gen))

    def emit(self, mod_name: str) -> int:
        for k in self.kernels:
            k.module.emit_launch(k.form, k.plan, mod_name, k.name, k.io)
        return len(self.kernels)
