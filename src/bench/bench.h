/*
 * bench.h: the benchmark layer behind `gpuvet bench`: results, the per-GPU harness and the
 * families (one file each: launch.c, memory.c, transfer.c, p2p.c, gemm.c, fit.c, allreduce.c;
 * cl.c's two on OpenCL devices),
 * each described by its struct bench_family and listed once, in run order, in family.c.
 *
 * To add a benchmark you touch:
 *   1. src/bench/<name>.c: its run function and its struct bench_family (name, aliases, summary,
 *      title, run, what it needs, how the table shows it);
 *   2. src/bench/family.c: its place in bench_families[] (the run order) and its extern;
 *   3. docs/bench.md: its row in the table of benchmarks, and its method;
 *   4. tests/bench/sample-fakegpu.json: regenerated with tests/bench/make-sample.sh, so the
 *      stored result the report tests render holds it too.
 * Only if it needs them: a new kernel (src/kernels/<file>.cu, its line in BENCH_KERNELS below
 * and its C copy in tests/bench/fakegpu/fake_cuda.c); a new library (src/vendor/, a BENCH_LIB_
 * bit and its loading in setup.c, a fake in tests/bench/fakegpu/). The command line, --list,
 * the progress line, the JSON, the table, the HTML page and the tests take the benchmarks from
 * the table: tests/cli/bench*.sh iterate `gpuvet bench --list`, test_bench_result.c the table.
 *
 * Method, shared by every family (gpu.c): warm up until the clocks have ramped, size batches to
 * a time budget, time each batch with CUDA events on a stream held behind a gate kernel until
 * the whole batch is queued (host clock for synchronous work), keep several samples and report
 * their median with min/max/CV. Data is random and never zero; every result is verified after
 * its timed region. SM clock and power come from a sampling thread (sensors.c).
 *
 * Nothing here prints or exits: families add results and notes to struct bench_run and return
 * 0 or -1 with a struct err (EXIT_INTERRUPTED after Ctrl-C). cmd/bench.c owns options, output,
 * JSON and HTML; result.c turns a run into JSON.
 */
#ifndef GPUVET_BENCH_H
#define GPUVET_BENCH_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../util/err.h"
#include "../vendor/cuda.h"
#include "peak.h"

struct bench_env;

/* What a benchmark needs beyond the CUDA driver and gpuvet's kernels (setup.c loads them). */
enum {
	BENCH_LIB_CUBLASLT = 1 << 0,
	BENCH_LIB_NCCL = 1 << 1,
};

/* A source x destination matrix of one pair test's headline results (p2p). */
struct bench_matrix {
	const char *test;  /* the results' test id: "write_ce" */
	const char *title; /* "write, copy engine, P2P on (GB/s)" */
};

/* A table per sweep: a row per size, a column per series (fit). */
struct bench_size_table {
	const char *plot;  /* the results' plot id: "fit-axpy" */
	const char *title; /* "element-wise z = a*x + y (ms per operation)" */
};
struct bench_size_column {
	const char *series;  /* the results' series: "GPU, incl. transfers" */
	const char *heading; /* "GPU+transfers" */
	int width;
};

/*
 * A benchmark: defined in its own file (memory.c: family_memory), listed in family.c. Every
 * result, note, summary and plot it adds points back at it; its name is what the JSON calls it.
 */
struct bench_family {
	const char *name;    /* "memory": on the command line, in --list and the JSON */
	const char *aliases; /* space-separated other names accepted on the command line */
	const char *summary; /* one line for --list */
	const char *title;   /* heading in the table and the HTML page */
	/* Measure on env->gpus, adding to env->run; -1 with e when it cannot go on (the run goes
	 * on with the next benchmark), EXIT_INTERRUPTED after Ctrl-C. */
	int (*run)(struct bench_env *env, struct err *e);

	/* what it needs */
	unsigned libs;          /* BENCH_LIB_*: loaded before the run when it is selected */
	unsigned libs_required; /* those of libs it is nothing without: named on the command line,
				 * it stops the run (exit 5) when one does not load; selected
				 * through "all", it notes a skip */
	int min_gpus;           /* the fewest GPUs it can measure: with fewer selected its
				 * libraries are not loaded and its run notes a skip */
	bool opencl;            /* measures OpenCL devices (cl.c), not CUDA GPUs: needs neither
				 * the CUDA driver nor gpuvet's kernels; "all" leaves it out */
	int size_buffers;       /* device buffers of --size it holds on one GPU at once (0: none);
				 * a --size that does not fit is refused before anything runs */

