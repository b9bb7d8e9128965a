"""vector.multi_reduction / vector.reduction of every kind, shared by test_opencl_backend (the
kernels on the OpenCL device) and test_simt_reduce (the kernels distributed to SIMT mode).

One subgroup reduces an 8x32 pair of blocks (columns on the lanes / work-items) by rows (across
lanes: subgroup reductions), by columns (within lanes), to a scalar; accumulators in either layout
(a splat: element i in lane i; a slice of the block: all in lane 0, as convert-xetile-to-xegpu
produces them). Each result is stored in `out_rows` rows of O: the OpenCL test stores 1x8 / 1x16
blocks, the SIMT test 2x8 / 2x16 blocks (a 1x8 block store has no SIMT form, 8 elements cannot be
spread over 16 work-items)."""
import ml_dtypes
import numpy as np

FLOAT_KINDS = ["add", "mul", "minimumf", "maximumf", "minnumf", "maxnumf"]
INT_KINDS = ["add", "mul", "minsi", "maxsi", "minui", "maxui", "and", "or", "xor"]
RED_RESULTS = ("rows", "rows_slice_acc", "cols", "cols_slice_acc", "all_rows", "all_cols", "all")

REDUCTION_CASES = {"f32": ("f32", FLOAT_KINDS), "i32": ("i32", INT_KINDS), "f16": ("f16", ["add", "maximumf"]),
                   "bf16": ("bf16", ["mul", "minnumf"]), "i8": ("i8", ["add", "minui", "xor"]),
                   # NaNs in a row of each block: propagated by add, minimumf / maximumf, skipped by
                   # minnumf / maxnumf (also across lanes)
                   "f32_nan": ("f32", ["add", "minimumf", "maximumf", "minnumf", "maxnumf"])}

DTYPES = {"f32": np.float32, "f16": np.float16, "bf16": ml_dtypes.bfloat16, "i32": np.int32, "i8": np.int8}


def subgroup_module(params, body):
    """A module whose func.func @main(`params`) launches gpu.func @red(`params`) of gpu.module @m
    once, on one 16-work-item subgroup; `body` is the kernel's body (without gpu.return), its lines
    after the first indented by six spaces."""
    targs = params.replace(": ", " : ")
    return f"""module attributes {{gpu.container_module}} {{
  func.func @main({params}) {{
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    gpu.launch_func @m::@red blocks in (%c1, %c1, %c1) threads in (%c16, %c1, %c1) args({targs})
    return
  }}
  gpu.module @m {{
    gpu.func @red({params}) kernel attributes {{known_block_size = array<i32: 16, 1, 1>, xe.subgroup_size = 16 : i32}} {{
      {body}
      gpu.return
    }}
  }}
}}
"""


def red_acc(kind, elt):
    """The accumulator of a kind's reductions (for every kind a value that is not its identity)."""
    if elt.startswith("i"):
        return {"add": 3, "mul": 1, "and": -1}.get(kind, 2)
    return {"add": 0.5, "mul": 1.5}.get(kind, 0.25)


