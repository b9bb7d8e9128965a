"""Intel's GPU compiler in the loop (xedialects/runtime/igc, docs/igc.md).

Without IGC: the assembly reader on hand-written assembly, the installer's mirror lookup, the toolchain
lookup and its errors, a crash and a hang of ocloc (a stand-in script) as errors.
With IGC (scripts/test.sh installs it; a missing IGC is a skip, which CI forbids): the whole corpus
(igc_support.py) through the `pvc` route and IGC for pvc and bmg with the metadata's build options --
built, no undefined symbol, no spill and no scratch message in any static-shape kernel (in a dynamic-shape
one: no spill but in the slow copies of SLOW_COPY_SPILLS, no scratch message in the K loop of its fast copy), the GRF count the metadata asks for, one hardware DPAS per XeGPU
DPAS; the large register file of a 4096^3 GEMM; the fast K loop of the dynamic GEMM example against the
static one; the SIMT-distributed GEMM's K loop; xe-opt's --emit=device-binary / --emit=isa.
"""
import os
import stat
import subprocess
import sys
import textwrap

import pytest

from igc_support import corpus, corpus_builds, executed_dpas
from xedialects.runtime.igc import IgcError, IgcNotInstalled, compile_spirv, igc_available, parse_asm
from xedialects.runtime.igc.install import debian_mirror
from xedialects.runtime.igc.toolchain import Toolchain, cached_toolchain, find_toolchain

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GEMM = os.path.join(ROOT, "examples", "gemm_bf16.mlir")
needs_igc = pytest.mark.skipif(not igc_available(), reason="IGC not installed (xe-opt --install-igc)")
LARGE = "-ze-opt-large-register-file"

# ---- the assembly reader -----------------------------------------------------------------------

ASM = textwrap.dedent("""\
    //.kernel k_0
    //.platform PVCXT
    //.thread_config numGRF=256, numAcc=8, numSWSB=32
    //.spill size 64
    //.instCount 12
    //.declare V0044 (54)  rf=r size=512 type=w align=32 words (r41.0)
    // B000: Preds:{},  Succs:{B001}
    (W)     mov (1|M0)               r3.0<1>:uq    r1.0<0;1,0>:q                 //  ALU pipe: int; $1
    // B001: Preds:{B002, B000},  Succs:{B002, B003}
    _0_001:
            load_block2d.ugm.d16.a64 (1|M0)  r6:31   [r125:1]           {F@1,$24} // ex_desc:0x0; desc:0x3F00203
            load_block2d.ugm.d16.a64.ca.ca (1|M0)  null:0 [r4:1]       {I@3,$29} // ex_desc:0x0; desc:0x2080203
            dpas.8x8 (16|M0)         r247:f        r247:f            r40:bf            r6.0:bf          {Atomic} // $121
            dpas.8x8 (16|M0)         r215:f        r215:f            r40:bf            r10.0:bf         {Compacted} // $135
    (W)     send.dc0 (16|M0)         null     r0      r6:4    0x0            0x020F3008           {$1} // scratch space spill
    (W&~f0.0) jmpi                               _0_003                                              // $162
    // B002: Preds:{B001},  Succs:{B001}
    (W)     add (1|M0)               r126.1<1>:q   r126.1<0;1,0>:q   32:w               {Compacted}      // $164
    (W)     jmpi                                 _0_001                                                  // $167
    // B003: Preds:{B001},  Succs:{}
    _0_003:
            store_block2d.ugm.d32.a64 (1|M0)  [r59:1] r86:8            {$10} // ex_desc:0x0; desc:0x2000407
    (W)     send.gtwy (1|M0)         null     r127    null:0  0x0            0x02000010           {EOT,$11} // end of thread
    """)


