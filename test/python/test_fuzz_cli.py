"""Seeded fuzzing of xe-opt and xe-run on mutations of the project's own examples and tests (issue 30).

Each case takes a small program of the checkout (examples/, test/lit/), mutates it one to three
times with a fixed seed (a dimension or the element type of a shaped type everywhere it is written,
a number or an `arith.constant` in one place, a deleted or duplicated line), picks a pipeline and
maybe a bad pass option, --dims or output file, and runs the tool's
`main` in a forked child (the tool as users run it, without a Python start-up per run; a crash of
the child is a finding, not a dead pytest), stopped after `TIME_LIMIT` seconds. Every run must end
with exit status 0, or 1 with a located error (`FILE:LINE:COL: error:` or `xe-opt: error:` /
`xe-run: error:` naming the option), never "internal error", a traceback or an assertion, never a
signal or a hang, and it must leave no output file behind when it fails.

    XE_FUZZ_CASES=200 XE_FUZZ_SEED=7 pytest test/python/test_fuzz_cli.py   # explore beyond the suite
"""
from __future__ import annotations

import os
import random
import re
import signal
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from xedialects.tools.xe_opt import main as xe_opt_main
from xedialects.tools.xe_run import main as xe_run_main

ROOT = Path(__file__).resolve().parents[2]
SEED = int(os.environ.get("XE_FUZZ_SEED", "30"))
CASES = int(os.environ.get("XE_FUZZ_CASES", "36"))
TIME_LIMIT = float(os.environ.get("XE_FUZZ_TIME_LIMIT", "60"))

# (path, how it runs): "gemm"/"dynamic" linalg programs through xe-opt's pipelines or xe-run --check (the
# dynamic one with --dims), "kernel" XeTile/XeGPU programs through xe-opt, "whole" programs with xe-run -e
# main, "upstream" xegpu programs through xe-opt --convert-upstream-xegpu or xe-run -e main, "lane" lane-level
# (SIMT-mode) XeGPU kernels through xe-opt --convert-xegpu-to-spirv
SOURCES = [
    ("examples/gemm_bf16.mlir", "gemm"),
    ("examples/gemm_dynamic.mlir", "dynamic"),
    ("examples/attention_f16.mlir", "gemm"),
    ("examples/attention_causal_bf16.mlir", "gemm"),
    ("examples/attention_decode_bf16.mlir", "gemm"),
    ("examples/w8a16_gemm.mlir", "gemm"),
    ("examples/w4a16_gemm.mlir", "gemm"),
    ("test/lit/Conversion/linalg-to-xetile/dequant-w4a16.mlir", "gemm"),
    ("test/lit/Conversion/linalg-to-xetile/transpose-a.mlir", "gemm"),
    ("test/lit/Conversion/linalg-to-xetile/epilogue-bias-relu.mlir", "gemm"),
    ("test/lit/Conversion/linalg-to-xetile/elementwise.mlir", "gemm"),
    ("test/lit/Conversion/linalg-to-xetile/gemv.mlir", "gemm"),
    ("test/lit/Conversion/linalg-to-xetile/reduce.mlir", "gemm"),
    ("test/lit/Conversion/linalg-to-xetile/softmax.mlir", "gemm"),
    ("test/lit/Conversion/linalg-to-xetile/batch.mlir", "gemm"),
    ("test/lit/Conversion/linalg-to-xetile/col-major.mlir", "gemm"),
    ("test/lit/xe-run/whole-program.mlir", "whole"),
    ("test/lit/xe-run/whole-program-w4a16.mlir", "whole"),
    ("test/lit/Transforms/wg-to-sg/appendix-2.1-gemm-prefetch.mlir", "kernel"),
    ("test/lit/Transforms/wg-to-sg/appendix-2.2-transpose-broadcast-reduce.mlir", "kernel"),
    ("test/lit/Conversion/xetile-to-xegpu/gemm-bf16.mlir", "kernel"),
    ("test/lit/Conversion/xegpu-to-spirv/gemm.mlir", "kernel"),
    ("test/lit/Conversion/upstream-xegpu-to-xegpu/run-sg.mlir", "upstream"),
    ("test/lit/Conversion/upstream-xegpu-to-xegpu/run-wg.mlir", "upstream"),
    ("test/lit/Conversion/upstream-xegpu-to-xegpu/run-simt.mlir", "upstream"),
    ("test/lit/Conversion/upstream-xegpu-to-xegpu/xevm-gemm-run.mlir", "upstream"),
    ("test/lit/Conversion/xegpu-to-spirv/simt.mlir", "lane"),
]
NUMBERS = [0, 1, 2, 3, 7, 8, 16, 17, 33, 64, 96, -1, -16, 1 << 40]
TYPES = ["bf16", "f16", "f32", "f64", "i1", "i4", "i8", "i16", "i32", "index", "tf32"]
OPTIONS = ["k-step", "wg-tile", "sg-tile", "prefetch-distance", "k-slices", "local-k-slices", "arch"]
OPTION_VALUES = ["0", "-3", "1", "16", "1000000", "64x64", "0x32", "-256x256", "7x9", "pvc", "bmg", "xe9", "", "x"]

