"""scipy.signal's own tests with dspk in place of scipy, as a user migrating would run them.

Every function that dspk exports under a scipy.signal name replaces scipy's, in
``scipy.signal`` and in the namespaces of the test modules (which import the
names themselves); then pytest runs the modules and prints its summary.

    python docs/scripts/scipy_suite.py [test_signaltools.py ...] [-- pytest options]

The default modules are ``test_signaltools.py`` and ``test_upfirdn.py``. Tests that
exercise scipy functions dspk does not export still run scipy's own code.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import scipy.signal

import dspk

#: scipy.signal's names that dspk exports.
SWAPPED = sorted(name for name in dir(dspk) if not name.startswith("_")
                 and callable(getattr(dspk, name)) and callable(getattr(scipy.signal, name, None)))


class Swap:
    """The pytest plugin: dspk's functions in scipy.signal and in each collected module."""

    def pytest_collection_finish(self, session):
        modules = {item.module for item in session.items if getattr(item, "module", None)}
        for target in (scipy.signal, *modules):
            for name in SWAPPED:
                if hasattr(target, name):
                    setattr(target, name, getattr(dspk, name))


def main(argv: list[str]) -> int:
    """Run the named test modules of scipy.signal (default: signaltools, upfirdn)."""
    names, options = (argv[:argv.index("--")], argv[argv.index("--") + 1:]) if "--" in argv \
        else (argv, [])
    folder = Path(scipy.signal.__file__).parent / "tests"
    paths = [str(folder / n) for n in (names or ["test_signaltools.py", "test_upfirdn.py"])]
    print("dspk in place of scipy.signal for:", ", ".join(SWAPPED))
    return pytest.main([*paths, "-q", "-p", "no:cacheprovider", "--no-header", "-rN",
                        *options], plugins=[Swap()])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
