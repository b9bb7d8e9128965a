"""Battlemage (Intel Arc B580, Xe2) hardware table (pipeline role: the facts).

This module is the only place BMG numbers live. Xe2 keeps PVC's instruction set for GEMM (DPAS
8x16xK, the same 2D block messages), so the DPAS and block tables are PVC's, re-sourced; what
differs is the machine around them. Every value names its source:

* [UARCH] llvm-project mlir/include/mlir/Dialect/XeGPU/uArch/IntelGpuXe2.h (LLVM 22): `BMGuArch`
          and `PVCuArch` register the same DPAS (M 1..8, N 16, K 8/16/32/64 by bits) and the same
          2D block load/store/prefetch instruction objects; XeCoreInfo(8 threads, SharedMemory
          256 KiB, 8 vector units, 8 matrix units) for BMG vs 512 KiB for PVC; subgroup size 16.
* [SYCL]  intel/llvm sycl/source/detail/device_impl.hpp matrix_combinations: intel_gpu_bmg_g21
          shares PVC's list, including tf32 x tf32 -> fp32 with M <= 8, N 16, K 8.
* [NEO]   intel/compute-runtime shared/source/xe2_hpg_core/hw_info_bmg.cpp: NumThreadsPerEu = 8,
          maxProgrammableSlmSize = 128 (KiB).
* [ARK]   Intel's Arc B580 product specification (also quoted by TechPowerUp's review and spec
          database): 20 Xe-cores (5 render slices), 160 XVEs and 160 XMX engines, graphics clock
          2670 MHz, 12 GB GDDR6 on 192 bit at 19 Gbps = 456 GB/s, 18 MB L2 (last-level cache);
          Intel's launch figure "233 peak TOPS (INT8)".
* [XE2]   Intel's Xe2 architecture disclosure (Tech Tour / Computex 2024, as reported by the
          press): per Xe2 core 8 x 512-bit vector engines, 8 x 2048-bit XMX engines, SIMD16 native;
          B580: L1/SLM 256 KiB per Xe-core (Lunar Lake: 192 KiB); Lunar Lake's 8 Xe2 cores: 67 TOPS
          INT8 (= 8 x 4096 ops/clk x 2.05 GHz, which fixes the INT8 XMX rate).
* [TPU]   TechPowerUp GPU database (Arc B580): FP32 13.67, FP16 27.34, FP64 1.709 TFLOP/s (1:8)
          at 2670 MHz -- i.e. 256 f32, 512 f16, 32 f64 ops/clk/Xe-core.
* [MODEL] a model parameter that no public document gives directly (stated as such).
"""
from __future__ import annotations

from dataclasses import replace

from .table import Fact, PeakRates, PerfFacts, XeArch
from .pvc import PVC

KiB = 1024
MiB = 1024 * KiB

_SAME = "[UARCH] BMGuArch registers the same instruction as PVCuArch"

# DPAS: identical shape and type rules [UARCH]; tf32 listed for bmg_g21 [SYCL].
_DPAS = replace(PVC.dpas, source=f"{_SAME} (M<=8, N=16, K by bits); [SYCL] tf32 8x16x8 on bmg_g21")

# 2D block messages and surface rules: the same instruction objects as PVC [UARCH]. No public
# document lists a Battlemage-specific 2D block limit or surface rule that differs from PVC.
_BLOCKS = tuple(replace(r, source=f"{_SAME}; limits as PVC [IMEX]") for r in PVC.blocks)
_SURFACE = replace(PVC.surface, source=f"{_SAME} (2D block surface rules as PVC; no BMG-specific "
                                       "rule published)")

# Peak rates per Xe-core per clock, dense.
# XMX [XE2]: 8 engines x 2048-bit = half of PVC's 4096-bit engines -> 2048 f16/bf16 ops, 4096
# int8 ops (Lunar Lake 67 TOPS = 8 cores x 4096 x 2.05 GHz). tf32: [MODEL] assumed half the
# f16 rate as on PVC (Intel's Xe2 slides list INT2/4/8, FP16, BF16 only; [SYCL] lists tf32).
# Vector [TPU]: 256 f32 (8 x 16 lanes x FMA), 512 f16, f64 at 1/8 -> 32.
_PEAK = PeakRates(
    xmx_ops_per_clk=(("bf16", 2048), ("f16", 2048), ("tf32", 1024), ("s8", 4096), ("u8", 4096)),
    vector_ops_per_clk=(("f64", 32), ("f32", 256), ("f16", 512)),
    mem_bandwidth_gbs=456.0,
    source="[XE2] 2048-bit XMX; [TPU] vector rates; [ARK] 456 GB/s; tf32 rate [MODEL] assumed",
)

