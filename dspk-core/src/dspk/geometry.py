"""Probe geometry: channel positions and the neighbourhoods built from them.

Operations that work on a channel's neighbours (:func:`dspk.common_reference`
with ``reference="local"``, :func:`dspk.whiten` with ``mode="local"``) take
the channels' positions as an ``(n, 2)`` float array, one row per channel in
channel order (row ``i`` is where channel ``i`` of the signal's channel axis
lies), in any unit of length (micrometres on a Neuropixels probe).
:func:`read_probe` reads them from a probeinterface JSON file.

A neighbourhood is a padded table: an ``(n, K)`` int64 array whose row ``i``
holds the neighbours of channel ``i`` in order of distance (ties by channel
index), then ``-1`` up to the table's width ``K`` (the longest row; at least 1).
Distances are Euclidean, computed as SpikeInterface computes them
(:func:`numpy.linalg.norm` of the differences), so that channels exactly at
a radius fall on the same side of it.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from dspk import validation

__all__ = ["read_probe", "distances", "within_radius", "annulus", "nearest"]


def check_positions(positions: Any, channels: int | None = None,
                    name: str = "positions") -> np.ndarray:
    """``positions`` as a float64 ``(n, 2)`` array of finite numbers, ``n`` = ``channels``.

    Examples
    --------
    >>> check_positions([[0, 0], [0, 20]], 2)
    array([[ 0.,  0.],
           [ 0., 20.]])
    >>> check_positions([[0, 0]], 3)
    Traceback (most recent call last):
    ValueError: positions has 1 row(s); the signal has 3 channel(s), so positions needs shape (3, 2)
    """
    if positions is None:
        raise ValueError(f"{name} is required: the channels' (x, y) positions, shape (n, 2)")
    try:
        values = np.asarray(positions)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be an array of (x, y) positions ({exc})") from None
    if values.dtype.kind not in "iuf" or values.dtype == np.bool_:
        raise TypeError(f"{name} must hold real numbers; got dtype {values.dtype}")
    if values.ndim != 2 or values.shape[1] != 2:
        raise ValueError(f"{name} must have shape (n, 2), one (x, y) row per channel; "
                         f"got shape {values.shape}")
    if channels is not None and len(values) != channels:
        raise ValueError(f"{name} has {len(values)} row(s); the signal has {channels} "
                         f"channel(s), so {name} needs shape ({channels}, 2)")
    if not np.all(np.isfinite(values)):
        raise ValueError(f"{name} has non-finite values (NaN or infinity)")
    return values.astype(np.float64)


def _length(value: Any, name: str) -> float:
    number = validation.real_number(value, name)
    if not 0 <= number < np.inf:
        raise ValueError(f"{name} must be a finite distance >= 0; got {value!r}")
    return number


def distances(positions: Any) -> np.ndarray:
    """The ``(n, n)`` Euclidean distances between channels.

    Parameters
    ----------
    positions : array_like
        The channels' ``(x, y)`` positions, shape ``(n, 2)``.

    Examples
    --------
    >>> distances([[0, 0], [3, 4]])
    array([[0., 5.],
           [5., 0.]])
    """
    p = check_positions(positions)
    return np.linalg.norm(p[:, None, :] - p[None, :, :], axis=2)


def _table(rows: list[np.ndarray], n: int) -> np.ndarray:
    """Rows of channel indices as one ``(n, K)`` int64 table padded with -1."""
    width = max([1] + [len(r) for r in rows])
    table = np.full((n, width), -1, np.int64)
    for i, row in enumerate(rows):
        table[i, :len(row)] = row
    return table


def _by_distance(d: np.ndarray) -> np.ndarray:
    """Each row's channels in order of distance, ties by channel index."""
    return np.argsort(d, axis=1, kind="stable")


def within_radius(positions: Any, radius: float) -> np.ndarray:
    """The channels at most ``radius`` from each channel, the channel itself first.

    SpikeInterface's neighbourhood of ``whiten(mode="local", radius_um=radius)``.

    Parameters
    ----------
    positions : array_like
        ``(n, 2)`` channel positions.
    radius : float
        The largest distance, ``>= 0``; a channel exactly ``radius`` away is in.

    Returns
    -------
    ndarray
        ``(n, K)`` int64, padded with -1 (see :mod:`dspk.geometry`).

    Examples
    --------
    >>> within_radius([[0, 0], [0, 20], [0, 40]], 20)
    array([[ 0,  1, -1],
           [ 1,  0,  2],
           [ 2,  1, -1]])
    """
    d = distances(positions)
    radius = _length(radius, "radius")
    order = _by_distance(d)
    return _table([row[d[i, row] <= radius] for i, row in enumerate(order)], len(d))


