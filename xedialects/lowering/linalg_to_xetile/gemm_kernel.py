"""Write the work-group XeTile GEMM kernel for a matmul and its plan (pipeline stage 1).

The kernel follows rfc-xetile.md appendix 2.1: work-group tiles carrying `wg_map`, a K loop with
`update_tile_offset`, cooperative prefetch tiles with their own `wg_map` running `prefetch_distance`
K steps ahead, `tile_mma` with the derived A/B/C maps, and a store (or, for split-K, an atomic
add) of the C tile. Transposed operands are read through a `memref.transpose` view with
`order = [0, 1]` tiles; unaligned sizes rely on the tiles' out-of-bounds semantics. The kernel
arguments, the accumulator start (C, or a fused fill value) and the epilogue (fused element-wise
ops and the stores) come from `gemm_epilogue.KernelIO`; every vector op carries C's `wg_map`. The
gpu.func carries the plan's register-file mode as `xe.grf_mode` ("default" | "large"), which
convert-xegpu-to-spirv and xe-kernel-report read (passes/analysis/registers.py).
"""
from __future__ import annotations

import re

from ...passes.analysis.registers import GRF_MODE_ATTR
from . import local_kslice
from .dequant_kernel import BTiles, DequantB
from .gemm_epilogue import KernelEnv, KernelIO
from .linalg_match import MatmulSpec
from .wg_map_rule import map_text


def _tile(shape, elt, layout=None, data=None, order=None):
    fields = []
    if order is not None:
        fields.append(f"order = [{order[0]}, {order[1]}]")
    if layout is not None:
        fields.append(f"wg_map = <sg_layout = [{layout[0]}, {layout[1]}], sg_data = [{data[0]}, {data[1]}]>")
    attr = f", #xetile.tile_attr<{', '.join(fields)}>" if fields else ""
    return f"!xetile.tile<{shape[0]}x{shape[1]}x{elt}{attr}>"


def _memref_2d(spec_dims, elt, strided=None):
    dims = "x".join("?" if d is None else str(d) for d in spec_dims)
    lay = f", {strided}" if strided else ""
    return f"memref<{dims}x{elt}{lay}>"


def acc_type(spec: MatmulSpec) -> str:
    """Accumulation type: f32 for float inputs (also for f16/bf16 results), i32 for i8."""
    return "i32" if spec.a_type == "i8" else "f32"


def _is_dynamic(memref_t: str) -> bool:
    return "?" in memref_t.split(",")[0]


