/*
 * hostio.c: the workers behind hostio.h.
 *
 * Each worker is a detached thread with a slot for one operation. A caller takes an idle
 * worker (or starts one), copies its argument block into the worker's, wakes it and waits on
 * the worker's condition variable until the operation is done or the deadline passes. One
 * mutex guards every worker's state, the idle list and the two lists of paths; it is never
 * held across an operation.
 *
 * A worker whose caller gave up is "stuck": it stays out of the idle list until its operation
 * returns (maybe never), then drops what the operation allocated and becomes idle again. At
 * most STUCK_MAX workers may be stuck at once; past that every operation fails at once, so a
 * machine where everything hangs costs threads, not the command.
 *
 * The system calls that operations are made of (opening only regular files, reading, listing
 * a directory) are at the end.
 */
#define _GNU_SOURCE
#include "hostio.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../capture/recorder.h"
#include "../util/util.h"

#define STUCK_MAX 64
#define LABEL_MAX 4096
#define LIST_MAX  256 /* paths kept per list: enough to report, bounded on a machine gone bad */

struct worker {
	pthread_cond_t wake; /* an operation was handed over */
	pthread_cond_t done_cv;
	struct worker *next_idle;
	hostio_fn fn;
	hostio_drop_fn drop;
	void *arg; /* the worker's copy of the argument block */
	size_t arg_cap;
	int rc;
	bool go, done, abandoned;
	char label[LABEL_MAX];
};

struct path_list {
	char **paths;
	char *kinds;
	size_t n;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct worker *idle;
static int nstuck;
static struct path_list stalled, not_files;
static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static pthread_condattr_t cond_attr;
static int timeout_ms = -1;

static _Thread_local struct worker *self;

static void init(void)
{
	const char *s = getenv("GPUVET_READ_TIMEOUT_MS");
	int64_t v;

	/* deadlines are measured on the monotonic clock: a clock step must not end a wait */
	pthread_condattr_init(&cond_attr);
	pthread_condattr_setclock(&cond_attr, CLOCK_MONOTONIC);
	pthread_mutex_lock(&lock);
	if (timeout_ms < 0)
		timeout_ms = s && parse_i64(s, &v) == 0 && v > 0 && v <= 3600 * 1000
				 ? (int)v
				 : HOSTIO_DEFAULT_TIMEOUT_MS;
	pthread_mutex_unlock(&lock);
}

int hostio_timeout_ms(void)
{
	int ms;

	pthread_once(&init_once, init);
	pthread_mutex_lock(&lock);
	ms = timeout_ms;
	pthread_mutex_unlock(&lock);
	return ms;
}

void hostio_set_timeout_ms(int ms)
{
	pthread_once(&init_once, init);
	pthread_mutex_lock(&lock);
	timeout_ms = ms > 0 ? ms : HOSTIO_DEFAULT_TIMEOUT_MS;
	pthread_mutex_unlock(&lock);
}

/* ---- the path lists (lock held) ------------------------------------------------------------ */

static bool list_has(const struct path_list *l, const char *path)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (strcmp(l->paths[i], path) == 0)
			return true;
	return false;
}

static void list_add(struct path_list *l, const char *path, char kind)
{
	if (l->n >= LIST_MAX || list_has(l, path))
		return;
	l->paths = xrealloc(l->paths, (l->n + 1) * sizeof(*l->paths));
	l->kinds = xrealloc(l->kinds, l->n + 1);
	l->paths[l->n] = xstrdup(path);
	l->kinds[l->n] = kind;
	l->n++;
}

static void list_free(struct path_list *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		free(l->paths[i]);
	free(l->paths);
	free(l->kinds);
	memset(l, 0, sizeof(*l));
}

static void list_copy(const struct path_list *l, char ***paths, char **kinds, size_t *n)
{
	size_t i;

	*paths = l->n ? xcalloc(l->n, sizeof(**paths)) : NULL;
	for (i = 0; i < l->n; i++)
		(*paths)[i] = xstrdup(l->paths[i]);
	if (kinds) {
		*kinds = l->n ? xmalloc(l->n) : NULL;
		if (l->n)
			memcpy(*kinds, l->kinds, l->n);
	}
	*n = l->n;
}

int hostio_stalled(char ***paths, size_t *n)
{
	pthread_mutex_lock(&lock);
	list_copy(&stalled, paths, NULL, n);
	pthread_mutex_unlock(&lock);
	return 0;
}

int hostio_not_files(char ***paths, char **kinds, size_t *n)
{
	pthread_mutex_lock(&lock);
	list_copy(&not_files, paths, kinds, n);
	pthread_mutex_unlock(&lock);
	return 0;
}