	/* how the table shows it (cmd/bench_report.c; the HTML page shows every one alike); the
	 * lists end with an entry of NULLs */
	const char *table_note;                       /* a line under its heading, or NULL */
	bool traffic_column;                          /* an "HBM traffic" column */
	const struct bench_matrix *matrices;          /* after the rows and sweeps */
	const struct bench_size_table *size_tables;   /* instead of the rows and sweeps */
	const struct bench_size_column *size_columns; /* the columns of size_tables */
};

/* Every benchmark, in the order `all` runs them (family.c). */
extern const struct bench_family *const bench_families[];
extern const int bench_nfamilies;
/* The index in bench_families of the benchmark named (or aliased) name, or -1. */
int bench_family_find(const char *name);

/* ---- results ------------------------------------------------------------------------------- */

enum { VERIFY_NONE = -1, VERIFY_FAILED = 0, VERIFY_OK = 1 };

struct bench_result {
	const struct bench_family *family; /* the benchmark that made it */
	char test[40];      /* stable id within the family: "copy_kernel", "h2d_pinned_ce" */
	char label[64];     /* for people: "copy (our kernel)" */
	int gpu, peer;      /* GPU numbers as shown (NVML index), -1 when not applicable */
	double size;        /* bytes, elements or n; 0 when not a sweep point */
	char size_unit[12]; /* "B", "elements", "n" */
	char unit[12];      /* "GB/s", "TFLOP/s", "us", "ms" */
	bool lower_better;  /* times and latencies */
	double *samples;    /* per-sample values in unit */
	int nsamples;
	int batch;         /* operations per sample */
	double op_seconds; /* median seconds per operation */
	double median, min, max, cv;
	double traffic_factor; /* memory only: HBM bytes per reported byte (copy: 2); 0 = none */
	double peak;           /* in unit (of the traffic when traffic_factor > 0); 0 = n/a */
	char peak_what[64];    /* "HBM 4815 GB/s", "PCIe 5.0 x16" */
	int verified;          /* VERIFY_* */
	char verify[200];      /* how it was checked, or what was wrong */
	char config[96];       /* what ran: kernel variant, cuBLASLt algorithm rank, ... */
	char plot[32];         /* the sweep this point belongs to, "" when none */
	char series[48];       /* the line within the plot */
	bool headline;         /* shown as its own row in the table (sweep points are folded) */
	/* SM clock and power while it ran (sensors.c); < 0 when not read */
	double clock_sm_mhz, clock_sm_min_mhz, power_w, power_max_w, temp_c;
	double t_start_s, t_end_s; /* seconds since the run started */
	/* a sustained measurement (gemm's headline): median is the whole run's rate over
	 * sustained_ops operations back to back in sustained_s; burst the rate of burst_ops
	 * right before it; 0 when not measured so */
	double sustained_s, burst;
	int sustained_ops, burst_ops;
	char note[160];
};

enum { NOTE_INFO = 0, NOTE_SKIP, NOTE_WARN, NOTE_ERROR };

struct bench_note {
	const struct bench_family *family; /* NULL for the whole run */
	int kind;   /* NOTE_* */
	char text[300];
};

struct bench_summary {
	const struct bench_family *family;
	char key[48]; /* "bf16_over_fp32", "axpy_crossover_elements" */
	double value; /* NAN when there is none (shown as "none") */
	char unit[16];
	char text[240];
};

struct bench_plot {
	char id[32];
	const struct bench_family *family;
	char title[96];
	char x_label[48], y_label[48];
	bool log_y;
};

struct bench_run {
	struct bench_result **r;
	size_t n, cap;
	struct bench_note *notes;
	size_t nnotes, capnotes;
	struct bench_summary *sums;
	size_t nsums, capsums;
	struct bench_plot *plots;
	size_t nplots, capplots;
	int64_t t0_ns; /* now_ns() at the start */
	bool interrupted;
};

void bench_run_init(struct bench_run *run);
void bench_run_free(struct bench_run *run);
/* A new zeroed result owned by the run (gpu, peer -1; sensors -1). */
struct bench_result *bench_run_add(struct bench_run *run, const struct bench_family *family,
				   const char *test, const char *label);
