"""numba intrinsics for channel-interleaved kernels: square tile transposes, stack scratch.

A kernel that runs a recurrence across many channels at once keeps one cache line of
channels (:func:`lanes`: 16 float32 or 8 float64) interleaved in a small scratch array,
``work[sample, lane]``, so that its sample loop is one SIMD operation per step. When the
time axis is the contiguous one, getting there is a transpose; numba's scalar loops do it
at several cycles per element, so :func:`transpose_tile` writes it in LLVM IR instead, as
square sub-tiles of :data:`SUBTILE` bytes a row (8 float32 or 4 float64: one AVX register,
so that a sub-tile's rows all stay in registers; whole-line rows of 16 float32 took 32
AVX2 registers, twice what there are, and spilled): ``k`` vector loads of ``k``
elements, ``log2(k)`` rounds of interleaving shuffles (each round pairs row ``i`` with
row ``i + k / 2`` and interleaves their low halves and their high halves; after
``log2(k)`` rounds rows have become columns), and ``k`` vector stores to the mirrored
sub-tile. :func:`transpose_tile_stream` stores with
non-temporal hints (whole aligned cache lines, not read first), for outputs that are not
read again soon; :func:`store_fence` orders those stores before the kernel returns.

:func:`copy_line` (and :func:`copy_line_stream`, non-temporal) moves one cache line of
channels at one sample as one vector, when the channels are the contiguous axis.

:func:`stack_array` allocates a fixed-size scratch array on the stack. Indexed only by
loop counters of unrolled loops, LLVM keeps it in registers: the filter state of a
channel block then never goes through memory inside the sample loop.
"""

from __future__ import annotations

import platform

import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

#: Bytes per cache line: the width of one channel block.
LINE = 64
#: Bytes per row of the sub-tiles :func:`transpose_tile` transposes in registers.
SUBTILE = 32


def lanes(dtype) -> int:
    """Channels of ``dtype`` in one cache line: the width of a channel block.

    Examples
    --------
    >>> lanes(np.float32), lanes(np.float64)
    (16, 8)
    """
    return LINE // np.dtype(dtype).itemsize


