r"""The opened device: buffers, shader pipelines made once, and batches of dispatches.

Kernels describe their work as a list of :class:`Dispatch` (a pipeline, its
precision, its integer parameters, its storage buffers and a workgroup grid)
and run it with :meth:`Gpu.run`: one command buffer, with every dispatch's
parameters packed into one uniform buffer at aligned offsets.

Shaders are written once for either precision: their floating-point type is
``real`` (complex numbers are ``vec2<real>``). :meth:`Gpu.pipeline` compiles a
shader for ``"f32"`` or ``"f64"`` by putting ``alias real = f32;`` (or
``f64``) and the precision's constants (:func:`prelude`) before its text, and
keeps one pipeline per (shader, precision, pipeline-overridable constants): a
dispatch may set the shader's ``override`` declarations (such as the workgroup
size the tuner chooses, see :mod:`dspk_wgpu.launch`). ``"f64"`` needs a device
opened with the ``shader-f64`` feature (:attr:`Gpu.f64`). Vulkan has no 64-bit sine,
cosine, exponential, logarithm or arctangent, so no shader uses them on
``real``: such tables are computed on the host in float64 and uploaded, and
what a shader must compute itself comes from a library file per precision.

A shader file states its interface and its shared pieces in directive lines
(``//!`` at the start of a line), which :func:`shader_code` expands:

``//! params NAME NAME:u32 ...``
    The integer parameters a :class:`Dispatch` passes, in order: the
    ``struct Params`` of :data:`PARAM_FIELDS` 32-bit fields (``i32``, or
    ``u32`` where written ``NAME:u32``; unnamed ones padded as ``_pK: i32``)
    and ``@group(0) @binding(0) var<uniform> p: Params;``. Several
    consecutive ``//! params`` lines continue one list.
``//! read NAME: TYPE`` and ``//! read_write NAME: TYPE``
    The storage buffers, bound at 1, 2, ... in the order of these lines (the
    order of :attr:`Dispatch.buffers`):
    ``@group(0) @binding(N) var<storage, read> NAME: TYPE;``.
``//! include NAME``
    ``shaders/lib_NAME.wgsl`` where it exists (code the same in both
    precisions, such as complex arithmetic on ``vec2<real>``), else
    ``shaders/lib_NAME_f32.wgsl`` or ``shaders/lib_NAME_f64.wgsl``: the
    float32 one may call WGSL's built-ins, the float64 one computes from
    arithmetic and ``sqrt``. Library files hold no directives.

For example (:func:`expand`):

>>> print(expand("//! params n mode shift:u32\n//! read x: array<real>\n"
...              "//! read_write bins: array<atomic<u32>>\n"), end="")
struct Params {
    n: i32, mode: i32, shift: u32, _p3: i32,
    _p4: i32, _p5: i32, _p6: i32, _p7: i32,
    _p8: i32, _p9: i32, _p10: i32, _p11: i32,
    _p12: i32, _p13: i32, _p14: i32, _p15: i32,
}
@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> x: array<real>;
@group(0) @binding(2) var<storage, read_write> bins: array<atomic<u32>>;

:meth:`Gpu.run` refuses a dispatch that passes more parameters than its
shader names (:func:`shader_params`).
"""

from __future__ import annotations

import itertools
import os
import re
import struct
import threading
from dataclasses import dataclass, field
from importlib.resources import files
from typing import Any

import numpy as np
import wgpu

from dspk.plugin import ArrayTooLarge
from dspk_wgpu.adapter import fork_reason

STORAGE = wgpu.BufferUsage.STORAGE | wgpu.BufferUsage.COPY_SRC | wgpu.BufferUsage.COPY_DST

#: Iterations one invocation may loop in total. llvmpipe silently stops a
#: shader's loops after about 65,535 iterations (nested loops counted
#: together); real GPUs have watchdogs. Kernels split their work to stay below.
LOOP_BUDGET = 16384

#: Parameter block size: 16 32-bit fields (i32 or u32), as every shader's ``Params`` struct.
PARAM_FIELDS = 16

#: Most complex points of one FFT row in workgroup memory (``fft_stockham``), which
#: holds two halves of them: 16 KiB in float32, 32 KiB in float64. A device with less
#: workgroup memory gets fewer (:meth:`Gpu.local_points`).
FFT_POINTS = 1024


#: The WGSL type of each precision, by the NumPy dtypes computed in it.
PRECISIONS = {np.dtype(np.float32): "f32", np.dtype(np.complex64): "f32",
              np.dtype(np.float64): "f64", np.dtype(np.complex128): "f64"}

