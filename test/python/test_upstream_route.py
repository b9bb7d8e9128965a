"""Upstream's route to SPIR-V (xe-gemm-to-spirv-upstream): every linalg lowering program of
test_linalg_lowering.py is exported, lowered by upstream MLIR's passes, translated by llvm-spirv and
validated by spirv-val. With upstream's own distribution (distribute=upstream) six stop with a located
error whose reason is pinned here; the default (auto) takes those through our xegpu-simt-distribute
and the lane-level export, with a remark (docs/upstream-xegpu.md). Also the registered names in
xe-opt and the SPIR-V statistics."""
import functools
import os
import re
import subprocess
import sys

import pytest

import xedialects
from xedialects.diagnostics import DiagnosticError
from xedialects.lowering.upstream_route import disassemble, spirv_stats, upstream_route
from xedialects.lowering.upstream_route.builtin_names import WRONG_TO_RIGHT, correct_builtin_names
from xedialects.passes import run
from xedialects.runtime.igc import compile_spirv, device_for_arch, igc_available

sys.path.insert(0, os.path.dirname(__file__))
import test_upstream_export as EX  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GEMM = os.path.join(ROOT, "examples", "gemm_bf16.mlir")
needs_igc = pytest.mark.skipif(not igc_available(), reason="IGC not installed (xe-opt --install-igc)")

# programs that reach a spirv-val-clean binary with upstream's own distribution
ROUTE_OK = {"form:plain", "form:transposed_b", "form:generic", "form:batch", "form:dynamic", "form:dynamic_aligned",
            "form:bf16_f32", "form:bf16_bf16", "form:f16_f32", "form:f16_f16", "form:i8_i32", "epilogue:bias_relu",
            "epilogue:bias_row_dynamic", "epilogue:bias_no_fill", "epilogue:bias_relu_f16_out",
            "epilogue:bias_relu_i8", "epilogue:gelu_tanh", "epilogue:gelu_erf", "epilogue:alpha_beta",
            "epilogue:alpha_beta_args", "epilogue:alpha_beta_dynamic", "epilogue:named_chain",
            "epilogue:residual_scale_f16", "tensor:bias_relu", "tensor:inout", "tensor:inout_dynamic",
            "epilogue:bias_col_dynamic", "epilogue:bias_col", "form:transposed_a"}
# the others: where upstream's distribution (distribute=upstream) stops them and why; the default
# (distribute=auto) takes them through our distribution and the lane-level export
ROUTE_LEFT = {
    "form:f32_tf32": "mlir-opt crashed (signal SIGABRT): unsupported xevm::ElemType",
    "form:tf32": "failed to legalize operation 'xegpu.prefetch_nd'",
    # the scattered fallbacks (exported as xegpu.load/store with offsets): LLVM 22's subgroup distribution
    # asserts on their gathered vectors, layout propagation rejects the register-built VNNI B
    "form:k_1": "XeGPUSubgroupDistribute.cpp:90",
    "tensor:batch_fill": "XeGPUSubgroupDistribute.cpp:90",
    "form:unaligned": "Failed to update operation with the layout",
    "epilogue:bias_relu_unaligned": "Failed to update operation with the layout",
}


def test_every_block_access_program_is_pinned():
    assert set(EX.PROGRAMS) == ROUTE_OK | set(ROUTE_LEFT)
    assert not ROUTE_OK & set(ROUTE_LEFT)


_IMPORT = re.compile(r'LinkageAttributes "([^"]+)" Import')


def assert_builtin_names(asm):
    """The binary imports the OpenCL builtins by the names the driver's library defines: none of the
    names upstream LLVM 22 misspells (builtin_names.py), the subgroup queries with their `v`, the 8-bit
    DPAS as intel_sub_group_i8_i8_... (not LLVM 22's s8_s8)."""
    imports = set(_IMPORT.findall(asm))
    assert not imports & WRONG_TO_RIGHT.keys(), sorted(imports & WRONG_TO_RIGHT.keys())
    assert "_s8_s8_" not in asm and "_u8_s8_" not in asm and "_s8_u8_" not in asm
    for name in imports:
        if "get_sub_group" in name or "get_num_sub_groups" in name:
            assert name.endswith("v"), name


