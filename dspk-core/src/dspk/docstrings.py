"""Parameter descriptions that several docstrings share, written once.

A docstring names a shared description by a line of its own holding
``{name}``, indented as the description's first line should be;
:func:`shared`, applied to a function or class when its module is imported,
replaces each such line with :data:`PARAMETERS` ``[name]``, indented alike.
:func:`help`, Sphinx's autodoc and doctests read the full text. An unknown
name raises at import, so a misspelt placeholder cannot reach the
documentation.

Examples
--------
>>> from dspk.docstrings import shared
>>> @shared
... def f(x, *, runtime=None):
...     '''Do nothing.
...
...     Parameters
...     ----------
...     x : array_like
...         Anything.
...     {runtime}
...     '''
>>> [line.strip() for line in f.__doc__.splitlines() if "runtime" in line]
['runtime : str, optional', 'The runtime to run on (see :mod:`dspk.runtime`).']
"""

from __future__ import annotations

import re
from typing import TypeVar

__all__ = ["PARAMETERS", "shared", "splice"]

T = TypeVar("T")

#: The shared descriptions by name: a numpydoc parameter entry each, its
#: first line unindented and its description indented by four spaces.
PARAMETERS: dict[str, str] = {
    # --- every operation ---------------------------------------------------------------------
    "runtime": """\
runtime : str, optional
    The runtime to run on (see :mod:`dspk.runtime`).""",
    "dtype": """\
dtype : {None, "float32", "float64"}, optional
    The precision to compute in and return, a dspk extension: None (the
    default) computes as scipy does (float32 stays float32, integers and
    other reals in float64); ``np.float32`` halves the memory of an int16
    recording's result (``dtype=np.float32`` on int16 data gives float32).""",
    "runtime_checked": """\
runtime : str, optional
    Checked to be a runtime of this build.""",
    "runtime_workers": """\
runtime : str, optional
    The runtime the workers run on.""",
    # --- filter designs (dspk.designs) ------------------------------------------------------
    "design_fs": """\
fs : float
    The sampling frequency.""",
    "design_ftype": """\
ftype : {"butter", "cheby1", "cheby2", "ellip", "bessel"}, optional
    The filter family. Default "butter".""",
    "design_ripples": """\
rp : float, optional
    Passband ripple in dB ('cheby1', 'ellip'); default 0.1.
rs : float, optional
    Stopband attenuation in dB ('cheby2', 'ellip'); default 60.""",
    "design_zero_phase_axis": """\
zero_phase : bool, optional
    Filter forward and backward (default) or forward only.
axis : int, optional
    The time axis. Default -1.""",
    "design_filtered": """\
y : ndarray
    The filtered signal, of ``x``'s shape and (float32 or float64) dtype.""",
    # --- dspk.dask ----------------------------------------------------------------------------
    "dask_x": """\
x : dask.array.Array
    2-D, chunked along time in chunks of at least ``margin`` samples.""",
    "dask_margin": """\
margin : int, optional
    Given (or ``tol`` given), the one-pass method: the samples of each
    neighbour a block is filtered with; by default
    :func:`dspk.streaming.zero_phase_margin` of ``tol`` (and at least
    ``padlen``). Neither given: exact.""",
    "dask_filtered": """\
dask.array.Array
    The filtered signal, lazily.""",
    # --- convolution ------------------------------------------------------------------------
    "in1": """\
in1 : array_like
    First input.""",
    "in2": """\
in2 : array_like
    Second input. Should have the same number of dimensions as ``in1``.""",
    "convolve_mode": """\
mode : str {'full', 'valid', 'same'}, optional
    The size of the output, as in scipy.""",
    "convolve_axes": """\
axes : int or array_like of ints or None, optional
    Axes over which to convolve; the default is all axes. Along the
    other axes the inputs must be equal in size or of size 1.""",
    "convolve_method": """\
method : str {'auto', 'direct', 'fft'}, optional
    Which kernels the tuner may choose from.""",
    # --- FFTs -------------------------------------------------------------------------------
    "fft_x": """\
x : array_like
    Input array, real or complex.""",
    "fft_n": """\
n : int, optional
    Length of the transformed axis (cropped or zero-padded).""",
    "norm": """\
norm : {"backward", "ortho", "forward"}, optional
    Normalization mode; None means "backward".""",
    "overwrite_x": """\
overwrite_x : bool, optional
    Accepted for compatibility; dspk never overwrites ``x``.""",
    "workers": """\
workers : int, optional
    Checked (it must not be zero) and otherwise left to the runtime,
    which chooses its own threads.""",
    "plan": """\
plan : None
    Must be None, as in scipy.""",
    # --- filters ----------------------------------------------------------------------------
    "sos": """\
sos : array_like
    Second-order sections, shape ``(n_sections, 6)``.""",
    "ba": """\
b, a : array_like
    The transfer function's numerator and denominator.""",
    "filter_x": """\
x : array_like
    The array of data to be filtered.""",
    "filter_axis": """\
axis : int, optional
    The axis of ``x`` along which to filter. Default is -1.""",
    "padtype": """\
padtype : str or None, optional
    ``"odd"``, ``"even"``, ``"constant"`` or None (no padding).""",
    "tol": """\
tol : float, optional
    The bound on the impulse-response tail beyond the margin; default 1e-12.""",
    "stream_axis": """\
axis : int, optional
    The time axis of the chunks. Default -1.""",
    # --- segment spectra (welch, csd, periodogram, coherence, stft, spectrogram, istft) --------
    "series": """\
x : array_like
    Time series of measurement values, real or complex.""",
    "series_xy": """\
x, y : array_like
    Time series of measurement values.""",
    "fs": """\
fs : float, optional
    Sampling frequency. Defaults to 1.0.""",
    "window": """\
window : str or tuple or array_like, optional
    A window name (with parameters, as a tuple) for
    :func:`scipy.signal.get_window`, or the window's values. Defaults to
    ``'hann_periodic'``.""",
    "nperseg": """\
nperseg : int, optional
    Length of each segment; default ``min(256, length)`` for a named
    window, else the window's length. It may not exceed the signal's length.""",
    "noverlap": """\
noverlap : int, optional
    Samples shared by consecutive segments; default ``nperseg // 2``.""",
    "nfft": """\
nfft : int, optional
    FFT length (segments are zero-padded); default ``nperseg``.""",
    "detrend": """\
detrend : str or callable or False, optional
    ``'constant'`` (default), ``'linear'``, False (none), or a callable
    applied to each segment on the host.""",
    "return_onesided": """\
return_onesided : bool, optional
    Return a one-sided spectrum for real data (default); complex data
    always gives two sides.""",
    "return_onesided_warned": """\
return_onesided : bool, optional
    One-sided spectrum for real data (default); complex data gives two
    sides, with a warning.""",
    "scaling": """\
scaling : {'density', 'spectrum'}, optional
    Power spectral density in V²/Hz (default) or power spectrum in V².""",
    # --- operations across channels ---------------------------------------------------------
    "recording": """\
x : array_like
    The recording, 2-D: channels by samples (``axis=-1``) or samples by
    channels (``axis=0``).""",
    "recording_axis": """\
axis : int, optional
    The time axis of ``x``. Default is -1.""",
}