#: Bytes of one real number in each precision.
REAL_BYTES = {"f32": 4, "f64": 8}


def precision(dtype: Any) -> str:
    """``"f32"`` for float32 and complex64, ``"f64"`` for float64 and complex128.

    Examples
    --------
    >>> precision(np.complex128), precision("float32")
    ('f64', 'f32')
    """
    return PRECISIONS[np.dtype(dtype)]


def real_dtype(real: str, is_complex: bool = False) -> np.dtype:
    """The NumPy dtype of a precision's real (or complex) numbers.

    Examples
    --------
    >>> real_dtype("f64", is_complex=True)
    dtype('complex128')
    """
    if real == "f64":
        return np.dtype(np.complex128 if is_complex else np.float64)
    return np.dtype(np.complex64 if is_complex else np.float32)


def real_words(value: float, real: str) -> tuple[int, int, int]:
    """``value`` as three int32 parameter words, the bits of three float32 numbers
    whose sum, in the shader's precision, is ``value`` rounded to it.

    A float32 shader gets ``value`` rounded to float32 and two zeros; a float64
    shader gets ``hi + mid + lo`` with each part the float32 rounding of what
    the parts before leave, exact for a float64 ``value`` (in float32's range).

    Examples
    --------
    >>> words = real_words(1 / 3, "f64")
    >>> parts = np.array(words, np.int32).view(np.float32).astype(np.float64)
    >>> float(parts[0] + parts[1] + parts[2]) == 1 / 3
    True
    """
    value = float(value)
    parts = []
    for _ in range(3 if real == "f64" else 1):
        part = np.float32(value)
        parts.append(part)
        value -= float(part)
    parts += [np.float32(0.0)] * (3 - len(parts))
    return tuple(int(w) for w in np.array(parts, np.float32).view(np.int32))


_INCLUDE = re.compile(r"^//! include (\w+)$", re.MULTILINE)
#: A run of consecutive ``//! params`` lines.
_PARAMS = re.compile(r"^//! params .*(?:\n//! params .*)*$", re.MULTILINE)
_PARAM = re.compile(r"(\w+)(?::(i32|u32))?")
_BUFFER = re.compile(r"^//! (read_write|read) (\w+): ([^;\n]+)$", re.MULTILINE)
_DIRECTIVE = re.compile(r"^//! (\w+)", re.MULTILINE)


def _shader_file(name: str) -> str:
    return files("dspk_wgpu").joinpath("shaders", f"{name}.wgsl").read_text()


def _library(name: str, real: str) -> str:
    """The file ``//! include name`` brings in at precision ``real``."""
    shared = files("dspk_wgpu").joinpath("shaders", f"lib_{name}.wgsl")
    return shared.read_text() if shared.is_file() else _shader_file(f"lib_{name}_{real}")


def _param_fields(text: str) -> list[tuple[str, str]]:
    """The (name, type) of the fields that a shader text's ``//! params`` lines name."""
    runs = _PARAMS.findall(text)
    if len(runs) > 1:
        raise ValueError("a shader has one run of '//! params' lines")
    fields: list[tuple[str, str]] = []
    for line in runs[0].splitlines() if runs else ():
        for token in line.split()[2:]:
            match = _PARAM.fullmatch(token)
            if not match:
                raise ValueError(f"'//! params': {token!r} is not NAME or NAME:i32 or NAME:u32")
            fields.append((match.group(1), match.group(2) or "i32"))
    names = [name for name, _ in fields]
    if len(set(names)) < len(names):
        raise ValueError(f"'//! params' names a field twice: {' '.join(names)}")
    if len(fields) > PARAM_FIELDS:
        raise ValueError(f"'//! params' names {len(fields)} fields, more than {PARAM_FIELDS}")
    return fields


def _params_struct(fields: list[tuple[str, str]]) -> str:
    """``struct Params`` of :data:`PARAM_FIELDS` fields, four a line, and the uniform ``p``."""
    fields = fields + [(f"_p{k}", "i32") for k in range(len(fields), PARAM_FIELDS)]
    lines = ["    " + " ".join(f"{name}: {kind}," for name, kind in fields[k:k + 4])
             for k in range(0, PARAM_FIELDS, 4)]
    return ("struct Params {\n" + "\n".join(lines) + "\n}\n"
            "@group(0) @binding(0) var<uniform> p: Params;")