def test_asm_reader_counts_kernel_and_k_loop():
    k = parse_asm(ASM, 16)
    assert (k.kernel, k.platform, k.simd, k.grf_count, k.grf_mode, k.spill_bytes) == \
        ("k_0", "PVCXT", 16, 256, "large", 64)
    t = k.total
    assert (t.instructions, t.dpas, t.block_loads, t.block_prefetches, t.block_stores, t.scratch_messages,
            t.branches) == (11, 2, 1, 1, 1, 1, 2)
    loop = k.k_loop
    assert k.k_loop_blocks == 2          # B001 (header) .. B002 (latch)
    assert (loop.instructions, loop.dpas, loop.block_loads, loop.block_prefetches, loop.block_stores) == \
        (8, 2, 1, 1, 0)
    assert loop.non_dpas_per_dpas == 3.0


def test_asm_reader_reads_annotated_block_headers():
    """Blocks inside divergent control flow carry an annotation before their predecessors."""
    text = ASM.replace("// B001: Preds:", "// B001: [inDivergent],  Preds:").replace(
        "// B002: Preds:", "// B002: [inDivergent],  Preds:")
    k = parse_asm(text, 16)
    assert k.k_loop_blocks == 2 and (k.k_loop.instructions, k.k_loop.dpas) == (8, 2)


def test_asm_reader_finds_the_hot_loop_of_a_kernel_without_dpas():
    """A memory-bound kernel: no K loop; its loop with the most memory messages is the hot loop."""
    text = "\n".join(ln for ln in ASM.splitlines() if "dpas." not in ln)
    k = parse_asm(text, 16)
    assert k.k_loop is None and k.k_loop_blocks == 0
    hot = k.hot_loop
    assert (hot.instructions, hot.block_loads, hot.block_prefetches, hot.scratch_messages) == (6, 1, 1, 1)
    assert parse_asm(ASM, 16).hot_loop is None          # a kernel with a K loop reports that one


def test_asm_reader_without_loop_or_blocks():
    k = parse_asm("//.kernel f\n//.thread_config numGRF=128\n  dpas.8x8 (16|M0) r1:f r1:f r2:bf r3.0:bf\n")
    assert k.k_loop is None and k.total.dpas == 1 and k.grf_mode == "default" and k.spill_bytes == 0


# ---- finding and installing the toolchain --------------------------------------------------------

def test_debian_mirror_from_deb822_and_one_line_sources(tmp_path):
    (tmp_path / "a.sources").write_text("Types: deb\nURIs: http://mirror.example/debian-security\n"
                                        "Suites: x-security\n\nTypes: deb\nURIs: http://mirror.example/debian\n")
    assert debian_mirror([str(tmp_path)]) == "http://mirror.example/debian"
    one = tmp_path / "sources.list"
    one.write_text("# comment\ndeb [arch=amd64] http://other.example/debian/ stable main\n")
    assert debian_mirror([str(one)]) == "http://other.example/debian"


def test_no_debian_mirror_is_a_clear_error(tmp_path):
    (tmp_path / "x.list").write_text("deb http://ppa.example/ubuntu jammy main\n")
    with pytest.raises(IgcError, match="no Debian archive"):
        debian_mirror([str(tmp_path)])


def test_missing_toolchain_says_how_to_install(tmp_path, monkeypatch):
    monkeypatch.setenv("XE_IGC_HOME", str(tmp_path / "none"))
    monkeypatch.delenv("XE_OCLOC", raising=False)
    assert cached_toolchain() is None
    with pytest.raises(IgcNotInstalled, match="xe-opt --install-igc"):
        find_toolchain()
    monkeypatch.setenv("XE_OCLOC", str(tmp_path / "nothing"))
    with pytest.raises(IgcNotInstalled, match="not an executable"):
        find_toolchain()


def _fake_ocloc(tmp_path, body: str) -> Toolchain:
    script = tmp_path / "ocloc"
    script.write_text("#!/bin/sh\n" + body + "\n")
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return Toolchain((str(script),), str(tmp_path))


def test_ocloc_crash_is_an_error_naming_the_signal(tmp_path):
    tc = _fake_ocloc(tmp_path, "kill -SEGV $$")
    with pytest.raises(IgcError, match=r"IGC crashed \(SIGSEGV\) compiling kernel 'k_0' for pvc") as e:
        compile_spirv(b"\x03\x02\x23\x07", "pvc", kernels=["k_0"], toolchain=tc)
    assert e.value.kernel == "k_0"


