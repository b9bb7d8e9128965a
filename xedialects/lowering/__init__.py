"""Conversions between the levels of the pipeline (docs/pipeline.md), one package per stage:
`linalg_to_xetile` (stage 1, with the GEMM planner), `xetile_to_xegpu` (stage 4) and
`xegpu_to_spirv` (stage 6). Each package's `convert` module registers its pass."""
