"""Every shell command of README.md's ```sh blocks, read from the README at test time and run the way a
new user runs it after `pip install -e .`: from a copy of the repository's files (what commands write,
gemm_bf16.spv or pics/, lands there), with a PATH holding only what the install puts there (python and
the project's console scripts, xe-opt and xe-run; no mlir-opt, no FileCheck) and /usr/bin:/bin. Each
must exit 0. The install and test-suite commands are what CI itself runs (.ci/run): they are checked
against it textually instead. Commands needing IGC or the OpenCL runtime skip where those are missing.
"""
from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import time
import tomllib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
CI = ROOT / ".ci" / "run"

# Commands CI runs itself (.ci/run): checked against it, not run here (a venv and an install take minutes,
# the suite ~17 min).
INSTALL = (re.compile(r"python3? -m venv (\S+)"), re.compile(r"\. (\S+)/bin/activate"),
           re.compile(r"pip install -e (\S+)"), re.compile(r"bash scripts/test\.sh"))
# The README runs this one over its eight default programs (68 s on 2 busy cores: 32 IGC builds); the test
# runs the same script, options and code path on one of them (4 builds).
SMALLER = {"python bench/isa_compare.py": "python bench/isa_compare.py examples/gemm_bf16.mlir"}
# What a command needs beyond the base install, and how the test knows it is there.
NEEDS_IGC = ("--install-igc", "--emit=device-binary", "--emit=isa", "isa=true", "bench/isa_compare.py")
NEEDS_OPENCL = ("--backend=opencl", "--backend=both")


def readme_commands() -> list[list[tuple[int, str]]]:
    """Per ```sh block of the README, (line number, command) for each of its non-comment lines."""
    text = README.read_text()
    blocks = []
    for m in re.finditer(r"^```sh\n(.*?)^```", text, re.S | re.M):
        first = text.count("\n", 0, m.start(1)) + 1
        blocks.append([(first + i, line.strip()) for i, line in enumerate(m.group(1).splitlines())
                       if line.strip() and not line.lstrip().startswith("#")])
    return blocks


def split_install(command: str) -> tuple[list[str], str]:
    """The `&&`-separated parts of a command that CI runs itself, and the rest (to run) joined again."""
    parts = [p.strip() for p in command.split("&&")]
    install = [p for p in parts if any(r.fullmatch(p) for r in INSTALL)]
    return install, " && ".join(p for p in parts if p not in install)


def ci_runs(part: str, ci_text: str) -> bool:
    """Whether .ci/run runs this install part: the same command (a venv under any directory name; pip
    with the same path and at most the extras CI installs)."""
    if m := INSTALL[2].fullmatch(part):
        path, _, extras = shlex.split(m.group(1))[0].partition("[")
        for spec in re.findall(r"pip install -e (\S+)", ci_text):
            ci_path, _, ci_extras = shlex.split(spec)[0].partition("[")
            if ci_path == path and set(filter(None, extras.rstrip("]").split(","))) <= set(ci_extras.rstrip("]").split(",")):
                return True
        return False
    if INSTALL[0].fullmatch(part):
        return re.search(r"^python3? -m venv \S+", ci_text, re.M) is not None
    if INSTALL[1].fullmatch(part):
        return re.search(r"^\. \S+/bin/activate", ci_text, re.M) is not None
    return re.search(rf"^(\w+=\S+ )*{re.escape(part)}$", ci_text, re.M) is not None


def test_readme_install_commands_are_what_ci_runs():
    ci_text = CI.read_text()
    parts = [p for block in readme_commands() for _, c in block for p in split_install(c)[0]]
    assert any(INSTALL[2].fullmatch(p) for p in parts), "the README gives no 'pip install -e' command"
    missing = [p for p in parts if not ci_runs(p, ci_text)]
    assert not missing, f"README install commands .ci/run does not run: {missing}"


def _user_path(tmp: Path) -> str:
    """A bin directory with only what `pip install -e .` puts on PATH: python / python3 (this venv's) and
    the console scripts of pyproject.toml, then /usr/bin:/bin."""
    bin_dir = tmp / "bin"
    bin_dir.mkdir()
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    for name in ("python", "python3", *scripts):
        installed = Path(sys.executable).parent / name
        target = bin_dir / name
        if name in scripts and installed.is_file():
            target.symlink_to(installed)
        else:    # a venv's python finds its site-packages from its own path: exec it, do not link it
            module = scripts[name].split(":")[0] if name in scripts else None
            run = f'"{sys.executable}" -m {module}' if module else f'"{sys.executable}"'
            target.write_text(f'#!/bin/sh\nexec {run} "$@"\n')
            target.chmod(0o755)
    return f"{bin_dir}:/usr/bin:/bin"


def _repo_copy(tmp: Path) -> Path:
    """The repository's tracked files (a clone's working tree) without the package, which comes from the
    editable install as it does for a user."""
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    copy = tmp / "repo"
    for rel in filter(None, listed.decode().split("\0")):
        src = ROOT / rel
        if rel.startswith("xedialects/") or not src.is_file():
            continue
        (copy / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, copy / rel)
    return copy


def _missing_requirement(command: str) -> str | None:
    if any(k in command for k in NEEDS_IGC):
        from xedialects.runtime.igc import igc_available

        if not igc_available():
            return "IGC not installed (xe-opt --install-igc)"
    if any(k in command for k in NEEDS_OPENCL):
        try:
            import pyopencl  # noqa: F401
        except ImportError:
            return "OpenCL runtime unavailable (pip install -e '.[run]')"
    return None


def _run_block(block, repo: Path, env: dict) -> list[tuple]:
    """Run one README block's commands in order (a later one may read what an earlier one wrote):
    (line, command, seconds, exit status, stderr) each, or (line, command, None, reason, "") for a skip."""
    out = []
    for line, command in block:
        command = split_install(command)[1]
        if not command:
            continue
        command = SMALLER.get(re.sub(r"\s+#.*", "", command), command)
        why = _missing_requirement(command)
        if why:
            out.append((line, command, None, why, ""))
            continue
        start = time.perf_counter()
        done = subprocess.run(["bash", "-c", command], cwd=repo, env=env, capture_output=True, text=True)
        out.append((line, command, time.perf_counter() - start, done.returncode, done.stderr))
    return out


def test_readme_commands_run_as_written(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME")}
    env["PATH"] = _user_path(tmp_path)
    repo = _repo_copy(tmp_path)
    with ThreadPoolExecutor(2) as pool:   # the blocks are independent (their files have different names)
        results = [r for rs in pool.map(lambda b: _run_block(b, repo, env), readme_commands()) for r in rs]
    ran = [r for r in results if r[2] is not None]
    print("slowest README commands:", ", ".join(f"line {r[0]} {r[2]:.1f} s" for r in sorted(ran, key=lambda r: -r[2])[:5]))
    failures = [f"README.md:{line}: exit {status}: {command}\n{err[-1500:]}" for line, command, _, status, err in ran
                if status != 0]
    assert not failures, "\n\n".join(failures)
    assert len(ran) >= 20, f"only {len(ran)} README commands ran"
    skipped = [f"README.md:{r[0]}: {r[3]}" for r in results if r[2] is None]
    if skipped:
        pytest.skip("; ".join(skipped))
