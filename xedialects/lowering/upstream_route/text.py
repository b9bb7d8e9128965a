"""Text steps of the route between tools: the device module out of upstream's lowered MLIR (the
bodies of its gpu.modules, LLVM dialect), and the LLVM IR fix-ups the SPIR-V translator needs
(allocas in the entry block, no vector wider than 16 elements) and IGC needs (no lane table of i1)."""
from __future__ import annotations

import re

# what mlir-translate needs to emit a SPIR-V-flavoured LLVM module
DEVICE_HEADER = 'module attributes {llvm.target_triple = "spir64-unknown-unknown"} {'
_GPU_MODULE = re.compile(r"^(\s*)gpu\.module @([\w$.]+)")
_DECL = re.compile(r"^\s*llvm\.func (?:\w+ )*@([\w$.]+)\(")
_ALLOCA = re.compile(r"^\s+%[\w.]+ = alloca ")
_LABEL = re.compile(r"^[\w.$-]+:")
_VECTOR = re.compile(r"<(\d+) x ")
SPIRV_VECTOR_SIZES = {2, 3, 4, 8, 16}


class RouteTextError(Exception):
    pass


def device_module(lowered: str) -> str:
    """The ops of every gpu.module of `lowered` (LLVM dialect after upstream's passes) as one plain
    module for mlir-translate; declarations repeated across gpu.modules are kept once."""
    lines = lowered.splitlines()
    body: list[str] = []
    declared: set[str] = set()
    found = False
    i = 0
    while i < len(lines):
        m = _GPU_MODULE.match(lines[i])
        if not m:
            i += 1
            continue
        found = True
        end = m.group(1) + "}"
        i += 1
        while i < len(lines) and lines[i] != end:
            d = _DECL.match(lines[i])
            if d and not lines[i].rstrip().endswith("{"):  # a declaration (no body)
                if d.group(1) in declared:
                    i += 1
                    continue
                declared.add(d.group(1))
            body.append(lines[i])
            i += 1
        i += 1
    if not found:
        raise RouteTextError("no gpu.module in the lowered module (nothing to translate to SPIR-V)")
    left = [l.strip() for l in body if re.match(r"^\s*(%\S+ = )?\"?(xegpu|xevm|gpu|vector|memref|scf)\.", l)]
    if left:
        raise RouteTextError(f"upstream's passes left '{left[0].split('(')[0][:80]}' in the kernel; "
                             "only the LLVM dialect translates to LLVM IR")
    return DEVICE_HEADER + "\n" + math_to_opencl(strip_layouts("\n".join(body))) + "\n}\n"


_LAYOUT_ATTR = re.compile(r"(, )?\b(layout_(?:operand|result)_\d+|layout) = #xegpu\.(?:layout|slice)<")


def strip_layouts(text: str) -> str:
    """Remove the `layout_operand_N` / `layout_result_N` attributes (#xegpu.layout / #xegpu.slice)
    that upstream's distribution leaves on converted ops: mlir-translate has no xegpu dialect."""
    out, pos = [], 0
    while True:
        m = _LAYOUT_ATTR.search(text, pos)
        if not m:
            break
        depth, j = 1, m.end()
        while j < len(text) and depth:
            depth += {"<": 1, ">": -1}.get(text[j], 0)
            j += 1
        start = m.start()
        if not m.group(1) and text.startswith(", ", j):  # first in its dict: drop the following ", "
            j += 2
        out.append(text[pos:start])
        pos = j
    out.append(text[pos:])
    return re.sub(r" \{\}", "", "".join(out))


# math ops upstream's LLVM lowering leaves (no LLVM intrinsic) -> OpenCL builtin names
_MATH_LEFT = {"erf": "erf"}
_MATH_OP = re.compile(r"^(\s*)(%[\w$.-]+) = math\.(" + "|".join(_MATH_LEFT) + r") (%[\w$.-]+)"
                      r"(?: fastmath<[^>]*>)?(?: \{[^}]*\})? : ((?:vector<(\d+)x)?(f32|f16)>?)$", re.M)


