// CUDA's execution model on one host thread: the runtime of the CUDA stand-in.
//
// emulation.py compiles every kernel source with this text in front of it
// and a launcher per template instance after it. Each CUDA thread of a block
// is a fiber with its own stack. A block runs its fibers one after another
// in the launch's order, each until its next __syncthreads() or its end, and
// again, until every one has ended, so a barrier is a point that every
// thread of the block reaches before any goes past it; a barrier that some
// threads reach after others have returned is an error. Blocks run one after
// another in the same order (forward, or everything reversed).
//
// Shared memory is one arena per module: the launch's dynamic shared memory
// first, then each static __shared__ declaration (emulation.py rewrites them
// into calls of static_shared) where a thread of the block first reaches it,
// each filled with 0xFF bytes (NaN) for every block; dynamic and static bytes
// together must fit the device's limit. Under AddressSanitizer the arena
// outside what the block has declared is poisoned, and every switch between
// stacks is announced to it.

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include <sys/mman.h>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#define DSPK_ASAN 1
#else
#define DSPK_ASAN 0
#endif

#if !defined(__x86_64__)
#error "the CUDA stand-in switches between fibers with x86-64 code"
#endif

struct dspk_uint3 {
    unsigned int x, y, z;
};
static dspk_uint3 threadIdx, blockIdx, blockDim, gridDim;
static int warpSize;

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __align__(n) alignas(n)
#define __restrict__ __restrict

// One launch, as emulation.py's Config structure fills it.
struct dspk_config {
    unsigned int grid[3];
    unsigned int block[3];
    long long dynamic_shared;
    long long shared_limit;
    int warp_size;
    int reverse;
};

// Saves the callee-saved registers on the current stack and its stack
// pointer in *from, then continues on the stack `to` (saved the same way).
extern "C" void dspk_switch(void** from, void* to);
asm(R"(
    .text
    .p2align 4
    .hidden dspk_switch
    .type dspk_switch, @function
dspk_switch:
    pushq %rbp
    pushq %rbx
    pushq %r12
    pushq %r13
    pushq %r14
    pushq %r15
    movq %rsp, (%rdi)
    movq %rsi, %rsp
    popq %r15
    popq %r14
    popq %r13
    popq %r12
    popq %rbx
    popq %rbp
    ret
    .size dspk_switch, .-dspk_switch
)");

