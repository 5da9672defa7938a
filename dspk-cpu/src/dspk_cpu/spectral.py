"""The cpu runtime's variants of the spectral operations."""

VARIANTS = {}
