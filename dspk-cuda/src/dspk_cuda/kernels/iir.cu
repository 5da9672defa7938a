// IIR filters (sosfilt, lfilter and their zero-phase forms), time-parallel.
//
// A filter's state after a block of L samples is `T s + f`: `T` (L-step
// transition, computed on the host in float64) is the same for every full
// block, `f` is the block's final state from a zero start. Three launches:
//   1. iir_blocks(apply = 0): every (channel, block) filters its block from
//      zero and stores `f` in the next block's slot;
//   2. iir_carry_scan: per channel, slot 0 gets the initial state and a
//      Kogge-Stone scan with the powers T^(2^k) turns every slot into its
//      block's true starting state;
//   3. iir_blocks(apply = 1): every (channel, block) filters its block again
//      from that state and writes the output; the last block's final state
//      is zf.
// The whole SOS cascade runs fused in registers (state and coefficients are
// fixed-size arrays indexed only by unrolled loops). Signals are read and
// written through Source and Sink: a strided channel, optionally extended at
// both ends (filtfilt's padding, never materialised) and optionally reversed
// (filtfilt's backward pass). iir_df2t_sequential is the fallback for
// lfilter orders beyond the register capacity: one thread per channel.

enum FilterKind { KIND_SOS = 0, KIND_DF2T = 1 };

// Where state component d of channel c lives in a zi/zf array:
// sosfilt's (sections, channels, 2) or lfilter's (channels, order).
__device__ __forceinline__ index_t state_index(int kind, int d, index_t c, index_t channels,
                                               int size) {
    if (kind == KIND_SOS) return (index_t)(d / 2) * channels * 2 + c * 2 + (d % 2);
    return c * size + d;
}

template <typename T>
struct Source {
    const T* x;
    index_t channel_stride, time_stride, samples, edge, length;
    int mode, reversed;

    __device__ T at(index_t c, index_t i) const {
        if (reversed) i = length - 1 - i;
        return extended_sample(x + c * channel_stride, time_stride, samples, edge, mode, i);
    }
};

template <typename T>
struct Sink {
    T* y;
    index_t channel_stride, time_stride, skip, count, length;
    int reversed;

    __device__ void put(index_t c, index_t i, T value) const {
        if (reversed) i = length - 1 - i;
        index_t t = i - skip;
        if (t >= 0 && t < count) y[c * channel_stride + t * time_stride] = value;
    }
};

// Cascade of biquads in transposed direct form II (scipy's sosfilt), up to
// CAPACITY / 2 sections; state component 2 s + k is scipy's zi[s, :, k].
template <typename T, int CAPACITY>
struct SosCascade {
    static const int SECTIONS = CAPACITY / 2;
    T b0[SECTIONS], b1[SECTIONS], b2[SECTIONS], a1[SECTIONS], a2[SECTIONS];
    T z[CAPACITY];
    int sections;

    __device__ void load(const T* sos, int count) {
        sections = count;
#pragma unroll
        for (int s = 0; s < SECTIONS; ++s) {
            bool used = s < count;
            b0[s] = used ? sos[6 * s + 0] : T(0);
            b1[s] = used ? sos[6 * s + 1] : T(0);
            b2[s] = used ? sos[6 * s + 2] : T(0);
            a1[s] = used ? sos[6 * s + 4] : T(0);
            a2[s] = used ? sos[6 * s + 5] : T(0);
        }
#pragma unroll
        for (int d = 0; d < CAPACITY; ++d) z[d] = T(0);
    }

    __device__ int size() const { return 2 * sections; }

    __device__ T step(T v) {
#pragma unroll
        for (int s = 0; s < SECTIONS; ++s) {
            if (s < sections) {
                T out = b0[s] * v + z[2 * s];
                z[2 * s] = b1[s] * v - a1[s] * out + z[2 * s + 1];
                z[2 * s + 1] = b2[s] * v - a2[s] * out;
                v = out;
            }
        }
        return v;
    }
};

// One transposed direct form II filter of order up to CAPACITY (scipy's
// lfilter); `coefficients` holds b then a, `count` values each.
template <typename T, int CAPACITY>
struct DirectForm2T {
    T b[CAPACITY + 1], a[CAPACITY + 1];
    T z[CAPACITY];
    int order;

