"""Offsets form, text of scf.for / scf.yield: descriptors carried by a loop are loop-invariant there
(their offsets are recomputed from the induction variable), so they leave iter_args, the yield and
the results; later uses of the remaining results are renumbered (`%r#k`)."""
from __future__ import annotations

import re

_FOR = re.compile(r"^(?P<ind>\s*)(?:(?P<res>%[\w$.-]+)(?::(?P<n>\d+))? = )?scf\.for (?P<head>.*?) "
                  r"iter_args\((?P<args>.*?)\) -> (?P<types>.*) \{$")
_YIELD = re.compile(r"^(?P<ind>\s*)scf\.yield (?P<vals>.*?) : (?P<types>.*)$")


def split_top(text: str) -> list[str]:
    """`a, b<c, d>, (e, f)` -> ['a', 'b<c, d>', '(e, f)']: commas outside brackets."""
    out, depth, cur = [], 0, ""
    for i, ch in enumerate(text):
        if ch in "<([{":
            depth += 1
        elif ch in ">)]}" and not (ch == ">" and i and text[i - 1] == "-"):
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
            continue
        cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def _types(text: str) -> list[str]:
    text = text.strip()
    if text.startswith("(") and text.endswith(")"):
        text = text[1:-1]
    return split_top(text)


def rewrite_for(line: str, dropped: set[int], renames: dict) -> str:
    """The scf.for header without the `dropped` carries; fills `renames` (old result name -> new)."""
    m = _FOR.match(line)
    if not m or not dropped:
        return line
    args, types = split_top(m["args"]), _types(m["types"])
    keep = [i for i in range(len(args)) if i not in dropped]
    res, n = m["res"], len(args)
    for new, old in enumerate(keep):
        if res is not None:
            renames[f"{res}#{old}" if n > 1 else res] = res if len(keep) == 1 else f"{res}#{new}"
    if not keep:
        return f"{m['ind']}scf.for {m['head']} {{"
    lhs = "" if res is None else (f"{res} = " if len(keep) == 1 else f"{res}:{len(keep)} = ")
    return (f"{m['ind']}{lhs}scf.for {m['head']} iter_args({', '.join(args[i] for i in keep)}) -> "
            f"({', '.join(types[i] for i in keep)}) {{")


def rewrite_yield(line: str, dropped: set[int]) -> str:
    m = _YIELD.match(line)
    if not m or not dropped:
        return line
    vals, types = split_top(m["vals"]), split_top(m["types"])
    keep = [i for i in range(len(vals)) if i not in dropped]
    if not keep:
        return f"{m['ind']}scf.yield"
    return f"{m['ind']}scf.yield {', '.join(vals[i] for i in keep)} : {', '.join(types[i] for i in keep)}"
