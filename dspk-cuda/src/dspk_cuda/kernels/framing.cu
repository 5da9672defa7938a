// Segment spectra: framing with extension, detrend and window in one pass
// (frame_segments), and the overlap-add of inverse transforms (overlap_add).
// Complex signals are framed as two real signals (their real and imaginary
// views), which is exact: extension, detrend and window are all real-linear.

#define FRAME_THREADS 256

// One block per (channel, segment), grid-stride. Segment s (counted from
// first_segment) covers samples (first_segment + s) * step .. + nperseg of
// the signal extended by `edge` samples at both ends as `mode` says (then zeros for ever); it is detrended (0 none,
// 1 constant, 2 linear least squares, sums in double), multiplied by
// `window` and zero-padded to nfft samples into out[c, s, :].
// Launch with blockDim.x == FRAME_THREADS.
template <typename T>
__global__ void __launch_bounds__(FRAME_THREADS)
frame_segments(const T* x, index_t x_channel_stride, index_t x_time_stride, index_t samples,
               index_t edge, int mode, index_t channels, index_t first_segment,
               index_t segments, index_t step,
               int nperseg, const T* window, int detrend,
               T* out, index_t out_channel_stride, index_t out_segment_stride,
               index_t out_time_stride, int nfft) {
    __shared__ double scratch[FRAME_THREADS];
    const double centre = 0.5 * (nperseg - 1);
    for (index_t item = blockIdx.x; item < channels * segments; item += gridDim.x) {
        const index_t c = item / segments;
        const index_t s = item % segments;
        const T* xc = x + c * x_channel_stride;
        const index_t begin = (first_segment + s) * step;
        double mean = 0.0, slope = 0.0;
        if (detrend != 0) {
            double sum = 0.0, moment = 0.0;
            for (int i = threadIdx.x; i < nperseg; i += blockDim.x) {
                const double v = extended_sample(xc, x_time_stride, samples, edge, mode,
                                                 begin + i);
                sum += v;
                moment += (i - centre) * v;
            }
            mean = block_sum(sum, scratch) / nperseg;
            if (detrend == 2 && nperseg > 1) {
                const double m = nperseg;
                slope = block_sum(moment, scratch) / (m * (m * m - 1.0) / 12.0);
            }
        }
        T* o = out + c * out_channel_stride + s * out_segment_stride;
        for (int i = threadIdx.x; i < nfft; i += blockDim.x) {
            T value = T(0);
            if (i < nperseg) {
                const T v = extended_sample(xc, x_time_stride, samples, edge, mode, begin + i);
                const T trend = T(mean + slope * (i - centre));
                value = (v - trend) * window[i];
            }
            o[i * out_time_stride] = value;
        }
    }
}

// out[c, t] = sum_s pieces[c, s, u - s * step] * window[u - s * step] over
// the segments s that cover u = t + trim, divided by divisor[t]; one thread
// per output sample, t fastest.
template <typename T>
__global__ void overlap_add(const T* pieces, index_t p_channel_stride, index_t p_segment_stride,
                            index_t p_time_stride, index_t segments, index_t step, int nperseg,
                            const T* window, const T* divisor, index_t trim,
                            T* out, index_t out_channel_stride, index_t out_time_stride,
                            index_t count, index_t channels) {
    const index_t item = (index_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (item >= channels * count) return;
    const index_t c = item / count;
    const index_t t = item % count;
    const index_t u = t + trim;
    index_t last = u / step;
    if (last > segments - 1) last = segments - 1;
    const index_t reach = u - nperseg + 1;  // the first segment start that still covers u
    const index_t first = reach <= 0 ? 0 : (reach + step - 1) / step;
    const T* pc = pieces + c * p_channel_stride;
    T acc = T(0);
    for (index_t s = first; s <= last; ++s) {
        const index_t i = u - s * step;
        acc += pc[s * p_segment_stride + i * p_time_stride] * window[i];
    }
    out[c * out_channel_stride + t * out_time_stride] = acc / divisor[t];
}
