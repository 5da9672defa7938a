"""(being written)"""

VARIANTS: dict = {}