void bench_note(struct bench_run *run, const struct bench_family *family, int kind, const char *fmt,
		...) __attribute__((format(printf, 4, 5)));
void bench_summary(struct bench_run *run, const struct bench_family *family, const char *key,
		   double value, const char *unit, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));
/* Declare a plot once (later calls with the same id are ignored). */
void bench_plot(struct bench_run *run, const struct bench_family *family, const char *id,
		const char *title, const char *x_label, const char *y_label, bool log_y);
/* Set samples (copied) and the statistics. */
void bench_result_set_samples(struct bench_result *r, const double *v, int n);
/* Results failing verification. */
int bench_run_failed(const struct bench_run *run);

/* ---- options and environment ------------------------------------------------------------ */

struct bench_opts {
	unsigned families;   /* 1u << i selects bench_families[i] */
	unsigned named;      /* those named on the command line (not through "all") */
	uint64_t size_bytes; /* buffer of memory, transfer, p2p; 0 = default */
	double budget_s;     /* per measurement; 0 = default */
	bool quick;
	uint64_t cl_devices; /* -i cl:N: bit N selects OpenCL device N; 0 = every one */
};

#define BENCH_DEFAULT_SIZE   (1ull << 30)
#define BENCH_DEFAULT_BUDGET 0.25
#define BENCH_QUICK_BUDGET   0.06

struct bench_fns; /* kernel handles, gpu.c */
struct dirs;
struct bench_sensors;
struct cublaslt_lib;
struct nccl_lib;

struct bench_gpu {
	int ordinal;    /* CUDA device ordinal */
	int index;      /* the number users see (NVML index; the ordinal without NVML) */
	int nvml_index; /* -1 when NVML has no handle for it */
	cu_device dev;
	cu_ctx ctx;
	cu_module mod;
	struct bench_fns *fn;
	cu_stream s[2];
	cu_event ev[4];
	volatile int *gate; /* pinned, mapped: [0] open, [1] timed out */
	cu_ptr gate_dev;
	cu_ptr scratch; /* 4 x u64 of device memory for verifiers */
	bool opened;
	/* facts */
	char name[96], bus_id[32];
	int cc_major, cc_minor, sm_count, clock_mhz, mem_clock_mhz, bus_width_bits;
	int l2_bytes, max_threads_sm, copy_engines;
	size_t mem_total;
	int pcie_gen, pcie_width; /* the link's maximum; 0 unknown */
	int nvlink_links;         /* active links; 0 none or unknown */
	char local_cpus[256];     /* /sys/bus/pci/devices/<bdf>/local_cpulist */
	int numa_node;            /* -1 unknown */
};

struct bench_env {
	struct cuda_lib *cuda;
	const struct cuda_api *cu;
	const void *image; /* the kernel fatbin */
	struct bench_gpu *gpus;
	int ngpus;
	struct bench_opts opt;
	struct bench_run *run;
	struct bench_sensors *sensors;
	struct cublaslt_lib *lt; /* NULL: not loaded, lt_error says why */
	char lt_error[600];
	struct nccl_lib *nccl;
	char nccl_error[600];
	const char *const *lib_dirs; /* extra folders for cuBLASLt and NCCL */
	size_t nlib_dirs;
	struct dirs *dirs;           /* their storage (setup.c) */
	int cuda_version;            /* cuDriverGetVersion: 13000 = 13.0 */
	volatile sig_atomic_t *stop; /* set by the SIGINT handler */
	void (*progress)(void *arg, const struct bench_family *family, const char *what);
	void *progress_arg;
	int cpu_threads; /* CPUs this process may run on */
	/* allreduce across processes (bench/ranks.h): this process's rank; NULL: one process */
	struct bench_ranks *ranks;
};

/* ---- the libraries (setup.c) -------------------------------------------------------------- */

/* Load libcuda (env->cuda, env->cu), check it has every call bench makes, cuInit; -1 with e
 * (EXIT_UNAVAILABLE). The library stays loaded. */
int bench_setup_driver(struct bench_env *env, struct err *e);
/* Load the libraries the benchmarks in env->opt.families need on ngpus GPUs
 * (bench_family.libs); one that fails is left NULL with its reason in lt_error / nccl_error,
 * and -1 only when a benchmark in env->opt.named requires it. */