static char kind_of(mode_t m)
{
	if (S_ISFIFO(m))
		return 'p';
	if (S_ISSOCK(m))
		return 's';
	if (S_ISCHR(m))
		return 'c';
	if (S_ISBLK(m))
		return 'b';
	if (S_ISDIR(m))
		return 'd';
	return 'o';
}

void hostio_note_not_file(const char *path, mode_t mode)
{
	pthread_mutex_lock(&lock);
	list_add(&not_files, path, kind_of(mode));
	pthread_mutex_unlock(&lock);
}

void hostio_reset(void)
{
	pthread_mutex_lock(&lock);
	list_free(&stalled);
	list_free(&not_files);
	pthread_mutex_unlock(&lock);
}

/* ---- workers ------------------------------------------------------------------------------- */

static void *worker_main(void *p)
{
	struct worker *w = p;

	self = w;
	pthread_mutex_lock(&lock);
	for (;;) {
		int rc;

		while (!w->go)
			pthread_cond_wait(&w->wake, &lock);
		w->go = false;
		pthread_mutex_unlock(&lock);
		rc = w->fn(w->arg);
		pthread_mutex_lock(&lock);
		w->rc = rc;
		w->done = true;
		if (w->abandoned) {
			/* the caller is gone: free what it will never collect, then serve again */
			if (w->drop)
				w->drop(w->arg);
			w->abandoned = false;
			nstuck--;
			w->next_idle = idle;
			idle = w;
		} else {
			pthread_cond_signal(&w->done_cv);
		}
	}
	return NULL;
}

/* A new worker, or NULL when no thread can be started. Its thread starts with every signal
 * blocked, so signals keep going to the threads that handle them (the TUI's SIGWINCH). */
static struct worker *worker_new(void)
{
	struct worker *w = xcalloc(1, sizeof(*w));
	pthread_attr_t attr;
	sigset_t all, old;
	pthread_t t;
	int rc;

	pthread_cond_init(&w->wake, &cond_attr);
	pthread_cond_init(&w->done_cv, &cond_attr);
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = pthread_create(&t, &attr, worker_main, w);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
	if (rc != 0) {
		pthread_cond_destroy(&w->wake);
		pthread_cond_destroy(&w->done_cv);
		free(w);
		return NULL;
	}
	return w;
}

static void deadline_after(struct timespec *ts, int ms)
{
	clock_gettime(CLOCK_MONOTONIC, ts);
	ts->tv_sec += ms / 1000;
	ts->tv_nsec += (long)(ms % 1000) * 1000000L;
	if (ts->tv_nsec >= 1000000000L) {
		ts->tv_sec++;
		ts->tv_nsec -= 1000000000L;
	}
}

int hostio_run(hostio_fn fn, hostio_drop_fn drop, void *arg, size_t size, const char *path)
{
	char label[LABEL_MAX];
	struct timespec deadline;
	struct worker *w;
	int rc = 0, ms;

	pthread_once(&init_once, init);
	pthread_mutex_lock(&lock);
	if (list_has(&stalled, path) || nstuck >= STUCK_MAX) {
		pthread_mutex_unlock(&lock);
		return -ETIMEDOUT;
	}
	w = idle;
	if (w)
		idle = w->next_idle;
	ms = timeout_ms;
	pthread_mutex_unlock(&lock);
	if (!w && !(w = worker_new()))
		return fn(arg);
	/* the worker is ours alone until it is back in the idle list */
	if (w->arg_cap < size) {
		w->arg = xrealloc(w->arg, size);
		w->arg_cap = size;
	}
	memcpy(w->arg, arg, size);
	str_copy(w->label, path, sizeof(w->label));
	w->fn = fn;
	w->drop = drop;
	w->done = false;
	deadline_after(&deadline, ms);
	pthread_mutex_lock(&lock);
	w->go = true;
	pthread_cond_signal(&w->wake);
	while (!w->done && rc != ETIMEDOUT)
		rc = pthread_cond_timedwait(&w->done_cv, &lock, &deadline);
	if (w->done) {
		memcpy(arg, w->arg, size);
		rc = w->rc;
		w->next_idle = idle;
		idle = w;
		pthread_mutex_unlock(&lock);
		return rc;
	}
	w->abandoned = true;
	nstuck++;
	str_copy(label, w->label, sizeof(label));
	list_add(&stalled, label, 'o');
	pthread_mutex_unlock(&lock);
	/* a recording made on a wedged machine keeps the hang, so its replay stalls the same way */
	if (rec_active())
		rec_hang(label);
	return -ETIMEDOUT;
}

int hostio_label(const char *path)
{
	bool stuck;

	pthread_mutex_lock(&lock);
	if (self)
		str_copy(self->label, path, sizeof(self->label));
	stuck = list_has(&stalled, path);
	pthread_mutex_unlock(&lock);
	return stuck ? -ETIMEDOUT : 0;
}

