"""``python -m dspk``: the command line."""

import sys

from dspk.cli import main

sys.exit(main())