int bench_setup_libs(struct bench_env *env, int ngpus, struct err *e);
void bench_teardown(struct bench_env *env);
struct json_t;
/* The OpenCL ICD loader's file once cl.c's benchmarks have loaded it, else NULL. */
const char *bench_cl_library(void);
/* Add cuda_driver, cuda_library, cublaslt(_library), nccl(_library), opencl_library to the
 * object v. */
void bench_versions_json(const struct bench_env *env, struct json_t *v);

/* ---- the harness (gpu.c) ----------------------------------------------------------------- */

/* GPUVET_BENCH_KERNELS=FILE loads the kernel image from FILE (a fatbin, cubin or PTX that
 * cuModuleLoadData takes) instead of the one built in: a kernel rebuilt by another toolkit can
 * be tried without relinking, and the fake GPUs of the tests run a build made without nvcc.
 * The override's path, NULL when unset; the image to load: the override's contents (*owned,
 * the caller frees) or built_in (kernels/image.h's, NULL when none was built; e unset). */
const char *bench_kernels_override(void);
const void *bench_kernels_image(const void *built_in, void **owned, struct err *e);
/* g->local_cpus from sysfs (the CPUs next to g's PCI slot, where its host buffers belong), ""
 * when g has no bus id or the file is unreadable. */
void bench_gpu_local_cpus(struct bench_gpu *g);
/* Retain the primary context, load the kernels, create streams, events, the gate and scratch. */
int bench_gpu_open(struct bench_env *env, struct bench_gpu *g, struct err *e);
void bench_gpu_close(struct bench_env *env, struct bench_gpu *g);
int bench_use(struct bench_env *env, struct bench_gpu *g, struct err *e);
/* rc != 0: fill e with "<call> on GPU n: <NAME> (<meaning>)" and return -1. */
int bench_cu(struct bench_env *env, int rc, const char *call, const struct bench_gpu *g,
	     struct err *e);
/* The CUresult of the last call that failed in bench_cu or bench_dalloc on this thread, 0 none:
 * burn tells a GPU that is gone (CUDA_ERROR_DEVICE_UNAVAILABLE...) from other failures. */