def bool_table_extracts(asm):
    """OpVectorExtractDynamic lines whose vector is a constant vector of bool (IGC 2.40 crashes on them)."""
    bool_t = set(re.findall(r"(%\w+) = OpTypeBool", asm))
    bool_vec = {v for v, e in re.findall(r"(%\w+) = OpTypeVector (%\w+) \d+", asm) if e in bool_t}
    consts = {c for c, t in re.findall(r"(%\w+) = OpConstant(?:Composite|Null) (%\w+)", asm) if t in bool_vec}
    return [line for line in asm.splitlines()
            if "OpVectorExtractDynamic" in line and line.split()[4] in consts]


@functools.lru_cache(maxsize=None)
def _route(name):
    """The default route's result for a program (made once: the IGC tests reuse it)."""
    return upstream_route(_lowered(name))


def _lowered(name):
    mod = xedialects.parse(EX.PROGRAMS[name].src, "case.mlir")
    run(mod, "builtin.module(xe-gemm-to-xegpu)")
    return mod


@pytest.mark.parametrize("name", sorted(ROUTE_OK))
def test_route_reaches_valid_spirv(name):
    """Binary validated by spirv-val inside the route; the kernel's DPAS and 2D block IO are there."""
    r = _route(name)
    assert r.binary[:4] == b"\x03\x02\x23\x07"  # SPIR-V magic, little endian
    asm = disassemble(r.binary)
    assert_builtin_names(asm)
    assert 'LinkageAttributes "_Z16get_sub_group_idv" Import' in asm   # every kernel asks its subgroup id
    s = spirv_stats(asm)
    assert s["kernels"] == 1 and s["dpas"] > 0 and s["block_load"] > 0 and s["block_store"] > 0
    assert s["loop_blocks"] == 0 or s["loop_dpas"] > 0  # a K loop (if any: small K is unrolled) has the DPAS


@pytest.mark.parametrize("name", sorted(ROUTE_LEFT))
def test_route_stops_with_located_reason(name):
    with pytest.raises(DiagnosticError) as e:
        upstream_route(_lowered(name), distribute="upstream")
    d = e.value.diagnostics[0]
    assert d.severity == "error" and d.line is not None and "xe-gemm-to-spirv-upstream" in d.message
    assert ROUTE_LEFT[name] in d.message, d.message


@pytest.mark.parametrize("name", sorted(ROUTE_LEFT))
def test_auto_falls_back_to_our_distribution(name):
    """distribute=auto: upstream's failure becomes a remark at the kernel; our xegpu-simt-distribute and
    the lane-level export give a spirv-val-clean binary with the DPAS builtins (tf32 for the tf32
    programs), and block IO where the kernel has it (the unaligned GEMMs gather and scatter only)."""
    r = _route(name)
    assert r.distributed_by == "xedialects" and len(r.remarks) == 1
    d = r.remarks[0]
    assert d.severity == "remark" and d.line is not None and ROUTE_LEFT[name] in d.message, d.message
    assert "distributed by xegpu-simt-distribute" in d.message
    asm = disassemble(r.binary)
    assert_builtin_names(asm)
    assert not bool_table_extracts(asm)
    s = spirv_stats(asm)
    assert s["kernels"] == 1 and s["dpas"] > 0 and (s["loop_blocks"] == 0 or s["loop_dpas"] > 0)
    if "tf32" in name:
        assert "intel_sub_group_tf32_tf32_matrix_mad_k8" in asm
    if "unaligned" not in name:
        assert s["block_load"] > 0 and s["block_store"] > 0
    if "tf32" in name:  # tf32 DPAS as xevm.mma in the lane-level text
        assert "xevm.mma" in r.upstream and "a = tf32, b = tf32" in r.upstream
    else:  # the gathers as per-lane scattered loads
        assert "xegpu.load " in r.upstream


@needs_igc
@pytest.mark.parametrize("arch", ["pvc", "bmg"])
@pytest.mark.parametrize("name", sorted(EX.PROGRAMS))
def test_route_binary_builds_and_links_on_igc(name, arch):
    """IGC compiles every route binary for the device, imports nothing undefined (builtin names LLVM 22
    misspells are corrected, builtin_names.py) and does not crash (bool tables, text.bool_tables_as_bytes);
    every DPAS builtin became hardware DPAS."""
    build = compile_spirv(_route(name).binary, device_for_arch(arch))
    assert build.undefined == []
    assert [k.total.dpas > 0 for k in build.kernels.values()] == [True]


def test_xedialects_distribution_on_an_aligned_gemm():
    """distribute=xedialects on a program upstream distributes too: the lane-level road, no remark."""
    r = upstream_route(_lowered("form:bf16_f32"), distribute="xedialects")
    assert r.distributed_by == "xedialects" and not r.remarks
    s = spirv_stats(disassemble(r.binary))
    assert s["dpas"] == 4 and s["block_load"] > 0 and s["block_store"] > 0
    assert "sg_map" not in r.upstream and "<{packed}>" in r.upstream and "gpu.shuffle idx" in r.upstream


