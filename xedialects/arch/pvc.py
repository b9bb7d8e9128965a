"""Ponte Vecchio (Intel Data Center GPU Max 1550, Xe-HPC) hardware table (pipeline role: the facts).

This module is the only place PVC numbers live. Every value names its source:

* [XCA]   shared/spec/xe-cute-architecture.md (the project's hardware spec: DPAS M/N/K, block 2D
          kinds, element sizes per kind, alignment and size limits, subgroup size 16).
* [RFC1]  shared/spec/rfc-xetile-xegpu.md (transpose only for 4/8-byte data, VNNI for low precision).
* [IMEX]  intel/mlir-extensions lib/Utils/XeArch.cpp (XePVCuArch): per-element-size block
          width/height/array-length limits, 2 KiB load / 512 B store payload, min pitch 64 B,
          pitch multiple 16 B, DPAS type combinations. Used where the spec docs are silent.
* [ARK]   Intel product page / public spec sheets of the Max 1550: 128 Xe-cores, 8 vector + 8
          matrix engines per Xe-core, 1.6 GHz max clock, 128 GB HBM2e at 3.2768 TB/s, 408 MB L2,
          64 MB L1 total (512 KiB per Xe-core), peak rates.
* [OPT]   Intel oneAPI GPU optimization guide (PVC): 8 threads per vector engine (4 in large-GRF
          mode), 128 GRFs x 64 B (256 in large-GRF mode), SLM 128 KiB per Xe-core, work-group
          size <= 1024, 32 named barriers (sycl ext_intel/XeTLA arch_attr agree).
* [ALCF]  ALCF "Aurora node performance overview" (docs.alcf.anl.gov/aurora/node-performance-overview):
          measured on one stack (tile) of a Max 1550: STREAM triad 1 TB/s, FMA-chain peak 23 TFLOP/s
          f32 and 17 TFLOP/s f64; oneMKL bf16 GEMM 273 TFLOP/s at 8192^3 (figure quoted by issue 22).
* [MODEL] a model parameter that no public document gives directly (stated as such; see
          docs/perf-model.md for how it was chosen).
"""
from __future__ import annotations

from .table import BlockRule, DpasSpec, Fact, PeakRates, PerfFacts, SurfaceRules, XeArch

KiB = 1024
MiB = 1024 * KiB

# ------------------------------------------------------------------------------------------
# DPAS [XCA]: "Hardware allows any M with 1 <= M <= 8, while N is fixed at 16 ... The K
# dimension depends on the data types" -- K = systolic depth 8 x (32 bits / element bits):
# tf32 8, f16/bf16 16, s8/u8 32 [XCA: A width "8 (tf32), 16 (f16/bf16), or 32 (s8/u8)"].
# Type combinations [IMEX checkSupportedDpasTypes]: f16 x f16 -> f32|f16, bf16 x bf16 -> f32|bf16,
# tf32 x tf32 -> f32, {u8,s8,u4,s4,u2,s2} x {same set} -> s32|u32 ([XCA] cites f16/f16/f16/f32
# and s32/u8/s4/s32 as examples of mixed combinations).
# ------------------------------------------------------------------------------------------
_DPAS = DpasSpec(
    systolic_depth=8,
    max_repeat_count=8,
    exec_size=16,
    channel_bits=32,
    float_combos=(
        ("bf16", "bf16", ("f32", "bf16")),
        ("f16", "f16", ("f32", "f16")),
        ("tf32", "tf32", ("f32",)),
    ),
    int_ab_types=("s8", "u8", "s4", "u4", "s2", "u2"),
    int_acc_types=("s32", "u32"),
    source="[XCA] M<=8, N=16, K by type; [IMEX] type combinations",
)

