"""The pvc emulation library itself (xedialects.runtime.pvc_emulation), built from its OpenCL C
source on the OpenCL CPU device, element by element against the model the lowering and the
simulator use:

* every 2D block read (plain, VNNI transform, transpose; each element size and array length the
  pvc target can choose), write and prefetch at an inside block, a block crossing the right and
  bottom edges and one crossing the top-left corner (negative coordinates): each lane's values
  against a numpy window of the surface with zero fill outside (the simulator's load_nd) dealt to
  the lanes by `spirv_builtins.Block2D.lane_of` (the lowering's per-lane model); writes against
  the surface with the elements inside replaced and everything else untouched;
* the surface rules: each violation is recorded once with the builtin's name, read back and
  cleared;
* every DPAS builtin (bf16, f16, i8/u8 mixes, tf32; M = 1, 2, 4, 8) on operands packed by
  `spirv_builtins.dpas_a_lane` and the B packing: integers exact, floats within f32 summation
  error of the exact sum (tf32 inputs rounded by `sim.numerics.round_tf32`);
* the f32 -> bf16 conversion builtin against the simulator's rounding (ml_dtypes), bit for bit.
"""
import warnings

import numpy as np
import pytest

from xedialects.lowering.xegpu_to_spirv import spirv_builtins as bi
from xedialects.runtime import pvc_emulation
from xedialects.runtime.pvc_emulation import library
from xedialects.sim.numerics import round_tf32

from opencl_support import RT, needs_rt

SUB = "__attribute__((intel_reqd_sub_group_size(16)))"
BLOCKS = library.block_builtins()
DPAS = library.dpas_builtins()
_NP = {"uchar": np.uint8, "ushort": np.uint16, "uint": np.uint32, "ulong": np.uint64, "short": np.int16,
       "int": np.int32, "float": np.float32}

CVT_N = 4096             # values of the f32 -> bf16 conversion test
# the surface of the block tests: 128 bytes wide, pitch 192, 40 rows
WIDTH, PITCH, HEIGHT = 128, 192, 40


def _kernel(i, b: bi.Block2D) -> str:
    head = f"kernel {SUB} void t{i}(global uchar* s, int off, int w, int h, int p, int x, int y"
    call = f"{b.name}((global void*)(s + off), w, h, p, (int2)(x, y)"
    if b.kind == "prefetch":
        return f"{head}) {{ {call}); }}"
    n, lt = b.values_per_lane, b.lane_type
    lane = "int l = get_sub_group_local_id();"
    if b.kind == "write":
        return (f"{head}, global {lt}* io) {{ {lane} {lt} d[{n}]; for (int i = 0; i < {n}; ++i) d[i] = io[i * 16 + l]; "
                f"{call}, d); }}")
    return (f"{head}, global {lt}* io) {{ {lane} {lt} d[{n}]; {call}, d); "
            f"for (int i = 0; i < {n}; ++i) io[i * 16 + l] = d[i]; }}")


def _scalar_type(t):
    return t.rstrip("0123456789")


def _dpas_kernel(i, d: bi.DpasBuiltin) -> str:
    return (f"kernel {SUB} void d{i}(global {d.a_type}* a, global {d.b_type}* b, global {d.c_type}* c, "
            f"global {d.c_type}* o) {{ int l = get_sub_group_local_id(); o[l] = {d.builtin.name}(a[l], b[l], c[l]); }}")


_CVT_KERNEL = (f"kernel {SUB} void cvt(global float* x, global ushort* y) {{ int l = get_sub_group_local_id(); "
               f"for (int i = 0; i < {CVT_N} / 16; ++i) y[i * 16 + l] = {bi.BF16_CONVERT.name}(x[i * 16 + l]); }}\n")
_PROGRAM = None


def _program():
    global _PROGRAM
    if _PROGRAM is None:
        src = pvc_emulation.source() + "\n".join(_kernel(i, b) for i, b in enumerate(BLOCKS)) + "\n" + \
            "\n".join(_dpas_kernel(i, d) for i, d in enumerate(DPAS)) + "\n" + _CVT_KERNEL
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            _PROGRAM = RT.cl.Program(RT.context, src).build(options=pvc_emulation.options())
    return _PROGRAM


