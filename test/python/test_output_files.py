"""Output files, all or nothing (xedialects/output_files.py): a result of several files is written only
when every file can be; a failure names the file and leaves nothing behind; xe-run --output writes
exactly the path it is given, only on success, and a bad path is an error before the run."""
import os
import subprocess
import sys

import numpy as np
import pytest

from xedialects.output_files import OutputError, check_writable, write_all

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GEMM = os.path.join(ROOT, "examples", "gemm_bf16.mlir")


def test_all_files_or_none(tmp_path):
    a, b = tmp_path / "a.bin", tmp_path / "b.json"
    b.mkdir()
    with pytest.raises(OutputError, match=r"cannot write output file '.*b\.json': is a directory"):
        write_all([(str(a), b"x"), (str(b), "y")])
    assert not a.exists() and sorted(os.listdir(tmp_path)) == ["b.json"]   # no temporary left either
    a.write_bytes(b"old")
    b.rmdir()
    write_all([(str(a), b"new"), (str(b), "text")])
    assert a.read_bytes() == b"new" and b.read_text() == "text"
    assert sorted(os.listdir(tmp_path)) == ["a.bin", "b.json"]


def test_special_files_and_missing_folders(tmp_path):
    write_all([("/dev/null", b"discarded")])
    with pytest.raises(OutputError, match="no such directory"):
        check_writable(str(tmp_path / "missing" / "x"))


def _run(tool, *args):
    return subprocess.run([sys.executable, os.path.join(ROOT, "tools", tool), *map(str, args)],
                          capture_output=True, text=True, timeout=600)


def test_spirv_binary_with_unwritable_metadata_writes_nothing(tmp_path):
    out = tmp_path / "k.spv"
    (tmp_path / "k.spv.json").mkdir()
    r = _run("xe-opt.py", GEMM, "--xe-gemm-to-spirv", "--emit=spirv-binary", "-o", out)
    assert r.returncode == 1 and not out.exists()
    assert "cannot write output file" in r.stderr and "k.spv.json': is a directory" in r.stderr


def test_xe_draw_failure_leaves_no_picture_and_names_the_file(tmp_path):
    pics = tmp_path / "pics"
    (pics / "gemm_0-subgroup.svg").mkdir(parents=True)
    r = _run("xe-opt.py", GEMM, "--xe-gemm-to-xegpu", f"--xe-draw={pics}", "-o", "/dev/null")
    assert r.returncode == 1 and "gemm_0-subgroup.svg': is a directory" in r.stderr
    assert os.listdir(pics) == ["gemm_0-subgroup.svg"]
    ok = tmp_path / "ok"
    r = _run("xe-opt.py", GEMM, "--xe-gemm-to-xegpu", f"--xe-draw={ok}", "-o", "/dev/null")
    assert r.returncode == 0 and "--xe-draw wrote" in r.stderr and len(os.listdir(ok)) == 3


def test_xe_run_output_is_exactly_the_path_and_checked_first(tmp_path):
    out = tmp_path / "result"                        # no .npz suffix added
    r = _run("xe-run.py", GEMM, "--pipeline=xe-gemm-to-xegpu", "--sample-groups=1", f"--output={out}")
    assert r.returncode == 0, r.stderr
    assert os.listdir(tmp_path) == ["result"] and set(np.load(out)) == {"A", "B", "C"}
    r = _run("xe-run.py", GEMM, "--pipeline=xe-gemm-to-xegpu", f"--output={tmp_path / 'no' / 'x.npz'}")
    assert r.returncode == 1 and "--output: cannot write output file" in r.stderr and "no such directory" in r.stderr
    assert "simulated" not in r.stdout               # stopped before the run
    r = _run("xe-run.py", GEMM, "--pipeline=xe-gemm-to-xegpu", f"--output={tmp_path}")
    assert r.returncode == 1 and "is a directory" in r.stderr