def math_to_opencl(text: str) -> str:
    """`math.erf` on f32 / f16 (scalars or 1D vectors), which convert-to-llvm leaves as is, as a call of
    the OpenCL builtin (erf(float8): _Z3erfDv8_f) declared in the module."""
    decls = {}

    def sub(m):
        indent, res, op, arg, ty, n, elt = m.groups()
        code = {"f32": "f", "f16": "Dh"}[elt]
        name = f"_Z{len(_MATH_LEFT[op])}{_MATH_LEFT[op]}" + (f"Dv{n}_{code}" if n else code)
        decls[name] = f"  llvm.func spir_funccc @{name}({ty}) -> {ty} attributes {{no_unwind, will_return}}"
        return f"{indent}{res} = llvm.call spir_funccc @{name}({arg}) : ({ty}) -> {ty}"

    out = _MATH_OP.sub(sub, text)
    return "\n".join(decls.values()) + ("\n" if decls else "") + out


def hoist_allocas(ll: str) -> str:
    """Move every `alloca` to the top of its function's entry block (SPIR-V wants all Function
    variables first in the first block; upstream's XeVM lowering allocates the block-load results
    where they are loaded, e.g. in the K loop). Values must be named (opt's `instnamer`)."""
    lines = ll.split("\n")
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        out.append(line)
        i += 1
        if not (line.startswith("define ") and line.rstrip().endswith("{")):
            continue
        body = []
        while i < len(lines) and lines[i] != "}":
            body.append(lines[i])
            i += 1
        allocas = [b for b in body if _ALLOCA.match(b)]
        if any(re.match(r"^\s+%\d+ = alloca ", a) for a in allocas):
            raise RouteTextError("numbered allocas cannot be moved (run opt's instnamer first)")
        rest = [b for b in body if not _ALLOCA.match(b)]
        first = 1 if rest and _LABEL.match(rest[0]) else 0
        out += rest[:first] + allocas + rest[first:]
    return "\n".join(out)


# attributes LLVM 22 writes that the translator's LLVM 19 bitcode reader does not know
_NEW_ATTRIBUTES = re.compile(r" (?:nocreateundeforpoison|dead_on_return|captures\([^)]*\))(?=[ }\n,)])")


def strip_new_attributes(ll: str) -> str:
    """Drop function / parameter attributes newer than the translator's LLVM (hints only)."""
    return _NEW_ATTRIBUTES.sub("", ll)


# `%x = extractelement <16 x i1> <i1 false, ..., i1 true>, i64 %lane`: a lane table of conditions
_BOOL_TABLE = re.compile(r"^(\s*)(%[\w.$-]+) = extractelement <(\d+) x i1> "
                         r"<((?:i1 (?:true|false|poison|undef)(?:, )?)+)>, (i\d+ [%\w.$-]+)\s*$", re.M)


def bool_tables_as_bytes(ll: str) -> str:
    """Each element taken at a run-time index from a constant vector of i1 (the lane-level export's
    choice tables, `vector.extract %tbl[%lane]` of a `vector<16xi1>` constant) taken from the same
    table as i8 and truncated to i1. IGC 2.40 crashes (SIGSEGV, pvc and bmg) on the SPIR-V of the
    former, an OpVectorExtractDynamic of an OpConstantComposite of bool; the i8 table and the trunc
    (OpVectorExtractDynamic of uchar, OpINotEqual) compile. Same values; runs after opt, so nothing
    folds it back (poison / undef elements become 0; docs/upstream-xegpu-reference.md, "IGC and
    constant bool vectors")."""
    def sub(m):
        indent, name, n, elems, index = m.groups()
        ints = ", ".join("i8 1" if e.strip() == "i1 true" else "i8 0" for e in elems.split(","))
        return (f"{indent}{name}.byte = extractelement <{n} x i8> <{ints}>, {index}\n"
                f"{indent}{name} = trunc i8 {name}.byte to i1")
    return _BOOL_TABLE.sub(sub, ll)


