"""i1 and i4 memrefs stored as bytes on the CPU: the host JIT's and the CPU reference's lowering.

LLVM 22's MemRefToLLVM asserts (`width >= 8`) on loads and stores of memrefs with sub-byte
elements, and LLVM lays sub-byte elements out one per byte in scalar accesses but packed in vector
ones (a vectorized loop and its scalar remainder would disagree). LLVM itself keeps an i1 in a byte,
numpy's bool is a byte, the simulator and the device runtime read i1 memrefs as one byte per element
(0 or 1), and xe-run's i4 arrays hold one value per int8: `widen_sub_byte_memrefs` rewrites an
upstream-context module to that layout before the memref lowering. Every memref (ranked or unranked)
of i1 or i4 becomes one of i8 (results, block arguments, function types, `memref.global`s and their
initial values); element reads (`memref.load`, `vector.load`, `vector.transfer_read`,
`vector.maskedload`, `vector.gather`) read i8 and truncate, element writes (`memref.store`,
`vector.store`, `vector.transfer_write`, `vector.maskedstore`, `vector.scatter`) extend to i8 (i1 by
zero, i4 by sign: the value). Kernels of fused W4A16 GEMMs read i4 weights packed two per byte
(sim/i4_memrefs.py): a host that packs them is the simulator's, not this one.
It runs after `convert-linalg-to-loops`, the vector-to-scf lowering and `lower-affine`
(`lower_split`), so no linalg, affine or n-D vector op is left to rewrite.
"""
from __future__ import annotations

import re

import numpy as np
from mlir import ir

from ..diagnostics import at
from ..passes.utils.ir_walk import walk

_HAS_SUB_BYTE_MEMREF = re.compile(r"memref<(?:[^<>]*?x)?i[14][\s,>]")
_SPLIT = "convert-scf-to-cf,"
# op -> index of the loaded result's pass-through operand (None: none)
_LOADS = {"memref.load": None, "vector.load": None, "vector.transfer_read": None,
          "vector.maskedload": -1, "vector.gather": -1}
_STORES = {"memref.store": 0, "vector.store": 0, "vector.transfer_write": 0, "vector.maskedstore": -1,
           "vector.scatter": -1}
_UNSUPPORTED = ("memref.atomic_rmw", "memref.generic_atomic_rmw", "vector.expandload", "vector.compressstore")


def has_sub_byte_memrefs(text: str) -> bool:
    """True when module text mentions a memref of i1 or i4 (the rewrite is then needed)."""
    return bool(_HAS_SUB_BYTE_MEMREF.search(text))


def lower_split(pipeline: str) -> tuple[str, str]:
    """`builtin.module(...)` pipeline text cut before `convert-scf-to-cf`: (first, second)."""
    head, sep, tail = pipeline.partition(_SPLIT)
    assert sep and head.startswith("builtin.module("), pipeline
    return head.rstrip(",") + ")", "builtin.module(" + sep + tail


def _is_sub_byte(t) -> bool:
    """An element type stored as a byte on the CPU: i1 or i4."""
    return isinstance(t, ir.IntegerType) and t.width in (1, 4)


def _widened(t):
    """The i8 form of a memref / vector type of i1 or i4; None for any other type."""
    i8 = ir.IntegerType.get_signless(8)
    if isinstance(t, ir.MemRefType) and _is_sub_byte(t.element_type):
        return ir.MemRefType.get(t.shape, i8, t.layout, t.memory_space)
    if isinstance(t, ir.UnrankedMemRefType) and _is_sub_byte(t.element_type):
        return ir.UnrankedMemRefType.get(i8, t.memory_space)
    return None


def _widen_function_type(op):
    ft = ir.FunctionType(ir.TypeAttr(op.attributes["function_type"]).value)
    ins = [_widened(t) or t for t in ft.inputs]
    outs = [_widened(t) or t for t in ft.results]
    if ins != list(ft.inputs) or outs != list(ft.results):
        op.attributes["function_type"] = ir.TypeAttr.get(ir.FunctionType.get(ins, outs))


def _widen_global(op):
    t = ir.TypeAttr(op.attributes["type"]).value
    new = _widened(t)
    if new is None:
        return
    op.attributes["type"] = ir.TypeAttr.get(new)
    if "initial_value" not in op.attributes:
        return
    try:
        init = ir.DenseIntElementsAttr(op.attributes["initial_value"])
    except (TypeError, ValueError):         # `uninitialized`
        return
    if init.is_splat:
        bits = np.full(t.shape, int(init.get_splat_value().value), np.int8)
    else:
        bits = np.array(init).astype(np.int8).reshape(t.shape)
    tensor = ir.RankedTensorType.get(t.shape, ir.IntegerType.get_signless(8))
    op.attributes["initial_value"] = ir.DenseElementsAttr.get(bits, type=tensor)