    __device__ void load(const T* coefficients, int count) {
        order = count - 1;
#pragma unroll
        for (int i = 0; i <= CAPACITY; ++i) {
            bool used = i < count;
            b[i] = used ? coefficients[i] : T(0);
            a[i] = used ? coefficients[count + i] : T(0);
        }
#pragma unroll
        for (int d = 0; d < CAPACITY; ++d) z[d] = T(0);
    }

    __device__ int size() const { return order; }

    __device__ T step(T v) {
        T out = b[0] * v + z[0];
#pragma unroll
        for (int i = 0; i < CAPACITY; ++i) {
            if (i < order) {
                T next = (i + 1 < order) ? z[i + 1] : T(0);
                z[i] = next + b[i + 1] * v - a[i + 1] * out;
            }
        }
        return out;
    }
};

template <typename T, int KIND, int CAPACITY>
struct FilterOf;
template <typename T, int CAPACITY>
struct FilterOf<T, KIND_SOS, CAPACITY> { typedef SosCascade<T, CAPACITY> type; };
template <typename T, int CAPACITY>
struct FilterOf<T, KIND_DF2T, CAPACITY> { typedef DirectForm2T<T, CAPACITY> type; };

// The state a pass starts from: zeros (mode 0), zi (mode 1), or the steady
// state `steady` times the channel's first input sample `edge` (mode 2).
template <typename T>
__device__ __forceinline__ T initial_state(int mode, int kind, int d, index_t c,
                                           index_t channels, int size, const T* zi,
                                           const T* steady, T edge) {
    if (mode == 1) return zi[state_index(kind, d, c, channels, size)];
    if (mode == 2) return steady[d] * edge;
    return T(0);
}

