"""The host half of a whole program, ready for the CPU JIT.

`extract_host(module)` clones the module (the original keeps its kernels for the device) and
rewrites the clone's host functions: gpu.alloc -> memref.alloc + a zero linalg.fill (device
memory reads 0 until written: our choice, drivers do not promise it), gpu.memcpy -> memref.copy,
gpu.dealloc -> memref.dealloc, gpu.wait and async tokens dropped, and every gpu.launch_func /
gpu.memset -> a call to a private external function (`__xe_launch_N`, `__xe_memset_N`, with
`llvm.emit_c_interface`) that a Python callback implements (device.py). Sizes and integer
arguments are passed as i64, floats as f64, memrefs as ranked descriptors. gpu/spirv modules are
dropped. `lower_host` then parses the text in a fresh upstream context and lowers it to LLVM.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from mlir import ir

from ...diagnostics import Diagnostic, DiagnosticError, at
from ...passes.utils.ir_walk import walk
from ...sim.reference import PIPELINE as CPU_PIPELINE
from ...sim.softmax_reference import decompose_softmax
from ...sim.typeinfo import TypeInfo, parse_type, scalar_dtype

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
_DEVICE_DIALECTS = ("gpu.", "xetile.", "xegpu.", "spirv.")


@dataclass
class Arg:
    """How one value crosses into a callback: 'memref' (ranked descriptor), 'int' (i64) or
    'float' (f64); `type` is the original TypeInfo."""
    kind: str
    type: object


@dataclass
class Site:
    """One gpu.launch_func or gpu.memset of the host code."""
    name: str                   # the callback's symbol, e.g. __xe_launch_0
    op: str                     # gpu.launch_func | gpu.memset
    loc: str                    # location of the original op
    kernel: str = ""            # @module::@kernel
    args: list = field(default_factory=list)   # [Arg]; launch: grid and block first (6 ints)


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


def _pass_value(v, loc):
    """(value converted for the callback ABI, Arg) for a scalar or memref operand."""
    from mlir.dialects import arith

    t = v.type
    info = type_info(t)
    if info.kind == "memref":
        if "*" in str(t):
            _err(loc, f"an unranked memref ({t}) cannot be passed to a kernel")
        return v, Arg("memref", info)
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
    _err(loc, f"a value of type {t} cannot be passed from the host to a kernel")


def _declare(module_body, name, types):
    from mlir.dialects import func

    with ir.InsertionPoint.at_block_begin(module_body):
        f = func.FuncOp(name, ir.FunctionType.get(types, []), visibility="private")
        f.attributes["llvm.emit_c_interface"] = ir.UnitAttr.get()


def _zero_fill(buf, loc):
    """linalg.fill of 0 into a fresh allocation (integer, index and float elements)."""
    from mlir.dialects import arith, linalg

    elt = ir.MemRefType(buf.type).element_type
    if isinstance(elt, (ir.IntegerType, ir.IndexType)):
        zero = ir.IntegerAttr.get(elt, 0)
    elif isinstance(elt, ir.FloatType):
        zero = ir.FloatAttr.get(elt, 0.0)
    else:
        _err(loc, f"gpu.alloc of {buf.type}: the host runtime allocates integer, index and float elements only")
    linalg.fill(arith.ConstantOp(elt, zero).result, outs=[buf])


def _rewrite(op, body, sites, replaced):
    """Replace one host gpu op (the replacement is inserted before it); True when `op` is to be
    erased."""
    from mlir.dialects import func, memref

    name, loc = op.name, str(op.location)
    with ir.InsertionPoint(op), op.location:
        if name == "gpu.alloc":
            _, dyn, syms = _segments(op)
            # host_shared or not: device memory is host memory here, zero-filled (deterministic)
            new = memref.AllocOp(op.results[0].type, dyn, syms)
            _zero_fill(new.result, loc)
            op.results[0].replace_all_uses_with(new.result)
        elif name == "gpu.dealloc":
            memref.DeallocOp(list(op.operands)[-1])
        elif name == "gpu.memcpy":
            ops = list(op.operands)
            memref.CopyOp(ops[-1], ops[-2])
        elif name == "gpu.memset":
            ops = list(op.operands)
            dst, value = ops[-2], ops[-1]
            site = Site(f"{MEMSET_PREFIX}{len(sites)}", name, loc)
            a, arg_dst = _pass_value(dst, loc)
            b, arg_val = _pass_value(value, loc)
            site.args = [arg_dst, arg_val]
            sites.append(site)
            _declare(body, site.name, [dst.type, b.type])
            func.CallOp([], site.name, [a, b])
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
            site = Site(f"{LAUNCH_PREFIX}{len(sites)}", name, loc, str(op.attributes["kernel"]))
            values, types = [], []
            for v in [seg[i][0] for i in range(1, 7)] + list(seg[11]):
                pv, arg = _pass_value(v, loc)
                site.args.append(arg)
                values.append(pv)
                types.append(pv.type)
            sites.append(site)
            _declare(body, site.name, types)
            func.CallOp([], site.name, values)
        elif name in ("gpu.wait", "gpu.host_register", "gpu.host_unregister"):
            pass
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
            raise DiagnosticError([Diagnostic("error", f"no function @{entry} in the program (functions: "
                                                       f"{', '.join('@' + n for n in sorted(names)) or 'none'})")])
        sites, replaced, externals = [], [], {}
        for f in funcs:
            ftype = ir.FunctionType(ir.TypeAttr(f.attributes["function_type"]).value)
            if not f.regions[0].blocks:      # an external declaration: a runner utility or library function
                externals[_sym(f)] = (str(f.location), [type_info(t) for t in ftype.inputs],
                                      [type_info(t) for t in ftype.results])
                if any(type_info(t).kind == "memref" for t in ftype.inputs):
                    f.attributes["llvm.emit_c_interface"] = ir.UnitAttr.get()
                continue
            for op in list(walk(f)):
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


def lower_host(host: HostProgram):
    """(context, LLVM-dialect module) of the host text; DiagnosticError naming the op that does not lower."""
    from mlir import passmanager

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
        pm = passmanager.PassManager.parse(LOWERING)
        try:
            pm.run(mod.operation)
        except Exception as e:
            from ...diagnostics import from_mlir

            found = [from_mlir(d) for d in diags if "error" in str(d.severity).lower()]
            raise DiagnosticError(found or [Diagnostic("error", f"host code does not lower to LLVM: {e}")])
        left = [op for op in walk(mod.operation) if not op.name.startswith("llvm.")]
        if left:        # name an op inside a function rather than the function, when there is one
            op = next((o for o in left if o.name != "func.func"), left[0])
            _err(str(op.location), f"host code: '{op.name}' cannot be compiled for the CPU (no lowering "
                 "to the LLVM dialect)")
    return ctx, mod
