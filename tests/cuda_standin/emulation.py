"""``cupy.RawModule`` on the host: the very kernel text, compiled with g++, run as fibers.

:class:`EmulatedModule` takes the code and name expressions the runtime
hands NVRTC, rewrites its ``__shared__`` declarations into the arena of
``emulation.hpp`` (CUDA's execution model on one host thread), and compiles
it with one launcher per template instance; libraries are kept on disk,
keyed by their text. A launch (:class:`Kernel`) is checked as the device
would check it: grid and block against the platform's limits
(:mod:`cuda_standin.device`) and the kernel's ``__launch_bounds__``, shared
memory against the device's, every argument against the kernel's
parameter list (pointers must be device arrays of the pointee's dtype;
``index_t`` an int64, ``int`` an int32, ``T`` a scalar of the instance's
dtype). It then runs twice: blocks and threads in order, then both
reversed, from the same memory; outputs that differ mean a missing
``__syncthreads()`` or a race. In a process with AddressSanitizer loaded
(``LD_PRELOAD``, see ``conformance.sh``) kernels are compiled with it, so an
access outside any allocation, or outside the shared memory a block
declared, stops the launch with the sanitizer's report.
"""

from __future__ import annotations

import ctypes
import hashlib
import itertools
import os
import platform
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from cuda_standin.arrays import ndarray
from cuda_standin.device import Limits

CXX = shutil.which("g++")
RUNTIME = Path(__file__).with_name("emulation.hpp")
FLAGS = ["-std=c++17", "-fPIC", "-shared"]
ASAN_FLAGS = ["-O1", "-g", "-fno-omit-frame-pointer", "-fsanitize=address",
              "-fsanitize-recover=address"]


def unavailable() -> str | None:
    """Why the stand-in cannot run kernels here, or None."""
    if CXX is None:
        return "g++ is not installed: the CUDA stand-in compiles the kernels with it"
    if platform.machine() != "x86_64":
        return f"the CUDA stand-in switches fibers with x86-64 code; this is {platform.machine()}"
    return None


class StandInError(RuntimeError):
    """What a GPU would report of a launch: refused, or faulted while it ran."""


class LaunchError(StandInError):
    """A launch the device refuses: its geometry, shared memory or arguments."""


class KernelFault(StandInError):
    """A fault while a kernel ran: an invalid access, a divergent barrier, shared memory."""


class OrderDependence(StandInError):
    """Outputs that depend on the order threads ran in: a missing ``__syncthreads()`` or a race."""


def asan_loaded() -> bool:
    """Whether AddressSanitizer's runtime is loaded in this process."""
    return hasattr(ctypes.CDLL(None), "__asan_init")


_asan_reports: list[str] = []
_asan_callback = None
_running: list[ctypes.CDLL] = []  # the library whose launch runs now


def _asan_report(text: bytes) -> None:
    where = (ctypes.c_uint * 6)()
    _running[-1].dspk_where(where)
    _asan_reports.append(f"in block ({where[0]}, {where[1]}, {where[2]}), thread "
                         f"({where[3]}, {where[4]}, {where[5]}):\n"
                         + text.decode(errors="replace"))


def _watch_asan() -> None:
    """Collect AddressSanitizer's reports (it goes on after each: -fsanitize-recover)."""
    global _asan_callback
    if _asan_callback is None:
        _asan_callback = ctypes.CFUNCTYPE(None, ctypes.c_char_p)(_asan_report)
        ctypes.CDLL(None).__asan_set_error_report_callback(_asan_callback)


def cache_directory() -> Path:
    """Where compiled kernels are kept: ``$DSPK_CUDA_STANDIN_CACHE`` or a folder in the temp dir."""
    folder = os.environ.get("DSPK_CUDA_STANDIN_CACHE") or Path(
        tempfile.gettempdir()) / f"dspk-cuda-standin-{os.getuid()}"
    Path(folder).mkdir(parents=True, exist_ok=True)
    return Path(folder)


class Config(ctypes.Structure):
    """``dspk_config`` of emulation.hpp."""

    _fields_ = [("grid", ctypes.c_uint * 3), ("block", ctypes.c_uint * 3),
                ("dynamic_shared", ctypes.c_longlong), ("shared_limit", ctypes.c_longlong),
                ("warp_size", ctypes.c_int), ("reverse", ctypes.c_int)]


