#!/usr/bin/env python3
"""Run xe-opt from a checkout without installing: python tools/xe-opt.py FILE [options]."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from xedialects.tools.xe_opt import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