def test_ocloc_hang_is_stopped(tmp_path):
    tc = _fake_ocloc(tmp_path, "sleep 30")
    with pytest.raises(IgcError, match="did not finish compiling .* within 1 s"):
        compile_spirv(b"\x03\x02\x23\x07", "pvc", timeout=1, toolchain=tc)


def test_ocloc_failure_carries_its_message(tmp_path):
    tc = _fake_ocloc(tmp_path, "echo \"error: in kernel: 'k_1' something is wrong\"; exit 1")
    with pytest.raises(IgcError, match="something is wrong") as e:
        compile_spirv(b"\x03\x02\x23\x07", "bmg", kernels=["k_0", "k_1"], toolchain=tc)
    assert e.value.kernel == "k_1"


# ---- IGC itself ----------------------------------------------------------------------------------

@needs_igc
def test_igc_rejects_a_broken_module():
    with pytest.raises(IgcError, match="IGC rejected kernel 'k' for pvc"):
        compile_spirv(b"\x03\x02\x23\x07" + b"\0" * 16, "pvc", kernels=["k"])


PROGRAMS = list(corpus())
# dynamic-shape programs whose slow copy (the per-lane fallback of a kernel versioned on its surfaces, run only
# when a surface breaks the 2D block rules) spills, IGC 2.40 whole kernel pvc / bmg (docs/igc.md "Dynamic
# shapes"); their fast copy spills nothing. Every other dynamic-shape kernel: no spill at all.
SLOW_COPY_SPILLS = {"epilogue:bias_row_dynamic": "8,704 / 8,384 B", "epilogue:bias_col_dynamic": "3,328 / 3,072 B",
                    "epilogue:alpha_beta_dynamic": "3,392 / 3,072 B",
                    "softmax:f32-dynamic-rows-37x1000": "3,072 / 3,328 B"}
# programs whose K loop IGC unrolls (K steps per machine-code iteration), IGC 2.40 pvc and bmg: the decode (M = 1)
# GEMM of i4 N x K weights, 2 DPAS per K step (docs/quantized-gemm.md "N x K weights": two K steps deep)
IGC_UNROLLED_K = {"example:w4a16_gemv": 2}


@needs_igc
@pytest.mark.parametrize("arch", ["pvc", "bmg"])
@pytest.mark.parametrize("name", PROGRAMS)
def test_corpus_compiles_without_spill(name, arch):
    """Built by IGC with the metadata's options; linkable; the GRF count the metadata asks for; a
    static-shape kernel has no spill and no scratch message, a dynamic-shape one no spill (but those of
    SLOW_COPY_SPILLS) and no scratch message in its K loop (the fast copy of its surface versions);
    every XeGPU DPAS is one hardware DPAS
    (per K-loop iteration where IGC keeps the loop, else over the unrolled kernel)."""
    s = corpus_builds(arch)[name]
    assert "error" not in s, s.get("error")
    assert s["undefined"] == []
    want_grfs = 256 if LARGE in s["build_options"] else 128
    for kernel, k in s["kernels"].items():
        assert not k.get("missing"), f"IGC compiled no kernel {kernel}"
        assert k["grf_count"] == want_grfs, (kernel, k)
        if not s["dynamic"]:
            assert k["spill_bytes"] == 0 and k["scratch"] == 0, (kernel, k)
        elif name not in SLOW_COPY_SPILLS:
            # scratch messages allowed: the slow copy's staging arrays are private memory, not spill
            assert k["spill_bytes"] == 0, (kernel, k)
        if s["dynamic"] and k["loop_scratch"] is not None and k["ir_k_loop"]:
            # versioned on its surfaces (docs/spirv.md): the slow copy's per-lane fallbacks may spill,
            # the K loop of the fast copy (the smallest loop with the DPAS) does not
            assert k["loop_scratch"] == 0, (kernel, k)
        if k["loop_dpas"] is not None and k["ir_k_loop"]:
            assert k["loop_dpas"] == k["ir_step_dpas"] * IGC_UNROLLED_K.get(name, 1), (kernel, k)
        else:
            expected = executed_dpas(k)
            if expected is not None:          # in each copy of a body versioned on its surfaces
                assert k["dpas"] == expected * k["copies"], (kernel, k)


