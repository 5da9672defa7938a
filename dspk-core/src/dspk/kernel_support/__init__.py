"""Host-side algorithms that several runtimes' kernels share, written once.

Runtimes import these modules beside :mod:`dspk.plugin` and
:mod:`dspk.operations`: :mod:`.transitions` plans time-parallel IIR filters
(block transitions and the scan's powers, in one precision),
:mod:`.copies` copies between channel-major and sample-major host arrays in
blocks that stay in cache, :mod:`.segments` holds the segment geometry of stft
and csd, csd's averages over segments and stft's values, on any array namespace
``xp`` (NumPy, CuPy).
A runtime hashes the modules it imports into its variants' sources, since a
change to them changes its kernels' results or speed.
"""
