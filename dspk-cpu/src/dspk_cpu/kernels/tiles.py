"""numba intrinsics for channel-interleaved kernels: square tile transposes, stack scratch.

A kernel that runs a recurrence across many channels at once keeps one cache line of
channels (:func:`lanes`: 16 float32 or 8 float64) interleaved in a small scratch array,
``work[sample, lane]``, so that its sample loop is one SIMD operation per step. When the
time axis is the contiguous one, getting there is a transpose; numba's scalar loops do it
at several cycles per element, so :func:`transpose_tile` writes it in LLVM IR instead:
``n`` vector loads of ``n`` elements (one cache line each), ``log2(n)`` rounds of
interleaving shuffles (each round pairs row ``i`` with row ``i + n / 2`` and interleaves
their low halves and their high halves; after ``log2(n)`` rounds rows have become
columns), and ``n`` vector stores. :func:`transpose_tile_stream` stores with
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


def _line_vector(context, array_type):
    """The LLVM vector type of one cache line of ``array_type``'s elements."""
    element = context.get_value_type(array_type.dtype)
    return ir.VectorType(element, LINE // context.get_abi_sizeof(element))


def _line_pointer(context, builder, array_type, array, row, column, vector):
    """``&array[row, column]`` as a pointer to ``vector`` (no bounds or wraparound)."""
    array = context.make_array(array_type)(context, builder, array)
    item = cgutils.get_item_pointer2(
        context, builder, array.data, cgutils.unpack_tuple(builder, array.shape, 2),
        cgutils.unpack_tuple(builder, array.strides, 2), array_type.layout,
        [row, column], wraparound=False)
    return builder.bitcast(item, vector.as_pointer())


def _store_line(builder, line, pointer, nontemporal):
    """Store one line: non-temporally (a whole aligned cache line) or plainly."""
    if nontemporal:
        hint = builder.module.add_metadata([ir.Constant(ir.IntType(32), 1)])
        builder.store(line, pointer, align=LINE).set_metadata("nontemporal", hint)
    else:
        builder.store(line, pointer, align=4)


def _transpose_codegen(nontemporal):
    def codegen(context, builder, sig, args):
        src_type, _, _, dst_type, _, _ = sig.args
        vector = _line_vector(context, src_type)
        n = vector.count

        def row_pointer(array_type, array, row, column, i):
            return _line_pointer(context, builder, array_type, array,
                                 builder.add(row, ir.Constant(row.type, i)), column, vector)

        rows = [builder.load(row_pointer(src_type, args[0], args[1], args[2], i), align=4)
                for i in range(n)]
        low, high = _interleave_masks(n)
        for _ in range(n.bit_length() - 1):
            pairs = zip(rows[:n // 2], rows[n // 2:])
            rows = [builder.shuffle_vector(a, b, mask) for a, b in pairs for mask in (low, high)]
        for i, row in enumerate(rows):
            _store_line(builder, row, row_pointer(dst_type, args[3], args[4], args[5], i),
                        nontemporal)
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
