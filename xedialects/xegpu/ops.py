"""XeGPU ops: one class per op, each mapping to Xe instructions; VC (`mode = vc`) and SIMT modes."""
from __future__ import annotations

from mlir import ir

from ..core.constraints import AnyMemRef, AnyVector, I1, I8, I64, Index, TypeConstraint, dialect_type
from ..core.kinds import Enum, Int, IntList
from ..core.opdef import Attribute, Op, Operand, Result, derived
from ..core.typeinfo import element_bits, is_float, memref_info, our_type, vector_info
from .attributes import NBARRIER, TENSOR_DESC, tdesc_type_errors, xegpu

TensorDesc = dialect_type(TENSOR_DESC)
NBarrier = dialect_type(NBARRIER)
# a scalar element (integer or float): one work-item's value of a SIMT scattered access
Element = TypeConstraint("integer or float", lambda b: b.op("irdl.any"))

MODES = ("vc",)
LOAD_HINTS = ("cached", "uncached", "streaming", "read_invalidate")
STORE_HINTS = ("uncached", "write_through", "write_back", "streaming")
ALL_HINTS = ("cached", "uncached", "streaming", "read_invalidate", "write_back", "write_through")
ATOMIC_KINDS = ("addf", "addi", "assign", "maximumf", "maxs", "maxu", "minimumf", "mins", "minu",
                "mulf", "muli", "ori", "andi")
MEMORY_KINDS = ("ugm", "ugml", "tgm", "slm")
FENCE_OPS = ("none", "evict", "invalidate", "discard", "clean", "flushl3")
FENCE_SCOPES = ("group", "local", "tile", "gpu", "gpus", "system", "sysacq")
HINTS = ("schedule_barrier",)
SUBGROUP_SIZE = 16


def _mode():
    return Attribute(Enum(MODES, name="mode"), optional=True, doc="vc: Vector Compute mode; absent: SIMT")


def _hint():
    return Attribute(Enum(ALL_HINTS, name="cache hint"), optional=True)


def _s(shape):
    return "x".join(map(str, shape))


class _XeGpuOp(Op):
    """Shared rules: VC mode forbids sg_map; SIMT mode needs sg_map on the descriptors it touches."""

    def mode_errors(self, *descs):
        vc = getattr(self, "mode", None) == "vc"
        for d in descs:
            tv = our_type(d)
            if tv is None:
                continue
            for e in tdesc_type_errors(tv):
                yield e
            has_map = tv.attr is not None and tv.attr.sg_map is not None
            if vc and has_map:
                yield "in VC mode the tensor_desc must not carry an sg_map (RFC: 'When VC mode is on, the sg_map " \
                      "attribute should not be presented')"
            if not vc and not has_map:
                yield "SIMT mode (no mode = vc) needs an sg_map on the tensor_desc to distribute it over work-items"

    def hint_errors(self, allowed):
        for h in ("l1_hint", "l2_hint", "l3_hint"):
            v = getattr(self, h, None)
            if v is not None and v not in allowed:
                yield f"{h} = {v} is not valid here; expected one of {', '.join(allowed)}"


def simt_shape(tshape, sgm, *, vnni=False, transpose=False):
    """Per-work-item vector shape for a subgroup block of `tshape` distributed by `sgm`."""
    n = 1
    for s in tshape:
        n *= s
    per = sgm.wi_data[0] * sgm.wi_data[1]
    count = n // (SUBGROUP_SIZE * per)
    if vnni:
        return (count, 1, per)
    shape = (count, per)
    return shape[::-1] if transpose else shape


