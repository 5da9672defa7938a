"""Catalogue entries of the resampling kernels."""

OPERATIONS = ()