def wide_vectors(ll: str) -> list[int]:
    """Vector lengths in the LLVM IR that SPIR-V (Vector16) has no type for (1 included)."""
    return sorted({int(n) for n in _VECTOR.findall(ll)} - SPIRV_VECTOR_SIZES)


_FUNC = re.compile(r"^(\s*)gpu\.func @[\w$.]+\((.*?)\)(?: kernel)?")
_HOISTABLE = re.compile(r"^\s*(%[\w$.-]+) = memref\.(?:expand_shape|collapse_shape|cast|reinterpret_cast|dim) ")
_CONSTANT = re.compile(r"^\s*(%[\w$.-]+) = arith\.constant ")
_SSA = re.compile(r"%[\w$.-]+")
_LOAD = re.compile(r"^\s*(%[\w$.-]+) = memref\.load (%[\w$.-]+)\[")


def hoist_views(text: str) -> str:
    """Move memref views / sizes of kernel arguments (expand_shape, collapse_shape, cast, dim) and
    scalar loads of read-only arguments (a 0-D scale) after the constants at the top of their gpu.func
    (operands: arguments, those constants, earlier moved values): upstream's subgroup
    distribution (LLVM 22) does not distribute an scf.for or block loads with such an op between them
    and the end of the kernel (e.g. the bias row view after the K loop)."""
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        m = _FUNC.match(lines[i])
        if not m or not lines[i].rstrip().endswith("{"):
            i += 1
            continue
        args = set(re.findall(r"(%[\w$.-]+):", m.group(2)))
        end = m.group(1) + "}"
        top = i + 1  # after the leading constants
        while top < len(lines) and _CONSTANT.match(lines[top]):
            args.add(_CONSTANT.match(lines[top]).group(1))
            top += 1
        j, moved = top, []
        k = i + 1
        while k < len(lines) and lines[k] != end:
            k += 1
        body = lines[i + 1:k]
        # kernel arguments only read by memref.load (a scalar like alpha): their loads may move up too
        read_only = {a for a in args if a.startswith("%arg")
                     and all(_LOAD.match(l) for l in body if re.search(re.escape(a) + r"\b", l))}
        while j < len(lines) and lines[j] != end:
            v = _HOISTABLE.match(lines[j])
            ld = _LOAD.match(lines[j])
            names = set(_SSA.findall(lines[j]))
            if (v and names - {v.group(1)} <= args) or (ld and ld.group(2) in read_only
                                                        and names - {ld.group(1)} <= args):
                moved.append(lines.pop(j))
                args.add((v or ld).group(1))  # later views may use it
                continue
            j += 1
        lines[top:top] = moved
        i = j + 1
    return "\n".join(lines)


_DEF = re.compile(r"^(\s*)(%[\w$.-]+)(?::\d+)? = ")
_PURE = re.compile(r"^\s*%[\w$.-]+ = (?:arith\.\w+|memref\.dim) ")