int bench_last_cu_error(void);
bool bench_stopped(const struct bench_env *env);
int bench_interrupted(struct err *e);
void bench_progress(struct bench_env *env, const struct bench_family *family, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
double bench_budget(const struct bench_env *env);
/* Seconds since the run started; 0 without a run (env->run NULL: burn). */
double bench_now(const struct bench_env *env);

int bench_dalloc(struct bench_env *env, struct bench_gpu *g, cu_ptr *p, size_t bytes,
		 const char *what, struct err *e);
void bench_dfree(struct bench_env *env, cu_ptr *p);
/* Pinned host memory, portable and mapped into every context. */
/* fit's square matmul side for about `elems` elements: the largest n with n*n <= elems */
size_t bench_fit_side(double elems);

int bench_halloc(struct bench_env *env, struct bench_gpu *g, void **p, size_t bytes,
		 const char *what, struct err *e);
void bench_hfree(struct bench_env *env, void **p);

/*
 * gpuvet's kernels (the .cu files of src/kernels/): the enum the families launch them by and
 * their name in the image. The only list: gpu.c looks each one up when it opens a GPU (an image
 * without it fails there, naming it); tests/bench/fakegpu/fake_cuda.c has a C copy of each.
 */
#define BENCH_KERNELS(K)                                                                           \
	K(K_SPIN, "gv_spin")                                                                       \
	K(K_TICK, "gv_tick")                                                                       \
	K(K_FILL_U32, "gv_fill_u32")                                                               \
	K(K_VERIFY_U32, "gv_verify_u32")                                                           \
	K(K_VERIFY_STREAM, "gv_verify_stream")                                                     \
	K(K_SUM_U32, "gv_sum_u32")                                                                 \
	K(K_FILL_UNIT_F32, "gv_fill_unit_f32")                                                     \
	K(K_VERIFY_TRIAD, "gv_verify_triad")                                                       \
	K(K_FILL_GEMM, "gv_fill_gemm")                                                             \
	K(K_GATHER_ROW, "gv_gather_row")                                                           \
	K(K_FILL_SMALL_INT, "gv_fill_small_int")                                                   \
	K(K_VERIFY_ALLREDUCE, "gv_verify_allreduce")                                               \
	K(K_AXPY, "gv_axpy")                                                                       \
	K(K_BURN_COMPARE, "gv_burn_compare")                                                       \
	K(K_BURN_INJECT, "gv_burn_inject")                                                         \
	K(K_MT_WRITE, "gv_mt_write")                                                               \
	K(K_MT_VERIFY, "gv_mt_verify")                                                             \
	K(K_MT_INVERT, "gv_mt_invert")                                                             \
	K(K_MT_STICK, "gv_mt_stick")                                                               \
	/* memory.cu variants: op x shape, in this order (memory.c counts on it) */                \
	K(K_COPY_GS4, "gv_copy_gs4")                                                               \
	K(K_COPY_GS8, "gv_copy_gs8")                                                               \
	K(K_COPY_BT4, "gv_copy_bt4")                                                               \
	K(K_COPY_BT8, "gv_copy_bt8")                                                               \
	K(K_READ_GS4, "gv_read_gs4")                                                               \
	K(K_READ_GS8, "gv_read_gs8")                                                               \
	K(K_READ_BT4, "gv_read_bt4")                                                               \
	K(K_READ_BT8, "gv_read_bt8")                                                               \
	K(K_WRITE_GS4, "gv_write_gs4")                                                             \
	K(K_WRITE_GS8, "gv_write_gs8")                                                             \
	K(K_WRITE_BT4, "gv_write_bt4")                                                             \
	K(K_WRITE_BT8, "gv_write_bt8")                                                             \
	K(K_TRIAD_GS4, "gv_triad_gs4")                                                             \
	K(K_TRIAD_GS8, "gv_triad_gs8")                                                             \
	K(K_TRIAD_BT4, "gv_triad_bt4")                                                             \
	K(K_TRIAD_BT8, "gv_triad_bt8")

enum bench_kernel {
#define BENCH_KERNEL_ENUM(id, name) id,
	BENCH_KERNELS(BENCH_KERNEL_ENUM)
#undef BENCH_KERNEL_ENUM
	K_COUNT,
};

/* Kernel launches; every one checks the launch and names the kernel on failure. */
const char *bench_kernel_name(int k);
int bench_launch(struct bench_env *env, struct bench_gpu *g, int kernel, unsigned grid,
		 unsigned block, cu_stream s, void **args, struct err *e);
/* Resident blocks of `block` threads per SM for the kernel (at least 1). */
int bench_blocks_per_sm(struct bench_env *env, struct bench_gpu *g, int kernel, unsigned block);
/* A grid-stride grid covering n items, capped at 8 waves of resident blocks. */
unsigned bench_grid(struct bench_gpu *g, size_t n, unsigned block);

/* Untimed data helpers; each synchronises g->s[0]. */
int bench_fill_u32(struct bench_env *env, struct bench_gpu *g, cu_ptr p, size_t words,
		   uint64_t seed, struct err *e);
/* *bad = words that differ from the expected data, *first = the first such index. */
int bench_verify_u32(struct bench_env *env, struct bench_gpu *g, cu_ptr p, size_t words,
		     uint64_t seed, uint64_t *bad, uint64_t *first, struct err *e);
int bench_run_verifier(struct bench_env *env, struct bench_gpu *g, int kernel, unsigned grid,
		       void **args_before_counters, int nargs, uint64_t *bad, uint64_t *first,
		       struct err *e);
/* Fill host memory with the pattern, on all CPUs. */
void bench_host_fill_u32(struct bench_env *env, uint32_t *p, size_t words, uint64_t seed);
uint64_t bench_host_verify_u32(struct bench_env *env, const uint32_t *p, size_t words,
			       uint64_t seed, uint64_t *first);

/* ---- timing ------------------------------------------------------------------------------- */

struct bench_op {
	/* Queue one operation (or do it, for host-timed ops). */
	int (*run)(void *arg, struct err *e);
	void *arg;
	struct bench_gpu *g; /* events and gate on g->s[0]; NULL for pure host work */
	cu_stream join[3];   /* more streams: they wait for the start, s[0] waits for them */
	struct bench_gpu *join_gpu[3];
	int njoin;
	bool host_timed; /* wall clock around the batch (synchronous work) */
	/* host-timed ops: wait for the batch (default: g's streams) */
	int (*sync)(void *arg, struct err *e);
	bool no_gate;    /* never hold the stream (ops that block the host) */
	int max_batch;   /* 0: default */
	int min_samples; /* 0: default */
	double budget_s; /* 0: the run's budget */
};

struct bench_timing {
	double *t; /* seconds per operation, per sample (caller frees with bench_timing_free) */
	int n;
	int batch;
	double t_start_s, t_end_s;
	bool gate_timed_out;
};

/* Warm up, calibrate, then sample op; -1 on error or interruption (tm is then empty). */
int bench_time(struct bench_env *env, const struct bench_op *op, struct bench_timing *tm,
	       struct err *e);
void bench_timing_free(struct bench_timing *tm);
/* For burn's checks: run(arg) on g timed as bench_time does (at least 3 samples within
 * budget_s); *median_s is their median. -1 on error or interruption. */
int bench_time_median(struct bench_env *env, struct bench_gpu *g, int (*run)(void *, struct err *),
		      void *arg, double budget_s, double *median_s, struct err *e);

/* Add a result from a timing: value = work / t / scale (rates) or t / scale (times, when
 * lower_better). Reads the sensors for the window. */
struct bench_result *bench_add_timed(struct bench_env *env, const struct bench_family *family,
				     const char *test, const char *label,
				     const struct bench_timing *tm, double work, double scale,
				     const char *unit, bool lower_better,
				     const struct bench_gpu *g);

/* Host threads (cpu.c): run fn(arg, i, n) for i in [0, n) on all CPUs. */
void bench_parallel(struct bench_env *env, int nthreads, void (*fn)(void *arg, int i, int n),
		    void *arg);
/* Pin the calling thread to a cpulist ("0-31,64-95"); "" or NULL restores every CPU. */
int bench_pin_thread(const char *cpulist);

/* ---- helpers of the families ------------------------------------------------------------ */

/* burn's bandwidth phase (burn/bandwidth.c) measures with three families' operations, without a
 * bench run (env->run may be NULL); both time with bench_time for budget_s, return the median
 * and verify the destination after, and are safe on several GPUs' threads at once as long as
 * env->cpu_threads <= 1 (the host pattern work then stays on the calling thread). */
/* memory.c: the copy kernel from src to dst (bytes each, a multiple of 256; src is filled
 * here), in the variant fastest on g; *traffic_gbs = HBM traffic (bytes read + written) in
 * GB/s, *bad = destination words that differ from the source. */
int bench_memory_copy(struct bench_env *env, struct bench_gpu *g, cu_ptr dst, cu_ptr src,
		      size_t bytes, double budget_s, double *traffic_gbs, uint64_t *bad,
		      struct err *e);
/* transfer.c: cuMemcpyAsync between device memory d and pinned host memory h (bench_halloc),
 * bytes each (a multiple of 256; the source is filled here), host to device when h2d, else
 * device to host; *gbs per direction, *bad = destination words that differ from the source. */
int bench_transfer_pinned(struct bench_env *env, struct bench_gpu *g, bool h2d, cu_ptr d, void *h,
			  size_t bytes, double budget_s, double *gbs, uint64_t *bad, struct err *e);

/* p2p.c: cuMemcpyPeerAsync from src on a to dst on b (bytes each, a multiple of 256; src is
 * filled here) on a's stream, peer access from a to b enabled by the caller
 * (bench_p2p_access); *gbs, *bad = destination words that differ from the source. */
int bench_p2p_copy(struct bench_env *env, struct bench_gpu *a, struct bench_gpu *b, cu_ptr dst,
		   cu_ptr src, size_t bytes, double budget_s, double *gbs, uint64_t *bad,
		   struct err *e);
/* p2p.c: turn from's access to to's memory on (already on is no error) or off (errors
 * ignored). */
int bench_p2p_access(struct bench_env *env, struct bench_gpu *from, struct bench_gpu *to, bool on,
		     struct err *e);

/* fit.c: the smallest size from which the GPU is faster at every larger size; -1 when none. */
int bench_crossover(const double *cpu_s, const double *gpu_s, int n);

/* Human sizes: "1 GiB", "512 MiB", "4 KiB", "1000 B". */
void bench_size_str(double bytes, char *out, size_t n);
/* Parse "1G", "512M", "4096", "1.5GiB"; -1 on junk or zero. */
int bench_parse_size(const char *s, uint64_t *out);

#endif
