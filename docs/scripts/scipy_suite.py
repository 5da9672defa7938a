"""scipy.signal's own tests with dspk in place of scipy, as a user migrating would run them.

Every function that dspk exports under a scipy.signal name replaces scipy's in the
namespaces of the test modules (the names they import, and their ``signal``);
then pytest runs the modules and prints its summary.

    python docs/scripts/scipy_suite.py [test_signaltools.py ...] [-- pytest options]

The default modules are ``test_signaltools.py`` and ``test_upfirdn.py``. Tests that
exercise scipy functions dspk does not export still run scipy's own code.
"""

from __future__ import annotations

import sys
import types
from pathlib import Path

import pytest
import scipy.signal

import dspk

#: scipy.signal's names that dspk exports.
SWAPPED = sorted(name for name in dir(dspk) if not name.startswith("_")
                 and callable(getattr(dspk, name)) and callable(getattr(scipy.signal, name, None)))


def _signal_with_dspk() -> types.ModuleType:
    """A stand-in for the test modules' ``signal``: scipy.signal's names, dspk's where it
    has them (scipy.signal itself stays scipy's, which dspk calls for filter design)."""
    module = types.ModuleType("scipy.signal")
    module.__dict__.update(vars(scipy.signal))
    module.__dict__.update({name: getattr(dspk, name) for name in SWAPPED})
    return module


class Swap:
    """The pytest plugin: dspk's functions in each collected test module's namespace."""

    def pytest_collection_finish(self, session):
        stand_in = _signal_with_dspk()
        for module in {item.module for item in session.items if getattr(item, "module", None)}:
            for name in SWAPPED:
                if hasattr(module, name):
                    setattr(module, name, getattr(dspk, name))
            if getattr(module, "signal", None) is scipy.signal:
                module.signal = stand_in


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