@pytest.mark.parametrize("name", ["form:i8_i32", "epilogue:bias_relu_i8"])
def test_xedialects_distribution_of_8bit_gemms(name):
    """distribute=xedialects on the i8 GEMMs: the lane-level export's 8-bit A (32-wide loads, lane l:
    bytes 2l, 2l + 1 of each row) reaches spirv-val as the i8 DPAS builtin fed by 8-bit 32-wide block
    reads, the same SPIR-V as upstream's own distribution gives (instruction for instruction counts)."""
    r = upstream_route(_lowered(name), distribute="xedialects")
    assert r.distributed_by == "xedialects" and not r.remarks
    assert "!xegpu.tensor_desc<8x32xi8> -> vector<16xi8>" in r.upstream
    asm = disassemble(r.binary)
    assert_builtin_names(asm)
    assert 'LinkageAttributes "_Z36intel_sub_group_i8_i8_matrix_mad_k32Dv8_sDv8_iS0_" Import' in asm
    assert "intel_sub_group_2d_block_read_8b_8r32x1c" in asm
    ours = spirv_stats(asm)
    theirs_asm = disassemble(upstream_route(_lowered(name), distribute="upstream").binary)
    assert_builtin_names(theirs_asm)
    assert "_Z36intel_sub_group_i8_i8_matrix_mad_k32Dv8_sDv8_iS0_" in theirs_asm
    assert ours == spirv_stats(theirs_asm) and ours["dpas"] == 4


def test_builtin_names_corrected_in_llvm_ir():
    """correct_builtin_names renames declarations and calls of what LLVM 22 misspells, leaves right names
    (and longer names they prefix) alone, and drops a wrong declaration whose right name is declared."""
    ll = ("declare spir_func i32 @_Z16get_sub_group_id() #0\n"
          "declare spir_func <8 x i32> @_Z36intel_sub_group_s8_s8_matrix_mad_k32Dv8_sDv8_iS0_(<8 x i16>, <8 x i32>, "
          "<8 x i32>) #1\n"
          "define spir_kernel void @k() {\n"
          "  %a = call spir_func i32 @_Z16get_sub_group_id() #0\n"
          "  %b = call spir_func <8 x i32> @_Z36intel_sub_group_s8_s8_matrix_mad_k32Dv8_sDv8_iS0_(<8 x i16> %x, "
          "<8 x i32> %y, <8 x i32> %z) #1\n"
          "  %c = call spir_func i32 @_Z16get_sub_group_idv() #0\n}")
    out = correct_builtin_names(ll)
    assert "@_Z16get_sub_group_id(" not in out and out.count("@_Z16get_sub_group_idv(") == 3
    assert "_s8_s8_" not in out and out.count("@_Z36intel_sub_group_i8_i8_matrix_mad_k32Dv8_sDv8_iS0_(") == 2
    assert correct_builtin_names(out) == out
    both = "declare spir_func i32 @_Z16get_sub_group_idv() #0\n" + ll
    fixed = correct_builtin_names(both)
    assert fixed.count("declare spir_func i32 @_Z16get_sub_group_idv()") == 1 and "@_Z16get_sub_group_id(" not in fixed
    # unsigned 8-bit operands: OpenCL's ushort / uint vectors in the mangling
    assert WRONG_TO_RIGHT["_Z36intel_sub_group_u8_u8_matrix_mad_k32Dv8_sDv8_iS0_"] == \
        "_Z36intel_sub_group_u8_u8_matrix_mad_k32Dv8_tDv8_jDv8_i"


@pytest.mark.parametrize("name", ["form:k_1", "form:tf32", "form:transposed_a"])
def test_lane_tables_of_conditions_are_bytes(name):
    """The lane-level export's choice tables (a `vector<16xi1>` constant read at gpu.lane_id) reach the
    translator as i8 tables and a trunc: no OpVectorExtractDynamic of a constant bool vector, on which
    IGC 2.40 crashes (docs/upstream-xegpu-reference.md, "IGC and constant bool vectors")."""
    r = upstream_route(_lowered(name), distribute="xedialects")
    assert re.search(r"arith\.constant dense<\[(?:false|true)[^]]*\]> : vector<16xi1>", r.upstream)
    assert re.search(r"\.byte = extractelement <16 x i8> <", r.llvm_ir)
    assert not re.search(r"extractelement <\d+ x i1> <", r.llvm_ir)
    asm = disassemble(r.binary)
    assert not bool_table_extracts(asm) and "OpVectorExtractDynamic" in asm


