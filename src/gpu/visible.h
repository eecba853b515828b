/*
 * visible.h: which GPUs CUDA_VISIBLE_DEVICES leaves to CUDA, read as the CUDA driver reads it,
 * for `top --only-visible` (src/cmd/top.c). The GPUs themselves come from gpu/device.h; the
 * -i/--id lists of every command are gpu/select.h, a different syntax with different errors.
 *
 * The CUDA driver reads the list left to right: an index, a GPU UUID or a unique start of one
 * ("GPU-8f3a"), or a MIG instance ("MIG-<uuid>", or the old "MIG-GPU-<uuid>/gi/ci"). It stops
 * at the first entry that names no device and ignores the rest; an empty value hides every
 * GPU. Indexes are read as NVML's (nvidia-smi's), which are CUDA's when CUDA_DEVICE_ORDER is
 * PCI_BUS_ID or all GPUs are alike.
 */
#ifndef GPUVET_VISIBLE_H
#define GPUVET_VISIBLE_H

#include <stdbool.h>
#include <stddef.h>

/* One GPU as the reader sees it. */
struct visible_gpu {
	unsigned index;	  /* NVML's index */
	const char *uuid; /* "GPU-8f3a1b2c-...", NULL when unknown */
	bool mig_on;	  /* MIG mode is on: a MIG-<uuid> entry may name one of its instances */
};

/* Mark in visible[0..n) the GPUs the value names, as the CUDA driver would; returns how many.
 * value NULL (the variable unset) shows every GPU. note gets one line for the user ("" when
 * there is nothing to say): an empty value, an entry that stops the list, a MIG UUID whose GPU
 * cannot be told apart. */
unsigned visible_parse(const char *value, const struct visible_gpu *gpus, size_t n,
		       bool *visible, char *note, size_t note_n);

#endif
