"""The filters people apply every day: band-pass, high-pass, low-pass and notch.

scipy.signal has no such one-call functions; these design second-order
sections on the host with scipy.signal and filter on a dspk runtime with
:func:`dspk.sosfiltfilt` (zero phase, the default) or :func:`dspk.sosfilt`
(causal). A :class:`Filter` keeps a design, to apply it again and again
without designing it again; the functions are thin wrappers around it.

Defaults, chosen for electrophysiology:

- A Butterworth filter of order 4 (maximally flat passband, no ripple), run
  forward and backward: no phase shift, so spike shapes and the phase of
  oscillations are kept. Forward-backward filtering doubles the order and
  squares the gain: the attenuation at a cut-off is about 6 dB instead of 3.
- Band edges are in the units of ``fs`` (Hz when ``fs`` is in Hz). As in
  scipy, a band-pass of ``order`` N has order 2N.
- Chebyshev type I and elliptic filters allow ``rp = 0.1`` dB of passband
  ripple; Chebyshev type II and elliptic filters attenuate the stopband by
  ``rs = 60`` dB. For Chebyshev type II the frequencies are the stopband
  edges, as in scipy. Bessel filters are normalised so that the gain is
  -3 dB at the cut-off (``norm="mag"``).
- A notch of quality factor ``Q = 30`` (a 50 Hz notch is 1.7 Hz wide).
- float32 signals stay float32; designs with a pole near ``z = 1`` run in
  float64 inside, as every dspk IIR filter does
  (:data:`dspk.validation.FLOAT32_POLE_DISTANCE`).
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import signal as _scipy

from dspk import validation
from dspk.docstrings import shared
from dspk.filtering import sosfilt, sosfiltfilt

__all__ = ["Filter", "bandpass", "highpass", "lowpass", "notch"]

#: The filter families: ``ftype`` of :func:`scipy.signal.iirfilter`.
FTYPES = ("butter", "cheby1", "cheby2", "ellip", "bessel")

#: Default passband ripple (dB) of the families that have one.
RIPPLE_DB = 0.1

#: Default stopband attenuation (dB) of the families that have one.
ATTENUATION_DB = 60.0

_RIPPLE_FAMILIES = ("cheby1", "ellip")
_ATTENUATION_FAMILIES = ("cheby2", "ellip")


def _positive(value: Any, name: str) -> float:
    if not isinstance(value, numbers.Real) or isinstance(value, bool):
        raise TypeError(f"{name} must be a real number; got {value!r}")
    if not np.isfinite(value) or value <= 0:
        raise ValueError(f"{name} must be a finite number > 0; got {value!r}")
    return float(value)


def _frequency(value: Any, name: str, fs: float) -> float:
    """A frequency strictly between 0 and Nyquist."""
    if not isinstance(value, numbers.Real) or isinstance(value, bool):
        raise TypeError(f"{name} must be a real number; got {value!r}")
    if not 0 < value < fs / 2:
        raise ValueError(f"{name}={value!r} must lie strictly between 0 and the Nyquist "
                         f"frequency fs/2 = {fs / 2:g}")
    return float(value)


def _ripple(given: Any, name: str, ftype: str, families: tuple[str, ...],
            default: float) -> float | None:
    """``rp`` or ``rs``: its default where the family needs it, refused where it has no effect."""
    if ftype in families:
        return default if given is None else _positive(given, name)
    if given is not None:
        raise ValueError(f"{name}={given!r} has no effect with ftype={ftype!r}; "
                         f"it applies to {' and '.join(families)}")
    return None


def _design(band: float | list[float], btype: str, fs: float, order: Any, ftype: Any,
            rp: Any, rs: Any) -> np.ndarray:
    validation.choice(ftype, FTYPES, "ftype")
    rp = _ripple(rp, "rp", ftype, _RIPPLE_FAMILIES, RIPPLE_DB)
    rs = _ripple(rs, "rs", ftype, _ATTENUATION_FAMILIES, ATTENUATION_DB)
    return _scipy.iirfilter(validation.integer(order, "order", minimum=1), band, rp=rp, rs=rs,
                            btype=btype,
                            ftype="bessel_mag" if ftype == "bessel" else ftype,
                            output="sos", fs=fs)


@dataclass(frozen=True, eq=False)
class Filter:
    """A designed IIR filter, to apply to any number of signals.

    Parameters
    ----------
    sos : array_like
        Second-order sections, shape ``(n_sections, 6)``; kept as a
        read-only float64 array.
    fs : float
        The sampling frequency the filter was designed for.
    zero_phase : bool, optional
        Filter forward and backward (:func:`dspk.sosfiltfilt`, the default)
        or forward only (:func:`dspk.sosfilt`, causal).

    Examples
    --------
    >>> import numpy as np, dspk
    >>> from dspk.designs import Filter
    >>> spikes = Filter.bandpass(300, 6000, fs=30000)
    >>> x = np.random.default_rng(0).standard_normal((384, 3000)).astype(np.float32)
    >>> y = spikes(x)
    >>> y.shape, y.dtype, spikes.sos.shape
    ((384, 3000), dtype('float32'), (4, 6))
    """

    sos: np.ndarray
    fs: float
    zero_phase: bool = True

    def __post_init__(self):
        sos = np.array(validation.sos_array(self.sos), dtype=np.float64)
        sos.setflags(write=False)
        object.__setattr__(self, "sos", sos)
        object.__setattr__(self, "fs", _positive(self.fs, "fs"))
        object.__setattr__(self, "zero_phase", bool(self.zero_phase))

    @classmethod
    @shared
    def bandpass(cls, low, high, fs, order=4, ftype="butter", zero_phase=True, *, rp=None,
                 rs=None) -> Filter:
        """A band-pass filter passing ``low`` to ``high`` (in the units of ``fs``).

        ``order`` is that of the low-pass prototype: the filter has order
        ``2 * order``. ``rp`` (dB of passband ripple) applies to 'cheby1' and
        'ellip', ``rs`` (dB of stopband attenuation) to 'cheby2' and 'ellip'.

        Parameters
        ----------
        low, high : float
            The band edges, in the units of ``fs``, ``0 < low < high < fs / 2``.
        {design_fs}
        order : int, optional
            The order of the low-pass prototype (the band-pass has twice it).
            Default 4.
        {design_ftype}
        zero_phase : bool, optional
            Apply forward and backward (default) or forward only.
        {design_ripples}
        """
        fs = _positive(fs, "fs")
        low, high = _frequency(low, "low", fs), _frequency(high, "high", fs)
        if low >= high:
            raise ValueError(f"low={low:g} must be below high={high:g}")
        return cls(_design([low, high], "bandpass", fs, order, ftype, rp, rs), fs, zero_phase)

    @classmethod
    @shared
    def highpass(cls, cutoff, fs, order=4, ftype="butter", zero_phase=True, *, rp=None,
                 rs=None) -> Filter:
        """A high-pass filter with its cut-off at ``cutoff`` (in the units of ``fs``).

        Parameters
        ----------
        cutoff : float
            The cut-off frequency, ``0 < cutoff < fs / 2``.
        {design_fs}
        order : int, optional
            The filter's order. Default 4.
        {design_ftype}
        zero_phase : bool, optional
            Apply forward and backward (default) or forward only.
        {design_ripples}
        """
        fs = _positive(fs, "fs")
        cutoff = _frequency(cutoff, "cutoff", fs)
        return cls(_design(cutoff, "highpass", fs, order, ftype, rp, rs), fs, zero_phase)

    @classmethod
    @shared
    def lowpass(cls, cutoff, fs, order=4, ftype="butter", zero_phase=True, *, rp=None,
                rs=None) -> Filter:
        """A low-pass filter with its cut-off at ``cutoff`` (in the units of ``fs``).

        Parameters
        ----------
        cutoff : float
            The cut-off frequency, ``0 < cutoff < fs / 2``.
        {design_fs}
        order : int, optional
            The filter's order. Default 4.
        {design_ftype}
        zero_phase : bool, optional
            Apply forward and backward (default) or forward only.
        {design_ripples}
        """
        fs = _positive(fs, "fs")
        cutoff = _frequency(cutoff, "cutoff", fs)
        return cls(_design(cutoff, "lowpass", fs, order, ftype, rp, rs), fs, zero_phase)

    @classmethod
    @shared
    def notch(cls, freq, fs, Q=30.0, zero_phase=True) -> Filter:  # noqa: N803 (scipy's name)
        """A second-order notch (:func:`scipy.signal.iirnotch`) at ``freq``, ``freq / Q`` wide.

        Parameters
        ----------
        freq : float
            The frequency to remove, ``0 < freq < fs / 2``.
        {design_fs}
        Q : float, optional
            Quality factor: the notch is ``freq / Q`` wide at -3 dB. Default 30.
        zero_phase : bool, optional
            Apply forward and backward (default) or forward only.
        """
        fs = _positive(fs, "fs")
        freq = _frequency(freq, "freq", fs)
        b, a = _scipy.iirnotch(freq, _positive(Q, "Q"), fs=fs)
        return cls(_scipy.tf2sos(b, a), fs, zero_phase)

    def apply(self, x, axis=-1, *, runtime=None):
        """Filter ``x`` along ``axis`` on a dspk runtime; the result has ``x``'s shape.

        float32 signals give float32 results; integer signals are filtered
        in float64.

        Parameters
        ----------
        x : array_like
            The signal.
        axis : int, optional
            The time axis. Default -1.
        runtime : str, optional
            The runtime to run on (see :mod:`dspk.runtime`).

        Returns
        -------
        ndarray
            The filtered signal, of ``x``'s shape.
        """
        run = sosfiltfilt if self.zero_phase else sosfilt
        return run(self.sos, x, axis=axis, runtime=runtime)

    __call__ = apply


@shared
def bandpass(x, low, high, fs, order=4, ftype="butter", zero_phase=True, axis=-1, *, rp=None,
             rs=None, runtime=None):
    """Band-pass filter ``x`` between ``low`` and ``high``.

    Designs with :meth:`Filter.bandpass` (see the module's defaults) and
    filters with :func:`dspk.sosfiltfilt`, or :func:`dspk.sosfilt` when
    ``zero_phase`` is False.

    Parameters
    ----------
    x : array_like
        The signal.
    low, high : float
        The band edges, in the units of ``fs``, ``0 < low < high < fs / 2``.
    {design_fs}
    order : int, optional
        The order of the low-pass prototype (the band-pass has twice it). Default 4.
    {design_ftype}
    {design_zero_phase_axis}
    {design_ripples}
    {runtime}

    Returns
    -------
    {design_filtered}

    Examples
    --------
    >>> import numpy as np, scipy.signal, dspk
    >>> from dspk.designs import bandpass
    >>> x = np.random.default_rng(0).standard_normal((4, 3000))
    >>> sos = scipy.signal.butter(4, [300, 6000], "bandpass", fs=30000, output="sos")
    >>> bool(np.allclose(bandpass(x, 300, 6000, fs=30000), scipy.signal.sosfiltfilt(sos, x)))
    True
    """
    return Filter.bandpass(low, high, fs, order, ftype, zero_phase, rp=rp, rs=rs)(
        x, axis, runtime=runtime)


@shared
def highpass(x, cutoff, fs, order=4, ftype="butter", zero_phase=True, axis=-1, *, rp=None,
             rs=None, runtime=None):
    """High-pass filter ``x`` above ``cutoff``.

    Designs with :meth:`Filter.highpass` and filters as :func:`bandpass`.

    Parameters
    ----------
    x : array_like
        The signal.
    cutoff : float
        The cut-off frequency, in the units of ``fs``, ``0 < cutoff < fs / 2``.
    {design_fs}
    order : int, optional
        The filter's order. Default 4.
    {design_ftype}
    {design_zero_phase_axis}
    {design_ripples}
    {runtime}

    Returns
    -------
    {design_filtered}

    Examples
    --------
    >>> import numpy as np, scipy.signal
    >>> from dspk.designs import highpass
    >>> x = np.random.default_rng(0).standard_normal(3000)
    >>> sos = scipy.signal.cheby1(4, 0.1, 300, "highpass", fs=30000, output="sos")
    >>> y = highpass(x, 300, fs=30000, ftype="cheby1", zero_phase=False)
    >>> bool(np.allclose(y, scipy.signal.sosfilt(sos, x)))
    True
    """
    return Filter.highpass(cutoff, fs, order, ftype, zero_phase, rp=rp, rs=rs)(
        x, axis, runtime=runtime)


@shared
def lowpass(x, cutoff, fs, order=4, ftype="butter", zero_phase=True, axis=-1, *, rp=None,
            rs=None, runtime=None):
    """Low-pass filter ``x`` below ``cutoff``.

    Designs with :meth:`Filter.lowpass` and filters as :func:`bandpass`.

    Parameters
    ----------
    x : array_like
        The signal.
    cutoff : float
        The cut-off frequency, in the units of ``fs``, ``0 < cutoff < fs / 2``.
    {design_fs}
    order : int, optional
        The filter's order. Default 4.
    {design_ftype}
    {design_zero_phase_axis}
    {design_ripples}
    {runtime}

    Returns
    -------
    {design_filtered}

    Examples
    --------
    >>> import numpy as np
    >>> from dspk.designs import lowpass
    >>> lfp = lowpass(np.random.default_rng(0).standard_normal((2, 3000)), 300, fs=30000)
    >>> lfp.shape
    (2, 3000)
    """
    return Filter.lowpass(cutoff, fs, order, ftype, zero_phase, rp=rp, rs=rs)(
        x, axis, runtime=runtime)


@shared
def notch(x, freq, fs, Q=30.0, zero_phase=True, axis=-1, *, runtime=None):  # noqa: N803
    """Remove a narrow band around ``freq`` (mains hum) from ``x``.

    Designs with :func:`scipy.signal.iirnotch` (:meth:`Filter.notch`) and
    filters as :func:`bandpass`.

    Parameters
    ----------
    x : array_like
        The signal.
    freq : float
        The frequency to remove, ``0 < freq < fs / 2``.
    {design_fs}
    Q : float, optional
        Quality factor: the notch is ``freq / Q`` wide at -3 dB. Default 30.
    {design_zero_phase_axis}
    {runtime}

    Returns
    -------
    y : ndarray
        The filtered signal, of ``x``'s shape.

    Examples
    --------
    >>> import numpy as np
    >>> from dspk.designs import notch
    >>> hum = np.sin(2 * np.pi * 50 * np.arange(4000) / 1000)  # 4 s at 1 kHz
    >>> bool(np.abs(notch(hum, 50, fs=1000)[1500:-1500]).max() < 0.01)
    True
    """
    return Filter.notch(freq, fs, Q, zero_phase)(x, axis, runtime=runtime)