def hoist_scalar_loads(text: str) -> str:
    """Move each top-level `memref.load` of a read-only memref defined before the gpu.func's first
    xegpu op (an argument or a view of one; no store mentions it), with the scalar arith / memref.dim
    chain its indices need, to just before that first xegpu op: upstream's subgroup distribution
    (LLVM 22) leaves every op before such a load undistributed in its warp region (the export's
    column-bias loads after the K loop)."""
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        m = _FUNC.match(lines[i])
        if not m or not lines[i].rstrip().endswith("{"):
            i += 1
            continue
        indent, end = m.group(1) + "  ", m.group(1) + "}"
        k = i + 1
        while k < len(lines) and lines[k] != end:
            k += 1
        body = list(range(i + 1, k))
        first = next((j for j in body if "xegpu." in lines[j]), None)
        if first is None:
            i = k + 1
            continue
        defs = {}
        for j in body:
            d = _DEF.match(lines[j])
            if d:
                defs[d.group(2)] = j
        stored = {n for j in body if "store" in lines[j] for n in _SSA.findall(lines[j])}
        move: set[int] = set()

        def chain(j, acc) -> bool:
            for n in _SSA.findall(lines[j].split(" = ", 1)[1]):
                src = defs.get(n.split("#")[0])
                if src is None or src < first or src in acc:
                    continue
                if (not lines[src].startswith(indent) or lines[src].startswith(indent + " ")
                        or not _PURE.match(lines[src]) or "vector<" in lines[src]):
                    return False
                acc.add(src)
                if not chain(src, acc):
                    return False
            return True

        for j in body:
            ld = _LOAD.match(lines[j])
            if (not ld or j < first or not lines[j].startswith(indent) or lines[j].startswith(indent + " ")
                    or ld.group(2) in stored or defs.get(ld.group(2), -1) >= first):
                continue
            src_line = lines[defs[ld.group(2)]] if ld.group(2) in defs else ""
            if any(n in stored for n in _SSA.findall(src_line.split(" = ", 1)[-1])):
                continue
            acc = {j}
            if chain(j, acc):
                move |= acc
        if move:
            moved = [lines[j] for j in sorted(move)]
            rest = [lines[j] for j in body if j not in move]
            at = rest.index(lines[first])
            lines[i + 1:k] = rest[:at] + moved + rest[at:]
        i = k + 1
    return "\n".join(lines)


_WARP = re.compile(r"^(\s*)(%[\w$.-]+)(?::(\d+))? = gpu\.warp_execute_on_lane_0\(%[\w$.-]+\)\[\d+\]"
                   r"(?: args\((.*?) : .*?\))?(?: -> \(.*\))? \{$")


def inline_uniform_warps(text: str) -> str:
    """Replace each `gpu.warp_execute_on_lane_0` that upstream's distribution leaves with only uniform
    scalar / memref ops inside (no vector, no xegpu op: e.g. a batch kernel's memref.subview, a dynamic
    kernel's memref.dim) by its body: every lane computes the same values. Nothing lowers the op."""
    lines = text.split("\n")
    out: list[str] = []
    renames: dict[str, str] = {}
    i = 0
    while i < len(lines):
        m = _WARP.match(lines[i])
        if not m:
            out.append(lines[i])
            i += 1
            continue
        indent, result, count, outer = m.group(1), m.group(2), m.group(3), m.group(4)
        end = indent + "}"
        j = i + 1
        while j < len(lines) and lines[j] != end:
            j += 1
        region = lines[i + 1:j]
        yield_line = region[-1].strip() if region else ""
        body = region[1:-1] if region and region[0].lstrip().startswith("^bb0") else region[:-1]
        if (not yield_line.startswith("gpu.yield") or any("vector<" in l or "xegpu." in l for l in region)
                or any(re.match(r"^\s*(%\S+ = )?\"?[\w.]+\"?\(?.*\{$", l) for l in body)):
            out.append(lines[i])
            i += 1
            continue
        inner = re.findall(r"(%[\w$.-]+):", region[0]) if region and region[0].lstrip().startswith("^bb0") else []
        outer_names = _SSA.findall(outer or "")
        local = dict(zip(inner, outer_names))
        # values defined in the body get names of their own: the printer reuses names across sibling
        # regions, which would redefine them once the body is in the enclosing region
        for line in body:
            d = _DEF.match(line)
            if d:
                local[d.group(2)] = f"%uw{i}_{d.group(2)[1:]}"
        ren = _renamer(local)
        out += [ren(l[2:] if l.startswith(indent + "  ") else l) for l in body]
        operands = yield_line[len("gpu.yield"):].split(" : ")[0]
        values = [ren(v.strip()) for v in operands.split(",") if v.strip()]
        if count is None:
            if values:
                renames[result] = values[0]
        else:
            for k, v in enumerate(values):
                renames[f"{result}#{k}"] = v
        i = j + 1
    return _renamer(renames)("\n".join(out)) if renames else "\n".join(out)


