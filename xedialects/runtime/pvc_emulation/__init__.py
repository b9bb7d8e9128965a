"""Run `pvc` SPIR-V binaries on an OpenCL device without Intel's DPAS and 2D block IO: an OpenCL C
emulation of exactly the builtins the pvc target imports (`library`), compiled by the runtime
and linked with the unchanged binary (`opencl_build`, in the build worker), whose 2D block
functions check the hardware's surface rules and record violations for the host (docs/spirv.md).
"""
from .library import ERROR_KERNEL, ERROR_WORDS, describe_error, imported_functions, mangled_names, options, source

__all__ = ["ERROR_KERNEL", "ERROR_WORDS", "describe_error", "imported_functions", "mangled_names", "options",
           "source"]
