// Common median reference: each member channel of a group minus the group's
// median at that sample. One thread per sample selects the median of the
// group's values held in its own array of CAPACITY (Wirth's selection:
// partition around a[k] until k is in place, O(count) on average); for an
// even count the upper middle value is the smallest above position k.
// A NaN among the values makes the median NaN, as numpy.median does.
// Threads run along time, so for time-contiguous signals every member
// channel is read with coalesced loads.

template <typename T>
__device__ T select_kth(T* a, int count, int k) {
    int lo = 0, hi = count - 1;
    while (lo < hi) {
        const T pivot = a[k];
        int i = lo, j = hi;
        do {
            while (a[i] < pivot) ++i;
            while (pivot < a[j]) --j;
            if (i <= j) {
                const T swap = a[i];
                a[i] = a[j];
                a[j] = swap;
                ++i;
                --j;
            }
        } while (i <= j);
        if (j < k) lo = i;
        if (k < i) hi = j;
    }
    return a[k];
}

template <typename T, int CAPACITY>
__global__ void median_reference(const T* x, index_t x_channel_stride, index_t x_time_stride,
                                 T* y, index_t y_channel_stride, index_t y_time_stride,
                                 const long long* members, int count, index_t samples) {
    const index_t t = (index_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= samples || count < 1 || count > CAPACITY) return;
    T values[CAPACITY];
    T missing = T(0);
    bool has_nan = false;
    for (int m = 0; m < count; ++m) {
        const T v = x[members[m] * x_channel_stride + t * x_time_stride];
        if (v != v) {
            has_nan = true;
            missing = v;
        }
        values[m] = v;
    }
    const int k = (count - 1) / 2;
    T median = has_nan ? missing : select_kth(values, count, k);
    if (!has_nan && count % 2 == 0) {
        T upper = values[k + 1];
        for (int m = k + 2; m < count; ++m) upper = values[m] < upper ? values[m] : upper;
        median = (median + upper) / T(2);
    }
    for (int m = 0; m < count; ++m) {
        const index_t c = members[m];
        y[c * y_channel_stride + t * y_time_stride] = x[c * x_channel_stride + t * x_time_stride] - median;
    }
}

// Neighbour reference: channel c minus the median (use_median 1) or mean of
// its neighbours table[c, 0 .. count - 1] at that sample, where the row ends
// at the first -1 or after `width` entries; a row without neighbours leaves
// its channel as it is. One thread per (sample, channel): threads run along
// time (x) and channels (y), the median selected in the thread's own array.
template <typename T, int CAPACITY>
__global__ void neighbour_reference(const T* x, index_t x_channel_stride, index_t x_time_stride,
                                    T* y, index_t y_channel_stride, index_t y_time_stride,
                                    const long long* table, int width, int channels,
                                    int use_median, index_t samples) {
    const index_t t = (index_t)blockIdx.x * blockDim.x + threadIdx.x;
    const int c = blockIdx.y;
    if (t >= samples || c >= channels) return;
    const long long* row = table + (index_t)c * width;
    int count = 0;
    while (count < width && row[count] >= 0) ++count;
    const T own = x[c * x_channel_stride + t * x_time_stride];
    T reference = T(0);
    if (count > 0 && !use_median) {
        double total = 0.0;
        for (int m = 0; m < count; ++m) total += (double)x[row[m] * x_channel_stride + t * x_time_stride];
        reference = (T)(total / count);
    } else if (count > 0 && count <= CAPACITY) {
        T values[CAPACITY];
        bool has_nan = false;
        T missing = T(0);
        for (int m = 0; m < count; ++m) {
            const T v = x[row[m] * x_channel_stride + t * x_time_stride];
            if (v != v) {
                has_nan = true;
                missing = v;
            }
            values[m] = v;
        }
        const int k = (count - 1) / 2;
        reference = has_nan ? missing : select_kth(values, count, k);
        if (!has_nan && count % 2 == 0) {
            T upper = values[k + 1];
            for (int m = k + 2; m < count; ++m) upper = values[m] < upper ? values[m] : upper;
            reference = (reference + upper) / T(2);
        }
    }
    y[c * y_channel_stride + t * y_time_stride] = own - reference;
}
