"""The simulator's errors for an op it has no handler for and for a type it does not model, with a
hint where the op or type says what is missing: linalg / tensor / bufferization ops are what the
lowering pipeline turns into kernels, so the program was run without `--pipeline` (issue 31:
"unsupported operation 'linalg.matmul'"); LLVM dialect ops and unranked memrefs are host code's (runner
utilities' arguments), so the program is a whole program run as a single function."""
from __future__ import annotations

LOWERED_BY_THE_PIPELINE = ("linalg.", "tensor.", "bufferization.")
WHOLE_PROGRAM_HINT = ("run such a program as mlir-runner does, its host code JIT-compiled: xe-run FILE -e main "
                      "--entry-point-result=void")


def unsupported_message(name: str) -> str:
    """`simulator: unsupported operation 'NAME'`, plus how to lower it when the pipeline would."""
    text = f"simulator: unsupported operation '{name}'"
    if name.startswith(LOWERED_BY_THE_PIPELINE):
        text += ("; the simulator runs GPU kernels (XeTile / XeGPU) and the host code that launches them: "
                 "lower the program first, e.g. xe-run FILE --pipeline=xe-gemm-to-xegpu (Python: "
                 "Pipeline().add(\"xe-gemm-to-xegpu\").run(module) before simulate)")
    elif name.startswith("llvm."):
        text += "; LLVM dialect ops are host code's (strings for printString, pointers, ...): " + WHOLE_PROGRAM_HINT
    return text


def unsupported_type_message(op_name: str, type_text: str, reason: str) -> str:
    """`simulator: 'OP' uses TYPE, which the simulator does not model (REASON)`, plus how to run a whole
    program when the type is an unranked memref (what runner utilities such as printMemrefF32 take)."""
    text = f"simulator: '{op_name}' uses {type_text}, which the simulator does not model ({reason})"
    if type_text.startswith("memref<*"):
        text += "; unranked memrefs are host code's, for runner utilities (printMemrefF32, printAllcloseF32, ...): " + \
            WHOLE_PROGRAM_HINT
    return text
