/*
 * test_procs.c: host/procs.c finding nvidia-persistenced, nv-fabricmanager and Xorg by their
 * (truncated) comm names in /proc, and the Fabric Manager log.
 */
#include <stdlib.h>

#include "fakeroot.h"
#include "host/facts.h"
#include "test.h"

static void found_by_truncated_comm(void)
{
	char *root = fr_new();
	struct proc_facts p;

	fr_file(root, "/proc/1/comm", "systemd\n");
	/* kernel threads named after the driver are not the daemons */
	fr_file(root, "/proc/276/comm", "nvidia\n");
	fr_file(root, "/proc/262/comm", "irq/42-nvidia\n");
	fr_file(root, "/proc/1500/comm", "nvidia-persiste\n");
	fr_file(root, "/proc/1600/comm", "nv-fabricmanage\n");
	fr_file(root, "/proc/1700/comm", "Xorg\n");
	fr_file(root, "/proc/self/comm", "gpuvet\n");
	fr_file(root, "/proc/cpuinfo", "processor : 0\n");
	fr_dir(root, "/proc/1800"); /* exited between the listing and the read */
	fr_file(root, "/var/log/fabricmanager.log", "[Jan 01] fabric manager started\n");
	fr_facts(root, "env HOME=/root\n");
	fr_use(root);
	procs_collect(&p);
	CHECK(p.scanned);
	CHECK(p.persistenced_pid == 1500);
	CHECK(p.fabricmanager_pid == 1600);
	CHECK(p.xorg_pid == 1700);
	CHECK(p.fm_log_present);
	fr_free(root);
}

static void none_running(void)
{
	char *root = fr_new();
	struct proc_facts p;

	/* near misses: one character short, or a different program with the same start */
	fr_file(root, "/proc/10/comm", "nvidia-persist\n");
	fr_file(root, "/proc/11/comm", "nv-fabric\n");
	fr_file(root, "/proc/12/comm", "Xorgish\n");
	fr_facts(root, "env HOME=/root\n");
	fr_use(root);
	procs_collect(&p);
	CHECK(p.scanned);
	CHECK(p.persistenced_pid == 0 && p.fabricmanager_pid == 0 && p.xorg_pid == 0);
	CHECK(!p.fm_log_present);
	fr_free(root);
}

static void no_proc(void)
{
	char *root = fr_new();
	struct proc_facts p;

	fr_facts(root, "env HOME=/root\n");
	fr_use(root);
	procs_collect(&p);
	CHECK(!p.scanned);
	fr_free(root);
}

int main(void)
{
	RUN(found_by_truncated_comm);
	RUN(none_running);
	RUN(no_proc);
	return TEST_DONE();
}
