"""The XeGPU dialect (rfc-xetile-xegpu.md, VC and SIMT modes): `attributes.py` defines its types and
attributes with their Python API, `ops.py` one class per op (operands, attributes, syntax, verifier)."""
