"""Where IGC lives: find Intel's offline compiler `ocloc` (with IGC behind it) and say how to run it.

Two kinds of toolchain, looked up in this order:
* `XE_OCLOC=/path/to/ocloc`: an ocloc the user installed (Intel's compute runtime); run as it is;
* the project's own copy in the user cache (`install.py`, `xe-opt --install-igc`): Debian testing's
  packages unpacked with their C library, run through the unpacked dynamic loader.
`find_toolchain()` returns a `Toolchain` or raises `IgcNotInstalled` saying how to get one.
"""
from __future__ import annotations

import glob
import json
import os
from dataclasses import dataclass, field
from pathlib import Path

HOME_ENV = "XE_IGC_HOME"       # the cache folder of the project's own copy
OCLOC_ENV = "XE_OCLOC"         # an ocloc of the user's own
INSTALL_HINT = "run 'xe-opt --install-igc' (Debian/Ubuntu with apt-get), or set XE_OCLOC=/path/to/ocloc"
LIB_DIR = "usr/lib/x86_64-linux-gnu"
VERSIONS_FILE = "versions.json"


class IgcError(RuntimeError):
    """IGC could not be run, or it rejected or crashed on a module; the message says which."""

    def __init__(self, message: str, kernel: str | None = None):
        super().__init__(message)
        self.kernel = kernel


class IgcNotInstalled(IgcError):
    """No toolchain found (the message names how to install one)."""


@dataclass(frozen=True)
class Toolchain:
    """How to run ocloc: `command` is the argv prefix (loader and library path for the cached copy);
    `versions` names the packages (igc, ocloc, ...) and their versions as installed."""

    command: tuple[str, ...]
    root: str
    versions: dict = field(default_factory=dict)

    @property
    def igc_version(self) -> str:
        return self.versions.get("libigc2", self.versions.get("igc", "unknown"))

    @property
    def ocloc_version(self) -> str:
        return self.versions.get("intel-ocloc", self.versions.get("ocloc", "unknown"))

    def describe(self) -> str:
        return f"IGC {self.igc_version} (ocloc {self.ocloc_version}) at {self.root}"


def cache_home() -> Path:
    """The folder of the project's own copy: $XE_IGC_HOME, else $XDG_CACHE_HOME/xedialects/igc, else
    ~/.cache/xedialects/igc."""
    if os.environ.get(HOME_ENV):
        return Path(os.environ[HOME_ENV]).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "xedialects" / "igc"


def cached_toolchain(home: Path | None = None) -> Toolchain | None:
    """The installed copy under `home` (default cache_home()), or None."""
    root = (home or cache_home()) / "root"
    lib = root / LIB_DIR
    loader = lib / "ld-linux-x86-64.so.2"
    ocloc = sorted(glob.glob(str(root / "usr" / "bin" / "ocloc-*")))
    versions_path = (home or cache_home()) / VERSIONS_FILE
    if not (loader.is_file() and ocloc and versions_path.is_file()):
        return None
    try:
        versions = json.loads(versions_path.read_text())
    except (OSError, ValueError):
        return None
    return Toolchain((str(loader), "--library-path", str(lib), ocloc[-1]), str(root), versions)


def user_toolchain() -> Toolchain | None:
    path = os.environ.get(OCLOC_ENV)
    if not path:
        return None
    if not (os.path.isfile(path) and os.access(path, os.X_OK)):
        raise IgcNotInstalled(f"{OCLOC_ENV}={path} is not an executable file")
    return Toolchain((path,), os.path.dirname(os.path.abspath(path)), {"ocloc": "user's (" + path + ")"})


def find_toolchain() -> Toolchain:
    """The toolchain to use (see the module docstring); IgcNotInstalled when there is none."""
    tc = user_toolchain() or cached_toolchain()
    if tc is None:
        raise IgcNotInstalled(f"Intel's GPU compiler (IGC, ocloc) is not installed in {cache_home()}: {INSTALL_HINT}")
    return tc


def igc_available() -> bool:
    try:
        find_toolchain()
        return True
    except IgcError:
        return False
