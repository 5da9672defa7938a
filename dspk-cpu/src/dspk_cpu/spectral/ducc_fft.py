"""The ``fft`` kernel on ducc0, pocketfft's successor by its author.

ducc0 transforms several rows at once in SIMD registers and threads them
itself: on a 2-core AMD EPYC, a 1 x 1000 or 4 x 256 rfft in half scipy.fft's
time and 32 x 8192 float32 in 0.82 of it, but 384 x 32768 in 1.2 times it
(its vectors of rows outgrow the caches there). The tuner keeps it where it
wins; pocketfft stays the default.
"""

from __future__ import annotations

import ducc0
import numpy as np

from dspk_cpu.threads import fft_workers

#: ducc0's ``inorm`` (0: none, 1: 1/sqrt(n), 2: 1/n) of a forward transform by ``norm``.
_FORWARD = {"backward": 0, "ortho": 1, "forward": 2}
#: ... and of an inverse one.
_INVERSE = {"backward": 2, "ortho": 1, "forward": 0}


def transform(x, axis, n, kind, norm):
    """scipy.fft's ``kind`` ("rfft", "irfft", "fft" or "ifft") of ``x`` along ``axis``
    with ``n`` points (the input cropped or zero-padded as scipy's) and ``norm``, on
    the runtime's threads (one for a small signal).

    Examples
    --------
    >>> import numpy as np, scipy.fft
    >>> x = np.random.default_rng(0).standard_normal((2, 9))
    >>> bool(np.allclose(transform(x, 1, 12, "rfft", "ortho"),
    ...                  scipy.fft.rfft(x, 12, norm="ortho")))
    True
    >>> y = scipy.fft.rfft(x)
    >>> bool(np.allclose(transform(y, 1, 9, "irfft", "backward"), x))
    True
    """
    workers = fft_workers(x.nbytes)
    if kind == "rfft":
        return ducc0.fft.r2c(_fitted(x, axis, n), axes=(axis,), inorm=_FORWARD[norm],
                             nthreads=workers)
    if kind == "irfft":
        return ducc0.fft.c2r(_fitted(x, axis, n // 2 + 1), axes=(axis,), lastsize=n,
                             forward=False, inorm=_INVERSE[norm], nthreads=workers)
    forward = kind == "fft"
    return ducc0.fft.c2c(_fitted(x, axis, n), axes=(axis,), forward=forward,
                         inorm=(_FORWARD if forward else _INVERSE)[norm], nthreads=workers)


def _fitted(x, axis, length):
    """``x`` cropped or zero-padded to ``length`` along ``axis`` (as it is when it fits).

    Examples
    --------
    >>> import numpy as np
    >>> _fitted(np.ones((2, 3)), 1, 4)
    array([[1., 1., 1., 0.],
           [1., 1., 1., 0.]])
    """
    have = x.shape[axis]
    if have == length:
        return x
    if have > length:
        return x[(slice(None),) * axis + (slice(0, length),)]
    fitted = np.zeros(x.shape[:axis] + (length,) + x.shape[axis + 1:], x.dtype)
    fitted[(slice(None),) * axis + (slice(0, have),)] = x
    return fitted
