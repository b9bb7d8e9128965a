"""Imports every dialect definition module so the registry (core.dialect.DIALECTS) is complete."""
from .xetile import ops as _xetile_ops  # noqa: F401
from .xegpu import ops as _xegpu_ops  # noqa: F401
