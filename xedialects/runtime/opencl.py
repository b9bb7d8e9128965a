"""Run the SPIR-V kernels of a module on an OpenCL device (Intel's OpenCL CPU runtime here).

    from xedialects.runtime.opencl import run_opencl
    run = run_opencl(module, "main", [A, B, C])        # host function as in `sim.simulate`
    C_out = run.result.buffers[2]; print(run.stats)

The host function is interpreted by the simulator (`sim.simulate`); each `gpu.launch_func` is handed
to a `Launcher` (the simulator's launch hook) that runs the kernel's SPIR-V instead: global size =
grid x block, local size = block, arguments bound by the metadata of
`lowering.spirv_export.export_spirv` (buffers as global pointers to the element type, bf16 as its
16-bit pattern, integer/index scalars as i64, appended dynamic sizes/strides). The buffers a kernel
gets are copied to the device before and back after each launch, so host code between launches
sees every result. The module may already hold `spirv.module`s (e.g. after the
`xe-gemm-to-spirv-portable` pipeline) or still be XeGPU (converted here with `target`); kernels of a
hand-written `spirv.module` without the lowering's ABI get their metadata from the `gpu.func` of
the same name (no appended arguments).

A binary converted for target `pvc` runs on a device without Intel's DPAS / 2D block IO (the CPU
runtime) with the emulation library of those builtins linked in (`pvc_emulation`); after each
launch the library's error record is read and a violated hardware rule is an `OpenCLError` naming
the kernel and the builtin. The surface rules checked are those of the architecture the metadata
records (`"arch"`, e.g. bmg after `xe-gemm-to-spirv{arch=bmg}`; pvc when it names none).

The build runs in a worker process within a time limit (`opencl_build`; 120 s unless
`XE_OPENCL_BUILD_TIMEOUT` or `build_timeout=` says otherwise) and a compiler that takes longer is
stopped with a `BuildTimeout` naming the kernels. It gets the metadata's `build_options` as far as
the device takes them (`opencl_build.device_build_options`: the large register file only on an
Intel GPU; a CPU build drops it).

`Program` and `Launcher.run` also work without a module: a SPIR-V binary, its metadata and numpy
arrays (see test/python/test_opencl_backend.py).
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from ..sim import progress
from ..sim.core import fail
from ..sim.memory import MemRef, row_major_strides
from ..sim.trace import LaunchRecord
from ..sim.typeinfo import DYN, parse_type, scalar_dtype
from . import pvc_emulation
from .opencl_build import BuildTimeout, build_program, device_build_options
from .opencl_env import OpenCLError, OpenCLUnavailable, Runtime, load
from .spirv_check import BadSpirv, check_binary

__all__ = ["Program", "Launcher", "Stats", "OpenCLRun", "run_opencl", "program_for_module", "OpenCLError",
           "OpenCLUnavailable", "BuildTimeout"]

DPAS_EXTENSION = "cl_intel_subgroup_matrix_multiply_accumulate"


@dataclass
class Stats:
    """Where the time of an OpenCL run went (seconds)."""
    launches: int = 0
    build_seconds: float = 0.0
    kernel_seconds: float = 0.0
    transfer_seconds: float = 0.0

    def __str__(self):
        return (f"{self.launches} launch{'es' if self.launches != 1 else ''}, kernel {self.kernel_seconds:.4f} s, "
                f"transfers {self.transfer_seconds:.4f} s, build {self.build_seconds:.3f} s")


class Program:
    """A SPIR-V binary built for the device, with the per-kernel metadata of the export contract.

    The build runs within a time limit (`opencl_build`: `build_timeout` seconds, else
    $XE_OPENCL_BUILD_TIMEOUT, else 120; 0 = none); past it `BuildTimeout` names the kernels."""

    def __init__(self, runtime: Runtime, binary: bytes, meta: dict | None = None, *, validate: bool = True,
                 build_timeout: float | None = None):
        self.runtime = runtime
        self.meta = dict(meta or {})
        self.kernels = {k["name"]: k for k in self.meta.get("kernels", [])}
        self.arch = self._metadata_arch()
        try:
            self.info = check_binary(binary, runtime.il_versions(), validate=validate)
        except BadSpirv as e:
            raise OpenCLError(f"bad SPIR-V binary: {e}") from None
        self.emulated = self._check_target(binary)
        missing = sorted(set(self.kernels) - set(self.info.entry_points))
        if missing:
            raise OpenCLError(f"the metadata describes kernel(s) {', '.join(missing)} that the SPIR-V module does "
                              f"not define (entry points: {', '.join(self.info.entry_points)})")
        t0 = time.perf_counter()
        link = (pvc_emulation.source(), pvc_emulation.options(self.arch)) if self.emulated else None
        self.build_options = device_build_options(self.meta, runtime.device)
        self.program = build_program(runtime, bytes(binary), self.info.entry_points, timeout=build_timeout,
                                     options=self.build_options, link=link)
        self.build_seconds = time.perf_counter() - t0
        self._cl_kernels = {}

    def _metadata_arch(self) -> str:
        """The architecture the SPIR-V was converted for (metadata "arch"; pvc when it names none):
        the emulation checks its 2D block surface rules and names it in a violation."""
        from ..arch import ArchError, get_arch

        name = self.meta.get("arch") or "pvc"
        try:
            return get_arch(name).name
        except ArchError as e:
            raise OpenCLError(f"the SPIR-V metadata names an unknown architecture: {e}") from None

    def _check_target(self, binary) -> bool:
        """True when the pvc builtins are emulated (target pvc on a device without them)."""
        if self.meta.get("target") != "pvc" or self.runtime.has_extension(DPAS_EXTENSION):
            return False
        unknown = sorted(set(pvc_emulation.imported_functions(bytes(binary))) - pvc_emulation.mangled_names())
        if unknown:
            raise OpenCLError(f"the SPIR-V was converted for target=pvc and {self.runtime.device_name} has no "
                              f"{DPAS_EXTENSION}; the emulation library does not provide the imported "
                              f"function(s) {', '.join(unknown)}")
        return True

    def take_error(self, kernel: str) -> None:
        """Raise the violation the emulation library recorded during the last launch, if any."""
        cl, q = self.runtime.cl, self.runtime.queue
        out = np.zeros(pvc_emulation.ERROR_WORDS, np.int32)
        buf = cl.Buffer(self.runtime.context, cl.mem_flags.WRITE_ONLY, size=out.nbytes)
        k = self._cl_kernels.get(pvc_emulation.ERROR_KERNEL)
        if k is None:
            k = self._cl_kernels[pvc_emulation.ERROR_KERNEL] = cl.Kernel(self.program, pvc_emulation.ERROR_KERNEL)
        k.set_args(buf)
        cl.enqueue_nd_range_kernel(q, k, (1,), (1,)).wait()
        cl.enqueue_copy(q, out, buf)
        q.finish()
        text = pvc_emulation.describe_error(out, self.arch)
        if text is not None:
            raise OpenCLError(f"kernel @{kernel} (pvc builtins emulated on {self.runtime.device_name}): {text}")

    def kernel(self, name: str):
        """The cl.Kernel of an entry point (created once)."""
        k = self._cl_kernels.get(name)
        if k is None:
            if name not in self.info.entry_points:
                raise OpenCLError(f"no kernel '{name}' in the SPIR-V module (entry points: "
                                  f"{', '.join(self.info.entry_points)})")
            k = self._cl_kernels[name] = self.runtime.cl.Kernel(self.program, name)
        return k


def _cl_message(e) -> str:
    """The text of a pyopencl error, build log included."""
    text = str(e).strip()
    return text if text else type(e).__name__


# ----------------------------------------------------------------------------------------------
# Argument values: host buffers (flat arrays + strided view) and scalars


@dataclass
class _View:
    """A strided view into a flat host array: element offset, sizes and strides in elements."""
    host: np.ndarray          # flat, C-contiguous, written back after the launch
    dtype: np.dtype           # element type of the view
    offset: int
    sizes: tuple
    strides: tuple


def _view_of_memref(m: MemRef, what: str) -> _View:
    static = m.uniform_static()
    if static is None:
        raise OpenCLError(f"{what}: the memref differs across the batch; a kernel argument must be one buffer")
    if m.buf.space != "global":
        raise OpenCLError(f"{what}: a {m.buf.space} buffer cannot be a kernel argument")
    offset, sizes, strides = static
    return _View(m.buf.data, m.dtype, offset, sizes, strides)


def _derived(spec: dict) -> bool:
    """A metadata argument the launcher computes from another: a size, a stride, a pointer's offset."""
    return "dim_of" in spec or "stride_of" in spec or "offset_of" in spec


