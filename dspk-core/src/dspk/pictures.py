"""Pictures for people who would rather look than read (needs matplotlib)."""

from __future__ import annotations

import numpy as np

MISSING = "pictures need matplotlib: pip install 'dspk[plot]'"


def pyplot():
    """matplotlib's pyplot on a file-only backend, or a RuntimeError that says what to install."""
    try:
        import matplotlib
    except ImportError:
        raise RuntimeError(MISSING) from None
    matplotlib.use("Agg")
    from matplotlib import pyplot as plt

    return plt


def filtering_figure(raw: np.ndarray, filtered: np.ndarray, fs: float, path: str,
                     channels: int = 4, seconds: float = 0.05) -> None:
    """Raw and filtered traces of a few channels, and the mean power spectra before and after.

    Parameters
    ----------
    raw, filtered : ndarray
        Channels by samples.
    fs : float
        Sampling rate in Hz.
    path : str
        Where the PNG goes.
    channels : int
        How many channels to draw.
    seconds : float
        How much of the start to draw.
    """
    import dspk

    plt = pyplot()
    shown = slice(0, max(1, int(seconds * fs)))
    t = np.arange(raw.shape[1])[shown] / fs * 1e3
    figure, (traces, spectra) = plt.subplots(1, 2, figsize=(11, 4.2))
    offset = 6 * float(np.std(filtered[:channels, shown]))
    for i in range(min(channels, raw.shape[0])):
        centred = raw[i, shown] - np.mean(raw[i, shown])
        traces.plot(t, centred - i * offset, color="0.7", linewidth=0.7,
                    label="raw (mean removed)" if i == 0 else None)
        traces.plot(t, filtered[i, shown] - i * offset, color="C0", linewidth=0.7,
                    label="filtered" if i == 0 else None)
    traces.set_xlabel("time (ms)")
    traces.set_yticks([])
    traces.set_title(f"first {min(channels, raw.shape[0])} channels")
    traces.legend(loc="upper right", fontsize="small")
    for data, label, color in ((raw, "raw", "0.5"), (filtered, "filtered", "C0")):
        f, power = dspk.welch(data, fs=fs, nperseg=2048)
        spectra.semilogy(f, np.mean(power, axis=0), label=label, color=color)
    spectra.set_xlabel("frequency (Hz)")
    spectra.set_ylabel("power spectral density (V²/Hz)")
    spectra.set_title("mean power spectrum across channels (dspk.welch)")
    spectra.legend(fontsize="small")
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)