# ------------------------------------------------------------------------------------------
# 2D block messages.
# [XCA]: four hardware kinds -- load (8/16/32/64-bit), load with VNNI transform (8/16-bit),
#   load with transpose (32/64-bit), store (8/16/32/64-bit); any load can be a prefetch
#   (transform/transpose irrelevant there). Block count (array length) exists for regular and
#   VNNI loads only. Block width x data size must keep the 4-byte granularity.
# [IMEX get2DLoadConfig / get2DStoreConfig]: the numeric limits below; one message row is at
#   most 64 B (width x elem x array_len), a load writes at most 2 KiB (32 GRFs), a store reads
#   at most 512 B (8 rows of 64 B).
# ------------------------------------------------------------------------------------------
_ROW = 64          # bytes per block row (all blocks of a message together)  [IMEX]
_LOAD_MAX = 2048   # bytes of one load/prefetch payload                       [IMEX]
_STORE_MAX = 512   # bytes of one store payload                               [IMEX]


def _r(op, bits, hmin, hmax, wmin, wmax, arr, max_bytes, hmult=1, src="[XCA] kinds/sizes; [IMEX] limits"):
    return BlockRule(op, bits, hmin, hmax, wmin, wmax, tuple(arr), _ROW, max_bytes, hmult, src)


_BLOCKS = (
    # plain load:            height 1..32, width 4 B .. 64 B, array length 1/2/4 (1/2 for 32-bit, 1 for 64-bit)
    _r("load", 8, 1, 32, 4, 64, (1, 2, 4), _LOAD_MAX),
    _r("load", 16, 1, 32, 2, 32, (1, 2, 4), _LOAD_MAX),
    _r("load", 32, 1, 32, 1, 16, (1, 2), _LOAD_MAX),
    _r("load", 64, 1, 32, 1, 8, (1,), _LOAD_MAX),
    # VNNI transform (8/16-bit only [XCA]): width <= 16 (one 32-bit value per lane of SIMD16),
    # height a multiple of the VNNI factor (4 rows of 8-bit, 2 rows of 16-bit per 32-bit value)
    _r("load_vnni", 8, 4, 32, 4, 16, (1, 2, 4), _LOAD_MAX, hmult=4),
    _r("load_vnni", 16, 2, 32, 2, 16, (1, 2, 4), _LOAD_MAX, hmult=2),
    # transpose (32/64-bit only [XCA], [RFC1] "PVC only supports ... DW and DQ"); no array length [XCA]
    _r("load_transpose", 32, 1, 32, 1, 8, (1,), _LOAD_MAX),
    _r("load_transpose", 64, 1, 8, 1, 4, (1,), _LOAD_MAX),
    # store: height <= 8, array length 1 [IMEX]
    _r("store", 8, 1, 8, 4, 64, (1,), _STORE_MAX),
    _r("store", 16, 1, 8, 2, 32, (1,), _STORE_MAX),
    _r("store", 32, 1, 8, 1, 16, (1,), _STORE_MAX),
    _r("store", 64, 1, 8, 1, 8, (1,), _STORE_MAX),
    # prefetch = a plain load without destination [XCA]
    _r("prefetch", 8, 1, 32, 4, 64, (1, 2, 4), _LOAD_MAX),
    _r("prefetch", 16, 1, 32, 2, 32, (1, 2, 4), _LOAD_MAX),
    _r("prefetch", 32, 1, 32, 1, 16, (1, 2), _LOAD_MAX),
    _r("prefetch", 64, 1, 32, 1, 8, (1,), _LOAD_MAX),
)

# Surface rules [XCA "Alignment restrictions" / "Size restrictions"]: base 64-B aligned, stride
# (pitch) 16-B aligned ("in some cases on PVC, 4 or 8-byte alignment is OK" -- we require 16),
# width 4-B aligned, width/pitch <= 2^24 bytes, height <= 2^24 elements.
# Minimum pitch 64 B [IMEX minPitch]; minimum surface width 64 B (same LSC 2D surface rule,
# public vISA description) -- not in the spec docs.
_SURFACE = SurfaceRules(
    base_align=64,
    pitch_align=16,
    width_align=4,
    max_width_bytes=1 << 24,
    max_pitch_bytes=1 << 24,
    max_height=1 << 24,
    min_pitch_bytes=64,
    min_width_bytes=64,
    source="[XCA] alignment and size restrictions; [IMEX] min pitch 64 B",
)