def _launch(name, *args):
    cl = RT.cl
    bufs, vals = [], []
    for a in args:
        if isinstance(a, np.ndarray):
            buf = cl.Buffer(RT.context, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=a)
            bufs.append((a, buf))
            vals.append(buf)
        else:
            vals.append(np.int32(a))
    k = cl.Kernel(_program(), name)
    k.set_args(*vals)
    cl.enqueue_nd_range_kernel(RT.queue, k, (16,), (16,)).wait()
    for a, buf in bufs:
        cl.enqueue_copy(RT.queue, a, buf)
    RT.queue.finish()


def _take_error():
    out = np.zeros(pvc_emulation.ERROR_WORDS, np.int32)
    _launch(pvc_emulation.ERROR_KERNEL, out)
    return pvc_emulation.describe_error(out)


def _positions(b: bi.Block2D):
    wel = WIDTH * 8 // b.bits
    cols = b.width * b.count
    return {"inside": (wel // 4, 3), "right_bottom_edge": (wel - cols // 2, HEIGHT - max(1, b.rows // 2)),
            "top_left_edge": (-(b.width // 2), -1)}


def _expected_lanes(b: bi.Block2D, mem, x, y):
    """(16, values * pack) elements per lane: the window (zero outside) dealt by lane_of."""
    edt = _NP[{8: "uchar", 16: "ushort", 32: "uint", 64: "ulong"}[b.bits]]
    surf = mem.view(edt).reshape(HEIGHT, PITCH * 8 // b.bits)[:, :WIDTH * 8 // b.bits]
    R, C = np.indices((b.rows, b.width * b.count))
    Y, X = y + R, x + C
    inside = (Y >= 0) & (Y < surf.shape[0]) & (X >= 0) & (X < surf.shape[1])
    vals = np.where(inside, surf[np.clip(Y, 0, surf.shape[0] - 1), np.clip(X, 0, surf.shape[1] - 1)], 0).astype(edt)
    lane, vi, part = b.lane_of(R, C)
    out = np.zeros((16, b.values_per_lane * b.pack), edt)
    out[lane, vi * b.pack + part] = vals
    return out, (lane, vi * b.pack + part), inside, (Y, X), edt


@needs_rt
@pytest.mark.parametrize("i", [i for i, b in enumerate(BLOCKS) if b.kind != "prefetch"],
                         ids=[b.name for b in BLOCKS if b.kind != "prefetch"])
def test_block_builtin_matches_model(i):
    b = BLOCKS[i]
    rng = np.random.default_rng(i)
    lt = _NP[b.lane_type]
    for where, (x, y) in _positions(b).items():
        mem = rng.integers(1, 255, size=HEIGHT * PITCH, dtype=np.uint8)
        want, slots, inside, (Y, X), edt = _expected_lanes(b, mem, x, y)
        if b.kind == "write":
            data = rng.integers(0, 2 ** 16, size=(b.values_per_lane, 16), dtype=np.uint64).astype(lt)
            got_mem = mem.copy()
            _launch(f"t{i}", got_mem, 0, WIDTH, HEIGHT, PITCH, x, y, data)
            per_lane = np.ascontiguousarray(data.T).view(edt)          # (16, values * pack)
            exp = mem.copy()
            surf = exp.view(edt).reshape(HEIGHT, -1)
            surf[Y[inside], X[inside]] = per_lane[slots[0][inside], slots[1][inside]]
            assert np.array_equal(got_mem, exp), f"{b.name} at {where} ({x}, {y})"
        else:
            io = np.zeros((b.values_per_lane, 16), lt)
            _launch(f"t{i}", mem, 0, WIDTH, HEIGHT, PITCH, x, y, io)
            got = np.ascontiguousarray(io.T).view(edt)
            bad = np.argwhere(got != want)
            assert not len(bad), f"{b.name} at {where} ({x}, {y}): lane/slot {bad[:4].tolist()} differ"
        assert _take_error() is None


@needs_rt
def test_prefetches_check_only_the_surface():
    mem = np.zeros(HEIGHT * PITCH, np.uint8)
    for i, b in enumerate(BLOCKS):
        if b.kind == "prefetch":
            _launch(f"t{i}", mem, 0, WIDTH, HEIGHT, PITCH, -3, HEIGHT - 1)
            assert _take_error() is None, b.name
            _launch(f"t{i}", mem, 0, WIDTH, HEIGHT, 100, 0, 0)
            assert f"{b.name}: the surface pitch 100 bytes is not a multiple of 16" in _take_error()


VIOLATIONS = [  # (offset, width, height, pitch) -> message
    ((4, WIDTH, HEIGHT, PITCH), "the surface base address 0x"),
    ((0, 48, HEIGHT, PITCH), "the surface width 48 bytes is below the minimum 64"),
    ((0, 66, HEIGHT, PITCH), "the surface width 66 bytes is not a multiple of 4"),
    ((0, WIDTH, HEIGHT, 32), "the surface pitch 32 bytes is below the minimum 64"),
    ((0, WIDTH, HEIGHT, 200), "the surface pitch 200 bytes is not a multiple of 16"),
    ((0, WIDTH, HEIGHT, 112), "the surface pitch 112 bytes is smaller than its width"),
    ((0, WIDTH, 0, PITCH), "the surface height 0 rows is outside 1..16777216"),
    ((0, 1 << 25, HEIGHT, PITCH), "the surface width 33554432 bytes exceeds 16777216"),
]


@needs_rt
@pytest.mark.parametrize("args,message", VIOLATIONS, ids=[m.split(" bytes")[0][12:] for _, m in VIOLATIONS])
def test_surface_rule_violation_is_reported_once_and_cleared(args, message):
    i = next(i for i, b in enumerate(BLOCKS) if b.name == "intel_sub_group_2d_block_read_16b_8r16x2c")
    b = BLOCKS[i]
    mem = np.full(HEIGHT * PITCH + 64, 7, np.uint8)
    io = np.full((b.values_per_lane, 16), 5, np.uint16)
    _launch(f"t{i}", mem, *args, 0, 0, io)
    text = _take_error()
    assert text is not None and text.startswith(f"{b.name}: {message}"), text
    assert "work-group (0, 0, 0)" in text and "a PVC GPU would not run" in text
    assert not io.any()                  # nothing read: zeros, not memory
    assert _take_error() is None         # read once, then cleared


def _dpas_operands(d: bi.DpasBuiltin, rng):
    name = d.builtin.name
    m = d.m
    if "tf32" in name:
        ea = "tf32"
        K, A, B = 8, rng.uniform(-1, 1, (m, 8)).astype(np.float32), rng.uniform(-1, 1, (8, 16)).astype(np.float32)
        C = rng.uniform(-1, 1, (m, 16)).astype(np.float32)
        a_el, b_el = A, B
        Av, Bv = round_tf32(A).astype(np.float64), round_tf32(B).astype(np.float64)
    elif "f16" in name:
        ea = "bf16" if "bf16" in name else "f16"
        K = 16
        if ea == "bf16":
            A = (rng.uniform(-2, 2, (m, K)).astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)
            B = (rng.uniform(-2, 2, (K, 16)).astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)
            Av = (A.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
            Bv = (B.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
        else:
            A = rng.uniform(-2, 2, (m, K)).astype(np.float16).view(np.uint16)
            B = rng.uniform(-2, 2, (K, 16)).astype(np.float16).view(np.uint16)
            Av, Bv = A.view(np.float16).astype(np.float64), B.view(np.float16).astype(np.float64)
        a_el, b_el = A, B
        C = rng.uniform(-4, 4, (m, 16)).astype(np.float32)
    else:
        ta, tb = name.split("_")[3:5]
        K = 32
        dt = {"i8": np.int8, "u8": np.uint8}
        A = rng.integers(-128 if ta == "i8" else 0, 128 if ta == "i8" else 256, (m, K)).astype(dt[ta])
        B = rng.integers(-128 if tb == "i8" else 0, 128 if tb == "i8" else 256, (K, 16)).astype(dt[tb])
        C = rng.integers(-1000, 1000, (m, 16)).astype(np.int32)
        a_el, b_el, Av, Bv = A, B, A.astype(np.int64), B.astype(np.int64)
        ea = ta
    mm, kk = np.indices((m, K))
    lane, slot = bi.dpas_a_lane(ea, mm, kk)
    a_un = np.zeros((16, m * d.a_pack if "tf32" not in name else max(1, m // 2)), a_el.dtype)
    a_un[lane, slot] = a_el
    b_un = np.ascontiguousarray(b_el.T)                      # lane n: column n, k in order
    a = np.ascontiguousarray(a_un).view(_NP[_scalar_type(d.a_type)])
    b = b_un.view(_NP[_scalar_type(d.b_type)].__name__.startswith("u") and np.uint32 or
                  (np.float32 if "tf32" in name else np.int32))
    c_lane = np.ascontiguousarray(C.T)                       # lane n: column n of every row
    return a, b, c_lane, C.astype(np.float64 if C.dtype.kind == "f" else np.int64) + Av @ Bv, \
        np.abs(Av) @ np.abs(Bv) + np.abs(C)


@needs_rt
@pytest.mark.parametrize("i", range(len(DPAS)), ids=[f"{d.builtin.name}_m{d.m}" for d in DPAS])
def test_dpas_builtin_matches_model(i):
    d = DPAS[i]
    a, b, c, want, scale = _dpas_operands(d, np.random.default_rng(100 + i))
    out = np.zeros_like(c)
    _launch(f"d{i}", np.ascontiguousarray(a), np.ascontiguousarray(b), c.copy(), out)
    got = out.T                                              # (m, 16)
    if got.dtype.kind == "i":
        assert np.array_equal(got, want.astype(np.int32)), d.builtin.name
    else:
        err = np.abs(got - want)
        assert (err <= 1e-6 * (scale + 1)).all(), f"{d.builtin.name}: max error {err.max():.3g}"


@needs_rt
def test_bf16_conversion_builtin_matches_model():
    """The f32 -> bf16 builtin against the simulator's model (ml_dtypes: nearest even, a NaN the
    quiet NaN with its sign) bit for bit: ties, overflow, infinities, -0, denormals, NaNs with
    payloads and every exponent."""
    import ml_dtypes

    special = np.array([0x3F808000, 0x3F818000, 0xBF808000, 0x7F7F8000, 0x7F7F7FFF, 0x7F800000, 0xFF800000,
                        0x80000000, 0x00008000, 0x00018000, 0x807FFFFF, 0x7F800001, 0x7FA00000, 0xFFC12345,
                        0x7FFFFFFF, 0xFF80FFFF], np.uint32)
    bits = np.random.default_rng(7).integers(0, 2 ** 32, CVT_N, dtype=np.uint64).astype(np.uint32)
    bits[1::2] = (bits[1::2] & 0xFFFF0000) | 0x8000          # half of them exact ties
    bits[:len(special)] = special
    x = bits.view(np.float32)
    y = np.zeros(CVT_N, np.uint16)
    _launch("cvt", x.copy(), y)
    with np.errstate(invalid="ignore", over="ignore"):
        want = x.astype(ml_dtypes.bfloat16).view(np.uint16)
    assert np.array_equal(y, want), [(hex(a), hex(g), hex(w)) for a, g, w in zip(bits, y, want) if g != w][:5]
    assert list(y[:len(special)]) == [0x3F80, 0x3F82, 0xBF80, 0x7F80, 0x7F7F, 0x7F80, 0xFF80, 0x8000, 0x0000,
                                      0x0002, 0x8080, 0x7FC0, 0x7FC0, 0xFFC0, 0x7FC0, 0xFFC0]


def test_library_provides_every_builtin_the_lowering_can_import():
    names = pvc_emulation.mangled_names()
    assert "_Z40intel_sub_group_bf16_bf16_matrix_mad_k16Dv8_sDv8_iDv8_f" in names
    assert "_Z27__spirv_ConvertFToBF16INTELf" in names and bi.BF16_CONVERT.name in pvc_emulation.source()
    assert len([b for b in BLOCKS if b.kind == "transform"]) >= 5 and any(b.kind == "transpose" for b in BLOCKS)
    src = pvc_emulation.source()
    for b in BLOCKS:
        assert f", {b.name}" in src
