"""Write the work-group XeTile GEMM kernel for a matmul and its plan (pipeline stage 1).

The kernel follows rfc-xetile.md appendix 2.1: work-group tiles carrying `wg_map`, a K loop with
`update_tile_offset`, cooperative prefetch tiles with their own `wg_map` running `prefetch_distance`
K steps ahead, `tile_mma` with the derived A/B/C maps, and a store (or, for split-K, an atomic
add) of the C tile. Transposed operands are read through a `memref.transpose` view with
`order = [0, 1]` tiles; unaligned sizes rely on the tiles' out-of-bounds semantics.
"""
from __future__ import annotations

from .linalg_match import MatmulSpec


def _tile(shape, elt, layout=None, data=None, order=None):
    fields = []
    if order is not None:
        fields.append(f"order = [{order[0]}, {order[1]}]")
    if layout is not None:
        fields.append(f"wg_map = <sg_layout = [{layout[0]}, {layout[1]}], sg_data = [{data[0]}, {data[1]}]>")
    attr = f", #xetile.tile_attr<{', '.join(fields)}>" if fields else ""
    return f"!xetile.tile<{shape[0]}x{shape[1]}x{elt}{attr}>"


def _wg(layout, data):
    return f"#xetile.wg_map<sg_layout = [{layout[0]}, {layout[1]}], sg_data = [{data[0]}, {data[1]}]>"


def _memref_2d(spec_dims, elt, strided=None):
    dims = "x".join("?" if d is None else str(d) for d in spec_dims)
    lay = f", {strided}" if strided else ""
    return f"memref<{dims}x{elt}{lay}>"


def acc_type(spec: MatmulSpec) -> str:
    """Accumulation type: f32 for float inputs (also for f16/bf16 results), i32 for i8."""
    return "i32" if spec.a_type == "i8" else "f32"


