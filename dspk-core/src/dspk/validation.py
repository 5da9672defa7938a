"""Argument checks shared by every operation, run once in the core for all runtimes.

Each check raises an error that names the parameter and the problem, so that
bad input never reaches a kernel.
"""

from __future__ import annotations

import functools
import math
import numbers
import operator
import os
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from scipy import fft as _scipy_fft
from scipy import signal as _scipy_signal

from dspk.arrays import to_numpy
from dspk.operations.base import bucket

FLOATS = (np.dtype("float32"), np.dtype("float64"))


def compute_dtype(x: Any, name: str = "x", allow_complex: bool = False,
                  requested: Any = None) -> np.dtype:
    """The dtype a signal is computed in: float32 and float64 stay, other reals go to float64.

    Complex signals are refused unless ``allow_complex``; then complex64 and
    complex128 stay and other complex dtypes are refused. Byte order does not
    count: ``'>f4'`` computes in float32. ``requested`` (an operation's
    ``dtype=``), float32 or float64, overrides the choice for real signals.

    Examples
    --------
    >>> compute_dtype(np.zeros(3, np.float32)), compute_dtype(np.zeros(3, np.int16))
    (dtype('float32'), dtype('float64'))
    >>> compute_dtype(np.zeros(3, np.int16), requested="float32")
    dtype('float32')
    >>> compute_dtype(np.zeros(3, np.complex64), allow_complex=True)
    dtype('complex64')
    """
    dtype = np.dtype(x.dtype).newbyteorder("=")
    if dtype in FLOATS or dtype.kind in "biu" or dtype == np.float16:
        if requested is not None:
            return _requested(requested)
        return dtype if dtype in FLOATS else np.dtype("float64")
    if dtype.kind == "c" and not allow_complex:
        raise TypeError(f"{name} has complex dtype {dtype}; dspk filters real signals")
    if dtype.kind == "c":
        if dtype not in (np.complex64, np.complex128):
            raise TypeError(f"{name} has dtype {dtype}; dspk computes complex64 or complex128")
        return dtype
    raise TypeError(f"{name} has dtype {dtype}, which is not a real number type")


def _requested(dtype: Any) -> np.dtype:
    """An operation's ``dtype=``: float32 or float64, else a ValueError naming it."""
    try:
        checked = np.dtype(dtype)
    except TypeError:
        checked = None
    if checked is None or checked not in FLOATS:  # (a dtype equals None: float64 does)
        raise ValueError(f"dtype={dtype!r} is not a precision dspk computes in; "
                         "pass float32 or float64 (or None: scipy's choice)")
    return checked


def signal_axis(x: Any, axis: Any, name: str = "x") -> int:
    """The time axis of a signal, made non-negative, once the signal and the axis are checked."""
    if x.ndim == 0:
        raise ValueError(f"{name} must have at least one dimension; got a scalar")
    index = check_axis(axis, x.ndim)
    if x.size == 0:
        raise ValueError(f"{name} is empty (shape {tuple(x.shape)}); there is nothing to filter")
    return index


def integer(value: Any, name: str, minimum: int | None = None) -> int:
    """``value`` as an int (integers only, no floats), at least ``minimum``.

    Examples
    --------
    >>> integer(3, "up", minimum=1)
    3
    >>> integer(0, "up", minimum=1)
    Traceback (most recent call last):
    ValueError: up must be an integer >= 1; got 0
    """
    try:
        number = operator.index(value)
    except TypeError:
        raise TypeError(f"{name} must be an integer; got {value!r}") from None
    if minimum is not None and number < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}; got {number}")
    return number


