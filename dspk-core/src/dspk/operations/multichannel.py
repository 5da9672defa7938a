"""Catalogue entries of the multichannel kernels."""

OPERATIONS = ()
