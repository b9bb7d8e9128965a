"""Command-line drivers: xe-opt (like mlir-opt) and xe-run (simulate and check kernels)."""