#: Kernel parameter types: C type in the launcher, ctypes type, NumPy dtype.
SCALARS = {"index_t": ("long long", ctypes.c_longlong, np.int64),
           "long long": ("long long", ctypes.c_longlong, np.int64),
           "int": ("int", ctypes.c_int, np.int32),
           "float": ("float", ctypes.c_float, np.float32),
           "double": ("double", ctypes.c_double, np.float64)}
PARAMETER = re.compile(r"^(?P<const>const\s+)?(?P<base>[\w ]+?)\s*(?P<pointer>\*?)\s*"
                       r"(?P<name>\w+)$")
KERNEL = re.compile(r"template\s*<(?P<template>[^>]*)>\s*__global__\s+void\s+"
                    r"(?:__launch_bounds__\((?P<bounds>\w+)\)\s+)?(?P<name>\w+)\s*"
                    r"\((?P<params>[^)]*)\)", re.S)
DYNAMIC_SHARED = re.compile(r"extern\s+__shared__\s+(?:__align__\(\s*\d+\s*\)\s+)?"
                            r"(?P<type>\w+(?:\s+\w+)*?)\s+(?P<name>\w+)\s*\[\s*\]\s*;")
STATIC_SHARED = re.compile(r"__shared__\s+(?:__align__\(\s*\d+\s*\)\s+)?"
                           r"(?P<type>\w+(?:\s+\w+)*?)\s+(?P<name>\w+)\s*"
                           r"(?P<dims>(?:\[[^\]]+\])*)\s*;")
COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)


@dataclass(frozen=True)
class Parameter:
    """One kernel parameter as a launch checks and passes it."""

    name: str
    c_type: str
    pointer: bool
    const: bool
    dtype: np.dtype
    ctype: type


def _parameters(found: re.Match, values: dict[str, str]) -> list[Parameter]:
    parameters = []
    for text in found["params"].split(","):
        match = PARAMETER.match(" ".join(text.split()))
        c_type, c_scalar, dtype = SCALARS[values.get(match["base"], match["base"])]
        const = bool(match["const"])
        if match["pointer"]:
            parameters.append(Parameter(match["name"], f"{'const ' if const else ''}{c_type}*",
                                        True, const, np.dtype(dtype), ctypes.c_void_p))
        else:
            parameters.append(Parameter(match["name"], c_type, False, const, np.dtype(dtype),
                                        c_scalar))
    return parameters


def rewrite_shared(code: str) -> str:
    """``code`` with its ``__shared__`` declarations turned into the arena's regions."""
    code = DYNAMIC_SHARED.sub(lambda m: f"{m['type']}* const {m['name']} = "
                              f"dspk::dynamic_shared<{m['type']}>();", code)
    number = itertools.count()
    code = STATIC_SHARED.sub(lambda m: f"{m['type']} (&{m['name']}){m['dims']} = "
                             f"*dspk::static_shared<{m['type']}{m['dims']}>({next(number)});",
                             code)
    left = re.search(r"[^\n]*__shared__[^\n]*", COMMENT.sub("", code))
    if left:
        raise StandInError(f"a __shared__ declaration the stand-in cannot read: {left[0]!r}")
    return code


def _library(text: str, flags: list[str]) -> ctypes.CDLL:
    key = hashlib.sha1("\0".join([text, *flags]).encode()).hexdigest()[:20]
    folder = cache_directory()
    library = folder / f"{key}.so"
    if not library.exists():
        source = folder / f"{key}.cpp"
        partial = folder / f"{key}.{os.getpid()}"
        partial.with_suffix(".cpp").write_text(text)
        os.replace(partial.with_suffix(".cpp"), source)
        done = subprocess.run([CXX, *flags, "-o", str(partial.with_suffix(".so")), str(source)],
                              capture_output=True, text=True, env={  # g++ without the sanitizer
                                  k: v for k, v in os.environ.items() if k != "LD_PRELOAD"})
        if done.returncode:
            raise StandInError(f"g++ could not compile {source}:\n{done.stderr[-4000:]}")
        os.replace(partial.with_suffix(".so"), library)
    return ctypes.CDLL(str(library))