# Parameters that always come together, in this order.
PARAMETERS.update({group: "\n".join(PARAMETERS[name] for name in names) for group, names in {
    "convolve_inputs": ("in1", "in2", "convolve_mode"),
    "fft_options": ("norm", "overwrite_x", "workers", "plan"),
    "welch_segments": ("window", "nperseg", "noverlap", "nfft", "detrend"),
}.items()})

_PLACEHOLDER = re.compile(r"^([ \t]*)\{(\w+)\}[ \t]*$", re.MULTILINE)


def splice(doc: str) -> str:
    """``doc`` with each line ``{name}`` replaced by ``PARAMETERS[name]``, indented as the line.

    Parameters
    ----------
    doc : str
        A docstring.

    Returns
    -------
    str
        The docstring with its placeholders filled.

    Raises
    ------
    KeyError
        When a placeholder names no shared description.
    """
    def fill(match: re.Match) -> str:
        indent, name = match.groups()
        if name not in PARAMETERS:
            raise KeyError(f"{{{name}}}: dspk.docstrings.PARAMETERS has no description of "
                           "that name")
        return "\n".join(indent + line if line else line
                         for line in PARAMETERS[name].splitlines())

    return _PLACEHOLDER.sub(fill, doc)


def shared(obj: T) -> T:
    """Fill the shared parameter descriptions into ``obj``'s docstring; ``obj`` is returned.

    Parameters
    ----------
    obj : function or class
        Its ``__doc__`` is rewritten by :func:`splice` (left alone when None,
        as under ``python -OO``).

    Returns
    -------
    function or class
        ``obj`` itself.
    """
    if obj.__doc__:
        obj.__doc__ = splice(obj.__doc__)
    return obj
