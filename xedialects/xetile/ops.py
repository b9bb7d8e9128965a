"""XeTile ops: one class per op with operands, attributes, readable format and the RFC's rules."""
from __future__ import annotations

from mlir import ir

from ..core.constraints import AnyMemRef, AnyVector, I64, Index, dialect_type
from ..core.memory_space import is_slm_memref
from ..core.kinds import DYNAMIC, Enum, Int, IntList, Raw
from ..core.opdef import Attribute, Op, Operand, Result, derived
from ..core.typeinfo import is_float, memref_info, our_type, vector_info
from ..core.constraints import TypeConstraint
from .attributes import CACHE_HINT, TILE, WG_MAP, tile_type_errors, wg_map_rule_errors, xetile

Tile = dialect_type(TILE)
# offsets of update_tile_offset: indices, or one vector<..xindex> of deltas for a scattered tile
IndexOrIndexVector = TypeConstraint("index or vector of index", lambda b: b.op("irdl.any"),
                                    prefixes=("vector<",), exact=("index",), buildable="index")


def _hint(doc="cache policy (IMEX), kept for the lowering"):
    return Attribute(CACHE_HINT, optional=True, doc=doc)


def padding_errors(padding, elt):
    """Padding is typed as the tile's elements, or (as IMEX allows) an f32 or i32 value, converted
    to the element type (IMEX's conversion tests put `0 : i32` on f16 tiles)."""
    if padding is None or ":" not in padding:
        return []
    ptype = padding.rsplit(":", 1)[1].strip()
    if ptype in (elt, "f32", "i32"):
        return []
    return [f"padding value type {ptype} does not match the tile element type {elt} "
            f"(use {elt}, or an f32 or i32 value as IMEX does)"]

REDUCTION_KINDS = ("add", "mul", "minsi", "minui", "maxsi", "maxui", "and", "or", "xor",
                   "minnumf", "maxnumf", "minimumf", "maximumf")
INT_REDUCTIONS = {"add", "mul", "minsi", "minui", "maxsi", "maxui", "and", "or", "xor"}
FLOAT_REDUCTIONS = {"add", "mul", "minnumf", "maxnumf", "minimumf", "maximumf"}
ATOMIC_KINDS = ("addf", "addi", "assign", "maximumf", "maxs", "maxu", "minimumf", "mins", "minu",
                "mulf", "muli", "ori", "andi")


def _constant_index(value):
    """The integer of an `arith.constant` index value, else None."""
    owner = value.owner
    if isinstance(owner, ir.Block) or owner.name != "arith.constant":
        return None
    try:
        return ir.IntegerAttr(owner.attributes["value"]).value
    except (ValueError, KeyError):
        return None


def _tile_errors(value, role):
    tv = our_type(value)
    return [f"{role} tile: {e}" for e in tile_type_errors(tv)] if tv is not None else []