def reduction_kernel(elt, kinds, out_rows=1):
    """Per kind the seven RED_RESULTS of an 8x32 block pair: rows (across work-items), with the
    accumulator a slice of the block (all in work-item 0), columns (within work-items), with a row
    slice as the accumulator, and full reductions. Result j is stored in rows `out_rows` * j to
    `out_rows` * (j + 1) of O (1x8 or 1x16 blocks by a shape_cast, more rows by a broadcast; a
    scalar broadcast to 16 columns)."""
    T, R = elt, out_rows
    v816, v8, v16 = f"vector<8x16x{T}>", f"vector<8x{T}>", f"vector<16x{T}>"
    d816 = f"!xegpu.tensor_desc<8x16x{T}>"
    lines = [f"%d0 = xegpu.create_nd_tdesc %A[0, 0] {{mode = vc}} : memref<8x32x{T}> -> {d816}",
             f"%d1 = xegpu.create_nd_tdesc %A[0, 16] {{mode = vc}} : memref<8x32x{T}> -> {d816}",
             f"%b0 = xegpu.load_nd %d0 {{mode = vc}} : {d816} -> {v816}",
             f"%b1 = xegpu.load_nd %d1 {{mode = vc}} : {d816} -> {v816}"]

    def slice_(name, src, offs, sizes, res):
        return (f"{name} = vector.extract_strided_slice {src} {{offsets = {offs}, sizes = {sizes}, "
                f"strides = [1, 1]}} : {v816} to {res}")

    outs = []
    for i, k in enumerate(kinds):
        c = red_acc(k, T)
        c = str(c) if T.startswith("i") else f"{c:e}"
        p = f"%k{i}_"
        lines += [
            f"{p}s8 = arith.constant dense<{c}> : {v8}",
            f"{p}s16 = arith.constant dense<{c}> : {v16}",
            f"{p}s = arith.constant {c} : {T}",
            f"{p}r1 = vector.multi_reduction <{k}>, %b0, {p}s8 [1] : {v816} to {v8}",
            f"{p}r2 = vector.multi_reduction <{k}>, %b1, {p}r1 [1] : {v816} to {v8}",
            slice_(f"{p}c0", "%b0", [0, 0], [8, 1], f"vector<8x1x{T}>"),
            f"{p}a0 = vector.shape_cast {p}c0 : vector<8x1x{T}> to {v8}",
            slice_(f"{p}rest", "%b0", [0, 1], [8, 15], f"vector<8x15x{T}>"),
            f"{p}x1 = vector.multi_reduction <{k}>, {p}rest, {p}a0 [1] : vector<8x15x{T}> to {v8}",
            f"{p}x2 = vector.multi_reduction <{k}>, %b1, {p}x1 [1] : {v816} to {v8}",
            f"{p}q1 = vector.multi_reduction <{k}>, %b0, {p}s16 [0] : {v816} to {v16}",
            f"{p}q2 = vector.multi_reduction <{k}>, %b1, {p}q1 [0] : {v816} to {v16}",
            slice_(f"{p}w0", "%b1", [0, 0], [1, 16], f"vector<1x16x{T}>"),
            f"{p}wa = vector.shape_cast {p}w0 : vector<1x16x{T}> to {v16}",
            slice_(f"{p}wr", "%b1", [1, 0], [7, 16], f"vector<7x16x{T}>"),
            f"{p}w1 = vector.multi_reduction <{k}>, {p}wr, {p}wa [0] : vector<7x16x{T}> to {v16}",
            f"{p}f1 = vector.reduction <{k}>, {p}x2, {p}s : {v8} into {T}",
            f"{p}f2 = vector.reduction <{k}>, {p}q2 : {v16} into {T}",
            f"{p}f3 = vector.multi_reduction <{k}>, %b0, {p}s [0, 1] : {v816} to {T}",
        ]
        for name, w in (("r2", 8), ("x2", 8), ("q2", 16), ("w1", 16), ("f1", 0), ("f2", 0), ("f3", 0)):
            v = f"{p}{name}"
            if w:
                op = "vector.shape_cast" if R == 1 else "vector.broadcast"
                lines.append(f"{v}_o = {op} {v} : vector<{w}x{T}> to vector<{R}x{w}x{T}>")
            else:
                w = 16
                lines.append(f"{v}_o = vector.broadcast {v} : {T} to vector<{R}x16x{T}>")
            outs.append((f"{v}_o", w))
    n = R * len(outs)
    for j, (v, w) in enumerate(outs):
        d = f"!xegpu.tensor_desc<{R}x{w}x{T}>"
        lines += [f"%o{j} = xegpu.create_nd_tdesc %O[{R * j}, 0] {{mode = vc}} : memref<{n}x16x{T}> -> {d}",
                  f"xegpu.store_nd {v}, %o{j} {{mode = vc}} : vector<{R}x{w}x{T}>, {d}"]
    return subgroup_module(f"%A: memref<8x32x{T}>, %O: memref<{n}x16x{T}>", "\n      ".join(lines))


def reduction_args(case, out_rows=1):
    """(element type, kinds, [A, O]) of REDUCTION_CASES[case]: A an 8x32 input (integers without 0,
    which tells identities apart; NaNs for the "_nan" cases), O the zeroed output of
    reduction_kernel(elt, kinds, out_rows)."""
    elt, kinds = REDUCTION_CASES[case]
    dt = DTYPES[elt]
    rng = np.random.default_rng(3)
    if elt.startswith("i"):
        A = (rng.integers(1, 60, (8, 32)) * rng.choice([-1, 1], (8, 32))).astype(dt)
    else:
        A = rng.uniform(-1, 1, (8, 32)).astype(np.float32).astype(dt)
    if case.endswith("_nan"):
        A[2, 5] = A[6, 17] = np.nan
    n = len(kinds) * len(RED_RESULTS)
    return elt, kinds, [A, np.zeros((out_rows * n, 16), dt)]