def _renamer(mapping: dict[str, str]):
    if not mapping:
        return lambda s: s
    pat = re.compile("(" + "|".join(re.escape(k) for k in sorted(mapping, key=len, reverse=True)) + r")(?![\w$.#-])")
    return lambda s: pat.sub(lambda m: mapping[m.group(1)], s)


# LLVM intrinsic -> (OpenCL builtin, arity, signed-ness of integer elements)
_BUILTINS = {**{m: (m, 1, None) for m in ("exp", "exp2", "log", "log2", "sin", "cos", "tanh", "sqrt", "fabs",
                                         "floor", "ceil")},
             "maxnum": ("fmax", 2, None), "minnum": ("fmin", 2, None),
             "smax": ("max", 2, True), "smin": ("min", 2, True), "umax": ("max", 2, False), "umin": ("min", 2, False)}
_INTRINSIC = re.compile(r"\b(declare|call)((?: (?:fast|nnan|ninf|nsz|arcp|contract|afn|reassoc))*)( [^\n@]*?)"
                        r"@llvm\.(" + "|".join(_BUILTINS) + r")\.(?:v(\d+))?(f32|f16|i8|i16|i32|i64)\(")
_MANGLE = {"f32": "f", "f16": "Dh", ("i8", True): "c", ("i8", False): "h", ("i16", True): "s", ("i16", False): "t",
           ("i32", True): "i", ("i32", False): "j", ("i64", True): "l", ("i64", False): "m"}


def intrinsics_to_opencl(ll: str) -> str:
    """Calls of LLVM math / min-max intrinsics (llvm.exp.v8f32, llvm.smax.i32, ...) as calls of the
    OpenCL builtins the translator maps them to anyway (exp(float8): _Z3expDv8_f, max(int, int):
    _Z3maxii): LLVM re-attaches intrinsic attributes when it parses, and LLVM 22's include one
    (nocreateundeforpoison) that the translator's LLVM 19 bitcode reader rejects."""
    def sub(m):
        name, n, elt = m.group(4), m.group(5), m.group(6)
        builtin, arity, signed = _BUILTINS[name]
        if elt.startswith("i") and signed is None:
            return m.group(0)
        code = _MANGLE[elt] if elt.startswith("f") else _MANGLE[(elt, signed)]
        one = f"Dv{n}_{code}" if n else code
        args = one + ("" if arity == 1 else ("S_" if n else code))
        return f"{m.group(1)}{m.group(2)} spir_func{m.group(3)}@_Z{len(builtin)}{builtin}{args}("
    return _INTRINSIC.sub(sub, ll)


# a 16-bit transposed block load as upstream's distribution leaves it (lane level), on a descriptor
# created from a static 2D memref
_TDESC = re.compile(r"^\s*(%[\w$.-]+) = xegpu\.create_nd_tdesc (%[\w$.-]+) : memref<(\d+)x(\d+)x(bf16|f16)> -> ")
_T16_LOAD = re.compile(r"^(\s*)(%[\w$.-]+) = xegpu\.load_nd (%[\w$.-]+)\[(%[\w$.-]+), (%[\w$.-]+)\] "
                       r"<\{transpose = array<i64: 1, 0>\}> : !xegpu\.tensor_desc<(\d+)x(\d+)x(bf16|f16)> -> "
                       r"vector<(\d+)x(bf16|f16)>\s*$")


