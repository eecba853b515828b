/*
 * replay.h: a recording (written by src/capture/recording.c) as the machine every read sees.
 *
 * The replay sits above host/ and vendor/: it describes the recorded machine to the host layer
 * (host_mem_*) and hands the recorded answers to the loader (vlib_set_replay), which serves them
 * through the fake NVML and CUDA libraries (tests/nvml-replay). replay_load.c reads and bounds
 * a recording, replay.c serves it.
 */
#ifndef GPUVET_REPLAY_H
#define GPUVET_REPLAY_H

#include <stdbool.h>

#include "../util/err.h"

/*
 * Make the recording at path the machine every read sees: load it (following "derive"
 * chains), check and bound everything it declares, then serve the host layer's reads from it
 * and hand its answers to the fake NVML and CUDA libraries, all in memory (nothing is written
 * to disk). A bad recording gives -1 and one clear line in e.
 */
int replay_start(const char *path, struct err *e);
/*
 * For a command that computes (burn): the CUDA driver, cuBLASLt and NCCL load live again, from
 * GPUVET_CUDA_LIBRARY as the user set it before replay_start (and the other libraries' own
 * variables), while NVML and the host stay replayed: CI judges replayed telemetry of a run on
 * the fake GPUs (tests/bench/fakegpu). False, and nothing changed, when the user named no CUDA
 * library: the replay's own answers the probe only and cannot compute.
 */
bool replay_live_cuda(void);
/* End the replay: the host layer and the loader see the real machine again; frees it all. */
void replay_finish(void);

#endif
