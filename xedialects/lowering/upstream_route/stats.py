"""SPIR-V statistics for comparing our pvc binary with upstream's route, read from spirv-dis text:
calls of the imported Intel builtins by kind (DPAS, 2D block load / store / prefetch) in the whole
kernel and in its K loop, and instructions per K-loop iteration."""
from __future__ import annotations

import os
import re
import tempfile

from . import tools

# builtin (linkage) name pieces -> statistic
KINDS = (("dpas", "matrix_mad"), ("block_load", "2d_block_read"), ("block_store", "2d_block_write"),
         ("block_prefetch", "2d_block_prefetch"))
_INSTR = re.compile(r"^\s*(?:(%[\w.$-]+) = )?(Op\w+)\s*(.*)$")
_LINKAGE = re.compile(r"OpDecorate (%[\w.$-]+) LinkageAttributes \"([^\"]+)\" Import")
_NOT_COUNTED = {"OpLabel", "OpLine", "OpNoLine", "OpFunctionParameter", "OpFunction", "OpFunctionEnd",
                "OpLoopMerge", "OpSelectionMerge"}


def disassemble(binary: bytes) -> str:
    """spirv-dis text of a SPIR-V binary (ToolError if spirv-dis is missing or fails)."""
    with tempfile.TemporaryDirectory(prefix="xe-route-") as d:
        path = os.path.join(d, "k.spv")
        with open(path, "wb") as f:
            f.write(binary)
        return tools.run("spirv-dis", ["--no-color", "--raw-id", path]).stdout


def _kind(name: str):
    for kind, piece in KINDS:
        if piece in name:
            return kind
    return None


def _blocks(lines):
    """[(label, [(op, rest)])] of one function body."""
    blocks = []
    for res, op, rest in lines:
        if op == "OpLabel":
            blocks.append((res, []))
        elif blocks:
            blocks[-1][1].append((op, rest))
    return blocks


def _counts(instrs, kinds_of) -> dict:
    c = {k: 0 for k, _ in KINDS}
    for op, rest in instrs:
        if op == "OpFunctionCall":
            callee = rest.split()[1] if len(rest.split()) > 1 else ""
            k = kinds_of.get(callee)
            if k:
                c[k] += 1
    return c


def spirv_stats(asm: str) -> dict:
    """Statistics of the kernels (entry points) of a spirv-dis text: per kind of builtin call the
    number in the kernel and in its K loop (the innermost loop with a DPAS call), the instructions
    in the kernel and per K-loop iteration, the K-loop's basic blocks and the Function variables."""
    kinds_of = {m.group(1): _kind(m.group(2)) for m in _LINKAGE.finditer(asm)}
    entries = set(re.findall(r"OpEntryPoint Kernel (%[\w.$-]+)", asm))
    funcs, cur = {}, None
    for line in asm.splitlines():
        m = _INSTR.match(line)
        if not m:
            continue
        res, op, rest = m.groups()
        if op == "OpFunction":
            cur = res
            funcs[cur] = []
        elif op == "OpFunctionEnd":
            cur = None
        elif cur is not None:
            funcs[cur].append((res, op, rest))
    out = {"kernels": 0, "instructions": 0, "variables": 0, "loop_instructions": 0, "loop_blocks": 0,
           **{k: 0 for k, _ in KINDS}, **{f"loop_{k}": 0 for k, _ in KINDS}}
    for fid in entries & set(funcs):
        out["kernels"] += 1
        lines = _reachable(fid, funcs)
        instrs = [(op, rest) for _, op, rest in lines if op not in _NOT_COUNTED]
        out["instructions"] += len(instrs)
        out["variables"] += sum(op == "OpVariable" for op, _ in instrs)
        for k, v in _counts(instrs, kinds_of).items():
            out[k] += v
        loop = _k_loop(_blocks(lines), kinds_of)
        if loop:
            body = [(op, rest) for _, ins in loop for op, rest in ins if op not in _NOT_COUNTED]
            out["loop_instructions"] += len(body)
            out["loop_blocks"] += len(loop)
            for k, v in _counts(body, kinds_of).items():
                out[f"loop_{k}"] += v
    return out


def _reachable(fid, funcs) -> list:
    """The body of kernel `fid` and of the functions with a body it calls (llvm-spirv wraps each
    kernel in an entry point that calls the translated function)."""
    seen, order, stack = set(), [], [fid]
    while stack:
        f = stack.pop()
        if f in seen or f not in funcs or not funcs[f]:
            continue
        seen.add(f)
        order.append(f)
        stack += [rest.split()[1] for _, op, rest in funcs[f] if op == "OpFunctionCall" and len(rest.split()) > 1]
    lines = []
    for f in order:
        lines += funcs[f]
    return lines


def _k_loop(blocks, kinds_of):
    """The blocks of the innermost loop (back edge in layout order) that contains a DPAS call."""
    index = {label: i for i, (label, _) in enumerate(blocks)}
    best = None
    for i, (_, ins) in enumerate(blocks):
        if not ins:
            continue
        op, rest = ins[-1]
        if op not in ("OpBranch", "OpBranchConditional"):
            continue
        for target in re.findall(r"%[\w.$-]+", rest):
            j = index.get(target)
            if j is None or j > i:
                continue
            span = blocks[j:i + 1]
            if any(_counts(b, kinds_of)["dpas"] for _, b in span) and (best is None or len(span) < len(best)):
                best = span
    return best