def _gemm_4096(tmp_path, a="bf16", c="f32"):
    src = open(GEMM).read().replace("256x256xbf16", f"4096x4096x{a}").replace("256x256xf32", f"4096x4096x{c}")
    path = tmp_path / "gemm4096.mlir"
    path.write_text(src)
    return path


@needs_igc
@pytest.mark.parametrize("arch", ["pvc", "bmg"])
def test_large_register_file_is_asked_for_and_removes_spills(tmp_path, arch):
    """The 4096^3 bf16 GEMM: the metadata asks for the large register file (no spill) and for IGC's
    prefetch payload hoisting; its K loop (one i32 induction variable in our SPIR-V) then issues at
    most 0.8 non-DPAS instructions per DPAS on pvc and bmg (issue 29: 1.28 / 1.19 before)."""
    import xedialects
    from xedialects.lowering.xegpu_to_spirv.spirv_export import PREFETCH_HOIST_OPTION, export_spirv
    from xedialects.passes import run
    from xedialects.runtime.igc import build_module

    m = xedialects.parse(_gemm_4096(tmp_path).read_text(), "gemm4096.mlir")
    run(m, f"builtin.module(xe-gemm-to-spirv{{arch={arch}}})")
    binary, meta = export_spirv(m)
    assert meta["arch"] == arch and meta["build_options"] == f"{LARGE} {PREFETCH_HOIST_OPTION}"
    k = build_module(binary, meta).kernels["gemm_0"]
    assert (k.grf_count, k.spill_bytes, k.total.scratch_messages) == (256, 0, 0)
    assert k.k_loop is not None and k.k_loop.dpas == 32
    assert k.k_loop.non_dpas_per_dpas <= 0.8, k.k_loop
    # what a driver did before the plan asked: the default register file spills inside the K loop
    small = compile_spirv(binary, arch).kernels["gemm_0"]
    assert small.grf_count == 128 and small.spill_bytes > 0 and small.k_loop.scratch_messages > 0


@needs_igc
@pytest.mark.parametrize("arch", ["pvc", "bmg"])
def test_dynamic_gemm_fast_path_k_loop_is_the_static_one(tmp_path, arch):
    """examples/gemm_dynamic.mlir is versioned on its surfaces (docs/spirv.md): the K loop of the copy
    with unguarded builtins -- the loop with the DPAS and the fewest blocks -- has no per-lane
    fallback: no scratch message, no scattered message, the static 4096^3 loop's 2D block loads and at
    most 1.2x its instructions, at the GRF mode of the metadata. (Before: 7,570 instructions and 258
    scratch messages per iteration on pvc.) And the whole kernel spills nothing: the slow copy's guarded
    reads are per-lane loads in row loops only, no builtin (docs/igc.md "Dynamic shapes"; before: 3.4 KB
    on pvc, 3.5 KB on bmg)."""
    import xedialects
    from xedialects.lowering.xegpu_to_spirv.spirv_export import export_spirv
    from xedialects.passes import run
    from xedialects.runtime.igc import build_module

    def k_loop(src, name):
        m = xedialects.parse(src, name)
        run(m, f"builtin.module(xe-gemm-to-spirv{{arch={arch}}})")
        binary, meta = export_spirv(m)
        k = build_module(binary, meta).kernels["gemm_0"]
        assert k.grf_count == (256 if LARGE in meta["build_options"] else 128)
        return k

    kernel = k_loop(open(os.path.join(ROOT, "examples", "gemm_dynamic.mlir")).read(), "gemm_dynamic.mlir")
    assert kernel.spill_bytes == 0, kernel
    dyn, static = kernel.k_loop, k_loop(_gemm_4096(tmp_path).read_text(), "gemm4096.mlir").k_loop
    assert dyn is not None and static is not None and dyn.dpas == static.dpas == 32
    assert dyn.scratch_messages == 0 and dyn.scattered_messages == 0, dyn
    assert dyn.block_loads == static.block_loads, (dyn, static)
    assert dyn.instructions <= 1.2 * static.instructions, (dyn, static)