def np_reduce(kind, x, axis=None):
    """numpy reference of a reduction kind (floats in f32, integers wrapping in their type)."""
    if kind in ("minui", "maxui"):
        u = x.view(np.dtype(f"u{x.dtype.itemsize}"))
        fn = np.minimum if kind == "minui" else np.maximum
        return np.asarray(fn.reduce(u, axis=axis)).view(x.dtype)
    fn = {"add": np.add, "mul": np.multiply, "minimumf": np.minimum, "maximumf": np.maximum, "minnumf": np.fmin,
          "maxnumf": np.fmax, "minsi": np.minimum, "maxsi": np.maximum, "and": np.bitwise_and,
          "or": np.bitwise_or, "xor": np.bitwise_xor}[kind]
    return fn.reduce(x, axis=axis, dtype=x.dtype)


def np_combine(kind, a, b):
    a, b = np.asarray(a), np.asarray(b, dtype=a.dtype)
    return np_reduce(kind, np.stack(np.broadcast_arrays(a, b)), axis=0)


def red_expected(kind, A, acc):
    """The seven RED_RESULTS of one kind, computed by numpy (f16/bf16 in f32)."""
    x = A.astype(np.float32) if A.dtype.kind == "f" or str(A.dtype) == "bfloat16" else A
    acc = x.dtype.type(acc)
    rows = np_combine(kind, np_reduce(kind, x, 1), acc)
    rows_slice = np_reduce(kind, x, 1)
    cols = np_combine(kind, np_reduce(kind, np.concatenate([x[:, :16], x[:, 16:]]), 0), acc)
    cols_slice = np_reduce(kind, x[:, 16:], 0)
    return [rows, rows_slice, cols, cols_slice, np_combine(kind, np_reduce(kind, rows_slice), acc),
            np_reduce(kind, cols), np_combine(kind, np_reduce(kind, x[:, :16]), acc)]


def reduction_mismatches(elt, kinds, A, got, refs, out_rows=1):
    """Every result in `got` (the O of reduction_kernel(elt, kinds, out_rows) run on A) that differs
    from the same result in one of `refs` (name -> such an O) or from numpy (red_expected), beyond
    the element type's tolerance (NaN where the reference has NaN): one line each."""
    tol = {"f32": 1e-5, "f16": 1e-3, "bf16": 1e-2}.get(elt, 0)
    bad = []
    for i, kind in enumerate(kinds):
        for j, (label, want) in enumerate(zip(RED_RESULTS, red_expected(kind, A, red_acc(kind, elt)))):
            row = out_rows * (i * len(RED_RESULTS) + j)
            w = np.size(want) if np.ndim(want) else 16
            g = got[row:row + out_rows, :w].astype(np.float64)
            checks = {name: r[row:row + out_rows, :w].astype(np.float64) for name, r in refs.items()}
            checks["numpy"] = np.broadcast_to(np.asarray(want).astype(A.dtype).astype(np.float64), (out_rows, w))
            for ref_name, r in checks.items():
                if not np.allclose(g, r, rtol=tol, atol=tol, equal_nan=True):
                    bad.append(f"{kind} {label} vs {ref_name}: {g[0]} != {r[0]}")
    return bad


