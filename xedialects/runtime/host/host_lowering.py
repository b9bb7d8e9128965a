"""The host half of a whole program, ready for the CPU JIT.

`extract_host(module)` clones the module (the original keeps its kernels for the device) and
rewrites the clone's host functions: every gpu.launch_func / gpu.memset / gpu.alloc / gpu.dealloc /
gpu.memcpy becomes a call to a private external function (`__xe_launch_N`, `__xe_memset_N`,
`__xe_alloc_N`, `__xe_dealloc_N`, `__xe_memcpy_N`, with `llvm.emit_c_interface`) that a Python
callback implements (device.py: the device memory is tracked by buffers.py and reads 0 until
written), gpu.wait and async tokens are dropped. Sizes and integer arguments are passed as i64,
floats as f64, memrefs as ranked descriptors (gpu.alloc returns one). gpu/spirv modules are
dropped; the host view of W4A16 weights (an i4 memref cast to its bytes) becomes a loop packing them.
`lower_host` then parses the text in a fresh upstream context, adds the run-time guards
(guards.py) and lowers it to LLVM (i1 and i4 memrefs stored a value per byte,
sim/sub_byte_memrefs.py).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from mlir import ir

from ...diagnostics import Diagnostic, DiagnosticError, at
from ...passes.utils.ir_walk import owner_op, walk
from ...sim.sub_byte_memrefs import run_lowering
from ...sim.reference import PIPELINE as CPU_PIPELINE
from ...sim.softmax_reference import decompose_softmax
from ...sim.typeinfo import TypeInfo, parse_type, scalar_dtype
from .sizes import element_bytes

# the CPU reference's lowering to the LLVM dialect, with n-D vector transfers (a column
# `vector<16x1xf16>`) unrolled to scf loops of 1-D ones and n-D vector ops lowered first
LOWERING = CPU_PIPELINE.replace(
    "expand-strided-metadata,",
    "func.func(convert-vector-to-scf{full-unroll=true lower-tensors=false},"
    "lower-vector-mask,lower-vector-multi-reduction),"
    "expand-strided-metadata,", 1)
assert LOWERING != CPU_PIPELINE

LAUNCH_PREFIX = "__xe_launch_"
MEMSET_PREFIX = "__xe_memset_"
_PREFIX = {"gpu.launch_func": LAUNCH_PREFIX, "gpu.memset": MEMSET_PREFIX, "gpu.alloc": "__xe_alloc_",
           "gpu.dealloc": "__xe_dealloc_", "gpu.memcpy": "__xe_memcpy_"}
_DEVICE_DIALECTS = ("gpu.", "xetile.", "xegpu.", "spirv.")


@dataclass
class Arg:
    """How one value crosses into a callback: 'memref' (ranked descriptor), 'int' (i64), 'float'
    (f64) or 'ptr' (a kernel's `!llvm.ptr` argument, its address as i64); `type` is the original TypeInfo."""
    kind: str
    type: object


@dataclass
class Site:
    """One gpu.launch_func, gpu.memset, gpu.alloc, gpu.dealloc or gpu.memcpy of the host code."""
    name: str                   # the callback's symbol, e.g. __xe_launch_0
    op: str                     # the original op's name
    loc: str                    # location of the original op
    kernel: str = ""            # @module::@kernel
    args: list = field(default_factory=list)   # [Arg]; launch: grid and block first (6 ints); alloc: the
                                               # dynamic sizes; memcpy: destination, source
    result: object = None       # gpu.alloc: TypeInfo of the memref it returns
    layout: tuple | None = None  # gpu.alloc: (strides, offset) of a strided layout; None: row-major


@dataclass
class HostProgram:
    text: str                   # the host module (generic form, with locations)
    sites: list                 # [Site]
    externals: dict             # name -> (loc, [TypeInfo] inputs, [TypeInfo] results) of declarations


def type_info(t) -> TypeInfo:
    """parse_type, also for unranked memrefs (`memref<*xf32>`: kind memref, shape None)."""
    text = str(t)
    if text.startswith("memref<*x"):
        elem = text[len("memref<*x"):-1].split(",")[0].strip()
        try:
            return TypeInfo(text, "memref", elem, None, scalar_dtype(elem))
        except ValueError:
            return TypeInfo(text, "other")
    try:
        return parse_type(text)
    except ValueError:
        return TypeInfo(text, "other")


def _err(loc, msg):
    raise DiagnosticError([at(loc, "error", msg)])


def _sym(op):
    return ir.StringAttr(op.attributes["sym_name"]).value if "sym_name" in op.attributes else None


def _segments(op):
    sizes = list(ir.DenseI32ArrayAttr(op.attributes["operandSegmentSizes"]))
    ops, out, i = list(op.operands), [], 0
    for s in sizes:
        out.append(ops[i:i + s])
        i += s
    return out


def _is_token(v) -> bool:
    return str(v.type) == "!gpu.async.token"


def _memref_info(t) -> TypeInfo:
    """TypeInfo of a memref type; elements the simulator does not know (complex, vectors, ...)
    become raw bytes of their size."""
    info = type_info(t)
    if info.kind == "memref":
        return info
    mt = ir.MemRefType(t)
    return TypeInfo(str(t), "memref", str(mt.element_type), tuple(mt.shape),
                    np.dtype(f"V{element_bytes(mt.element_type)}"))


def _pass_value(v, loc, what="a kernel"):
    """(value converted for the callback ABI, Arg) for a scalar or memref operand."""
    from mlir.dialects import arith

    t = v.type
    if isinstance(t, ir.UnrankedMemRefType):
        _err(loc, f"an unranked memref ({t}) cannot be passed to {what}")
    if isinstance(t, ir.MemRefType):
        info = type_info(t) if what == "a kernel" else _memref_info(t)
        if info.kind == "memref":
            return v, Arg("memref", info)
    info = type_info(t)
    i64, f64 = ir.IntegerType.get_signless(64), ir.F64Type.get()
    text = str(t)
    if text == "index":
        return arith.IndexCastOp(i64, v).result, Arg("int", info)
    if text.startswith("i") and text[1:].isdigit():
        w = int(text[1:])
        if w < 64:
            return (arith.ExtUIOp(i64, v) if w == 1 else arith.ExtSIOp(i64, v)).result, Arg("int", info)
        if w == 64:
            return v, Arg("int", info)
    if text in ("f16", "bf16", "f32"):
        if text != "f32":
            v = arith.ExtFOp(ir.F32Type.get(), v).result
        return arith.ExtFOp(f64, v).result, Arg("float", info)
    if text == "f64":
        return v, Arg("float", info)
    if text.startswith("!llvm.ptr") and what == "a kernel":   # a raw global pointer (XeVM-level kernels)
        from mlir.dialects import llvm

        return llvm.PtrToIntOp(i64, v).result, Arg("ptr", info)
    _err(loc, f"a value of type {t} cannot be passed from the host to {what}")


def _declare(module_body, name, types, results=()):
    from mlir.dialects import func

    with ir.InsertionPoint.at_block_begin(module_body):
        f = func.FuncOp(name, ir.FunctionType.get(types, list(results)), visibility="private")
        f.attributes["llvm.emit_c_interface"] = ir.UnitAttr.get()


def _alloc_layout(t, loc):
    """(strides, offset) of a gpu.alloc's static strided layout; None for the identity layout."""
    mt = ir.MemRefType(t)
    if isinstance(mt.layout, ir.AffineMapAttr) and mt.affine_map == ir.AffineMap.get_identity(mt.rank):
        return None
    try:
        strides, offset = mt.get_strides_and_offset()
    except Exception:           # noqa: BLE001 - an affine map that is not strided
        _err(loc, f"gpu.alloc of {t}: the layout is not strided")
    dyn = ir.ShapedType.get_dynamic_stride_or_offset()
    if offset == dyn or dyn in strides:
        _err(loc, f"gpu.alloc of {t}: a layout with dynamic strides or offset cannot be allocated")
    return tuple(strides), offset


def _call_site(op, body, sites, loc, operands, what, result=None):
    """Replace `op` by a call of a new site's external function with `operands` (converted for the
    callback ABI); returns the call."""
    from mlir.dialects import func

    site = Site(f"{_PREFIX[op.name]}{len(sites)}", op.name, loc)
    values = []
    for v in operands:
        pv, arg = _pass_value(v, loc, what)
        site.args.append(arg)
        values.append(pv)
    sites.append(site)
    results = [result] if result is not None else []
    _declare(body, site.name, [v.type for v in values], results)
    return site, func.CallOp(results, site.name, values)


def _rewrite(op, body, sites, replaced):
    """Replace one host gpu op (the replacement is inserted before it); True when `op` is to be
    erased."""
    name, loc = op.name, str(op.location)
    with ir.InsertionPoint(op), op.location:
        if name == "gpu.alloc":
            _, dyn, syms = _segments(op)
            if syms:
                _err(loc, "gpu.alloc with symbol operands (an affine map layout) is not supported")
            t = op.results[0].type
            # host_shared or not: device memory is host memory here, zero-filled (deterministic)
            site, call = _call_site(op, body, sites, loc, dyn, "gpu.alloc", result=t)
            site.result, site.layout = _memref_info(t), _alloc_layout(t, loc)
            op.results[0].replace_all_uses_with(call.results[0])
        elif name == "gpu.dealloc":
            _call_site(op, body, sites, loc, list(op.operands)[-1:], "gpu.dealloc")
        elif name == "gpu.memcpy":
            _call_site(op, body, sites, loc, list(op.operands)[-2:], "gpu.memcpy")
        elif name == "gpu.memset":
            ops = list(op.operands)
            _call_site(op, body, sites, loc, ops[-2:], "gpu.memset")
        elif name == "gpu.launch_func":
            seg = _segments(op)
            # asyncDependencies, grid x y z, block x y z, cluster x y z, dynamicSharedMemorySize,
            # kernelOperands, asyncObject
            if any(seg[7:10]):
                _err(loc, "gpu.launch_func with cluster sizes is not supported")
            if seg[10]:
                _err(loc, "gpu.launch_func with dynamic shared memory is not supported")
            if len(seg) > 12 and seg[12]:
                _err(loc, "gpu.launch_func with an async object is not supported")
            site, _ = _call_site(op, body, sites, loc, [seg[i][0] for i in range(1, 7)] + list(seg[11]), "a kernel")
            site.kernel = str(op.attributes["kernel"])
        elif name in ("gpu.wait", "gpu.host_register", "gpu.host_unregister"):
            pass
        elif name == "builtin.unrealized_conversion_cast" and _packs_i4(op):
            op.results[0].replace_all_uses_with(_packed_i4(op.operands[0], op.results[0].type))
        else:
            return False
    for r in op.results:
        if _is_token(r):
            for use in list(r.uses):
                user = getattr(use.owner, "operation", use.owner)
                if user.name not in _REWRITTEN:
                    _err(str(user.location), f"{user.name} uses an async token of {name}; async tokens are "
                         "only supported between gpu host operations")
    replaced.append(op)
    return True


def _packs_i4(op) -> bool:
    """The host view of W4A16 weights convert-linalg-to-xetile makes: memref<K x N x i4> to the
    memref<K x N/2 x i8> of their packed bytes (docs/quantized-gemm.md "i4 weights")."""
    if len(op.operands) != 1 or len(op.results) != 1:
        return False
    src, dst = op.operands[0].type, op.results[0].type
    if not (isinstance(src, ir.MemRefType) and isinstance(dst, ir.MemRefType)):
        return False
    s, d = ir.MemRefType(src), ir.MemRefType(dst)
    return (str(s.element_type) == "i4" and str(d.element_type) == "i8" and s.rank == d.rank == 2
            and s.has_static_shape and d.has_static_shape and s.shape[0] == d.shape[0]
            and s.shape[1] == 2 * d.shape[1])


def _packed_i4(src, t):
    """Host code (at the insertion point) packing the i4 values of 2D `src` two per byte, the even element
    in the low nibble, into a new memref of type `t`; the CPU holds i4 memrefs one value per byte
    (sim/sub_byte_memrefs.py), the kernel reads the packed bytes."""
    from mlir.dialects import arith, memref, scf

    idx, i8 = ir.IndexType.get(), ir.IntegerType.get_signless(8)
    out = memref.AllocOp(t, [], []).result
    c = lambda v: arith.ConstantOp(idx, v).result  # noqa: E731
    c0, c1, c2 = c(0), c(1), c(2)
    rows = scf.ForOp(c0, c(t.shape[0]), c1)
    with ir.InsertionPoint(rows.body):
        cols = scf.ForOp(c0, c(t.shape[1]), c1)
        with ir.InsertionPoint(cols.body):
            k, j = rows.induction_variable, cols.induction_variable
            even = arith.MulIOp(j, c2).result
            odd = arith.AddIOp(even, c1).result
            lo = arith.ExtUIOp(i8, memref.LoadOp(src, [k, even]).result).result
            hi = arith.ExtUIOp(i8, memref.LoadOp(src, [k, odd]).result).result
            byte = arith.OrIOp(lo, arith.ShLIOp(hi, arith.ConstantOp(i8, 4).result).result).result
            memref.StoreOp(byte, out, [k, j])
            scf.YieldOp([])
        scf.YieldOp([])
    return out


_REWRITTEN = {"gpu.alloc", "gpu.dealloc", "gpu.memcpy", "gpu.memset", "gpu.launch_func", "gpu.wait",
              "gpu.host_register", "gpu.host_unregister"}


def extract_host(module, entry: str) -> HostProgram:
    """The host part of `module` with device calls (see the module docstring); `module` is not
    modified. Raises DiagnosticError on host code the CPU cannot run."""
    with module.context, ir.Location.unknown():
        clone = module.operation.clone()
        body = clone.regions[0].blocks[0]
        funcs, drop = [], []
        for op in body.operations:
            op = op.operation
            if op.name in ("gpu.module", "spirv.module", "gpu.binary"):
                drop.append(op)
            elif op.name == "func.func":
                funcs.append(op)
        for op in drop:
            op.erase()
        if "gpu.container_module" in clone.attributes:
            del clone.attributes["gpu.container_module"]
        names = {_sym(f) for f in funcs}
        if entry not in names:
            raise DiagnosticError([at(module.operation.location, "error", f"no function @{entry} in the program "
                                      f"(functions: {', '.join('@' + n for n in sorted(names)) or 'none'}; "
                                      "choose one with -e NAME)")])
        sites, replaced, externals = [], [], {}
        for f in funcs:
            ftype = ir.FunctionType(ir.TypeAttr(f.attributes["function_type"]).value)
            if not f.regions[0].blocks:      # an external declaration: a runner utility or library function
                externals[_sym(f)] = (str(f.location), [type_info(t) for t in ftype.inputs],
                                      [type_info(t) for t in ftype.results])
                if any(type_info(t).kind == "memref" for t in ftype.inputs):
                    f.attributes["llvm.emit_c_interface"] = ir.UnitAttr.get()
                continue
            ops = list(walk(f))
            for op in ops:
                if op.name == "memref.dealloc" and (owner_op(op.operands[0]) or op).name == "gpu.alloc":
                    _err(str(op.location), "memref.dealloc of a gpu.alloc buffer: device memory is freed with "
                         "gpu.dealloc")
            for op in ops:
                _rewrite(op, body, sites, replaced)
        for op in reversed(replaced):
            op.erase()
        for f in funcs:
            for op in list(walk(f)):
                if op.name.startswith(_DEVICE_DIALECTS) or op.name == "gpu.launch":
                    what = "a non-outlined gpu.launch (outline it with gpu-kernel-outlining)" \
                        if op.name == "gpu.launch" else f"'{op.name}'"
                    _err(str(op.location), f"host code: {what} cannot run on the CPU host")
        fop = next(f for f in funcs if _sym(f) == entry)
        fop.attributes["llvm.emit_c_interface"] = ir.UnitAttr.get()
        text = clone.get_asm(print_generic_op_form=True, enable_debug_info=True)
    return HostProgram(text, sites, externals)


def lower_host(host: HostProgram, host_checks: bool = False):
    """(context, LLVM-dialect module, [guards.Guard]) of the host text, with the run-time guards
    (upstream's runtime verification too when `host_checks`); DiagnosticError naming the op that
    does not lower."""
    from .guards import add_guards

    ctx = ir.Context()
    diags = []

    def handler(d):
        diags.append(d)
        return True

    ctx.attach_diagnostic_handler(handler)
    with ctx, ir.Location.unknown():
        try:
            mod = ir.Module.parse(host.text)
        except Exception as e:
            raise DiagnosticError([Diagnostic("error", f"host code does not parse for the CPU: {str(e).strip()}")])
        problems = decompose_softmax(mod)       # upstream decomposes linalg.softmax on tensors only
        if problems:
            raise DiagnosticError([Diagnostic("error", f"host code: {p}") for p in problems])
        try:
            guards = add_guards(mod, host_checks)
        except Exception as e:
            from ...diagnostics import from_mlir

            found = [from_mlir(d) for d in diags if "error" in str(d.severity).lower()]
            raise DiagnosticError(found or [Diagnostic("error", f"host code: the run-time guards cannot be added: "
                                                                f"{e}")])
        try:
            problems = run_lowering(mod, LOWERING, host.text)     # i1 memrefs stored as bytes
        except Exception as e:
            from ...diagnostics import from_mlir

            found = [from_mlir(d) for d in diags if "error" in str(d.severity).lower()]
            raise DiagnosticError(found or [Diagnostic("error", f"host code does not lower to LLVM: {e}")])
        if problems:
            raise DiagnosticError(problems)
        left = [op for op in walk(mod.operation) if not op.name.startswith("llvm.")]
        if left:        # name an op inside a function rather than the function, when there is one
            op = next((o for o in left if o.name != "func.func"), left[0])
            _err(str(op.location), f"host code: '{op.name}' cannot be compiled for the CPU (no lowering "
                 "to the LLVM dialect)")
    return ctx, mod, guards
