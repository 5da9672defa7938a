"""Operations across the channels of a recording, after SpikeInterface's preprocessing.

scipy.signal has none of these. :func:`common_reference`, :func:`whiten` and
:func:`phase_shift` follow SpikeInterface's functions of the same names, on an
array instead of a recording object, with dspk's conventions:

- ``axis`` is the time axis, as everywhere in dspk: the default ``-1`` takes
  channels by samples; ``axis=0`` takes the raw samples-by-channels layout,
  which the kernels handle as it lies in memory (no transposed copy).
- float32 is computed and returned in float32, float64 in float64; integer
  input is computed and returned in float64 (SpikeInterface returns the
  recording's dtype, truncating to integers).
- Channels are indices ``0 .. C - 1`` of the channel axis, not channel ids.

Differences from SpikeInterface, all deliberate, are listed in each function's
Notes.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from dspk import geometry, plans, validation
from dspk.arrays import to_numpy
from dspk.dispatch import Call, Signal2D
from dspk.docstrings import shared
from dspk.operations import bucket

__all__ = ["common_reference", "whiten", "phase_shift"]

_REFERENCES = ("global", "single", "local")
_MODES = ("global", "local")
_OPERATORS = ("median", "average")

#: SpikeInterface's default margin, 40 ms, at the 30 kHz of Neuropixels probes.
DEFAULT_MARGIN = 1200


def _channels_by_samples(x: Any, axis: Any) -> int:
    """Check a 2-D signal and its time axis; return the axis, made non-negative."""
    axis = validation.signal_axis(x, axis)
    if x.ndim != 2:
        raise ValueError(f"x must be 2-D, channels by samples (or samples by channels with "
                         f"axis=0); got shape {tuple(x.shape)}"
                         + ("; pass x[np.newaxis] for one channel" if x.ndim == 1 else ""))
    return axis


def channel_groups(groups: Any, channels: int) -> tuple[np.ndarray, ...]:
    """The groups as disjoint int64 arrays of channel indices; empty groups left out."""
    if groups is None:
        return (np.arange(channels, dtype=np.int64),)
    try:
        items = list(groups)
    except TypeError:
        raise TypeError("groups must be a sequence of sequences of channel indices; got "
                        f"{type(groups).__name__}") from None
    checked = []
    for i, group in enumerate(items):
        try:
            members = np.asarray(group)
        except (TypeError, ValueError) as exc:
            raise TypeError(f"groups[{i}] must be a sequence of channel indices ({exc})") from None
        if members.ndim != 1:
            raise ValueError(f"groups[{i}] must be a 1-D sequence of channel indices; "
                             f"got shape {members.shape}")
        if members.size == 0:
            continue
        if members.dtype.kind not in "iu":
            raise TypeError(f"groups[{i}] must hold integer channel indices; "
                            f"got dtype {members.dtype}")
        outside = members[(members < 0) | (members >= channels)]
        if outside.size:
            raise ValueError(f"groups[{i}] names channel {outside[0]}, out of range for "
                             f"{channels} channels (indices 0 to {channels - 1})")
        checked.append(members.astype(np.int64))
    if not checked:
        raise ValueError("groups names no channel; pass groups=None to reference all "
                         "channels together")
    values, counts = np.unique(np.concatenate(checked), return_counts=True)
    if np.any(counts > 1):
        raise ValueError(f"groups name channel {values[counts > 1][0]} more than once; "
                         "a channel may belong to one group only")
    return tuple(checked)


@shared
def common_reference(x, reference="global", operator="median", groups=None, axis=-1, *,
                     ref_channels=None, radius=(30.0, 55.0), min_neighbours=5, positions=None,
                     dtype=None, runtime=None):
    """Subtract, sample by sample, the median or the average across channels.

    As SpikeInterface's ``common_reference`` with ``reference="global"``: a
    common median reference (CMR) or common average reference (CAR).

    Parameters
    ----------
    {recording}
    reference : {"global", "single", "local"}, optional
        The reference. ``"global"`` (the default): the median or average of
        all channels of a group. ``"single"``: the channel ``ref_channels``
        (every channel minus it; the reference channel itself becomes zeros),
        or the median or average of the channels ``ref_channels``.
        ``"local"``: each channel minus the median or average of the channels
        in an annulus around it (``radius``, ``min_neighbours``,
        ``positions``).
    operator : {"median", "average"}, optional
        ``"median"`` (CMR) or ``"average"`` (CAR).
    groups : sequence of sequences of int, optional
        Channel indices of groups (such as the shanks or tetrodes of a probe)
        referenced separately: each group's median or average is subtracted
        from that group's channels only. None (the default) makes all
        channels one group. A channel may belong to one group only; empty
        groups are left out. ``"global"`` only.
    {recording_axis}
    ref_channels : int or sequence of int, optional
        ``"single"`` only, and required there: the reference channel, or
        channels (indices, each at most once).
    radius : (float, float), optional
        ``"local"`` only: the annulus ``(inner, outer)``, ``0 <= inner <=
        outer``, in the unit of ``positions``. The channels at a distance
        ``d`` with ``inner < d <= outer`` are a channel's neighbours (the
        channel itself never is). Default ``(30, 55)``, SpikeInterface's
        ``local_radius`` in micrometres.
    min_neighbours : int, optional
        ``"local"`` only: a channel with fewer neighbours in its annulus
        takes the ``min_neighbours`` nearest channels beyond ``inner``
        instead; a channel with no channel beyond ``inner`` is left as it is.
        Default 5, SpikeInterface's ``min_local_neighbors``.
    positions : array_like, optional
        ``"local"`` only, and required there: the channels' ``(x, y)``
        positions, shape ``(C, 2)`` (see :mod:`dspk.geometry`).
    {dtype}
    {runtime}

    Returns
    -------
    y : ndarray
        The re-referenced recording, ``x``'s shape. As in SpikeInterface,
        channels that belong to no group are zeros.

    Notes
    -----
    The median of an even number of channels is the mean of the two middle
    values, as :func:`numpy.median`; a NaN on one channel makes its group's
    reference NaN at that sample. Differences from SpikeInterface: the
    ``"single"`` and ``"local"`` references (which need channel ids or probe
    geometry) take channel indices and positions instead of ids and a probe;
    groups name channel indices, not ids; groups that name a channel twice,
    or no channel at all, raise :class:`ValueError`; integer recordings give
    float64. ``"single"`` with several channels is SpikeInterface's
    ``reference="global"`` with ``ref_channel_ids`` (its ``"single"`` takes
    one channel, or one per group); ``"single"`` and ``"local"`` take no
    ``groups``. ``"local"`` follows SpikeInterface's
    ``CommonReferenceRecording`` (0.105): neighbours by
    :func:`dspk.geometry.annulus`, where ties in distance go to the lower
    channel index (SpikeInterface's order among equal distances is
    :func:`numpy.argsort`'s), and a channel without neighbours is left
    unreferenced (SpikeInterface warns).

    Examples
    --------
    >>> import numpy as np, dspk
    >>> x = np.array([[1.0, 2.0], [3.0, 8.0], [5.0, 5.0]])  # 3 channels, 2 samples
    >>> dspk.common_reference(x)
    array([[-2., -3.],
           [ 0.,  3.],
           [ 2.,  0.]])
    >>> dspk.common_reference(x, operator="average", groups=[[0, 1]])
    array([[-1., -3.],
           [ 1.,  3.],
           [ 0.,  0.]])
    >>> dspk.common_reference(x, "single", ref_channels=1)
    array([[-2., -6.],
           [ 0.,  0.],
           [ 2., -3.]])
    >>> positions = [[0, 0], [0, 20], [0, 40]]  # a line of contacts, 20 um apart
    >>> dspk.common_reference(x, "local", radius=(0, 20), min_neighbours=1,
    ...                       positions=positions)
    array([[-2. , -6. ],
           [ 0. ,  4.5],
           [ 2. , -3. ]])
    """
    validation.choice(reference, _REFERENCES, "reference")
    validation.choice(operator, _OPERATORS, "operator")
    if reference != "global":
        if groups is not None:
            raise ValueError(f"groups applies to reference='global' only; got groups with "
                             f"reference={reference!r}")
        return _neighbour_reference(x, reference, operator, axis, ref_channels, radius,
                                    min_neighbours, positions, dtype, runtime)
    if ref_channels is not None:
        raise ValueError("ref_channels applies to reference='single' only")
    plan_key = plans.key("common_reference", x, operator, groups, axis, dtype, runtime)
    plan = plans.find(plan_key)
    if plan is None:
        call, taken = Call.start(runtime, x, "x", "common_reference")
        axis = _channels_by_samples(taken, axis)
        dtype = validation.compute_dtype(taken, requested=dtype)
        validation.output_fits("common_reference", taken, dtype)
        cast = taken.astype(dtype, copy=False)  # the cast below is then no copy
        view = Signal2D.of(cast, axis)
        members = channel_groups(groups, view.channels)
        problem = view.problem("common_reference", operator=operator)
        plan = plans.keep(plan_key, plans.Plan(call, problem, (axis, dtype, members),
                                               plans.as_is(call, x, taken, dtype)), taken is x)
        x = cast
    elif plan.as_is:
        axis, _, members = plan.settings
        return plan.run(x, axis, members, operator)
    call = plan.call
    axis, dtype, members = plan.settings
    view = Signal2D.of(x.astype(dtype, copy=False), axis)
    return call.give_back(plan.run(call.native(view.array), view.axis, members, operator))


def _reference_channels(ref_channels: Any, channels: int) -> np.ndarray:
    """``ref_channels`` as a 1-D int64 array of distinct channel indices."""
    if ref_channels is None:
        raise ValueError("reference='single' needs ref_channels: the reference channel "
                         "index, or a sequence of them")
    values = np.atleast_1d(np.asarray(ref_channels))
    if values.size and values.dtype.kind not in "iu":
        raise TypeError(f"ref_channels must hold integer channel indices; got dtype "
                        f"{values.dtype}")
    if values.ndim != 1 or values.size == 0:
        raise ValueError(f"ref_channels must be a channel index or a non-empty 1-D sequence "
                         f"of them; got shape {values.shape}")
    outside = values[(values < 0) | (values >= channels)]
    if outside.size:
        raise ValueError(f"ref_channels names channel {outside[0]}, out of range for "
                         f"{channels} channels (indices 0 to {channels - 1})")
    if len(np.unique(values)) != len(values):
        raise ValueError("ref_channels names a channel more than once")
    return values.astype(np.int64)


def _annulus(radius: Any, min_neighbours: Any, positions: Any, channels: int) -> np.ndarray:
    """The neighbour table of reference="local" (see :func:`dspk.geometry.annulus`)."""
    try:
        inner, outer = radius
    except (TypeError, ValueError):
        raise TypeError(f"radius must be a pair (inner, outer); got {radius!r}") from None
    positions = geometry.check_positions(positions, channels)
    return geometry.annulus(positions, inner, outer, min_neighbours)


def _neighbour_reference(x, reference, operator, axis, ref_channels, radius, min_neighbours,
                         positions, dtype, runtime):
    """:func:`common_reference` with ``reference`` "single" or "local": each channel minus
    the median or mean of its row of a neighbour table."""
    call, x = Call.start(runtime, x, "x", f"common_reference(reference={reference!r})")
    axis = _channels_by_samples(x, axis)
    dtype = validation.compute_dtype(x, requested=dtype)
    validation.output_fits("common_reference", x, dtype)
    view = Signal2D.of(x.astype(dtype, copy=False), axis)
    if reference == "single":
        refs = _reference_channels(ref_channels, view.channels)
        table = np.ascontiguousarray(np.broadcast_to(refs, (view.channels, len(refs))))
    else:
        table = _annulus(radius, min_neighbours, positions, view.channels)
    problem = view.problem("neighbour_reference", operator=operator,
                           neighbours=bucket(table.shape[1]))
    y = call.run(problem, call.native(view.array), view.axis, table, operator)
    return call.give_back(y)


def _eps(eps: Any) -> float | None:
    if eps is None:
        return None
    if isinstance(eps, (bool, np.bool_)) or not isinstance(eps, numbers.Real):
        raise TypeError(f"eps must be a real number or None; got {eps!r}")
    if not 0 <= float(eps) < np.inf:
        raise ValueError(f"eps must be a finite number >= 0; got {eps}")
    return float(eps)


def _given_matrix(call: Call, W: Any, channels: int) -> np.ndarray:
    W = to_numpy(W)
    if W.dtype.kind not in "biuf":
        raise TypeError(f"W must hold real numbers; got dtype {W.dtype}")
    if W.shape != (channels, channels):
        raise ValueError(f"W has shape {W.shape}; a signal of {channels} channels needs "
                         f"({channels}, {channels})")
    validation.finite(W, "W")
    return W.astype(np.float64)


def _default_eps(median_of_squares: float) -> float:
    """SpikeInterface's regularisation: 1e-8, or a thousandth of the data's scale below 1."""
    if 0 < median_of_squares < 1:
        return max(1e-16, 1e-3 * median_of_squares)
    return 1e-8


def _zca(cov: np.ndarray, eps: float) -> np.ndarray:
    """``U diag(1 / sqrt(S + eps)) U^T`` of a covariance ``cov = U diag(S) U^T``."""
    values, vectors = np.linalg.eigh(cov)
    values = np.clip(values, 0.0, None)
    if eps == 0 and values[0] <= values[-1] * len(values) * np.finfo(np.float64).eps:
        raise ValueError("the channel covariance is singular (a silent channel, or a channel "
                         "that is a combination of others) and eps=0; pass eps > 0")
    return (vectors / np.sqrt(values + eps)) @ vectors.T


def local_whitening(cov: np.ndarray, table: np.ndarray, eps: float) -> np.ndarray:
    """Row ``c`` of ``W``: the centre's row of the ZCA matrix of ``c``'s neighbourhood.

    ``table`` is a neighbour table (:mod:`dspk.geometry`) whose row ``c``
    starts with ``c``; the other entries of ``W``'s row are zeros.

    Examples
    --------
    >>> cov = np.array([[4.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 9.0]])
    >>> local_whitening(cov, np.array([[0, 1], [1, 0], [2, 1]]), 0.0)
    array([[0.5       , 0.        , 0.        ],
           [0.        , 1.        , 0.        ],
           [0.        , 0.        , 0.33333333]])
    """
    W = np.zeros_like(cov)
    for c, row in enumerate(table):
        members = row[row >= 0]
        W[c, members] = _zca(cov[np.ix_(members, members)], eps)[0]
    return W


def _whitening_matrix(call: Call, view: Signal2D, signal: Any, mean: Any,
                      eps: float | None, table: np.ndarray | None) -> np.ndarray:
    """The ZCA matrix of the channel covariance of ``signal`` (``table`` None), or its
    local form over the neighbour ``table``, in float64."""
    cov = to_numpy(call.run(view.problem("channel_covariance"), signal, view.axis, mean))
    if not np.all(np.isfinite(cov)):
        raise ValueError("x has non-finite values (NaN or infinity); the channel covariance "
                         "cannot be estimated")
    if eps is None:
        squares = call.run(view.problem("median_of_squares"), signal, view.axis, mean)
        eps = _default_eps(float(to_numpy(squares)))
    return _zca(cov, eps) if table is None else local_whitening(cov, table, eps)


def _local_table(mode: Any, radius: Any, neighbours: Any, positions: Any,
                 channels: int) -> np.ndarray | None:
    """The neighbourhoods of whiten(mode="local"), or None for mode="global"."""
    validation.choice(mode, _MODES, "mode")
    if mode == "global":
        if radius is not None or neighbours is not None or positions is not None:
            raise ValueError("radius, neighbours and positions apply to mode='local' only")
        return None
    if (radius is None) == (neighbours is None):
        raise ValueError("mode='local' needs one of radius= (SpikeInterface's radius_um) or "
                         "neighbours= (Kilosort's whitening_range)")
    positions = geometry.check_positions(positions, channels)
    if radius is not None:
        return geometry.within_radius(positions, radius)
    return geometry.nearest(positions, neighbours)


@shared
def whiten(x, W=None, *, mode="global", radius=None, neighbours=None, positions=None,
           eps=None, apply_mean=False, axis=-1, dtype=None, runtime=None):
    """ZCA-whiten a recording: decorrelate its channels and give them unit variance.

    As SpikeInterface's ``whiten`` with ``mode="global"``, estimated from the
    whole signal: with ``Xc`` the channels (minus their means when
    ``apply_mean``) and ``n`` the number of samples, the covariance is
    ``C = Xc @ Xc.T / n``, its eigendecomposition ``C = U diag(S) U^T`` and
    ``W = U diag(1 / sqrt(S + eps)) U^T``; the result is ``W @ Xc``.

    Parameters
    ----------
    {recording}
    W : array_like, optional
        A whitening matrix ``(C, C)`` to apply instead of estimating one
        (such as the ``W`` of an earlier call on other data).
    mode : {"global", "local"}, optional
        ``"global"`` (the default): ``W`` as above. ``"local"``: row ``c`` of
        ``W`` is the row of channel ``c`` in the ZCA matrix of the covariance
        of ``c``'s neighbourhood (``radius`` or ``neighbours``), zeros
        elsewhere: each channel is whitened against its neighbours only.
    radius : float, optional
        ``mode="local"``: the neighbourhood is the channels at most
        ``radius`` away (the channel included), as SpikeInterface's
        ``whiten(mode="local", radius_um=radius)``.
    neighbours : int, optional
        ``mode="local"``: the neighbourhood is the ``neighbours`` nearest
        channels (the channel included), as Kilosort 4's local whitening
        (its ``whitening_range``, 32 by default). Give one of ``radius`` and
        ``neighbours``.
    positions : array_like, optional
        ``mode="local"``, and required there: the channels' ``(x, y)``
        positions, shape ``(C, 2)`` (see :mod:`dspk.geometry`).
    eps : float, optional
        Regularisation added to the covariance's eigenvalues, ``>= 0``. None
        (the default) takes SpikeInterface's: ``1e-8``, except when the median
        of the squared (centred) samples ``m`` is between 0 and 1, where it is
        ``max(1e-16, 1e-3 * m)``. Unused when ``W`` is given.
    apply_mean : bool, optional
        Subtract each channel's mean (over the samples of ``x``) before the
        covariance and the product. Default is False, as in SpikeInterface.
    {recording_axis}
    {dtype}
    {runtime}

    Returns
    -------
    y : ndarray
        The whitened recording, ``x``'s shape: ``y = W @ (x - mean)`` in
        channels-by-samples terms.
    W : ndarray
        The whitening matrix ``(C, C)`` applied, in the computation's dtype.

    Notes
    -----
    Differences from SpikeInterface: the covariance comes from every sample
    of ``x``, not from random chunks; the covariance is accumulated in
    float64 and decomposed with :func:`numpy.linalg.eigh`, eigenvalues below
    zero (round-off) taken as zero; an ``eps`` given is used as given
    (SpikeInterface replaces even an explicit ``eps`` for small-scaled data);
    a given ``W`` acts as ``W @ x`` on channels by samples, which is
    SpikeInterface's ``traces @ W`` on samples by channels for the symmetric
    matrices whitening produces (pass ``W.T`` to apply one of SpikeInterface's
    non-symmetric matrices); with ``W`` given and ``apply_mean``, the means
    subtracted are those of ``x``; float32 stays float32 (SpikeInterface
    estimates in float32 and returns the recording's dtype).

    ``mode="local"`` is SpikeInterface's ``compute_whitening_matrix``
    recipe, which Kilosort 4's ``whitening_local`` shares (the ZCA matrix of
    the neighbourhood's covariance, the centre channel's row kept), with this
    function's ``eps`` for every neighbourhood (Kilosort adds ``1e-6``);
    its ``W`` is SpikeInterface's transposed (SpikeInterface applies
    ``traces @ W``; local matrices are not symmetric) and Kilosort's as it is.

    Examples
    --------
    >>> import numpy as np, dspk
    >>> rng = np.random.default_rng(0)
    >>> x = rng.standard_normal((4, 4)) @ rng.standard_normal((4, 20000)) * 10
    >>> y, W = dspk.whiten(x)
    >>> bool(np.allclose(y @ y.T / y.shape[1], np.eye(4), atol=1e-6)), W.shape
    (True, (4, 4))
    >>> positions = [[0, 0], [0, 20], [0, 40], [0, 60]]
    >>> y, W = dspk.whiten(x, mode="local", neighbours=2, positions=positions)
    >>> (W != 0).sum(axis=1)  # each channel and its nearest neighbour
    array([2, 2, 2, 2])
    """
    call, x = Call.start(runtime, x, "x", "whiten")
    axis = _channels_by_samples(x, axis)
    dtype = validation.compute_dtype(x, requested=dtype)
    eps = _eps(eps)
    if not isinstance(apply_mean, (bool, np.bool_)):
        raise TypeError(f"apply_mean must be True or False; got {apply_mean!r}")
    validation.output_fits("whiten", x, dtype)
    view = Signal2D.of(x.astype(dtype, copy=False), axis)
    given = None if W is None else _given_matrix(call, W, view.channels)
    table = _local_table(mode, radius, neighbours, positions, view.channels)
    if given is not None and table is not None:
        raise ValueError("W is given: pass mode='local' only to estimate W")
    signal = call.native(view.array)
    mean = call.run(view.problem("channel_mean"), signal, view.axis) if apply_mean else None
    matrix = (_whitening_matrix(call, view, signal, mean, eps, table) if given is None
              else given)
    matrix = call.native(matrix.astype(dtype))
    y = call.run(view.problem("apply_channel_matrix"), matrix, signal, view.axis, mean)
    return call.give_back(y), call.give_back(matrix)


def whitening_matrix(x, *, mode="global", radius=None, neighbours=None, positions=None,
                     eps=None, axis=-1, runtime=None) -> np.ndarray:
    """The ``W`` of :func:`whiten` (no mean subtracted), without applying it to ``x``.

    Parameters
    ----------
    x, mode, radius, neighbours, positions, eps, axis, runtime
        As :func:`whiten`'s.

    Returns
    -------
    ndarray
        The whitening matrix ``(C, C)``, in the computation's dtype.

    Examples
    --------
    >>> import numpy as np, dspk
    >>> x = np.random.default_rng(0).standard_normal((4, 20000))
    >>> bool(np.array_equal(whitening_matrix(x), dspk.whiten(x)[1]))
    True
    """
    call, x = Call.start(runtime, x, "x", "whiten")
    axis = _channels_by_samples(x, axis)
    dtype = validation.compute_dtype(x)
    eps = _eps(eps)
    view = Signal2D.of(x.astype(dtype, copy=False), axis)
    table = _local_table(mode, radius, neighbours, positions, view.channels)
    return _whitening_matrix(call, view, call.native(view.array), None, eps,
                             table).astype(dtype)


def _shifts(call: Call, shifts: Any, channels: int) -> np.ndarray:
    values = np.atleast_1d(to_numpy(shifts))
    if values.dtype.kind not in "biuf":
        raise TypeError(f"shifts must hold real numbers of samples; got dtype {values.dtype}")
    if values.shape != (channels,):
        raise ValueError(f"shifts has shape {values.shape}; x has {channels} channel(s), so "
                         f"shifts needs one value per channel, shape ({channels},)")
    validation.finite(values, "shifts")
    return values.astype(np.float64)


@shared
def phase_shift(x, shifts, *, margin=DEFAULT_MARGIN, axis=-1, dtype=None, runtime=None):
    """Delay each channel by a fraction of a sample, in the frequency domain.

    As SpikeInterface's ``phase_shift``, which undoes the multiplexed
    sampling of Neuropixels probes (their ``inter_sample_shift``): each
    channel is padded with ``margin`` zeros at both ends, to ``L = n + 2 *
    margin`` samples, transformed with a real FFT of length ``L``, multiplied
    by ``exp(-2j * pi * f * shift)`` at frequency ``f = k / L`` (cycles per
    sample) and transformed back; the middle ``n`` samples are the result.

    Parameters
    ----------
    x : array_like
        The recording: 2-D, channels by samples (``axis=-1``) or samples by
        channels (``axis=0``), or 1-D, one channel.
    shifts : array_like
        The delay of each channel in samples, shape ``(C,)`` (a number for
        one channel). Positive delays the channel: ``y[t] = x[t - shift]``,
        interpolated.
    margin : int, optional
        Zeros padded at each end, ``>= 0``: the FFT treats the signal as
        periodic, and the margin keeps the wrap-around of one end away from
        the other. The default, 1200, is SpikeInterface's 40 ms at 30 kHz.
    {recording_axis}
    {dtype}
    {runtime}

    Returns
    -------
    y : ndarray
        The shifted recording, ``x``'s shape.

    Notes
    -----
    On a whole signal, SpikeInterface's chunk margins beyond the recording
    are zeros and its cosine taper falls on those zeros only, so zero padding
    is the same definition; like it, dspk takes the FFT of exactly ``L``
    samples (no rounding up to a fast length, which would change the result).
    For an even ``L`` the imaginary part of the Nyquist bin is dropped, as
    the inverse real FFT does. Differences from SpikeInterface: the margin is
    in samples, not milliseconds; ``margin=0`` is allowed (no padding: a
    circular shift); float32 is computed in float32 (SpikeInterface computes
    in float64 and casts back to the recording's dtype).

    Examples
    --------
    >>> import numpy as np, dspk
    >>> y = dspk.phase_shift(np.array([[1.0, 2.0, 3.0, 4.0]]), [1.0])
    >>> np.round(y, 9) + 0.0
    array([[0., 1., 2., 3.]])
    """
    call, x = Call.start(runtime, x, "x", "phase_shift")
    axis = validation.signal_axis(x, axis)
    if x.ndim > 2:
        raise ValueError(f"x must be 1-D (one channel) or 2-D (channels by samples); got "
                         f"shape {tuple(x.shape)}")
    dtype = validation.compute_dtype(x, requested=dtype)
    validation.output_fits("phase_shift", x, dtype)
    view = Signal2D.of(x.astype(dtype, copy=False), axis)
    shifts = _shifts(call, shifts, view.channels)
    margin = validation.integer(margin, "margin", minimum=0)
    problem = view.problem("phase_shift", margin=bucket(margin))
    y = call.run(problem, call.native(view.array), view.axis, shifts, margin)
    return call.give_back(view.restore(y))
