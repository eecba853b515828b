/*
 * slurm_gres.h: the node's GPUs as Slurm's gres.conf lines, for `gpuvet topo --gres-conf`
 * (cmd/topo.c). The model comes from the topology job (gpu/topo.h, gpu/probe_topo.c); CPU
 * topology from /sys through host/ (so replays and fake roots work). docs/slurm.md shows the
 * output; tests/cli/slurm_gres.sh checks it on replayed scenarios.
 */
#ifndef GPUVET_SLURM_GRES_H
#define GPUVET_SLURM_GRES_H

#include <stdbool.h>
#include <stddef.h>

#include "../gpu/device.h"
#include "../gpu/topo.h"
#include "../util/strbuf.h"

/* The Type= word for a GPU's name: "NVIDIA H200" -> "h200", "NVIDIA A100-SXM4-80GB" -> "a100",
 * "NVIDIA GeForce RTX 4090" -> "rtx_4090"; "gpu" when the name is unknown. */
void slurm_gres_type(const char *name, char *out, size_t n);

/* cpus[0..max) as a list of ranges ("0-15,32-47"); "" when none is set. */
void slurm_cpu_list_format(const bool *cpus, size_t max, struct strbuf *out);

/*
 * One "Name=gpu Type=... File=/dev/nvidiaN Cores=... Links=..." line per GPU, in the order of
 * their device minor numbers (Slurm's order for Links=), with comment lines saying where each
 * value came from. Cores= is in Slurm's core numbering (sockets, then cores; hardware threads
 * folded) when /sys/devices/system/cpu tells each CPU's package and core, else the CPU ids NVML
 * gave, said so. Links= (NVLinks to each GPU, -1 for itself) only when some pair has NVLink.
 * Ends with AutoDetect=nvml advice as a comment.
 */
void slurm_gres_format(const struct topo *t, const struct gpu_system *sys, struct strbuf *out);

#endif