def kernel_text(spec: MatmulSpec, plan, kernel_name: str, io: KernelIO | None = None) -> str:
    """The body of one gpu.func (readable syntax) for `spec` under `plan`. `io` gives the kernel
    arguments and the fused prologue/epilogue (default: A, B, C and a plain store of C)."""
    io = io if io is not None else KernelIO(spec)
    wm, wn = plan.wg_tile
    ks = plan.k_step
    (la, da), (lb, db), (lc, dc) = plan.a_wg_map, plan.b_wg_map, plan.c_wg_map
    (lpa, dpa), (lpb, dpb) = plan.a_prefetch_map, plan.b_prefetch_map
    dist = plan.prefetch_distance
    slices = max(1, getattr(plan, "k_slices", 1) or 1)
    lks = max(1, getattr(plan, "local_k_slices", 1) or 1)
    if lks > 1:  # the slice groups are the rows-replicas of every map (local_kslice.py)
        rep = local_kslice.replicated
        (la, da), (lb, db), (lc, dc) = rep(plan.a_wg_map, lks), rep(plan.b_wg_map, lks), rep(plan.c_wg_map, lks)
        (lpa, dpa), (lpb, dpb) = rep(plan.a_prefetch_map, lks), rep(plan.b_prefetch_map, lks)
    if slices > 1 and io.fusion.fused:
        raise ValueError("split-K kernels cannot carry a fused prologue/epilogue")
    at, bt, ct = spec.a_type, spec.b_type, spec.c_type
    dq = io.fusion.dequant
    lt = "i8" if dq is not None else bt     # what B's tiles hold (the weights' bytes when dequantized)
    acc = acc_type(spec)
    batched = spec.batch is not None
    c_wg = map_text((lc, dc))
    L = []
    w = L.append
    types = dict(io.params)
    ta, tb = types["%A"], types["%B"]
    tc = types.get("%C")
    sig = ", ".join(f"{n}: {t}" for n, t in io.params)
    w(f"  gpu.func @{kernel_name}({sig}) kernel attributes "
      f"{{known_block_size = array<i32: {plan.num_subgroups * 16}, 1, 1>, {GRF_MODE_ATTR} = \"{plan.grf_mode}\", "
      f"xe.subgroup_size = 16 : i32}} {{")
    w("    %c0 = arith.constant 0 : index")
    w("    %c1 = arith.constant 1 : index")
    w("    %c2 = arith.constant 2 : index")
    w(f"    %cks = arith.constant {ks} : index")
    w(f"    %cwm = arith.constant {wm} : index")
    w(f"    %cwn = arith.constant {wn} : index")
    w("    %bx = gpu.block_id x")
    w("    %by = gpu.block_id y")
    w("    %bz = gpu.block_id z")
    w("    %m = arith.muli %by, %cwm : index")
    w("    %n = arith.muli %bx, %cwn : index")
    # 2D views of the operands (batch slices over grid z, k-slices interleaved)
    views = {"A": ("%A", ta), "B": ("%B", tb), "C": ("%C", tc)}
    if batched:
        if tc is None:
            raise ValueError("batched GEMM kernels take C as an argument")
        if slices > 1:
            w(f"    %cbs = arith.constant {slices} : index")
            w("    %batch = arith.divui %bz, %cbs : index")
        else:
            w("    %batch = arith.addi %bz, %c0 : index")
        for name, t in (("A", ta), ("B", tb), ("C", tc)):
            dims = _dims_of(t)
            rows, cols = dims[1], dims[2]
            sizes = ", ".join("%" + f"{name}_d{i}" if d is None else str(d) for i, d in enumerate(dims[1:], 1))
            for i, d in enumerate(dims):
                if d is None:
                    w(f"    %{name}_d{i} = memref.dim %{name}, %c{i} : {t}")
            row_stride = "?" if cols is None else str(cols)
            sub_t = (f"memref<{'?' if rows is None else rows}x{'?' if cols is None else cols}x{_elt_of(t)}, "
                     f"strided<[{row_stride}, 1], offset: ?>>")
            w(f"    %{name}2 = memref.subview %{name}[%batch, 0, 0] [1, {sizes}] [1, 1, 1] : {t} to {sub_t}")
            views[name] = (f"%{name}2", sub_t)
    # logical sizes (M and N from A and B: C may not be a kernel argument)
    a_v, a_t = views["A"]
    b_v, b_t = views["B"]
    c_v, c_t = views["C"]
    for nm, val, view, vt, dim in (("M", spec.m, a_v, a_t, 1 if spec.transpose_a else 0),
                                   ("N", spec.n, b_v, b_t, 0 if spec.transpose_b else 1),
                                   ("K", spec.k, a_v, a_t, 0 if spec.transpose_a else 1)):
        if val is None:
            w(f"    %{nm} = memref.dim {view}, %c{dim} : {vt}")
        else:
            w(f"    %{nm} = arith.constant {val} : index")
    # transposed operands: a column-major view with order = [0, 1] tiles
    a_order = b_order = None
    a_dyn, b_dyn = _is_dynamic(a_t), _is_dynamic(b_t)
    if spec.transpose_a:
        a_order = (0, 1)
        mt = _transposed_type(a_t, spec)
        w(f"    %At = memref.transpose {a_v} (d0, d1) -> (d1, d0) : {a_t} to {mt}")
        a_v, a_t = "%At", mt
    weights = (b_v, b_t)     # the B argument itself (i4 N x K weights are read as their rows of bytes)
    if spec.transpose_b and not (dq is not None and dq.wtype == "i4"):
        b_order = (0, 1)
        mt = _transposed_type(b_t, spec)
        w(f"    %Bt = memref.transpose {b_v} (d0, d1) -> (d1, d0) : {b_t} to {mt}")
        b_v, b_t = "%Bt", mt
    # K range of this work-group (split-K slices over grid z)
    w(f"    %ksm1 = arith.constant {ks - 1} : index")
    w("    %kp = arith.addi %K, %ksm1 : index")
    w("    %ksteps = arith.divui %kp, %cks : index")
    if slices > 1:
        w(f"    %cslices = arith.constant {slices} : index")
        w("    %kslice = arith.remui %bz, %cslices : index")
        w("    %spl = arith.addi %ksteps, %cslices : index")
        w("    %spl1 = arith.subi %spl, %c1 : index")
        w("    %steps_per = arith.divui %spl1, %cslices : index")
        w("    %kbeg_steps = arith.muli %kslice, %steps_per : index")
        w("    %kend_raw = arith.addi %kbeg_steps, %steps_per : index")
        w("    %kend_steps = arith.minui %kend_raw, %ksteps : index")
        w("    %kbeg = arith.muli %kbeg_steps, %cks : index")
        w("    %kend = arith.muli %kend_steps, %cks : index")
    else:
        w("    %kbeg = arith.addi %c0, %c0 : index")
        w("    %kend = arith.muli %ksteps, %cks : index")
    kb, _ke, lo, hi = local_kslice.emit_slice_range(plan, w) if lks > 1 else ("%kbeg", "%kend", "%kbeg", "%kend")

    def init(var, view, view_t, off, shape, elt, layout, data, order, shp=""):
        w(f"    {var} = xetile.init_tile {view}[{off[0]}, {off[1]}]{shp} : {view_t} -> "
          f"{_tile(shape, elt, layout, data, order)}")
        return _tile(shape, elt, layout, data, order)

    # shape and strides of dynamic-shape bases: the logical (row index, column index) view;
    # transposed operands are column-major views, so their strides are [1, leading dimension]
    a_shp = (", [%M, %K], [%c1, %M]" if spec.transpose_a else ", [%M, %K], [%K, %c1]") if a_dyn else ""
    b_shp = (", [%K, %N], [%c1, %K]" if spec.transpose_b else ", [%K, %N], [%N, %c1]") if b_dyn else ""
    c_shp = ", [%M, %N], [%N, %c1]" if io.has_c and _is_dynamic(c_t) else ""
    a_tile_t = init("%a0", a_v, a_t, ("%m", kb), (wm, ks), at, la, da, a_order, a_shp)
    dqb = DequantB(dq, io.names, ks, wn, (lb, db), w) if dq is not None else None
    # the B tiles (dequantized: the weights' tiles; i4 weights their bytes)
    bd = BTiles(b_v, b_t, (kb, "%n"), (ks, wn), (lb, db), (lpb, dpb), b_order, "[%cks, %c0]")
    bd = dqb.b_tiles(bd, weights) if dqb else bd
    (lb_, db_), (lpb_, dpb_) = bd.b_map, bd.prefetch_map
    b_tile_t = init("%b0", bd.view, bd.view_t, bd.offsets, bd.shape, lt, lb_, db_, bd.order, b_shp)
    c_tile_t = (init("%ct", c_v, c_t, ("%m", "%n"), (wm, wn), ct, lc, dc, None, c_shp)
                if io.has_c and lks == 1 else None)
    pa_t = init("%pa0", a_v, a_t, ("%m", kb), (wm, ks), at, lpa, dpa, a_order, a_shp)
    pb_t = init("%pb0", bd.view, bd.view_t, bd.offsets, bd.shape, lt, lpb_, dpb_, bd.order, b_shp)
    if dqb is not None:
        dqb.setup()
    acc_vec = f"vector<{wm}x{wn}x{acc}>"
    c_vec = f"vector<{wm}x{wn}x{ct}>"
    env = KernelEnv(wm, wn, acc, ct, (lc, dc), "%res", "%ct" if io.has_c else None, c_tile_t)
    if slices > 1 or lks > 1:
        zero = "0" if acc == "i32" else "0.0"
        w(f"    %acc0 = arith.constant {{wg_map = {c_wg}}} dense<{zero}> : {acc_vec}")
        acc_init = "%acc0"
    else:
        acc_init = io.acc_init(env, w)
        if acc_init is None:
            w(f"    %cv = xetile.load_tile %ct : {c_tile_t} -> {c_vec}")
            acc_init = "%cv"
            if ct != acc:
                w(f"    %acc0 = arith.extf %cv {{wg_map = {c_wg}}} : {c_vec} to {acc_vec}")
                acc_init = "%acc0"
    # prefetch ahead
    pa, pb = "%pa0", "%pb0"
    for i in range(dist):
        w(f"    xetile.prefetch_tile {pa} : {pa_t}")
        w(f"    xetile.prefetch_tile {pb} : {pb_t}")
        w(f"    %pa{i + 1} = xetile.update_tile_offset {pa}, [%c0, %cks] : {pa_t}")
        w(f"    %pb{i + 1} = xetile.update_tile_offset {pb}, {bd.step} : {pb_t}")
        pa, pb = f"%pa{i + 1}", f"%pb{i + 1}"
    w(f"    %r:5 = scf.for %k = {lo} to {hi} step %cks iter_args(%acc = {acc_init}, %at = %a0, %bt = %b0, "
      f"%pat = {pa}, %pbt = {pb}) -> ({acc_vec}, {a_tile_t}, {b_tile_t}, {pa_t}, {pb_t}) {{")
    w(f"      %va = xetile.load_tile %at : {a_tile_t} -> vector<{wm}x{ks}x{at}>")
    w(f"      %vb = xetile.load_tile %bt : {b_tile_t} -> vector<{bd.shape[0]}x{bd.shape[1]}x{lt}>")
    k_at = "%k"
    if dqb is not None and lo != kb:   # a loop over [0, steps x k_step) (local k-slicing): this step's K is kb + %k
        w(f"      %kat = arith.addi {kb}, %k : index")
        k_at = "%kat"
    vb = dqb.apply("%vb", k_at) if dqb is not None else "%vb"
    w(f"      xetile.prefetch_tile %pat : {pa_t}")
    w(f"      xetile.prefetch_tile %pbt : {pb_t}")
    w(f"      %acc2 = xetile.tile_mma %va, {vb}, %acc {{wg_map_a = {map_text((la, da))}, wg_map_b = {map_text((lb, db))}, "
      f"wg_map_c = {c_wg}}} : vector<{wm}x{ks}x{at}>, vector<{ks}x{wn}x{bt}>, {acc_vec} -> {acc_vec}")
    w(f"      %at2 = xetile.update_tile_offset %at, [%c0, %cks] : {a_tile_t}")
    w(f"      %bt2 = xetile.update_tile_offset %bt, {bd.step} : {b_tile_t}")
    w(f"      %pat2 = xetile.update_tile_offset %pat, [%c0, %cks] : {pa_t}")
    w(f"      %pbt2 = xetile.update_tile_offset %pbt, {bd.step} : {pb_t}")
    w(f"      scf.yield %acc2, %at2, %bt2, %pat2, %pbt2 : {acc_vec}, {a_tile_t}, {b_tile_t}, {pa_t}, {pb_t}")
    w("    }")
    total = "%r#0"
    if lks > 1:  # reduce the slices' partial tiles through SLM; then C's map is the reduce map
        total, env, c_wg = local_kslice.emit_tail_start(plan, w, io, env, c_v, c_t, c_shp, slices > 1)
        c_tile_t = env.c_tile_type
    if ct != acc:
        w(f"    %res = arith.truncf {total} {{wg_map = {c_wg}}} : {acc_vec} to {c_vec}")
    result = "%res" if ct != acc else total
    env.result = result
    if slices > 1:
        kind = "addi" if acc == "i32" else "addf"
        w(f"    %old = xetile.atomic_rmw_tile <{kind}> {result}, %ct : {c_vec}, {c_tile_t} -> {c_vec}")
    else:
        io.tail(env, w)
    w("    gpu.return")
    w("  }")
    return "\n".join(x for x in L if x.strip())


