"""Install IGC and ocloc into the user cache from Debian's packages (`xe-opt --install-igc`).

Debian stable's IGC (2022) predates the 2D block builtins; Debian testing ships IGC 2.x as
`intel-ocloc`, `libigc2`, `libigdfcl2`, `libigdgmm12`, built against that suite's C library. So the
packages are downloaded (not installed) with a private apt configuration whose one source reuses the
mirror of this machine's own apt sources with the testing suite, unpacked with `dpkg -x` together with
that suite's `libc6`, `libstdc++6`, `libgcc-s1`, `zlib1g`, and ocloc runs through the unpacked loader
(toolchain.py). Nothing outside the cache folder changes. docs/igc.md tells the story and the versions.
"""
from __future__ import annotations

import glob
import json
import os
import platform
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from .toolchain import VERSIONS_FILE, IgcError, Toolchain, cache_home, cached_toolchain

SUITE_ENV = "XE_IGC_SUITE"
DEFAULT_SUITE = "forky"      # Debian testing as of 2026 (IGC 2.40)
PACKAGES = ("intel-ocloc", "libigc2", "libigdfcl2", "libigdgmm12",
            "libc6", "libstdc++6", "libgcc-s1", "zlib1g")
KEYRING = "/usr/share/keyrings/debian-archive-keyring.gpg"
APT_SOURCES = ("/etc/apt/sources.list", "/etc/apt/sources.list.d")
STEP_TIMEOUT = 600


class IgcInstallError(IgcError):
    """The installation could not be done here (the message says why and what to do instead)."""


def debian_mirror(paths=APT_SOURCES) -> str:
    """The first Debian archive URI of this machine's apt sources (not the security archive)."""
    uris: list[str] = []
    for base in paths:
        files = sorted(glob.glob(os.path.join(base, "*"))) if os.path.isdir(base) else [base]
        for f in files:
            if not (f.endswith(".list") or f.endswith(".sources")) or not os.path.isfile(f):
                continue
            try:
                text = Path(f).read_text(errors="replace")
            except OSError:
                continue
            for line in text.splitlines():
                line = line.split("#", 1)[0].strip()
                m = re.match(r"URIs:\s*(.*)", line)
                if m:
                    uris += m.group(1).split()
                    continue
                m = re.match(r"deb\s+(?:\[[^\]]*\]\s+)?(\S+)", line)
                if m:
                    uris.append(m.group(1))
    for uri in uris:
        if "security" not in uri and re.search(r"/debian/?$", uri):
            return uri.rstrip("/")
    raise IgcInstallError("no Debian archive in this machine's apt sources (" + ", ".join(APT_SOURCES) + "); "
                          "install Intel's compute runtime yourself and set XE_OCLOC=/path/to/ocloc")


def _run(argv, what: str, cwd=None) -> str:
    try:
        r = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=STEP_TIMEOUT)
    except FileNotFoundError:
        raise IgcInstallError(f"{what}: '{argv[0]}' not found") from None
    except subprocess.TimeoutExpired:
        raise IgcInstallError(f"{what}: no answer within {STEP_TIMEOUT} s") from None
    if r.returncode != 0:
        tail = "\n".join((r.stdout + r.stderr).strip().splitlines()[-12:])
        raise IgcInstallError(f"{what} failed (exit {r.returncode}):\n{tail}")
    return r.stdout


def _deb_field(deb: str, name: str) -> str:
    return _run(["dpkg-deb", "-f", deb, name], f"reading {os.path.basename(deb)}").strip()


def install(home: Path | None = None, suite: str | None = None, log=print, force: bool = False) -> Toolchain:
    """Download and unpack the packages into `home` (default: cache_home()); returns the toolchain.
    Does nothing (but report) when a copy is already there, unless `force`."""
    home = Path(home or cache_home())
    if not force:
        tc = cached_toolchain(home)
        if tc is not None:
            return tc
    if platform.machine() not in ("x86_64", "AMD64"):
        raise IgcInstallError(f"IGC packages exist for x86-64 only (this machine: {platform.machine()})")
    for tool in ("apt-get", "dpkg-deb"):
        if shutil.which(tool) is None:
            raise IgcInstallError(f"installing IGC needs Debian's '{tool}' (not found); on another system install "
                                  "Intel's compute runtime and set XE_OCLOC=/path/to/ocloc")
    suite = suite or os.environ.get(SUITE_ENV) or DEFAULT_SUITE
    mirror = debian_mirror()
    home.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=".igc-install-", dir=home.parent))
    try:
        return _install_into(work, home, mirror, suite, log)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _install_into(work: Path, home: Path, mirror: str, suite: str, log) -> Toolchain:
    for d in ("lists/partial", "cache/archives/partial", "debs", "stage/root"):
        (work / d).mkdir(parents=True, exist_ok=True)
    signed = f"[signed-by={KEYRING}] " if os.path.isfile(KEYRING) else ""
    (work / "sources.list").write_text(f"deb {signed}{mirror} {suite} main\n")
    apt = ["-o", f"Dir::Etc::SourceList={work / 'sources.list'}", "-o", "Dir::Etc::SourceParts=/dev/null",
           "-o", f"Dir::State::Lists={work / 'lists'}", "-o", f"Dir::Cache={work / 'cache'}",
           "-o", "Dir::State::status=/dev/null", "-o", "APT::Architecture=amd64",
           "-o", "APT::Sandbox::User=root", "-q"]
    log(f"IGC: reading the package lists of Debian '{suite}'")
    _run(["apt-get", *apt, "update"], f"apt-get update of Debian '{suite}'")
    log(f"IGC: downloading {', '.join(PACKAGES)}")
    _run(["apt-get", *apt, "download", *PACKAGES], "apt-get download", cwd=work / "debs")
    versions = {}
    stage = work / "stage"
    for deb in sorted(glob.glob(str(work / "debs" / "*.deb"))):
        versions[_deb_field(deb, "Package")] = _deb_field(deb, "Version")
        _run(["dpkg-deb", "-x", deb, str(stage / "root")], f"unpacking {os.path.basename(deb)}")
    missing = [p for p in PACKAGES if p not in versions]
    if missing:
        raise IgcInstallError(f"apt-get did not download {', '.join(missing)} from Debian '{suite}'")
    versions["suite"] = suite
    (stage / VERSIONS_FILE).write_text(json.dumps(versions, indent=2, sort_keys=True) + "\n")
    tc = cached_toolchain(stage)
    if tc is None:
        raise IgcInstallError("the unpacked packages hold no ocloc and loader where expected "
                              f"(usr/bin/ocloc-*, usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2 in {stage})")
    _run([*tc.command, "--version"], "running the unpacked ocloc")
    if home.exists():
        shutil.rmtree(home)
    os.replace(stage, home)
    tc = cached_toolchain(home)
    log(f"IGC: installed {tc.describe()}")
    return tc
