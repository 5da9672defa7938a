"""The conformance suite: every operation on every kernel variant, against scipy.

Run it with :func:`dspk.testing.run` or ``python -m dspk.testing RUNTIME``.
"""