def real_number(value: Any, name: str) -> float:
    """``value`` as a float: a real number, not a bool.

    Examples
    --------
    >>> real_number(2, "cval")
    2.0
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number; got {value!r}")
    return float(value)


def check_axis(axis: Any, ndim: int, name: str = "axis") -> int:
    """``axis`` as a non-negative index into ``ndim`` dimensions."""
    index = integer(axis, name)
    if not -ndim <= index < ndim:
        raise ValueError(f"{name}={axis} is out of range for an array of {ndim} dimension(s)")
    return index % ndim


#: Outputs up to this size are not measured against the memory free: reading how
#: much is free costs more than refusing such an output could save.
UNMEASURED_OUTPUT_BYTES = 64 << 20


def free_memory() -> int | None:
    """Bytes this machine can still give: available memory and free swap.

    Linux's ``MemAvailable`` and ``SwapFree``; elsewhere the physical memory;
    None where neither is known.
    """
    try:
        with open("/proc/meminfo", "rb") as meminfo:
            fields = dict(line.split(b":", 1) for line in meminfo)
        return sum(int(fields[key].split()[0]) << 10 for key in (b"MemAvailable", b"SwapFree"))
    except (OSError, KeyError, ValueError):
        pass
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, OSError, ValueError):
        return None


def _bytes_text(n: int) -> str:
    return f"{n / 2**30:.3g} GiB" if n >= 2**30 else f"{n / 2**20:.3g} MiB"


def output_fits(name: str, x: Any, dtype: Any, shape: tuple[int, ...] | None = None) -> None:
    """Refuse, before any work, a host output larger than the memory free.

    Parameters
    ----------
    name : str
        The operation, named in the error.
    x : array
        The signal as the operation took it: a NumPy array has a host output;
        a runtime's array has a device output, which its runtime checks.
    dtype : data-type
        The output's dtype.
    shape : tuple of int, optional
        The output's shape; ``x``'s by default.

    Examples
    --------
    >>> output_fits("sosfilt", np.zeros((4, 100)), np.float64)
    >>> output_fits("sosfilt", np.broadcast_to(np.float32(1), (10**6, 10**9)), np.float32)
    Traceback (most recent call last):
    MemoryError: the output of sosfilt, shape (1000000, 1000000000) float32 (3.73e+06 GiB), ...
    """
    if not isinstance(x, np.ndarray):
        return
    shape = tuple(x.shape if shape is None else shape)
    dtype = np.dtype(dtype)
    size = math.prod(shape) * dtype.itemsize
    if size <= UNMEASURED_OUTPUT_BYTES:
        return
    free = free_memory()
    if free is not None and size > free:
        raise MemoryError(f"the output of {name}, shape {shape} {dtype} ({_bytes_text(size)}), "
                          f"is larger than the {_bytes_text(free)} of memory free here "
                          "(available memory and swap); process the signal in parts: "
                          "dspk.streaming, dspk.dask, or `dspk filter` for a recording on disk")


def with_length(shape: tuple[int, ...], axis: int, n: int) -> tuple[int, ...]:
    """``shape`` with ``n`` along ``axis``: an output's shape from its input's.

    Examples
    --------
    >>> with_length((3, 100), 1, 50)
    (3, 50)
    """
    return (*shape[:axis], n, *shape[axis + 1:])


def finite(values: np.ndarray, name: str) -> None:
    """Refuse NaN or infinity in filter coefficients."""
    if not np.all(np.isfinite(values)):
        raise ValueError(f"{name} has non-finite coefficients (NaN or infinity)")


def poles(denominators: np.ndarray) -> np.ndarray:
    """The poles of every denominator row (leading coefficient first), all in one array.

    Second-order rows (sections) take the quadratic formula in its stable form,
    other rows :func:`numpy.roots`; the result is kept for the last coefficient
    arrays seen, so that a filter applied again costs a lookup.

    Examples
    --------
    >>> np.abs(poles(np.array([[1.0, -1.0, 0.5], [1.0, -0.5, 0.0]]))).round(4)
    array([0.7071, 0.5   , 0.7071, 0.    ])
    """
    rows = _rows(denominators)
    return _poles(rows.tobytes(), rows.shape, rows.dtype)


def _rows(denominators: Any) -> np.ndarray:
    """Denominator rows in float64, or complex128 where they are complex."""
    rows = np.asarray(denominators)
    return rows.astype(np.complex128 if rows.dtype.kind == "c" else np.float64)


@functools.lru_cache(maxsize=64)
def _poles(data: bytes, shape: tuple[int, ...], dtype: np.dtype) -> np.ndarray:
    rows = np.frombuffer(data, dtype=dtype).reshape(shape)
    if rows.ndim == 2 and rows.shape[1] == 3:
        a0, a1, a2 = (rows[:, i].astype(np.complex128) for i in range(3))
        root = np.sqrt(a1 * a1 - 4 * a0 * a2)
        root = np.where((a1.conj() * root).real >= 0, root, -root)
        q = -(a1 + root) / 2  # the larger root times a0, without cancellation
        with np.errstate(divide="ignore", invalid="ignore"):
            found = np.concatenate([q / a0, np.where(q == 0, 0, a2 / q)])
    else:
        found = np.concatenate([np.roots(row) for row in rows] or [np.zeros(0)])
    found.flags.writeable = False
    return found


def stable(denominators: np.ndarray, name: str) -> None:
    """Refuse a denominator with a pole outside the unit circle.

    Parameters
    ----------
    denominators : ndarray
        One denominator polynomial per row, leading coefficient first.
    name : str
        The parameter named in the error.

    Examples
    --------
    >>> stable(np.array([[1.0, -2.5, 1.0]]), "a")
    Traceback (most recent call last):
    ValueError: a is unstable: a pole has magnitude 2 (>= 1 + 1e-09); the output would grow without
    bound
    """
    worst = np.abs(poles(denominators)).max(initial=0.0)
    if worst > 1 + 1e-9:
        raise ValueError(f"{name} is unstable: a pole has magnitude {worst:.3g} (>= 1 + 1e-09); "
                         "the output would grow without bound")


#: A filter with a pole this close to ``z = 1`` is run in float64 for float32
#: signals: float32 arithmetic would lose accuracy or stability there (a
#: cut-off below about 0.8 % of the sampling rate, 240 Hz at 30 kHz).
FLOAT32_POLE_DISTANCE = 0.05


def working_dtype(dtype: np.dtype, denominators: np.ndarray) -> np.dtype:
    """The dtype a filter runs in: float64 for float32 data (complex128 for complex64) when
    a pole is near ``z = 1``.

    Parameters
    ----------
    dtype : numpy.dtype
        The signal's computation dtype (:func:`compute_dtype`).
    denominators : ndarray
        One denominator polynomial per row, leading coefficient first.

    Examples
    --------
    >>> from scipy import signal
    >>> sos = signal.butter(2, 1.0, "highpass", fs=1000.0, output="sos")
    >>> working_dtype(np.dtype("float32"), sos[:, 3:])
    dtype('float64')
    """
    if dtype not in (np.float32, np.complex64):
        return dtype
    rows = _rows(denominators)
    near = _distance_to_one(rows.tobytes(), rows.shape, rows.dtype) < FLOAT32_POLE_DISTANCE
    return np.promote_types(dtype, np.float64) if near else dtype


@functools.lru_cache(maxsize=64)
def _distance_to_one(data: bytes, shape: tuple[int, ...], dtype: np.dtype) -> float:
    """The distance of the nearest pole to ``z = 1`` (infinity when there is none)."""
    return float(np.min(np.abs(1 - _poles(data, shape, dtype)), initial=np.inf))


def sos_array(sos: Any, complex_values: bool = False) -> np.ndarray:
    """Check second-order sections: shape (n_sections, 6), finite, stable, ``a0 == 1``, and
    real unless ``complex_values``.

    Returns them as a read-only array, kept for the last coefficient arrays
    checked, so that a filter applied again costs a lookup.

    Examples
    --------
    >>> sos_array([[1.0, 0.0, 0.0, 1.0, -0.5, 0.0]]).flags.writeable
    False
    """
    sos = np.atleast_2d(to_numpy(sos))
    if sos.ndim != 2 or sos.shape[1] != 6 or sos.shape[0] == 0:
        raise ValueError(f"sos must have shape (n_sections, 6); got {sos.shape}")
    _real_coefficients(sos, "sos", complex_values)
    return _checked_sections(np.ascontiguousarray(sos).tobytes(), sos.shape, sos.dtype)


@functools.lru_cache(maxsize=64)
def _checked_sections(data: bytes, shape: tuple[int, int], dtype: np.dtype) -> np.ndarray:
    sos = np.frombuffer(data, dtype=dtype).reshape(shape)
    finite(sos, "sos")
    if np.any(sos[:, 3] == 0):
        raise ValueError("sos has a zero leading denominator coefficient sos[:, 3]")
    if not np.all(sos[:, 3] == 1):
        raise ValueError("sos[:, 3] must be all ones (normalised sections), as in scipy.signal")
    stable(sos[:, 3:], "sos")
    return sos


def _real_coefficients(v: np.ndarray, name: str, complex_values: bool = False) -> None:
    """A TypeError naming ``name`` unless ``v`` holds real numbers (or complex ones, with
    ``complex_values``)."""
    if v.dtype.kind == "c" and not complex_values:
        raise TypeError(f"{name} has complex dtype {v.dtype}: this operation filters with "
                        "real coefficients (complex signals and states are taken)")
    if v.dtype.kind not in "biufc":
        raise TypeError(f"{name} must hold real numbers; got dtype {v.dtype}")


def ba_arrays(b: Any, a: Any, complex_values: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Check a transfer function, real unless ``complex_values``; return ``b``, ``a``
    normalised to ``a[0] == 1``, one length.

    The results are read-only, kept for the last coefficient arrays checked.

    Examples
    --------
    >>> ba_arrays([2.0], [2.0, -1.0])
    (array([1., 0.]), array([ 1. , -0.5]))
    """
    b, a = np.atleast_1d(to_numpy(b)), np.atleast_1d(to_numpy(a))
    for name, v in (("b", b), ("a", a)):
        if v.ndim != 1 or v.size == 0:
            raise ValueError(f"{name} must be a non-empty 1-D sequence; got shape {v.shape}")
        _real_coefficients(v, name, complex_values)
    return _checked_ba(b.tobytes(), b.dtype, a.tobytes(), a.dtype)


