"""The simulator's error for an op it has no handler for, with a hint where the op says what is
missing: linalg / tensor / bufferization ops are what the lowering pipeline turns into kernels, so
the program was run without `--pipeline` (issue 31: "unsupported operation 'linalg.matmul'")."""
from __future__ import annotations

LOWERED_BY_THE_PIPELINE = ("linalg.", "tensor.", "bufferization.")


def unsupported_message(name: str) -> str:
    """`simulator: unsupported operation 'NAME'`, plus how to lower it when the pipeline would."""
    text = f"simulator: unsupported operation '{name}'"
    if name.startswith(LOWERED_BY_THE_PIPELINE):
        text += ("; the simulator runs GPU kernels (XeTile / XeGPU) and the host code that launches them: "
                 "lower the program first, e.g. xe-run FILE --pipeline=xe-gemm-to-xegpu (Python: "
                 "Pipeline().add(\"xe-gemm-to-xegpu\").run(module) before simulate)")
    return text
