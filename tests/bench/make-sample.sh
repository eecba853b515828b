#!/bin/sh
# make-sample.sh: regenerate tests/bench/sample-fakegpu.json, the stored result the CLI tests
# render (bench_report.sh, bench_html.sh). It is a real `gpuvet bench all` run, on the fake GPUs
# of tests/bench/fakegpu (CPU timings: the numbers mean nothing about any GPU), with library paths
# made relative and a synthetic sensor trace added (the fake has no NVML) so the clock and power
# plots are exercised. Run from the repository root after `make test` built the fakes.
set -eu
O=${O:-build}
F="$O/fakegpu"
GPUVET_CUDA_LIBRARY="$F/libcuda.so.1" GPUVET_NCCL_LIBRARY="$F/libnccl.so.2" \
GPUVET_CUBLASLT_LIBRARY="$F/libcublasLt.so.13" GPUVET_NVML_LIBRARY=/nonexistent \
FAKEGPU_MEM_MIB=512 "$O/gpuvet" bench all --size 1M --time-budget 0.01 --json >"$O/sample.raw.json" || true
jq '
  .versions.cuda_library = "build/fakegpu/libcuda.so.1"
| .versions.cublaslt_library = "build/fakegpu/libcublasLt.so.13"
| .versions.nccl_library = "build/fakegpu/libnccl.so.2"
| .environment = {"NCCL_NVLS_ENABLE": "0"}
| .command = ["bench", "all", "--size", "1M", "--time-budget", "0.01", "--json"]
| .sensors = {"interval_ms": 100,
    "columns": ["t_s", "sm_clock_mhz", "mem_clock_mhz", "power_w", "temp_c"],
    "gpus": {
      "0": [range(0; 40) | [(. * 0.2), (if . < 3 then 345 else 1980 end), 3201,
                            (if . < 3 then 78.5 else 420 + (. * 7) end), (35 + (. / 4 | floor))]],
      "1": [range(0; 40) | [(. * 0.2 + 0.05), (if . < 5 then 345 else 1965 end), 3201,
                            (if . < 5 then 77 else 400 + (. * 6) end), (34 + (. / 4 | floor))]]}}
' "$O/sample.raw.json" >"$O/sample.jq.json"
# once through gpuvet, so that --load --json reproduces the file exactly
"$O/gpuvet" bench --load "$O/sample.jq.json" --json >tests/bench/sample-fakegpu.json
rm -f "$O/sample.raw.json" "$O/sample.jq.json"
echo "wrote tests/bench/sample-fakegpu.json"
