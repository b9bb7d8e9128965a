"""Write the fused flash-attention kernel (FlashAttention-2 form) of an `AttentionForm` under its
`AttentionPlan` as one gpu.func of work-group XeTile (stage 1), and the launch replacing the chain.

A work-group owns `block_m` query rows of one (batch, head); its subgroups are stacked
(`sg_layout = [R, 1]`) and own whole rows, so the row max and row sum (`tile_reduce` /
`tile_broadcast`) stay inside a subgroup. K and V blocks stream through one scf.for with a
prefetch one step ahead; S = Q.K^T (in base 2: times log2(e)) and P = exp2(S - m) live only in
registers; the accumulator is rescaled by exp2(m_old - m_new) each step and divided by the row sum
once at the end. Causal: the loop stops at the block of the work-group's last row's diagonal (shifted
by Lk - Lq when bottom-right); the blocks crossing the diagonal run in a second loop that adds -inf
above it. Lk not a multiple of the block: a last step adds -inf past Lk from a host table.
Flash-decoding (plan.kv_splits > 1): each work-group streams one slice of K/V (causal: its loops clipped to the
slice) and stores its partial state to a workspace that `combine_text`'s kernel folds into O
(docs/attention.md "Lowering", "Decode")."""
from __future__ import annotations

import math

from mlir import ir
from mlir.dialects import memref

from ...passes.analysis.registers import GRF_MODE_ATTR
from .attention_match import AttentionForm
from .attention_plan import AttentionPlan
from .launch import index_const, launch_func

# the running row max starts at -1e30, not -inf: a row whose first blocks an additive mask sets to -inf
# keeps exp(m - m') = 1 and exp(S - m') = 0 instead of NaN (docs/attention.md "Lowering")
_M0 = "-1.0e+30"
# S is kept in base 2: scaled by log2(e) with the program's scale, so P = exp2(S - m) is one hardware
# exp where IGC expands exp into about 11 instructions (docs/attention.md "Numerics")
LOG2E = 1.4426950408889634


def _wg(layout, data):
    return f"#xetile.wg_map<sg_layout = [{layout[0]}, {layout[1]}], sg_data = [{data[0]}, {data[1]}]>"


def _tile(shape, elt, layout, data, order=None):
    o = f"order = [{order[0]}, {order[1]}], " if order else ""
    return (f"!xetile.tile<{shape[0]}x{shape[1]}x{elt}, #xetile.tile_attr<{o}wg_map = <sg_layout = "
            f"[{layout[0]}, {layout[1]}], sg_data = [{data[0]}, {data[1]}]>>>")


