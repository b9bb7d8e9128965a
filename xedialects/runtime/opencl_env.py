"""Find and load an OpenCL runtime for running SPIR-V kernels, setting the environment up in-process.

The `run` extra (`pip install -e '.[run]'`) installs Intel's OpenCL CPU runtime (`intel-opencl-rt`,
which needs `intel-cmplr-lib-rt` for libimf/libsvml) and `pyopencl`, whose bundled ICD loader finds
OpenCL implementations through `.icd` files. The pip package installs its own `.icd` files with a
build-machine path, so `load()` does what shared/notes/opencl-cpu-runtime.md does by hand:

1. locates `libintelocl.so` (the files of the installed `intel-opencl-rt` distribution, else
   `<prefix>/lib`; `XE_OPENCL_RUNTIME=/path/libintelocl.so` overrides);
2. loads it with `ctypes.CDLL(..., RTLD_GLOBAL)`, which resolves libimf/libsvml/libtbb through the
   library's `$ORIGIN` run path (no `LD_LIBRARY_PATH` needed) and turns a missing dependency into
   a readable error instead of an ICD loader that silently finds nothing;
3. writes a vendors directory in the user cache (`$XDG_CACHE_HOME/xedialects/opencl-vendors-*`)
   holding an `.icd` file with the library's absolute path plus copies of the system's
   `/etc/OpenCL/vendors/*.icd` (so GPU drivers stay visible), and sets `OCL_ICD_VENDORS` to it
   before pyopencl is imported. A user-set `OCL_ICD_VENDORS` / `OCL_ICD_FILENAMES` is respected.

Then it picks a device that accepts SPIR-V (`IL_VERSION`) and has Intel subgroups (16-lane
subgroups, `cl_intel_subgroups`); `XE_OPENCL_DEVICE=substring` selects among several. Any failure
raises `OpenCLUnavailable` whose message says what is missing and how to install it.
"""
from __future__ import annotations

import ctypes
import hashlib
import os
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

INSTALL_HINT = ("install the OpenCL CPU runtime with `pip install -e '.[run]'` "
                "(intel-opencl-rt, intel-cmplr-lib-rt, pyopencl)")
RUNTIME_LIB = "libintelocl.so"
SYSTEM_VENDORS = Path("/etc/OpenCL/vendors")


class OpenCLError(RuntimeError):
    """A user-facing OpenCL backend error (the message is complete; no traceback needed)."""


class OpenCLUnavailable(OpenCLError):
    """No usable OpenCL runtime or device; the message says how to get one."""


@dataclass
class Runtime:
    """The loaded runtime: the pyopencl module, a context and queue on the chosen device."""
    cl: object
    device: object
    context: object
    queue: object
    library: str | None  # the Intel runtime library that was set up (None: the user's ICD setup)

    @property
    def device_name(self) -> str:
        return f"{self.device.name.strip()} ({self.device.platform.name.strip()})"

    def has_extension(self, name: str) -> bool:
        return name in self.device.extensions.split()

    def il_versions(self) -> list[tuple[int, int]]:
        """SPIR-V versions the device accepts, e.g. [(1, 0), ..., (1, 4)]."""
        out = []
        for item in (self.device.get_info(self.cl.device_info.IL_VERSION) or "").split():
            if item.startswith("SPIR-V_"):
                major, _, minor = item[len("SPIR-V_"):].partition(".")
                if major.isdigit() and minor.isdigit():
                    out.append((int(major), int(minor)))
        return out


_RUNTIME: Runtime | None = None


def find_runtime_library() -> Path | None:
    """Path of Intel's OpenCL CPU runtime library, or None when it is not installed."""
    override = os.environ.get("XE_OPENCL_RUNTIME")
    if override:
        return Path(override)
    try:
        from importlib import metadata

        for f in metadata.files("intel-opencl-rt") or []:
            if f.name == RUNTIME_LIB:
                path = Path(f.locate()).resolve()
                if path.exists():
                    return path
    except Exception:  # noqa: BLE001 - distribution missing or unreadable metadata
        pass
    for prefix in (sys.prefix, sys.base_prefix):
        path = Path(prefix) / "lib" / RUNTIME_LIB
        if path.exists():
            return path
    return None


def _cache_root() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "xedialects"