# Peak rates [ARK]: per Xe-core per clock, dense. XMX: 8 engines x 4096-bit -> 4096 f16/bf16
# ops (2048 FMA), 2048 tf32, 8192 int8; 128 cores x 4096 x 1.6 GHz = 838.9 TFLOP/s bf16.
# Vector engines: 8 x 512-bit -> 256 f32/f64 ops (52.4 TFLOP/s), 512 f16.
_PEAK = PeakRates(
    xmx_ops_per_clk=(("bf16", 4096), ("f16", 4096), ("tf32", 2048), ("s8", 8192), ("u8", 8192)),
    vector_ops_per_clk=(("f64", 256), ("f32", 256), ("f16", 512)),
    mem_bandwidth_gbs=3276.8,
    source="[ARK] Max 1550",
)

# Performance model facts (passes/analysis/perf_model.py, docs/perf-model.md).
_PERF = PerfFacts(
    stacks=Fact(2, "stacks", "[ARK] Max 1550: 2 stacks x 64 Xe-cores"),
    hbm_gbs_per_stack=Fact(1000.0, "GB/s", "[ALCF] STREAM triad on one tile: 1 TB/s "
                           "(peak [ARK] 3276.8 GB/s / 2 stacks = 1638.4 GB/s)"),
    l2_gbs_per_stack=Fact(4000.0, "GB/s", "[MODEL] assumed 4x the sustained HBM bandwidth "
                          "(no public measurement found)"),
    mem_latency_clk=Fact(1000, "clk", "[MODEL] assumed ~625 ns at 1.6 GHz for an L1 miss "
                         "(no public figure found)"),
    xmx_efficiency=Fact(0.65, "x peak", "[MODEL] calibrated: oneMKL bf16 8192^3 273 TFLOP/s [ALCF] / "
                        "419.4 TFLOP/s one-stack peak = 0.651"),
)

PVC = XeArch(
    name="pvc",
    full_name="Intel Data Center GPU Max 1550 (Ponte Vecchio, Xe-HPC)",
    xe_cores=128,                      # [ARK] 2 stacks x 64
    vector_engines_per_core=8,         # [ARK]
    threads_per_engine=8,              # [OPT]
    threads_per_engine_large_grf=4,    # [OPT] large-GRF mode halves the threads per engine
    igc_device="pvc",                 # ocloc -device pvc (Data Center GPU Max, PVC-XT)
    subgroup_size=16,                  # [XCA] "all 16 threads of the subgroup" (DPAS/block 2D need 16)
    subgroup_sizes=(16, 32),           # [OPT]
    grf_count=128,                     # [OPT]
    grf_count_large=256,               # [OPT] large-GRF mode
    grf_bytes=64,                      # [OPT] 512-bit registers
    slm_bytes_per_core=128 * KiB,      # [OPT]
    slm_bytes_per_workgroup=128 * KiB,  # [OPT] sycl local_mem_size on Max 1550 = 131072 (see notes)
    max_workgroup_size=1024,           # [OPT]
    named_barriers=32,                 # [OPT]
    l1_bytes_per_core=512 * KiB,       # [ARK] 64 MB L1 / 128 Xe-cores (shared with SLM)
    l2_bytes=408 * MiB,                # [ARK] 204 MB per stack
    clock_mhz=1600,                    # [ARK] max dynamic clock
    base_clock_mhz=900,                # [ARK]
    dpas=_DPAS,
    blocks=_BLOCKS,
    surface=_SURFACE,
    peak=_PEAK,
    perf=_PERF,
    notes=(
        "SLM per work-group: 128 KiB per public PVC documentation; some briefs quote 64 KiB "
        "(the Xe-HPG figure). The GEMM planner does not use SLM.",
        "f32 matmul operands run on the matrix engine as tf32 (K = 8).",
    ),
)
