#!/usr/bin/env bash
# The conformance kit, tests/test_cuda_launches.py and tests/test_device_arrays.py
# on the cuda or hip runtime over the CPU stand-in of CuPy and a GPU
# (tests/cuda_standin), with
# AddressSanitizer loaded so that every kernel is compiled with it: an access
# outside any allocation, or outside the shared memory a block declared, fails
# the test that made it.
#
#   tests/cuda_standin/conformance.sh cuda|hip [pytest options]
#
# Needs g++ with libasan, and the runtime's package in .venv:
#   .venv/bin/python -m pip install --no-deps -e ./dspk-cuda -e ./dspk-hip
# DSPK_CUDA_STANDIN_ASAN=0 runs without the sanitizer.
set -euo pipefail
cd "$(dirname "$0")/../.."
platform=${1:?usage: tests/cuda_standin/conformance.sh cuda|hip [pytest options]}
shift
export PYTHONPATH=tests${PYTHONPATH:+:$PYTHONPATH}
if [ "${DSPK_CUDA_STANDIN_ASAN:-1}" != 0 ]; then
  asan=$(g++ -print-file-name=libasan.so)
  [ -f "$asan" ] || { echo "conformance.sh: g++ has no libasan.so" >&2; exit 2; }
  export LD_PRELOAD=$asan${LD_PRELOAD:+:$LD_PRELOAD}
  # Python's own allocations are never freed at exit; a huge request returns
  # NULL (MemoryError) instead of aborting; reports go on to the next test.
  options=detect_leaks=0:allocator_may_return_null=1:halt_on_error=0
  export ASAN_OPTIONS=$options${ASAN_OPTIONS:+:$ASAN_OPTIONS}
fi
# The whole kit: a marker expression true of every test keeps the combinations
# a default run leaves out (marked exhaustive) as well.
exec .venv/bin/python -m pytest -p cuda_standin.plugin --cuda-standin "$platform" \
  -p no:cacheprovider --pyargs dspk.testing.conformance tests/test_cuda_launches.py \
  tests/test_device_arrays.py \
  --dspk-runtime "$platform" -m "exhaustive or not exhaustive" "$@"
