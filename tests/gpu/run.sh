#!/usr/bin/env bash
# The GPU check of the cuda runtime, for a machine with CuPy, numpy, scipy,
# pytest and setuptools and no internet; run from the repository root with
# $OUT set to an output folder. Logs and JSON go under $OUT; a table last.
set -u
OUT=${OUT:-/tmp/dspk-gpu-out}
mkdir -p "$OUT"
export DSPK_CACHE_DIR="$OUT/cache" XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-/tmp}
PY=${PYTHON:-python}
deadline() { timeout "$1" "${@:2}"; }

{
  nvidia-smi -L 2>&1 || true
  $PY -m pip install --no-deps --no-build-isolation -q ./dspk-core ./dspk-cpu ./dspk-cuda ./dspk-wgpu
} > "$OUT/install.log" 2>&1
echo "install rc=$?"

deadline 60 $PY -c "import dspk, json; print(json.dumps(dspk.runtime.info(), indent=1))" > "$OUT/info.log" 2>&1
echo "info rc=$?"; tail -n 20 "$OUT/info.log"

deadline 240 $PY -m pytest -q --maxfail=20 -p no:cacheprovider --dspk-runtime cuda \
  --pyargs dspk.testing.conformance > "$OUT/conformance.log" 2>&1
conformance=$?
echo "conformance rc=$conformance"; tail -n 5 "$OUT/conformance.log"

# dspk beside cupyx.scipy.signal (the cuda backend's bench peers), on the
# same device arrays, with the device copy as the floor.
deadline 190 dspk bench --runtime cuda --shape 384x524288 --dtype float32 \
  --json "$OUT/bench.json" > "$OUT/bench.log" 2>&1
echo "bench rc=$?"

echo "== dspk bench --runtime cuda, 384x524288 float32: dspk vs cupyx.scipy.signal =="
cat "$OUT/bench.log"
