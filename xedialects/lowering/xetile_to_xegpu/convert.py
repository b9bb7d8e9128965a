"""Pass `convert-xetile-to-xegpu`: blocked subgroup XeTile (pipeline stage 3) to VC-mode XeGPU
(stage 4), one XeGPU op per hardware instruction.

* A tile becomes one `create_nd_tdesc` per hardware block ("nd" tiles) or, when the architecture
  cannot address it with 2D block messages (surface pitch/width/alignment, shared local memory,
  no legal block size), a pair of index values (row, column of its origin) from which every
  access builds masked scattered descriptors ("scatter" tiles). The hardware block is the tile's
  inner block, or the largest divisor of it that is legal for every access the tile sees
  (load, VNNI load, transposed load, store, prefetch) -- never an illegal XeGPU block.
* A blocked 4D vector becomes the row-major list of its 2D blocks (the 1:N `Rebuilder` value
  mapping, scf.for iter_args included). Blocks that feed operand B of `tile_mma` with a sub-32-bit
  type are VNNI blocks `<K/f x N x f>` (loaded with `vnni_axis = 0`); any other consumer converts
  in registers when it needs the other form.
* `tile_unpack`/`tile_pack` only re-block: slices (`vector.extract_strided_slice`) or assemblies
  (`vector.insert_strided_slice`) of the blocks, nothing when the blocks already agree.
* `tile_mma` becomes the grid of `xegpu.dpas` (M <= max repeat count, N = exec size, K per type,
  from the architecture table), chaining the accumulator over K; without C the first DPAS of each
  chain has no accumulator. Unblocked (stage 2) tiles and 2D tile_mma are accepted too: tiles then
  use the largest legal hardware blocks and tile_mma DPAS-sized blocks.
* Element-wise arith/math ops run per block; scalars broadcast per block; `tile_broadcast` of a row
  or column vector becomes one `vector.broadcast` per block.

Modules: this one registers the pass and drives the conversion of each function (the rule table,
the 1:N rebuild, loop-carried grids); `tile_plans` analyses tiles (nd or scatter mode, hardware
blocks); `converter` holds the per-function state and the block / grid helpers; the rules are in
`tile_descriptors`, `tile_load_store`, `scattered`, `tile_mma` and `vector_ops`.
"""
from __future__ import annotations

import functools

from mlir import ir

from ...arch import XeArch
from ...passes.utils.ir_walk import functions as _functions, walk as _walk_ops
from ...passes.utils.rebuild import Rebuilder, RewriteError
from . import imex_forms, scattered, tile_descriptors, tile_load_store, tile_mma, vector_ops
from .converter import Converter
from .ir_helpers import ConversionError, is_vector
from .tile_plans import analyse

# op name -> rule(cv, rb, op): the new values of each result (lists of blocks), or None to keep the op
RULES = {
    "xetile.init_tile": tile_descriptors.lower_init_tile,
    "xetile.update_tile_offset": imex_forms.lower_update_tile_offset,  # + IMEX scattered deltas
    "xetile.load_tile": tile_load_store.lower_load_tile,
    "xetile.store_tile": tile_load_store.lower_store_tile,
    "xetile.prefetch_tile": tile_load_store.lower_prefetch_tile,
    "xetile.tile_unpack": vector_ops.lower_tile_unpack,
    "xetile.tile_pack": vector_ops.lower_tile_pack,
    "xetile.tile_mma": tile_mma.lower_tile_mma,
    "xetile.atomic_rmw_tile": imex_forms.lower_atomic_rmw_tile,  # + IMEX scattered tiles
    "xetile.load_gather": scattered.lower_load_gather,
    "xetile.store_scatter": scattered.lower_store_scatter,
    "xetile.tile_transpose": vector_ops.lower_tile_transpose,
    "xetile.tile_broadcast": vector_ops.lower_tile_broadcast,
    "xetile.tile_reduce": vector_ops.lower_tile_reduce,
}


