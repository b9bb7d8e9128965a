"""Stage 1, `convert-linalg-to-xetile`: recognise matmul-class linalg ops (`linalg_match`), plan
their work-group and subgroup tiling (`gemm_plan`), fuse fills and element-wise epilogues
(`gemm_epilogue`) and write the work-group XeTile kernel (`gemm_kernel`); `convert` is the pass."""