@functools.lru_cache(maxsize=64)
def _checked_ba(b_data: bytes, b_dtype: np.dtype, a_data: bytes,
                a_dtype: np.dtype) -> tuple[np.ndarray, np.ndarray]:
    b, a = np.frombuffer(b_data, dtype=b_dtype), np.frombuffer(a_data, dtype=a_dtype)
    for name, v in (("b", b), ("a", a)):
        finite(v, name)
    if a[0] == 0:
        raise ValueError("a[0], the leading denominator coefficient, must not be zero")
    stable(a[None, :], "a")
    size = max(a.size, b.size)
    pad = [np.pad(v / a[0], (0, size - v.size)) for v in (b, a)]
    for v in pad:
        v.flags.writeable = False
    return pad[0], pad[1]


def choice(value: Any, allowed: tuple, name: str) -> Any:
    """Check that ``value`` is one of ``allowed``."""
    if value not in allowed:
        raise ValueError(f"{name}={value!r} is not one of {', '.join(map(repr, allowed))}")
    return value


def sampling_rate(fs: Any) -> float:
    """``fs`` as a positive finite float.

    Examples
    --------
    >>> sampling_rate(30000)
    30000.0
    """
    try:
        rate = float(fs)
    except (TypeError, ValueError):
        raise TypeError(f"fs must be a number; got {fs!r}") from None
    if not (np.isfinite(rate) and rate > 0):
        raise ValueError(f"fs={fs!r} must be a positive finite sampling frequency")
    return rate