// Passes 1 (apply = 0) and 3 (apply = 1); one thread per (channel, block).
// `slots` is (channels, blocks, size): slot b holds block b's start.
template <typename T, int KIND, int CAPACITY>
__global__ void iir_blocks(const T* coefficients, int count,
                           const T* x, index_t x_channel_stride, index_t x_time_stride,
                           index_t x_samples, index_t x_edge, int x_mode, int x_reversed,
                           T* y, index_t y_channel_stride, index_t y_time_stride,
                           index_t y_skip, index_t y_count, int y_reversed,
                           index_t channels, index_t length, index_t block_len, index_t blocks,
                           T* slots, int apply, T* zf, int want_zf, int channel_fastest) {
    index_t item = (index_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (item >= channels * blocks) return;
    index_t c = channel_fastest ? item % channels : item / blocks;
    index_t b = channel_fastest ? item / channels : item % blocks;
    if (!apply && b == blocks - 1) return;  // the last block's final state is never scanned

    Source<T> source = {x, x_channel_stride, x_time_stride, x_samples, x_edge, length,
                        x_mode, x_reversed};
    Sink<T> sink = {y, y_channel_stride, y_time_stride, y_skip, y_count, length, y_reversed};
    typename FilterOf<T, KIND, CAPACITY>::type filter;
    filter.load(coefficients, count);
    const int size = filter.size();
    T* slot = slots + (c * blocks + b) * size;
    if (apply) {
#pragma unroll
        for (int d = 0; d < CAPACITY; ++d)
            if (d < size) filter.z[d] = slot[d];
    }
    index_t begin = b * block_len;
    index_t end = begin + block_len < length ? begin + block_len : length;
    if (apply) {
        for (index_t i = begin; i < end; ++i) sink.put(c, i, filter.step(source.at(c, i)));
        if (want_zf && b == blocks - 1) {
#pragma unroll
            for (int d = 0; d < CAPACITY; ++d)
                if (d < size) zf[state_index(KIND, d, c, channels, size)] = filter.z[d];
        }
    } else {
        for (index_t i = begin; i < end; ++i) filter.step(source.at(c, i));
#pragma unroll
        for (int d = 0; d < CAPACITY; ++d)
            if (d < size) slot[size + d] = filter.z[d];
    }
}

// Pass 2: one thread block per channel, one thread per time block
// (blockDim.x a power of two >= blocks); dynamic shared memory holds
// blockDim.x * size values. `powers` is (steps, size, size), T^(2^k)
// row-major. The edge sample for mode 2 is read from its own source, so
// that chained groups of sections all start from the cascade's input.
template <typename T, int CAPACITY>
__global__ void iir_carry_scan(T* slots, index_t channels, index_t blocks, int size,
                               const T* powers, int steps, int kind, int init_mode,
                               const T* zi, const T* steady,
                               const T* e, index_t e_channel_stride, index_t e_time_stride,
                               index_t e_samples, index_t e_edge, int e_mode, int e_reversed,
                               index_t e_length) {
    extern __shared__ __align__(16) unsigned char shared_bytes[];
    T* carry = reinterpret_cast<T*>(shared_bytes);
    const index_t b = threadIdx.x;
    for (index_t c = blockIdx.x; c < channels; c += gridDim.x) {
        T* channel_slots = slots + c * blocks * size;
        if (b < blocks) {
            T edge = T(0);
            if (b == 0 && init_mode == 2) {
                Source<T> source = {e, e_channel_stride, e_time_stride, e_samples, e_edge,
                                    e_length, e_mode, e_reversed};
                edge = source.at(c, 0);
            }
            for (int d = 0; d < size; ++d)
                carry[b * size + d] = b == 0 ? initial_state(init_mode, kind, d, c, channels,
                                                             size, zi, steady, edge)
                                             : channel_slots[b * size + d];
        }
        __syncthreads();
        for (int k = 0; k < steps; ++k) {
            const index_t offset = (index_t)1 << k;
            const T* power = powers + (index_t)k * size * size;
            const bool active = b < blocks && b >= offset;
            T updated[CAPACITY];
#pragma unroll
            for (int d = 0; d < CAPACITY; ++d) {
                updated[d] = T(0);
                if (active && d < size) {
                    T acc = carry[b * size + d];
                    // A section of a cascade depends on its own state and those of the
                    // sections before it: the rest of the row is zero and left out, so
                    // that a NaN in a later section's state stays there, as in scipy.
                    const int used = kind == KIND_SOS ? 2 * (d / 2) + 2 : size;
                    for (int j = 0; j < used; ++j)
                        acc += power[d * size + j] * carry[(b - offset) * size + j];
                    updated[d] = acc;
                }
            }
            __syncthreads();
#pragma unroll
            for (int d = 0; d < CAPACITY; ++d)
                if (active && d < size) carry[b * size + d] = updated[d];
            __syncthreads();
        }
        if (b < blocks) {
            for (int d = 0; d < size; ++d) channel_slots[b * size + d] = carry[b * size + d];
        }
        __syncthreads();
    }
}

// Fallback for any lfilter order: one thread per channel through the whole
// signal. `state` (channels, order) is initialised here as init_mode says
// and ends as zf. `coefficients` holds b then a, `count` values each.
template <typename T>
__global__ void iir_df2t_sequential(const T* coefficients, int count,
                                    const T* x, index_t x_channel_stride, index_t x_time_stride,
                                    index_t x_samples, index_t x_edge, int x_mode,
                                    int x_reversed,
                                    T* y, index_t y_channel_stride, index_t y_time_stride,
                                    index_t y_skip, index_t y_count, int y_reversed,
                                    index_t channels, index_t length, T* state, int init_mode,
                                    const T* zi, const T* steady) {
    index_t c = (index_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= channels) return;
    Source<T> source = {x, x_channel_stride, x_time_stride, x_samples, x_edge, length,
                        x_mode, x_reversed};
    Sink<T> sink = {y, y_channel_stride, y_time_stride, y_skip, y_count, length, y_reversed};
    const int order = count - 1;
    const T* b = coefficients;
    const T* a = coefficients + count;
    T* z = state + c * order;
    T edge = init_mode == 2 ? source.at(c, 0) : T(0);
    for (int d = 0; d < order; ++d)
        z[d] = initial_state(init_mode, (int)KIND_DF2T, d, c, channels, order, zi, steady, edge);
    for (index_t i = 0; i < length; ++i) {
        T v = source.at(c, i);
        T out = b[0] * v + (order > 0 ? z[0] : T(0));
        for (int d = 0; d < order; ++d) {
            T next = d + 1 < order ? z[d + 1] : T(0);
            z[d] = next + b[d + 1] * v - a[d + 1] * out;
        }
        sink.put(c, i, out);
    }
}
