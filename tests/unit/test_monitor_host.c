/*
 * test_monitor_host.c: the host side of the live monitor (host/proctree.c) on fake machine
 * trees: /proc parsing, process trees and their CPU %, PID reuse, container PID mapping, and
 * kill's re-check of the start time on real child processes.
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fakeroot.h"
#include "host/proctree.h"
#include "test.h"
#include "util/util.h"

/* A /proc/<pid>/stat line with the fields the tracker reads. */
static void stat_file(const char *root, unsigned pid, const char *comm, unsigned ppid,
		      unsigned long utime, unsigned long stime, unsigned long start, long rss)
{
	char path[64], text[512];

	snprintf(path, sizeof(path), "/proc/%u/stat", pid);
	snprintf(text, sizeof(text),
		 "%u (%s) S %u %u %u 0 -1 4194560 100 0 0 0 %lu %lu 0 0 20 0 3 0 %lu 80000000 %ld "
		 "18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 3 0 0 0 0 0\n",
		 pid, comm, ppid, pid, pid, utime, stime, start, rss);
	fr_file(root, path, text);
	snprintf(path, sizeof(path), "/proc/%u/task/%u/stat", pid, pid);
	fr_file(root, path, text);
}

static void children_file(const char *root, unsigned pid, const char *kids)
{
	char path[96];

	snprintf(path, sizeof(path), "/proc/%u/task/%u/children", pid, pid);
	fr_file(root, path, kids);
}

static void test_parse_stat(void)
{
	struct proc_stat st;
	/* a command name with a space and a closing parenthesis */
	const char *line = "4242 (py thon) x) R 1 4242 4242 0 -1 4194560 10 0 0 0 1234 56 0 0 20 -5 "
			   "7 0 900123 8000000 777 18446744073709551615\n";

	CHECK(proctree_parse_stat(line, &st) == 0);
	CHECK(st.pid == 4242);
	CHECK_STR(st.comm, "py thon) x");
	CHECK(st.state == 'R');
	CHECK(st.ppid == 1);
	CHECK(st.utime == 1234 && st.stime == 56);
	CHECK(st.start_ticks == 900123);
	CHECK(st.rss_pages == 777);
	CHECK(proctree_parse_stat("garbage", &st) != 0);
	CHECK(proctree_parse_stat("12 (x) S 1 2", &st) != 0);
}

static void test_parse_status(void)
{
	struct proc_status ps;

	proctree_parse_status("Name:\tpython3\nUid:\t1000\t1000\t1000\t1000\nNSpid:\t81234\t17\n"
			      "VmRSS:\t  204800 kB\n",
			      &ps);
	CHECK(ps.uid == 1000);
	CHECK(ps.nnspid == 2 && ps.nspid[0] == 81234 && ps.nspid[1] == 17);
	CHECK(ps.rss_kb == 204800);
	proctree_parse_status("Name:\tkworker\nUid:\t0\t0\t0\t0\nNSpid:\t9\n", &ps);
	CHECK(ps.nnspid == 1 && ps.rss_kb == -1);
}

static void test_container_ids(void)
{
	char id[24];

	proctree_container_from_cgroup(
		"0::/system.slice/docker-3f2a9c1d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a3f2e1d0c9b8a7f6e5d4c3b2a1f.scope\n",
		id, sizeof(id));
	CHECK_STR(id, "3f2a9c1d8e7b");
	proctree_container_from_cgroup(
		"12:memory:/kubepods/burstable/pod1c2d3e4f-aaaa-bbbb-cccc-0123456789ab/"
		"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\n",
		id, sizeof(id));
	CHECK_STR(id, "0123456789ab");
	proctree_container_from_cgroup(
		"0::/kubepods.slice/cri-containerd-aabbccddeeff00112233445566778899aabbccddeeff00112233445566778899.scope\n",
		id, sizeof(id));
	CHECK_STR(id, "aabbccddeeff");
	proctree_container_from_cgroup("0::/lxc.payload.build01/init.scope\n", id, sizeof(id));
	CHECK_STR(id, "build01");
	proctree_container_from_cgroup("0::/user.slice/user-1000.slice/session-3.scope\n", id,
				       sizeof(id));
	CHECK_STR(id, "");
	proctree_container_from_cgroup(NULL, id, sizeof(id));
	CHECK_STR(id, "");
}

