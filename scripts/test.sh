#!/usr/bin/env bash
# The project's one test command (used by the README and by CI): lit tests, then pytest.
# Runs both even if the first fails; exits non-zero if either fails.
# Uses the Python found first on PATH (activate the venv first) or $PYTHON.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

PY="${PYTHON:-$(command -v python || command -v python3)}"
status=0

echo "== lit test/lit"
"$PY" -c 'import sys; from lit.main import main; sys.argv[0] = "lit"; sys.exit(main())' -sv test/lit || status=1

echo "== pytest test/python"
"$PY" -m pytest -q test/python || status=1

if [ "$status" -ne 0 ]; then
    echo "scripts/test.sh: FAILED" >&2
fi
exit "$status"
