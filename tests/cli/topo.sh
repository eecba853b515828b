# topo.sh: `gpuvet topo` on replayed scenarios: the matrix with nvidia-smi's legend (NV18 for
# the H200 pair), P2P, NVLink per link, PCIe, --json, 1/8 GPUs and an old recording without
# topology answers.
. "$TOP/tests/cli/lib.sh"
need_tool jq "JSON output"
M="$SCEN/monitor"

expect_exit "topo on the pair" 0 "$GPUVET" --replay "$M/x2.json" topo
expect_grep "topo header" '^       GPU0  GPU1  CPU Affinity    NUMA Affinity  GPU NUMA ID$' "$TMP/out"
expect_grep "topo NV18 row 0" '^GPU0   X     NV18  0-31            0              N/A$' "$TMP/out"
expect_grep "topo NV18 row 1" '^GPU1   NV18  X     0-31            0              N/A$' "$TMP/out"
expect_grep "topo legend NV#" '^  NV#  = Connection traversing a bonded set of # NVLinks$' "$TMP/out"
expect_grep "topo legend SYS" '^  SYS  = Connection traversing PCIe as well as the SMP interconnect' "$TMP/out"
expect_grep "topo p2p" '^GPU0   X     rwna' "$TMP/out"
expect_grep "topo nvlink links" '^GPU0        0-17   up     4.0      26.562 GB/s   GPU1$' "$TMP/out"
expect_grep "topo pcie" '^GPU1        00000000:00:07.0  gen5 x16   gen5 x16' "$TMP/out"

expect_exit "topo --json" 0 "$GPUVET" --replay "$M/x2.json" topo --json
expect_jq "json matrix" '.matrix == [["X","NV18"],["NV18","X"]]' "$TMP/out"
expect_jq "json pair" '.pairs[0].gpus == [0,1] and .pairs[0].nvlinks == 18 and .pairs[0].connection == "NV18"' "$TMP/out"
expect_jq "json p2p" '.pairs[0].p2p == {"read":"OK","write":"OK","nvlink":"OK","atomics":"OK"}' "$TMP/out"
expect_jq "json links" '[.gpus[0].nvlinks[] | select(.active and .remote_gpu == 1 and .speed_mbytes_s == 26562 and .version == "4.0")] | length == 18' "$TMP/out"
expect_jq "json affinity" '.gpus[0].cpu_affinity == "0-31" and .gpus[0].numa_affinity == "0" and .gpus[0].gpu_numa_id == null' "$TMP/out"
expect_jq "json pcie" '.gpus[1].pcie.gen == 5 and .gpus[1].pcie.width_max == 16' "$TMP/out"
expect_jq "json legend" '.legend["NV#"] and .legend.PIX and .legend.PHB' "$TMP/out"

expect_exit "topo -m on one GPU" 0 "$GPUVET" --replay "$M/x1.json" topo -m
expect_grep "one GPU matrix" '^GPU0   X ' "$TMP/out"
expect_no_grep "matrix only" '^NVLink' "$TMP/out"
expect_exit "topo on eight GPUs" 0 "$GPUVET" --replay "$M/x8.json" topo -m
expect_grep "eight columns" 'GPU7  CPU Affinity' "$TMP/out"
expect_exit "topo on a recording without topology" 0 "$GPUVET" --replay "$SCEN/h200x2.json" topo
expect_grep "unknown cells say n/a" '^GPU0   X     n/a ' "$TMP/out"
expect_grep "no p2p answers" '^P2P: not reported by NVML$' "$TMP/out"
expect_exit "topo bad option" 4 "$GPUVET" --replay "$M/x2.json" topo --bogus

# the H200 VMs hide every link's far end; P2P over NVLink still names the pair (as nvidia-smi)
expect_exit "topo with hidden link ends" 0 "$GPUVET" --replay "$M/x2-hidden-remote.json" topo
expect_grep "hidden link ends: NV18 row 0" '^GPU0   X     NV18 ' "$TMP/out"
expect_grep "hidden link ends: links say so" 'hidden by NVML' "$TMP/out"
done_testing