@xegpu.op
class CreateNdTdescOp(_XeGpuOp):
    name = "create_nd_tdesc"
    summary = "Describe a 1D/2D block of a memref or raw address for block loads/stores"
    source = Operand(AnyMemRef | I64)
    offsets = Operand(Index, variadic=True)
    shape = Operand(Index, variadic=True)
    strides = Operand(Index, variadic=True)
    static_offsets = Attribute(IntList())
    static_shape = Attribute(IntList())
    static_strides = Attribute(IntList())
    mode = _mode()
    result = Result(TensorDesc)
    format = ("$source custom<IndexList>($offsets, $static_offsets) (`,` custom<IndexList>($shape, $static_shape)"
              " `,` custom<IndexList>($strides, $static_strides))? attr-dict `:` type($source) `->` type($result)")

    def verify(self):
        yield from self.mode_errors(self.result)
        tv = our_type(self.result)
        mi = memref_info(self.source)
        rank = len(tv.shape)
        scattered = tv.attr is not None and tv.attr.scattered
        if scattered:
            yield "create_nd_tdesc cannot create a scattered tensor_desc; use create_tdesc"
        nsh, nst = len(self.static_shape), len(self.static_strides)
        if nsh != nst:
            yield "base shape and strides must be given together"
        if mi is None:
            if rank == 2 and nsh != 2:
                yield "a 2D tensor_desc on an i64 address needs base shape and strides: [%H, %W], [%W, %c1]"
            if len(self.static_offsets) not in (rank, 1):
                yield f"expected {rank} offsets, got {len(self.static_offsets)}"
        else:
            shape, elt, strides, _ = mi
            if elt != tv.element_type:
                yield f"tensor_desc element type {tv.element_type} does not match the memref element type {elt}"
            if len(self.static_offsets) != len(shape):
                yield f"expected {len(shape)} offsets (one per memref dimension), got {len(self.static_offsets)}"
            if any(s is None for s in shape) and nsh != len(shape):
                yield "a memref with dynamic shape needs the base shape and strides as operands"
            if strides is not None and strides[-1] not in (1, None):
                yield "the innermost stride of the base must be 1 (PVC: 'the stride of the innermost dimension must be 1')"


