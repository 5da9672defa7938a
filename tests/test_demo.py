"""``dspk demo``: what a new user runs first reports a result that agrees with scipy."""

import re

from dspk import cli


def test_demo_reports_the_runtime_the_speed_and_an_error_within_float32(capsys):
    status = cli.main(["demo", "--channels", "8", "--seconds", "0.2", "--repeat", "1",
                       "--plot", ""])
    out = capsys.readouterr().out
    assert status == 0
    assert "running on 'cpu'" in out  # the repository's conftest: tests name no runtime
    assert re.search(r"dspk\.sosfiltfilt +\d+\.\d ms +\(float32; first call \d+ ms", out), out
    error = float(re.search(r"relative L2 error against float64 scipy (\S+)", out).group(1))
    assert 0 < error <= 1e-5
    assert float(re.search(r"speed-up (\S+)x", out).group(1)) > 0
