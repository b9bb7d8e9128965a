"""Test support for the simulator: the MLIR context test programs parse in, and generators of GEMM
programs (XeTile subgroup level, XeGPU VC mode, linalg reference) in generic form, used by the tests
and benchmarks to exercise the simulator independently of the lowering passes.
"""
from __future__ import annotations

from mlir import ir


def make_test_context() -> ir.Context:
    """Our standard context (`xedialects.context.make_context`), also accepting unregistered ops."""
    from ..context import make_context

    return make_context(allow_unregistered=True)


_DEFAULT_CTX = None


def parse_module(text: str, ctx: ir.Context | None = None) -> ir.Module:
    """`text` in MLIR's encoding (what the generators below write) or in the readable syntax (what `str()`
    of IR prints outside the package, e.g. a user's `simulate(str(m), ...)`), without the RFC verifier."""
    global _DEFAULT_CTX
    if ctx is None:
        if _DEFAULT_CTX is None:
            _DEFAULT_CTX = make_test_context()
        ctx = _DEFAULT_CTX
    with ctx, ir.Location.unknown():
        try:
            return ir.Module.parse(text)
        except ir.MLIRError:
            if "xetile." not in text and "xegpu." not in text:
                raise
        from ..syntax.convert import to_generic

        return ir.Module.parse(to_generic(text))


# ----------------------------------------------------------------------------------------------
# generic-form builders

DYN = "-9223372036854775808"


class _Names:
    def __init__(self):
        self.n = 0
        self.lines = []
        self.consts = {}

    def fresh(self, p="v"):
        self.n += 1
        return f"%{p}{self.n}"

    def emit(self, s):
        self.lines.append(s)

    def const(self, v, ty="index"):
        key = (v, ty)
        if key not in self.consts:
            nm = f"%c{v}_{ty}".replace("-", "m").replace(".", "_")
            self.consts[key] = nm
            self.lines.insert(0, f"{nm} = arith.constant {v} : {ty}")
        return self.consts[key]


def _mixed(vals):
    """(operand names, static array) for a list of ints / SSA names."""
    dyn, stat = [], []
    for v in vals:
        if isinstance(v, str):
            dyn.append(v)
            stat.append(DYN)
        else:
            stat.append(str(v))
    return dyn, "array<i64" + (": " + ", ".join(stat) if stat else "") + ">"


def tile_type(shape, elem, attr="unit"):
    return f"!xetile.tile<array<i64: {', '.join(map(str, shape))}>, {elem}, {attr}>"


def tdesc_type(shape, elem, attr="unit"):
    return f"!xegpu.tensor_desc<array<i64: {', '.join(map(str, shape))}>, {elem}, {attr}>"


def vec(shape, elem):
    return f"vector<{'x'.join(map(str, shape))}x{elem}>"


def init_tile(res, src, src_ty, offsets, ty, shape=(), strides=()):
    do, so = _mixed(offsets)
    ds, ss = _mixed(shape)
    dt, stt = _mixed(strides)
    ops = [src] + do + ds + dt
    tys = [src_ty] + ["index"] * (len(do) + len(ds) + len(dt))
    return (f'{res} = "xetile.init_tile"({", ".join(ops)}) {{operandSegmentSizes = array<i32: 1, {len(do)}, '
            f'{len(ds)}, {len(dt)}, 0>, static_offsets = {so}, static_shape = {ss}, static_strides = {stt}}} : '
            f'({", ".join(tys)}) -> {ty}')


def create_nd_tdesc(res, src, src_ty, offsets, ty, shape=(), strides=(), mode="vc"):
    do, so = _mixed(offsets)
    ds, ss = _mixed(shape)
    dt, stt = _mixed(strides)
    ops = [src] + do + ds + dt
    tys = [src_ty] + ["index"] * (len(do) + len(ds) + len(dt))
    m = f', mode = "{mode}"' if mode else ""
    return (f'{res} = "xegpu.create_nd_tdesc"({", ".join(ops)}) {{operandSegmentSizes = array<i32: 1, {len(do)}, '
            f'{len(ds)}, {len(dt)}>, static_offsets = {so}, static_shape = {ss}, static_strides = {stt}{m}}} : '
            f'({", ".join(tys)}) -> {ty}')


