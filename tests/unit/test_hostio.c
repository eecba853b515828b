/*
 * test_hostio.c: host reads with a deadline (host/hostio.c) and files that are not files.
 *
 * A FIFO where a file belongs is refused without blocking; a `hang PATH` fact blocks the read
 * inside its worker, so the deadline, the stall list and the recording of the hang all run as
 * on a wedged machine. alarm() turns a read that blocks for ever (the old behaviour) into a
 * failed test instead of a hung one.
 */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fakeroot.h"
#include "host/hostio.h"
#include "capture/recorder.h"
#include "capture/recording.h"
#include "test.h"
#include "util/util.h"

#define TIMEOUT_MS 200

static int64_t ms_since(int64_t t0)
{
	return (now_ns() - t0) / 1000000;
}

static void fr_fifo(const char *root, const char *path)
{
	char full[4096];

	snprintf(full, sizeof(full), "%s%s", root, path);
	fr_parent(full);
	if (mkfifo(full, 0644) != 0) {
		perror(full);
		exit(2);
	}
}

static bool listed(char **paths, size_t n, const char *path)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(paths[i], path) == 0)
			return true;
	return false;
}

/* No writer: an open without O_NONBLOCK would wait for one for ever. */
static void fifo_without_writer_refused(void)
{
	char *root = fr_new();
	char **paths = NULL, *kinds = NULL;
	size_t n = 0, len = 0;
	int rc = 0;
	int64_t t0;

	fr_fifo(root, "/var/log/apt/history.log");
	fr_use(root);
	alarm(10);
	t0 = now_ns();
	CHECK(host_read_tail("/var/log/apt/history.log", 4096, &len, &rc) == NULL);
	CHECK(rc == -ENXIO);
	CHECK(host_read("/var/log/apt/history.log", 4096, &len, &rc) == NULL);
	CHECK(rc == -ENXIO);
	CHECK(ms_since(t0) < TIMEOUT_MS);
	alarm(0);
	CHECK(host_not_files(&paths, &kinds, &n) == 0);
	CHECK(n == 1 && strcmp(paths[0], "/var/log/apt/history.log") == 0 && kinds[0] == 'p');
	host_list_free(paths, n);
	free(kinds);
	/* a FIFO is not a stall */
	CHECK(host_stalled(&paths, &n) == 0 && n == 0);
	fr_free(root);
}

/* With a writer holding the FIFO open and data in it, a read would return that data: the file
 * is still refused, unread, and the data stays in the pipe. */
static void fifo_with_writer_refused(void)
{
	char *root = fr_new();
	char full[4096], buf[64];
	size_t len = 0;
	int rc = 0, fd;

	fr_fifo(root, "/var/log/apt/history.log");
	snprintf(full, sizeof(full), "%s/var/log/apt/history.log", root);
	/* O_RDWR on a FIFO opens at once on Linux and holds the write end */
	fd = open(full, O_RDWR | O_NONBLOCK);
	CHECK(fd >= 0);
	CHECK(write(fd, "Start-Date: 2025\n", 17) == 17);
	fr_use(root);
	alarm(10);
	CHECK(host_read("/var/log/apt/history.log", 4096, &len, &rc) == NULL && rc == -ENXIO);
	CHECK(host_read_tail("/var/log/apt/history.log", 4096, &len, &rc) == NULL && rc == -ENXIO);
	alarm(0);
	CHECK(read(fd, buf, sizeof(buf)) == 17);
	close(fd);
	fr_free(root);
}

/* /dev/kmsg must be a character device or, in fake roots, a regular file; a directory listing
 * only opens directories. */
static void kmsg_and_list_refuse_other_nodes(void)
{
	char *root = fr_new();
	char **names = NULL, *text = NULL;
	size_t n = 0, len = 0;

	fr_fifo(root, "/dev/kmsg");
	fr_fifo(root, "/proc/driver/nvidia/gpus");
	fr_use(root);
	alarm(10);
	CHECK(host_read_kmsg(&text, &len) == -ENXIO && text == NULL);
	CHECK(host_list("/proc/driver/nvidia/gpus", &names, &n) == -ENOTDIR && n == 0);
	alarm(0);
	fr_free(root);
}

static void hang_fact_times_out(void)
{
	char *root = fr_new();
	char **paths = NULL, *data;
	size_t n = 0, len = 0;
	int rc = 0;
	int64_t t0, took;

	fr_file(root, "/proc/driver/nvidia/version", "NVRM version: 580.65.06\n");
	fr_file(root, "/proc/modules", "nvidia 1 0 - Live 0x0 (O)\n");
	fr_facts(root, "hang /proc/driver/nvidia/version\n");
	fr_use(root);
	hostio_set_timeout_ms(TIMEOUT_MS);
	alarm(10);
	t0 = now_ns();
	CHECK(host_read("/proc/driver/nvidia/version", 4096, &len, &rc) == NULL);
	took = ms_since(t0);
	CHECK(rc == -ETIMEDOUT);
	CHECK(took >= TIMEOUT_MS - 20 && took < TIMEOUT_MS * 4);
	CHECK(host_stalled(&paths, &n) == 0);
	CHECK(n == 1 && listed(paths, n, "/proc/driver/nvidia/version"));
	host_list_free(paths, n);
	/* the same path again: at once */
	t0 = now_ns();
	CHECK(host_read_line("/proc/driver/nvidia/version", (char[64]){0}, 64) == -ETIMEDOUT);
	CHECK(ms_since(t0) < TIMEOUT_MS / 4);
	/* other files still read, on a fresh worker */
	data = host_read("/proc/modules", 4096, &len, &rc);
	CHECK(data != NULL && strcmp(data, "nvidia 1 0 - Live 0x0 (O)\n") == 0);
	free(data);
	/* a path that does not answer is not asked again, whatever the operation */
	CHECK(host_stat("/proc/driver/nvidia/version", &(struct host_stat){0}) == -ETIMEDOUT);
	alarm(0);
	/* a new root is a new machine: nothing stalled there */
	fr_free(root);
	CHECK(host_stalled(&paths, &n) == 0 && n == 0);
}

