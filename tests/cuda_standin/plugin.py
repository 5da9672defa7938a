"""pytest plugin: ``--cuda-standin PLATFORM`` opens the cuda or hip runtime on the stand-in.

Load it with ``-p cuda_standin.plugin`` (``tests`` on the Python path). With
the option, the stand-in ``cupy`` is in ``sys.modules`` before any runtime is
opened, so the runtime of that platform, installed in the environment
(``pip install --no-deps -e ./dspk-cuda`` and, for hip, ``./dspk-hip``),
opens on it through dspk's registry like on a GPU. ``conformance.sh`` runs
the conformance kit this way.
"""

from __future__ import annotations

import sys
from importlib.metadata import entry_points

import pytest

import cuda_standin
from cuda_standin.device import PLATFORMS
from cuda_standin.emulation import asan_loaded, unavailable


def pytest_addoption(parser):
    parser.getgroup("dspk").addoption(
        "--cuda-standin", choices=sorted(PLATFORMS), metavar="PLATFORM",
        help="run the runtime of PLATFORM (cuda or hip) on the CPU stand-in of CuPy and a GPU")


def pytest_configure(config):
    platform = config.getoption("cuda_standin")
    if platform is None:
        return
    if unavailable():
        raise pytest.UsageError(f"--cuda-standin: {unavailable()}")
    if platform not in {e.name for e in entry_points(group="dspk.runtimes")}:
        packages = "./dspk-cuda" + (" ./dspk-hip" if platform == "hip" else "")
        raise pytest.UsageError(f"--cuda-standin {platform}: the {platform} runtime is not "
                                f"installed here; python -m pip install --no-deps -e {packages}")
    sys.modules["cupy"] = cuda_standin.make(platform)


def pytest_report_header(config):
    platform = config.getoption("cuda_standin")
    if platform is not None:
        return (f"dspk: {platform} on the CPU stand-in ({PLATFORMS[platform].name}), "
                f"AddressSanitizer {'on' if asan_loaded() else 'off'}")