_PERF = PerfFacts(
    stacks=Fact(1, "stacks", "[ARK] one monolithic BMG-G21 die"),
    hbm_gbs_per_stack=Fact(365.0, "GB/s", "[MODEL] assumed 0.8 x 456 GB/s GDDR6 peak [ARK] "
                           "(no public STREAM figure for the B580 found)"),
    l2_gbs_per_stack=Fact(1460.0, "GB/s", "[MODEL] assumed 4x the sustained memory bandwidth, "
                          "as for PVC (no public measurement found)"),
    mem_latency_clk=Fact(1000, "clk", "[MODEL] assumed as for PVC (~375 ns at 2.67 GHz; "
                         "no public figure found)"),
    xmx_efficiency=Fact(0.65, "x peak", "[MODEL] PVC's calibrated value, not calibrated on BMG "
                        "(no public measured B580 GEMM figure confirmed)"),
)

BMG = XeArch(
    name="bmg",
    full_name="Intel Arc B580 (Battlemage BMG-G21, Xe2)",
    xe_cores=20,                       # [ARK]
    vector_engines_per_core=8,         # [XE2] [UARCH]
    threads_per_engine=8,              # [NEO] NumThreadsPerEu = 8; [UARCH] num_threads 8
    threads_per_engine_large_grf=4,    # assumed as PVC: 256-GRF mode halves the threads (see notes)
    igc_device="bmg",                 # ocloc -device bmg (BMG-G21, Arc B580)
    subgroup_size=16,                  # [UARCH] getSubgroupSize() = 16
    subgroup_sizes=(16, 32),           # [XE2] SIMD16 native, SIMD32 supported
    grf_count=128,                     # assumed as PVC (512-bit GRFs [XE2]; see notes)
    grf_count_large=256,
    grf_bytes=64,                      # [XE2] 512-bit vector engines / registers
    slm_bytes_per_core=128 * KiB,      # [NEO] maxProgrammableSlmSize = 128 KiB
    slm_bytes_per_workgroup=128 * KiB,  # [NEO]
    max_workgroup_size=1024,           # [NEO] 8 XVEs x 8 threads x SIMD16 (derived)
    named_barriers=32,                 # assumed as PVC (no public Xe2 figure found)
    l1_bytes_per_core=256 * KiB,       # [XE2] B580 L1/SLM 256 KiB; [UARCH] SharedMemory(256 KiB)
    l2_bytes=18 * MiB,                 # [ARK] 18 MB last-level cache
    clock_mhz=2670,                    # [ARK] graphics clock
    base_clock_mhz=2670,               # [ARK] only one clock is specified
    dpas=_DPAS,
    blocks=_BLOCKS,
    surface=_SURFACE,
    peak=_PEAK,
    perf=_PERF,
    sources=(
        ("xe_cores", "[ARK] Arc B580: 20 Xe-cores"),
        ("clock", "[ARK] B580 graphics clock (Intel's 233 TOPS INT8 implies ~2.85 GHz)"),
        ("threads", "[NEO] 8 threads per XVE x 8 XVEs; large GRF: assumed 4 as on PVC"),
        ("slm", "[NEO] maxProgrammableSlmSize = 128 KiB"),
    ),
    notes=(
        "Large-GRF mode (256 GRFs, 4 threads per XVE) and 128 GRFs by default are assumed as on "
        "PVC: Intel's compilers expose the 256-GRF mode on Xe2, but no public table states it.",
        "2D block and surface rules are PVC's: upstream MLIR's BMGuArch registers the same "
        "instructions; no Battlemage-specific rule has been published.",
        "tf32 DPAS: listed for bmg_g21 by the SYCL runtime; its XMX rate is an assumption.",
        "f64 runs at 1/8 of the f32 rate (PVC: full rate).",
    ),
)
