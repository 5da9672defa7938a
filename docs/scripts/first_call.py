"""A new user's first call: importing numpy, scipy.signal and dspk, then one
``dspk.sosfiltfilt`` of 384 x 150000 float32, each timed in a fresh interpreter.

Cold (nothing compiled or tuned) and warm (caches filled by a run that waits for
its kernels), three times each, in fresh cache directories::

    python docs/scripts/first_call.py [--runs 3]
"""

import argparse
import os
import subprocess
import sys
import tempfile

CALL = """
import time
start = time.perf_counter()
import numpy as np, scipy.signal, dspk
imported = time.perf_counter()
x = np.random.default_rng(0).standard_normal((384, 150000)).astype(np.float32)
sos = scipy.signal.butter(3, [300, 6000], "bandpass", fs=30000, output="sos")
called = time.perf_counter()
dspk.sosfiltfilt(sos, x)
done = time.perf_counter()
print(f"{imported - start:.2f} {done - called:.2f}")
"""

FILL = """
import numpy as np, scipy.signal, dspk
from dspk.plugin import waiting_for_kernels
x = np.random.default_rng(0).standard_normal((384, 150000)).astype(np.float32)
sos = scipy.signal.butter(3, [300, 6000], "bandpass", fs=30000, output="sos")
with waiting_for_kernels():
    for _ in range(3):
        dspk.sosfiltfilt(sos, x)
"""


def run(code: str, env: dict) -> str:
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                          text=True, check=True)
    return done.stdout.strip()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    print("| caches | import (s) | first call (s) | both (s) |")
    print("| --- | ---: | ---: | ---: |")
    for kind in ("cold", "warm"):
        for _ in range(args.runs):
            with tempfile.TemporaryDirectory() as numba, tempfile.TemporaryDirectory() as tuning:
                env = {**os.environ, "NUMBA_CACHE_DIR": numba, "DSPK_CACHE_DIR": tuning}
                if kind == "warm":
                    run(FILL, env)
                imported, called = map(float, run(CALL, env).split())
                print(f"| {kind} | {imported:.2f} | {called:.2f} | {imported + called:.2f} |")


if __name__ == "__main__":
    main()