def kernel_text(spec: MatmulSpec, plan, kernel_name: str, arg_types: list[str]) -> str:
    """The body of one gpu.func (readable syntax) for `spec` under `plan`."""
    wm, wn = plan.wg_tile
    ks = plan.k_step
    (la, da), (lb, db), (lc, dc) = plan.a_wg_map, plan.b_wg_map, plan.c_wg_map
    (lpa, dpa), (lpb, dpb) = plan.a_prefetch_map, plan.b_prefetch_map
    dist = plan.prefetch_distance
    slices = max(1, getattr(plan, "k_slices", 1) or 1)
    at, bt, ct = spec.a_type, spec.b_type, spec.c_type
    acc = acc_type(spec)
    batched = spec.batch is not None
    L = []
    w = L.append
    ta, tb, tc = arg_types
    w(f"  gpu.func @{kernel_name}(%A: {ta}, %B: {tb}, %C: {tc}) kernel attributes "
      f"{{known_block_size = array<i32: {plan.num_subgroups * 16}, 1, 1>, xe.subgroup_size = 16 : i32}} {{")
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
            sub_t = f"memref<{'?' if rows is None else rows}x{'?' if cols is None else cols}x{_elt_of(t)}, strided<[{row_stride}, 1], offset: ?>>"
            w(f"    %{name}2 = memref.subview %{name}[%batch, 0, 0] [1, {sizes}] [1, 1, 1] : {t} to {sub_t}")
            views[name] = (f"%{name}2", sub_t)
    # logical sizes
    a_v, a_t = views["A"]
    b_v, b_t = views["B"]
    c_v, c_t = views["C"]
    dyn = spec.dynamic
    if dyn:
        w(f"    %M = memref.dim {c_v}, %c0 : {c_t}")
        w(f"    %N = memref.dim {c_v}, %c1 : {c_t}")
        w(f"    %K = memref.dim {a_v}, %c{0 if spec.transpose_a else 1} : {a_t}")
    else:
        w(f"    %K = arith.constant {spec.k} : index")
    # transposed operands: a column-major view with order = [0, 1] tiles
    a_order = b_order = None
    if spec.transpose_a:
        a_order = (0, 1)
        mt = _transposed_type(a_t, spec)
        w(f"    %At = memref.transpose {a_v} (d0, d1) -> (d1, d0) : {a_t} to {mt}")
        a_v, a_t = "%At", mt
    if spec.transpose_b:
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

    def init(var, view, view_t, off, shape, elt, layout, data, order, shp=""):
        w(f"    {var} = xetile.init_tile {view}[{off[0]}, {off[1]}]{shp} : {view_t} -> "
          f"{_tile(shape, elt, layout, data, order)}")
        return _tile(shape, elt, layout, data, order)

    if dyn:
        # shape and strides of the logical (row index, column index) view; transposed operands
        # are column-major views, so their strides are [1, leading dimension]
        a_shp = ", [%M, %K], [%c1, %M]" if spec.transpose_a else ", [%M, %K], [%K, %c1]"
        b_shp = ", [%K, %N], [%c1, %K]" if spec.transpose_b else ", [%K, %N], [%N, %c1]"
        c_shp = ", [%M, %N], [%N, %c1]"
    else:
        a_shp = b_shp = c_shp = ""
    a_tile_t = init("%a0", a_v, a_t, ("%m", "%kbeg"), (wm, ks), at, la, da, a_order, a_shp)
    b_tile_t = init("%b0", b_v, b_t, ("%kbeg", "%n"), (ks, wn), bt, lb, db, b_order, b_shp)
    c_tile_t = init("%ct", c_v, c_t, ("%m", "%n"), (wm, wn), ct, lc, dc, None, c_shp)
    pa_t = init("%pa0", a_v, a_t, ("%m", "%kbeg"), (wm, ks), at, lpa, dpa, a_order, a_shp)
    pb_t = init("%pb0", b_v, b_t, ("%kbeg", "%n"), (ks, wn), bt, lpb, dpb, b_order, b_shp)
    acc_vec = f"vector<{wm}x{wn}x{acc}>"
    if slices > 1:
        zero = "0" if acc == "i32" else "0.0"
        w(f"    %acc0 = arith.constant dense<{zero}> : {acc_vec}")
    else:
        w(f"    %cv = xetile.load_tile %ct : {c_tile_t} -> vector<{wm}x{wn}x{ct}>")
        if ct != acc:
            w(f"    %acc0 = arith.extf %cv : vector<{wm}x{wn}x{ct}> to {acc_vec}")
    # prefetch ahead
    pa, pb = "%pa0", "%pb0"
    for i in range(dist):
        w(f"    xetile.prefetch_tile {pa} : {pa_t}")
        w(f"    xetile.prefetch_tile {pb} : {pb_t}")
        w(f"    %pa{i + 1} = xetile.update_tile_offset {pa}, [%c0, %cks] : {pa_t}")
        w(f"    %pb{i + 1} = xetile.update_tile_offset {pb}, [%cks, %c0] : {pb_t}")
        pa, pb = f"%pa{i + 1}", f"%pb{i + 1}"
    acc_init = "%acc0" if (slices > 1 or ct != acc) else "%cv"
    w(f"    %r:5 = scf.for %k = %kbeg to %kend step %cks iter_args(%acc = {acc_init}, %at = %a0, %bt = %b0, "
      f"%pat = {pa}, %pbt = {pb}) -> ({acc_vec}, {a_tile_t}, {b_tile_t}, {pa_t}, {pb_t}) {{")
    w(f"      %va = xetile.load_tile %at : {a_tile_t} -> vector<{wm}x{ks}x{at}>")
    w(f"      %vb = xetile.load_tile %bt : {b_tile_t} -> vector<{ks}x{wn}x{bt}>")
    w(f"      xetile.prefetch_tile %pat : {pa_t}")
    w(f"      xetile.prefetch_tile %pbt : {pb_t}")
    w(f"      %acc2 = xetile.tile_mma %va, %vb, %acc {{wg_map_a = {_wg(la, da)}, wg_map_b = {_wg(lb, db)}, "
      f"wg_map_c = {_wg(lc, dc)}}} : vector<{wm}x{ks}x{at}>, vector<{ks}x{wn}x{bt}>, {acc_vec} -> {acc_vec}")
    w(f"      %at2 = xetile.update_tile_offset %at, [%c0, %cks] : {a_tile_t}")
    w(f"      %bt2 = xetile.update_tile_offset %bt, [%cks, %c0] : {b_tile_t}")
    w(f"      %pat2 = xetile.update_tile_offset %pat, [%c0, %cks] : {pa_t}")
    w(f"      %pbt2 = xetile.update_tile_offset %pbt, [%cks, %c0] : {pb_t}")
    w(f"      scf.yield %acc2, %at2, %bt2, %pat2, %pbt2 : {acc_vec}, {a_tile_t}, {b_tile_t}, {pa_t}, {pb_t}")
    w("    }")
    result = "%r#0"
    if ct != acc:
        w(f"    %res = arith.truncf %r#0 : {acc_vec} to vector<{wm}x{wn}x{ct}>")
        result = "%res"
    if slices > 1:
        kind = "addi" if acc == "i32" else "addf"
        w(f"    %old = xetile.atomic_rmw_tile <{kind}> {result}, %ct : vector<{wm}x{wn}x{ct}>, {c_tile_t} -> vector<{wm}x{wn}x{ct}>")
    else:
        w(f"    xetile.store_tile {result}, %ct : vector<{wm}x{wn}x{ct}>, {c_tile_t}")
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
    offset = ", offset: ?" if "offset: ?" in view_t else ""
    d = lambda x: "?" if x is None else str(x)  # noqa: E731
    return f"memref<{d(cols)}x{d(rows)}x{elt}, strided<[1, {stride}]{offset}>>"