@needs_igc
def test_simt_gemm_builds_like_the_vc_gemm(tmp_path):
    """The 4096^3 bf16 GEMM through our SIMT distribution (xegpu-simt-distribute) and the lane-level
    SPIR-V lowering (docs/spirv.md "Lane-level kernels") builds for pvc without spill, and its K loop
    is as tight as the VC lowering's (the loaded fragments' reorders drop out)."""
    import xedialects
    from xedialects.lowering.xegpu_to_spirv.spirv_export import export_spirv
    from xedialects.passes import run
    from xedialects.runtime.igc import build_module

    def kernel(pipeline):
        m = xedialects.parse(_gemm_4096(tmp_path).read_text(), "gemm4096.mlir")
        run(m, f"builtin.module({pipeline})")
        binary, meta = export_spirv(m)
        return build_module(binary, meta).kernels["gemm_0"]

    simt = kernel("xe-gemm-to-xegpu, xegpu-simt-distribute, convert-xegpu-to-spirv")
    assert (simt.spill_bytes, simt.total.scratch_messages) == (0, 0), simt
    assert simt.k_loop is not None and simt.k_loop.dpas == 32, simt
    # the VC GEMM's bound (test_large_register_file_is_asked_for_and_removes_spills; IGC 2.40: 53
    # instructions per 32 DPAS in both)
    assert simt.k_loop.non_dpas_per_dpas <= 0.8, simt.k_loop


def _xe_opt(*args):
    return subprocess.run([sys.executable, os.path.join(ROOT, "tools", "xe-opt.py"), *args],
                          capture_output=True, text=True, timeout=600)


@needs_igc
def test_xe_opt_writes_the_device_binary(tmp_path):
    out = tmp_path / "k.bin"
    r = _xe_opt(GEMM, "--xe-gemm-to-spirv", "--emit=device-binary", "-o", str(out))
    assert r.returncode == 0, r.stderr
    data = out.read_bytes()
    assert data[:4] == b"\x7fELF"
    from xedialects.runtime.igc import undefined_symbols

    assert undefined_symbols(data) == []


@needs_igc
def test_xe_opt_prints_isa_per_kernel():
    r = _xe_opt(GEMM, "--xe-gemm-to-spirv=arch=bmg", "--emit=isa")
    assert r.returncode == 0, r.stderr
    first = r.stdout.splitlines()[0]
    assert first.startswith("// ===== kernel gemm_0: bmg") and ", SIMD16, 128 GRFs, spill 0 B" in first, first
    assert "//.platform XE2" in r.stdout and "dpas." in r.stdout


def test_xe_opt_device_binary_failure_is_located_and_writes_nothing(tmp_path):
    script = tmp_path / "ocloc"
    script.write_text("#!/bin/sh\nkill -SEGV $$\n")
    script.chmod(0o755)
    out = tmp_path / "k.bin"
    r = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "xe-opt.py"), GEMM, "--xe-gemm-to-spirv",
                        "--emit=device-binary", "-o", str(out)], capture_output=True, text=True, timeout=600,
                       env=dict(os.environ, XE_OCLOC=str(script)))
    assert r.returncode == 1 and not out.exists()
    # located at the kernel (a generated one: its own buffer, as the pipeline's other diagnostics)
    assert "<xetile kernels of @gemm>:2:3: error: IGC crashed (SIGSEGV) compiling kernel 'gemm_0' for pvc" in r.stderr
    assert "Traceback" not in r.stderr


def test_xe_opt_device_binary_needs_an_output_file():
    r = _xe_opt(GEMM, "--xe-gemm-to-spirv", "--emit=device-binary")
    assert r.returncode == 1 and "--emit=device-binary needs an output file" in r.stderr
