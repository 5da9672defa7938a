"""The ``hip`` runtime of dspk: a package skeleton.

It registers no runtime yet, so installing it changes nothing; its kernels,
probe and tuner arrive with the issue that builds this runtime.
"""
