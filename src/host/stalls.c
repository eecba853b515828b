/*
 * stalls.c: the reads doctor could not make, for its report: paths whose reads did not return
 * within the deadline (a wedged driver, a dead FUSE mount) and nodes that were not files where
 * a file was expected (a FIFO in place of a log). host.c and hostio.c keep the lists as reads
 * happen; this copies them into the facts and says which paths belong to the NVIDIA driver.
 * The checks are in checks/platform.c (platform.read_stalled, platform.not_a_file) and
 * checks/module.c (module.driver_stalled).
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "../util/util.h"
#include "facts.h"
#include "hostio.h"

/* /proc/driver/nvidia*, /sys/module/nvidia*, /sys/bus/pci/drivers/nvidia, or anything under
 * an NVIDIA PCI function's sysfs folder (named by its address in the path). */
static bool driver_path(const char *path, const struct pci_facts *pci)
{
	int i;

	if (str_starts(path, "/proc/driver/nvidia"))
		return true;
	if (!str_starts(path, "/sys/"))
		return false;
	if (strstr(path, "nvidia"))
		return true;
	for (i = 0; pci && i < pci->n; i++) {
		const char *hit = strstr(path, pci->devs[i].bdf);
		size_t len = strlen(pci->devs[i].bdf);

		if (pci->devs[i].vendor == 0x10de && len && hit &&
		    (hit[len] == '/' || hit[len] == '\0'))
			return true;
	}
	return false;
}

static int fill(struct stalled_path *out, char **paths, const char *kinds, size_t n,
		const struct pci_facts *pci)
{
	size_t i;

	for (i = 0; i < n && i < FACTS_MAX_STALLS; i++) {
		str_copy(out[i].path, paths[i], sizeof(out[i].path));
		out[i].kind = kinds ? kinds[i] : 'o';
		out[i].driver = driver_path(paths[i], pci);
	}
	return (int)i;
}

void stalls_collect(struct stall_facts *s, const struct pci_facts *pci)
{
	char **paths = NULL, *kinds = NULL;
	size_t n = 0;

	memset(s, 0, sizeof(*s));
	s->timeout_ms = hostio_timeout_ms();
	if (host_stalled(&paths, &n) == 0) {
		s->nstalled = fill(s->stalled, paths, NULL, n, pci);
		s->stalled_total = (int)n;
		host_list_free(paths, n);
	}
	n = 0;
	if (host_not_files(&paths, &kinds, &n) == 0) {
		s->nnot_files = fill(s->not_files, paths, kinds, n, pci);
		s->not_files_total = (int)n;
		host_list_free(paths, n);
		free(kinds);
	}
}