def _view_of_address(sim, address, what: str) -> _View:
    """The bytes a raw pointer argument (`!llvm.ptr<1>`, the simulator's address into a buffer) points
    at, to the end of its buffer."""
    buf, off = sim.memory.decode(np.asarray(address, np.int64).reshape(-1)[:1])
    if buf is None:
        raise OpenCLError(f"{what}: the pointer does not address a device buffer")
    if buf.space != "global":
        raise OpenCLError(f"{what}: a pointer into a {buf.space} buffer cannot be a kernel argument")
    raw = buf.data.reshape(-1).view(np.uint8)
    off = int(off[0])
    return _View(raw, np.dtype(np.uint8), off, (raw.size - off,), (1,))


def _view_of_array(a: np.ndarray, what: str) -> _View:
    if not isinstance(a, np.ndarray) or not a.flags.c_contiguous or not a.flags.writeable:
        raise OpenCLError(f"{what}: buffers are passed as writeable C-contiguous numpy arrays")
    return _View(a.reshape(-1), a.dtype, 0, tuple(a.shape), row_major_strides(a.shape))


def _scalar(value, element_type: str, what: str):
    v = np.asarray(value)
    if v.size != 1:
        raise OpenCLError(f"{what}: a scalar argument must be a single value, got shape {v.shape}")
    dt = scalar_dtype(element_type)
    out = v.reshape(()).astype(dt)
    return out.view(np.uint16) if dt.itemsize == 2 and dt.kind == "V" else out[()]


