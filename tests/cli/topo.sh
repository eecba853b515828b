# topo.sh: `gpuvet topo` on replayed scenarios: the matrix with nvidia-smi's legend (NV18 for
# the H200 pair), P2P, NVLink per link, PCIe, --json, 1/8 GPUs and an old recording without
# topology answers (cells derived from the links and sysfs, marked), and -i/--id.
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
# the README's recording predates topology capture: 18 links up on each GPU, their far ends
# not recorded, both GPUs registered on the NVLink fabric; the PCI paths put both GPUs on the
# root bus of one host bridge (issue 10, bug 11: every pair was n/a)
expect_exit "topo on a recording without topology" 0 "$GPUVET" --replay "$SCEN/h200x2.json" topo
expect_grep "derived NV18 row 0" '^GPU0   X     NV18\* 0-31 ' "$TMP/out"
expect_grep "derived NV18 row 1" '^GPU1   NV18\* X     0-31 ' "$TMP/out"
expect_grep "footnote says how" '^         NV# from each GPU.s active links, whose far ends were not read: both GPUs joined one NVLink fabric' "$TMP/out"
expect_grep "no p2p answers" '^P2P: not reported by NVML$' "$TMP/out"
expect_exit "topo -m without topology" 0 "$GPUVET" --replay "$SCEN/h200x2.json" topo -m
expect_no_grep "no n/a pair" 'n/a' "$TMP/out"
expect_exit "topo --json without topology" 0 "$GPUVET" --replay "$SCEN/h200x2.json" topo --json
expect_jq "derived json matrix" '.matrix == [["X","NV18"],["NV18","X"]]' "$TMP/out"
expect_jq "derived json pair" '.pairs[0].nvlinks == 18 and .pairs[0].derived and .pairs[0].connection_from == "nvlink_fabric" and .pairs[0].nvlinks_from == "nvlink_fabric"' "$TMP/out"
expect_jq "pcie from sysfs" '.pairs[0].pcie == "PHB" and .pairs[0].pcie_from == "sysfs_pci_paths" and .pairs[0].common_ancestor_level == null' "$TMP/out"
expect_jq "json notes" '(.notes | length) == 1 and (.notes[0] | test("NVLink fabric"))' "$TMP/out"
# the README shows this output: it must stay what the command prints
awk '/^\$ gpuvet --replay tests\/scenarios\/h200x2.json topo -m$/ { on = 1; next } on && /^```/ { exit } on' \
	"$TOP/README.md" >"$TMP/readme"
"$GPUVET" --replay "$SCEN/h200x2.json" topo -m >"$TMP/now" 2>&1
if [ -s "$TMP/readme" ] && cmp -s "$TMP/readme" "$TMP/now"; then pass "README's topo example is the output"; else
	fail "README's topo example is the output" "$(diff "$TMP/readme" "$TMP/now" | head -5)"; fi
# NVML's own answers are not marked
expect_exit "topo --json on the pair" 0 "$GPUVET" --replay "$M/x2.json" topo --json
expect_jq "measured pair not derived" '.pairs[0].derived == false and .pairs[0].connection_from == "nvml" and .notes == []' "$TMP/out"

# -i/--id: only some GPUs, with their own numbers (as nvidia-smi -i)
expect_exit "topo -i 1,3" 0 "$GPUVET" --replay "$M/x8.json" topo -m -i 1,3
expect_grep "two columns" '^       GPU1  GPU3  CPU Affinity' "$TMP/out"
expect_grep "row of GPU3" '^GPU3   NV18\* X     0-31 ' "$TMP/out"
expect_no_grep "GPU0 left out" 'GPU0' "$TMP/out"
expect_exit "topo --id --json" 0 "$GPUVET" --replay "$M/x8.json" topo --id 2 --json
expect_jq "one GPU in json" '.gpu_count == 1 and .gpus[0].index == 2 and .matrix == [["X"]] and .pairs == []' "$TMP/out"
expect_exit "topo -i of no GPU" 4 "$GPUVET" --replay "$M/x2.json" topo -i 5
expect_exit "topo -i malformed" 4 "$GPUVET" --replay "$M/x2.json" topo -i ''
expect_exit "topo bad option" 4 "$GPUVET" --replay "$M/x2.json" topo --bogus

# the H200 VMs hide every link's far end; P2P over NVLink still names the pair (as nvidia-smi)
expect_exit "topo with hidden link ends" 0 "$GPUVET" --replay "$M/x2-hidden-remote.json" topo
expect_grep "hidden link ends: NV18 row 0" '^GPU0   X     NV18\* ' "$TMP/out"
expect_grep "hidden link ends: footnote" 'nvmlDeviceGetP2PStatus says the pair talks over NVLink' "$TMP/out"
expect_grep "hidden link ends: links say so" 'hidden by NVML' "$TMP/out"
done_testing