/* A hang met through a symbolic link stalls under the resolved path, and reading it through
 * the link again fails at once too. */
static void hang_through_link(void)
{
	char *root = fr_new();
	char **paths = NULL;
	size_t n = 0;
	char line[64];
	int64_t t0;

	fr_file(root, "/sys/devices/pci0000:00/0000:01:00.0/current_link_speed",
		"32.0 GT/s PCIe\n");
	fr_link(root, "/sys/bus/pci/devices/0000:01:00.0",
		"../../../devices/pci0000:00/0000:01:00.0");
	fr_facts(root, "hang /sys/devices/pci0000:00/0000:01:00.0/current_link_speed\n");
	fr_use(root);
	hostio_set_timeout_ms(TIMEOUT_MS);
	alarm(10);
	CHECK(host_read_line("/sys/bus/pci/devices/0000:01:00.0/current_link_speed", line,
			     sizeof(line)) == -ETIMEDOUT);
	CHECK(host_stalled(&paths, &n) == 0);
	CHECK(n == 1 &&
	      listed(paths, n, "/sys/devices/pci0000:00/0000:01:00.0/current_link_speed"));
	host_list_free(paths, n);
	t0 = now_ns();
	CHECK(host_read_line("/sys/bus/pci/devices/0000:01:00.0/current_link_speed", line,
			     sizeof(line)) == -ETIMEDOUT);
	CHECK(ms_since(t0) < TIMEOUT_MS / 4);
	alarm(0);
	fr_free(root);
}

/* A hang during `gpuvet record` is kept in the recording as {"hang": true}. */
static void hang_is_recorded(void)
{
	char *root = fr_new();
	char out[4200];
	json_t *doc, *entry;
	struct rec_meta meta = {.version = "test"};
	struct err e;
	int rc = 0;

	fr_file(root, "/proc/driver/nvidia/gpus/0000:01:00.0/information", "Model: H200\n");
	fr_facts(root, "hang /proc/driver/nvidia/gpus/0000:01:00.0/information\n");
	fr_use(root);
	hostio_set_timeout_ms(TIMEOUT_MS);
	rec_start();
	alarm(10);
	CHECK(host_read("/proc/driver/nvidia/gpus/0000:01:00.0/information", 4096, NULL, &rc) ==
	      NULL);
	CHECK(rc == -ETIMEDOUT);
	alarm(0);
	snprintf(out, sizeof(out), "%s/rec.json", root);
	CHECK(rec_write(out, &meta, &e) == 0);
	rec_stop();
	doc = json_load_file(out, 0, NULL);
	CHECK(doc != NULL);
	entry = json_object_get(json_object_get(doc, "files"),
				"/proc/driver/nvidia/gpus/0000:01:00.0/information");
	CHECK(json_is_true(json_object_get(entry, "hang")));
	CHECK(json_object_get(entry, "error") == NULL && json_object_get(entry, "content") == NULL);
	json_decref(doc);
	fr_free(root);
}

/* Several threads read at once, one of them into a hang: every other read answers, right. */
#define NTHREADS 6
#define NREADS   300

struct reader {
	int index;
	int wrong;
};

static void *reader_main(void *p)
{
	struct reader *r = p;
	char path[64], want[32], line[32];
	int i;

	str_fmt(path, sizeof(path), "/sys/class/x/f%d", r->index);
	str_fmt(want, sizeof(want), "value %d", r->index);
	for (i = 0; i < NREADS; i++) {
		if (r->index == 0 && i == NREADS / 2) {
			if (host_read_line("/proc/driver/nvidia/version", line, sizeof(line)) !=
			    -ETIMEDOUT)
				r->wrong++;
			continue;
		}
		if (host_read_line(path, line, sizeof(line)) != 0 || strcmp(line, want) != 0)
			r->wrong++;
	}
	return NULL;
}

static void reads_from_many_threads(void)
{
	char *root = fr_new();
	pthread_t t[NTHREADS];
	struct reader r[NTHREADS];
	char path[64], content[32];
	int i, wrong = 0;

	for (i = 0; i < NTHREADS; i++) {
		str_fmt(path, sizeof(path), "/sys/class/x/f%d", i);
		str_fmt(content, sizeof(content), "value %d\n", i);
		fr_file(root, path, content);
	}
	fr_file(root, "/proc/driver/nvidia/version", "NVRM\n");
	fr_facts(root, "hang /proc/driver/nvidia/version\n");
	fr_use(root);
	hostio_set_timeout_ms(TIMEOUT_MS);
	alarm(20);
	for (i = 0; i < NTHREADS; i++) {
		r[i].index = i;
		r[i].wrong = 0;
		pthread_create(&t[i], NULL, reader_main, &r[i]);
	}
	for (i = 0; i < NTHREADS; i++) {
		pthread_join(t[i], NULL);
		wrong += r[i].wrong;
	}
	alarm(0);
	CHECK(wrong == 0);
	fr_free(root);
}

int main(void)
{
	RUN(fifo_without_writer_refused);
	RUN(fifo_with_writer_refused);
	RUN(kmsg_and_list_refuse_other_nodes);
	RUN(hang_fact_times_out);
	RUN(hang_through_link);
	RUN(hang_is_recorded);
	RUN(reads_from_many_threads);
	return TEST_DONE();
}