int hostio_block(void)
{
	if (!self)
		return -ETIMEDOUT;
	/* the lock orders what the operation read before this against hostio_reset(), after
	 * which the host layer frees its facts: this worker touches nothing from now on */
	pthread_mutex_lock(&lock);
	pthread_mutex_unlock(&lock);
	for (;;)
		pause();
}

/* ---- the system calls, for operations ------------------------------------------------------ */

static bool file_ok(mode_t m, bool char_dev)
{
	return S_ISREG(m) || (char_dev && S_ISCHR(m));
}

int hostio_open_file(const char *real, bool char_dev, mode_t *not_file)
{
	struct stat st;
	int fd, rc;

	/* the stat keeps a device node unopened; the fstat checks what the open found, in case
	 * the name changed in between */
	if (stat(real, &st) != 0)
		return -errno;
	if (S_ISDIR(st.st_mode))
		return -EISDIR;
	if (!file_ok(st.st_mode, char_dev)) {
		*not_file = st.st_mode;
		return -ENXIO;
	}
	/* O_NONBLOCK: a FIFO swapped in after the stat must not wait for a writer */
	fd = open(real, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) != 0) {
		rc = -errno;
		close(fd);
		return rc;
	}
	if (!file_ok(st.st_mode, char_dev)) {
		if (S_ISDIR(st.st_mode)) {
			rc = -EISDIR;
		} else {
			rc = -ENXIO;
			*not_file = st.st_mode;
		}
		close(fd);
		return rc;
	}
	return fd;
}

int hostio_read_all(int fd, size_t max, char **buf_out, size_t *len)
{
	size_t have = 0, cap = max < 4096 ? max + 1 : 4096;
	char *buf = xmalloc(cap);
	int rc = 0;

	for (;;) {
		ssize_t r;

		if (have + 1 >= cap) {
			if (have >= max)
				break;
			cap = cap * 2 > max + 1 ? max + 1 : cap * 2;
			buf = xrealloc(buf, cap);
		}
		r = read(fd, buf + have, cap - 1 - have);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			rc = -errno;
			break;
		}
		if (r == 0)
			break;
		have += (size_t)r;
	}
	if (rc != 0 && have == 0) {
		free(buf);
		return rc;
	}
	buf[have] = '\0';
	*buf_out = buf;
	*len = have;
	return 0;
}

int hostio_read_tail(int fd, size_t max, char **buf_out, size_t *len)
{
	struct stat st;
	off_t from = 0;
	char *buf;
	ssize_t r;

	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (uint64_t)st.st_size > max)
		from = st.st_size - (off_t)max;
	buf = xmalloc(max + 1);
	r = pread(fd, buf, max, from);
	if (r < 0) {
		int rc = -errno;

		free(buf);
		return rc;
	}
	buf[r] = '\0';
	*buf_out = buf;
	*len = (size_t)r;
	return 0;
}

int hostio_read_records(int fd, char **buf_out, size_t *len)
{
	char chunk[16384];
	char *raw = NULL;
	size_t have = 0, cap = 0;
	int rc = 0;

	for (;;) {
		ssize_t r = read(fd, chunk, sizeof(chunk));

		if (r < 0) {
			/* EPIPE: records were overwritten while we read; go on from the next */
			if (errno == EINTR || errno == EPIPE)
				continue;
			if (errno == EAGAIN || errno == EINVAL)
				break;
			rc = -errno;
			break;
		}
		if (r == 0)
			break;
		if (have + (size_t)r + 2 > cap) {
			cap = (have + (size_t)r + 2) * 2;
			raw = xrealloc(raw, cap);
		}
		memcpy(raw + have, chunk, (size_t)r);
		have += (size_t)r;
		if (raw[have - 1] != '\n')
			raw[have++] = '\n';
		if (have > 64u * 1024 * 1024)
			break;
	}
	if (rc != 0 && have == 0) {
		free(raw);
		return rc;
	}
	if (!raw)
		raw = xmalloc(1);
	raw[have] = '\0';
	*buf_out = raw;
	*len = have;
	return 0;
}

int hostio_list_dir(const char *real, char ***names_out, size_t *n_out)
{
	struct dirent *de;
	char **names = NULL;
	size_t n = 0;
	DIR *d;
	int fd, rc;

	fd = open(real, O_RDONLY | O_DIRECTORY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	d = fdopendir(fd);
	if (!d) {
		rc = -errno;
		close(fd);
		return rc;
	}
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		names = xrealloc(names, (n + 1) * sizeof(*names));
		names[n++] = xstrdup(de->d_name);
	}
	closedir(d);
	*names_out = names;
	*n_out = n;
	return 0;
}
