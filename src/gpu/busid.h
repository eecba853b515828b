/*
 * busid.h: PCI addresses as NVML, CUDA, sysfs and the kernel log write them
 * ("00000000:01:00.0", "0000:01:00.0", "0000:01:00"), parsed and compared by value.
 */
#ifndef GPUVET_BUSID_H
#define GPUVET_BUSID_H

#include <stdbool.h>

#include "device.h"

struct pci_addr {
	unsigned dom, bus, dev;
	int fn; /* -1 when the text had none ("0000:10:1c", as old Xid lines print it) */
};

/* "0000:01:00.0", "00000000:01:00.0" (NVML) or "0000:01:00"; false when s is none of these. */
bool pci_addr_parse(const char *s, struct pci_addr *a);
/* The same device (a missing function matches any). */
bool pci_addr_same(const struct pci_addr *a, const struct pci_addr *b);
/* Do two bus id texts name the same device? */
bool bus_id_same(const char *a, const char *b);
/* NVML's GPU at that bus id, or NULL. */
const struct gpu *gpu_at_bus(const struct gpu_system *sys, const char *bus_id);

#endif