static void test_tree_cpu(void)
{
	char *root = fr_new();
	struct proctree *t;
	struct proc_info pi;
	long hz = proctree_hz();
	unsigned *pids = NULL;
	size_t n = 0;

	fr_file(root, "/etc/passwd", "root:x:0:0::/root:/bin/sh\nalice:x:1000:1000::/h:/bin/sh\n");
	fr_file(root, "/proc/uptime", "1000.00 0.00\n");
	/* a training job: 100 with two workers 101, 102; 102 has a helper 103 */
	stat_file(root, 100, "python3", 1, 1000, 100, 50 * hz, 1000);
	stat_file(root, 101, "worker", 100, 500, 0, 60 * hz, 500);
	stat_file(root, 102, "worker", 100, 500, 0, 60 * hz, 500);
	stat_file(root, 103, "helper", 102, 10, 0, 70 * hz, 100);
	fr_file(root, "/proc/100/status", "Uid:\t1000\t1000\t1000\t1000\nNSpid:\t100\n");
	fr_file(root, "/proc/100/cmdline", "python3\0train.py\0");
	fr_bytes(root, "/proc/100/cmdline", "python3\0train.py\0", 17);
	fr_file(root, "/proc/100/cgroup", "0::/user.slice\n");
	children_file(root, 100, "101 102 ");
	children_file(root, 101, "");
	children_file(root, 102, "103");
	children_file(root, 103, "");
	fr_use(root);

	CHECK(proctree_descendants(100, &pids, &n) == 0);
	CHECK(n == 4 && pids[0] == 100);
	free(pids);

	t = proctree_new();
	proctree_begin(t, 1000000000LL);
	CHECK(proctree_info(t, 100, &pi) == 0);
	CHECK(pi.cpu_pct < 0 && pi.tree_cpu_pct < 0); /* one reading: no rate yet */
	CHECK(pi.tree_nprocs == 4);
	CHECK_STR(pi.user, "alice");
	CHECK_STR(pi.cmd, "python3 train.py");
	CHECK(pi.rss_bytes > 0 && pi.tree_rss_bytes > pi.rss_bytes);
	proctree_end(t);

	/* one second later: the main process used half a core, each worker a full one, and a
	 * new worker 104 (born after the previous round) used a quarter */
	stat_file(root, 100, "python3", 1, 1040, 110, 50 * hz, 1000);
	stat_file(root, 101, "worker", 100, 500 + hz, 0, 60 * hz, 500);
	stat_file(root, 102, "worker", 100, 500 + hz, 0, 60 * hz, 500);
	stat_file(root, 104, "worker", 100, hz / 4, 0, 1000 * hz + 10, 500);
	children_file(root, 100, "101 102 104 ");
	children_file(root, 104, "");
	fr_file(root, "/proc/uptime", "1001.00 0.00\n");
	proctree_begin(t, 2000000000LL);
	CHECK(proctree_info(t, 100, &pi) == 0);
	CHECK(pi.tree_nprocs == 5);
	CHECK(pi.cpu_pct > 0);
	{
		double self = 50.0 * 100.0 / hz, tree = self + 200.0 + (double)(hz / 4) * 100.0 / hz;

		CHECK(pi.cpu_pct > self - 0.01 && pi.cpu_pct < self + 0.01);
		CHECK(pi.tree_cpu_pct > tree - 0.5 && pi.tree_cpu_pct < tree + 0.5);
	}
	proctree_end(t);

	/* PID 100 reused by another program: a new start time, no inherited ticks */
	stat_file(root, 100, "bash", 1, 5, 0, 1001 * hz, 100);
	children_file(root, 100, "");
	proctree_begin(t, 3000000000LL);
	CHECK(proctree_info(t, 100, &pi) == 0);
	CHECK(pi.start_ticks == (uint64_t)(1001 * hz));
	CHECK(pi.tree_nprocs == 1);
	/* born after the previous round: its few ticks are all new, not 1000+ stolen ones */
	CHECK(pi.cpu_pct >= 0 && pi.cpu_pct < 10);
	proctree_end(t);

	/* gone */
	CHECK(proctree_info(t, 999, &pi) == -ESRCH);
	proctree_free(t);
	fr_free(root);
}

static void test_tree_without_children_files(void)
{
	char *root = fr_new();
	unsigned *pids = NULL;
	size_t n = 0, i;
	bool has201 = false, has202 = false;

	/* a kernel without CONFIG_PROC_CHILDREN: task/<tid>/stat exists, children does not */
	stat_file(root, 200, "python3", 1, 1, 1, 100, 10);
	stat_file(root, 201, "worker", 200, 1, 1, 100, 10);
	stat_file(root, 202, "helper", 201, 1, 1, 100, 10);
	stat_file(root, 300, "other", 1, 1, 1, 100, 10);
	fr_use(root);
	CHECK(proctree_descendants(200, &pids, &n) == 0);
	for (i = 0; i < n; i++) {
		has201 |= pids[i] == 201;
		has202 |= pids[i] == 202;
		CHECK(pids[i] != 300);
	}
	CHECK(n == 3 && pids[0] == 200 && has201 && has202);
	free(pids);
	CHECK(proctree_descendants(999, &pids, &n) == -ESRCH);
	fr_free(root);
}

