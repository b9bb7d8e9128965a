"""Hardware table (xedialects.arch) and GEMM planner (xedialects.lowering.linalg_to_xetile.gemm_plan): the rfc-xetile
appendix 2.1 plan, DPAS shapes, 2D block limits from xe-cute-architecture.md, wg_map/DPAS/register
rules over a sweep, overrides and their errors, split-K."""
import importlib.util
import json
from pathlib import Path

import pytest

from xedialects.arch import ARCHS, ArchError, elem_bits, elem_bytes, get_arch
from xedialects.lowering.linalg_to_xetile.gemm_plan import GemmPlan, PlanError, plan_gemm, wg_map_rule_error

ROOT = Path(__file__).resolve().parents[2]
PVC = get_arch("pvc")


def _load_sweep():
    spec = importlib.util.spec_from_file_location("plan_sweep", ROOT / "bench" / "plan_sweep.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


# ---- the hardware table -----------------------------------------------------------------------

def test_registry():
    assert "pvc" in ARCHS and ARCHS["pvc"] is PVC
    assert get_arch() is PVC and get_arch("PVC") is PVC and get_arch("xe-hpc") is PVC
    with pytest.raises(ArchError, match="unknown architecture"):
        get_arch("rtx4090")
    with pytest.raises(Exception):
        PVC.xe_cores = 1  # frozen


def test_pvc_facts():
    assert PVC.xe_cores == 128
    assert (PVC.vector_engines_per_core, PVC.threads_per_engine) == (8, 8)
    assert PVC.threads_per_core() == 64 and PVC.threads_per_core(large_grf=True) == 32
    assert PVC.subgroup_size == 16
    assert (PVC.grf_count, PVC.grf_count_large, PVC.grf_bytes) == (128, 256, 64)
    assert PVC.grf_file_bytes() == 8192 and PVC.grf_file_bytes(True) == 16384
    assert PVC.slm_bytes_per_core == 128 * 1024
    assert PVC.max_workgroup_size == 1024 and PVC.max_subgroups_per_workgroup == 64
    assert PVC.named_barriers == 32
    assert PVC.peak_tflops("bf16") == pytest.approx(838.9, abs=0.1)
    assert PVC.peak_tflops("tf32") == pytest.approx(419.4, abs=0.1)
    assert PVC.mem_bandwidth_gbs == pytest.approx(3276.8)
    assert "Xe-cores" in PVC.summary()


def test_element_types():
    assert [elem_bytes(t) for t in ("bf16", "f16", "f32", "tf32", "i8", "ui8", "i32", "f64")] == [2, 2, 4, 4, 1, 1, 4, 8]
    assert elem_bits("i4") == 4
    with pytest.raises(ArchError, match="sub-byte"):
        elem_bytes("i4")
    with pytest.raises(ArchError, match="unknown element type"):
        elem_bytes("bf17")
    assert [PVC.vnni_factor(b) for b in (1, 2, 4)] == [4, 2, 1]
    assert PVC.vnni_factor("bf16") == 2 and PVC.vnni_factor("i8") == 4


@pytest.mark.parametrize("a,b,acc,shape", [
    ("bf16", "bf16", "f32", (8, 16, 16)),
    ("bf16", "bf16", "bf16", (8, 16, 16)),
    ("f16", "f16", "f32", (8, 16, 16)),
    ("f16", "f16", "f16", (8, 16, 16)),
    ("tf32", "tf32", "f32", (8, 16, 8)),
    ("f32", "f32", "f32", (8, 16, 8)),      # f32 operands run as tf32
    ("i8", "i8", "i32", (8, 16, 32)),
    ("ui8", "i8", "i32", (8, 16, 32)),
    ("u8", "u8", "u32", (8, 16, 32)),
    ("s4", "s4", "s32", (8, 16, 64)),
])
def test_dpas_shapes(a, b, acc, shape):
    assert PVC.dpas_shape(a, b, acc) == shape


@pytest.mark.parametrize("a,b,acc", [("bf16", "f16", "f32"), ("f16", "f16", "bf16"), ("tf32", "tf32", "f16"),
                                     ("i8", "i8", "f32"), ("bf16", "bf16", "i32"), ("f64", "f64", "f64")])
def test_dpas_unsupported(a, b, acc):
    with pytest.raises(ArchError, match="DPAS does not support") as ei:
        PVC.dpas_shape(a, b, acc)
    assert "bf16 x bf16 -> f32/bf16" in str(ei.value)   # lists what is supported


def test_dpas_f16_result_with_f32_acc():
    # xe-cute: "HW can support different combinations (e.g. f16/f16/f16/f32)"
    assert PVC.dpas_shape("f16", "f16", "f32", d_type="f16") == (8, 16, 16)


def test_max_blocks():
    assert PVC.max_load_block(2) == (32, 32, 4)
    assert PVC.max_load_block(1) == (32, 64, 4)
    assert PVC.max_load_block(4) == (32, 16, 2)
    assert PVC.max_load_block(2, vnni=True) == (32, 16, 4)
    assert PVC.max_load_block(4, transpose=True) == (32, 8, 1)
    assert PVC.max_load_block(8, transpose=True) == (8, 4, 1)
    assert PVC.max_store_block(4) == (8, 16, 1)
    assert PVC.max_prefetch_block("bf16") == (32, 32, 4)
    with pytest.raises(ArchError, match="mutually exclusive"):
        PVC.max_load_block(2, transpose=True, vnni=True)
    with pytest.raises(ArchError, match="does not support 32-bit"):
        PVC.max_load_block(4, vnni=True)


@pytest.mark.parametrize("args,kw,ok,why", [
    # plain loads: 64 B per row across all blocks, height <= 32
    ((32, 32, 2), {}, True, ""),
    ((32, 16, 2), {"array_len": 2}, True, ""),
    ((32, 32, 2), {"array_len": 2}, False, "128 B exceeds 64 B"),
    ((33, 16, 2), {}, False, "height 33"),
    ((8, 1, 2), {}, False, "width 1"),                       # 2 bytes: below the 4-byte granularity
    ((8, 16, 4), {"array_len": 4}, False, "array length 4"),  # 32-bit: block count 1 or 2
    ((8, 8, 8), {"array_len": 2}, False, "array length 2"),   # 64-bit: block count 1
    # VNNI transform: 8/16-bit only, width <= 16, height multiple of the VNNI factor
    ((32, 16, 2), {"array_len": 2, "vnni": True}, True, ""),
    ((32, 16, 1), {"array_len": 4, "vnni": True}, True, ""),
    ((3, 16, 2), {"vnni": True}, False, "multiple of 2"),
    ((16, 32, 2), {"vnni": True}, False, "width 32"),
    ((16, 16, 4), {"vnni": True}, False, "does not support 32-bit"),
    # transpose: 32/64-bit only, no block count
    ((32, 8, 4), {"transpose": True}, True, ""),
    ((32, 16, 4), {"transpose": True}, False, "width 16"),
    ((16, 8, 2), {"transpose": True}, False, "as 32-bit elements"),
    ((16, 8, 4), {"transpose": True, "array_len": 2}, False, "array length 2"),
    ((8, 4, 8), {"transpose": True}, True, ""),
    ((16, 4, 8), {"transpose": True}, False, "height 16"),
    ((8, 16, 2), {"transpose": True, "vnni": True}, False, "mutually exclusive"),
])
def test_block_load_legality(args, kw, ok, why):
    got, reason = PVC.is_legal_block_load(*args, **kw)
    assert got is ok, reason
    assert why in reason


def test_block_store_prefetch_legality():
    assert PVC.is_legal_block_store(8, 16, 4) == (True, "")
    ok, why = PVC.is_legal_block_store(16, 16, 4)
    assert not ok and "height 16" in why
    ok, why = PVC.is_legal_block_store(8, 8, 4, array_len=2)
    assert not ok and "array length" in why
    # appendix 2.1 #mp_a_pfh: each subgroup prefetches 8x32 bf16 = 8 rows of 64 B
    assert PVC.is_legal_block_prefetch(8, 32, "bf16") == (True, "")
    ok, why = PVC.is_legal_block_prefetch(8, 64, "bf16")
    assert not ok and "width 64" in why


def test_surface_rules():
    assert PVC.legal_surface(64, 8192, 8192, 4096) == (True, "")
    cases = [
        ((32, 8192, 8192, 4096), "64-byte aligned"),
        ((64, 8200, 8192, 4096), "multiple of 16"),
        ((64, 48, 48, 16), "outside [64"),                       # width/pitch below 64 B
        ((64, 1 << 25, 1 << 25, 4), "outside [64, 16777216]"),   # 2^24 byte limit
        ((64, 4096, 8192, 4), "smaller than the width"),
        ((64, 8192, 8190, 4), "multiple of 4"),
        ((64, 8192, 8192, (1 << 24) + 1), "height"),
    ]
    for args, why in cases:
        ok, reason = PVC.legal_surface(*args)
        assert not ok and why in reason, (args, reason)


# ---- the planner: appendix 2.1 ------------------------------------------------------------------

def _assert_appendix(p: GemmPlan):
    assert p.wg_tile == (256, 256)
    assert p.sg_layout == (8, 4) and p.sg_data == (32, 64)
    assert p.k_step == 32
    assert p.a_wg_map == ((8, 4), (32, 32))
    assert p.b_wg_map == ((8, 4), (32, 64))
    assert p.c_wg_map == ((8, 4), (32, 64))
    assert p.a_prefetch_map == ((32, 1), (8, 32))      # #mp_a_pfh
    assert p.b_prefetch_map == ((4, 8), (8, 32))       # #mp_b_pfh
    assert p.prefetch_distance == 3                     # prefetch tiles start at K = 96
    assert (p.num_subgroups, p.subgroup_size, p.wg_size) == (32, 16, 512)
    assert (p.k_slices, p.split_k_mode) == (1, "none")


def test_appendix_plan_4096_bf16():
    p = plan_gemm(4096, 4096, 4096, "bf16", "bf16", "f32")
    _assert_appendix(p)
    assert p.grid == (16, 16, 1) and p.num_work_groups == 256
    assert p.dpas == (8, 16, 16) and p.acc_type == "f32"
    assert p.grf_mode == "large"                       # 32x64 f32 accumulators = 128 GRFs
    assert p.reasons and all(isinstance(r, str) for r in p.reasons)
    text = p.describe()
    for s in ("#xetile.wg_map<sg_layout = [8, 4], sg_data = [32, 32]>",
              "#xetile.wg_map<sg_layout = [32, 1], sg_data = [8, 32]>",
              "#xetile.wg_map<sg_layout = [4, 8], sg_data = [8, 32]>", "256x256", "reasons:"):
        assert s in text
    d = p.to_dict()
    json.dumps(d)
    assert d["wg_tile"] == [256, 256] and d["a_prefetch_map"] == [[32, 1], [8, 32]]


def test_appendix_plan_f16_and_dynamic():
    _assert_appendix(plan_gemm(4096, 4096, 4096, "f16", "f16", "f32"))
    p = plan_gemm(None, None, None, "bf16", "bf16", "f32")
    _assert_appendix(p)
    assert p.dynamic and p.planned_mnk == (4096, 4096, 4096)
    assert "dynamic" in p.describe()


# ---- the planner: rules over the sweep ---------------------------------------------------------

SWEEP = _load_sweep().SWEEP


@pytest.mark.parametrize("case", SWEEP, ids=[c[0] for c in SWEEP])
def test_sweep_plans_obey_rules(case):
    _, M, N, K, a, b, c, kw = case
    p = plan_gemm(M, N, K, a, b, c, **kw)
    dm, dn, dk = PVC.dpas_shape(a, b, p.acc_type)
    assert p.dpas == (dm, dn, dk)
    wm, wn = p.wg_tile
    ks = p.k_step
    nsg = p.sg_layout[0] * p.sg_layout[1]
    # local k-slicing runs local_k_slices groups of sg_layout subgroups (docs/planner.md)
    assert nsg * p.local_k_slices == p.num_subgroups and p.wg_size == p.num_subgroups * 16
    # DPAS multiples
    assert p.sg_data[0] % dm == 0 and p.sg_data[1] % dn == 0 and ks % dk == 0
    assert wm % dm == 0 and wn % dn == 0
    # tile_mma derivation and the RFC wg_map rule for every map
    assert p.a_wg_map == (p.sg_layout, (p.sg_data[0], ks))
    assert p.b_wg_map == (p.sg_layout, (ks, p.sg_data[1]))
    assert p.c_wg_map == (p.sg_layout, p.sg_data)
    for tile, (lay, dat) in (((wm, ks), p.a_wg_map), ((ks, wn), p.b_wg_map), ((wm, wn), p.c_wg_map),
                             ((wm, ks), p.a_prefetch_map), ((ks, wn), p.b_prefetch_map)):
        assert lay[0] * lay[1] == nsg
        for i in range(2):
            cover = lay[i] * dat[i]
            assert cover % tile[i] == 0 or tile[i] % cover == 0, (tile, lay, dat)
        assert wg_map_rule_error("m", tile, lay, dat) is None
    # every C element has exactly one owner
    assert p.sg_layout[0] * p.sg_data[0] == wm and p.sg_layout[1] * p.sg_data[1] == wn
    # registers: accumulator <= half the GRF file, A + B + C <= the file, in the plan's mode
    large = p.grf_mode == "large"
    grf = PVC.grf_file_bytes(large)
    assert p.acc_bytes == p.sg_data[0] * p.sg_data[1] * elem_bytes(p.acc_type)
    assert p.acc_bytes <= grf // 2 and p.acc_bytes + p.a_bytes + p.b_bytes <= grf
    assert nsg <= PVC.threads_per_core(large) and p.wg_size <= PVC.max_workgroup_size
    # grid covers the problem
    PM, PN, _ = p.planned_mnk
    assert p.grid[0] * wn >= PN and p.grid[1] * wm >= PM
    assert p.grid[2] == p.batch * p.k_slices
    assert p.prefetch_distance >= 0 and p.group_size >= 1
    assert p.describe().count("\n") > 10


def test_scaling_down_fills_xe_cores():
    for M, N, K in ((1024, 1024, 1024), (1000, 1000, 1000), (512, 512, 512)):
        p = plan_gemm(M, N, K, "bf16", "bf16", "f32")
        assert p.wg_tile[0] * p.wg_tile[1] < 256 * 256
        assert p.num_work_groups >= PVC.xe_cores
        assert p.num_subgroups >= 8                 # one per vector engine
    g = plan_gemm(1, 4096, 4096, "bf16", "bf16", "f32")   # GEMV-like
    assert g.wg_tile[0] == 8 and g.num_work_groups >= PVC.xe_cores
    # 128 work-groups of 2 subgroups leave vector engines idle: K is sliced for occupancy
    assert g.k_slices == 4 and g.split_k_mode == "atomic"
    assert g.num_subgroups * g.num_work_groups == PVC.xe_cores * PVC.vector_engines_per_core
    # with an epilogue-free but non-atomic C (bf16) K stays whole
    assert plan_gemm(1, 4096, 4096, "bf16", "bf16", "bf16").k_slices == 1
    s = plan_gemm(4096, 7, 64, "bf16", "bf16", "f32")
    assert s.wg_tile[1] == 16 and s.prefetch_distance == 2   # K = 64 is only 2 K steps


@pytest.mark.parametrize("a,c,ks", [("bf16", "f32", 32), ("f16", "f16", 32), ("f32", "f32", 16), ("i8", "i32", 64)])
def test_k_step_by_element_size(a, c, ks):
    p = plan_gemm(2048, 2048, 2048, a, a, c)
    assert p.k_step == ks and p.k_step % p.dpas[2] == 0


def test_transposed_prefetch_follows_memory_layout():
    p = plan_gemm(2048, 2048, 2048, "bf16", "bf16", "f32", transpose_b=True)
    (lr, lc), (dr, dc) = p.b_prefetch_map
    # B^T is stored [N, K]: each subgroup prefetches whole 64-byte K rows (32 bf16)
    assert dr == p.k_step and lr == 1
    assert "transpose" in p.b_load
    q = plan_gemm(2048, 2048, 2048, "bf16", "bf16", "f32", transpose_a=True)
    assert "reorder" in q.a_load


def test_group_remapping_for_large_grids():
    p = plan_gemm(8192, 8192, 8192, "bf16", "bf16", "f32")
    assert p.group_order == "swizzle" and p.group_size > 1
    assert plan_gemm(1024, 1024, 1024, "bf16", "bf16", "f32").group_order == "row_major"


# ---- split-K -------------------------------------------------------------------------------------

def test_split_k_for_tall_k():
    p = plan_gemm(256, 256, 65536, "bf16", "bf16", "f32")
    assert p.k_slices > 1 and p.split_k_mode == "atomic"
    assert p.grid[2] == p.k_slices
    assert p.num_work_groups <= PVC.xe_cores
    assert p.num_work_groups * 2 > PVC.xe_cores            # and it does fill them
    assert p.k_per_slice >= 16 * p.k_step
    assert p.wg_tile[0] >= 128 and p.wg_tile[1] >= 128     # big tiles kept
    assert any("split-K" in r for r in p.reasons)
    i = plan_gemm(256, 256, 65536, "i8", "i8", "i32")
    assert i.k_slices > 1


def test_no_split_k_when_not_useful_or_not_possible():
    assert plan_gemm(4096, 4096, 4096, "bf16", "bf16", "f32").k_slices == 1
    assert plan_gemm(1, 4096, 64, "bf16", "bf16", "f32").k_slices == 1      # K too short to slice
    p = plan_gemm(256, 256, 65536, "bf16", "bf16", "bf16")   # no atomic add on bf16 C
    assert p.k_slices == 1 and any("atomic" in r for r in p.reasons)
    assert plan_gemm(256, 256, None, "bf16", "bf16", "f32").k_slices == 1
    assert plan_gemm(256, 256, 65536, "bf16", "bf16", "f32", overrides={"split_k_mode": "none"}).k_slices == 1


# ---- overrides ----------------------------------------------------------------------------------

def test_overrides_rederive():
    p = plan_gemm(4096, 4096, 4096, "bf16", "bf16", "f32", overrides={"wg_tile": (128, 128)})
    assert p.wg_tile == (128, 128) and p.sg_data == (32, 64) and p.sg_layout == (4, 2)
    assert p.c_wg_map == ((4, 2), (32, 64)) and p.a_wg_map == ((4, 2), (32, 32))
    assert p.grid == (32, 32, 1)
    assert p.a_prefetch_map[0][0] * p.a_prefetch_map[0][1] == 8

    p = plan_gemm(4096, 4096, 4096, "bf16", "bf16", "f32", overrides={"sg_layout": (4, 8)})
    assert p.wg_tile == (256, 256) and p.sg_data == (64, 32)
    assert p.a_wg_map == ((4, 8), (64, 32)) and p.b_wg_map == ((4, 8), (32, 32))

    p = plan_gemm(4096, 4096, 4096, "bf16", "bf16", "f32", overrides={"sg_data": [32, 32]})
    assert p.sg_layout == (8, 8) and p.num_subgroups == 64 and p.grf_mode == "default"

    p = plan_gemm(4096, 4096, 4096, "bf16", "bf16", "f32",
                  overrides={"wg-tile": "128x128", "sg_layout": [4, 4], "k_step": 64, "prefetch_distance": 1,
                             "k_slices": 4, "group_order": "swizzle", "group_size": 4})
    assert p.k_step == 64 and p.a_wg_map == ((4, 4), (32, 64)) and p.b_wg_map == ((4, 4), (64, 32))
    assert p.prefetch_distance == 1
    assert p.k_slices == 4 and p.split_k_mode == "atomic" and p.grid == (32, 32, 4)
    assert (p.group_order, p.group_size) == ("swizzle", 4)
    assert "overrides" in p.describe()

    p = plan_gemm(4096, 4096, 4096, "bf16", "bf16", "f32",
                  overrides={"a_prefetch_map": {"sg_layout": [16, 2], "sg_data": [16, 16]}})
    assert p.a_prefetch_map == ((16, 2), (16, 16))


@pytest.mark.parametrize("ov,match", [
    ({"sg_layout": (8, 4), "sg_data": (32, 24)}, "not a multiple of DPAS N = 16"),
    ({"sg_layout": (8, 4), "sg_data": (12, 64)}, "not a multiple of DPAS M = 8"),
    ({"k_step": 24}, "not a multiple of DPAS K = 16"),
    ({"k_step": 64}, "A \\+ B \\+ C = 20480 B"),
    ({"k_slices": 2}, "C must be f32 or i32"),          # with bf16 C below
    ({"grf_mode": "default"}, "registers"),
    ({"wg_tile": (512, 256)}, "do not fit one Xe-core"),
    ({"sg_data": (32, 48)}, "does not divide wg_tile"),
    ({"sg_layout": (8, 4), "sg_data": (32, 64), "wg_tile": (256, 96)}, "rfc-xetile wg_map rule"),
    ({"a_prefetch_map": ((8, 1), (32, 32))}, "has 8 subgroups but the work-group has 32"),
    ({"bogus": 1}, "unknown override 'bogus'"),
    ({"a_wg_map": ((8, 4), (32, 32))}, "derived"),
    ({"wg_tile": "256 by 256"}, "expected two integers"),
    ({"group_order": "zigzag"}, "group_order"),
    ({"prefetch_distance": -1}, "prefetch_distance"),
    ({"split_k_mode": "tree"}, "split_k_mode"),
])
def test_illegal_overrides(ov, match):
    c = "bf16" if "k_slices" in ov else "f32"
    with pytest.raises(PlanError, match=match):
        plan_gemm(4096, 4096, 4096, "bf16", "bf16", c, overrides=ov)


def test_plan_errors_are_value_errors():
    assert issubclass(PlanError, ValueError)
    with pytest.raises(ValueError, match="DPAS does not support|unsupported"):
        plan_gemm(64, 64, 64, "bf16", "f16", "f32")
    with pytest.raises(PlanError, match="C type"):
        plan_gemm(64, 64, 64, "i8", "i8", "f32")
    with pytest.raises(PlanError, match="unknown architecture"):
        plan_gemm(64, 64, 64, "bf16", "bf16", "f32", arch="h100")


def test_sweep_script_runs(capsys):
    mod = _load_sweep()
    assert mod.main([]) == 0
    out = capsys.readouterr().out
    assert "256x256" in out and "32x1:8x32" in out and "4x8:8x32" in out


def test_planner_doc_rules_name_the_rule_functions():
    """docs/planner.md "Rules" names one function per rule; each exists in gemm_plan with a
    docstring (why the rule), and the planner applies every one of them."""
    import inspect
    import re

    from xedialects.lowering.linalg_to_xetile import gemm_plan
    doc = (ROOT / "docs" / "planner.md").read_text()
    rules = doc[doc.index("## Rules"):doc.index("## Dynamic sizes")]
    items = re.findall(r"^\d+\. \*\*[^*]+\*\* \(([^)]*)\)", rules, re.M)
    assert len(items) == 10
    names = [n for item in items for n in re.findall(r"`(\w+)`", item)]
    applied = inspect.getsource(gemm_plan._rules_plan) + inspect.getsource(gemm_plan.plan_gemm)
    for name in names + re.findall(r"\(`(\w+_rule)`\)", rules):
        fn = getattr(gemm_plan, name)
        assert inspect.isfunction(fn) and fn.__doc__, name
        assert f"{name}(" in applied, name