# appendix 2.2 at 64x64: C = A x Bt^T + bias with the transpose of Bt through SLM (tile_transpose),
# the bias broadcast in registers, a tile_conv_layout to a row-band map through SLM and the row sums
# (tile_reduce <add> [1]: per-subgroup partial sums exchanged through SLM, subgroup reductions in the
# kernel)
TRANSPOSE_BROADCAST = """
#mp_a       = #xetile.wg_map<sg_layout = [2, 2], sg_data = [32, 32]>
#mp_a_pfh   = #xetile.wg_map<sg_layout = [4, 1], sg_data = [16, 32]>
#mp_b       = #xetile.wg_map<sg_layout = [2, 2], sg_data = [32, 32]>
#mp_bt      = #xetile.wg_map<sg_layout = [2, 2], sg_data = [32, 16]>
#mp_bt_pfh  = #xetile.wg_map<sg_layout = [4, 1], sg_data = [16, 32]>
#mp_c       = #xetile.wg_map<sg_layout = [2, 2], sg_data = [32, 32]>
#mp_bcast   = #xetile.wg_map<sg_layout = [2, 2], sg_data = [1, 32]>
#mp_reduce  = #xetile.wg_map<sg_layout = [4, 1], sg_data = [16, 1]>
#mp_reduce2 = #xetile.wg_map<sg_layout = [4, 1], sg_data = [16, 64]>
module attributes {gpu.container_module} {
  func.func @main(%a: memref<64x64xf16>, %bt: memref<64x64xf16>, %bcast: memref<64xf32>, %res: memref<64x1xf32>) {
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c64, %c1, %c1) args(%a : memref<64x64xf16>, %bt : memref<64x64xf16>, %bcast : memref<64xf32>, %res : memref<64x1xf32>)
    return
  }
  gpu.module @kernels {
    gpu.func @k(%a: memref<64x64xf16>, %bt: memref<64x64xf16>, %bcast: memref<64xf32>, %res: memref<64x1xf32>) kernel
        attributes {known_block_size = array<i32: 64, 1, 1>, xe.subgroup_size = 16 : i32} {
      %c0 = arith.constant 0 : index
      %c32 = arith.constant 32 : index
      %c64 = arith.constant 64 : index
      %1 = xetile.init_tile %a[%c0, %c0] : memref<64x64xf16> -> !xetile.tile<64x32xf16, #xetile.tile_attr<wg_map = #mp_a>>
      %2 = xetile.init_tile %bt[%c0, %c0] : memref<64x64xf16> -> !xetile.tile<64x32xf16, #xetile.tile_attr<wg_map = #mp_bt>>
      %bcast2 = memref.expand_shape %bcast [[0, 1]] output_shape [1, 64] : memref<64xf32> into memref<1x64xf32>
      %7 = xetile.init_tile %bcast2[%c0, %c0] : memref<1x64xf32> -> !xetile.tile<1x64xf32, #xetile.tile_attr<wg_map = #mp_bcast>>
      %3 = xetile.init_tile %res[%c0, %c0] : memref<64x1xf32> -> !xetile.tile<64x1xf32, #xetile.tile_attr<wg_map = #mp_reduce>>
      %zero = arith.constant dense<0.0> : vector<64x64xf32>
      %r:3 = scf.for %k = %c0 to %c64 step %c32
          iter_args(%at = %1, %btt = %2, %acc = %zero)
          -> (!xetile.tile<64x32xf16, #xetile.tile_attr<wg_map = #mp_a>>, !xetile.tile<64x32xf16, #xetile.tile_attr<wg_map = #mp_bt>>,
              vector<64x64xf32>) {
        %4 = xetile.load_tile %at : !xetile.tile<64x32xf16, #xetile.tile_attr<wg_map = #mp_a>> -> vector<64x32xf16>
        %10 = xetile.load_tile %btt : !xetile.tile<64x32xf16, #xetile.tile_attr<wg_map = #mp_bt>> -> vector<64x32xf16>
        %5 = xetile.tile_transpose %10 [1, 0] {wg_map = #mp_b} : vector<64x32xf16> -> vector<32x64xf16>
        %6 = xetile.tile_mma %4, %5, %acc {wg_map_a = #mp_a, wg_map_b = #mp_b, wg_map_c = #mp_c}
            : vector<64x32xf16>, vector<32x64xf16>, vector<64x64xf32> -> vector<64x64xf32>
        %at2 = xetile.update_tile_offset %at, [%c0, %c32] : !xetile.tile<64x32xf16, #xetile.tile_attr<wg_map = #mp_a>>
        %bt2 = xetile.update_tile_offset %btt, [%c0, %c32] : !xetile.tile<64x32xf16, #xetile.tile_attr<wg_map = #mp_bt>>
        scf.yield %at2, %bt2, %6
            : !xetile.tile<64x32xf16, #xetile.tile_attr<wg_map = #mp_a>>, !xetile.tile<64x32xf16, #xetile.tile_attr<wg_map = #mp_bt>>,
              vector<64x64xf32>
      }
      %12 = xetile.load_tile %7 : !xetile.tile<1x64xf32, #xetile.tile_attr<wg_map = #mp_bcast>> -> vector<1x64xf32>
      %13 = xetile.tile_broadcast %12 [0] {wg_map = #mp_c} : vector<1x64xf32> -> vector<64x64xf32>
      %14 = arith.addf %r#2, %13 : vector<64x64xf32>
      %15 = xetile.tile_conv_layout %14 {wg_map = #mp_reduce2, wg_map_source = #mp_c} : vector<64x64xf32> -> vector<64x64xf32>
      %16 = xetile.tile_reduce <add> %15 [1] {wg_map = #mp_reduce} : vector<64x64xf32> -> vector<64x1xf32>
      xetile.store_tile %16, %3 : vector<64x1xf32>, !xetile.tile<64x1xf32, #xetile.tile_attr<wg_map = #mp_reduce>>
      gpu.return
    }
  }
}
"""