def _prefetch_maps(d: int, bn: int, sgs: int, eb: int):
    """Cooperative prefetch maps of the K^T (d x bn) and V (bn x d) blocks: pieces at most 64 bytes
    wide along memory rows (K's and V's rows hold d elements), the subgroups spread over both."""
    nd = max(1, min(sgs, d * eb // 64))
    while sgs % nd or d % nd:
        nd //= 2
    nb = sgs // nd
    while bn % nb:
        nb //= 2
    k = ((nd, nb), (d // nd, bn // nb))
    v = ((nb, nd), (bn // nb, d // nd))
    return k, v


def kernel_text(form: AttentionForm, plan: AttentionPlan, kname: str) -> str:
    T, D, LQ, LK = form.elt, form.d, form.lq, form.lk
    R, rows, BN, BM = plan.num_subgroups, plan.sg_rows, plan.block_n, plan.block_m
    eb = 2
    lay = (R, 1)
    q_t = _tile((BM, D), T, lay, (rows, D))
    k_t = _tile((D, BN), T, lay, (D, BN), order=(0, 1))
    v_t = _tile((BN, D), T, lay, (BN, D))
    (pkl, pkd), (pvl, pvd) = _prefetch_maps(D, BN, R, eb)
    kp_t = _tile((D, BN), T, pkl, pkd, order=(0, 1))
    vp_t = _tile((BN, D), T, pvl, pvd)
    s_wg, a_wg, r_wg = _wg(lay, (rows, BN)), _wg(lay, (rows, D)), _wg(lay, (rows, 1))
    tab_t = _tile((BM, BN), "f32", lay, (rows, BN))      # the host tables' tile (diagonal, partial last block)
    s_v, a_v, r_v = f"vector<{BM}x{BN}xf32>", f"vector<{BM}x{D}xf32>", f"vector<{BM}x1xf32>"
    p_v, q_v = f"vector<{BM}x{BN}x{T}>", f"vector<{BM}x{D}x{T}>"
    kv_v, vv_v = f"vector<{D}x{BN}x{T}>", f"vector<{BN}x{D}x{T}>"
    view = lambda r, c: f"memref<{r}x{c}x{T}, strided<[{c}, 1], offset: ?>>"  # noqa: E731
    has_mask = form.mask is not None
    rdg = "%rdg" if form.causal_offset else "%r0"      # r0 + the causal diagonal's offset
    if has_mask:
        mask_elt = str(ir.MemRefType(form.mask.type).element_type)
        mk_t = _tile((BM, BN), mask_elt, lay, (rows, BN))
        mk_v = f"vector<{BM}x{BN}x{mask_elt}>"
        mk_view = (str(form.mask.type) if len(form.mask.type.shape) == 2
                   else f"memref<{LQ}x{LK}x{mask_elt}, strided<[{LK}, 1], offset: ?>>")
    L = []
    w = L.append
    cnt = [0]

    def fresh(p="v"):
        cnt[0] += 1
        return f"%{p}{cnt[0]}"

    def op(text, ind):
        r = fresh()
        w(f"{ind}{r} = {text}")
        return r

    def bcast(r, vt, wgm, ind):
        return op(f"xetile.tile_broadcast {r} [1] {{wg_map = {wgm}}} : {r_v} -> {vt}", ind)

    def ew(name, a, b, vt, wgm, ind):
        return op(f"{name} {a}, {b} {{wg_map = {wgm}}} : {vt}", ind)

    def exp(a, vt, wgm, ind):
        return op(f"math.exp2 {a} {{wg_map = {wgm}}} : {vt}", ind)

    def step(acc, m, l, kt, vt, kp, vp, *rest, ind, masked):
        """One K/V block at key offset j (with the additive mask's tile mt): the values the loop yields.
        masked: None, "causal" (the diagonal table), "tail" (-inf past Lk from the tail table) or both."""
        (mt, j) = rest if has_mask else (None, rest[0])
        k = op(f"xetile.load_tile {kt} : {k_t} -> {kv_v}", ind)
        w(f"{ind}xetile.prefetch_tile {kp} : {kp_t}")
        w(f"{ind}xetile.prefetch_tile {vp} : {vp_t}")
        s = op(f"xetile.tile_mma %q, {k}, %zs {{wg_map_a = {_wg(lay, (rows, D))}, wg_map_b = {_wg(lay, (D, BN))}, "
               f"wg_map_c = {s_wg}}} : {q_v}, {kv_v}, {s_v} -> {s_v}", ind)
        if has_mask:       # (scale S + M) log2(e)
            if form.scale != 1.0:
                s = ew("arith.mulf", s, "%scale", s_v, s_wg, ind)
            mv = op(f"xetile.load_tile {mt} : {mk_t} -> {mk_v}", ind)
            if mask_elt != "f32":
                mv = op(f"arith.extf {mv} {{wg_map = {s_wg}}} : {mk_v} to {s_v}", ind)
            s = ew("arith.mulf", ew("arith.addf", s, mv, s_v, s_wg, ind), "%log2e", s_v, s_wg, ind)
        else:              # S (scale log2(e))
            s = ew("arith.mulf", s, "%scale2", s_v, s_wg, ind)
        if masked in ("causal", "causal+tail"):
            s = _mask(s, j, ind)
        if masked in ("tail", "causal+tail"):
            tt = op(f"xetile.init_tile %Tl[%c0, %c0] : memref<{BM}x{BN}xf32> -> {tab_t}", ind)
            tv = op(f"xetile.load_tile {tt} : {tab_t} -> {s_v}", ind)
            s = ew("arith.addf", s, tv, s_v, s_wg, ind)
        # maxnumf: a NaN in S still reaches the row through P and the row sum (docs/attention.md)
        mc = op(f"xetile.tile_reduce <maxnumf> {s} [1] {{wg_map = {r_wg}}} : {s_v} -> {r_v}", ind)
        mn = ew("arith.maxnumf", m, mc, r_v, r_wg, ind)
        corr = exp(ew("arith.subf", m, mn, r_v, r_wg, ind), r_v, r_wg, ind)
        p = exp(ew("arith.subf", s, bcast(mn, s_v, s_wg, ind), s_v, s_wg, ind), s_v, s_wg, ind)
        ps = op(f"xetile.tile_reduce <add> {p} [1] {{wg_map = {r_wg}}} : {s_v} -> {r_v}", ind)
        ln = ew("arith.addf", ew("arith.mulf", l, corr, r_v, r_wg, ind), ps, r_v, r_wg, ind)
        p16 = op(f"arith.truncf {p} {{wg_map = {s_wg}}} : {s_v} to {p_v}", ind)
        accs = ew("arith.mulf", acc, bcast(corr, a_v, a_wg, ind), a_v, a_wg, ind)
        v = op(f"xetile.load_tile {vt} : {v_t} -> {vv_v}", ind)
        accn = op(f"xetile.tile_mma {p16}, {v}, {accs} {{wg_map_a = {s_wg}, wg_map_b = {_wg(lay, (BN, D))}, "
                  f"wg_map_c = {a_wg}}} : {p_v}, {vv_v}, {a_v} -> {a_v}", ind)
        nxt = [op(f"xetile.update_tile_offset {t}, [{off}] : {tt}", ind)
               for t, tt, off in ((kt, k_t, "%c0, %cbn"), (vt, v_t, "%cbn, %c0"),
                                  (kp, kp_t, "%c0, %cbn"), (vp, vp_t, "%cbn, %c0"))]
        if has_mask:
            nxt.append(op(f"xetile.update_tile_offset {mt}, [%c0, %cbn] : {mk_t}", ind))
        return [accn, mn, ln] + nxt

    def _mask(s, j, ind):
        """S + (-inf where key j + c > query r0 + r + offset): -inf * max(0, (j - r0 - offset) + (c - r)) in
        f32, with c - r from the `%diag` tile (docs/attention.md "Causal mask")."""
        dj = op(f"arith.subi {j}, {rdg} : index", ind)
        di = op(f"arith.index_cast {dj} : index to i32", ind)
        df = op(f"arith.sitofp {di} : i32 to f32", ind)
        dv = op(f"vector.broadcast {df} {{wg_map = {s_wg}}} : f32 to {s_v}", ind)
        over = ew("arith.addf", "%diag", dv, s_v, s_wg, ind)
        pos = ew("arith.maxnumf", over, "%zs", s_v, s_wg, ind)
        pen = ew("arith.mulf", pos, "%ninf_big", s_v, s_wg, ind)
        return ew("arith.addf", s, pen, s_v, s_wg, ind)

    iter_types = [a_v, r_v, r_v, k_t, v_t, kp_t, vp_t] + ([mk_t] if has_mask else [])
    n_iter = len(iter_types)
    qt, kt_, vt_, ot = (str(x.type) for x in (form.q, form.k, form.v, form.out))
    diag_arg = f", %Dg: memref<{BM}x{BN}xf32>" if form.causal else ""
    diag_arg += f", %Tl: memref<{BM}x{BN}xf32>" if plan.tail else ""
    mask_arg = f", %Mk: {form.mask.type}" if has_mask else ""
    splits = plan.kv_splits
    ws_arg = f", %W: {workspace_type(form, plan)}" if splits > 1 else ""
    w(f"  gpu.func @{kname}(%Q: {qt}, %K: {kt_}, %V: {vt_}, %O: {ot}{diag_arg}{mask_arg}{ws_arg}) kernel attributes "
      f"{{known_block_size = array<i32: {R * 16}, 1, 1>, {GRF_MODE_ATTR} = \"{plan.grf_mode}\", "
      f"xe.subgroup_size = 16 : i32}} {{")
    ind = "    "
    w(f"{ind}%c0 = arith.constant 0 : index")
    w(f"{ind}%cbm = arith.constant {BM} : index")
    w(f"{ind}%cbn = arith.constant {BN} : index")
    w(f"{ind}%clk = arith.constant {LK} : index")
    w(f"{ind}%bx = gpu.block_id x")
    w(f"{ind}%bz = gpu.block_id z")
    w(f"{ind}%r0 = arith.muli %bx, %cbm : index")
    k0 = "%c0"
    if splits > 1:       # flash-decoding: this work-group's slice of the keys
        w(f"{ind}%bs = gpu.block_id y")
        w(f"{ind}%cchunk = arith.constant {-(-LK // BN) // splits * BN} : index")
        w(f"{ind}%klo = arith.muli %bs, %cchunk : index")
        w(f"{ind}%khi = arith.addi %klo, %cchunk : index")
        k0 = "%klo"
    if len(form.batch) == 2:
        w(f"{ind}%ch = arith.constant {form.batch[1]} : index")
        w(f"{ind}%bb = arith.divui %bz, %ch : index")
        w(f"{ind}%bh = arith.remui %bz, %ch : index")
        lead, ones, strides1 = "%bb, %bh, ", "1, 1, ", "1, 1, "
    else:
        lead, ones, strides1 = "%bz, ", "1, ", "1, "
    for name, src, ty, r in (("%Qs", "%Q", qt, LQ), ("%Ks", "%K", kt_, LK), ("%Vs", "%V", vt_, LK),
                             ("%Os", "%O", ot, LQ)):
        vt = view(r, D) if name != "%Os" else view(r, D).replace(f"x{T},", f"x{form.out_elt},")
        w(f"{ind}{name} = memref.subview {src}[{lead}0, 0] [{ones}{r}, {D}] [{strides1}1, 1] : {ty} to {vt}")
    w(f"{ind}%Kt = memref.transpose %Ks (d0, d1) -> (d1, d0) : {view(LK, D)} to "
      f"memref<{D}x{LK}x{T}, strided<[1, {D}], offset: ?>>")
    kview = f"memref<{D}x{LK}x{T}, strided<[1, {D}], offset: ?>>"
    w(f"{ind}%qt = xetile.init_tile %Qs[%r0, %c0] : {view(LQ, D)} -> {q_t}")
    w(f"{ind}%q = xetile.load_tile %qt : {q_t} -> {q_v}")
    w(f"{ind}%kt0 = xetile.init_tile %Kt[%c0, {k0}] : {kview} -> {k_t}")
    w(f"{ind}%vt0 = xetile.init_tile %Vs[{k0}, %c0] : {view(LK, D)} -> {v_t}")
    w(f"{ind}%kp0 = xetile.init_tile %Kt[%c0, {k0}] : {kview} -> {kp_t}")
    w(f"{ind}%vp0 = xetile.init_tile %Vs[{k0}, %c0] : {view(LK, D)} -> {vp_t}")
    w(f"{ind}xetile.prefetch_tile %kp0 : {kp_t}")
    w(f"{ind}xetile.prefetch_tile %vp0 : {vp_t}")
    w(f"{ind}%kp1 = xetile.update_tile_offset %kp0, [%c0, %cbn] : {kp_t}")
    w(f"{ind}%vp1 = xetile.update_tile_offset %vp0, [%cbn, %c0] : {vp_t}")
    w(f"{ind}%zs = arith.constant {{wg_map = {s_wg}}} dense<0.0> : {s_v}")
    w(f"{ind}%acc0 = arith.constant {{wg_map = {a_wg}}} dense<0.0> : {a_v}")
    w(f"{ind}%m0 = arith.constant {{wg_map = {r_wg}}} dense<{_M0}> : {r_v}")
    w(f"{ind}%l0 = arith.constant {{wg_map = {r_wg}}} dense<0.0> : {r_v}")
    if has_mask and form.scale != 1.0:
        w(f"{ind}%scale = arith.constant {{wg_map = {s_wg}}} dense<{form.scale!r}> : {s_v}")
    if has_mask:
        w(f"{ind}%log2e = arith.constant {{wg_map = {s_wg}}} dense<{LOG2E!r}> : {s_v}")
    else:
        w(f"{ind}%scale2 = arith.constant {{wg_map = {s_wg}}} dense<{form.scale * LOG2E!r}> : {s_v}")
    loops = []
    if form.causal:
        # -2e30 per key past the diagonal: below the running max's start (-1e30), so a row that has seen no key
        # yet (a K/V slice right of its diagonal) keeps P = exp2(<= -1e30) = 0, the neutral partial
        w(f"{ind}%ninf_big = arith.constant {{wg_map = {s_wg}}} dense<-2.0e+30> : {s_v}")
        w(f"{ind}%dgt = xetile.init_tile %Dg[%c0, %c0] : memref<{BM}x{BN}xf32> -> {tab_t}")
        w(f"{ind}%diag = xetile.load_tile %dgt : {tab_t} -> {s_v}")
        # keys <= r0 + offset are visible to every row of the work-group, keys < r0 + BM + offset to its last
        if form.causal_offset:
            w(f"{ind}%cdg = arith.constant {form.causal_offset} : index")
            w(f"{ind}%rdg = arith.addi %r0, %cdg : index")
        w(f"{ind}%rend = arith.addi {rdg}, %cbm : index")
        w(f"{ind}%cend = arith.minui %rend, %clk : index")
        ufloor = rdg
        if form.causal_offset % BN or BM % BN:      # the whole blocks left of the first row's diagonal
            w(f"{ind}%ublk = arith.divui {rdg}, %cbn : index")
            w(f"{ind}%ufloor = arith.muli %ublk, %cbn : index")
            ufloor = "%ufloor"
        w(f"{ind}%uend = arith.minui {ufloor}, %cend : index")
        loops = [("%c0", "%uend", None), ("%uend", "%cend", "causal")]
        if plan.tail:      # top-left, Lq > Lk: rows >= Lk see the partial last block's keys past Lk
            w(f"{ind}%clkf = arith.constant {LK - plan.tail} : index")
            w(f"{ind}%uendf = arith.minui %uend, %clkf : index")
            w(f"{ind}%cendf = arith.minui %cend, %clkf : index")
            loops = [("%c0", "%uendf", None), ("%uendf", "%cendf", "causal"), ("%cendf", "%cend", "causal+tail")]
        if splits > 1:     # the loops clipped to the slice [klo, khi): each before, across or past the diagonal
            loops = _clip_loops(w, ind, loops)
    else:
        lo, hi = ("%klo", "%khi") if splits > 1 else ("%c0", "%clk")
        if plan.tail:      # whole blocks, then (in the slice that holds it) the partial last one, masked
            w(f"{ind}%clkf = arith.constant {LK - plan.tail} : index")
            if splits > 1:
                w(f"{ind}%khf = arith.minui %khi, %clkf : index")
                w(f"{ind}%khl = arith.minui %khi, %clk : index")
                loops = [(lo, "%khf", None), ("%khf", "%khl", "tail")]
            else:
                loops = [(lo, "%clkf", None), ("%clkf", "%clk", "tail")]
        else:
            loops = [(lo, hi, None)]
    state = ["%acc0", "%m0", "%l0", "%kt0", "%vt0", "%kp1", "%vp1"]
    if has_mask:
        if len(form.mask.type.shape) != 2:
            w(f"{ind}%Mv = memref.subview %Mk[{lead}0, 0] [{ones}{LQ}, {LK}] [{strides1}1, 1] : {form.mask.type} to "
              f"{mk_view}")
        base = "%Mk" if len(form.mask.type.shape) == 2 else "%Mv"
        w(f"{ind}%mt0 = xetile.init_tile {base}[%r0, {k0}] : {mk_view} -> {mk_t}")
        state.append("%mt0")
    for n, (lo, hi, masked) in enumerate(loops):
        args = [f"%a{n}_{i}" for i in range(n_iter)]
        res = f"%loop{n}"
        w(f"{ind}{res}:{n_iter} = scf.for %j{n} = {lo} to {hi} step %cbn iter_args("
          + ", ".join(f"{a} = {s}" for a, s in zip(args, state)) + f") -> ({', '.join(iter_types)}) {{")
        out = step(*args, f"%j{n}", ind=ind + "  ", masked=masked)
        w(f"{ind}  scf.yield {', '.join(out)} : {', '.join(iter_types)}")
        w(f"{ind}}}")
        state = [f"{res}#{i}" for i in range(n_iter)]
    if splits > 1:       # the unnormalised accumulator, row max and row sum of this slice
        w(f"{ind}%ws = arith.muli %bs, %cbm : index")
        w(f"{ind}%w0 = arith.addi {_workspace_row(w, ind, plan)}, %ws : index")
        _store_partial(w, op, ind, form, plan, state[0], state[1], state[2])
        w(f"{ind}gpu.return")
        w("  }")
        return "\n".join(L) + "\n" + combine_text(form, plan, kname + "_combine")
    _store_output(w, lambda t: op(t, ind), ind, form, plan, state[0], state[2], "%r0")
    return "\n".join(L)


def _clip_loops(w, ind, loops):
    """Consecutive loops [(lo, hi, masked)] from key 0 clipped to the work-group's K/V slice [%klo, %khi): every
    bound b becomes min(max(b, klo), khi), so the loops stay consecutive and ordered and those outside the
    slice run no step."""
    out, prev = [], "%klo"
    for n, (_, hi, masked) in enumerate(loops):
        w(f"{ind}%slo{n} = arith.maxui {hi}, %klo : index")
        w(f"{ind}%shi{n} = arith.minui %slo{n}, %khi : index")
        out.append((prev, f"%shi{n}", masked))
        prev = f"%shi{n}"
    return out


def _store_output(w, emit, ind, form, plan, acc, l, row):
    """O = acc / l (rounded to O's type) stored at query row `row` of the %Os view; the function's end."""
    R, rows, BM, D = plan.num_subgroups, plan.sg_rows, plan.block_m, form.d
    a_wg, a_v = _wg((R, 1), (rows, D)), f"vector<{BM}x{D}xf32>"
    b = emit(f"xetile.tile_broadcast {l} [1] {{wg_map = {a_wg}}} : vector<{BM}x1xf32> -> {a_v}")
    o = emit(f"arith.divf {acc}, {b} {{wg_map = {a_wg}}} : {a_v}")
    ov = f"vector<{BM}x{D}x{form.out_elt}>"
    if form.out_elt != "f32":
        o = emit(f"arith.truncf {o} {{wg_map = {a_wg}}} : {a_v} to {ov}")
    o_t = _tile((BM, D), form.out_elt, (R, 1), (rows, D))
    oview = f"memref<{form.lq}x{D}x{form.out_elt}, strided<[{D}, 1], offset: ?>>"
    w(f"{ind}%ot = xetile.init_tile %Os[{row}, %c0] : {oview} -> {o_t}")
    w(f"{ind}xetile.store_tile {o}, %ot : {ov}, {o_t}")
    w(f"{ind}gpu.return")
    w("  }")


def workspace_type(form: AttentionForm, plan: AttentionPlan) -> str:
    """Flash-decoding's workspace: per (batch x head, query block, slice) block_m rows of [acc (d) | row max (16)
    | row sum (16)] in f32 (max and sum repeated over 16 columns: a full 64-byte block row)."""
    gx, gy, gz = plan.groups
    return f"memref<{gz * gx * gy * plan.block_m}x{form.d + 32}xf32>"


def _workspace_row(w, ind, plan) -> str:
    """The index value of the workspace row of this work-group's (batch x head, query block) first slice:
    (bz * gx + bx) * slices * block_m."""
    gx, BM, S = plan.groups[0], plan.block_m, plan.kv_splits
    w(f"{ind}%wrow = arith.constant {gx * S * BM} : index")
    w(f"{ind}%wz = arith.muli %bz, %wrow : index")
    base = "%wz"
    if gx > 1:         # chunked prefill: several query blocks per head
        w(f"{ind}%wxrow = arith.constant {S * BM} : index")
        w(f"{ind}%wx = arith.muli %bx, %wxrow : index")
        w(f"{ind}%wzx = arith.addi %wz, %wx : index")
        base = "%wzx"
    return base


def _store_partial(w, op, ind, form, plan, acc, m, l):
    R, rows, BM, D = plan.num_subgroups, plan.sg_rows, plan.block_m, form.d
    lay = (R, 1)
    wt = workspace_type(form, plan)
    w(f"{ind}%cD = arith.constant {D} : index")
    w(f"{ind}%cD16 = arith.constant {D + 16} : index")
    for val, col, width in ((acc, "%c0", D), (m, "%cD", 16), (l, "%cD16", 16)):
        t = _tile((BM, width), "f32", lay, (rows, width))
        v = val
        if width == 16:
            v = op(f"xetile.tile_broadcast {val} [1] {{wg_map = {_wg(lay, (rows, 16))}}} : vector<{BM}x1xf32> -> "
                   f"vector<{BM}x16xf32>", ind)
        tt = op(f"xetile.init_tile %W[%w0, {col}] : {wt} -> {t}", ind)
        w(f"{ind}xetile.store_tile {v}, {tt} : vector<{BM}x{width}xf32>, {t}")


def combine_text(form: AttentionForm, plan: AttentionPlan, kname: str) -> str:
    """Flash-decoding's second kernel: one work-group per (batch, head) and query block folds the slices'
    (acc, m, l) with the online-softmax rule and writes O = acc / l. A slice a row saw no key of holds the
    neutral partial (m = -1e30, l = 0, acc = 0): its weight exp2(m_s - M') is 0, or 1 times zeros while M' is
    still -1e30 (slice 0 holds key 0, which every row sees), never a NaN."""
    R, rows, BM, D, S = plan.num_subgroups, plan.sg_rows, plan.block_m, form.d, plan.kv_splits
    lay = (R, 1)
    wt, ot = workspace_type(form, plan), str(form.out.type)
    a_t, r16_t = _tile((BM, D), "f32", lay, (rows, D)), _tile((BM, 16), "f32", lay, (rows, 16))
    a_v, r_v, r16_v = f"vector<{BM}x{D}xf32>", f"vector<{BM}x1xf32>", f"vector<{BM}x16xf32>"
    a_wg, r_wg = _wg(lay, (rows, D)), _wg(lay, (rows, 1))
    L = []
    w = L.append
    cnt = [0]

    def op(text, ind="      "):
        cnt[0] += 1
        w(f"{ind}%x{cnt[0]} = {text}")
        return f"%x{cnt[0]}"

    def ew(name, a, b, vt, wgm, ind="      "):
        return op(f"{name} {a}, {b} {{wg_map = {wgm}}} : {vt}", ind)

    def bc(r, ind="      "):
        return op(f"xetile.tile_broadcast {r} [1] {{wg_map = {a_wg}}} : {r_v} -> {a_v}", ind)

    w(f"  gpu.func @{kname}(%W: {wt}, %O: {ot}) kernel attributes {{known_block_size = array<i32: {R * 16}, 1, 1>, "
      f"xe.subgroup_size = 16 : i32}} {{")
    i = "    "
    w(f"{i}%c0 = arith.constant 0 : index")
    w(f"{i}%c1 = arith.constant 1 : index")
    w(f"{i}%cs = arith.constant {S} : index")
    w(f"{i}%cbm = arith.constant {BM} : index")
    w(f"{i}%cD = arith.constant {D} : index")
    w(f"{i}%cD16 = arith.constant {D + 16} : index")
    w(f"{i}%bz = gpu.block_id z")
    r0 = "%c0"
    if plan.groups[0] > 1:     # one work-group per query block too (chunked prefill)
        w(f"{i}%bx = gpu.block_id x")
        w(f"{i}%r0 = arith.muli %bx, %cbm : index")
        r0 = "%r0"
    row0 = _workspace_row(w, i, plan)
    if len(form.batch) == 2:
        w(f"{i}%ch = arith.constant {form.batch[1]} : index")
        w(f"{i}%bb = arith.divui %bz, %ch : index")
        w(f"{i}%bh = arith.remui %bz, %ch : index")
        lead, ones = "%bb, %bh, ", "1, 1, "
    else:
        lead, ones = "%bz, ", "1, "
    oview = f"memref<{form.lq}x{D}x{form.out_elt}, strided<[{D}, 1], offset: ?>>"
    w(f"{i}%Os = memref.subview %O[{lead}0, 0] [{ones}{form.lq}, {D}] [{ones}1, 1] : {ot} to {oview}")
    w(f"{i}%at0 = xetile.init_tile %W[{row0}, %c0] : {wt} -> {a_t}")
    w(f"{i}%mt0 = xetile.init_tile %W[{row0}, %cD] : {wt} -> {r16_t}")
    w(f"{i}%lt0 = xetile.init_tile %W[{row0}, %cD16] : {wt} -> {r16_t}")
    w(f"{i}%o0 = arith.constant {{wg_map = {a_wg}}} dense<0.0> : {a_v}")
    w(f"{i}%m0 = arith.constant {{wg_map = {r_wg}}} dense<{_M0}> : {r_v}")
    w(f"{i}%l0 = arith.constant {{wg_map = {r_wg}}} dense<0.0> : {r_v}")
    types = [a_v, r_v, r_v, a_t, r16_t, r16_t]
    w(f"{i}%r:6 = scf.for %s = %c0 to %cs step %c1 iter_args(%o = %o0, %m = %m0, %l = %l0, %at = %at0, "
      f"%mt = %mt0, %lt = %lt0) -> ({', '.join(types)}) {{")
    a = op(f"xetile.load_tile %at : {a_t} -> {a_v}")
    mm = op(f"xetile.load_tile %mt : {r16_t} -> {r16_v}")
    ll = op(f"xetile.load_tile %lt : {r16_t} -> {r16_v}")
    ms = op(f"xetile.tile_reduce <maximumf> {mm} [1] {{wg_map = {r_wg}}} : {r16_v} -> {r_v}")
    ls = op(f"xetile.tile_reduce <maximumf> {ll} [1] {{wg_map = {r_wg}}} : {r16_v} -> {r_v}")
    mn = ew("arith.maximumf", "%m", ms, r_v, r_wg)
    c1 = op(f"math.exp2 {ew('arith.subf', '%m', mn, r_v, r_wg)} {{wg_map = {r_wg}}} : {r_v}")
    c2 = op(f"math.exp2 {ew('arith.subf', ms, mn, r_v, r_wg)} {{wg_map = {r_wg}}} : {r_v}")
    ln = ew("arith.addf", ew("arith.mulf", "%l", c1, r_v, r_wg), ew("arith.mulf", ls, c2, r_v, r_wg), r_v, r_wg)
    on = ew("arith.addf", ew("arith.mulf", "%o", bc(c1), a_v, a_wg), ew("arith.mulf", a, bc(c2), a_v, a_wg), a_v, a_wg)
    nxt = [op(f"xetile.update_tile_offset {t}, [%cbm, %c0] : {tt}") for t, tt in (("%at", a_t), ("%mt", r16_t),
                                                                                  ("%lt", r16_t))]
    w(f"      scf.yield {on}, {mn}, {ln}, {', '.join(nxt)} : {', '.join(types)}")
    w(f"{i}}}")
    _store_output(w, lambda t: op(t, i), i, form, plan, "%r#0", "%r#2", r0)
    return "\n".join(L)


def diag_table(bm: int, bn: int) -> str:
    """The dense literal of the causal kernel's column-minus-row table (c - r of a bm x bn block)."""
    return _dense([[float(c - r) for c in range(bn)] for r in range(bm)])


def tail_table(bm: int, bn: int, keys: int) -> str:
    """The dense literal of the partial last block's mask: 0 in its first `keys` columns, -inf past Lk (not
    -1e30, the running max's start: a row an additive mask hides everywhere would take P = 1 there and end as
    0 / (keys past Lk) = 0, where the reference's softmax gives NaN)."""
    return _dense([[0.0] * keys + [-math.inf] * (bn - keys)] * bm)


def _dense(rows) -> str:
    text = ", ".join("[" + ", ".join("0xFF800000" if x == -math.inf else f"{x:e}" for x in r) + "]" for r in rows)
    return f"dense<[{text}]> : tensor<{len(rows)}x{len(rows[0])}xf32>"


def _table_global(module_op, name: str, literal: str, bm: int, bn: int):
    """The host module's constant memref.global `name` holding a bm x bn table (created once)."""
    body = module_op.regions[0].blocks[0]
    for op in body.operations:
        if op.operation.name == "memref.global" and ir.StringAttr(op.operation.attributes["sym_name"]).value == name:
            return name
    g = ir.Operation.parse(f'memref.global "private" constant @{name} : memref<{bm}x{bn}xf32> = '
                           f'{literal.replace(f" : tensor<{bm}x{bn}xf32>", "")}')
    ir.InsertionPoint(body.operations[0].operation).insert(g)
    return name


def emit_launch(form: AttentionForm, plan: AttentionPlan, mod_name: str, kname: str):
    """Replace the chain with the kernel's launch (placed at its last op, where every input is defined)
    and erase the chain and its temporaries."""
    pv = form.ops[-1]
    args = [form.q, form.k, form.v, form.out]
    with pv.context, ir.InsertionPoint(pv), pv.location:
        bm, bn = plan.block_m, plan.block_n
        tables = []
        if form.causal:
            tables.append((f"__xe_attention_diag_{bm}x{bn}", diag_table(bm, bn)))
        if plan.tail:
            tables.append((f"__xe_attention_tail_{bm}x{bn}_{plan.tail}", tail_table(bm, bn, plan.tail)))
        if tables:
            module_op = pv.parent
            while module_op.name != "builtin.module":
                module_op = module_op.parent
        for name, literal in tables:
            _table_global(module_op, name, literal, bm, bn)
            args.append(memref.GetGlobalOp(ir.MemRefType.get([bm, bn], ir.F32Type.get()), name).result)
        if form.mask is not None:
            args.append(form.mask)
        gx, gy, gz = (index_const(g) for g in plan.groups)
        one = index_const(1)
        threads = (index_const(plan.num_subgroups * 16), one, one)
        if plan.kv_splits > 1:
            ws = memref.AllocOp(ir.MemRefType.parse(workspace_type(form, plan)), [], []).result
            launch_func(mod_name, kname, (gx, gy, gz), threads, args + [ws])
            launch = launch_func(mod_name, kname + "_combine", (gx, one, gz), threads, [ws, form.out])
            memref.DeallocOp(ws)
        else:
            launch = launch_func(mod_name, kname, (gx, gy, gz), threads, args)
    for o in reversed(form.ops):
        o.erase()
    for t in form.temps:
        for u in list(t.uses):
            u.owner.operation.erase() if hasattr(u.owner, "operation") else u.owner.erase()
        t.owner.operation.erase() if hasattr(t.owner, "operation") else t.owner.erase()
    return launch