#: The trends :func:`dspk.detrend` removes, by the names it accepts.
TRENDS = {"constant": "constant", "c": "constant", "linear": "linear", "l": "linear"}
#: The scalings of averaged spectra: per hertz or per bin.
SCALINGS = ("density", "spectrum")


def detrend_kind(detrend: Any) -> str | Callable | None:
    """A segments' ``detrend``: ``"constant"``, ``"linear"``, None (False) or a callable."""
    if callable(detrend):
        return detrend
    if detrend is False or detrend is None:
        return None
    if isinstance(detrend, str) and detrend in TRENDS:
        return TRENDS[detrend]
    raise ValueError(f"detrend={detrend!r} is not 'constant', 'linear', False or a callable")


@functools.lru_cache(maxsize=64)
def _named_window(window: str | tuple, nperseg: int) -> np.ndarray:
    """:func:`scipy.signal.get_window`, kept (read-only): designing a window costs
    about 30 us, a tenth of a small welch call."""
    values = _scipy_signal.get_window(window, nperseg)
    values.flags.writeable = False
    return values


def window_values(window: Any, nperseg: Any = None, length: int | None = None) -> np.ndarray:
    """A window as float64 on the host: a name (or tuple) for ``scipy.signal.get_window``
    of ``nperseg`` samples, or its values.

    Parameters
    ----------
    window : str, tuple or array_like
        The window.
    nperseg : int, optional
        The segment length; for a named window, by default ``min(256, length)``.
        Values must have this length when it is given.
    length : int, optional
        The signal's length, which the window may not exceed; None for a
        stream, whose length is not known.

    Examples
    --------
    >>> window_values("hann", 4)  # periodic, as get_window gives it
    array([0. , 0.5, 1. , 0.5])
    """
    if nperseg is not None:
        nperseg = integer(nperseg, "nperseg", minimum=1)
    if isinstance(window, (str, tuple)):
        if nperseg is None:
            nperseg = min(256, length)
        elif length is not None and nperseg > length:
            raise ValueError(f"nperseg={nperseg} is larger than the signal, which has {length} "
                             "samples along axis (scipy would shrink it with a warning)")
        try:
            hash(window)
        except TypeError:  # a tuple that holds a list: designed afresh
            design = _scipy_signal.get_window
        else:
            design = _named_window
        try:
            return design(window, nperseg)
        except (ValueError, TypeError) as exc:
            raise ValueError(f"window={window!r} is not a window scipy.signal.get_window "
                             f"knows: {exc}") from None
    values = to_numpy(window)
    if values.ndim != 1 or values.size == 0:
        raise ValueError(f"window must be a string, a tuple or a non-empty 1-D array; "
                         f"got an array of shape {values.shape}")
    if values.dtype.kind not in "biuf":
        raise TypeError(f"window must hold real numbers; got dtype {values.dtype}")
    finite(values, "window")
    if nperseg is not None and nperseg != values.size:
        raise ValueError(f"nperseg={nperseg} differs from the window's length, {values.size}")
    if length is not None and values.size > length:
        raise ValueError(f"window has {values.size} samples, more than the signal's {length} "
                         "along axis")
    return values.astype(np.float64)