class EmulatedModule:
    """``cupy.RawModule`` of the stand-in, for the device ``limits``."""

    def __init__(self, code, options=(), name_expressions=(), *, limits: Limits):
        if unavailable():
            raise StandInError(unavailable())
        kernels = {m["name"]: m for m in KERNEL.finditer(code)}
        defines = dict(re.findall(r"#define (\w+) (\d+)", code))
        self.limits = limits
        self.instances: dict[str, tuple[int, list[Parameter], int]] = {}
        launchers = []
        for index, expression in enumerate(name_expressions):
            name, arguments = re.fullmatch(r"(\w+)<(.*)>", expression).groups()
            if name not in kernels:
                raise StandInError(f"{expression}: the stand-in finds no kernel template "
                                   f"'template <...> __global__ void {name}(...)' in the code")
            found = kernels[name]
            names = [p.split()[-1] for p in found["template"].split(",")]
            parameters = _parameters(found, dict(zip(names, (a.strip() for a in
                                                             arguments.split(",")))))
            declared = "".join(f", {'void*' if p.pointer else p.c_type} a{i}"
                               for i, p in enumerate(parameters))
            passed = ", ".join(f"({p.c_type})a{i}" if p.pointer else f"a{i}"
                               for i, p in enumerate(parameters))
            launchers.append(
                f'extern "C" int launch_{index}(const dspk_config* config{declared}) {{\n'
                f"    auto kernel = [&]() {{ {expression}({passed}); }};\n"
                f"    return dspk::run(*config, kernel);\n}}")
            bounds = found["bounds"]
            self.instances[expression] = (index, parameters, int(defines.get(bounds, bounds))
                                          if bounds else limits.threads_per_block)
        text = "\n".join([RUNTIME.read_text(), rewrite_shared(code), *launchers, ""])
        self.asan = asan_loaded()
        if self.asan:
            _watch_asan()
        self.library = _library(text, FLAGS + (ASAN_FLAGS if self.asan else ["-O2"]))
        self.library.dspk_message.restype = ctypes.c_char_p

    def get_function(self, expression: str) -> Kernel:
        index, parameters, bounds = self.instances[expression]
        function = getattr(self.library, f"launch_{index}")
        function.argtypes = [ctypes.POINTER(Config)] + [p.ctype for p in parameters]
        function.restype = ctypes.c_int
        return Kernel(self, expression, function, parameters, bounds)


def _dims(value, what: str) -> tuple[int, int, int]:
    dims = tuple(value) if isinstance(value, (tuple, list)) else (value,)
    if not 1 <= len(dims) <= 3 or not all(isinstance(d, (int, np.integer)) for d in dims):
        raise LaunchError(f"{what} must be one to three integers; got {value!r}")
    return tuple(int(d) for d in dims) + (1,) * (3 - len(dims))


def _allocation(a: np.ndarray) -> np.ndarray:
    """The array that owns the memory of the view ``a``."""
    while True:
        base = a.base
        if isinstance(base, np.ndarray):
            a = base
        elif isinstance(getattr(base, "base", None), np.ndarray):  # as_strided's holder
            a = base.base
        else:
            return a


