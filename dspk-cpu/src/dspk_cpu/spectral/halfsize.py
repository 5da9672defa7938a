"""Real FFTs of even length ``n`` as complex FFTs of length ``M = n / 2``.

pocketfft's complex transforms run about twice as fast as its real ones of the
same data here, so a real signal is packed as ``z[m] = x[2m] + 1j * x[2m + 1]``,
transformed by one complex FFT ``Z`` of ``M`` points, and unpacked in one pass.
With ``E[k] = (Z[k] + conj(Z[M - k])) / 2`` and ``O[k] = -1j (Z[k] - conj(Z[M - k])) / 2``
(the spectra of the even and odd samples; ``Z[M]`` is ``Z[0]``) and
``W = exp(-2j pi k / n)``, the real FFT is ``X[k] = E[k] + W O[k]`` and
``X[M - k] = conj(E[k] - W O[k])``.

The same identities turn one complex spectrum into the packed spectrum of the
Hilbert transform ``h = irfft(-1j sign(k) X)`` (bins 0 and ``M`` cleared):
``Z'[k] = 1j sin(2 pi k / n) Z[k] + cos(2 pi k / n) conj(Z[M - k])`` for ``k >= 1`` and
``Z'[0] = 0``, whose inverse complex FFT is ``h[2m] + 1j h[2m + 1]``.

Kernels here take 2-D arrays with the transform along ``axis`` and loop in the
memory order of C-ordered arrays: along time for ``axis == 1``, across channels
for ``axis == 0``.
"""

from __future__ import annotations

import functools

import numpy as np
from scipy.fft import _pocketfft

from dspk_cpu import compiling

#: Scale of a forward transform of ``n`` points under each ``norm``.
FORWARD_SCALE = {"backward": lambda n: 1.0, "ortho": lambda n: n ** -0.5,
                 "forward": lambda n: 1.0 / n}
#: The complex dtype of each real one (``np.result_type`` costs a microsecond a call).
COMPLEX = {np.dtype(np.float32): np.dtype(np.complex64),
           np.dtype(np.float64): np.dtype(np.complex128)}