def annulus(positions: Any, inner: float, outer: float, min_neighbours: int = 0) -> np.ndarray:
    """The channels farther than ``inner`` and at most ``outer`` from each channel.

    SpikeInterface's neighbourhood of ``common_reference(reference="local",
    local_radius=(inner, outer), min_local_neighbors=min_neighbours)``: the
    channel itself (distance 0) is never in it. A channel with fewer than
    ``min_neighbours`` channels in its annulus takes instead the
    ``min_neighbours`` nearest channels farther than ``inner`` (fewer if there
    are fewer); a channel with none farther than ``inner`` has an empty row.

    Parameters
    ----------
    positions : array_like
        ``(n, 2)`` channel positions.
    inner, outer : float
        The annulus, ``0 <= inner <= outer``: ``inner < distance <= outer``.
    min_neighbours : int, optional
        The fewest neighbours a channel takes, ``>= 0``. Default 0 (the
        annulus only).

    Returns
    -------
    ndarray
        ``(n, K)`` int64, padded with -1 (see :mod:`dspk.geometry`).

    Examples
    --------
    >>> p = [[0, 0], [0, 20], [0, 40], [0, 60]]
    >>> annulus(p, 0, 20)
    array([[ 1, -1],
           [ 0,  2],
           [ 1,  3],
           [ 2, -1]])
    >>> annulus(p, 10, 20, min_neighbours=2)
    array([[1, 2],
           [0, 2],
           [1, 3],
           [2, 1]])
    """
    d = distances(positions)
    inner, outer = _length(inner, "inner radius"), _length(outer, "outer radius")
    if inner > outer:
        raise ValueError(f"the inner radius ({inner:g}) must be at most the outer radius "
                         f"({outer:g})")
    min_neighbours = validation.integer(min_neighbours, "min_neighbours", minimum=0)
    rows = []
    for i, row in enumerate(_by_distance(d)):
        beyond = row[(d[i, row] > inner) & (row != i)]
        ring = beyond[d[i, beyond] <= outer]
        rows.append(ring if len(ring) >= min_neighbours else beyond[:min_neighbours])
    return _table(rows, len(d))


def nearest(positions: Any, k: int) -> np.ndarray:
    """The ``k`` channels nearest each channel, the channel itself first.

    Kilosort 4's neighbourhood of local whitening (its ``whitening_range``,
    32 by default): ties at the last place go to the lower channel index.

    Parameters
    ----------
    positions : array_like
        ``(n, 2)`` channel positions.
    k : int
        Channels per neighbourhood, ``1 <= k <= n``.

    Returns
    -------
    ndarray
        ``(n, k)`` int64.

    Examples
    --------
    >>> nearest([[0, 0], [0, 20], [0, 40]], 2)
    array([[0, 1],
           [1, 0],
           [2, 1]])
    """
    d = distances(positions)
    k = validation.integer(k, "neighbours", minimum=1)
    if k > len(d):
        raise ValueError(f"neighbours={k} is more than the {len(d)} channel(s)")
    # The channel itself first even where another shares its position.
    order = _by_distance(d + np.diag(np.full(len(d), -1.0)))
    return np.ascontiguousarray(order[:, :k]).astype(np.int64)


def read_probe(path: str | os.PathLike) -> np.ndarray:
    """Read channel positions from a probeinterface JSON file.

    Needs probeinterface (``pip install dspk[probe]``).

    Parameters
    ----------
    path : str or path-like
        A probeinterface file (``probeinterface.write_probeinterface``): a
        probe group of 2-D probes whose contacts are wired to device channels.

    Returns
    -------
    ndarray
        ``(n, 2)`` float64: row ``i`` is the position of the contact wired to
        device channel ``i``, for the ``n`` wired contacts (of every probe of
        the group), in the file's unit (micrometres). Unwired contacts
        (device channel -1) are left out.

    Raises
    ------
    ImportError
        Without probeinterface.
    ValueError
        When the probes are 3-D, no contact is wired, two contacts share a
        device channel, or the device channels are not ``0 .. n - 1``.

    Examples
    --------
    >>> import numpy as np, dspk, probeinterface as pi, tempfile, os
    >>> probe = pi.generate_linear_probe(num_elec=4, ypitch=20)
    >>> probe.set_device_channel_indices([3, 2, 1, 0])
    >>> group = pi.ProbeGroup(); group.add_probe(probe)
    >>> path = os.path.join(tempfile.mkdtemp(), "probe.json")
    >>> pi.write_probeinterface(path, group)
    >>> dspk.read_probe(path)
    array([[ 0., 60.],
           [ 0., 40.],
           [ 0., 20.],
           [ 0.,  0.]])
    """
    try:
        import probeinterface
    except ImportError as exc:
        raise ImportError("dspk.read_probe needs probeinterface: pip install 'dspk[probe]' "
                          "(or pip install probeinterface)") from exc
    group = probeinterface.read_probeinterface(path)
    positions, channels = [], []
    for index, probe in enumerate(group.probes):
        if probe.ndim != 2:
            raise ValueError(f"probe {index} of {os.fspath(path)!r} is {probe.ndim}-D; "
                             "read_probe takes 2-D probes")
        if probe.device_channel_indices is None:
            raise ValueError(f"probe {index} of {os.fspath(path)!r} has no device channel "
                             "indices: wire its contacts (set_device_channel_indices)")
        wired = np.asarray(probe.device_channel_indices) >= 0
        positions.append(np.asarray(probe.contact_positions, np.float64)[wired])
        channels.append(np.asarray(probe.device_channel_indices, np.int64)[wired])
    channels = np.concatenate(channels) if channels else np.zeros(0, np.int64)
    if channels.size == 0:
        raise ValueError(f"{os.fspath(path)!r} wires no contact to a device channel")
    values, counts = np.unique(channels, return_counts=True)
    if np.any(counts > 1):
        raise ValueError(f"{os.fspath(path)!r} wires device channel {values[counts > 1][0]} "
                         "to more than one contact")
    if values[-1] != len(values) - 1:
        missing = np.setdiff1d(np.arange(values[-1] + 1), values)[0]
        raise ValueError(f"{os.fspath(path)!r} wires device channels up to {values[-1]} but "
                         f"none to channel {missing}; read_probe needs channels 0 to n - 1")
    return np.concatenate(positions)[np.argsort(channels)]
