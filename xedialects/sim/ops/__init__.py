"""Simulator op handlers, one module per dialect; importing the package registers them all."""
from . import vector, xegpu  # noqa: F401  (registers handlers)