def test_bool_tables_as_bytes():
    from xedialects.lowering.upstream_route.text import bool_tables_as_bytes

    ll = ("  %i69 = extractelement <4 x i1> <i1 false, i1 true, i1 poison, i1 true>, i64 %i67\n"
          "  %x = extractelement <4 x i1> %v, i64 %i67\n"
          "  %y = extractelement <4 x i32> <i32 0, i32 1, i32 2, i32 3>, i64 %i67")
    assert bool_tables_as_bytes(ll).split("\n") == [
        "  %i69.byte = extractelement <4 x i8> <i8 0, i8 1, i8 0, i8 1>, i64 %i67",
        "  %i69 = trunc i8 %i69.byte to i1",
        "  %x = extractelement <4 x i1> %v, i64 %i67",
        "  %y = extractelement <4 x i32> <i32 0, i32 1, i32 2, i32 3>, i64 %i67"]


@pytest.mark.parametrize("name", ["form:unaligned", "epilogue:bias_col_dynamic"])
def test_lane_id_builtin_name(name):
    """gpu.lane_id (the lane-level export's per-lane tables) is OpenCL's get_sub_group_local_id(void)."""
    asm = disassemble(upstream_route(_lowered(name), distribute="xedialects").binary)
    assert_builtin_names(asm)
    assert 'LinkageAttributes "_Z22get_sub_group_local_idv" Import' in asm

def _xe_opt(*args, env=None):
    return subprocess.run([sys.executable, os.path.join(ROOT, "tools", "xe-opt.py"), *args], capture_output=True,
                          text=True, timeout=300, env=env)


def test_xe_opt_spirv_binary_written_and_valid(tmp_path):
    from xedialects.mlir_tools import spirv_val_path

    out = tmp_path / "k.spv"
    r = _xe_opt(GEMM, "--xe-gemm-to-spirv-upstream", "--emit=spirv-binary", "-o", str(out))
    assert r.returncode == 0, r.stderr
    assert out.read_bytes()[:4] == b"\x03\x02\x23\x07" and not (tmp_path / "k.spv.json").exists()
    v = subprocess.run([spirv_val_path(), str(out)], capture_output=True, text=True, timeout=60)
    assert v.returncode == 0, v.stderr


def test_xe_opt_prints_disassembly_and_pipeline_form():
    r = _xe_opt(GEMM, "--xe-gemm-to-spirv-upstream")
    assert r.returncode == 0, r.stderr
    assert 'OpEntryPoint Kernel' in r.stdout and "intel_sub_group_bf16_bf16_matrix_mad_k16" in r.stdout
    r = _xe_opt(GEMM, "--pass-pipeline=builtin.module(xe-gemm-to-upstream-xegpu)")
    assert r.returncode == 0, r.stderr
    assert '[#xevm.target<chip = "pvc">]' in r.stdout and "xegpu.dpas" in r.stdout and "mode = vc" not in r.stdout


def test_xe_opt_route_failure_is_located_and_writes_nothing(tmp_path):
    src = tmp_path / "t.mlir"
    src.write_text(EX.PROGRAMS["form:tf32"].src)
    out = tmp_path / "k.spv"
    pipeline = "builtin.module(xe-gemm-to-xegpu, convert-xegpu-to-upstream{route=spirv distribute=upstream})"
    r = _xe_opt(str(src), f"--pass-pipeline={pipeline}", "--emit=spirv-binary", "-o", str(out))
    assert r.returncode == 1 and not out.exists()
    assert "Traceback" not in r.stderr and "internal error" not in r.stderr
    assert "error: xe-gemm-to-spirv-upstream: mlir-opt" in r.stderr and "failed to legalize" in r.stderr


def test_missing_translator_is_a_clear_error(tmp_path):
    out = tmp_path / "k.spv"
    env = dict(os.environ, XE_LLVM_SPIRV=str(tmp_path / "no-llvm-spirv"))
    r = _xe_opt(GEMM, "--xe-gemm-to-spirv-upstream", "--emit=spirv-binary", "-o", str(out), env=env)
    assert r.returncode == 1 and not out.exists() and "Traceback" not in r.stderr
    assert "llvm-spirv could not be started" in r.stderr, r.stderr