def _element_type_i8(v) -> bool:
    t = v.type
    return isinstance(t, (ir.MemRefType, ir.UnrankedMemRefType)) and \
        isinstance(t.element_type, ir.IntegerType) and t.element_type.width == 8


def _as_i8(value, op):
    """An i1 (or vector of i1) value zero-extended to i8, an i4 one sign-extended, before `op`."""
    from mlir.dialects import arith

    t = value.type
    to = ir.VectorType.get(t.shape, ir.IntegerType.get_signless(8)) if isinstance(t, ir.VectorType) \
        else ir.IntegerType.get_signless(8)
    elt = t.element_type if isinstance(t, ir.VectorType) else t
    with ir.InsertionPoint(op), op.location:
        return (arith.ExtUIOp if ir.IntegerType(elt).width == 1 else arith.ExtSIOp)(to, value).result


def _fix_load(op, pass_thru):
    from mlir.dialects import arith

    res = op.results[0]
    t = res.type
    if isinstance(t, ir.VectorType):
        if not _is_sub_byte(t.element_type):
            return
        res.set_type(ir.VectorType.get(t.shape, ir.IntegerType.get_signless(8)))
    elif _is_sub_byte(t):
        res.set_type(ir.IntegerType.get_signless(8))
    else:
        return
    for i, v in enumerate(op.operands):      # transfer_read's padding, a masked load's pass-through
        vt = v.type
        if (op.name == "vector.transfer_read" and _is_sub_byte(vt)) or \
                (pass_thru is not None and i == len(op.operands) + pass_thru):
            op.operands[i] = _as_i8(v, op)
    with ir.InsertionPoint(op), op.location:
        back = arith.TruncIOp(t, res)
    back.operation.move_after(op)
    res.replace_all_uses_except(back.result, back.operation)


def _fix_store(op, which):
    i = which % len(op.operands)
    v = op.operands[i]
    t = v.type
    if _is_sub_byte(t) or (isinstance(t, ir.VectorType) and _is_sub_byte(t.element_type)):
        op.operands[i] = _as_i8(v, op)


def widen_sub_byte_memrefs(module) -> list:
    """Rewrite `module` (upstream context) so i1 and i4 memrefs are i8 memrefs of their values (module docstring);
    returns Diagnostics for ops that read or write i1 elements in a way not rewritten."""
    top = module.operation if hasattr(module, "operation") else module
    problems = []
    with top.context, ir.Location.unknown():
        ops = [top] + list(walk(top))
        for op in ops:
            for r in op.results:
                new = _widened(r.type)
                if new is not None:
                    r.set_type(new)
            for region in op.regions:
                for block in region.blocks:
                    for a in block.arguments:
                        new = _widened(a.type)
                        if new is not None:
                            a.set_type(new)
            if op.name in ("func.func", "llvm.func") and "function_type" in op.attributes:
                _widen_function_type(op)
            elif op.name == "memref.global":
                _widen_global(op)
        for op in ops:
            if op.name not in _LOADS and op.name not in _STORES and op.name not in _UNSUPPORTED:
                continue
            base = next((v for v in op.operands if isinstance(v.type, (ir.MemRefType, ir.UnrankedMemRefType))),
                        None)
            if base is None or not _element_type_i8(base):
                continue
            if op.name in _UNSUPPORTED:
                problems.append(at(op.location, "error", f"'{op.name}' on a memref of i1 or i4 is not supported by "
                                                         "the CPU lowering (i1 and i4 memrefs are stored as bytes)"))
            elif op.name in _LOADS:
                _fix_load(op, _LOADS[op.name])
            else:
                _fix_store(op, _STORES[op.name])
    return problems


def run_lowering(mod, pipeline: str, text: str) -> list:
    """Run `pipeline` (a `builtin.module(...)` lowering to LLVM containing `convert-scf-to-cf`) on
    `mod`, with the i1 / i4 rewrite in the middle when `text` (the module's source) has such memrefs.
    Returns the rewrite's problems (then nothing after the rewrite has run); pass failures raise as
    PassManager.run does."""
    from mlir import passmanager

    if not has_sub_byte_memrefs(text):
        passmanager.PassManager.parse(pipeline).run(mod.operation)
        return []
    first, second = lower_split(pipeline)
    passmanager.PassManager.parse(first).run(mod.operation)
    problems = widen_sub_byte_memrefs(mod)
    if problems:
        return problems
    passmanager.PassManager.parse(second).run(mod.operation)
    return []