def _vc_loaded_shape(tv, vnni_axis, transpose):
    """The VC-mode shape load_nd reads a tensor_desc into: transposed, then packed along vnni_axis."""
    shape = tv.shape
    if transpose is not None and len(shape) == 2:
        shape = (shape[1], shape[0])
    if vnni_axis is not None:
        v = max(1, 32 // element_bits(tv.element_type))
        shape = (shape[0] // v, shape[1], v) if vnni_axis == 0 else (shape[0], shape[1] // v, v)
    return shape


def _loaded_nd_type(tdesc, mode, vnni_axis, transpose):
    """VC mode: the tensor_desc's shape, transposed, then packed along vnni_axis; SIMT mode with an
    sg_map: this work-item's fragment; of the tensor_desc's element type."""
    tv = our_type(tdesc)
    if tv is None:
        return None
    if mode == "vc":
        shape = _vc_loaded_shape(tv, vnni_axis, transpose)
    elif tv.attr is not None and tv.attr.sg_map is not None:
        shape = simt_shape(tv.shape, tv.attr.sg_map, vnni=vnni_axis is not None, transpose=transpose is not None)
    else:
        return None
    return ir.Type.parse(f"vector<{_s(shape)}x{tv.element_type}>")


@xegpu.op
class LoadNdOp(_XeGpuOp):
    name = "load_nd"
    summary = "2D block load (with VNNI and transpose)"
    tdesc = Operand(TensorDesc)
    mode = _mode()
    vnni_axis = Attribute(Int("i64"), optional=True)
    transpose = Attribute(IntList(rank=2), optional=True)
    l1_hint, l2_hint, l3_hint = _hint(), _hint(), _hint()
    result = Result(AnyVector, derive=derived(_loaded_nd_type, "tdesc", "mode", "vnni_axis", "transpose"))
    format = "$tdesc attr-dict `:` type($tdesc) `->` type($result)"

    def expected_shape(self):
        return _vc_loaded_shape(our_type(self.tdesc), self.vnni_axis, self.transpose)

    def verify(self):
        yield from self.mode_errors(self.tdesc)
        yield from self.hint_errors(LOAD_HINTS)
        tv = our_type(self.tdesc)
        if tv.attr is not None and tv.attr.scattered:
            yield "load_nd needs a non-scattered tensor_desc; use load_gather"
        if self.transpose is not None and self.transpose != (1, 0):
            yield f"transpose must be [1, 0], got {list(self.transpose)}"
        bits = element_bits(tv.element_type)
        if self.vnni_axis is not None:
            if self.vnni_axis not in (0, 1) or len(tv.shape) != 2:
                yield f"vnni_axis must be 0 or 1 on a 2D tensor_desc, got {self.vnni_axis}"
                return
            if bits >= 32:
                yield f"vnni_axis packs sub-32-bit data into 32 bits; {tv.element_type} is already {bits}-bit"
                return
            v = 32 // bits
            axis_size = (tv.shape[::-1] if self.transpose else tv.shape)[self.vnni_axis]
            if axis_size % v:
                yield f"the VNNI axis size {axis_size} must be a multiple of the VNNI factor {v} (32 / {bits} bits)"
                return
        res, elt = vector_info(self.result)
        if elt != tv.element_type:
            yield f"result element type {elt} does not match the tensor_desc element type {tv.element_type}"
        if self.mode == "vc":
            exp = self.expected_shape()
            if res != exp:
                yield f"result must be vector<{_s(exp)}x{tv.element_type}> in VC mode, got vector<{_s(res)}x{elt}>"
        elif tv.attr is not None and tv.attr.sg_map is not None:
            sgm = tv.attr.sg_map
            # With transpose, the vnni_axis names an axis of the transposed data: the tensor_desc's other axis.
            data_axis = None if self.vnni_axis is None else (1 - self.vnni_axis if self.transpose else self.vnni_axis)
            if data_axis is not None and sgm.wi_data[data_axis] != 32 // bits:
                yield (f"sg_map wi_data {list(sgm.wi_data)} must hold {32 // bits} elements along the vnni_axis "
                       f"{self.vnni_axis} (RFC: 'the wi_data size along the vnni_axis must match the size required "
                       "to pack the low-precision data into 32-bit')")
                return
            exp = simt_shape(tv.shape, sgm, vnni=self.vnni_axis is not None, transpose=self.transpose is not None)
            if res != exp:
                yield (f"in SIMT mode each work-item loads vector<{_s(exp)}x{elt}> of this tensor_desc with sg_map "
                       f"wi_layout {list(sgm.wi_layout)}, wi_data {list(sgm.wi_data)}; got vector<{_s(res)}x{elt}>")


@xegpu.op
class StoreNdOp(_XeGpuOp):
    name = "store_nd"
    summary = "2D block store"
    value = Operand(AnyVector)
    tdesc = Operand(TensorDesc)
    mode = _mode()
    l1_hint, l2_hint, l3_hint = _hint(), _hint(), _hint()
    format = "$value `,` $tdesc attr-dict `:` type($value) `,` type($tdesc)"

    def verify(self):
        yield from self.mode_errors(self.tdesc)
        yield from self.hint_errors(STORE_HINTS)
        tv = our_type(self.tdesc)
        res, elt = vector_info(self.value)
        if elt != tv.element_type:
            yield f"stored element type {elt} does not match the tensor_desc element type {tv.element_type}"
        if self.mode == "vc" and res != tv.shape:
            yield f"stored vector must be vector<{_s(tv.shape)}x{elt}> in VC mode, got vector<{_s(res)}x{elt}>"
        elif self.mode != "vc" and tv.attr is not None and tv.attr.sg_map is not None:
            exp = simt_shape(tv.shape, tv.attr.sg_map)
            if res != exp:
                yield f"in SIMT mode each work-item stores vector<{_s(exp)}x{elt}>, got vector<{_s(res)}x{elt}>"


@xegpu.op
class PrefetchNdOp(_XeGpuOp):
    name = "prefetch_nd"
    summary = "2D block prefetch into cache"
    tdesc = Operand(TensorDesc)
    mode = _mode()
    l1_hint, l2_hint, l3_hint = _hint(), _hint(), _hint()
    format = "$tdesc attr-dict `:` type($tdesc)"

    def verify(self):
        yield from self.mode_errors(self.tdesc)
        yield from self.hint_errors(LOAD_HINTS)


@xegpu.op
class UpdateNdOffsetOp(_XeGpuOp):
    name = "update_nd_offset"
    summary = "Move a tensor_desc by relative offsets"
    tdesc = Operand(TensorDesc)
    offsets = Operand(Index, variadic=True)
    static_offsets = Attribute(IntList())
    mode = _mode()
    result = Result(TensorDesc, same_as="tdesc")
    format = "$tdesc `,` custom<IndexList>($offsets, $static_offsets) attr-dict `:` type($tdesc)"

    def verify(self):
        yield from self.mode_errors(self.tdesc)
        tv = our_type(self.tdesc)
        if len(self.static_offsets) != len(tv.shape):
            yield f"expected {len(tv.shape)} offsets, got {len(self.static_offsets)}"


@xegpu.op
class DpasOp(_XeGpuOp):
    name = "dpas"
    summary = "Systolic matrix multiply-accumulate: acc + A x B"
    a = Operand(AnyVector)
    b = Operand(AnyVector)
    acc = Operand(AnyVector, optional=True)
    mode = _mode()
    result = Result(AnyVector, same_as="acc")
    format = "$a `,` $b (`,` $acc)? attr-dict `:` type($a) `,` type($b) (`,` type($acc))? `->` type($result)"

    def verify(self):
        # An op does not know the target: the shape rules checked are those all our architectures
        # share (`arch.shared_dpas_shape`); passes with `arch=` check against the target's table.
        from ..arch import shared_dpas_shape

        (sa, ea), (sb, eb), (sr, er) = vector_info(self.a), vector_info(self.b), vector_info(self.result)
        if self.acc is not None and self.acc.type != self.result.type:
            yield "the accumulator must have the result type"
        if ea != eb:
            yield f"A and B element types must match, got {ea} and {eb}"
            return
        try:
            max_m, n_req, k_req = shared_dpas_shape(ea, eb, er)
        except Exception as e:  # unsupported type combination
            yield str(e)
            return
        bits = element_bits(ea)
        vnni = max(1, 32 // bits)
        if self.mode == "vc":
            if len(sr) != 2:
                yield f"result must be 2D <M x N>, got {_s(sr)}"
                return
            m, n = sr
            if m > max_m or m < 1:
                yield f"DPAS M (repeat count) must be between 1 and {max_m}, got {m}"
            if n != n_req:
                yield f"DPAS N must be {n_req} (the execution size), got {n}"
            a_k = sa[1] * (sa[2] if len(sa) == 3 else 1)
            if sa[0] != m or a_k != k_req:
                yield f"A must be <{m}x{k_req}> (or VNNI <{m}x{k_req // vnni}x{vnni}>) for {ea}, got {_s(sa)}"
            if bits < 32:
                if sb != (k_req // vnni, n, vnni):
                    yield (f"B must be in VNNI layout <{k_req // vnni}x{n}x{vnni}> for {ea} (RFC: 'the matrix B must "
                           f"be in VNNI layout'), got {_s(sb)}")
            elif sb != (k_req, n):
                yield f"B must be <{k_req}x{n}> for {ea}, got {_s(sb)}"
        else:
            na = _count(sa)
            nb = _count(sb)
            nr = _count(sr)
            if nb != k_req:
                yield (f"in SIMT mode each work-item holds K = {k_req} elements of B for {ea} "
                       f"(one column), got {nb}")
            if nr > max_m:
                yield f"in SIMT mode each work-item holds M <= {max_m} accumulator elements, got {nr}"
            if na * SUBGROUP_SIZE != nr * k_req:
                yield (f"in SIMT mode A holds M*K/16 = {nr * k_req // SUBGROUP_SIZE} elements per work-item for "
                       f"M = {nr}, K = {k_req}; got {na}")


def _count(shape):
    n = 1
    for s in shape:
        n *= s
    return n


def _scattered(tdesc):
    tv = our_type(tdesc)
    return tv, tv.attr is not None and tv.attr.scattered


# --- scattered access: VC form (one value per lane) and SIMT form (one work-item's values) -------

_RFC_SIMT_CREATE = ("RFC: 'create_tdesc %mem_addr, %offsets : uint64, index into tensor_desc<16 x uint8, "
                    "#scattered, #sg_map_a>'")
_RFC_SIMT_LOAD = ("RFC: 'load_gather %scatter_tdesc0, %mask : tensor_desc <16xuint8, #Scattered, #sg_map_a>, i1 "
                  "into uint8'")
_RFC_SIMT_STORE = "RFC: 'store_scatter %value, %scatter_tdesc1, %mask : uint16, i1, tensor_desc <16xuint16, #scattered, " \
                  "#sg_map_a>'"
_RFC_SIMT_UPDATE = "RFC: 'update_offsets %scatter_tdesc1, %offsets : tensor_desc <16xuint16, #scattered, #sg_map>, " \
                   "uint16'"
_RFC_SIMT_ATOMIC = "RFC: 'atomic_rmw \"addf\" %value, %scatter_Desc1, %mask : bf16, tensor_desc <16xbf16, #scattered, " \
                   "#sg_map>, i1 to bf16'"
PVC_LANES = (1, 2, 4, 8, 16, 32)


def _type_text(t) -> str:
    if isinstance(t, ir.Value):
        t = t.type
    return str(t)


def _elt_of(t) -> str:
    """Element type of a vector type, else the (scalar) type itself."""
    vi = vector_info(t)
    return vi[1] if vi is not None else _type_text(t)


def _per_wi(t, n: int, elt: str):
    """None when `t` is one work-item's form of n elements of `elt` (the scalar when n == 1, else
    vector<n x elt>); otherwise the expected type text."""
    vi = vector_info(t)
    if n == 1:
        return None if vi is None and _type_text(t) == elt else elt
    return None if vi == ((n,), elt) else f"vector<{n}x{elt}>"


def simt_scatter_count(tv):
    """(elements per work-item, errors) of a SIMT-mode scattered tensor_desc: its sg_map distributes
    the `lanes` addresses over the 16 work-items, wi_data[1] consecutive lanes at a time, so each
    work-item holds lanes / 16 of them (RFC: one offset per work-item for 16 lanes)."""
    errs = []
    attr = tv.attr
    sgm = attr.sg_map if attr is not None else None
    if sgm is None:
        return None, errs      # mode_errors reports the missing sg_map
    if attr.chunk_size_per_lane > 1 or len(tv.shape) != 1:
        errs.append(f"a SIMT-mode scattered tensor_desc is 1D <lanes x type>, got {list(tv.shape)} "
                    "(RFC: 'The chunk_size_per_lane attribute is VC mode only')")
        return None, errs
    lanes = tv.shape[0]
    if sgm.wi_data[0] != 1:
        errs.append(f"sg_map wi_data {list(sgm.wi_data)} of a 1D tensor_desc must be [1, n]")
        return None, errs
    unit = SUBGROUP_SIZE * sgm.wi_data[1]
    if lanes % unit:
        errs.append(f"sg_map wi_layout {list(sgm.wi_layout)}, wi_data {list(sgm.wi_data)} does not distribute "
                    f"{lanes} lanes over the {SUBGROUP_SIZE} work-items: the lanes must be a multiple of "
                    f"{SUBGROUP_SIZE} x wi_data[1] = {unit}")
        return None, errs
    return lanes // SUBGROUP_SIZE, errs


def _per_wi_msg(n, lanes):
    return f"{n} of the {lanes} lanes per work-item by its sg_map"


@xegpu.op
class CreateTdescOp(_XeGpuOp):
    name = "create_tdesc"
    summary = "Describe per-lane addresses for scattered access"
    source = Operand(AnyMemRef | I64)
    offsets = Operand(AnyVector | Index, doc="VC: vector<lanes x index>; SIMT: this work-item's offset(s)")
    mode = _mode()
    result = Result(TensorDesc)
    format = "$source `,` $offsets attr-dict `:` type($source) `,` type($offsets) `->` type($result)"

    def verify(self):
        yield from self.mode_errors(self.result)
        tv, sc = _scattered(self.result)
        if not sc:
            yield "create_tdesc produces a scattered tensor_desc (#xegpu.tdesc_attr<scattered = true>)"
        lanes = tv.shape[0] if tv.shape else 0
        if lanes not in PVC_LANES:
            yield f"the number of lanes must be 1, 2, 4, 8, 16 or 32 on PVC, got {lanes}"
        attr = tv.attr
        if self.mode != "vc":
            if attr is not None and attr.chunk_size_per_lane > 1:
                yield "chunk_size_per_lane is VC mode only (RFC)"
                return
            n, errs = simt_scatter_count(tv)
            yield from errs
            if n is not None:
                exp = _per_wi(self.offsets, n, "index")
                if exp is not None:
                    yield (f"in SIMT mode each work-item passes its own offsets: {exp} for a tensor_desc of "
                           f"{lanes} lanes ({_per_wi_msg(n, lanes)}), got {_type_text(self.offsets)} "
                           f"({_RFC_SIMT_CREATE})")
            return
        vi = vector_info(self.offsets)
        if vi is None or vi[1] != "index" or len(vi[0]) != 1:
            yield f"offsets must be a 1D vector of index (one per lane) in VC mode, got {_type_text(self.offsets)}"
        elif vi[0][0] != lanes:
            yield f"{vi[0][0]} offsets for a tensor_desc of {lanes} lanes"


def _vc_gather_shape(tv, transpose):
    """VC mode: the scattered tensor_desc's shape (lanes, or lanes x chunk), transposed by `transpose`."""
    return tuple(tv.shape[::-1]) if transpose is not None and len(tv.shape) == 2 else tuple(tv.shape)


def _gathered_type(tdesc, mode, transpose):
    """VC mode: a vector of the scattered tensor_desc's shape (transposed by `transpose`) and element type."""
    tv, scattered = _scattered(tdesc)
    if mode != "vc" or not scattered:
        return None
    return ir.Type.parse(f"vector<{_s(_vc_gather_shape(tv, transpose))}x{tv.element_type}>")


def _gather_checks(op, vec, mask, what):
    tv, sc = _scattered(op.tdesc)
    if not sc:
        yield "the tensor_desc must be scattered (created by create_tdesc)"
        return
    lanes = tv.shape[0]
    if op.mode != "vc":
        n, errs = simt_scatter_count(tv)
        yield from errs
        if n is None:
            return
        if getattr(op, "transpose", None) is not None:
            yield "transpose applies to chunked loads, which are VC mode only (RFC: 'the load_gather operation " \
                  "must be annotated with the VC mode')"
        rfc = {"loads": _RFC_SIMT_LOAD, "stores": _RFC_SIMT_STORE, "updates": _RFC_SIMT_ATOMIC}[what]
        exp = _per_wi(mask, n, "i1")
        if exp is not None:
            yield (f"in SIMT mode the mask is {exp}, one bit per element of the work-item "
                   f"({_per_wi_msg(n, lanes)}), got {_type_text(mask)} ({rfc})")
        exp = _per_wi(vec, n, tv.element_type)
        if exp is not None:
            yield (f"in SIMT mode each work-item {what} {exp} ({_per_wi_msg(n, lanes)}), got {_type_text(vec)} "
                   f"({rfc})")
        return
    mi = vector_info(mask)
    if mi is None or mi[1] != "i1" or mi[0] != (lanes,):
        yield f"mask must be vector<{lanes}xi1> (one bit per lane)"
    exp = _vc_gather_shape(tv, getattr(op, "transpose", None))
    vi = vector_info(vec)
    if vi is None or vi != (tuple(exp), tv.element_type):
        got = f"vector<{_s(vi[0])}x{vi[1]}>" if vi is not None else _type_text(vec)
        yield f"vector must be vector<{_s(exp)}x{tv.element_type}>, got {got}"


@xegpu.op
class LoadGatherOp(_XeGpuOp):
    name = "load_gather"
    summary = "Scattered load under a per-lane mask"
    tdesc = Operand(TensorDesc)
    mask = Operand(AnyVector | I1, doc="VC: vector<lanes x i1>; SIMT: this work-item's bit(s)")
    mode = _mode()
    transpose = Attribute(IntList(rank=2), optional=True)
    l1_hint, l2_hint, l3_hint = _hint(), _hint(), _hint()
    result = Result(AnyVector | Element, derive=derived(_gathered_type, "tdesc", "mode", "transpose"))
    format = "$tdesc `,` $mask attr-dict `:` type($tdesc) `,` type($mask) `->` type($result)"

    def verify(self):
        yield from self.mode_errors(self.tdesc)
        yield from self.hint_errors(LOAD_HINTS)
        yield from _gather_checks(self, self.result, self.mask, "loads")


@xegpu.op
class StoreScatterOp(_XeGpuOp):
    name = "store_scatter"
    summary = "Scattered store under a per-lane mask"
    value = Operand(AnyVector | Element)
    tdesc = Operand(TensorDesc)
    mask = Operand(AnyVector | I1)
    mode = _mode()
    l1_hint, l2_hint, l3_hint = _hint(), _hint(), _hint()
    format = "$value `,` $tdesc `,` $mask attr-dict `:` type($value) `,` type($tdesc) `,` type($mask)"

    def verify(self):
        yield from self.mode_errors(self.tdesc)
        yield from self.hint_errors(STORE_HINTS)
        yield from _gather_checks(self, self.value, self.mask, "stores")


@xegpu.op
class UpdateOffsetOp(_XeGpuOp):
    name = "update_offset"
    summary = "Add per-lane deltas to a scattered tensor_desc"
    tdesc = Operand(TensorDesc)
    delta = Operand(AnyVector | Index, doc="VC: vector<lanes x index>; SIMT: this work-item's delta(s)")
    mode = _mode()
    result = Result(TensorDesc, same_as="tdesc")
    format = "$tdesc `,` $delta attr-dict `:` type($tdesc) `,` type($delta)"

    def verify(self):
        yield from self.mode_errors(self.tdesc)
        tv, sc = _scattered(self.tdesc)
        if not sc:
            yield "update_offset needs a scattered tensor_desc; use update_nd_offset for nd descriptors"
            return
        lanes = tv.shape[0]
        if self.mode != "vc":
            n, errs = simt_scatter_count(tv)
            yield from errs
            if n is not None:
                exp = _per_wi(self.delta, n, "index")
                if exp is not None:
                    yield (f"in SIMT mode each work-item moves its own offsets: delta must be {exp} "
                           f"({_per_wi_msg(n, lanes)}), got {_type_text(self.delta)} ({_RFC_SIMT_UPDATE})")
            return
        if vector_info(self.delta) != ((lanes,), "index"):
            yield f"delta must be vector<{lanes}xindex>"


@xegpu.op
class PrefetchOp(_XeGpuOp):
    name = "prefetch"
    summary = "Scattered prefetch into cache"
    tdesc = Operand(TensorDesc)
    mode = _mode()
    l1_hint, l2_hint, l3_hint = _hint(), _hint(), _hint()
    format = "$tdesc attr-dict `:` type($tdesc)"

    def verify(self):
        yield from self.mode_errors(self.tdesc)
        yield from self.hint_errors(LOAD_HINTS)
        tv, sc = _scattered(self.tdesc)
        if not sc:
            yield "prefetch needs a scattered tensor_desc; use prefetch_nd for nd descriptors"
        elif self.mode != "vc":
            yield from simt_scatter_count(tv)[1]


@xegpu.op
class AtomicRmwOp(_XeGpuOp):
    name = "atomic_rmw"
    summary = "Atomic read-modify-write on scattered addresses"
    kind = Attribute(Enum(ATOMIC_KINDS, name="atomic kind"))
    value = Operand(AnyVector | Element)
    tdesc = Operand(TensorDesc)
    mask = Operand(AnyVector | I1)
    mode = _mode()
    result = Result(AnyVector | Element, same_as="value")
    format = "$kind $value `,` $tdesc `,` $mask attr-dict `:` type($value) `,` type($tdesc) `,` type($mask) `->` type($result)"

    def verify(self):
        yield from self.mode_errors(self.tdesc)
        yield from _gather_checks(self, self.value, self.mask, "updates")
        if self.value.type != self.result.type:
            yield "the result type must equal the value type"
        elt = _elt_of(self.value)
        if self.kind.endswith("f") and not is_float(elt):
            yield f"atomic kind {self.kind} needs float elements, got {elt}"
        if self.kind in ("addf", "mulf") and elt in ("bf16", "f16"):
            yield ("warning", f"PVC has no {elt} atomic {self.kind}; it must be performed in f32 "
                              "(RFC: 'PVC doesn't support atomic operation on BF16/FP16 add')")


@xegpu.op
class AllocNbarrierOp(Op):
    name = "alloc_nbarrier"
    summary = "Allocate named barriers for the work-group"
    count = Operand(I8, optional=True)
    nbarrier_num = Attribute(Int("i64"), optional=True, doc="the count as a constant (IMEX/upstream form)")
    format = ("$count attr-dict `:` type($count)",
              "$nbarrier_num attr-dict")  # IMEX / upstream XeGPU: `xegpu.alloc_nbarrier 1`

    @classmethod
    def format_for(cls, g):
        return 0 if g.operands else 1

    def static_count(self):
        """The number of barriers when given as the attribute, else None (see `count`)."""
        return self.nbarrier_num

    def verify(self):
        if (self.count is None) == (self.nbarrier_num is None):
            yield "give the barrier count either as an i8 operand or as an integer attribute, not both"
        elif self.nbarrier_num is not None and not 0 <= self.nbarrier_num <= 32:
            yield f"nbarrier_num must be between 0 and 32, got {self.nbarrier_num}"


@xegpu.op
class CreateNbarrierOp(Op):
    name = "create_nbarrier"
    summary = "Bind this thread to a named barrier with a role"
    id = Operand(I8)
    role = Operand(I8, doc="0 producer_consumer, 1 producer, 2 consumer")
    num_producers = Attribute(Int("i8"))
    num_consumers = Attribute(Int("i8"))
    result = Result(NBarrier)
    format = "$id `,` $role attr-dict `:` type($id) `,` type($role) `->` type($result)"

    def verify(self):
        for nm in ("num_producers", "num_consumers"):
            v = getattr(self, nm)
            if not 0 < v <= 32:
                yield f"{nm} must be between 1 and 32 (subgroups of a work-group), got {v}"


@xegpu.op
class InitNbarrierOp(Op):
    name = "init_nbarrier"
    summary = ("Bind this thread to named barrier `nbarrier_id` as producer and consumer, with "
               "`participant_thread_num` participants (IMEX / upstream XeGPU)")
    nbarrier_id = Operand(I8)
    participant_thread_num = Operand(I8)
    result = Result(NBarrier)
    format = ("$nbarrier_id `,` $participant_thread_num attr-dict `:` type($nbarrier_id) `,` "
              "type($participant_thread_num) `->` type($result)")


@xegpu.op
class NbarrierArriveOp(Op):
    name = "nbarrier_arrive"
    summary = "Signal arrival at a named barrier"
    nbarrier = Operand(NBarrier)
    format = "$nbarrier attr-dict `:` type($nbarrier)"


@xegpu.op
class NbarrierWaitOp(Op):
    name = "nbarrier_wait"
    summary = "Wait until all producers arrived at a named barrier"
    nbarrier = Operand(NBarrier)
    format = "$nbarrier attr-dict `:` type($nbarrier)"


@xegpu.op
class MfenceOp(Op):
    name = "mfence"
    summary = "Memory fence"
    memory_kind = Attribute(Enum(MEMORY_KINDS, quoted=True, name="memory_kind"))
    fence_op = Attribute(Enum(FENCE_OPS, quoted=True, name="fence_op"))
    fence_scope = Attribute(Enum(FENCE_SCOPES, quoted=True, name="fence_scope"))
    format = "attr-dict"


@xegpu.op
class CompileHintOp(Op):
    name = "compile_hint"
    summary = "Pass a scheduling hint to the lower-level compiler"
    hint = Attribute(Enum(HINTS, quoted=True, name="hint"), optional=True,
                     doc="absent (IMEX's plain `xegpu.compile_hint`): a scheduling fence for IGC")
    format = "attr-dict"
