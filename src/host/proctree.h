/*
 * proctree.h: the host side of a GPU process: who runs it, in which container, its command
 * line, and the CPU its whole process tree burns (the data-loader workers of a training job
 * are its children).
 *
 * Everything is read through host.h (/proc/<pid>/stat, status, cmdline, cgroup, the children
 * files under /proc/<pid>/task/<tid>/, /etc/passwd), so unit tests run on fake roots and
 * replays on recorded ones. The tracker remembers CPU ticks per (PID, start time), so a reused
 * PID never inherits a stranger's numbers (monitor-anchors.md, lesson 12). Used by
 * gpu/collector.c; kill goes through proctree_signal, which re-checks the start time first.
 */
#ifndef GPUVET_PROCTREE_H
#define GPUVET_PROCTREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct proc_stat {
	unsigned pid, ppid;
	char state;
	char comm[32];
	uint64_t utime, stime;	/* clock ticks */
	uint64_t start_ticks;	/* clock ticks after boot (field 22) */
	int64_t rss_pages;
	unsigned session;	/* field 6: the session's leader (advise groups jobs by it) */
};

#define PROCTREE_MAX_NS 8

struct proc_status {
	unsigned uid;
	unsigned nspid[PROCTREE_MAX_NS]; /* NSpid: outermost (our /proc's) first */
	int nnspid;
	int64_t rss_kb; /* VmRSS, -1 when absent (kernel threads, zombies) */
};

/* Parse the text of /proc/<pid>/stat (the command name may hold spaces and parentheses). */
int proctree_parse_stat(const char *text, struct proc_stat *out);
int proctree_read_stat(unsigned pid, struct proc_stat *out);
int proctree_parse_status(const char *text, struct proc_status *out);
int proctree_read_status(unsigned pid, struct proc_status *out);
/* The command line with NULs as spaces; "[comm]" for processes without one. */
int proctree_cmdline(unsigned pid, char *buf, size_t n);
/* A short container id from the text of /proc/<pid>/cgroup: the first 12 hex digits of a
 * docker, containerd, cri-o or podman id, or an LXC name; "" when there is none. */
void proctree_container_from_cgroup(const char *cgroup, char *out, size_t n);
/* The user name of uid from /etc/passwd of the examined machine, or the number. */
void proctree_user_name(unsigned uid, char *buf, size_t n);

/* pid followed by all its descendants (children files of every thread; a full scan of
 * /proc/<pid>/stat when the kernel has no children files). *pids is the caller's. */
int proctree_descendants(unsigned pid, unsigned **pids, size_t *n);

enum proctree_pidns { PIDNS_UNKNOWN = 0, PIDNS_HOST, PIDNS_CHILD };
/* Whether gpuvet runs in the initial PID namespace (NVML's PIDs are ours) or in a child one
 * (a container without --pid=host: NVML's PIDs are the host's). */
enum proctree_pidns proctree_pidns(void);

/* Bits of /dev/nvidiaN (N < 64) the process holds open, and whether it holds /dev/nvidiactl. */
int proctree_gpu_fds(unsigned pid, uint64_t *minors, bool *ctl);

/* Processes of our namespace holding /dev/nvidia<minor> whose parent does not (the roots of
 * GPU process trees); used to map host PIDs when the namespaces differ. */
int proctree_gpu_roots(unsigned minor, unsigned **pids, size_t *n);

/* Send sig to pid only if it still has start time start_ticks. 0 on success; -ESRCH when it
 * exited, -ESTALE when the PID now belongs to another process, -EXDEV on a fake root or a
 * replay (the PID is not a process of this machine), or kill(2)'s -errno. */
int proctree_signal(unsigned pid, uint64_t start_ticks, int sig);

struct proc_info {
	unsigned pid;	      /* in our /proc */
	uint64_t start_ticks;
	unsigned uid;
	char user[32];
	unsigned inner_pid;   /* the PID inside its own container (last NSpid entry) */
	char container[24];   /* short container id, "" none */
	char cmd[256];
	double cpu_pct;	      /* the process alone, 100 = one core; < 0 before a second sample */
	double tree_cpu_pct;  /* the process and all its descendants */
	unsigned tree_nprocs; /* processes in the tree, itself included */
	int64_t rss_bytes, tree_rss_bytes;
};

struct proctree;
struct proctree *proctree_new(void);
/* Start a round of proctree_info calls at monotonic time now_ns; CPU percentages are over
 * the time since the previous round. */
void proctree_begin(struct proctree *t, int64_t now_ns);
/* Everything about pid (0, or -ESRCH when it is gone). A process asked for in several trees
 * in one round counts its CPU in each. */
int proctree_info(struct proctree *t, unsigned pid, struct proc_info *out);
/* Forget processes not seen in the last rounds. */
void proctree_end(struct proctree *t);
void proctree_free(struct proctree *t);
/* Clock ticks per second (sysconf). */
long proctree_hz(void);

#endif
