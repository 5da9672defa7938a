"""The repository's own tests: shared helpers come from the conformance kit.

:mod:`dspk.testing` holds the runtimes under test and the accuracy measure;
its pytest plugin (loaded by the pyproject's ``addopts``) gives the ``rng``
fixture and a private tuning cache. Every installed runtime is tested. One
that cannot open a device here is skipped with the probe's reason, unless
``DSPK_REQUIRE_RUNTIMES`` (a comma-separated list) names it: then the test
fails. Test modules here import the helpers from this module or from
:mod:`dspk.testing`.

Property tests draw their examples from a fixed seed: 10 a test by default,
40 with ``--exhaustive`` (the option of the kit's plugin).
"""

from hypothesis import settings

from dspk.testing import (  # noqa: F401  (re-exported for the test modules)
    TOLERANCE,
    open_backend,
    rel_l2,
    required_runtimes,
    runtimes_under_test,
    variant_params,
)

# The test plugins are installed by test_plugins.py into temporary folders;
# importing them from the source tree would make them visible to every test.
collect_ignore = ["plugins"]


def pytest_configure(config):
    settings.register_profile("dspk", deadline=None, derandomize=True,
                              max_examples=40 if config.getoption("exhaustive") else 10)
    settings.load_profile("dspk")