LOCATED = re.compile(r"^(?:[^\s:][^:]*:\d+:\d+: error: |(?:xe-opt|xe-run): error: )", re.M)
FORBIDDEN = re.compile(r"internal error|Traceback|Assertion|LLVM ERROR|Stack dump|Segmentation|core dumped")
_NUM = re.compile(r"(?<=[<x\[ ,(=])-?\d+(?=[x>\], )])")


@dataclass
class Case:
    index: int
    source: str
    kind: str
    mutation: str
    text: str
    tool: str = "xe-opt"
    args: list[str] = field(default_factory=list)
    output: str | None = None       # the output file's name (in the case's folder), if any

    def describe(self) -> str:
        return f"case {self.index}: {self.tool} {' '.join(self.args)} on {self.source} ({self.mutation})"


def _code_lines(text: str) -> list[int]:
    return [i for i, ln in enumerate(text.split("\n")) if ln.strip() and not ln.lstrip().startswith("//")]


_SHAPED = re.compile(r"\b(?:memref|tensor|vector)<[^<>]*(?:<[^<>]*>[^<>]*)?>")
_DIM = re.compile(r"(?<=<)\d+(?=x)|(?<=x)\d+(?=x)")
_ELT = re.compile(r"(?<=x)(?:bf16|f16|f32|f64|i1|i8|i16|i32|i64|index)(?=[,>])")
_CONST = re.compile(r"(?<=arith\.constant )-?\d+(?= : )")


def mutate(text: str, rng: random.Random) -> tuple[str, str]:
    """(mutated text, what was done): a dimension or the element type of one shaped type changed
    everywhere it is written (the program still parses), a number or an `arith.constant` changed in
    one place, or a line deleted or duplicated."""
    lines = text.split("\n")
    code = _code_lines(text)
    kind = rng.choice(["shape", "shape", "element", "element", "number", "constant", "delete", "duplicate"])
    if kind in ("shape", "element"):
        types = sorted({m.group(0) for i in code for m in _SHAPED.finditer(lines[i])})
        if types:
            old = rng.choice(types)
            spots = list((_DIM if kind == "shape" else _ELT).finditer(old))
            if spots:
                m = rng.choice(spots)
                v = str(rng.choice(NUMBERS)) if kind == "shape" else rng.choice(TYPES)
                new = old[:m.start()] + v + old[m.end():]
                return text.replace(old, new), f"{old} -> {new} everywhere"
    if kind in ("number", "constant"):
        pattern = _NUM if kind == "number" else _CONST
        spots = [(i, m) for i in code for m in pattern.finditer(lines[i])]
        if spots:
            i, m = rng.choice(spots)
            v = rng.choice(NUMBERS)
            lines[i] = lines[i][:m.start()] + str(v) + lines[i][m.end():]
            return "\n".join(lines), f"line {i + 1}: {m.group(0)} -> {v}"
    if kind == "delete" and code:
        i = rng.choice(code)
        return "\n".join(lines[:i] + lines[i + 1:]), f"line {i + 1} deleted"
    if kind == "duplicate" and code:
        i = rng.choice(code)
        return "\n".join(lines[:i + 1] + [lines[i]] + lines[i + 1:]), f"line {i + 1} duplicated"
    return text, "unchanged"


