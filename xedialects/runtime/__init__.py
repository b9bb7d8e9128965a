"""Execution backends that run the SPIR-V of a lowered module on a real OpenCL device.

* `opencl_env`: finds an OpenCL runtime (Intel's CPU runtime from the `run` extra:
  `pip install -e '.[run]'`), sets up the ICD loader environment in-process and picks a device.
* `spirv_check`: structural checks of a SPIR-V binary before it reaches the runtime (whose SPIR-V
  reader aborts the process, or hangs, on malformed input).
* `opencl_build` (+ the `_build_worker.py` script): compiles SPIR-V in a worker process within a
  time limit (XE_OPENCL_BUILD_TIMEOUT, xe-run --build-timeout) and hands back the device binary.
* `opencl`: loads the binary and metadata of `lowering.spirv_export`, binds kernel arguments and
  launches kernels; plugs into the simulator's host interpretation as its `launcher`, so a host
  function with `gpu.launch_func` runs with its kernels on the device.
"""
