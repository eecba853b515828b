/*
 * procs.c: the background processes the driver stack relies on, found by name in /proc
 * (catalog rows 22 and 35): nvidia-persistenced keeps the driver initialised between CUDA
 * programs, nv-fabricmanager brings up the NVSwitch fabric, and a running Xorg keeps the
 * driver up the way persistenced would.
 *
 * Only the facts are gathered here; persistence mode is judged with NVML's per-GPU answer in
 * checks/health.c and Fabric Manager in checks/fabric.c.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "../util/util.h"
#include "facts.h"

/* A machine rarely runs more; past this many processes the scan stops (it is only a lookup). */
#define PROCS_MAX_SCANNED 32768

/* comm is the executable name cut to 15 characters (TASK_COMM_LEN - 1):
 * "nvidia-persistenced" reads "nvidia-persiste", "nv-fabricmanager" reads "nv-fabricmanage". */
static bool comm_is(const char *comm, const char *full)
{
	return strncmp(comm, full, 15) == 0 && (strlen(full) <= 15 ? str_eq(comm, full) : true);
}

void procs_collect(struct proc_facts *p)
{
	char **names;
	size_t n, i, scanned = 0;

	memset(p, 0, sizeof(*p));
	p->fm_log_present = host_exists("/var/log/fabricmanager.log");
	if (host_list("/proc", &names, &n) != 0)
		return;
	p->scanned = true;
	for (i = 0; i < n && scanned < PROCS_MAX_SCANNED; i++) {
		char path[64], comm[64];
		uint64_t pid;

		if (!str_all_digits(names[i]) || parse_u64(names[i], &pid) != 0 || pid > 0x7fffffff)
			continue;
		scanned++;
		str_fmt(path, sizeof(path), "/proc/%s/comm", names[i]);
		/* the process may have exited since the listing: nothing to record then */
		if (host_read_line(path, comm, sizeof(comm)) != 0)
			continue;
		if (!p->persistenced_pid && comm_is(comm, "nvidia-persistenced"))
			p->persistenced_pid = (int)pid;
		else if (!p->fabricmanager_pid && comm_is(comm, "nv-fabricmanager"))
			p->fabricmanager_pid = (int)pid;
		else if (!p->xorg_pid && (str_eq(comm, "Xorg") || str_eq(comm, "X")))
			p->xorg_pid = (int)pid;
	}
	host_list_free(names, n);
}
