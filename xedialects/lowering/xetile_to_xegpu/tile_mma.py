"""Rule of `convert-xetile-to-xegpu` for `tile_mma`: the grid of `xegpu.dpas` ops (M up to the
maximum repeat count, N the execution size, K per element type, from the `XeArch` DPAS table),
chaining the accumulator over K; without C the first DPAS of each chain has no accumulator.
Operands are re-blocked to DPAS blocks (B in VNNI form for sub-32-bit types).
"""
from __future__ import annotations


from ...arch import ArchError
from ...core.typeinfo import vector_info
from ...xegpu.ops import DpasOp
from ...xetile.ops import TileMmaOp
from .converter import Converter
from .ir_helpers import ConversionError, vector_type


def lower_tile_mma(cv: Converter, rb, op):
    m = TileMmaOp(op)
    sa, ea = vector_info(m.a)
    sb, eb = vector_info(m.b)
    sr, er = vector_info(op.results[0])
    try:
        max_m, n_d, k_d = cv.arch.dpas_shape(ea, eb, er)
    except ArchError as e:
        raise ConversionError(op, str(e))
    ga = cv.grid_of(rb, m.a)
    gb = cv.grid_of(rb, m.b)
    gc = cv.grid_of(rb, m.c) if m.c is not None else None
    if len(sa) == 2:
        # an unblocked (subgroup-level) tile_mma: DPAS-sized blocks
        (M, K), (_, N) = sa, sb
        bm = next((d for d in range(max_m, 0, -1) if M % d == 0), 1)
        bk, bn = k_d, n_d
        if K % k_d or N % n_d:
            raise ConversionError(op, f"tile_mma {M}x{K} x {K}x{N}: K must be a multiple of the DPAS K = {k_d} "
                                      f"and N of the DPAS N = {n_d} for {ea}")
        sa, sb = (M // bm, K // bk, bm, bk), (K // bk, N // bn, bk, bn)
    mb, kb, bm, bk = sa
    _, nb, _, bn = sb
    fb = cv.vnni_f(eb)
    if bk % k_d:
        raise ConversionError(op, f"the K block {bk} is not a multiple of the DPAS K = {k_d} for {ea}")
    if bn % n_d:
        raise ConversionError(op, f"the N block {bn} is not a multiple of the DPAS N = {n_d}")
    dm = next(d for d in range(min(bm, max_m), 0, -1) if bm % d == 0)
    a_blocks = cv.reblock(ga, bm, bk, 1)
    b_blocks = cv.reblock(gb, bk, bn, fb)
    c_blocks = cv.reblock(gc, bm, bn, 1) if gc is not None else None
    acc_t = vector_type((dm, n_d), er)
    out = []
    for i in range(mb):
        for j in range(nb):
            cblk = c_blocks.at(i, j) if c_blocks is not None else None
            subs = {}
            for si in range(bm // dm):
                for sj in range(bn // n_d):
                    acc = cv.slice(cblk, 1, si * dm, sj * n_d, dm, n_d) if cblk is not None else None
                    for kk in range(kb):
                        ablk = a_blocks.at(i, kk)
                        bblk = b_blocks.at(kk, j)
                        for sk in range(bk // k_d):
                            a = cv.slice(ablk, 1, si * dm, sk * k_d, dm, k_d)
                            b = cv.slice(bblk, fb, sk * k_d, sj * n_d, k_d, n_d)
                            kw = {"acc": acc} if acc is not None else {}
                            acc = DpasOp.build(a=a, b=b, mode="vc", result_types=[acc_t], **kw).op.results[0]
                    subs[(si, sj)] = acc
            if len(subs) == 1:
                out.append(subs[(0, 0)])
                continue
            dest = cv.zero_block(bm, bn, er, 1)
            for (si, sj), v in subs.items():
                dest = cv.insert(v, dest, 1, si * dm, sj * n_d)
            out.append(dest)
    return [out]
