"""Imports every dialect definition module so the registry (core.dialect.DIALECTS) is complete."""
from .xetile import ops as _xetile_ops  # noqa: F401
from .xetile import ops_imex as _xetile_ops_imex  # noqa: F401  (IMEX's spellings of XeTile's ops)
from .xegpu import ops as _xegpu_ops  # noqa: F401