def expand(text: str) -> str:
    """A shader's text with its ``//! params``, ``//! read`` and ``//! read_write``
    lines replaced by the WGSL they stand for (see the module's description).

    Parameters
    ----------
    text : str
        The text of a shader file (``//! include`` lines are left as they are).

    Returns
    -------
    str
        The text with ``struct Params``, the uniform ``p`` and the storage
        bindings 1, 2, ... declared where the directives stood.

    Raises
    ------
    ValueError
        For a directive this module does not know, a malformed ``//! params``
        list, or more than :data:`PARAM_FIELDS` fields.

    Examples
    --------
    >>> expand("//! params n x_st n")
    Traceback (most recent call last):
        ...
    ValueError: '//! params' names a field twice: n x_st n
    >>> print(expand("//! read_write y: array<vec2<real>>"))
    @group(0) @binding(1) var<storage, read_write> y: array<vec2<real>>;
    """
    for directive in _DIRECTIVE.findall(text):
        if directive not in ("params", "read", "read_write", "include"):
            raise ValueError(f"unknown shader directive '//! {directive}'")
    fields = _param_fields(text)
    text = _PARAMS.sub(lambda m: _params_struct(fields), text)
    binding = itertools.count(1)
    return _BUFFER.sub(lambda m: f"@group(0) @binding({next(binding)}) "
                                 f"var<storage, {m.group(1)}> {m.group(2)}: {m.group(3)};", text)


def shader_params(name: str) -> tuple[str, ...]:
    """The names of ``shaders/<name>.wgsl``'s parameters, as its ``//! params`` lines
    give them (the order of :attr:`Dispatch.params`).

    Examples
    --------
    >>> shader_params("channels_covariance_sum")
    ('channels', 'chunks', 'first')
    """
    return tuple(name for name, _ in _param_fields(_shader_file(name)))


def _libraries(text: str) -> list[str]:
    """The library files a shader text includes, in both precisions."""
    return list(dict.fromkeys(_library(lib, real) for lib in _INCLUDE.findall(text)
                              for real in REAL_BYTES))


def shader_source(name: str) -> str:
    """All the code a change of which changes ``shaders/<name>.wgsl`` (for
    :func:`dspk.plugin.source_hash`): its text with the directives expanded, as
    :func:`expand` writes it today, then the library files it includes, in both
    precisions."""
    text = expand(_shader_file(name))
    return text + "".join(_libraries(text))


def shader_code(name: str, real: str) -> str:
    """``shaders/<name>.wgsl`` with its directives expanded (:func:`expand`) and its
    ``//! include`` lines replaced by the library files of precision ``real`` (without
    the :func:`prelude`)."""
    return _INCLUDE.sub(lambda m: _library(m.group(1), real), expand(_shader_file(name)))


def prelude(real: str, fft_points: int = FFT_POINTS) -> str:
    """The lines put before a shader's text to compile it in precision ``real``: the
    type alias ``real`` and the constant ``FFT_POINTS`` (see :meth:`Gpu.local_points`).

    Examples
    --------
    >>> print(prelude("f64", 512), end="")
    alias real = f64;
    const FFT_POINTS: i32 = 512;
    """
    return f"alias real = {real};\nconst FFT_POINTS: i32 = {fft_points};\n"


@dataclass
class Dispatch:
    """One compute dispatch.

    Parameters
    ----------
    pipeline : str
        Shader name (``shaders/<name>.wgsl``, entry point ``main``).
    real : str
        The precision the shader is compiled in: ``"f32"`` or ``"f64"``
        (see :func:`precision`).
    params : sequence of int
        The shader's ``Params`` fields in order (at most 16 32-bit words, i32 or u32).
    buffers : sequence of GPUBuffer
        Bound at bindings 1, 2, ... of group 0 (binding 0 is ``Params``).
    grid : tuple of int
        Workgroups along x, y, z.
    constants : tuple of (str, int)
        Values of the shader's pipeline-overridable constants, by name.
    """

    pipeline: str
    real: str
    params: tuple[int, ...]
    buffers: tuple[Any, ...]
    grid: tuple[int, int, int]
    constants: tuple[tuple[str, int], ...] = ()


