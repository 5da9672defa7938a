"""A plugin module whose import ends the process, as a careless plugin's might."""

import sys

sys.exit(3)
