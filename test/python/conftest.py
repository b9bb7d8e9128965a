"""pytest set-up shared by the suite.

* The checkout is importable even without `pip install -e .`.
* `spirv_val` fixture: the SPIR-V validator of the `test` extra; a test that needs it fails
  (never skips) when it is missing.
* Skips are allowed only for what a user left out on purpose (the `run` extra: Intel's OpenCL
  CPU runtime). The run ends with one line naming every skip reason, and with `XE_NO_SKIPS=1`
  (set by CI) a skipped test counts as a failure.
"""
import collections
import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

NO_SKIPS = os.environ.get("XE_NO_SKIPS") == "1"


@pytest.fixture(scope="session")
def spirv_val():
    from xedialects.mlir_tools import SPIRV_VAL_ADVICE, spirv_val_path

    path = spirv_val_path()
    if path is None:
        pytest.fail(f"spirv-val not found: {SPIRV_VAL_ADVICE}", pytrace=False)
    return path


def _skip_reason(report) -> str:
    lr = report.longrepr
    reason = lr[2] if isinstance(lr, tuple) and len(lr) == 3 else str(lr)
    return reason.removeprefix("Skipped: ")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if NO_SKIPS and report.skipped and not hasattr(report, "wasxfail"):
        report.outcome = "failed"
        report.longrepr = f"skipped, and XE_NO_SKIPS=1 forbids skips: {_skip_reason(report)}"


def pytest_terminal_summary(terminalreporter):
    skipped = terminalreporter.stats.get("skipped", [])
    if not skipped:
        return
    reasons = collections.Counter(_skip_reason(r) for r in skipped)
    terminalreporter.write_line(f"{len(skipped)} skipped: " + "; ".join(f"{n} x {why}" for why, n in reasons.items()))
