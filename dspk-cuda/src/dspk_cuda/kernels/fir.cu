// Direct full convolution: y[c, k] = sum_j h[r, j] x[c, k - j] for
// k < samples + taps - 1, r = c (one row of taps per channel) or 0.
//
// A block computes FIR_TILE consecutive outputs of one channel, each thread
// FIR_OUTPUTS of them held in registers (outputs threadIdx.x + r * FIR_THREADS,
// so that shared-memory reads are consecutive across threads). Taps go
// through shared memory in chunks of FIR_TAP_CHUNK together with the input
// window the chunk needs; every tap read from shared memory serves
// FIR_OUTPUTS products. Launch with blockDim.x == FIR_THREADS.

#define FIR_THREADS 256
#define FIR_OUTPUTS 4
#define FIR_TILE (FIR_THREADS * FIR_OUTPUTS)
#define FIR_TAP_CHUNK 512

template <typename T>
__global__ void __launch_bounds__(FIR_THREADS)
convolve_direct(const T* x, index_t x_channel_stride, index_t x_time_stride, index_t samples,
                const T* h, index_t h_row_stride, int taps,
                T* y, index_t y_channel_stride, index_t y_time_stride, index_t out_samples,
                index_t channels) {
    __shared__ T window[FIR_TILE + FIR_TAP_CHUNK - 1];
    __shared__ T chunk_taps[FIR_TAP_CHUNK];
    const index_t first_output = (index_t)blockIdx.x * FIR_TILE;
    for (index_t c = blockIdx.y; c < channels; c += gridDim.y) {
        const T* xc = x + c * x_channel_stride;
        const T* hc = h + c * h_row_stride;
        T acc[FIR_OUTPUTS];
#pragma unroll
        for (int r = 0; r < FIR_OUTPUTS; ++r) acc[r] = T(0);
        for (int j0 = 0; j0 < taps; j0 += FIR_TAP_CHUNK) {
            const int chunk = taps - j0 < FIR_TAP_CHUNK ? taps - j0 : FIR_TAP_CHUNK;
            // window[m] is x[first + m]; output k with tap j0 + jj reads
            // x[k - j0 - jj] = window[k - first_output + chunk - 1 - jj].
            const index_t first = first_output - (j0 + chunk - 1);
            __syncthreads();  // the previous chunk's reads are done
            for (int m = threadIdx.x; m < FIR_TILE + chunk - 1; m += blockDim.x) {
                const index_t t = first + m;
                window[m] = (t >= 0 && t < samples) ? xc[t * x_time_stride] : T(0);
            }
            for (int j = threadIdx.x; j < chunk; j += blockDim.x) chunk_taps[j] = hc[j0 + j];
            __syncthreads();
            for (int jj = 0; jj < chunk; ++jj) {
                const T tap = chunk_taps[jj];
                const int base = threadIdx.x + chunk - 1 - jj;
#pragma unroll
                for (int r = 0; r < FIR_OUTPUTS; ++r) acc[r] += tap * window[base + r * FIR_THREADS];
            }
        }
#pragma unroll
        for (int r = 0; r < FIR_OUTPUTS; ++r) {
            const index_t k = first_output + threadIdx.x + r * FIR_THREADS;
            if (k < out_samples) y[c * y_channel_stride + k * y_time_stride] = acc[r];
        }
    }
}