def transposed_16bit_loads(text: str) -> str:
    """Lane-level transposed 16-bit block loads (`load_nd <{transpose}>` of an H x W bf16/f16 block, what
    upstream's distribution makes of a plain load + `vector.transpose` of the DPAS A, whose lane layout
    [16, 1] x [1, 1] xegpu-optimize-block-loads does not pack) as 32-bit transposed loads of packed pairs:
    per 16 rows of the block a `16 x W/2` i32 load through a descriptor on the memref's pointer (shape
    [R, C/2]; column offset / 2), `vector.bitcast` to W 16-bit elements (lane j: row j of the piece, its
    W elements in order), the pieces concatenated in row order as distribution lays them out (rows j,
    j + 16, ...). Upstream's XeVM lowering transposes only 32/64-bit elements. Only loads on a descriptor
    of a static row-major 2D memref with an even number of columns, W even and at most 16, H a multiple
    of 16; others are left (XeVM then rejects them, a located error). Like upstream's packed-pair B,
    this assumes an even column offset (our kernels' M offsets are multiples of the tile width)."""
    descs: dict[str, tuple[str, int, int]] = {}
    out: list[str] = []
    n = 0
    for line in text.split("\n"):
        d = _TDESC.match(line)
        if d:
            descs[d.group(1)] = (d.group(2), int(d.group(3)), int(d.group(4)))
        m = _T16_LOAD.match(line)
        src = descs.get(m.group(3)) if m else None
        if m is None or src is None:
            out.append(line)
            continue
        ind, res, row, col = m.group(1), m.group(2), m.group(4), m.group(5)
        h, w, elt, per_lane = int(m.group(6)), int(m.group(7)), m.group(8), int(m.group(9))
        mem, rows, cols = src
        if (m.group(10) != elt or cols % 2 or w % 2 or w > 16 or h % 16 or per_lane != (h // 16) * w):
            out.append(line)
            continue
        p = f"%tq{n}"
        n += 1
        memref_ty = f"memref<{rows}x{cols}x{elt}>"
        desc_ty = f"!xegpu.tensor_desc<16x{w // 2}xi32>"
        out += [f"{ind}{p}_ip = memref.extract_aligned_pointer_as_index {mem} : {memref_ty} -> index",
                f"{ind}{p}_p = arith.index_cast {p}_ip : index to i64",
                f"{ind}{p}_c1 = arith.constant 1 : index",
                f"{ind}{p}_half = arith.constant {cols // 2} : index",
                f"{ind}{p}_col = arith.shrui {col}, {p}_c1 : index",
                f"{ind}{p}_d = xegpu.create_nd_tdesc {p}_p, shape : [{rows}, {p}_half], strides : [{p}_half, 1] : "
                f"i64 -> {desc_ty}"]
        pieces = []
        for i in range(h // 16):
            r = row
            if i:
                out += [f"{ind}{p}_o{i} = arith.constant {16 * i} : index",
                        f"{ind}{p}_r{i} = arith.addi {row}, {p}_o{i} : index"]
                r = f"{p}_r{i}"
            out += [f"{ind}{p}_w{i} = xegpu.load_nd {p}_d[{r}, {p}_col] <{{transpose = array<i64: 1, 0>}}> : "
                    f"{desc_ty} -> vector<{w // 2}xi32>",
                    f"{ind}{p}_b{i} = vector.bitcast {p}_w{i} : vector<{w // 2}xi32> to vector<{w}x{elt}>"]
            pieces.append(f"{p}_b{i}")
        acc, size = pieces[0], w
        for i, piece in enumerate(pieces[1:], 1):
            name = res if i == len(pieces) - 1 else f"{p}_cat{i}"
            out.append(f"{ind}{name} = vector.shuffle {acc}, {piece} [{', '.join(map(str, range(size + w)))}] : "
                       f"vector<{size}x{elt}>, vector<{w}x{elt}>")
            acc, size = name, size + w
        if len(pieces) == 1:
            out[-1] = out[-1].replace(f"{p}_b0 = ", f"{res} = ", 1)
    return "\n".join(out)
