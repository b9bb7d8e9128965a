"""Text steps of the route between tools: the device module out of upstream's lowered MLIR (the
bodies of its gpu.modules, LLVM dialect), and the LLVM IR fix-ups the SPIR-V translator needs
(allocas in the entry block, no vector wider than 16 elements)."""
from __future__ import annotations

import re

# what mlir-translate needs to emit a SPIR-V-flavoured LLVM module
DEVICE_HEADER = 'module attributes {llvm.target_triple = "spir64-unknown-unknown"} {'
_GPU_MODULE = re.compile(r"^(\s*)gpu\.module @([\w$.]+)")
_DECL = re.compile(r"^\s*llvm\.func (?:\w+ )*@([\w$.]+)\(")
_ALLOCA = re.compile(r"^\s+%[\w.]+ = alloca ")
_LABEL = re.compile(r"^[\w.$-]+:")
_VECTOR = re.compile(r"<(\d+) x ")
SPIRV_VECTOR_SIZES = {2, 3, 4, 8, 16}


class RouteTextError(Exception):
    pass


def device_module(lowered: str) -> str:
    """The ops of every gpu.module of `lowered` (LLVM dialect after upstream's passes) as one plain
    module for mlir-translate; declarations repeated across gpu.modules are kept once."""
    lines = lowered.splitlines()
    body: list[str] = []
    declared: set[str] = set()
    found = False
    i = 0
    while i < len(lines):
        m = _GPU_MODULE.match(lines[i])
        if not m:
            i += 1
            continue
        found = True
        end = m.group(1) + "}"
        i += 1
        while i < len(lines) and lines[i] != end:
            d = _DECL.match(lines[i])
            if d and not lines[i].rstrip().endswith("{"):  # a declaration (no body)
                if d.group(1) in declared:
                    i += 1
                    continue
                declared.add(d.group(1))
            body.append(lines[i])
            i += 1
        i += 1
    if not found:
        raise RouteTextError("no gpu.module in the lowered module (nothing to translate to SPIR-V)")
    left = [l.strip() for l in body if re.match(r"^\s*(%\S+ = )?\"?(xegpu|xevm|gpu|vector|memref|scf)\.", l)]
    if left:
        raise RouteTextError(f"upstream's passes left '{left[0].split('(')[0][:80]}' in the kernel; "
                             "only the LLVM dialect translates to LLVM IR")
    return DEVICE_HEADER + "\n" + strip_layouts("\n".join(body)) + "\n}\n"


_LAYOUT_ATTR = re.compile(r"(, )?\b(layout_(?:operand|result)_\d+|layout) = #xegpu\.(?:layout|slice)<")


def strip_layouts(text: str) -> str:
    """Remove the `layout_operand_N` / `layout_result_N` attributes (#xegpu.layout / #xegpu.slice)
    that upstream's distribution leaves on converted ops: mlir-translate has no xegpu dialect."""
    out, pos = [], 0
    while True:
        m = _LAYOUT_ATTR.search(text, pos)
        if not m:
            break
        depth, j = 1, m.end()
        while j < len(text) and depth:
            depth += {"<": 1, ">": -1}.get(text[j], 0)
            j += 1
        start = m.start()
        if not m.group(1) and text.startswith(", ", j):  # first in its dict: drop the following ", "
            j += 2
        out.append(text[pos:start])
        pos = j
    out.append(text[pos:])
    return re.sub(r" \{\}", "", "".join(out))


def hoist_allocas(ll: str) -> str:
    """Move every `alloca` to the top of its function's entry block (SPIR-V wants all Function
    variables first in the first block; upstream's XeVM lowering allocates the block-load results
    where they are loaded, e.g. in the K loop). Values must be named (opt's `instnamer`)."""
    lines = ll.split("\n")
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        out.append(line)
        i += 1
        if not (line.startswith("define ") and line.rstrip().endswith("{")):
            continue
        body = []
        while i < len(lines) and lines[i] != "}":
            body.append(lines[i])
            i += 1
        allocas = [b for b in body if _ALLOCA.match(b)]
        if any(re.match(r"^\s+%\d+ = alloca ", a) for a in allocas):
            raise RouteTextError("numbered allocas cannot be moved (run opt's instnamer first)")
        rest = [b for b in body if not _ALLOCA.match(b)]
        first = 1 if rest and _LABEL.match(rest[0]) else 0
        out += rest[:first] + allocas + rest[first:]
    return "\n".join(out)


# attributes LLVM 22 writes that the translator's LLVM 19 bitcode reader does not know
_NEW_ATTRIBUTES = re.compile(r" (?:nocreateundeforpoison|dead_on_return|captures\([^)]*\))(?=[ }\n,)])")


def strip_new_attributes(ll: str) -> str:
    """Drop function / parameter attributes newer than the translator's LLVM (hints only)."""
    return _NEW_ATTRIBUTES.sub("", ll)


def wide_vectors(ll: str) -> list[int]:
    """Vector lengths in the LLVM IR that SPIR-V (Vector16) has no type for."""
    return sorted({int(n) for n in _VECTOR.findall(ll)} - SPIRV_VECTOR_SIZES - {1})
