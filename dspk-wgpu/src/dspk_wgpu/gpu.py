"""The opened device: buffers, shader pipelines made once, and batches of dispatches.

Kernels describe their work as a list of :class:`Dispatch` (a pipeline, its
integer parameters, its storage buffers and a workgroup grid) and run it with
:meth:`Gpu.run`: one command buffer, with every dispatch's parameters packed
into one uniform buffer at aligned offsets.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from importlib.resources import files
from typing import Any

import numpy as np
import wgpu
from dspk.plugin import ArrayTooLarge

STORAGE = wgpu.BufferUsage.STORAGE | wgpu.BufferUsage.COPY_SRC | wgpu.BufferUsage.COPY_DST

#: Iterations one invocation may loop in total. llvmpipe silently stops a
#: shader's loops after about 65,535 iterations (nested loops counted
#: together); real GPUs have watchdogs. Kernels split their work to stay below.
LOOP_BUDGET = 16384

#: Parameter block size: 16 int32 fields, as every shader's ``Params`` struct.
PARAM_FIELDS = 16


def shader_source(name: str) -> str:
    """The text of ``shaders/<name>.wgsl``."""
    return files("dspk_wgpu").joinpath("shaders", f"{name}.wgsl").read_text()


@dataclass
class Dispatch:
    """One compute dispatch.

    Parameters
    ----------
    pipeline : str
        Shader name (``shaders/<name>.wgsl``, entry point ``main``).
    params : sequence of int
        The shader's ``Params`` fields in order (at most 16, int32).
    buffers : sequence of GPUBuffer
        Bound at bindings 1, 2, ... of group 0 (binding 0 is ``Params``).
    grid : tuple of int
        Workgroups along x, y, z.
    """

    pipeline: str
    params: tuple[int, ...]
    buffers: tuple[Any, ...]
    grid: tuple[int, int, int]


@dataclass
class Gpu:
    """A device and what is made once per process on it."""

    adapter: Any
    device: Any
    poison_outputs: bool = False
    #: The largest buffer a shader binds, in bytes: the device's
    #: ``max-storage-buffer-binding-size`` unless lowered (tests do).
    max_binding: int = 0
    _pipelines: dict[str, Any] = field(default_factory=dict)
    _fence: Any = None
    #: While :meth:`timed` runs: the buffers each compute pass resolves its
    #: start and end timestamps into.
    _stamps: list | None = None
    _query_set: Any = None

    def __post_init__(self):
        if not self.max_binding:
            self.max_binding = int(self.device.limits["max-storage-buffer-binding-size"])

    @property
    def timestamps(self) -> bool:
        """Whether the device writes timestamps into compute passes."""
        return "timestamp-query" in self.device.features

    def timed(self, call) -> float:
        """Seconds the device spent in the compute passes ``call`` submits.

        Needs :attr:`timestamps`. Each pass writes a start and an end
        timestamp (nanoseconds); the time between passes is not counted.
        """
        self._stamps = []
        try:
            call()
            ticks = [np.frombuffer(self.read(buffer), np.uint64) for buffer in self._stamps]
        finally:
            self._stamps = None
        return sum(int(end) - int(start) for start, end in ticks) * 1e-9

    @property
    def queue(self) -> Any:
        return self.device.queue

    def pipeline(self, name: str) -> Any:
        """The compute pipeline of ``shaders/<name>.wgsl``, compiled on first use."""
        if name not in self._pipelines:
            module = self.device.create_shader_module(code=shader_source(name), label=name)
            self._pipelines[name] = self.device.create_compute_pipeline(
                layout="auto", compute={"module": module, "entry_point": "main"}, label=name)
        return self._pipelines[name]

    def check_size(self, nbytes: int) -> None:
        """An :class:`~dspk.plugin.ArrayTooLarge` when one binding cannot hold ``nbytes``."""
        if nbytes > self.max_binding:
            raise ArrayTooLarge(
                f"an array of {nbytes} bytes is above this device's largest storage-buffer "
                f"binding ({self.max_binding} bytes); pass NumPy arrays, which dspk "
                "processes in pieces, or split the data")

    def upload(self, data: np.ndarray) -> Any:
        """A storage buffer holding ``data``'s bytes (at least 4 bytes)."""
        self.check_size(data.nbytes)
        raw = np.ascontiguousarray(data).tobytes() or bytes(4)
        return self.device.create_buffer_with_data(data=raw, usage=STORAGE)

    def empty(self, nbytes: int) -> Any:
        """A new storage buffer for results: zeros, or NaN when ``poison_outputs``."""
        self.check_size(nbytes)
        nbytes = max(4, -(-nbytes // 4) * 4)
        if self.poison_outputs:
            return self.upload(np.full(nbytes // 4, np.nan, np.float32))
        return self.device.create_buffer(size=nbytes, usage=STORAGE)

    def zeros(self, nbytes: int) -> Any:
        """A new storage buffer of zeros (WebGPU zero-fills new buffers)."""
        self.check_size(nbytes)
        return self.device.create_buffer(size=max(4, -(-nbytes // 4) * 4), usage=STORAGE)

    def read(self, buffer: Any, nbytes: int | None = None) -> bytes:
        """A buffer's bytes, after all submitted work."""
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
        """Submit dispatches in order, with buffer copies ``(src, src_off, dst, dst_off, n)``."""
        if not dispatches and not copies_before and not copies_after:
            return
        stride = max(64, self.device.limits["min-uniform-buffer-offset-alignment"])
        block = bytearray(stride * max(1, len(dispatches)))
        for k, dispatch in enumerate(dispatches):
            fields = tuple(int(v) for v in dispatch.params)
            fields += (0,) * (PARAM_FIELDS - len(fields))
            struct.pack_into(f"<{PARAM_FIELDS}i", block, k * stride, *fields)
        uniforms = self.device.create_buffer_with_data(
            data=bytes(block), usage=wgpu.BufferUsage.UNIFORM)
        encoder = self.device.create_command_encoder()
        for copy in copies_before:
            encoder.copy_buffer_to_buffer(*copy)
        if dispatches:
            compute = encoder.begin_compute_pass(timestamp_writes=self._timestamp_writes())
            for k, dispatch in enumerate(dispatches):
                pipeline = self.pipeline(dispatch.pipeline)
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
        if dispatches and self._stamps is not None and self.timestamps:
            resolved = self.device.create_buffer(
                size=16, usage=wgpu.BufferUsage.QUERY_RESOLVE | wgpu.BufferUsage.COPY_SRC)
            encoder.resolve_query_set(self._query_set, 0, 2, resolved, 0)
            self._stamps.append(resolved)
        self.queue.submit([encoder.finish()])

    def _timestamp_writes(self) -> dict | None:
        if self._stamps is None or not self.timestamps:
            return None
        if self._query_set is None:
            self._query_set = self.device.create_query_set(type="timestamp", count=2)
        return {"query_set": self._query_set, "beginning_of_pass_write_index": 0,
                "end_of_pass_write_index": 1}
