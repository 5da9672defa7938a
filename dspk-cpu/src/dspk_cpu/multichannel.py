"""The cpu runtime's variants of the multichannel operations."""

VARIANTS = {}