def update_offset(res, op, d, d_ty, offsets, mode=None):
    do, so = _mixed(offsets)
    m = f', mode = "{mode}"' if mode else ""
    return (f'{res} = "{op}"({", ".join([d] + do)}) {{static_offsets = {so}{m}}} : '
            f'({", ".join([d_ty] + ["index"] * len(do))}) -> {d_ty}')


# ----------------------------------------------------------------------------------------------
# GEMM program generators


def linalg_matmul_func(name, M, N, K, in_elem="bf16", acc_elem="f32"):
    return (f"  func.func @{name}(%A: memref<{M}x{K}x{in_elem}>, %B: memref<{K}x{N}x{in_elem}>, "
            f"%C: memref<{M}x{N}x{acc_elem}>) {{\n"
            f"    linalg.matmul ins(%A, %B : memref<{M}x{K}x{in_elem}>, memref<{K}x{N}x{in_elem}>) "
            f"outs(%C : memref<{M}x{N}x{acc_elem}>)\n    return\n  }}\n")


def _host(name, kernel, M, N, K, in_elem, acc_elem, grid, threads):
    return (f"  func.func @{name}(%A: memref<{M}x{K}x{in_elem}>, %B: memref<{K}x{N}x{in_elem}>, "
            f"%C: memref<{M}x{N}x{acc_elem}>) {{\n"
            f"    %gx = arith.constant {grid[0]} : index\n    %gy = arith.constant {grid[1]} : index\n"
            f"    %one = arith.constant 1 : index\n    %nt = arith.constant {threads} : index\n"
            f"    gpu.launch_func @kernels::@{kernel} blocks in (%gx, %gy, %one) threads in (%nt, %one, %one) "
            f"args(%A : memref<{M}x{K}x{in_elem}>, %B : memref<{K}x{N}x{in_elem}>, %C : memref<{M}x{N}x{acc_elem}>)\n"
            f"    return\n  }}\n")


