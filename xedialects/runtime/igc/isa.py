"""Read IGC's final assembly of one kernel (the `*.asm` file of IGC's shader dump) into counts.

What is read (docs/igc.md "Reading the ISA report"):
* header comments: `//.kernel NAME`, `//.thread_config numGRF=N`, `//.spill size BYTES`, `//.instCount`;
* instructions: every line that is not a comment, a label or blank; a DPAS is `dpas.*`, a 2D block load
  `load_block2d` with a register destination, a 2D block prefetch `load_block2d` into `null`, a store
  `store_block2d`; a scratch message is any message to scratch space (spill traffic: PVC's
  `send ... scratch`, an LSC message on the scratch surface `ss[...]` on Xe2); other LSC messages
  (`load.*`, `store.*`, `atomic*`) count as scattered messages;
* the K loop: IGC prints each basic block as `// Bnnn: Preds:{...},  Succs:{...}` (blocks inside divergent
  control flow as `// Bnnn: [inDivergent],  Preds:...`); a successor with a
  lower number than its block is a back edge, and the blocks from its target to its source are a loop.
  The K loop is the loop with the most DPAS (the innermost of those with that many); its counts are
  those of one iteration.
"""
from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field

# a block header, with IGC's optional annotations before Preds ("// B1251: [inDivergent],  Preds:...")
_BLOCK = re.compile(r"^// B(\d+):(?:\s*\[[^\]]*\],)*\s*Preds:\{([^}]*)\},\s*Succs:\{([^}]*)\}")
_LABEL = re.compile(r"^[A-Za-z_.$][\w.$]*:\s*(//.*)?$")
_PRED = re.compile(r"^\s*\([^)]*\)\s*")


@dataclass
class Counts:
    """Instruction counts of a stretch of code."""

    instructions: int = 0
    dpas: int = 0
    block_loads: int = 0
    block_stores: int = 0
    block_prefetches: int = 0
    scattered_messages: int = 0
    scratch_messages: int = 0
    branches: int = 0

    def add(self, line: str) -> None:
        self.instructions += 1
        op = opcode(line)
        if op.startswith("dpas"):
            self.dpas += 1
        elif op.startswith("load_block2d"):
            if re.search(r"\)\s+null\b", line.split("//")[0]):
                self.block_prefetches += 1
            else:
                self.block_loads += 1
        elif op.startswith("store_block2d"):
            self.block_stores += 1
        elif _is_scratch(op, line):
            self.scratch_messages += 1
        elif op.split(".")[0] in ("load", "store", "atomic", "load_block", "store_block"):
            self.scattered_messages += 1
        if op.split(".")[0] in ("jmpi", "goto", "join", "brd", "brc", "while", "if", "else", "endif", "call", "ret"):
            self.branches += 1

    @property
    def non_dpas_per_dpas(self) -> float | None:
        return (self.instructions - self.dpas) / self.dpas if self.dpas else None


@dataclass
class KernelIsa:
    """One kernel as IGC compiled it (one SIMD width)."""

    kernel: str
    platform: str
    simd: int | None
    grf_count: int | None
    spill_bytes: int
    total: Counts
    k_loop: Counts | None = None
    k_loop_blocks: int = 0
    extra: dict = field(default_factory=dict)
    # a kernel without a DPAS loop (memory-bound): its loop with the most memory messages, else None
    hot_loop: Counts | None = None

    @property
    def grf_mode(self) -> str:
        return "large" if (self.grf_count or 0) > 128 else "default"

    def as_dict(self) -> dict:
        d = asdict(self)
        d["grf_mode"] = self.grf_mode
        for key in ("total", "k_loop", "hot_loop"):
            if d[key] is not None:
                d[key]["non_dpas_per_dpas"] = getattr(self, key).non_dpas_per_dpas
        return d


def _is_scratch(op: str, line: str) -> bool:
    """A message to scratch space: PVC's `send ... scratch block` or an LSC message on the scratch surface
    (`ss[...]`, Xe2's spill and fill)."""
    return op.startswith(("send", "load", "store")) and ("scratch" in line or bool(re.search(r"\bss\[", line)))


def opcode(line: str) -> str:
    """The mnemonic of an instruction line (predicate and comment stripped)."""
    body = _PRED.sub("", line.split("//")[0]).strip()
    return body.split(None, 1)[0] if body else ""


def _is_instruction(line: str) -> bool:
    s = line.strip()
    return bool(s) and not s.startswith("//") and not _LABEL.match(s)


def parse_asm(text: str, simd: int | None = None) -> KernelIsa:
    """Counts of one kernel's assembly text (see the module docstring)."""
    header = {}
    for m in re.finditer(r"^//\.(kernel|platform|thread_config|spill size|instCount)\s*(.*)$", text, re.M):
        header.setdefault(m.group(1), m.group(2).strip())
    grf = re.search(r"numGRF=(\d+)", header.get("thread_config", ""))
    total = Counts()
    blocks: list[tuple[int, list[int], Counts]] = []   # (number, successors, counts) in layout order
    current = None
    for line in text.splitlines():
        m = _BLOCK.match(line)
        if m:
            succs = [int(x) for x in re.findall(r"B(\d+)", m.group(3))]
            current = (int(m.group(1)), succs, Counts())
            blocks.append(current)
            continue
        if not _is_instruction(line):
            continue
        total.add(line)
        if current is not None:
            current[2].add(line)
    loop, nblocks = _k_loop(blocks)
    hot = _hot_loop(blocks) if loop is None else None
    return KernelIsa(kernel=header.get("kernel", "?"), platform=header.get("platform", "?"), simd=simd,
                     grf_count=int(grf.group(1)) if grf else None,
                     spill_bytes=int(header.get("spill size", "0") or 0), total=total, k_loop=loop,
                     k_loop_blocks=nblocks, hot_loop=hot)


def _loops(blocks):
    """(counts, blocks) of every loop: the blocks from a back edge's target to its source."""
    index = {num: i for i, (num, _, _) in enumerate(blocks)}
    for i, (num, succs, _) in enumerate(blocks):
        for s in succs:
            if s in index and index[s] <= i:      # back edge i -> header
                body = blocks[index[s]:i + 1]
                c = Counts()
                for _, _, bc in body:
                    for k, v in asdict(bc).items():
                        setattr(c, k, getattr(c, k) + v)
                yield c, len(body)


def _k_loop(blocks) -> tuple[Counts | None, int]:
    """The loop with the most DPAS (the smallest of those), with its block count."""
    best, best_key = None, None
    for c, n in _loops(blocks):
        key = (c.dpas, -n)
        if c.dpas and (best_key is None or key > best_key):
            best, best_key = (c, n), key
    return best if best else (None, 0)


def memory_messages(c: Counts) -> int:
    """The memory messages of a stretch of code (2D block and scattered; not scratch)."""
    return c.block_loads + c.block_stores + c.block_prefetches + c.scattered_messages


def _hot_loop(blocks) -> Counts | None:
    """The loop with the most memory messages (the smallest of those): the streaming loop of a
    memory-bound kernel."""
    best, best_key = None, None
    for c, n in _loops(blocks):
        key = (memory_messages(c), -n)
        if key[0] and (best_key is None or key > best_key):
            best, best_key = c, key
    return best
