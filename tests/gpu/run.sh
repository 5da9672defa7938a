#!/usr/bin/env bash
# The GPU check of the cuda and wgpu runtimes, for a machine with CuPy, numpy,
# scipy, numba, pytest and setuptools and no internet; run from the repository
# root with $OUT set to an output folder. Logs and JSON (eight files at most)
# go under $OUT; a short table last.
#
# Optional carried folders (see docs/cuda.md, "On a GPU"):
#   .whl/  wheels missing there (wgpu, cffi, pycparser, rendercanvas,
#          platformdirs), installed into /tmp/site
#   .gl/   the Vulkan loader's .deb packages, unpacked into / for wgpu
#
# Each step has its own time limit; the two conformance runs share the
# machine (one on CuPy, one on Vulkan), the fault tests and the benchmarks run
# alone after them.
set -u
OUT=${OUT:-/tmp/dspk-gpu-out}
mkdir -p "$OUT"
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-/tmp} PYTHONUNBUFFERED=1
PY=${PYTHON:-python3}
CONFORMANCE_S=${CONFORMANCE_S:-170}
BENCH_S=${BENCH_S:-110}
FAULTS_S=${FAULTS_S:-90}

{
  nvidia-smi -L 2>&1 || true
  if ls .gl/*.deb >/dev/null 2>&1 && ! ldconfig -p | grep -q libvulkan; then
    for f in .gl/*.deb; do dpkg -x "$f" /; done
    ldconfig
  fi
  if ls .whl/*.whl >/dev/null 2>&1; then
    $PY -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
      --target /tmp/site .whl/*.whl
  fi
  $PY -m pip install --no-deps --no-build-isolation -q ./dspk-core ./dspk-cpu ./dspk-cuda ./dspk-wgpu
} > "$OUT/install.log" 2>&1
echo "install rc=$?"
[ -d /tmp/site ] && export PYTHONPATH=/tmp/site${PYTHONPATH:+:$PYTHONPATH}
nvidia_icd=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
[ -f "$nvidia_icd" ] && export VK_DRIVER_FILES=${VK_DRIVER_FILES:-$nvidia_icd}

timeout 60 $PY -c "import dspk, json; print(json.dumps(dspk.runtime.info(), indent=1))" \
  > "$OUT/info.log" 2>&1
echo "info rc=$?"; grep -E '"(name|device|reason|available)"' "$OUT/info.log" | head -n 20

# One conformance run per runtime, in parallel, each in its own cache; a
# runtime that cannot open a device fails (DSPK_REQUIRE_RUNTIMES).
conformance() {  # runtime
  DSPK_CACHE_DIR="/tmp/dspk-cache-$1" DSPK_REQUIRE_RUNTIMES=$1 timeout "$CONFORMANCE_S" \
    $PY -m pytest -q -p no:cacheprovider --maxfail=200 --tb=short --dspk-runtime "$1" \
    --pyargs dspk.testing.conformance \
    > "$OUT/conformance-$1.log" 2>&1
}
conformance cuda & cuda=$!
conformance wgpu & wgpu=$!
wait $cuda; rc[0]=$?
wait $wgpu; rc[1]=$?
for i in 0 1; do
  runtime=$([ $i = 0 ] && echo cuda || echo wgpu)
  echo "conformance $runtime rc=${rc[$i]}"
  grep -E '^(FAILED|ERROR)' "$OUT/conformance-$runtime.log" | cut -c1-160 | head -n 25
  tail -n 2 "$OUT/conformance-$runtime.log"
done

# The process-level faults (fork after use, read-only cache, stale lock), the
# library's input faults, and chains of device arrays and another library's GPU
# tensors (a double over CuPy's arrays), with every runtime that opens here.
timeout "$FAULTS_S" $PY -m pytest -q -p no:cacheprovider --tb=short -x \
  tests/test_faults.py tests/test_input_faults.py tests/test_device_arrays.py \
  > "$OUT/faults.log" 2>&1
echo "faults rc=$?"; grep -E '^(FAILED|ERROR)' "$OUT/faults.log" | cut -c1-160 | head -n 10
tail -n 1 "$OUT/faults.log"

# dspk beside cupyx.scipy.signal (the cuda backend's bench peers), on the
# same device arrays, with the device copy as the floor; then wgpu beside cuda.
DSPK_CACHE_DIR=/tmp/dspk-cache-bench timeout "$BENCH_S" $PY -m dspk bench --runtime cuda \
  --shape 384x524288 --dtype float32 --repeat 5 --json "$OUT/bench.json" > "$OUT/bench.log" 2>&1
echo "bench rc=$?"
DSPK_CACHE_DIR=/tmp/dspk-cache-bench timeout "$BENCH_S" $PY -m dspk bench --runtime cuda wgpu \
  --shape 384x131072 --dtype float32 --repeat 5 > "$OUT/bench-wgpu.log" 2>&1
echo "bench wgpu rc=$?"
echo "== dspk bench --runtime cuda, 384x524288 float32: dspk vs cupyx.scipy.signal =="
cat "$OUT/bench.log"
echo "== dspk bench --runtime cuda wgpu, 384x131072 float32 =="
cat "$OUT/bench-wgpu.log"