# ----------------------------------------------------------------------------------------------


class Launcher:
    """Runs kernels of a `Program`; as `simulate(..., launcher=Launcher(p))` it replaces the
    simulator's kernel execution for every gpu.launch_func."""

    def __init__(self, program: Program):
        self.program = program
        self.runtime = program.runtime
        self.stats = Stats(build_seconds=program.build_seconds)

    # the simulator's launch hook ---------------------------------------------------------------
    def __call__(self, sim, loc, kernel_ref: str, kernel_op, grid, block, args):
        name = kernel_ref.split("::")[-1].strip().lstrip("@")
        kinds = [a["kind"] for a in self.program.kernels.get(name, {}).get("args", []) if not _derived(a)]
        values = []
        for i, a in enumerate(args):
            if isinstance(a, MemRef) or (i < len(kinds) and kinds[i] == "pointer"):
                try:
                    values.append(_view_of_memref(a, f"argument {i}") if isinstance(a, MemRef)
                                  else _view_of_address(sim, a, f"argument {i}"))
                except OpenCLError as e:
                    fail(loc, f"OpenCL launch of @{name}: {e}")
            else:
                values.append(np.asarray(a).reshape(-1)[0] if np.ndim(a) else a)
        t0 = time.perf_counter()
        try:
            self._launch(name, grid, block, values)
        except OpenCLError as e:
            fail(loc, f"OpenCL launch of @{name}: {e}")
        if sim.trace is not None:
            threads = int(np.prod(block))
            sim.trace.launches.append(LaunchRecord(kernel_ref, tuple(grid), tuple(block), "opencl",
                                                   int(np.prod(grid)) * threads, time.perf_counter() - t0))

    # direct use ---------------------------------------------------------------------------------
    def run(self, name: str, grid, block, args) -> None:
        """Launch kernel `name` on numpy arrays (buffers, updated in place) and scalars, in gpu.func
        argument order; appended size/stride arguments are computed from the arrays."""
        values = [_view_of_array(a, f"argument {i}") if isinstance(a, np.ndarray) and a.ndim else a
                  for i, a in enumerate(args)]
        self._launch(name, tuple(grid), tuple(block), values)

    # ------------------------------------------------------------------------------------------
    def _kernel_meta(self, name: str) -> dict:
        meta = self.program.kernels.get(name)
        if meta is None:
            raise OpenCLError(f"no metadata for kernel '{name}' (kernels described: "
                              f"{', '.join(sorted(self.program.kernels)) or 'none'})")
        return meta

    def _check_geometry(self, meta, grid, block):
        dev = self.runtime.device
        if len(grid) != 3 or len(block) != 3 or min(grid) <= 0 or min(block) <= 0:
            raise OpenCLError(f"empty or malformed launch: grid {tuple(grid)}, block {tuple(block)}")
        wg = meta.get("workgroup_size")
        if wg and tuple(wg) != tuple(block):
            raise OpenCLError(f"launched with block {tuple(block)} but the kernel was compiled for work-group size "
                              f"{tuple(wg)}")
        threads = int(np.prod(block))
        if threads > dev.max_work_group_size:
            raise OpenCLError(f"work-group of {threads} work-items exceeds the device's maximum "
                              f"{dev.max_work_group_size}")
        slm = int(meta.get("slm_bytes") or 0)
        if slm > dev.local_mem_size:
            raise OpenCLError(f"the kernel needs {slm} bytes of shared local memory, the device has {dev.local_mem_size}")

    def _bind(self, meta: dict, values: list):
        """(OpenCL argument list, [(host array, device buffer)] to copy back)."""
        cl, rt = self.runtime.cl, self.runtime
        specs = meta["args"]
        primary = [a for a in specs if not _derived(a)]
        if len(values) != len(primary):
            raise OpenCLError(f"kernel '{meta['name']}' takes {len(primary)} arguments, {len(values)} given")
        strided = {tuple(a["stride_of"]) for a in specs if "stride_of" in a}
        align = max(1, rt.device.mem_base_addr_align // 8)
        device_bufs, out, args = {}, [], []
        for i, (spec, v) in enumerate(zip(primary, values)):
            what = f"argument {i} ({spec.get('name', i)})"
            if spec["kind"] in ("buffer", "pointer"):      # a pointer: the bytes from where it points
                if not isinstance(v, _View):
                    raise OpenCLError(f"{what}: the kernel takes a buffer, got {type(v).__name__}")
                if spec["kind"] == "buffer":
                    _check_view(v, spec, i, strided, what)
                # one device buffer per host memory (views of one gpu.alloc share it)
                key = (v.host.__array_interface__["data"][0], v.host.nbytes)
                if key not in device_bufs:
                    host = v.host.view(np.uint8)
                    if host.nbytes == 0:
                        dev = cl.Buffer(rt.context, cl.mem_flags.READ_WRITE, size=16)
                    else:
                        dev = cl.Buffer(rt.context, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR,
                                        hostbuf=host)
                        out.append((host, dev))
                    device_bufs[key] = dev
                dev = device_bufs[key]
                start = v.offset * v.dtype.itemsize if spec["kind"] == "buffer" else 0   # a pointer: offset_of
                if start:
                    if start % align:
                        raise OpenCLError(f"{what}: the view starts {start} bytes into its buffer, not a multiple of "
                                          f"the device's {align}-byte sub-buffer alignment; pass a copy")
                    dev = dev.get_sub_region(start, v.host.nbytes - start)
                args.append(dev)
            elif spec["kind"] == "scalar":
                if isinstance(v, _View):
                    raise OpenCLError(f"{what}: the kernel takes a scalar, got a buffer")
                args.append(_scalar(v, spec["element_type"], what))
            else:
                raise OpenCLError(f"{what}: unknown argument kind '{spec['kind']}' in the metadata")
        for spec in (a for a in specs if _derived(a)):
            ref = spec.get("dim_of") or spec.get("stride_of") or spec.get("offset_of")
            if ref is None or not (0 <= ref[0] < len(values)) or not isinstance(values[ref[0]], _View):
                raise OpenCLError(f"metadata argument {spec.get('name')}: expected dim_of/stride_of/offset_of of a "
                                  "buffer argument")
            v = values[ref[0]]
            n = v.offset * v.dtype.itemsize if "offset_of" in spec else \
                v.sizes[ref[1]] if "dim_of" in spec else v.strides[ref[1]]
            args.append(_scalar(n, spec.get("element_type", "i64"), spec.get("name", "size")))
        return args, out

    def _launch(self, name: str, grid, block, values):
        meta = self._kernel_meta(name)
        self._check_geometry(meta, grid, block)
        kernel = self.program.kernel(name)
        cl, q = self.runtime.cl, self.runtime.queue
        t0 = time.perf_counter()
        args, copies = self._bind(meta, values)
        try:
            kernel.set_args(*args)
            q.finish()
            t1 = time.perf_counter()
            ev = cl.enqueue_nd_range_kernel(q, kernel, tuple(g * b for g, b in zip(grid, block)), tuple(block))
            progress.wait(ev, f"OpenCL @{name}", int(np.prod(grid)))
            t2 = time.perf_counter()
            for host, dev in copies:
                cl.enqueue_copy(q, host, dev)
            q.finish()
            if self.program.emulated:
                self.program.take_error(name)
        except cl.Error as e:
            raise OpenCLError(f"{_cl_message(e)} (grid {tuple(grid)}, block {tuple(block)})") from None
        self.stats.launches += 1
        self.stats.kernel_seconds += t2 - t1
        self.stats.transfer_seconds += (t1 - t0) + (time.perf_counter() - t2)


def _check_view(v: _View, spec: dict, index: int, strided: set, what: str):
    want = spec.get("element_type")
    if want is not None and scalar_dtype(want) != v.dtype:
        raise OpenCLError(f"{what}: the kernel takes {want} elements, the buffer holds {v.dtype}")
    shape = spec.get("shape")
    if shape is not None and tuple(shape) != tuple(v.sizes):
        raise OpenCLError(f"{what}: the kernel was compiled for shape {tuple(shape)}, the buffer is {tuple(v.sizes)}")
    static = spec.get("strides")        # the static strides the kernel was compiled for
    need_all = list(static) if static is not None and len(static) == len(v.sizes) else row_major_strides(v.sizes)
    for d, (have, need) in enumerate(zip(v.strides, need_all)):
        if (index, d) not in strided and v.sizes[d] > 1 and have != need:
            what_has = "the kernel was compiled for" if static is not None else "a row-major buffer has"
            raise OpenCLError(f"{what}: stride {have} in dimension {d} ({what_has} {need}); pass a buffer with "
                              "those strides")


# ----------------------------------------------------------------------------------------------
# Modules


def _children(op):
    for region in op.regions:
        for block in region.blocks:
            for child in block.operations:
                yield child.operation


def _gpu_kernels(module) -> dict:
    """gpu.func kernels of a module by name."""
    from mlir import ir

    out = {}
    op = module.operation if hasattr(module, "operation") else module
    for gm in _children(op):
        if gm.name != "gpu.module":
            continue
        for f in _children(gm):
            if f.name == "gpu.func" and "gpu.kernel" in f.attributes:
                out[ir.StringAttr(f.attributes["sym_name"]).value] = f
    return out


def infer_kernel_meta(func) -> dict:
    """Metadata of a hand-written SPIR-V kernel from the gpu.func of the same name: buffers and
    scalars in its argument order (integers and index as i64), its known_block_size."""
    from mlir import ir

    from ..sim.core import attr_ints

    ftype = ir.FunctionType(ir.TypeAttr(func.attributes["function_type"]).value)
    args = []
    for i, t in enumerate(ftype.inputs):
        info = parse_type(t)
        if info.kind == "memref":
            a = {"name": f"arg{i}", "kind": "buffer", "element_type": info.elem}
            if all(d != DYN for d in info.shape):
                a["shape"] = list(info.shape)
            strides = ir.MemRefType(t).get_strides_and_offset()[0]
            if ir.ShapedType.get_dynamic_stride_or_offset() not in strides:
                a["strides"] = list(strides)
            args.append(a)
        elif info.kind == "scalar":
            integer = info.dtype.kind in "iub"
            args.append({"name": f"arg{i}", "kind": "scalar", "element_type": "i64" if integer else info.elem,
                         "source_type": info.elem})
        else:
            raise OpenCLError(f"kernel @{ir.StringAttr(func.attributes['sym_name']).value}: argument {i} of type "
                              f"{info.text} cannot be passed to an OpenCL kernel")
    wg = attr_ints(func.attributes["known_block_size"]) if "known_block_size" in func.attributes else None
    return {"name": ir.StringAttr(func.attributes["sym_name"]).value, "args": args, "workgroup_size": wg,
            "subgroup_size": 16, "slm_bytes": 0, "named_barriers": 0}


def program_for_module(module, runtime: Runtime | None = None, target: str = "portable",
                       validate: bool = True, build_timeout: float | None = None) -> Program:
    """Build the SPIR-V of a module (its spirv.modules, or its XeGPU kernels converted with
    `target`) for the device (within `build_timeout` seconds, see `Program`)."""
    from ..lowering.xegpu_to_spirv.spirv_export import SpirvExportError, export_spirv, spirv_modules

    runtime = runtime or load()
    kernels = _gpu_kernels(module)
    if not spirv_modules(module) and not kernels:
        raise OpenCLError("the module has no gpu kernels to run; lower it first (e.g. xe-run --pipeline "
                          "xe-gemm-to-spirv-portable)")
    if not spirv_modules(module):
        from .kernel_level import check_kernels_lowered

        check_kernels_lowered(module)   # XeTile kernels: a located error naming the pipelines
    try:
        binary, meta = export_spirv(module, target=target)
    except SpirvExportError as e:
        raise OpenCLError(str(e)) from None
    described = {k["name"] for k in meta["kernels"]}
    for name, func in kernels.items():
        if name not in described:
            meta["kernels"].append(infer_kernel_meta(func))
    return Program(runtime, binary, meta, validate=validate, build_timeout=build_timeout)


@dataclass
class OpenCLRun:
    result: object            # sim.SimResult: buffers and returns after the run
    stats: Stats = field(default_factory=Stats)
    device: str = ""


def run_opencl(module, entry: str, args, *, target: str = "portable", trace: bool = False,
               runtime: Runtime | None = None, program: Program | None = None) -> OpenCLRun:
    """Run host function `entry` with its kernels on the OpenCL device (see the module docstring)."""
    from ..sim import simulate

    runtime = runtime or load()
    program = program or program_for_module(module, runtime, target)
    launcher = Launcher(program)
    result = simulate(module, entry, args, trace=trace, launcher=launcher)
    return OpenCLRun(result, launcher.stats, runtime.device_name)
