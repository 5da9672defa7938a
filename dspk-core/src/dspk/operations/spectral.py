"""Catalogue entries of the spectral kernels."""

OPERATIONS = ()