@functools.lru_cache(maxsize=16)
def angles(n: int, dtype: np.dtype) -> tuple[np.ndarray, np.ndarray]:
    """``cos`` and ``sin`` of ``2 pi k / n`` for ``k = 0 ... n // 4``, computed in float64."""
    k = np.arange(n // 4 + 1)
    theta = 2 * np.pi * k / n
    return np.cos(theta).astype(dtype), np.sin(theta).astype(dtype)


@compiling.cached_jit(nogil=True)
def _pack(x, n, axis, z):
    """``z[m] = x[2m] + 1j x[2m + 1]`` along ``axis``, ``x`` cut or zero-padded to ``n``."""
    m_count = n // 2
    length = x.shape[axis]
    if axis == 1:
        for i in range(x.shape[0]):
            for m in range(m_count):
                a = x[i, 2 * m] if 2 * m < length else 0
                b = x[i, 2 * m + 1] if 2 * m + 1 < length else 0
                z[i, m] = complex(a, b)
    else:
        for m in range(m_count):
            if 2 * m + 1 < length:
                for j in range(x.shape[1]):
                    z[m, j] = complex(x[2 * m, j], x[2 * m + 1, j])
            else:
                for j in range(x.shape[1]):
                    a = x[2 * m, j] if 2 * m < length else 0
                    z[m, j] = complex(a, 0)


@compiling.cached_jit(nogil=True)
def _unpack_real_spectrum(z, cos, sin, scale, axis, out):
    """The real FFT ``out`` (``M + 1`` bins along ``axis``) from the packed spectrum ``z``."""
    m_count = z.shape[axis]
    half = scale * 0.5
    if axis == 1:
        for i in range(z.shape[0]):
            z0 = z[i, 0]
            out[i, 0] = complex((z0.real + z0.imag) * scale, 0)
            out[i, m_count] = complex((z0.real - z0.imag) * scale, 0)
            for k in range(1, m_count // 2 + 1):
                a = z[i, k]
                b = z[i, m_count - k]
                even = complex(a.real + b.real, a.imag - b.imag)
                odd = complex(a.imag + b.imag, b.real - a.real)
                w = complex(cos[k], -sin[k])
                turned = w * odd
                out[i, k] = (even + turned) * half
                out[i, m_count - k] = (even - turned).conjugate() * half
    else:
        for j in range(z.shape[1]):
            z0 = z[0, j]
            out[0, j] = complex((z0.real + z0.imag) * scale, 0)
            out[m_count, j] = complex((z0.real - z0.imag) * scale, 0)
        for k in range(1, m_count // 2 + 1):
            w = complex(cos[k], -sin[k])
            for j in range(z.shape[1]):
                a = z[k, j]
                b = z[m_count - k, j]
                even = complex(a.real + b.real, a.imag - b.imag)
                odd = complex(a.imag + b.imag, b.real - a.real)
                turned = w * odd
                out[k, j] = (even + turned) * half
                out[m_count - k, j] = (even - turned).conjugate() * half


@compiling.cached_jit(nogil=True)
def _hilbert_spectrum(z, cos, sin, axis):
    """Turn the packed spectrum ``z`` of ``x`` into that of its Hilbert transform, in place."""
    m_count = z.shape[axis]
    if axis == 1:
        for i in range(z.shape[0]):
            z[i, 0] = 0
            for k in range(1, m_count // 2 + 1):
                a = z[i, k]
                b = z[i, m_count - k]
                z[i, k] = complex(-sin[k] * a.imag + cos[k] * b.real,
                                  sin[k] * a.real - cos[k] * b.imag)
                z[i, m_count - k] = complex(-sin[k] * b.imag - cos[k] * a.real,
                                            sin[k] * b.real + cos[k] * a.imag)
    else:
        for j in range(z.shape[1]):
            z[0, j] = 0
        for k in range(1, m_count // 2 + 1):
            for j in range(z.shape[1]):
                a = z[k, j]
                b = z[m_count - k, j]
                z[k, j] = complex(-sin[k] * a.imag + cos[k] * b.real,
                                  sin[k] * a.real - cos[k] * b.imag)
                z[m_count - k, j] = complex(-sin[k] * b.imag - cos[k] * a.real,
                                            sin[k] * b.real + cos[k] * a.imag)


@compiling.cached_jit(nogil=True)
def _join_packed(real, packed, axis, out):
    """``out[t] = real[t] + 1j h[t]`` with ``h[2m] + 1j h[2m + 1] = packed[m]`` along ``axis``.

    ``real`` may be shorter than ``out`` along ``axis``: zeros after its end.
    """
    length = real.shape[axis]
    if axis == 1:
        for i in range(out.shape[0]):
            for m in range(packed.shape[1]):
                h = packed[i, m]
                a = real[i, 2 * m] if 2 * m < length else 0
                b = real[i, 2 * m + 1] if 2 * m + 1 < length else 0
                out[i, 2 * m] = complex(a, h.real)
                out[i, 2 * m + 1] = complex(b, h.imag)
    else:
        for m in range(packed.shape[0]):
            for j in range(out.shape[1]):
                h = packed[m, j]
                a = real[2 * m, j] if 2 * m < length else 0
                b = real[2 * m + 1, j] if 2 * m + 1 < length else 0
                out[2 * m, j] = complex(a, h.real)
                out[2 * m + 1, j] = complex(b, h.imag)


def packed(x: np.ndarray, axis: int, n: int) -> np.ndarray:
    """``x`` cut or zero-padded to even ``n`` along ``axis``, as ``n / 2`` complex samples.

    A view of ``x`` when its time axis is contiguous and long enough, else a new
    C-ordered array.
    """
    complex_dtype = COMPLEX.get(x.dtype) or np.result_type(x.dtype, np.complex64)
    if axis == 1 and x.shape[1] >= n and x.strides[1] == x.itemsize:
        return x[:, :n].view(complex_dtype)
    shape = (x.shape[0], n // 2) if axis == 1 else (n // 2, x.shape[1])
    z = np.empty(shape, complex_dtype)
    _pack(x, n, axis, z)
    return z


def rfft(x: np.ndarray, axis: int, n: int, norm: str, workers: int) -> np.ndarray:
    """The real FFT of even length ``n`` along ``axis``, through a complex FFT of ``n / 2``.

    Examples
    --------
    >>> from scipy import fft
    >>> x = np.random.default_rng(0).standard_normal((3, 10))
    >>> bool(np.allclose(rfft(x, 1, 10, "ortho", 1), fft.rfft(x, norm="ortho")))
    True
    """
    spectrum = _pocketfft.fft(packed(x, axis, n), None, axis, None, False, workers)
    shape = list(spectrum.shape)
    shape[axis] += 1
    out = np.empty(shape, spectrum.dtype)
    cos, sin = angles(n, x.dtype)
    _unpack_real_spectrum(spectrum, cos, sin, FORWARD_SCALE[norm](n), axis, out)
    return out


def analytic_into(x: np.ndarray, axis: int, n: int, workers: int, out: np.ndarray) -> None:
    """The analytic signal ``x + 1j hilbert(x)`` of even length ``n`` along ``axis`` into ``out``.

    ``out`` is C-ordered, ``n`` samples along ``axis``. pocketfft is called without
    scipy.fft's backend dispatch (1.4 us a call, which counts on small arrays).
    """
    spectrum = _pocketfft.fft(packed(x, axis, n), None, axis, None, False, workers)
    cos, sin = angles(n, x.dtype)
    _hilbert_spectrum(spectrum, cos, sin, axis)
    transform = _pocketfft.ifft(spectrum, None, axis, None, True, workers)
    _join_packed(x, transform, axis, out)
