"""The cpu runtime's variants of the resampling operations."""

VARIANTS = {}