def blocked_shape(tv):
    """The vector shape a tile loads into: 2D, or 4D [s0/b0, s1/b1, b0, b1] with inner_blocks."""
    ib = tv.attr.inner_blocks if tv.attr is not None else None
    if ib is None:
        return tv.shape
    return (tv.shape[0] // ib[0], tv.shape[1] // ib[1], ib[0], ib[1])


def _shape_str(s):
    return "x".join(map(str, s))


def _vector_type(shape, elt: str) -> ir.Type:
    return ir.Type.parse(f"vector<{_shape_str(shape)}x{elt}>")


def _loaded_type(tile, transpose=None):
    """The tile's (blocked) shape, transposed by a 2D `transpose`, of its element type."""
    tv = our_type(tile)
    if tv is None:
        return None
    shape = blocked_shape(tv)
    if transpose is not None and len(shape) == 2 and sorted(transpose) == [0, 1]:
        shape = tuple(shape[p] for p in transpose)
    return _vector_type(shape, tv.element_type)


def _check_vector_vs_tile(vec_value, tile_value, what, transpose=None):
    vi, tv = vector_info(vec_value), our_type(tile_value)
    if vi is None or tv is None:
        return []
    errs = []
    expect = blocked_shape(tv)
    if transpose is not None and len(expect) == 2:
        expect = tuple(expect[p] for p in transpose)
    if vi[0] != expect:
        rule = " (blocked by inner_blocks)" if len(expect) == 4 else ""
        errs.append(f"{what} shape {_shape_str(vi[0])} does not match the tile shape {_shape_str(expect)}{rule}")
    if vi[1] != tv.element_type:
        errs.append(f"{what} element type {vi[1]} does not match the tile element type {tv.element_type}")
    return errs


@xetile.op
class InitTileOp(Op):
    """Create a tile: a 2D region of a memref (static or dynamic) or of a raw i64 address."""

    name = "init_tile"
    summary = "Describe a 2D tile of a base matrix"
    source = Operand(AnyMemRef | I64)
    offsets = Operand(Index, variadic=True)
    shape = Operand(Index, variadic=True)
    strides = Operand(Index, variadic=True)
    indices = Operand(AnyVector, optional=True, doc="per-element offsets (scattered tile)")
    static_offsets = Attribute(IntList())
    static_shape = Attribute(IntList())
    static_strides = Attribute(IntList())
    result = Result(Tile)
    format = ("$source (custom<IndexList>($offsets, $static_offsets) (`,` custom<IndexList>($shape, $static_shape)"
              " `,` custom<IndexList>($strides, $static_strides))?)? (`,` $indices)? attr-dict `:` type($source)"
              " (`,` type($indices))? `->` type($result)")

    def verify(self):
        yield from _tile_errors(self.result, "result")
        tv = our_type(self.result)
        scattered = bool(tv.attr and tv.attr.scattered)
        nshape, nstrides = len(self.static_shape), len(self.static_strides)
        mi = memref_info(self.source)
        if self.indices is not None:
            if not scattered:
                yield "init_tile with per-element offsets must produce a tile with scattered = true"
            vi = vector_info(self.indices)
            if vi and vi[0] != tv.shape:
                yield f"offsets vector shape {_shape_str(vi[0])} must equal the tile shape {_shape_str(tv.shape)}"
            if self.static_offsets:
                yield "a scattered init_tile takes an offsets vector, not [offsets]"
            return
        if scattered:
            yield "a scattered tile needs an offsets vector operand: init_tile %addr, %offsets"
            return
        base_rank = len(mi[0]) if mi is not None else 2
        if base_rank > 2 and len(self.static_offsets) == base_rank and nshape == 0:
            # IMEX's batched form: one offset per dimension of an N-D memref; the tile spans the
            # last two dimensions of memref[o0, ..., o(N-3), :, :]
            shape, elt, _strides, _space = mi
            if any(s is None for s in shape):
                yield "an init_tile on an N-D memref needs a static shape"
            if elt != tv.element_type:
                yield f"tile element type {tv.element_type} does not match the memref element type {elt}"
            return
        if base_rank > 2 and len(self.static_offsets) == base_rank and nshape == nstrides == base_rank:
            # the batched form with the base's shape and strides given (IMEX's conversion tests: a
            # memref with dynamic dims): memref[o0, ..., :, :] addressed by those strides
            if mi[1] != tv.element_type:
                yield f"tile element type {tv.element_type} does not match the memref element type {mi[1]}"
            last = self.mixed("strides", "static_strides")[-1]
            if (_constant_index(last) if isinstance(last, ir.Value) else last) not in (1, None):
                yield "the stride of the innermost dimension must be 1 (RFC: 'the innermost dimension of the base " \
                      "matrix must be contiguous')"
            return
        if len(self.static_offsets) != 2:
            yield f"init_tile needs 2 offsets for a 2D tile, got {len(self.static_offsets)}"
        if nshape != nstrides:
            yield f"base shape ({nshape} values) and strides ({nstrides} values) must be given together"
        if mi is None:  # i64 address
            if nshape != 2 or nstrides != 2:
                yield "init_tile on an i64 address needs the base shape and strides: %addr[%i, %j], [%H, %W], [%W, %c1]"
        else:
            shape, elt, strides, _space = mi
            if len(shape) != 2:
                yield (f"the base memref must be 2D (RFC: 'The base matrix must be 2D'), got rank {len(shape)}; "
                       f"an N-D memref takes {len(shape)} offsets (IMEX's batched form)")
                return
            if elt != tv.element_type:
                yield f"tile element type {tv.element_type} does not match the memref element type {elt}"
            dynamic = any(s is None for s in shape)
            if dynamic and nshape != 2:
                yield "a memref with dynamic shape needs the base shape and strides as operands: [%M, %N], [%N, %c1]"
            if not dynamic and nshape:
                yield "a memref with static shape gives the base shape and strides itself; do not pass them"
            order = tv.attr.order if tv.attr else (1, 0)
            if strides is not None and not dynamic:
                if order == (1, 0) and strides[1] != 1:
                    yield (f"order = [1, 0] (row-major) tile on a base memref with strides {list(strides)}: "
                           "the innermost dimension must be contiguous")
                if order == (0, 1) and strides[0] != 1:
                    yield (f"order = [0, 1] (column-major) tile needs a column-major base memref "
                           f"(e.g. affine_map<(d0, d1) -> (d1, d0)>), got strides {list(strides)}")
        if mi is not None and len(mi[0]) == 2:
            tspace = tv.attr.memory_space if tv.attr else 0
            # (a shared-local-memory memref -- 3 of any integer type or #gpu.address_space<workgroup> --
            # under a global tile; IMEX rejects the converse too)
            if tspace == 0 and is_slm_memref(self.source.type):
                number = mi[3].split(":")[0].strip()   # "3" of "3 : i32"; attributes as printed
                space = number if number.isdigit() else mi[3]
                yield (f"tile memory_space = {tspace} does not match the memory space {space} of the "
                       "base memref")
        if nstrides == 2:
            order = tv.attr.order if tv.attr else (1, 0)
            inner = 1 if order == (1, 0) else 0  # the contiguous dimension of the base matrix
            strides = [_constant_index(v) if isinstance(v, ir.Value) else v
                       for v in self.mixed("strides", "static_strides")]
            if strides[inner] not in (1, None):
                yield (f"the stride of the contiguous dimension {inner} must be 1 for order = {list(order)} "
                       f"(RFC: 'the innermost dimension of the base matrix must be contiguous'), "
                       f"got strides {', '.join('?' if v is None else str(v) for v in strides)}")


@xetile.op
class LoadTileOp(Op):
    name = "load_tile"
    summary = "Load a tile into a 2D (or blocked 4D) vector; out-of-bounds elements read as padding"
    tile = Operand(Tile)
    padding = Attribute(Raw(), optional=True, doc="value for out-of-bounds elements (default 0)",
                        number_type_of="tile")
    transpose = Attribute(IntList(rank=2), optional=True)
    l1_hint, l2_hint, l3_hint = _hint(), _hint(), _hint()
    result = Result(AnyVector, derive=derived(_loaded_type, "tile", "transpose"))
    format = "$tile attr-dict `:` type($tile) `->` type($result)"

    def verify(self):
        yield from _tile_errors(self.tile, "source")
        perm = self.transpose
        if perm is not None and perm not in ((1, 0), (0, 1)):
            yield f"transpose must be a permutation of [0, 1], got {list(perm)}"
            perm = None
        tv = our_type(self.tile)
        if tv.attr and tv.attr.scattered:
            yield "load_tile cannot load a scattered tile; use load_gather"
        yield from _check_vector_vs_tile(self.result, self.tile, "result vector", perm)
        yield from padding_errors(self.padding, tv.element_type)


@xetile.op
class StoreTileOp(Op):
    name = "store_tile"
    summary = "Store a vector to a tile; out-of-bounds elements are dropped"
    value = Operand(AnyVector)
    tile = Operand(Tile)
    l1_hint, l2_hint, l3_hint = _hint(), _hint(), _hint()
    format = "$value `,` $tile attr-dict `:` type($value) `,` type($tile)"

    def verify(self):
        yield from _tile_errors(self.tile, "destination")
        yield from _check_vector_vs_tile(self.value, self.tile, "stored vector")


@xetile.op
class PrefetchTileOp(Op):
    name = "prefetch_tile"
    summary = "Prefetch a tile into cache"
    tile = Operand(Tile)
    locality = Attribute(Int("i32"), optional=True, doc="0 (none) to 3 (keep in cache)")
    l1_hint, l2_hint, l3_hint = _hint(), _hint(), _hint()
    format = "$tile attr-dict `:` type($tile)"

    def verify(self):
        yield from _tile_errors(self.tile, "prefetched")
        if self.locality is not None and not 0 <= self.locality <= 3:
            yield f"locality must be in [0, 3] as for memref.prefetch, got {self.locality}"


@xetile.op
class UpdateTileOffsetOp(Op):
    name = "update_tile_offset"
    summary = "Move a tile by relative offsets (in elements), a scattered tile by per-element deltas"
    tile = Operand(Tile)
    offsets = Operand(IndexOrIndexVector, variadic=True,
                      doc="index offsets; for a scattered tile one vector<..xindex> of deltas")
    static_offsets = Attribute(IntList())
    result = Result(Tile, same_as="tile")
    format = ("$tile `,` custom<IndexList>($offsets, $static_offsets) attr-dict `:` type($tile)",
              # IMEX's scattered form: %t, %deltas : !xetile.tile<..>, vector<..xindex>
              "$tile `,` $offsets attr-dict `:` type($tile) `,` type($offsets)")

    @classmethod
    def format_for(cls, g):
        return 1 if len(g.operands) == 2 and g.attrs.get("static_offsets", "array<i64>") == "array<i64>" else 0

    def deltas(self):
        """The per-element delta vector of the scattered form, or None."""
        return self.op.operands[1] if not self.static_offsets and len(self.op.operands) == 2 else None

    def verify(self):
        tv = our_type(self.tile)
        scattered = bool(tv.attr and tv.attr.scattered)
        if not self.static_offsets and len(self.op.operands) == 2:
            vi = vector_info(self.op.operands[1])
            if not scattered:
                yield "a vector of offsets moves a scattered tile only; give [offsets] for this tile"
            elif vi is None or vi[1] != "index" or vi[0] != tv.shape:
                yield f"the offsets vector must be vector<{_shape_str(tv.shape)}xindex> for this tile"
            if self.tile.type != self.result.type:
                yield "the result tile type must equal the source tile type"
            return
        if any(str(v.type) != "index" for v in self.op.operands[1:]):
            yield "offsets in [...] must be index values"
        if len(self.static_offsets) != len(tv.shape):
            yield f"update_tile_offset needs {len(tv.shape)} offsets, got {len(self.static_offsets)}"
        if self.tile.type != self.result.type:
            yield "the result tile type must equal the source tile type"


def _check_map_shape(shape, wgm, what):
    return [f"{what}: {e}" for e in wg_map_rule_errors(shape, wgm, "vector")] if wgm is not None else []


@xetile.op
class TileMmaOp(Op):
    name = "tile_mma"
    summary = "Matrix multiply-accumulate on 2D (or blocked 4D) vectors: C + A x B"
    a = Operand(AnyVector)
    b = Operand(AnyVector)
    c = Operand(AnyVector, optional=True)
    wg_map_a = Attribute(WG_MAP, optional=True)
    wg_map_b = Attribute(WG_MAP, optional=True)
    wg_map_c = Attribute(WG_MAP, optional=True)
    result = Result(AnyVector, same_as="c")
    format = "$a `,` $b (`,` $c)? attr-dict `:` type($a) `,` type($b) (`,` type($c))? `->` type($result)"

    def verify(self):
        (sa, ea), (sb, eb), (sr, er) = vector_info(self.a), vector_info(self.b), vector_info(self.result)
        if ea != eb:
            yield f"A and B element types must match, got {ea} and {eb}"
        if is_float(ea) != is_float(er):
            yield f"result element type {er} does not suit {ea} inputs (float inputs accumulate in float, ints in ints)"
        if len(sa) == 2 and len(sb) == 2 and len(sr) == 2:
            m, k = sa
            k2, n = sb
            if k != k2:
                yield f"A is {_shape_str(sa)} and B is {_shape_str(sb)}: the K dimensions {k} and {k2} differ"
            if sr != (m, n):
                yield f"result shape {_shape_str(sr)} must be {m}x{n} for A {_shape_str(sa)} and B {_shape_str(sb)}"
        elif len(sa) == 4 and len(sb) == 4 and len(sr) == 4:
            if sa[1] != sb[0] or sa[3] != sb[2]:
                yield (f"blocked A {_shape_str(sa)} and B {_shape_str(sb)}: the K blocks must agree "
                       "(A dims 1 and 3 vs B dims 0 and 2)")
            if sr != (sa[0], sb[1], sa[2], sb[3]):
                yield f"blocked result shape {_shape_str(sr)} must be {_shape_str((sa[0], sb[1], sa[2], sb[3]))}"
        else:
            yield "tile_mma operands must be all 2D or all blocked 4D vectors"
        if self.c is not None and self.c.type != self.result.type:
            yield "the accumulator C must have the result type"
        ma, mb, mc = self.wg_map_a, self.wg_map_b, self.wg_map_c
        if len(sr) == 2:
            yield from _check_map_shape(sr, mc, "wg_map_c")
            yield from _check_map_shape(sa, ma, "wg_map_a")
            yield from _check_map_shape(sb, mb, "wg_map_b")
        if mc is not None:
            for nm, mp in (("wg_map_a", ma), ("wg_map_b", mb)):
                if mp is not None and mp.sg_layout != mc.sg_layout:
                    # IMEX accepted other layouts here (its wg-to-sg redistributes B); the RFC does not
                    yield ("warning", f"{nm}.sg_layout {list(mp.sg_layout)} differs from wg_map_c.sg_layout "
                                      f"{list(mc.sg_layout)} (RFC: 'They must have the same sg_layout'); "
                                      "xetile-wg-to-sg needs them equal")
            if ma is not None and ma.sg_data[0] != mc.sg_data[0]:
                yield f"wg_map_a.sg_data[0] = {ma.sg_data[0]} must equal wg_map_c.sg_data[0] = {mc.sg_data[0]} (M)"
            if mb is not None and mb.sg_data[1] != mc.sg_data[1]:
                yield f"wg_map_b.sg_data[1] = {mb.sg_data[1]} must equal wg_map_c.sg_data[1] = {mc.sg_data[1]} (N)"
        if ma is not None and mb is not None and ma.sg_data[1] != mb.sg_data[0]:
            yield f"wg_map_a.sg_data[1] = {ma.sg_data[1]} must equal wg_map_b.sg_data[0] = {mb.sg_data[0]} (K)"


@xetile.op
class AtomicRmwTileOp(Op):
    name = "atomic_rmw_tile"
    summary = "Atomically read-modify-write a tile"
    kind = Attribute(Enum(ATOMIC_KINDS, name="atomic kind"))
    value = Operand(AnyVector)
    tile = Operand(Tile)
    result = Result(AnyVector, same_as="value")
    format = "`<` $kind `>` $value `,` $tile attr-dict `:` type($value) `,` type($tile) `->` type($result)"

    def verify(self):
        yield from _check_vector_vs_tile(self.value, self.tile, "value")
        if self.value.type != self.result.type:
            yield "the result type must equal the value type"
        elt = vector_info(self.value)[1]
        if self.kind.endswith("f") and not is_float(elt):
            yield f"atomic kind {self.kind} needs float elements, got {elt}"


def _wg(attr_name="wg_map", doc="work-group map of the result"):
    return Attribute(WG_MAP, optional=True, doc=doc)


def _transposed_type(vector, perm):
    """The source vector with its two dimensions permuted."""
    s, e = vector_info(vector)
    return _vector_type([s[p] for p in perm], e) if len(s) == 2 and sorted(perm) == [0, 1] else None


@xetile.op
class TileTransposeOp(Op):
    name = "tile_transpose"
    summary = "Transpose a 2D vector"
    vector = Operand(AnyVector)
    permutation = Attribute(IntList(rank=2))
    wg_map = _wg()
    result = Result(AnyVector, derive=derived(_transposed_type, "vector", "permutation"))
    format = "$vector $permutation attr-dict `:` type($vector) `->` type($result)"

    def verify(self):
        (s, e), (r, er) = vector_info(self.vector), vector_info(self.result)
        if len(s) != 2:
            yield f"tile_transpose works on 2D vectors only (RFC), got rank {len(s)}"
            return
        if sorted(self.permutation) != [0, 1]:
            yield f"permutation must be a permutation of [0, 1], got {list(self.permutation)}"
            return
        expect = tuple(s[p] for p in self.permutation)
        if r != expect or e != er:
            yield f"result must be vector<{_shape_str(expect)}x{e}> (the permuted source), got {_shape_str(r)}x{er}"
        yield from _check_map_shape(r, self.wg_map, "wg_map")


def _reduced_type(vector, dims, size):
    """The source with each reduced dimension kept as 1, or (reduction_size > 0) one dimension
    divided by it."""
    s, e = vector_info(vector)
    if any(not 0 <= d < len(s) for d in dims):
        return None
    if size:
        if len(dims) != 1 or size < 0 or s[dims[0]] % size:
            return None
        return _vector_type([n // size if i == dims[0] else n for i, n in enumerate(s)], e)
    return _vector_type([1 if i in dims else n for i, n in enumerate(s)], e)


def _whole_blocked_dims(dims) -> bool:
    """Dims of a blocked 4D vector [R/bm, C/bn, bm, bn] that name whole 2D dimensions: d with d + 2."""
    return set(dims) == {d % 2 for d in dims} | {d % 2 + 2 for d in dims}


@xetile.op
class TileReduceOp(Op):
    name = "tile_reduce"
    summary = "Reduce a 2D (or blocked 4D) vector along dimensions, keeping them with size 1"
    kind = Attribute(Enum(REDUCTION_KINDS, name="reduction kind"))
    vector = Operand(AnyVector)
    reduction_dims = Attribute(IntList())
    reduction_size = Attribute(Int("i64"), optional=True,
                               doc="IMEX: the row-major source seen as [size, numel(result)] (dim 0) or "
                                   "[numel(result), size] (dim 1) and reduced along that dimension")
    wg_map = _wg()
    result = Result(AnyVector, derive=derived(_reduced_type, "vector", "reduction_dims", "reduction_size"))
    format = "`<` $kind `>` $vector $reduction_dims attr-dict `:` type($vector) `->` type($result)"

    def verify(self):
        (s, e), (r, er) = vector_info(self.vector), vector_info(self.result)
        dims = self.reduction_dims
        if not dims or any(d < 0 or d >= len(s) for d in dims) or len(set(dims)) != len(dims):
            yield f"reduction_dims {list(dims)} must be distinct dimensions of the rank-{len(s)} source"
            return
        size = self.reduction_size or 0
        if size > 0:
            if len(dims) != 1 or len(s) != 2:
                yield "reduction_size needs a 2D source and a single reduction dimension"
                return
            d = dims[0]
            expect = tuple(n // size if i == d else n for i, n in enumerate(s))
            if s[d] % size:
                yield f"reduction_size {size} must divide the reduced dimension's size {s[d]}"
            elif r != expect or e != er:
                yield (f"result must be vector<{_shape_str(expect)}x{e}> (dimension {d} reduced by "
                       f"reduction_size {size}), got {_shape_str(r)}x{er}")
            return
        if size < 0:
            yield f"reduction_size must be positive (or 0: whole dimensions), got {size}"
        if len(s) == 4 and not _whole_blocked_dims(dims):
            yield (f"reduction_dims {list(dims)} of a blocked 4D vector must reduce whole dimensions: d together "
                   "with d + 2 (e.g. [1, 3] for the rows' elements, [0, 2] for the columns')")
            return
        expect = tuple(1 if i in dims else n for i, n in enumerate(s))
        if r != expect or e != er:
            yield f"result must be vector<{_shape_str(expect)}x{e}> (reduced dims kept as 1), got {_shape_str(r)}x{er}"
        allowed = FLOAT_REDUCTIONS if is_float(e) else INT_REDUCTIONS
        if self.kind not in allowed:
            yield f"reduction kind {self.kind} is not valid for {e} elements; use one of {', '.join(sorted(allowed))}"
        yield from _check_map_shape(r, self.wg_map, "wg_map")


@xetile.op
class TileBroadcastOp(Op):
    name = "tile_broadcast"
    summary = "Broadcast a vector along dimensions of size 1"
    vector = Operand(AnyVector)
    broadcast_dims = Attribute(IntList())
    wg_map = _wg()
    result = Result(AnyVector)
    format = "$vector $broadcast_dims attr-dict `:` type($vector) `->` type($result)"

    def verify(self):
        (s, e), (r, er) = vector_info(self.vector), vector_info(self.result)
        if len(s) != len(r) or e != er:
            yield f"source {_shape_str(s)}x{e} and result {_shape_str(r)}x{er} must have the same rank and element type"
            return
        dims = self.broadcast_dims
        if len(s) == 4 and not _whole_blocked_dims(dims):
            yield (f"broadcast_dims {list(dims)} of a blocked 4D vector must broadcast whole dimensions: d "
                   "together with d + 2 (e.g. [0, 2] for a row, [1, 3] for a column)")
            return
        for d in range(len(s)):
            if d in self.broadcast_dims:
                if s[d] != 1:
                    yield f"broadcast dimension {d} must have size 1 in the source, got {s[d]}"
            elif s[d] != r[d]:
                yield f"dimension {d} is not broadcast, so source size {s[d]} must equal result size {r[d]}"
        yield from _check_map_shape(r, self.wg_map, "wg_map")


def _packed(shape2, ib):
    return (shape2[0] // ib[0], shape2[1] // ib[1], ib[0], ib[1])


def _packed_type(vector, ib):
    """[M/bm, N/bn, bm, bn] of a 2D source with inner_blocks [bm, bn] that divide it."""
    s, e = vector_info(vector)
    return _vector_type(_packed(s, ib), e) if len(s) == 2 and not (s[0] % ib[0] or s[1] % ib[1]) else None


def _unpacked_type(vector):
    """[d0 * d2, d1 * d3] of a 4D source."""
    s, e = vector_info(vector)
    return _vector_type((s[0] * s[2], s[1] * s[3]), e) if len(s) == 4 else None


@xetile.op
class TilePackOp(Op):
    name = "tile_pack"
    summary = "Block a 2D vector into the 4D form [M/bm, N/bn, bm, bn]"
    vector = Operand(AnyVector)
    inner_blocks = Attribute(IntList(rank=2))
    result = Result(AnyVector, derive=derived(_packed_type, "vector", "inner_blocks"))
    format = "$vector attr-dict `:` type($vector) `->` type($result)"

    def verify(self):
        (s, e), (r, er) = vector_info(self.vector), vector_info(self.result)
        ib = self.inner_blocks
        if len(s) != 2:
            yield f"tile_pack source must be 2D, got rank {len(s)}"
        elif s[0] % ib[0] or s[1] % ib[1]:
            yield f"inner_blocks {list(ib)} must divide the source shape {_shape_str(s)}"
        elif r != _packed(s, ib) or e != er:
            yield (f"result must be vector<{_shape_str(_packed(s, ib))}x{e}> "
                   "(out_dim = [in0/ib0, in1/ib1, ib0, ib1])")


@xetile.op
class TileUnpackOp(Op):
    name = "tile_unpack"
    summary = "Unblock a 4D vector back to 2D"
    vector = Operand(AnyVector)
    inner_blocks = Attribute(IntList(rank=2))
    result = Result(AnyVector, derive=derived(_unpacked_type, "vector"))
    format = "$vector attr-dict `:` type($vector) `->` type($result)"

    def verify(self):
        (s, e), (r, er) = vector_info(self.vector), vector_info(self.result)
        ib = self.inner_blocks
        if len(s) != 4 or len(r) != 2:
            yield "tile_unpack turns a 4D vector into a 2D vector"
        elif (s[2], s[3]) != tuple(ib) or r != (s[0] * s[2], s[1] * s[3]) or e != er:
            yield (f"source {_shape_str(s)} with inner_blocks {list(ib)} unpacks to "
                   f"vector<{s[0] * s[2]}x{s[1] * s[3]}x{e}>, got {_shape_str(r)}x{er}")


@xetile.op
class TileConvLayoutOp(Op):
    name = "tile_conv_layout"
    summary = "Redistribute a work-group vector to another wg_map"
    vector = Operand(AnyVector)
    wg_map = Attribute(WG_MAP)
    wg_map_source = Attribute(WG_MAP, optional=True)
    result = Result(AnyVector, same_as="vector")
    format = "$vector attr-dict `:` type($vector) `->` type($result)"

    def verify(self):
        if self.vector.type != self.result.type:
            yield "tile_conv_layout changes the layout only: result type must equal source type"
        s = vector_info(self.result)[0]
        yield from _check_map_shape(s, self.wg_map, "wg_map")
        yield from _check_map_shape(s, self.wg_map_source, "wg_map_source")


def _scattered_checks(tile, mask, vec):
    tv = our_type(tile)
    if not (tv.attr and tv.attr.scattered):
        yield "the tile must be scattered (created by init_tile %addr, %offsets)"
    mi = vector_info(mask)
    if mi is None or mi[1] != "i1" or mi[0] != tv.shape:
        yield f"mask must be vector<{_shape_str(tv.shape)}xi1>"
    vi = vector_info(vec)
    if vi[0] != tv.shape or vi[1] != tv.element_type:
        yield f"vector must be vector<{_shape_str(tv.shape)}x{tv.element_type}> to match the tile"


@xetile.op
class LoadGatherOp(Op):
    name = "load_gather"
    summary = "Load a scattered tile under a mask"
    tile = Operand(Tile)
    mask = Operand(AnyVector)
    padding = Attribute(Raw(), optional=True, number_type_of="tile")
    l1_hint, l2_hint, l3_hint = _hint(), _hint(), _hint()
    result = Result(AnyVector, derive=derived(_loaded_type, "tile"))
    format = "$tile `,` $mask attr-dict `:` type($tile) `,` type($mask) `->` type($result)"

    def verify(self):
        yield from _scattered_checks(self.tile, self.mask, self.result)


@xetile.op
class StoreScatterOp(Op):
    name = "store_scatter"
    summary = "Store a vector to a scattered tile under a mask"
    value = Operand(AnyVector)
    tile = Operand(Tile)
    mask = Operand(AnyVector)
    l1_hint, l2_hint, l3_hint = _hint(), _hint(), _hint()
    format = "$value `,` $tile `,` $mask attr-dict `:` type($value) `,` type($tile) `,` type($mask)"

    def verify(self):
        yield from _scattered_checks(self.tile, self.mask, self.value)