@dataclass(frozen=True)
class Segments:
    """How a signal is cut into segments and transformed (welch, csd, stft and the rest).

    Made by :meth:`check`; :class:`dspk.streaming.WelchStream` and
    :func:`dspk.dask.welch` cut their signals by the same object.

    Parameters
    ----------
    window : ndarray
        The window, float64; its length is the segment length.
    step : int
        Samples from one segment's start to the next: ``nperseg - noverlap``.
    nfft : int
        The FFT length.
    detrend : str, callable or None
        ``"constant"``, ``"linear"``, None or a callable (run on the host).
    sides : {"onesided", "twosided"}
        The spectrum's sides.

    Examples
    --------
    >>> s = Segments.check("hann", 256, None, None, "constant")
    >>> s.nperseg, s.noverlap, s.bins, s.count(1000)
    (256, 128, 129, 6)
    """

    window: np.ndarray
    step: int
    nfft: int
    detrend: str | Callable | None
    sides: str

    @classmethod
    def check(cls, window: Any, nperseg: Any, noverlap: Any, nfft: Any, detrend: Any,
              length: int | None = None, onesided: bool = True,
              overlap_fraction: int = 2) -> Segments:
        """Check the segment parameters as scipy's welch, csd and stft take them.

        ``noverlap`` defaults to ``nperseg // overlap_fraction``; ``length``
        is the signal's (None for a stream); a complex signal is two-sided
        whatever ``onesided`` says (:meth:`sides_of`).
        """
        values = window_values(window, nperseg, length)
        nperseg = values.size
        nfft = nperseg if nfft is None else integer(nfft, "nfft", minimum=1)
        if nfft < nperseg:
            raise ValueError(f"nfft={nfft} must be at least nperseg={nperseg}")
        noverlap = nperseg // overlap_fraction if noverlap is None else integer(noverlap,
                                                                                 "noverlap")
        if noverlap >= nperseg:
            raise ValueError(f"noverlap={noverlap} must be less than nperseg={nperseg}")
        return cls(values, nperseg - noverlap, nfft, detrend_kind(detrend),
                   "onesided" if onesided else "twosided")

    def sides_of(self, dtype: Any) -> Segments:
        """These segments for a signal of ``dtype``: a complex one has two sides."""
        return replace(self, sides="twosided") if np.dtype(dtype).kind == "c" else self

    @property
    def nperseg(self) -> int:
        return len(self.window)

    @property
    def noverlap(self) -> int:
        return self.nperseg - self.step

    @property
    def bins(self) -> int:
        """The spectrum's frequencies."""
        return self.nfft // 2 + 1 if self.sides == "onesided" else self.nfft

    def count(self, samples: int) -> int:
        """Segments in a signal of ``samples`` samples."""
        return (samples - self.nperseg) // self.step + 1

    def frequencies(self, fs: float) -> np.ndarray:
        """The spectrum's frequencies in hertz, float64."""
        if self.sides == "onesided":
            return _scipy_fft.rfftfreq(self.nfft, 1 / fs)
        return _scipy_fft.fftfreq(self.nfft, 1 / fs)

    def scale(self, fs: float, scaling: str) -> float:
        """The factor of squared magnitudes: per hertz (``"density"``) or per bin."""
        choice(scaling, SCALINGS, "scaling")
        total = (self.window ** 2).sum() * fs if scaling == "density" else self.window.sum() ** 2
        if total == 0:
            raise ValueError(f"window: a window that sums to zero has no {scaling} scaling")
        return 1 / total

    def doubling(self) -> np.ndarray:
        """2 for the frequencies a one-sided spectrum stands for twice, else 1."""
        factor = np.ones(self.bins)
        if self.sides == "onesided":
            factor[1:self.bins - (self.nfft % 2 == 0)] = 2
        return factor

    def params(self) -> dict[str, Any]:
        """Tuning parameters: FFT length and hop, bucketed, and sides."""
        return {"segment": bucket(self.nfft), "hop": bucket(self.step), "sides": self.sides}
