// Threshold peaks (see dspk.detect_peaks): one thread per (sample, channel)
// tests the sample against its channel's threshold, then against every sample
// within `exclude` on its channel and its neighbours (neighbours[c * width ..],
// -1 ends a row): strictly against earlier samples, non-strictly against the
// same and later ones. Every comparison with NaN is false, so a NaN is never a
// peak and a NaN in the window suppresses one. The thread writes 1 or 0 into
// mask[t * channels + c]: samples by channels, so that the mask's nonzero
// entries come in the order of the result (by sample, then channel).

template <typename T>
__device__ __forceinline__ bool beats(T v, T w, bool before, bool negative) {
    if (negative) return before ? v < w : v <= w;
    return before ? v > w : v >= w;
}

template <typename T>
__global__ void peak_mask(const T* x, index_t x_channel_stride, index_t x_time_stride,
                          const T* levels, const long long* neighbours, int width, int exclude,
                          int negative, int positive, index_t samples, int channels,
                          int* mask) {
    const index_t t = (index_t)blockIdx.x * blockDim.x + threadIdx.x;
    const int c = blockIdx.y;
    if (t >= samples || c >= channels) return;
    const T v = x[c * x_channel_stride + t * x_time_stride];
    bool peak = false;
    bool down = false;
    if (negative && v < -levels[c]) {
        peak = down = true;
    } else if (positive && v > levels[c]) {
        peak = true;
    }
    const index_t lo = t - exclude < 0 ? 0 : t - exclude;
    const index_t hi = t + exclude > samples - 1 ? samples - 1 : t + exclude;
    for (int k = -1; peak && k < width; ++k) {
        const long long m = k < 0 ? c : neighbours[(index_t)c * width + k];
        if (m < 0) break;
        for (index_t u = lo; u <= hi; ++u) {
            if (k < 0 && u == t) continue;
            if (!beats(v, x[m * x_channel_stride + u * x_time_stride], u < t, down)) {
                peak = false;
                break;
            }
        }
    }
    mask[t * channels + c] = peak ? 1 : 0;
}
