"""The XeTile dialect (rfc-xetile.md): `attributes.py` defines its types and attributes with their
Python API, `ops.py` one class per op (operands, attributes, syntax, verifier), `ops_imex.py` IMEX's spellings of
those ops (registered with them by `xedialects/dialects.py`)."""
