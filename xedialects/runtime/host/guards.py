"""Run-time guards added to the host code before it is lowered to LLVM (upstream context).

* `guard_allocs`: after every `memref.alloc` a test of the pointer malloc returned (and, for dynamic
  sizes, of the size in bytes, computed in f64 so it cannot wrap): a failed or absurd allocation
  calls `__xe_guard_N`, whose callback reports the op, its type and sizes (a 400 GB buffer is an
  error at the alloc, not a SIGSEGV in the first function that touches it).
* `route_asserts`: every `cf.assert` (the user's, and those of upstream's
  `-generate-runtime-verification`, which `--host-checks` runs first) calls `__xe_guard_N` when it
  fails, so the failure is a located error on stderr and exit 1 rather than a message on stdout
  and an abort.

Each guard is a `Guard` whose `message(raw)` is the error to report; jit.py registers a callback
per guard that reports it and ends the program.
"""
from __future__ import annotations

from dataclasses import dataclass

from mlir import ir

from ...diagnostics import at
from ...passes.utils.ir_walk import walk
from .sizes import ADDRESS_SPACE, element_bytes

PREFIX = "__xe_guard_"


@dataclass
class Guard:
    name: str                   # the callback's symbol
    loc: str                    # the op it guards
    what: str                   # "alloc" | "assert"
    text: str                   # assert: the message; alloc: the memref type
    shape: tuple = ()           # alloc: static sizes (-1 dynamic)
    elem_bytes: int = 0
    ndyn: int = 0               # alloc: how many i64 sizes the callback receives

    def message(self, raw) -> str:
        """The located error for the callback's raw arguments."""
        if self.what == "assert":
            return at(self.loc, "error", self.text).format()
        dyn = iter(int(x) for x in raw)
        sizes = [next(dyn) if d < 0 else d for d in self.shape]
        shape = "x".join(map(str, sizes)) or "a scalar"
        if any(n < 0 for n in sizes):
            why = "a negative size"
        else:
            n = 1
            for d in sizes:
                n *= d
            nbytes = n * self.elem_bytes
            why = (f"{nbytes} bytes ({nbytes / 2 ** 30:.1f} GiB): "
                   + ("more than the host's address space" if nbytes > ADDRESS_SPACE else "out of memory"))
        return at(self.loc, "error", f"memref.alloc of {self.text} (sizes {shape}) failed: {why}").format()


def _declare(module, name, types):
    from mlir.dialects import func

    with ir.InsertionPoint.at_block_begin(module.body):
        f = func.FuncOp(name, ir.FunctionType.get(types, []), visibility="private")
        f.attributes["llvm.emit_c_interface"] = ir.UnitAttr.get()


def _call_if(cond, name, args):
    from mlir.dialects import func, scf

    branch = scf.IfOp(cond)
    with ir.InsertionPoint(branch.then_block):
        func.CallOp([], name, args)
        scf.YieldOp([])


def guard_allocs(module, guards: list) -> None:
    """Add the allocation test after every memref.alloc of `module` (see the module docstring)."""
    from mlir.dialects import arith, memref

    index, i64, f64 = ir.IndexType.get(), ir.IntegerType.get_signless(64), ir.F64Type.get()
    for op in [o for o in walk(module.operation) if o.name == "memref.alloc"]:
        t = ir.MemRefType(op.results[0].type)
        if 0 in t.shape:            # nothing to allocate (malloc(0) may return null)
            continue
        dyn = list(op.operands)[:sum(1 for d in t.shape if d < 0)]
        g = Guard(f"{PREFIX}{len(guards)}", str(op.location), "alloc", str(t), tuple(t.shape),
                  element_bytes(t.element_type), len(dyn))
        guards.append(g)
        _declare(module, g.name, [i64] * len(dyn))
        with ir.InsertionPoint.after(op), op.location:
            sizes = [arith.IndexCastOp(i64, v).result for v in dyn]
            ptr = memref.ExtractAlignedPointerAsIndexOp(op.results[0]).result
            bad = arith.CmpIOp(arith.CmpIPredicate.eq, ptr, arith.ConstantOp(index, 0).result).result
            if sizes:       # bytes in f64 (no wrap-around); a negative size is a huge unsigned one
                nbytes = arith.ConstantOp(f64, float(g.elem_bytes * _static_product(t.shape))).result
                for v in sizes:
                    nbytes = arith.MulFOp(nbytes, arith.UIToFPOp(f64, v).result).result
                big = arith.CmpFOp(arith.CmpFPredicate.OGT, nbytes,
                                   arith.ConstantOp(f64, float(ADDRESS_SPACE)).result).result
                bad = arith.OrIOp(bad, big).result
            _call_if(bad, g.name, sizes)


def _static_product(shape) -> int:
    n = 1
    for d in shape:
        if d >= 0:
            n *= d
    return n


def _assert_text(msg: str) -> str:
    """Our wording of a cf.assert message (upstream's runtime verification or the user's own)."""
    lines = msg.split("\n")
    if lines and lines[0].startswith("ERROR: Runtime op verification failed") and len(lines) >= 3:
        op_text = lines[1].strip()
        if op_text.startswith("%") and " = " in op_text:
            op_text = op_text.split(" = ", 1)[1]
        name = op_text.split(" ", 1)[0].strip('"')
        why = lines[2].lstrip("^ ").strip()
        return f"host check failed: {name}: {why}"
    return f"cf.assert failed: {msg}"


def route_asserts(module, guards: list) -> None:
    """Every cf.assert of `module` becomes `scf.if (not cond) -> call @__xe_guard_N`."""
    from mlir.dialects import arith

    for op in [o for o in walk(module.operation) if o.name == "cf.assert"]:
        msg = ir.StringAttr(op.attributes["msg"]).value
        g = Guard(f"{PREFIX}{len(guards)}", str(op.location), "assert", _assert_text(msg))
        guards.append(g)
        _declare(module, g.name, [])
        with ir.InsertionPoint(op), op.location:
            true = arith.ConstantOp(ir.IntegerType.get_signless(1), 1).result
            failed = arith.XOrIOp(op.operands[0], true).result
            _call_if(failed, g.name, [])
        op.erase()


def add_guards(module, host_checks: bool) -> list:
    """The guards of the host `module` (upstream context, before lowering): runtime verification
    when `host_checks`, then every cf.assert and memref.alloc; returns [Guard]."""
    from mlir import passmanager

    guards: list = []
    with module.context, ir.Location.unknown():
        if host_checks:
            passmanager.PassManager.parse("builtin.module(generate-runtime-verification)").run(module.operation)
        route_asserts(module, guards)
        guard_allocs(module, guards)
    return guards
