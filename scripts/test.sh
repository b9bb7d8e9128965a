#!/usr/bin/env bash
# The project's one test command (used by the README and by CI): lit tests, then pytest.
# Runs both even if the first fails; exits non-zero if either fails. Ends with one line that
# names every skipped test's reason (only the `run` extra may be left out: Intel's OpenCL CPU
# runtime; and IGC where apt-get cannot install it); with XE_NO_SKIPS=1 (CI) any skip or unsupported test is a failure.
# Uses the Python found first on PATH (activate the venv first) or $PYTHON.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

PY="${PYTHON:-$(command -v python || command -v python3)}"
status=0
log="$(mktemp -d)"
trap 'rm -rf "$log"' EXIT

# Intel's GPU compiler (IGC, ocloc) for the tests that compile to machine code: installed into the user
# cache from the project's own installer (docs/igc.md); where it cannot be (no apt-get), those tests skip
# with the reason, and XE_NO_SKIPS=1 makes that a failure.
echo "== IGC (xe-opt --install-igc)"
"$PY" -m xedialects.tools.xe_opt --install-igc || echo "scripts/test.sh: IGC could not be installed; its tests will skip"

echo "== lit test/lit"
"$PY" -c 'import sys; from lit.main import main; sys.argv[0] = "lit"; sys.exit(main())' -sv test/lit \
    2>&1 | tee "$log/lit" || status=1
lit_unsupported="$(sed -n 's/^ *Unsupported *: *\([0-9][0-9]*\).*/\1/p' "$log/lit" | tail -n 1)"

# pytest on every core (pytest-xdist, from the test extra; XE_TEST_JOBS=N to choose), a test file per
# worker so module-level caches (e.g. test_igc's corpus builds) are made once.
jobs=()
if "$PY" -c 'import xdist' 2>/dev/null; then
    jobs=(-n "${XE_TEST_JOBS:-auto}" --dist loadfile)
fi
echo "== pytest test/python ${jobs[*]}"
"$PY" -m pytest -q -rs "${jobs[@]}" test/python 2>&1 | tee "$log/pytest" || status=1
pytest_skips="$(grep -E '^[0-9]+ skipped: ' "$log/pytest" | tail -n 1)"

summary="skips: none"
if [ -n "$lit_unsupported" ] || [ -n "$pytest_skips" ]; then
    summary="skips:${lit_unsupported:+ lit $lit_unsupported unsupported (REQUIRES not met);}${pytest_skips:+ pytest $pytest_skips}"
    if [ "${XE_NO_SKIPS:-}" = "1" ]; then
        echo "scripts/test.sh: XE_NO_SKIPS=1 and tests were skipped" >&2
        status=1
    fi
fi
echo "scripts/test.sh: $summary"
if [ "$status" -ne 0 ]; then
    echo "scripts/test.sh: FAILED" >&2
fi
exit "$status"
