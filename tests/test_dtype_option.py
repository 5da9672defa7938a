"""``dtype=``: an int16 recording computed in float32 on request, as its float32 copy would be.

Without it, integers compute in float64, as in scipy; with ``dtype=np.float32``
the result is float32 and equal to the same call on the recording cast to
float32 (the same computation, on the same values), on every runtime under test.
"""

import numpy as np
import pytest
import scipy.signal

import dspk
from conftest import open_backend, runtimes_under_test
from dspk.recordings import neuropixels_shifts

FS = 30000.0
SOS = scipy.signal.butter(3, [300, 6000], "bandpass", fs=FS, output="sos")
BA = scipy.signal.butter(3, [300, 6000], "bandpass", fs=FS)
POSITIONS = np.column_stack([np.tile([11.0, 27.0], 8), 20.0 * (np.arange(16) // 2)])

CALLS = {
    "sosfilt": lambda x, **kw: dspk.sosfilt(SOS, x, **kw),
    "lfilter": lambda x, **kw: dspk.lfilter(*BA, x, **kw),
    "sosfiltfilt": lambda x, **kw: dspk.sosfiltfilt(SOS, x, **kw),
    "filtfilt": lambda x, **kw: dspk.filtfilt(*BA, x, **kw),
    "filtfilt-gust": lambda x, **kw: dspk.filtfilt(*BA, x, method="gust", **kw),
    "common_reference": lambda x, **kw: dspk.common_reference(x, **kw),
    "common_reference-local": lambda x, **kw: dspk.common_reference(
        x, reference="local", radius=(0, 45), min_neighbours=2, positions=POSITIONS, **kw),
    "phase_shift": lambda x, **kw: dspk.phase_shift(x, neuropixels_shifts()[:16], **kw),
    "whiten": lambda x, **kw: dspk.whiten(x, **kw)[0],
    "highpass_spatial_filter": lambda x, **kw: dspk.highpass_spatial_filter(
        x, FS, positions=POSITIONS, n_channel_pad=4, **kw),
    "interpolate_bad_channels": lambda x, **kw: dspk.interpolate_bad_channels(
        x, [3], POSITIONS, **kw),
}


@pytest.fixture
def recording(rng):
    return np.round(rng.standard_normal((16, 3000)) * 200).astype(np.int16)


@pytest.mark.parametrize("runtime", runtimes_under_test())
@pytest.mark.parametrize("name", CALLS)
def test_float32_on_request_is_the_float32_copys_result(name, runtime, recording):
    """On every runtime: one that computes float32 only (wgpu without shader-f64) takes an
    int16 recording this way."""
    open_backend(runtime)
    call = CALLS[name]
    ours = call(recording, dtype=np.float32, runtime=runtime)
    assert ours.dtype == np.float32
    np.testing.assert_array_equal(ours, call(recording.astype(np.float32), runtime=runtime))
    if runtime == "cpu":
        assert call(recording).dtype == np.float64  # scipy's choice by default


@pytest.mark.parametrize("dtype", ["int16", "complex64", "no such type"])
def test_a_precision_dspk_does_not_compute_in_is_refused(dtype, recording):
    with pytest.raises(ValueError, match="dtype="):
        dspk.sosfilt(SOS, recording, dtype=dtype)