def test_help_lists_the_names():
    r = _xe_opt("--help")
    for name in ("--convert-xegpu-to-upstream", "--xe-gemm-to-upstream-xegpu", "--xe-gemm-to-spirv-upstream"):
        assert name in r.stdout


def test_text_fixups():
    from xedialects.lowering.upstream_route.text import (hoist_allocas, hoist_views, inline_uniform_warps,
                                                         intrinsics_to_opencl, math_to_opencl, strip_layouts,
                                                         wide_vectors)

    ll = ("define void @f() {\nentry:\n  br label %l\nl:\n  %a = alloca [4 x i32], align 4\n  br label %l\n}")
    assert hoist_allocas(ll).split("\n")[2].strip().startswith("%a = alloca")
    assert strip_layouts("%1 = llvm.fadd %a, %b {layout_result_0 = #xegpu.layout<lane_layout = [1, 16]>} : f32") == \
        "%1 = llvm.fadd %a, %b : f32"
    assert math_to_opencl("  %3 = math.erf %2 : vector<8xf32>").split("\n") == [
        "  llvm.func spir_funccc @_Z3erfDv8_f(vector<8xf32>) -> vector<8xf32> attributes {no_unwind, will_return}",
        "  %3 = llvm.call spir_funccc @_Z3erfDv8_f(%2) : (vector<8xf32>) -> vector<8xf32>"]
    assert wide_vectors("<32 x bfloat> <16 x i32> <8 x float> <1 x float>") == [1, 32]
    assert intrinsics_to_opencl("%x = call fast <8 x float> @llvm.exp.v8f32(<8 x float> %a)") == \
        "%x = call fast spir_func <8 x float> @_Z3expDv8_f(<8 x float> %a)"
    assert intrinsics_to_opencl("declare <8 x i32> @llvm.smax.v8i32(<8 x i32>, <8 x i32>)") == \
        "declare spir_func <8 x i32> @_Z3maxDv8_iS_(<8 x i32>, <8 x i32>)"
    warp = ("    %2:2 = gpu.warp_execute_on_lane_0(%0)[16] args(%arg0 : memref<4x8xf32>) -> (index, index) {\n"
            "    ^bb0(%arg3: memref<4x8xf32>):\n"
            "      %d = memref.dim %arg3, %c0 : memref<4x8xf32>\n"
            "      gpu.yield %d, %c0 : index, index\n"
            "    }\n"
            "    %5 = arith.addi %2#0, %2#1 : index")
    assert inline_uniform_warps(warp) == ("    %uw0_d = memref.dim %arg0, %c0 : memref<4x8xf32>\n"
                                          "    %5 = arith.addi %uw0_d, %c0 : index")
    func = ("gpu.func @k(%arg0: memref<64xf32>) kernel {\n  scf.for %i = %c0 to %c4 step %c1 {\n  }\n"
            "  %e = memref.expand_shape %arg0 [[0, 1]] output_shape [1, 64] : memref<64xf32> into memref<1x64xf32>\n"
            "  gpu.return\n}")
    assert hoist_views(func).split("\n")[1].startswith("  %e = memref.expand_shape")


def test_transposed_16bit_loads_become_32bit_packed_pairs():
    from xedialects.lowering.upstream_route.text import transposed_16bit_loads

    lane = ("    %d = xegpu.create_nd_tdesc %arg0 : memref<48x64xbf16> -> !xegpu.tensor_desc<32x8xbf16>\n"
            "    %v = xegpu.load_nd %d[%r, %c] <{transpose = array<i64: 1, 0>}> : !xegpu.tensor_desc<32x8xbf16> -> "
            "vector<16xbf16>")
    out = transposed_16bit_loads(lane).split("\n")
    assert "shape : [48, %tq0_half], strides : [%tq0_half, 1] : i64 -> !xegpu.tensor_desc<16x4xi32>" in out[6]
    assert "%tq0_half = arith.constant 32 : index" in out[4] and "%tq0_col = arith.shrui %c, %tq0_c1" in out[5]
    loads = [x for x in out if "xegpu.load_nd" in x]
    assert len(loads) == 2 and all("vector<4xi32>" in x for x in loads) and "%tq0_r1, %tq0_col" in loads[1]
    assert out[-1].strip().startswith("%v = vector.shuffle %tq0_b0, %tq0_b1 [0, 1, 2")
    # an odd number of columns (no i32 view) is left as it is
    odd = lane.replace("48x64xbf16", "48x63xbf16")
    assert transposed_16bit_loads(odd) == odd