static void test_pid_namespaces(void)
{
	char *root = fr_new();
	unsigned *pids = NULL;
	size_t n = 0;
	uint64_t minors = 0;
	bool ctl = false;

	fr_link(root, "/proc/self/ns/pid", "pid:[4026531836]");
	fr_use(root);
	CHECK(proctree_pidns() == PIDNS_HOST);
	fr_free(root);

	root = fr_new();
	fr_link(root, "/proc/self/ns/pid", "pid:[4026532999]");
	/* 42 holds GPU 0; its worker 43 inherited the file; 44 holds GPU 1; 45 nothing */
	stat_file(root, 42, "python3", 1, 1, 1, 100, 10);
	stat_file(root, 43, "worker", 42, 1, 1, 100, 10);
	stat_file(root, 44, "python3", 1, 1, 1, 100, 10);
	stat_file(root, 45, "bash", 1, 1, 1, 100, 10);
	fr_link(root, "/proc/42/fd/3", "/dev/nvidiactl");
	fr_link(root, "/proc/42/fd/4", "/dev/nvidia0");
	fr_link(root, "/proc/43/fd/4", "/dev/nvidia0");
	fr_link(root, "/proc/44/fd/9", "/dev/nvidia1");
	fr_link(root, "/proc/45/fd/0", "/dev/null");
	fr_use(root);
	CHECK(proctree_pidns() == PIDNS_CHILD);
	CHECK(proctree_gpu_fds(42, &minors, &ctl) == 0);
	CHECK(minors == 1 && ctl);
	CHECK(proctree_gpu_fds(44, &minors, &ctl) == 0);
	CHECK(minors == 2 && !ctl);
	CHECK(proctree_gpu_roots(0, &pids, &n) == 0);
	CHECK(n == 1 && pids[0] == 42); /* the worker is not a root of its own */
	free(pids);
	CHECK(proctree_gpu_roots(1, &pids, &n) == 0);
	CHECK(n == 1 && pids[0] == 44);
	free(pids);
	CHECK(proctree_gpu_roots(2, &pids, &n) == 0);
	CHECK(n == 0);
	free(pids);
	fr_free(root);

	root = fr_new();
	fr_use(root);
	CHECK(proctree_pidns() == PIDNS_UNKNOWN);
	fr_free(root);
}

static void test_user_names(void)
{
	char *root = fr_new();
	char name[32];

	fr_file(root, "/etc/passwd", "root:x:0:0::/root:/bin/sh\n#c\nbob:x:1234:1234::/h:/bin/sh\n");
	fr_use(root);
	proctree_user_name(1234, name, sizeof(name));
	CHECK_STR(name, "bob");
	proctree_user_name(0, name, sizeof(name));
	CHECK_STR(name, "root");
	proctree_user_name(4321, name, sizeof(name));
	CHECK_STR(name, "4321");
	fr_free(root);
}

static pid_t spawn_sleeper(void)
{
	pid_t pid = fork();

	if (pid == 0) {
		execlp("sleep", "sleep", "30", (char *)NULL);
		_exit(127);
	}
	usleep(50000);
	return pid;
}

static void test_kill_rechecks(void)
{
	struct proc_stat st;
	pid_t child;
	int status;
	char *root;

	/* the real machine: no root prefix */
	child = spawn_sleeper();
	CHECK(child > 0);
	CHECK(proctree_read_stat((unsigned)child, &st) == 0);
	/* a different start time: the PID was reused, nothing is sent */
	CHECK(proctree_signal((unsigned)child, st.start_ticks + 1, SIGTERM) == -ESTALE);
	CHECK(kill(child, 0) == 0);
	/* the right one: sent */
	CHECK(proctree_signal((unsigned)child, st.start_ticks, SIGTERM) == 0);
	CHECK(waitpid(child, &status, 0) == child);
	CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM);
	/* it exited between listing and kill */
	CHECK(proctree_signal((unsigned)child, st.start_ticks, SIGTERM) == -ESRCH);
	CHECK(proctree_signal(1, 0, 0) == -EPERM);

	/* on a fake root the PID is not ours to signal */
	root = fr_new();
	stat_file(root, 4242, "python3", 1, 1, 1, 100, 10);
	fr_use(root);
	CHECK(proctree_signal(4242, 100, SIGTERM) == -EXDEV);
	fr_free(root);
}

int main(void)
{
	RUN(test_parse_stat);
	RUN(test_parse_status);
	RUN(test_container_ids);
	RUN(test_tree_cpu);
	RUN(test_tree_without_children_files);
	RUN(test_pid_namespaces);
	RUN(test_user_names);
	RUN(test_kill_rechecks);
	return TEST_DONE();
}
