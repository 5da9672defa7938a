"""FFTs on the GPU: Stockham autosort passes, four-step for long rows, Bluestein for the rest.

The ``fft`` kernel runs in three steps, all dispatches of one command buffer:

1. a gather (``fft_gather``) copies every channel of the input view, cropped
   or zero-padded to ``n``, into a dense ``(rows, length)`` complex work array
   (``fft_real`` forms it for an inverse real FFT of even length);
2. a complex FFT of every row (below);
3. a scatter (``fft_scatter``, or ``fft_real`` after a real FFT of even
   length) writes the rows, normalised, to a new C-contiguous output in the
   input's orientation.

The complex FFT of length ``n`` whose only prime factors are 2, 3 and 5 uses
the Stockham formulation [1]_ [2]_ (``fft_stockham``), which needs no bit
reversal:

* ``n <= 1024``: one dispatch, each workgroup holding whole rows in workgroup
  memory (16 KiB: two halves, stage input and output in turn) through every
  radix-4/2/3/5 stage;
* longer ``n = n1 * n2`` (both at most 1024): the four-step algorithm [3]_, two such
  dispatches: ``n1`` FFTs of length ``n2`` over the strided columns, times the
  twiddles ``w_n^(i k)``, then ``n2`` FFTs of length ``n1``, written in place of
  the transposition;
* the ``"global"`` strategy instead runs one dispatch per radix stage over the
  whole array in storage buffers, one butterfly per invocation; the
  ``"workgroup"`` strategy falls back to it beyond ``1024 ** 2`` points.

Other lengths use Bluestein's chirp z-transform [4]_: with ``c_j = exp(-i pi j^2 / n)``,
``X_k = c_k sum_j (x_j c_j) conj(c_(k-j))``, a cyclic convolution of length
``m >= 2n - 1`` (the next 2^a 3^b 5^c) computed with two FFTs of length ``m``;
the chirp's own spectrum is computed once on the host.

A real FFT of even ``n`` packs sample pairs into a complex row of ``n / 2``,
transforms it and separates the halves in ``fft_real`` (an inverse real FFT
runs the same in reverse); odd ``n`` goes through the complex FFT.

Every shader runs in the data's precision: float32 and complex64, or float64
and complex128 where the device has ``shader-f64``. Twiddles, chirps and the
chirp spectrum are computed on the host in float64 (Vulkan has no float64 sine
or exponential) and uploaded in that precision once per length and device.

Other modules call :func:`transform` (the default variant, on device arrays),
or compose :func:`plan` with their own dispatches to keep intermediates on the
device: ``plan`` turns one transform between two :class:`View` s into dispatches.

References
----------
.. [1] W. T. Cochran, J. W. Cooley, D. L. Favin, H. D. Helms, R. A. Kaenel,
   W. W. Lang, G. C. Maling, D. E. Nelson, C. M. Rader and P. D. Welch,
   "What is the fast Fourier transform?", Proceedings of the IEEE, vol. 55,
   no. 10, 1967 (Stockham's autosort form).
.. [2] C. Van Loan, "Computational Frameworks for the Fast Fourier
   Transform", SIAM, 1992.
.. [3] D. H. Bailey, "FFTs in external or hierarchical memory", The Journal
   of Supercomputing, vol. 4, no. 1, 1990.
.. [4] L. I. Bluestein, "A linear filtering approach to the computation of
   discrete Fourier transform", IEEE Transactions on Audio and
   Electroacoustics, vol. 18, no. 4, 1970.
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass
from typing import Any

import numpy as np

from dspk.plugin import Variant, source_hash
from dspk_wgpu import layout
from dspk_wgpu.arrays import WgpuArray
from dspk_wgpu.gpu import (
    FFT_POINTS,
    REAL_BYTES,
    Dispatch,
    Gpu,
    real_dtype,
    real_words,
    shader_source,
)

#: Invocations per workgroup of every FFT shader.
WORKGROUP = 256

#: Complex points one workgroup holds in workgroup memory (twice: 16 KiB in all in
#: float32, 32 KiB in float64), and takes at a time when rows are shorter (several
#: rows per workgroup). A device with less workgroup memory gets fewer
#: (:meth:`dspk_wgpu.gpu.Gpu.local_points`).
LOCAL_POINTS = FFT_POINTS

#: Strategies of the complex FFT (see the module docstring).
STRATEGIES = ("workgroup", "global")


@dataclass(frozen=True)
class View:
    """Rows of a storage buffer as an FFT reads or writes them.

    Parameters
    ----------
    buffer : GPUBuffer
        The storage buffer.
    offset, row_stride, step : int
        Element index of row 0's first sample, and element strides between
        rows and between samples (complex elements for complex data).
    length : int
        Samples per row: those there to read, or those to write.
    is_complex : bool
        Whether the elements are complex (else real).
    real : str
        The precision of the elements' parts: ``"f32"`` or ``"f64"``.
    shift : int
        Reading: zeros before the first sample. Writing: row positions of the
        result skipped before the first written sample.
    """

    buffer: Any
    offset: int
    row_stride: int
    step: int
    length: int
    is_complex: bool
    real: str
    shift: int = 0

    @classmethod
    def of(cls, a: WgpuArray, axis: int) -> View:
        """The view of a 2-D device array with time along ``axis``."""
        offset, row_stride, step = layout.addressing(a, axis)
        return cls(a.buffer, offset, row_stride, step, a.shape[axis], a.dtype.kind == "c",
                   layout.precision_of(a))

    @classmethod
    def dense(cls, buffer: Any, real: str, rows_length: int,
              length: int | None = None) -> View:
        """Complex rows of ``rows_length`` elements of precision ``real``, back to back,
        ``length`` of them used."""
        return cls(buffer, 0, rows_length, 1,
                   rows_length if length is None else length, True, real)


def grid(invocations: int) -> tuple[int, int, int]:
    """A 2-D grid of workgroups of :data:`WORKGROUP` for ``invocations`` (x at most 65535).

    The shaders number their invocations ``id.x + id.y * groups.x * WORKGROUP``.

    Examples
    --------
    >>> grid(100), grid(256 * 70000)
    ((1, 1, 1), (65535, 2, 1))
    """
    groups = max(1, math.ceil(invocations / WORKGROUP))
    wide = min(groups, 65535)
    return wide, math.ceil(groups / wide), 1


def scale_of(kind: str, n: int, norm: str) -> float:
    """The normalisation factor of a transform of ``n`` points.

    Examples
    --------
    >>> scale_of("irfft", 8, "backward"), scale_of("fft", 4, "ortho")
    (0.125, 0.5)
    """
    inverse = kind in ("irfft", "ifft")
    if norm == "ortho":
        return 1 / math.sqrt(n)
    return 1 / n if (norm == "forward") != inverse else 1.0


def is_smooth(n: int) -> bool:
    """Whether ``n``'s only prime factors are 2, 3 and 5.

    Examples
    --------
    >>> is_smooth(3 * 2 ** 14), is_smooth(7)
    (True, False)
    """
    for prime in (2, 3, 5):
        while n % prime == 0:
            n //= prime
    return n == 1


def next_smooth(n: int) -> int:
    """The least 2^a 3^b 5^c at or above ``n``.

    Examples
    --------
    >>> next_smooth(2 * 257 - 1), next_smooth(1)
    (540, 1)
    """
    while not is_smooth(n):
        n += 1
    return n


def radices(n: int) -> list[int]:
    """The Stockham stages' radices, as the shader chooses them: 4, then 2, 3, 5.

    Examples
    --------
    >>> radices(96)
    [4, 4, 2, 3]
    """
    stages, remaining = [], n
    while remaining > 1:
        radix = next(r for r in (4, 2, 3, 5) if remaining % r == 0)
        stages.append(radix)
        remaining //= radix
    return stages


def four_step_split(n: int, points: int = LOCAL_POINTS) -> tuple[int, int]:
    """``(n1, n2)`` with ``n = n1 * n2``, both at most ``points``, ``n2`` largest.

    Examples
    --------
    >>> four_step_split(65536), four_step_split(65536, 512)
    ((64, 1024), (128, 512))
    """
    for n2 in range(points, 0, -1):
        if n % n2 == 0 and n // n2 <= points:
            return n // n2, n2
    raise ValueError(f"{n} points are too many for two workgroup-memory passes")


# -- host tables, once per device and length -------------------------------------------------

#: Tables kept on the device at most; the least recently used goes first.
KEPT_TABLES = 64

_UPLOADED: dict[tuple, tuple[Gpu, Any]] = {}


def _once(gpu: Gpu, key: tuple, make) -> Any:
    """The buffer of ``make()`` uploaded to ``gpu``, made on the first call per key."""
    key = (id(gpu), *key)
    entry = _UPLOADED.pop(key, None)
    if entry is None or entry[0] is not gpu:
        entry = (gpu, gpu.upload(make()))
    _UPLOADED[key] = entry
    while len(_UPLOADED) > KEPT_TABLES:
        del _UPLOADED[next(iter(_UPLOADED))]
    return entry[1]


def _twiddles(gpu: Gpu, length: int, real: str) -> Any:
    """``exp(-2 pi i t / length)`` for ``t < length``, in precision ``real``, on the device."""
    turns = np.arange(length, dtype=np.float64) / length
    return _once(gpu, ("twiddles", length, real),
                 lambda: np.exp(-2j * np.pi * turns).astype(real_dtype(real, True)))


def _chirp_host(n: int, inverse: bool) -> np.ndarray:
    """``exp(-+i pi j^2 / n)`` for ``j < n``, float64, exact in its argument (``j^2 mod 2n``)."""
    j = np.arange(n, dtype=np.int64)
    angle = np.pi * ((j * j) % (2 * n)) / n
    return np.exp((1j if inverse else -1j) * angle)


def _chirp(gpu: Gpu, n: int, inverse: bool, real: str) -> Any:
    return _once(gpu, ("chirp", n, inverse, real),
                 lambda: _chirp_host(n, inverse).astype(real_dtype(real, True)))


def _chirp_spectrum_host(n: int, m: int, inverse: bool) -> np.ndarray:
    """The ``m``-point FFT of the wrapped conjugate chirp, divided by ``m``."""
    kernel = np.zeros(m, np.complex128)
    conjugate = np.conj(_chirp_host(n, inverse))
    kernel[:n] = conjugate
    kernel[m - n + 1:] = conjugate[1:][::-1]
    return np.fft.fft(kernel) / m


def _chirp_spectrum(gpu: Gpu, n: int, m: int, inverse: bool, real: str) -> Any:
    return _once(gpu, ("chirp spectrum", n, m, inverse, real),
                 lambda: _chirp_spectrum_host(n, m, inverse).astype(real_dtype(real, True)))


# -- the complex FFT of dense rows -------------------------------------------------------------

@dataclass(frozen=True)
class _Table:
    """A twiddle table of ``length`` entries (a multiple of every transform length it
    serves), in precision ``real``."""

    buffer: Any
    length: int
    real: str

    @classmethod
    def of(cls, gpu: Gpu, length: int, real: str) -> _Table:
        return cls(_twiddles(gpu, length, real), length, real)


def _stockham(table, n, inverse, src, dst, transforms, per_group, inner_count=1,
              load=(0, 0, 0), store=(0, 0, 0), out_twiddle=0, order=0):
    """A workgroup-memory Stockham dispatch (mode 0 of ``fft_stockham``)."""
    params = (n, table.length // n, transforms, per_group, inner_count, *load, *store,
              int(inverse), out_twiddle, order, 0, 0)
    groups = math.ceil(transforms / per_group)
    return Dispatch("fft_stockham", table.real, params, (table.buffer, src, dst),
                    grid(groups * WORKGROUP))


def _smooth_passes(gpu, strategy, rows, n, inverse, data, table):
    """Dispatches of the FFT of dense rows of 2,3,5-smooth length ``n``, and the result buffer."""
    real = table.real
    points = gpu.local_points(real)
    spare = gpu.zeros(rows * n * 2 * REAL_BYTES[real])
    if strategy == "global" or n > points ** 2:
        dispatches, span = [], 1
        for radix in radices(n):
            params = (n, table.length // n, rows, 0, 0, 0, 0, 0, 0, 0, 0, int(inverse),
                      0, 0, 1, span)
            dispatches.append(Dispatch("fft_stockham", real, params,
                                       (table.buffer, data, spare), grid(rows * n // radix)))
            data, spare, span = spare, data, span * radix
        return dispatches, data
    if n <= points:
        per_group = max(1, points // n)
        return [_stockham(table, n, inverse, data, spare, rows, per_group,
                          load=(n, 0, 1), store=(n, 0, 1))], spare
    n1, n2 = four_step_split(n, points)
    # Columns n1 of the (n2, n1) matrix: n2-point FFTs, twiddled, stored as rows.
    first = _stockham(table, n2, inverse, data, spare, rows * n1, max(1, points // n2),
                      inner_count=n1, load=(n, 1, n1), store=(n, n2, 1),
                      out_twiddle=table.length // n, order=1)
    # Columns k2 of the (n1, n2) result: n1-point FFTs, written transposed.
    second = _stockham(table, n1, inverse, spare, data, rows * n2, max(1, points // n1),
                       inner_count=n2, load=(n, 1, n2), store=(n, 1, n2), order=3)
    return [first, second], data


def _pointwise(real, table, src, dst, rows, length, in_len, in_rs):
    return Dispatch("fft_pointwise", real, (rows, length, in_len, in_rs), (table, src, dst),
                    grid(rows * length))


def complex_passes(gpu: Gpu, real: str, strategy: str, rows: int, n: int, inverse: bool,
                   data: Any, table: _Table | None = None) -> tuple[list[Dispatch], Any]:
    """Dispatches of the unnormalised FFT of ``rows`` dense complex rows of ``n`` points.

    Parameters
    ----------
    gpu : Gpu
        The device.
    real : str
        The precision: ``"f32"`` or ``"f64"``.
    strategy : str
        One of :data:`STRATEGIES`.
    rows, n : int
        Rows and points per row of ``data``.
    inverse : bool
        The sign of the exponent: ``exp(+2 pi i jk / n)`` when True.
    data : GPUBuffer
        The rows, back to back; the passes may overwrite it.
    table : _Table, optional
        A twiddle table of precision ``real`` whose length is a multiple of ``n``
        (default: ``n``).

    Returns
    -------
    dispatches : list of Dispatch
    result : GPUBuffer
        The buffer that holds the transformed rows, back to back, afterwards.
    """
    if is_smooth(n):
        table = table or _Table.of(gpu, n, real)
        return _smooth_passes(gpu, strategy, rows, n, inverse, data, table)
    m = next_smooth(2 * n - 1)
    point = 2 * REAL_BYTES[real]
    chirp = _chirp(gpu, n, inverse, real)
    padded = gpu.zeros(rows * m * point)
    dispatches = [_pointwise(real, chirp, data, padded, rows, m, n, n)]
    forward, spectrum = complex_passes(gpu, real, strategy, rows, m, False, padded)
    product = gpu.zeros(rows * m * point)
    dispatches += forward
    dispatches.append(_pointwise(real, _chirp_spectrum(gpu, n, m, inverse, real), spectrum,
                                 product, rows, m, m, m))
    backward, convolved = complex_passes(gpu, real, strategy, rows, m, True, product)
    dispatches += backward
    result = gpu.zeros(rows * n * point)
    dispatches.append(_pointwise(real, chirp, convolved, result, rows, n, n, m))
    return dispatches, result


# -- one transform between views -----------------------------------------------------------------

def _gather(gpu, mode, rows, length, src: View):
    work = gpu.zeros(rows * length * 2 * REAL_BYTES[src.real])
    params = (mode, int(src.is_complex), rows, length, src.offset, src.row_stride, src.step,
              src.length, src.shift)
    return (Dispatch("fft_gather", src.real, params, (src.buffer, work), grid(rows * length)),
            work)


def _scatter(mode, rows, work, work_rs, dst: View, scale):
    params = (mode, rows, dst.length, work_rs, dst.shift, dst.offset, dst.row_stride, dst.step,
              *real_words(scale, dst.real))
    return Dispatch("fft_scatter", dst.real, params, (work, dst.buffer),
                    grid(rows * dst.length))


def _real(mode, table: _Table, rows, half, src: View, dst: View, scale=1.0):
    high, mid, low = real_words(scale, table.real)
    params = (mode, rows, half, high, src.offset, src.row_stride, src.step,
              src.length, dst.offset, dst.row_stride, dst.step, mid, low)
    width = half + 1 if mode == 0 else half
    return Dispatch("fft_real", table.real, params, (table.buffer, src.buffer, dst.buffer),
                    grid(rows * width))


def plan(gpu: Gpu, strategy: str, kind: str, n: int, norm: str, rows: int,
         src: View, dst: View) -> list[Dispatch]:
    """Dispatches of one transform of every row of ``src`` into ``dst``.

    Parameters
    ----------
    gpu : Gpu
        The device.
    strategy : str
        One of :data:`STRATEGIES`.
    kind, n, norm : str, int, str
        As the ``fft`` kernel's arguments.
    rows : int
        Rows (channels) of both views.
    src : View
        The input, cropped or zero-padded to ``n`` (after ``src.shift`` zeros).
    dst : View
        The output: ``dst.length`` samples per row from position ``dst.shift``
        of the result (all of it: ``n // 2 + 1`` for rfft, which allows no shift).
        Of ``src``'s precision, which the transform computes in.

    Returns
    -------
    list of Dispatch
    """
    real = src.real
    if dst.real != real:
        raise TypeError(f"an FFT from {src.real} into {dst.real} data; both views share one "
                        "precision")
    scale = scale_of(kind, n, norm)
    inverse = kind in ("irfft", "ifft")
    if kind in ("fft", "ifft") or n % 2:
        length = n
        mode = 2 if kind == "irfft" else 0
        gather, work = _gather(gpu, mode, rows, n, src)
        passes, result = complex_passes(gpu, real, strategy, rows, n, inverse, work)
        output = 1 if kind == "irfft" else 0
        return [gather, *passes, _scatter(output, rows, result, length, dst, scale)]
    half = n // 2
    table = _Table.of(gpu, n, real)
    if kind == "rfft":
        gather, work = _gather(gpu, 1, rows, half, src)
        passes, result = complex_passes(gpu, real, strategy, rows, half, False, work, table)
        return [gather, *passes,
                _real(0, table, rows, half, View.dense(result, real, half), dst, scale)]
    work = gpu.zeros(rows * half * 2 * REAL_BYTES[real])
    pre = _real(1, table, rows, half, src, View.dense(work, real, half))
    passes, result = complex_passes(gpu, real, strategy, rows, half, True, work, table)
    return [pre, *passes, _scatter(2, rows, result, half, dst, scale)]


def output_length(kind: str, n: int) -> int:
    """Samples per row of a transform's result."""
    return n // 2 + 1 if kind == "rfft" else n


def _transform(strategy, x, axis, n, kind, norm):
    rows = x.shape[1 - axis]
    y = layout.output_like(x, axis, output_length(kind, n),
                           real_dtype(layout.precision_of(x), kind != "irfft"))
    x.gpu.run(plan(x.gpu, strategy, kind, n, norm, rows, View.of(x, axis), View.of(y, axis)))
    return y


def transform(x: WgpuArray, axis: int, n: int, kind: str, norm: str = "backward") -> WgpuArray:
    """The fft kernel with the default strategy: ``kind`` of ``n`` points along ``axis``.

    Parameters
    ----------
    x : WgpuArray
        2-D, any strides; float32 or float64 (rfft, fft, ifft), complex64 or
        complex128 (irfft, fft, ifft). The transform computes in its precision.
    axis : int
        The time axis, 0 or 1.
    n : int
        Points of the transform; ``x`` is cropped or zero-padded to it.
    kind : str
        "rfft", "irfft", "fft" or "ifft".
    norm : str
        "backward", "ortho" or "forward", as scipy.fft.

    Returns
    -------
    WgpuArray
        New, C-contiguous, ``x``'s orientation and precision: complex with
        ``n // 2 + 1`` (rfft) or ``n`` samples along ``axis``; real with ``n``
        for irfft.
    """
    return _transform("workgroup", x, axis, n, kind, norm)


def transform_global_passes(x: WgpuArray, axis: int, n: int, kind: str,
                            norm: str = "backward") -> WgpuArray:
    """The fft kernel as :func:`transform`, one storage-buffer dispatch per radix stage."""
    return _transform("global", x, axis, n, kind, norm)


SOURCE = source_hash(sys.modules[__name__], *(shader_source(name) for name in (
    "fft_stockham", "fft_gather", "fft_scatter", "fft_real", "fft_pointwise")))

VARIANTS = {"fft": [
    Variant("wgsl-stockham-workgroup", transform, SOURCE),
    Variant("wgsl-stockham-global", transform_global_passes, SOURCE),
]}