namespace dspk {

enum State { READY, AT_BARRIER, DONE };

struct Fiber {
    void* sp = nullptr;
    char* stack = nullptr;  // lowest address of the stack, above its guard page
    void* fake_stack = nullptr;
    dspk_uint3 index = {0, 0, 0};
    State state = DONE;
};

const size_t STACK_BYTES = 256 * 1024;
const size_t PAGE = 4096;
const size_t ARENA_BYTES = 1 << 20;
const size_t GAP = 64;  // poisoned bytes between shared-memory regions under ASan

static std::vector<Fiber> fibers;
static Fiber* current = nullptr;
static void* scheduler_sp = nullptr;
static const void* scheduler_bottom = nullptr;
static size_t scheduler_size = 0;
static void (*body)(void*) = nullptr;
static void* closure = nullptr;
static bool failed = false;
static char message[4096];

alignas(64) static unsigned char arena[ARENA_BYTES];
static size_t arena_end = 0;        // first free byte of the block's arena
static size_t declared = 0;         // bytes the block declared: dynamic and static
static size_t shared_limit = 0;
static std::vector<long long> static_offsets;  // per declaration, -1 until placed

static void record(const char* format, va_list arguments) {
    int used = std::snprintf(message, sizeof message, "block (%u, %u, %u), thread (%u, %u, %u): ",
                             blockIdx.x, blockIdx.y, blockIdx.z, threadIdx.x, threadIdx.y,
                             threadIdx.z);
    std::vsnprintf(message + used, sizeof message - used, format, arguments);
    failed = true;
}

static void enter(Fiber& fiber) {
    current = &fiber;
    threadIdx = fiber.index;
#if DSPK_ASAN
    void* fake = nullptr;
    __sanitizer_start_switch_fiber(&fake, fiber.stack, STACK_BYTES);
#endif
    dspk_switch(&scheduler_sp, fiber.sp);
#if DSPK_ASAN
    __sanitizer_finish_switch_fiber(fake, nullptr, nullptr);
#endif
    current = nullptr;
}

static void leave(bool finished) {
    Fiber* fiber = current;
#if DSPK_ASAN
    __sanitizer_start_switch_fiber(finished ? nullptr : &fiber->fake_stack, scheduler_bottom,
                                   scheduler_size);
#endif
    dspk_switch(&fiber->sp, scheduler_sp);
#if DSPK_ASAN
    __sanitizer_finish_switch_fiber(fiber->fake_stack, &scheduler_bottom, &scheduler_size);
#endif
}

// A fault found inside a kernel: the launch stops, this thread never resumes.
[[noreturn]] static void fail(const char* format, ...) {
    va_list arguments;
    va_start(arguments, format);
    record(format, arguments);
    va_end(arguments);
    leave(true);
    __builtin_unreachable();
}

[[noreturn]] static void fiber_main() {
#if DSPK_ASAN
    __sanitizer_finish_switch_fiber(nullptr, &scheduler_bottom, &scheduler_size);
#endif
    body(closure);
    current->state = DONE;
    leave(true);
    __builtin_unreachable();
}

static void barrier() {
    current->state = AT_BARRIER;
    leave(false);
}

static bool ensure_fibers(size_t count) {
    while (fibers.size() < count) {
        void* base = mmap(nullptr, STACK_BYTES + PAGE, PROT_READ | PROT_WRITE,
                          MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (base == MAP_FAILED) return false;
        mprotect(base, PAGE, PROT_NONE);  // a stack overflow faults here
        Fiber fiber;
        fiber.stack = static_cast<char*>(base) + PAGE;
        fibers.push_back(fiber);
    }
    return true;
}

// A fresh stack whose first switch returns into fiber_main, aligned as a call would.
static void start(Fiber& fiber, dspk_uint3 index) {
    fiber.index = index;
    fiber.state = READY;
    fiber.fake_stack = nullptr;
    uintptr_t top = (reinterpret_cast<uintptr_t>(fiber.stack) + STACK_BYTES) & ~uintptr_t(15);
    void** slot = reinterpret_cast<void**>(top - 16);
    slot[0] = reinterpret_cast<void*>(&fiber_main);
    slot[1] = nullptr;
    void** sp = slot - 6;  // rbp, rbx, r12-r15 as dspk_switch pops them
    for (int i = 0; i < 6; ++i) sp[i] = nullptr;
    fiber.sp = sp;
}

static void poison(size_t begin, size_t end) {
#if DSPK_ASAN
    if (end > begin) __asan_poison_memory_region(arena + begin, end - begin);
#else
    (void)begin;
    (void)end;
#endif
}

static void unpoison(size_t begin, size_t end) {
#if DSPK_ASAN
    if (end > begin) __asan_unpoison_memory_region(arena + begin, end - begin);
#else
    (void)begin;
    (void)end;
#endif
}

#if DSPK_ASAN
// Nothing of the arena is the kernels' until a block declares it.
__attribute__((constructor)) static void poison_arena() {
    __asan_poison_memory_region(arena, ARENA_BYTES);
}
#endif

static void begin_block(size_t dynamic) {
    std::fill(static_offsets.begin(), static_offsets.end(), -1);
    poison(dynamic, arena_end);
    unpoison(0, dynamic);
    std::memset(arena, 0xFF, dynamic);
    arena_end = dynamic;
    declared = dynamic;
}

// Runs the block's threads in `order` until all have returned.
static void run_block(const std::vector<unsigned>& order) {
    for (;;) {
        for (unsigned t : order) {
            Fiber& fiber = fibers[t];
            if (fiber.state == DONE) continue;
            fiber.state = READY;
            enter(fiber);
            if (failed) return;
        }
        size_t waiting = 0;
        for (unsigned t : order) waiting += fibers[t].state == AT_BARRIER;
        if (waiting == 0) return;
        if (waiting < order.size()) {
            std::snprintf(message, sizeof message,
                          "block (%u, %u, %u): __syncthreads() reached by %zu of the block's "
                          "%zu threads; the others had returned",
                          blockIdx.x, blockIdx.y, blockIdx.z, waiting, order.size());
            failed = true;
            return;
        }
    }
}

template <typename A>
A* static_shared(int id) {
    if (id >= static_cast<int>(static_offsets.size())) static_offsets.resize(id + 1, -1);
    if (static_offsets[id] < 0) {
        declared += sizeof(A);
        if (declared > shared_limit)
            fail("shared memory: %zu bytes (dynamic and static) exceed the device's %zu",
                 declared, shared_limit);
        size_t offset = (arena_end + GAP + 15) / 16 * 16;
        if (offset + sizeof(A) > ARENA_BYTES) fail("shared memory: the stand-in's arena is full");
        unpoison(offset, offset + sizeof(A));
        std::memset(arena + offset, 0xFF, sizeof(A));
        static_offsets[id] = offset;
        arena_end = offset + sizeof(A);
    }
    return reinterpret_cast<A*>(arena + static_offsets[id]);
}

template <typename E>
E* dynamic_shared() {
    return reinterpret_cast<E*>(arena);
}

template <typename F>
int run(const dspk_config& config, F& kernel) {
    failed = false;
    message[0] = '\0';
    body = [](void* k) { (*static_cast<F*>(k))(); };
    closure = &kernel;
    gridDim = {config.grid[0], config.grid[1], config.grid[2]};
    blockDim = {config.block[0], config.block[1], config.block[2]};
    warpSize = config.warp_size;
    shared_limit = static_cast<size_t>(config.shared_limit);
    const size_t dynamic = static_cast<size_t>(config.dynamic_shared);
    if (dynamic + GAP > ARENA_BYTES) {
        std::snprintf(message, sizeof message, "the stand-in's shared arena holds %zu bytes",
                      ARENA_BYTES);
        return 1;
    }
    const unsigned threads = blockDim.x * blockDim.y * blockDim.z;
    if (!ensure_fibers(threads)) {
        std::snprintf(message, sizeof message, "no memory for %u fiber stacks", threads);
        return 1;
    }
    std::vector<unsigned> order(threads);
    for (unsigned i = 0; i < threads; ++i) order[i] = config.reverse ? threads - 1 - i : i;
    const unsigned long long blocks =
        static_cast<unsigned long long>(gridDim.x) * gridDim.y * gridDim.z;
    for (unsigned long long n = 0; n < blocks && !failed; ++n) {
        const unsigned long long b = config.reverse ? blocks - 1 - n : n;
        blockIdx = {static_cast<unsigned>(b % gridDim.x),
                    static_cast<unsigned>(b / gridDim.x % gridDim.y),
                    static_cast<unsigned>(b / gridDim.x / gridDim.y)};
        begin_block(dynamic);
        for (unsigned t = 0; t < threads; ++t)
            start(fibers[t], {t % blockDim.x, t / blockDim.x % blockDim.y,
                              t / blockDim.x / blockDim.y});
        run_block(order);
    }
#if DSPK_ASAN
    if (failed)  // abandoned fibers leave their frames' redzones behind
        for (unsigned t = 0; t < threads; ++t)
            __asan_unpoison_memory_region(fibers[t].stack, STACK_BYTES);
#endif
    return failed ? 1 : 0;
}

}  // namespace dspk

inline void __syncthreads() { dspk::barrier(); }

extern "C" const char* dspk_message() { return dspk::message; }

// The block and thread running now (where AddressSanitizer found a fault).
extern "C" void dspk_where(unsigned int* out) {
    const dspk_uint3 at[2] = {blockIdx, threadIdx};
    std::memcpy(out, at, sizeof at);
}