class Kernel:
    """One compiled template instance, launched as ``kernel(grid, block, args, shared_mem=0)``."""

    def __init__(self, module: EmulatedModule, expression: str, function, parameters, bounds):
        self.module, self.expression, self.function = module, expression, function
        self.parameters, self.bounds = parameters, bounds

    def __call__(self, grid, block, args, *, shared_mem=0, stream=None):
        grid, block = _dims(grid, "grid"), _dims(block, "block")
        where = f"{self.expression}<<<{grid}, {block}, {shared_mem}>>>"
        self._check_geometry(where, grid, block, shared_mem)
        values = self._values(where, args)
        config = Config(grid, block, shared_mem, self.module.limits.shared_bytes,
                        self.module.limits.warp_size, 0)
        written = self._written(args)
        before = [ctypes.string_at(low, high - low) for _, (low, high) in written]
        self._run(where, config, values)
        forward = [ctypes.string_at(low, high - low) for _, (low, high) in written]
        for saved, (_, (low, high)) in zip(before, written):
            ctypes.memmove(low, saved, high - low)
        config.reverse = 1
        self._run(where, config, values)
        for first, (name, (low, high)) in zip(forward, written):
            now = ctypes.string_at(low, high - low)
            if now != first:
                differ = np.flatnonzero(np.frombuffer(now, np.uint8)
                                        != np.frombuffer(first, np.uint8))
                raise OrderDependence(
                    f"{where}: the output {name!r} depends on the order threads run: "
                    f"{differ.size} of its allocation's {high - low} bytes differ between "
                    f"blocks and threads in order and reversed, the first at byte "
                    f"{differ[0]}; a missing __syncthreads() or a race between threads")

    def _check_geometry(self, where, grid, block, shared_mem):
        limits = self.module.limits
        threads = block[0] * block[1] * block[2]
        problems = [f"{what} dimension {axis} is {n}, below 1" for what, dims in
                    (("grid", grid), ("block", block)) for axis, n in zip("xyz", dims) if n < 1]
        problems += [f"block dimension {axis} is {n}, above the device's {most}"
                     for axis, n, most in zip("xyz", block, limits.block_dims) if n > most]
        problems += [f"grid dimension {axis} is {n}, above the device's {most}"
                     for axis, n, most in zip("xyz", grid, limits.grid_dims) if n > most]
        if limits.work_items is not None:
            problems += [f"{g} x {b} work-items along {axis} exceed {limits.platform}'s "
                         f"{limits.work_items}" for axis, g, b in zip("xyz", grid, block)
                         if g * b > limits.work_items]
        if threads > min(limits.threads_per_block, self.bounds):
            problems.append(f"{threads} threads per block, above the kernel's launch bounds "
                            f"({self.bounds}) or the device's {limits.threads_per_block}")
        if not 0 <= shared_mem <= limits.shared_bytes:
            problems.append(f"{shared_mem} bytes of dynamic shared memory; the device has "
                            f"{limits.shared_bytes} per block")
        if problems:
            raise LaunchError(f"{where} on {limits.platform}: " + "; ".join(problems))

    def _values(self, where, args) -> list:
        if len(args) != len(self.parameters):
            raise LaunchError(f"{where}: {len(args)} arguments for {len(self.parameters)} "
                              "parameters")
        values = []
        for arg, p in zip(args, self.parameters):
            if p.pointer:
                if isinstance(arg, np.ndarray):
                    raise TypeError(f"Unsupported type {type(arg)}: {where} was given a host "
                                    f"array for {p.c_type} {p.name}")
                if not isinstance(arg, ndarray) or arg.dtype != p.dtype:
                    raise LaunchError(f"{where}: {p.c_type} {p.name} needs a device array of "
                                      f"{p.dtype}; got {type(arg).__name__} of "
                                      f"{getattr(arg, 'dtype', None)}")
                values.append(arg._host.ctypes.data)
            else:
                if type(arg) is not p.dtype.type:
                    raise LaunchError(f"{where}: {p.c_type} {p.name} needs numpy.{p.dtype}; "
                                      f"got {type(arg).__name__}")
                values.append(arg.item())
        return values

    def _written(self, args) -> list[tuple[str, tuple[int, int]]]:
        """The allocations behind the kernel's non-const pointers, each once, with a name."""
        found = {}
        for arg, p in zip(args, self.parameters):
            if p.pointer and not p.const:
                bounds = np.lib.array_utils.byte_bounds(_allocation(arg._host))
                found.setdefault(bounds, p.name)
        return [(name, bounds) for bounds, name in found.items()]

    def _run(self, where, config, values):
        _running.append(self.module.library)
        try:
            status = self.function(ctypes.byref(config), *values)
        finally:
            _running.pop()
        if _asan_reports:
            report = "".join(_asan_reports)
            _asan_reports.clear()
            raise KernelFault(f"{where}: AddressSanitizer found an invalid access "
                              f"(threads {'reversed' if config.reverse else 'in order'}):\n"
                              f"{report[:6000]}")
        if status:
            raise KernelFault(f"{where}: {self.module.library.dspk_message().decode()}")