class _GridRebuilder(Rebuilder):
    """The 1:N rebuild of one function: the RULES, element-wise ops per block (vector_ops), and
    loop-carried grids whose yielded blocks follow the block shape and form of the init."""

    def __init__(self, cv: Converter):
        super().__init__({name: functools.partial(rule, cv) for name, rule in RULES.items()})
        self.cv = cv
        self.specs: list = []

    def process_op(self, op):
        h = self.handlers.get(op.name)
        if h is None and op.name not in ("scf.for", "scf.yield"):
            with ir.InsertionPoint(op), op.location:
                res = vector_ops.lower_elementwise(self.cv, self, op)
            if res is not None:
                for old, new in zip(op.results, res):
                    self.set(old, new)
                return True
        return super().process_op(op)

    def _for(self, op):
        inits = list(op.operands)[3:]
        spec = []
        with ir.InsertionPoint(op), op.location:
            for v in inits:
                if is_vector(v.type) and not self.is_changed(v):
                    blocks = vector_ops.splat_accumulator(self.cv, v)
                    if blocks is not None:
                        self.set(v, blocks)
                if is_vector(v.type) and self.is_changed(v):
                    g = self.cv.grid_of(self, v)
                    spec.append((g.block, g.vnni))
                else:
                    spec.append(None)
        self.specs.append(spec)
        try:
            return super()._for(op)
        finally:
            self.specs.pop()

    def _yield(self, op):
        parent = op.parent
        parent = parent.operation if parent is not None and hasattr(parent, "operation") else parent
        if self.specs and parent is not None and parent.name == "scf.for":
            spec = self.specs[-1]
            with ir.InsertionPoint(op), op.location:
                for v, sp in zip(op.operands, spec):
                    if sp is not None:
                        g = self.cv.grid_of(self, v)
                        if (g.block, g.vnni) != sp:
                            self.set(v, self.cv.reblock(g, sp[0][0], sp[0][1], sp[1]).blocks)
        return super()._yield(op)


def convert_function(func, arch: XeArch, ctx, options=None) -> bool:
    """Convert one function (returns False after reporting errors on `ctx`)."""
    cv = Converter(func, arch, ctx, options)
    if not cv.has_xetile():
        return True
    if not analyse(cv):
        for o, msg in cv.errors:
            ctx.error(o, msg)
        return False
    rb = _GridRebuilder(cv)
    try:
        for region in func.regions:
            for block in region.blocks:
                rb.process_block(block)
    except (ConversionError, RewriteError) as e:
        ctx.error(e.op if e.op is not None else func, e.message)
        return False
    left = [o for o in _walk_ops(func) if o.name.startswith("xetile.")]
    if left:
        ctx.error(left[0], f"'{left[0].name}' was not converted to XeGPU")
        return False
    return True


def convert_module(module_op, ctx, arch: XeArch, options=None) -> bool:
    """Convert every function of `module_op` for `arch` (resolved by the pass; returns False after
    reporting errors on `ctx`)."""
    ok = True
    for func in _functions(module_op):
        ok = convert_function(func, arch, ctx, options) and ok
    return ok


# ------------------------------------------------------------------------------------------------
# registration

from ...passes.registry import register_pass, register_pipeline  # noqa: E402
from ...passes.utils.arch_option import arch_option, pass_arch, record_told_arch  # noqa: E402


@register_pass("convert-xetile-to-xegpu",
               "Lower blocked subgroup XeTile to VC-mode XeGPU (one op per hardware instruction)",
               options=[arch_option()])
def convert_xetile_to_xegpu(module_op, options, ctx):
    arch = pass_arch(module_op, options, ctx)
    if arch is None:
        return False
    record_told_arch(module_op, options, arch)
    return convert_module(module_op, ctx, arch, options)


# pipeline.md stages 0-4 (tensor programs are bufferized first, a no-op on memrefs); the other
# passes are resolved by name when the pipeline runs. XeTile input (work-group or subgroup level,
# IMEX's vector ops included) passes the linalg stages untouched (docs/imex-xetile.md)
register_pipeline(
    "xe-gemm-to-xegpu",
    "linalg.matmul (tensors or memrefs) or XeTile kernels to VC-mode XeGPU (docs/pipeline.md stages 0-4: "
    "work-group XeTile, subgroup XeTile, canonical row-major tiles, blocked XeTile sized to the hardware, "
    "XeGPU)",
    "builtin.module(xe-bufferize, convert-linalg-to-xetile, xetile-canonicalization{vector-ops-only=true}, "
    "xetile-wg-to-sg, xetile-canonicalization, xetile-blocking, convert-xetile-to-xegpu, canonicalize, cse)")