def _option(rng: random.Random) -> str:
    if rng.random() < 0.5:
        return ""
    return f"{rng.choice(OPTIONS)}={rng.choice(OPTION_VALUES)}"


def _entry(text: str) -> str | None:
    m = re.search(r"^func\.func @([\w$.-]+)\(", text, re.M)
    return m.group(1) if m else None


def make_case(index: int, rng: random.Random) -> Case:
    path, kind = rng.choice(SOURCES)
    text, whats = (ROOT / path).read_text(), []
    for _ in range(rng.choice([1, 1, 2, 3])):
        text, what = mutate(text, rng)
        whats.append(what)
    case = Case(index, path, kind, "; ".join(whats), text)
    opt = _option(rng)
    if kind == "upstream" and rng.random() < 0.5:
        case.tool, case.output = "xe-opt", "out.mlir"
        case.args = ["--convert-upstream-xegpu", "-o", case.output]
    elif kind == "upstream":
        case.tool = "xe-run"
        case.args = ["-e", "main", "--entry-point-result=void", "--quiet", "--jobs", "1"]
    elif kind == "lane":
        case.tool, case.output = "xe-opt", rng.choice(["out.mlir", "k.spv"])
        case.args = [f"--convert-xegpu-to-spirv=target={rng.choice(['pvc', 'portable'])}"]
        case.args += (["--emit=spirv-binary"] if case.output == "k.spv" else []) + ["-o", case.output]
    elif kind == "kernel":
        case.tool, case.output = "xe-opt", "out.mlir"
        case.args = rng.choice([["--xe-gemm-to-xegpu"], ["--xe-gemm-to-xegpu", "--xegpu-simt-distribute"],
                                ["--xe-gemm-to-spirv"], ["--xe-gemm-to-spirv-portable"], ["--xetile-wg-to-sg"],
                                ["--xe-gemm-to-xegpu", "--xe-kernel-report"], ["--xe-gemm-to-upstream-xegpu"],
                                ["--imex-xetile-to-xegpu"], ["--xe-gemm-to-xegpu", "--xe-draw=draw"]])
        case.args += ["-o", case.output]
    elif kind == "whole":
        case.tool = "xe-run"
        case.args = ["-e", "main", "--entry-point-result=void", "--quiet", "--jobs", "1"]
        if rng.random() < 0.5:
            case.args.append("--pipeline=xe-gemm-to-xegpu")
    elif rng.random() < 0.5:
        case.tool = "xe-opt"
        flag = rng.choice(["xe-gemm-to-xegpu", "convert-linalg-to-xetile", "xe-gemm-to-spirv-portable",
                           "xe-gemm-to-spirv", "xe-linalg-to-xetile"])
        case.args = [f"--{flag}" + (f"={opt}" if opt else "")]
        if flag.startswith("xe-gemm-to-spirv") and rng.random() < 0.5:
            case.output = "k.spv"
            case.args += ["--emit=spirv-binary"]
        else:
            case.output = "out.mlir"
        case.args += ["-o", case.output]
    else:
        case.tool, case.output = "xe-run", "out.npz"
        pipeline = "xe-gemm-to-xegpu" + (f"{{{opt}}}" if opt else "")
        case.args = [f"--pipeline={pipeline}", "--check", "--quiet", "--jobs", "1", "--output", case.output]
        entry = _entry(text)
        if entry:
            case.args += ["--entry", entry]
        if kind == "dynamic":
            m, n, k = (rng.choice([1, 17, 64, 96, 1 << 40]) for _ in range(3))
            case.args += ["--dims", rng.choice([f"M={m},N={n},K={k},A=MxK,B=KxN,C=MxN", f"A={m}x{k}", "A=x",
                                                f"M={m},A=MxM,B=MxM,C=MxM"])]
    return case


