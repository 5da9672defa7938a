// Shared device helpers of dspk's CUDA/HIP kernels. dspk_cuda.sources prepends
// this text to every kernel source before compiling it, so the kernels
// include no header at all (NVRTC and hipRTC see one self-contained text).
//
// Conventions: every index and stride is a 64-bit signed element count;
// strides may be negative; no kernel assumes a warp or wavefront size.

typedef long long index_t;

// How a signal is extended beyond its ends (values match dspk_cuda.layout).
enum Extension {
    EXTEND_NONE = 0,      // no extension samples
    EXTEND_ODD = 1,       // 2 * end - mirror (scipy odd_ext)
    EXTEND_EVEN = 2,      // mirror about the end sample (scipy even_ext)
    EXTEND_CONSTANT = 3,  // the end sample repeated (scipy const_ext)
    EXTEND_ZEROS = 4      // zeros (scipy zero_ext)
};

// One channel of a strided 2-D signal, read as if extended by `edge`
// samples at both ends as `mode` says and followed by zeros for ever after.
// `t` counts samples of the extended signal (t = edge is x[0]).
template <typename T>
__device__ __forceinline__ T extended_sample(const T* x, index_t time_stride, index_t n,
                                             index_t edge, int mode, index_t t) {
    index_t i = t - edge;
    if (i >= 0 && i < n) {
        return x[i * time_stride];
    }
    if (i < 0) {
        if (i < -edge || mode == EXTEND_NONE || mode == EXTEND_ZEROS) return T(0);
        T first = x[0];
        if (mode == EXTEND_CONSTANT) return first;
        T mirror = x[(-i) * time_stride];
        return mode == EXTEND_ODD ? T(2) * first - mirror : mirror;
    }
    index_t j = i - n;  // 0, 1, ... after the last sample
    if (j >= edge || mode == EXTEND_NONE || mode == EXTEND_ZEROS) return T(0);
    T last = x[(n - 1) * time_stride];
    if (mode == EXTEND_CONSTANT) return last;
    T mirror = x[(n - 2 - j) * time_stride];
    return mode == EXTEND_ODD ? T(2) * last - mirror : mirror;
}

// Tree sum of one value per thread over the whole block; every thread gets
// the total. `scratch` holds blockDim.x values; blockDim.x is a power of two.
template <typename A>
__device__ __forceinline__ A block_sum(A value, A* scratch) {
    unsigned int lane = threadIdx.x;
    scratch[lane] = value;
    __syncthreads();
    for (unsigned int half = blockDim.x / 2; half > 0; half /= 2) {
        if (lane < half) scratch[lane] += scratch[lane + half];
        __syncthreads();
    }
    A total = scratch[0];
    __syncthreads();
    return total;
}