def xetile_gemm_module(M, N, K, *, wg_tile=(64, 64), sg_layout=(2, 2), k_step=32, in_elem="bf16",
                       acc_elem="f32", bug_offset=0, with_reference=True) -> str:
    """Subgroup-level XeTile GEMM C = A x B. Each subgroup owns an (wg_tile / sg_layout) C tile.
    bug_offset shifts the B tile's starting row (a deliberately wrong kernel when non-zero)."""
    WM, WN = wg_tile
    LM, LN = sg_layout
    SM, SN = WM // LM, WN // LN
    grid = (-(-N // WN), -(-M // WM))
    nsg = LM * LN
    a_mt = f"memref<{M}x{K}x{in_elem}>"
    b_mt = f"memref<{K}x{N}x{in_elem}>"
    c_mt = f"memref<{M}x{N}x{acc_elem}>"
    ta = tile_type((SM, k_step), in_elem)
    tb = tile_type((k_step, SN), in_elem)
    tc = tile_type((SM, SN), acc_elem)
    va, vb, vc = vec((SM, k_step), in_elem), vec((k_step, SN), in_elem), vec((SM, SN), acc_elem)
    zero = "0.0" if acc_elem.startswith("f") else "0"
    body = f"""
      %c0 = arith.constant 0 : index
      %cK = arith.constant {K} : index
      %cks = arith.constant {k_step} : index
      %cWM = arith.constant {WM} : index
      %cWN = arith.constant {WN} : index
      %cSM = arith.constant {SM} : index
      %cSN = arith.constant {SN} : index
      %cLN = arith.constant {LN} : index
      %cbug = arith.constant {bug_offset} : index
      %bx = gpu.block_id x
      %by = gpu.block_id y
      %sg = gpu.subgroup_id : index
      %sgm = arith.divui %sg, %cLN : index
      %sgn = arith.remui %sg, %cLN : index
      %wm = arith.muli %by, %cWM : index
      %wn = arith.muli %bx, %cWN : index
      %om = arith.muli %sgm, %cSM : index
      %on = arith.muli %sgn, %cSN : index
      %m0 = arith.addi %wm, %om : index
      %n0 = arith.addi %wn, %on : index
      {init_tile("%ta", "%A", a_mt, ["%m0", "%c0"], ta)}
      {init_tile("%tb", "%B", b_mt, ["%cbug", "%n0"], tb)}
      %zero = arith.constant dense<{zero}> : {vc}
      %r:3 = scf.for %k = %c0 to %cK step %cks iter_args(%a = %ta, %b = %tb, %acc = %zero) -> ({ta}, {tb}, {vc}) {{
        %xa = "xetile.load_tile"(%a) : ({ta}) -> {va}
        %xb = "xetile.load_tile"(%b) : ({tb}) -> {vb}
        %acc2 = "xetile.tile_mma"(%xa, %xb, %acc) : ({va}, {vb}, {vc}) -> {vc}
        {update_offset("%a2", "xetile.update_tile_offset", "%a", ta, [0, k_step])}
        {update_offset("%b2", "xetile.update_tile_offset", "%b", tb, [k_step, 0])}
        scf.yield %a2, %b2, %acc2 : {ta}, {tb}, {vc}
      }}
      {init_tile("%tc", "%C", c_mt, ["%m0", "%n0"], tc)}
      "xetile.store_tile"(%r#2, %tc) : ({vc}, {tc}) -> ()
      gpu.return"""
    text = "module attributes {gpu.container_module} {\n  gpu.module @kernels {\n"
    text += f"    gpu.func @gemm(%A: {a_mt}, %B: {b_mt}, %C: {c_mt}) kernel {{{body}\n    }}\n  }}\n"
    text += _host("main", "gemm", M, N, K, in_elem, acc_elem, grid, nsg * 16)
    if with_reference:
        text += linalg_matmul_func("reference", M, N, K, in_elem, acc_elem)
    text += "}\n"
    return text


def xegpu_gemm_module(M, N, K, *, wg_tile=(256, 256), sg_layout=(8, 4), k_step=32, in_elem="bf16",
                      acc_elem="f32", bug_offset=0, with_reference=True, a_vnni=False) -> str:
    """VC-mode XeGPU GEMM with 8x16 (A) / 16x16 (B, vnni_axis = 0) blocks and 8x16x16 dpas."""
    WM, WN = wg_tile
    LM, LN = sg_layout
    SM, SN = WM // LM, WN // LN
    assert SM % 8 == 0 and SN % 16 == 0 and k_step % 16 == 0
    nm, nn, nk = SM // 8, SN // 16, k_step // 16
    grid = (-(-N // WN), -(-M // WM))
    nsg = LM * LN
    a_mt = f"memref<{M}x{K}x{in_elem}>"
    b_mt = f"memref<{K}x{N}x{in_elem}>"
    c_mt = f"memref<{M}x{N}x{acc_elem}>"
    da = tdesc_type((8, 16), in_elem)
    db = tdesc_type((16, 16), in_elem)
    dc = tdesc_type((8, 16), acc_elem)
    va = vec((8, 8, 2), in_elem) if a_vnni else vec((8, 16), in_elem)
    vb = vec((8, 16, 2), in_elem)
    vc = vec((8, 16), acc_elem)
    zero = "0.0" if acc_elem.startswith("f") else "0"
    L = []
    e = L.append
    e("%c0 = arith.constant 0 : index")
    e(f"%cK = arith.constant {K} : index")
    e(f"%cks = arith.constant {k_step} : index")
    e(f"%cWM = arith.constant {WM} : index")
    e(f"%cWN = arith.constant {WN} : index")
    e(f"%cSM = arith.constant {SM} : index")
    e(f"%cSN = arith.constant {SN} : index")
    e(f"%cLN = arith.constant {LN} : index")
    e("%bx = gpu.block_id x")
    e("%by = gpu.block_id y")
    e("%sg = gpu.subgroup_id : index")
    e("%sgm = arith.divui %sg, %cLN : index")
    e("%sgn = arith.remui %sg, %cLN : index")
    e("%wm = arith.muli %by, %cWM : index")
    e("%wn = arith.muli %bx, %cWN : index")
    e("%om = arith.muli %sgm, %cSM : index")
    e("%on = arith.muli %sgn, %cSN : index")
    e("%m0 = arith.addi %wm, %om : index")
    e("%n0 = arith.addi %wn, %on : index")
    offs = set()
    for i in range(max(nm, nn, nk) + 1):
        for s in (8, 16):
            offs.add(i * s)
    offs.add(bug_offset)
    for v in sorted(offs):
        e(f"%i{v} = arith.constant {v} : index")
    for i in range(nm):
        e(f"%am{i} = arith.addi %m0, %i{8 * i} : index")
    for j in range(nn):
        e(f"%bn{j} = arith.addi %n0, %i{16 * j} : index")
    iter_names, iter_inits, iter_types = [], [], []
    for i in range(nm):
        for kk in range(nk):
            e(create_nd_tdesc(f"%da{i}_{kk}", "%A", a_mt, [f"%am{i}", f"%i{16 * kk}"], da))
            iter_names.append(f"%a{i}_{kk}")
            iter_inits.append(f"%da{i}_{kk}")
            iter_types.append(da)
    for kk in range(nk):
        e(f"%brow{kk} = arith.constant {16 * kk + bug_offset} : index")
        for j in range(nn):
            e(create_nd_tdesc(f"%db{kk}_{j}", "%B", b_mt, [f"%brow{kk}", f"%bn{j}"], db))
            iter_names.append(f"%b{kk}_{j}")
            iter_inits.append(f"%db{kk}_{j}")
            iter_types.append(db)
    e(f"%zero = arith.constant dense<{zero}> : {vc}")
    for i in range(nm):
        for j in range(nn):
            iter_names.append(f"%acc{i}_{j}")
            iter_inits.append("%zero")
            iter_types.append(vc)
    n_iter = len(iter_names)
    e(f"%r:{n_iter} = scf.for %k = %c0 to %cK step %cks iter_args("
      + ", ".join(f"{a} = {b}" for a, b in zip(iter_names, iter_inits)) + ") -> (" + ", ".join(iter_types) + ") {")
    body = []
    b_ = body.append
    a_attr = ', vnni_axis = 1 : i64' if a_vnni else ''
    for i in range(nm):
        for kk in range(nk):
            b_(f'%xa{i}_{kk} = "xegpu.load_nd"(%a{i}_{kk}) {{mode = "vc"{a_attr}}} : ({da}) -> {va}')
    for kk in range(nk):
        for j in range(nn):
            b_(f'%xb{kk}_{j} = "xegpu.load_nd"(%b{kk}_{j}) {{mode = "vc", vnni_axis = 0 : i64}} : ({db}) -> {vb}')
    for i in range(nm):
        for j in range(nn):
            prev = f"%acc{i}_{j}"
            for kk in range(nk):
                nxt = f"%p{i}_{j}_{kk}"
                b_(f'{nxt} = "xegpu.dpas"(%xa{i}_{kk}, %xb{kk}_{j}, {prev}) {{mode = "vc"}} : '
                   f'({va}, {vb}, {vc}) -> {vc}')
                prev = nxt
    yields = []
    for i in range(nm):
        for kk in range(nk):
            b_(update_offset(f"%na{i}_{kk}", "xegpu.update_nd_offset", f"%a{i}_{kk}", da, [0, k_step], "vc"))
            yields.append(f"%na{i}_{kk}")
    for kk in range(nk):
        for j in range(nn):
            b_(update_offset(f"%nb{kk}_{j}", "xegpu.update_nd_offset", f"%b{kk}_{j}", db, [k_step, 0], "vc"))
            yields.append(f"%nb{kk}_{j}")
    for i in range(nm):
        for j in range(nn):
            yields.append(f"%p{i}_{j}_{nk - 1}")
    b_("scf.yield " + ", ".join(yields) + " : " + ", ".join(iter_types))
    L.extend("  " + x for x in body)
    e("}")
    base = n_iter - nm * nn
    for i in range(nm):
        for j in range(nn):
            e(create_nd_tdesc(f"%dc{i}_{j}", "%C", c_mt, [f"%am{i}", f"%bn{j}"], dc))
            e(f'"xegpu.store_nd"(%r#{base + i * nn + j}, %dc{i}_{j}) {{mode = "vc"}} : ({vc}, {dc}) -> ()')
    e("gpu.return")
    text = "module attributes {gpu.container_module} {\n  gpu.module @kernels {\n"
    text += f"    gpu.func @gemm(%A: {a_mt}, %B: {b_mt}, %C: {c_mt}) kernel {{\n"
    text += "\n".join("      " + x for x in L) + "\n    }\n  }\n"
    text += _host("main", "gemm", M, N, K, in_elem, acc_elem, grid, nsg * 16)
    if with_reference:
        text += linalg_matmul_func("reference", M, N, K, in_elem, acc_elem)
    text += "}\n"
    return text


def random_inputs(M, N, K, in_elem="bf16", acc_elem="f32", seed=0):
    import numpy as np

    from .typeinfo import scalar_dtype

    rng = np.random.default_rng(seed)
    dt = scalar_dtype(in_elem)
    if dt.kind in "iu":
        A = rng.integers(-8, 8, (M, K)).astype(dt)
        B = rng.integers(-8, 8, (K, N)).astype(dt)
    else:
        A = rng.standard_normal((M, K)).astype(np.float32).astype(dt)
        B = rng.standard_normal((K, N)).astype(np.float32).astype(dt)
    C = np.zeros((M, N), scalar_dtype(acc_elem))
    return A, B, C


def single_kernel_module(args, body: str, grid=(1, 1, 1), block=(16, 1, 1), extra_funcs: str = "",
                         kernel_attrs: str = "") -> str:
    """Module with one kernel `@kernels::@k(args)` whose body is `body` (without gpu.return) and a
    host `@main(args)` launching it. args: list of (name, type) (names without %)."""
    sig = ", ".join(f"%{n}: {t}" for n, t in args)
    kargs = ", ".join(f"%{n} : {t}" for n, t in args)
    ind = "\n".join("      " + ln for ln in body.strip("\n").splitlines())
    text = "module attributes {gpu.container_module} {\n  gpu.module @kernels {\n"
    text += f"    gpu.func @k({sig}) {kernel_attrs}kernel {{\n{ind}\n      gpu.return\n    }}\n"
    text += extra_funcs
    text += "  }\n"
    text += f"  func.func @main({sig}) {{\n"
    for i in range(3):
        text += f"    %g{i} = arith.constant {grid[i]} : index\n"
    for i in range(3):
        text += f"    %t{i} = arith.constant {block[i]} : index\n"
    text += ("    gpu.launch_func @kernels::@k blocks in (%g0, %g1, %g2) threads in (%t0, %t1, %t2)"
             + (f" args({kargs})" if args else "") + "\n    return\n  }\n}\n")
    return text


def _arr(xs):
    return "array<i64: " + ", ".join(map(str, xs)) + ">"


def wg_map(sg_layout, sg_data):
    return f"#xetile.wg_map<{_arr(sg_layout)}, {_arr(sg_data)}>"


def tile_attr(order=(1, 0), inner_blocks=None, wg=None, sg=None, memory_space=0, scattered=False):
    """Generic #xetile.tile_attr (wg: (sg_layout, sg_data); sg: (wi_layout, wi_data))."""
    ib = _arr(inner_blocks) if inner_blocks else "unit"
    w = wg_map(*wg) if wg else "unit"
    s = f"#xetile.sg_map<{_arr(sg[0])}, {_arr(sg[1])}>" if sg else "unit"
    return (f"#xetile.tile_attr<{_arr(order)}, {ib}, {w}, {s}, {memory_space} : i32, "
            f"{'true' if scattered else 'false'}>")


def tdesc_attr(memory_scope="global", boundary_check=True, scattered=False, chunk=1, sg=None):
    s = f"#xegpu.sg_map<{_arr(sg[0])}, {_arr(sg[1])}>" if sg else "unit"
    return (f'#xegpu.tdesc_attr<"{memory_scope}", {"true" if boundary_check else "false"}, '
            f'{"true" if scattered else "false"}, {chunk} : i64, {s}>')
