"""The cpu runtime's variants of the detection operations.

``channel_median``: NumPy's partition per slice of channels, on threads.
``channel_mean_square``: float64 squares summed by blocks of samples, on threads.
``detect_peaks``: a numba kernel over blocks of samples, in parallel, or NumPy's gathers
of the threshold's candidates.
"""

from dspk.plugin import Variant, package_source_hash
from dspk_cpu.detection import candidates, peaks, statistics

_CANDIDATES = package_source_hash(candidates)
_PEAKS = package_source_hash(peaks)
_STATISTICS = package_source_hash(statistics)

VARIANTS = {
    "channel_median": [Variant("numpy-partition", statistics.channel_median, _STATISTICS)],
    "channel_mean_square": [
        Variant("numpy-blocks", statistics.channel_mean_square, _STATISTICS)],
    "detect_peaks": [
        Variant("numba-blocks", peaks.detect_peaks, _PEAKS),
        Variant("numpy-candidates", candidates.detect_peaks, _CANDIDATES),
    ],
}