def run_case(case: Case, folder: str) -> tuple[int | str, str, str, float]:
    """(exit status, or the signal / 'timeout', stdout, stderr, seconds) of the case's tool run in a
    forked child in `folder`."""
    src = os.path.join(folder, "input.mlir")
    with open(src, "w", encoding="utf-8") as f:
        f.write(case.text)
    out_path, err_path = os.path.join(folder, ".stdout"), os.path.join(folder, ".stderr")
    t0 = time.perf_counter()
    pid = os.fork()
    if pid == 0:       # child: never returns
        code = 3
        try:
            os.chdir(folder)
            for fd, path in ((1, out_path), (2, err_path)):
                h = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
                os.dup2(h, fd)
                os.close(h)
            sys.stdout = open(1, "w", encoding="utf-8", closefd=False)     # not pytest's capture
            sys.stderr = open(2, "w", encoding="utf-8", closefd=False)
            main = xe_opt_main if case.tool == "xe-opt" else xe_run_main
            code = main(["input.mlir", *case.args])
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else 2
        except BaseException:  # noqa: BLE001 - a traceback is a finding: printed to the case's stderr
            import traceback

            traceback.print_exc()
            code = 4
        finally:
            try:
                sys.stdout.flush()
                sys.stderr.flush()
            finally:
                os._exit(code if isinstance(code, int) else 5)
    status: int | str = "timeout"
    deadline = t0 + TIME_LIMIT
    while time.perf_counter() < deadline:
        done, st = os.waitpid(pid, os.WNOHANG)
        if done:
            status = (os.WEXITSTATUS(st) if os.WIFEXITED(st)
                      else f"signal {signal.Signals(os.WTERMSIG(st)).name}")
            break
        time.sleep(0.02)
    else:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    seconds = time.perf_counter() - t0
    stdout = Path(out_path).read_text(errors="replace")
    stderr = Path(err_path).read_text(errors="replace")
    for p in (out_path, err_path, src):
        os.unlink(p)
    return status, stdout, stderr, seconds


def problems(case: Case, status, stdout: str, stderr: str, left: list[str]) -> list[str]:
    """What is wrong with a run (empty: fine)."""
    found = []
    if status not in (0, 1):
        found.append(f"exit status {status}")
    bad = FORBIDDEN.search(stderr) or FORBIDDEN.search(stdout)
    if bad:
        found.append(f"'{bad.group(0)}' in the output")
    if re.search(r"^<unknown>(?::0)?: error:", stderr, re.M):
        found.append("an error without a location")
    if status == 1 and not LOCATED.search(stderr):
        found.append("exit 1 without a located error" + (" (a --check FAIL)" if "FAIL" in stdout else ""))
    if status != 0 and left:
        found.append(f"files left behind: {', '.join(left)}")
    return found


def _cases() -> list[Case]:
    rng = random.Random(SEED)
    return [make_case(i, rng) for i in range(CASES)]


@pytest.mark.parametrize("case", _cases(), ids=lambda c: f"{c.index}-{c.tool}-{Path(c.source).stem}")
def test_fuzz_cli(case):
    with tempfile.TemporaryDirectory(prefix="xe-fuzz-") as folder:
        status, stdout, stderr, seconds = run_case(case, folder)
        left = sorted(os.listdir(folder))
    found = problems(case, status, stdout, stderr, left)
    assert not found, (f"{case.describe()}: {'; '.join(found)} ({seconds:.1f} s)\n--- stderr ---\n{stderr[-3000:]}"
                       f"\n--- stdout (end) ---\n{stdout[-1000:]}\n--- input ---\n{case.text}")
