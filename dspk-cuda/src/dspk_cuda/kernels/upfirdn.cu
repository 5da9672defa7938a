// Polyphase upfirdn: y[k] = sum_j h[j] u[(k + start) * down - j] with
// u = x upsampled by `up` (zeros between samples, never formed), x extended
// by `extension` samples at each end from `left`/`right` (0: zeros outside).
// Only taps j = phase + q * up meet a sample of x, sample i0 - q, where
// m = (k + start) * down = i0 * up + phase. One thread per output sample,
// time or channel fastest as the output's layout makes writes contiguous.

__device__ __forceinline__ index_t floor_div(index_t a, index_t b) {
    index_t q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

template <typename T>
__global__ void upfirdn_polyphase(const T* h, int taps, int up, int down,
                                  const T* x, index_t x_channel_stride, index_t x_time_stride,
                                  index_t samples,
                                  const T* left, index_t left_channel_stride,
                                  index_t left_time_stride,
                                  const T* right, index_t right_channel_stride,
                                  index_t right_time_stride, index_t extension,
                                  index_t start, T* y, index_t y_channel_stride,
                                  index_t y_time_stride, index_t count, index_t channels,
                                  int time_fastest) {
    const index_t item = (index_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (item >= channels * count) return;
    const index_t c = time_fastest ? item / count : item % channels;
    const index_t k = time_fastest ? item % count : item / channels;
    const index_t m = (k + start) * down;
    const index_t i0 = floor_div(m, up);
    const int phase = (int)(m - i0 * up);
    T acc = T(0);
    if (phase < taps) {
        const index_t phase_taps = (taps - phase + up - 1) / up;
        // q from max(0, i0 - hi + 1) to min(phase_taps - 1, i0 - lo), i in [lo, hi)
        const index_t lo = -extension, hi = samples + extension;
        index_t q = i0 - hi + 1 > 0 ? i0 - hi + 1 : 0;
        const index_t q_end = phase_taps - 1 < i0 - lo ? phase_taps - 1 : i0 - lo;
        for (; q <= q_end; ++q) {
            const index_t i = i0 - q;
            T v;
            if (i < 0) {
                v = left[c * left_channel_stride + (extension + i) * left_time_stride];
            } else if (i >= samples) {
                v = right[c * right_channel_stride + (i - samples) * right_time_stride];
            } else {
                v = x[c * x_channel_stride + i * x_time_stride];
            }
            acc += h[phase + q * up] * v;
        }
    }
    y[c * y_channel_stride + k * y_time_stride] = acc;
}