def _dims_of(memref_t: str):
    body = memref_t[len("memref<"):].split(",")[0].rstrip(">")
    parts = body.split("x")
    return [None if p == "?" else int(p) for p in parts[:-1]]


def _elt_of(memref_t: str):
    body = memref_t[len("memref<"):].split(",")[0].rstrip(">")
    return body.split("x")[-1]


def _transposed_type(view_t: str, spec) -> str:
    """memref.transpose result type of a 2D (possibly strided) memref view."""
    dims = _dims_of(view_t)
    elt = _elt_of(view_t)
    rows, cols = dims[-2], dims[-1]
    stride = "?" if cols is None else str(cols)
    m = re.search(r"strided<\[\s*([^,\]\s]+)\s*,\s*1\s*\](?:,\s*offset:\s*([^>\s]+))?>", view_t)
    if m:                  # a strided view: its row stride (a padded leading dimension) and offset
        stride = m.group(1)
        offset = f", offset: {m.group(2)}" if m.group(2) not in (None, "0") else ""
    else:
        offset = ", offset: ?" if "offset: ?" in view_t else ""
    d = lambda x: "?" if x is None else str(x)  # noqa: E731
    return f"memref<{d(cols)}x{d(rows)}x{elt}, strided<[1, {stride}]{offset}>>"
