"""The OpenCL build worker: builds SPIR-V for `opencl_build` in a process that can be killed.

Started by `xedialects.runtime.opencl_build` as a script (`python _build_worker.py RFD WFD PARENT_PID`), so it
imports nothing but the standard library and pyopencl. It inherits the parent's OpenCL environment
(`OCL_ICD_VENDORS` as `opencl_env.configure_environment` set it up) and preloads the runtime library
named by `XE_OPENCL_WORKER_LIBRARY` the way the parent did. Messages are pickled dicts on two pipes
(multiprocessing.connection framing):

    worker -> parent   {"ready": True}  or  {"error": text}            once, after start-up
    parent -> worker   {"spirv": bytes, "platform": str, "device": str, "options": str,
                        "link": None or {"source": str, "options": str}}
    worker -> parent   {"binary": bytes, "seconds": float}  or  {"error": text, "build_failed": bool}

With "link" the SPIR-V is compiled (not built), the OpenCL C `source` compiled with its options
(once per worker), and the two linked (clCompileProgram + clLinkProgram): how the pvc emulation
library joins a pvc binary. The reply carries the device binary (`program.binaries`), from which the parent creates its program
without compiling again. The worker exits when the request pipe closes and, on Linux, when the
parent dies; the parent kills it (its whole process group) when a build exceeds the time limit.
"""
import ctypes
import os
import sys
import time
import warnings
from multiprocessing.connection import Connection


def _die_with_parent(parent: int):
    """Ask Linux to SIGKILL this process when the parent goes away (no orphaned compiler)."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        PR_SET_PDEATHSIG, SIGKILL = 1, 9
        libc.prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):   # not Linux: the parent's kill and the closed pipe suffice
        pass
    if os.getppid() != parent:          # the parent died before prctl took effect
        os._exit(0)


def _message(e) -> str:
    text = str(e).strip()
    return text if text else type(e).__name__


def _find_device(cl, platform_name: str, device_name: str):
    for platform in cl.get_platforms():
        if platform.name.strip() != platform_name:
            continue
        for device in platform.get_devices():
            if device.name.strip() == device_name:
                return device
    return None


def _build(cl, context, req, libraries):
    """The built (or compiled and linked) program of a request."""
    link = req.get("link")
    if not link:
        return cl.Program(context, req["spirv"]).build(options=req.get("options") or "")
    lkey = (id(context), link["source"], link["options"])
    if lkey not in libraries:
        libraries[lkey] = cl.Program(context, link["source"]).compile(options=link["options"])
    kernel = cl.Program(context, req["spirv"]).compile(options=req.get("options") or "")
    return cl.link_program(context, [kernel, libraries[lkey]], options=req.get("options") or None)


def serve(requests: Connection, replies: Connection) -> None:
    library = os.environ.get("XE_OPENCL_WORKER_LIBRARY")
    try:
        if library:
            ctypes.CDLL(library, mode=ctypes.RTLD_GLOBAL)
        import pyopencl as cl
    except (OSError, ImportError) as e:
        replies.send({"error": f"the build worker cannot load the OpenCL runtime: {_message(e)}"})
        return
    replies.send({"ready": True})
    contexts, libraries = {}, {}
    while True:
        try:
            req = requests.recv()
        except (EOFError, OSError):
            return
        try:
            key = (req["platform"], req["device"])
            if key not in contexts:
                device = _find_device(cl, *key)
                if device is None:
                    replies.send({"error": f"the build worker does not see the device {key[1]} ({key[0]})"})
                    continue
                contexts[key] = cl.Context(devices=[device])
            t0 = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")   # pyopencl's "non-empty compiler output"
                program = _build(cl, contexts[key], req, libraries)
            binary = program.binaries[0]
            replies.send({"binary": bytes(binary), "seconds": time.perf_counter() - t0})
        except cl.Error as e:
            replies.send({"error": _message(e), "build_failed": True})
        except Exception as e:  # noqa: BLE001 - reported to the parent, which raises OpenCLError
            replies.send({"error": f"{type(e).__name__}: {_message(e)}"})


def main(argv) -> int:
    if sys.path and os.path.abspath(sys.path[0] or ".") == os.path.dirname(os.path.abspath(__file__)):
        del sys.path[0]   # run as a script: runtime/*.py must not shadow top-level modules
    _die_with_parent(int(argv[3]))
    requests = Connection(int(argv[1]), writable=False)
    replies = Connection(int(argv[2]), readable=False)
    try:
        serve(requests, replies)
    except (BrokenPipeError, EOFError, KeyboardInterrupt):
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