@dataclass
class Gpu:
    """A device and what is made once per process on it."""

    adapter: Any
    device: Any
    poison_outputs: bool = False
    #: The largest buffer a shader binds, in bytes: the device's
    #: ``max-storage-buffer-binding-size`` unless lowered (tests do).
    max_binding: int = 0
    _pipelines: dict[tuple[str, str, tuple], Any] = field(default_factory=dict)
    #: How many parameters each shader built here names (:func:`shader_params`).
    _param_counts: dict[str, int] = field(default_factory=dict)
    _fence: Any = None
    #: While :meth:`timed` runs, in its thread only (``stamps``): the buffers
    #: each compute pass resolves its start and end timestamps into.
    _timing: threading.local = field(default_factory=threading.local)
    _timing_lock: threading.Lock = field(default_factory=threading.Lock)
    _query_set: Any = None
    #: The process that opened the device; no other may use it (see :func:`fork_reason`).
    _process: int = field(default_factory=os.getpid)

    def __post_init__(self):
        if not self.max_binding:
            self.max_binding = int(self.device.limits["max-storage-buffer-binding-size"])

    def _check_process(self) -> None:
        """A RuntimeError in a forked child: the device is its parent's."""
        reason = fork_reason(self._process)
        if reason:
            raise RuntimeError(f"dspk: this wgpu device cannot be used here: {reason}")

    @property
    def f64(self) -> bool:
        """Whether shaders compute in float64 here (the device has ``shader-f64``)."""
        return "shader-f64" in self.device.features

    def local_points(self, real: str) -> int:
        """Complex points of one FFT row in workgroup memory in precision ``real``:
        :data:`FFT_POINTS`, halved while two halves of them exceed the device's
        ``max-compute-workgroup-storage-size``."""
        limit = int(self.device.limits["max-compute-workgroup-storage-size"])
        points = FFT_POINTS
        while points > 64 and 2 * points * 2 * REAL_BYTES[real] > limit:
            points //= 2
        return points

    @property
    def timestamps(self) -> bool:
        """Whether the device writes timestamps into compute passes."""
        return "timestamp-query" in self.device.features

    def timed(self, call) -> float:
        """Seconds the device spent in the compute passes ``call`` submits.

        Needs :attr:`timestamps`. Each pass writes a start and an end
        timestamp (nanoseconds); the time between passes is not counted.
        """
        with self._timing_lock:  # one query set, one timing at a time
            self._timing.stamps = []
            try:
                call()
                ticks = [np.frombuffer(self.read(buffer), np.uint64)
                         for buffer in self._timing.stamps]
            finally:
                self._timing.stamps = None
        return sum(int(end) - int(start) for start, end in ticks) * 1e-9

    @property
    def queue(self) -> Any:
        return self.device.queue

    def pipeline(self, name: str, real: str = "f32",
                 constants: tuple[tuple[str, int], ...] = ()) -> Any:
        """The compute pipeline of ``shaders/<name>.wgsl`` in precision ``real``, with its
        pipeline-overridable ``constants`` (name, value) set, compiled on first use."""
        key = (name, real, constants)
        if key not in self._pipelines:
            if real not in REAL_BYTES or (real == "f64" and not self.f64):
                raise ValueError(f"shader {name!r}: precision {real!r} is not available "
                                 "on this device")
            label = f"{name}[{real}]" + "".join(f"[{k}={v}]" for k, v in constants)
            self._param_counts[name] = len(shader_params(name))
            module = self.device.create_shader_module(
                code=prelude(real, self.local_points(real)) + shader_code(name, real), label=label)
            self._pipelines[key] = self.device.create_compute_pipeline(
                layout="auto", label=label,
                compute={"module": module, "entry_point": "main", "constants": dict(constants)})
        return self._pipelines[key]

    def check_size(self, nbytes: int) -> None:
        """An :class:`~dspk.plugin.ArrayTooLarge` when one binding cannot hold ``nbytes``."""
        if nbytes > self.max_binding:
            raise ArrayTooLarge(
                f"an array of {nbytes} bytes is above this device's largest storage-buffer "
                f"binding ({self.max_binding} bytes); pass NumPy arrays, which dspk "
                "processes in pieces, or split the data")

    def upload(self, data: np.ndarray) -> Any:
        """A storage buffer holding ``data``'s bytes (at least 16: a buffer binds to an
        array of any element, complex128 included)."""
        self._check_process()
        self.check_size(data.nbytes)
        raw = np.ascontiguousarray(data).tobytes() or bytes(16)
        return self.device.create_buffer_with_data(data=raw, usage=STORAGE)

    def empty(self, nbytes: int) -> Any:
        """A new storage buffer for results (at least 16 bytes): zeros, or NaN when
        ``poison_outputs`` (NaN float32 words, which read as NaN float64 too)."""
        self._check_process()
        self.check_size(nbytes)
        nbytes = max(16, -(-nbytes // 4) * 4)
        if self.poison_outputs:
            return self.upload(np.full(nbytes // 4, np.nan, np.float32))
        return self.device.create_buffer(size=nbytes, usage=STORAGE)

    def zeros(self, nbytes: int) -> Any:
        """A new storage buffer of zeros, at least 16 bytes (WebGPU zero-fills new
        buffers)."""
        self._check_process()
        self.check_size(nbytes)
        return self.device.create_buffer(size=max(16, -(-nbytes // 4) * 4), usage=STORAGE)

    def read(self, buffer: Any, nbytes: int | None = None) -> bytes:
        """A buffer's bytes, after all submitted work."""
        self._check_process()
        return bytes(self.queue.read_buffer(buffer, 0, nbytes))

    def wait(self) -> None:
        """Block until submitted work is done.

        wgpu-py 0.32's ``on_submitted_work_done_sync`` raises; reading a small
        buffer waits for the queue instead.
        """
        if self._fence is None:
            self._fence = self.zeros(4)
        self.read(self._fence, 4)

    def run(self, dispatches: list[Dispatch],
            copies_before: tuple = (), copies_after: tuple = ()) -> None:
        """Submit dispatches in order, with buffer copies ``(src, src_off, dst, dst_off, n)``.

        A ValueError, before anything is submitted, for a dispatch that passes more
        parameters than its shader's ``//! params`` name.
        """
        self._check_process()
        if not dispatches and not copies_before and not copies_after:
            return
        pipelines = [self.pipeline(dispatch.pipeline, dispatch.real, dispatch.constants)
                     for dispatch in dispatches]
        for dispatch in dispatches:
            named = self._param_counts[dispatch.pipeline]
            if len(dispatch.params) > named:
                raise ValueError(
                    f"shader {dispatch.pipeline!r} names {named} parameters "
                    f"({' '.join(shader_params(dispatch.pipeline))}); a dispatch passes "
                    f"{len(dispatch.params)}")
        stride = max(64, self.device.limits["min-uniform-buffer-offset-alignment"])
        block = bytearray(stride * max(1, len(dispatches)))
        for k, dispatch in enumerate(dispatches):
            # 32-bit words: negative int32 fields and u32 fields above 2^31 alike
            fields = tuple(int(v) & 0xFFFFFFFF for v in dispatch.params)
            fields += (0,) * (PARAM_FIELDS - len(fields))
            struct.pack_into(f"<{PARAM_FIELDS}I", block, k * stride, *fields)
        uniforms = self.device.create_buffer_with_data(
            data=bytes(block), usage=wgpu.BufferUsage.UNIFORM)
        encoder = self.device.create_command_encoder()
        for copy in copies_before:
            encoder.copy_buffer_to_buffer(*copy)
        if dispatches:
            compute = encoder.begin_compute_pass(timestamp_writes=self._timestamp_writes())
            for k, (dispatch, pipeline) in enumerate(zip(dispatches, pipelines)):
                entries = [{"binding": 0, "resource": {"buffer": uniforms, "offset": k * stride,
                                                       "size": 4 * PARAM_FIELDS}}]
                entries += [{"binding": i + 1, "resource": {"buffer": buffer}}
                            for i, buffer in enumerate(dispatch.buffers)]
                group = self.device.create_bind_group(
                    layout=pipeline.get_bind_group_layout(0), entries=entries)
                compute.set_pipeline(pipeline)
                compute.set_bind_group(0, group)
                compute.dispatch_workgroups(*dispatch.grid)
            compute.end()
        for copy in copies_after:
            encoder.copy_buffer_to_buffer(*copy)
        stamps = self._stamps()
        if dispatches and stamps is not None and self.timestamps:
            resolved = self.device.create_buffer(
                size=16, usage=wgpu.BufferUsage.QUERY_RESOLVE | wgpu.BufferUsage.COPY_SRC)
            encoder.resolve_query_set(self._query_set, 0, 2, resolved, 0)
            stamps.append(resolved)
        self.queue.submit([encoder.finish()])

    def _stamps(self) -> list | None:
        """The list :meth:`timed` collects into, when this thread runs it."""
        return getattr(self._timing, "stamps", None)

    def _timestamp_writes(self) -> dict | None:
        if self._stamps() is None or not self.timestamps:
            return None
        if self._query_set is None:
            self._query_set = self.device.create_query_set(type="timestamp", count=2)
        return {"query_set": self._query_set, "beginning_of_pass_write_index": 0,
                "end_of_pass_write_index": 1}
