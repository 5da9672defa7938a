"""``python -m dspk.testing RUNTIME [pytest options]``: the conformance suite on one runtime."""

import sys

from dspk.testing import _main

sys.exit(_main(sys.argv[1:]))