def write_vendors_dir(library: Path) -> Path:
    """A directory of `.icd` files: the Intel CPU runtime plus the system's vendors."""
    lines = {"xedialects-intel-cpu.icd": f"{library}\n"}
    if SYSTEM_VENDORS.is_dir():
        for icd in sorted(SYSTEM_VENDORS.glob("*.icd")):
            try:
                lines.setdefault(icd.name, icd.read_text())
            except OSError:
                continue
    digest = hashlib.sha1("".join(f"{k}={v}" for k, v in sorted(lines.items())).encode()).hexdigest()[:12]
    for root in (_cache_root(), Path(tempfile.gettempdir()) / f"xedialects-{os.getuid()}"):
        target = root / f"opencl-vendors-{digest}"
        try:
            target.mkdir(parents=True, exist_ok=True)
            for name, text in lines.items():
                path = target / name
                if not path.exists() or path.read_text() != text:
                    tmp = path.with_suffix(f".tmp{os.getpid()}")
                    tmp.write_text(text)
                    os.replace(tmp, path)
            return target
        except OSError:
            continue
    raise OpenCLUnavailable("cannot write an OpenCL vendors directory (cache and temp directories are read-only)")


def configure_environment() -> Path | None:
    """Make Intel's CPU runtime visible to the ICD loader; returns its library (None when the user
    configured the loader). Must run before pyopencl first enumerates platforms."""
    if os.environ.get("OCL_ICD_VENDORS") or os.environ.get("OCL_ICD_FILENAMES"):
        return None
    library = find_runtime_library()
    if library is None:
        return None
    try:
        ctypes.CDLL(str(library), mode=ctypes.RTLD_GLOBAL)
    except OSError as e:
        hint = " (libimf/libsvml come from intel-cmplr-lib-rt)" if "libimf" in str(e) or "libsvml" in str(e) else ""
        raise OpenCLUnavailable(f"the OpenCL CPU runtime {library} cannot be loaded: {e}{hint}; {INSTALL_HINT}") from None
    os.environ["OCL_ICD_VENDORS"] = str(write_vendors_dir(library))
    return library


def _suitable(cl, device) -> str | None:
    """Why a device cannot run our kernels, or None when it can."""
    il = device.get_info(cl.device_info.IL_VERSION) or ""
    if "SPIR-V" not in il:
        return "no SPIR-V support (IL_VERSION empty)"
    if "cl_intel_subgroups" not in device.extensions.split():
        return "no cl_intel_subgroups (16-lane subgroups)"
    return None


def load() -> Runtime:
    """The OpenCL runtime (loaded once per process); OpenCLUnavailable when there is none."""
    global _RUNTIME
    if _RUNTIME is not None:
        return _RUNTIME
    library = configure_environment()
    try:
        import pyopencl as cl
    except ImportError as e:
        raise OpenCLUnavailable(f"pyopencl is not installed ({e}); {INSTALL_HINT}") from None
    try:
        platforms = cl.get_platforms()
    except cl.Error:
        platforms = []
    wanted = os.environ.get("XE_OPENCL_DEVICE", "").lower()
    seen = []
    for platform in platforms:
        try:
            devices = platform.get_devices()
        except cl.Error:
            continue
        for device in devices:
            name = f"{device.name.strip()} ({platform.name.strip()})"
            why = _suitable(cl, device)
            if why is None and wanted and wanted not in name.lower():
                why = f"not selected by XE_OPENCL_DEVICE={wanted!r}"
            if why is not None:
                seen.append(f"{name}: {why}")
                continue
            context = cl.Context(devices=[device])
            _RUNTIME = Runtime(cl, device, context, cl.CommandQueue(context), str(library) if library else None)
            return _RUNTIME
    if not platforms:
        where = f"OCL_ICD_VENDORS={os.environ.get('OCL_ICD_VENDORS')}" if os.environ.get("OCL_ICD_VENDORS") \
            else "the system's ICD files"
        found = "Intel's OpenCL CPU runtime is not installed" if library is None and find_runtime_library() is None \
            else f"the ICD loader found no OpenCL platform through {where}"
        raise OpenCLUnavailable(f"no OpenCL platform: {found}; {INSTALL_HINT}")
    raise OpenCLUnavailable("no OpenCL device can run the kernels:\n  " + "\n  ".join(seen) + f"\n{INSTALL_HINT}")


def available() -> bool:
    """True when `load()` succeeds (for skipping tests)."""
    try:
        load()
        return True
    except OpenCLError:
        return False