def _interleave_masks(n):
    low = [k for i in range(n // 2) for k in (i, i + n)]
    high = [k for i in range(n // 2, n) for k in (i, i + n)]
    mask = ir.VectorType(ir.IntType(32), n)
    return ir.Constant(mask, low), ir.Constant(mask, high)


def _line_vector(context, array_type, size=LINE):
    """The LLVM vector type of ``size`` bytes of ``array_type``'s elements (a cache line)."""
    element = context.get_value_type(array_type.dtype)
    return ir.VectorType(element, size // context.get_abi_sizeof(element))


def _line_pointer(context, builder, array_type, array, row, column, vector):
    """``&array[row, column]`` as a pointer to ``vector`` (no bounds or wraparound)."""
    array = context.make_array(array_type)(context, builder, array)
    item = cgutils.get_item_pointer2(
        context, builder, array.data, cgutils.unpack_tuple(builder, array.shape, 2),
        cgutils.unpack_tuple(builder, array.strides, 2), array_type.layout,
        [row, column], wraparound=False)
    return builder.bitcast(item, vector.as_pointer())


def _store_line(builder, line, pointer, nontemporal, size=LINE):
    """Store a vector of ``size`` bytes: non-temporally (aligned to its size, a part of a
    whole cache line that the other stores of the same call complete) or plainly."""
    if nontemporal:
        hint = builder.module.add_metadata([ir.Constant(ir.IntType(32), 1)])
        builder.store(line, pointer, align=size).set_metadata("nontemporal", hint)
    else:
        builder.store(line, pointer, align=4)


def _transpose_codegen(nontemporal):
    def codegen(context, builder, sig, args):
        src_type, _, _, dst_type, _, _ = sig.args
        vector = _line_vector(context, src_type, SUBTILE)
        n, k = _line_vector(context, src_type).count, vector.count
        low, high = _interleave_masks(k)

        def pointer(array_type, array, row, column, i, j):
            return _line_pointer(context, builder, array_type, array,
                                 builder.add(row, ir.Constant(row.type, i)),
                                 builder.add(column, ir.Constant(column.type, j)), vector)

        # A destination row's sub-tiles one after the other: its cache line is written
        # whole while it is in L1, or in one write-combining buffer when streaming.
        for i0, j0 in ((i0, j0) for j0 in range(0, n, k) for i0 in range(0, n, k)):
            rows = [builder.load(pointer(src_type, args[0], args[1], args[2], i0 + i, j0),
                                 align=4) for i in range(k)]
            for _ in range(k.bit_length() - 1):
                pairs = zip(rows[:k // 2], rows[k // 2:])
                rows = [builder.shuffle_vector(a, b, mask)
                        for a, b in pairs for mask in (low, high)]
            for j, row in enumerate(rows):
                _store_line(builder, row,
                            pointer(dst_type, args[3], args[4], args[5], j0 + j, i0),
                            nontemporal, SUBTILE)
        return context.get_dummy_value()

    return codegen


def _transpose_typer(src, r0, c0, dst, d0, d1):
    if not (isinstance(src, types.Array) and isinstance(dst, types.Array)
            and src.ndim == dst.ndim == 2 and src.dtype == dst.dtype
            and src.dtype in (types.float32, types.float64)):
        return None
    return types.void(src, r0, c0, dst, d0, d1)


@intrinsic
def transpose_tile(typingctx, src, r0, c0, dst, d0, d1):
    """``dst[d0 + j, d1 + i] = src[r0 + i, c0 + j]`` for ``i, j < lanes(dtype)``.

    Both arrays must have unit stride along their second axis; no alignment needed.
    """
    signature = _transpose_typer(src, r0, c0, dst, d0, d1)
    return signature, _transpose_codegen(False)


@intrinsic
def transpose_tile_stream(typingctx, src, r0, c0, dst, d0, d1):
    """:func:`transpose_tile` with non-temporal stores: every ``dst`` row of the tile must
    start on a 64-byte boundary. Call :func:`store_fence` before the kernel returns."""
    signature = _transpose_typer(src, r0, c0, dst, d0, d1)
    return signature, _transpose_codegen(True)


def _copy_line_codegen(nontemporal):
    def codegen(context, builder, sig, args):
        src_type, _, _, dst_type, _, _ = sig.args
        vector = _line_vector(context, src_type)
        line = builder.load(_line_pointer(context, builder, src_type, *args[:3], vector),
                            align=4)
        _store_line(builder, line, _line_pointer(context, builder, dst_type, *args[3:], vector),
                    nontemporal)
        return context.get_dummy_value()

    return codegen


@intrinsic
def copy_line(typingctx, src, r0, c0, dst, d0, d1):
    """Copy the ``lanes(dtype)`` elements in memory from ``src[r0, c0]`` on to those from
    ``dst[d0, d1]`` on, as one vector: each run must be contiguous in its array, along
    whichever axis has unit stride (a block's channels at one sample, in either array).
    """
    return _transpose_typer(src, r0, c0, dst, d0, d1), _copy_line_codegen(False)


@intrinsic
def copy_line_stream(typingctx, src, r0, c0, dst, d0, d1):
    """:func:`copy_line` with a non-temporal store: ``dst[d0, d1]`` must start a 64-byte
    line. Call :func:`store_fence` before the kernel returns."""
    return _transpose_typer(src, r0, c0, dst, d0, d1), _copy_line_codegen(True)


@intrinsic
def store_fence(typingctx):
    """An ``sfence``: non-temporal stores before it are visible before any store after it."""

    def codegen(context, builder, sig, args):
        if platform.machine().lower() in ("x86_64", "amd64"):
            fence = cgutils.get_or_insert_function(
                builder.module, ir.FunctionType(ir.VoidType(), []), "llvm.x86.sse.sfence")
            builder.call(fence, [])
        else:
            builder.fence("seq_cst")
        return context.get_dummy_value()

    return types.void(), codegen


@intrinsic(prefer_literal=True)
def stack_array(typingctx, size, dtype):
    """A pointer to ``size`` (a literal integer) uninitialised elements of ``dtype`` (an
    array's ``.dtype``) on the stack of the calling function; view it with
    ``numba.carray(pointer, shape)``."""
    if not isinstance(size, types.IntegerLiteral):
        return None
    if not isinstance(dtype, types.DType):
        return None
    element = dtype.dtype

    def codegen(context, builder, sig, args):
        return cgutils.alloca_once(builder, context.get_value_type(element),
                                   size=context.get_constant(types.intp, size.literal_value))

    return types.CPointer(element)(size, dtype), codegen
