/*
 * test_python.c: host/python.c finding Python environments and reading framework builds from
 * files: torch/version.py and METADATA, TensorFlow's build_info.py (its three layouts), the JAX
 * CUDA plugin, the NVIDIA wheel folders; the venv on PATH, active venv/conda, user site.
 */
#include <stdlib.h>
#include <sys/stat.h>

#include "fakeroot.h"
#include "host/facts.h"
#include "test.h"
#include "util/util.h"

#define VENV_SITE "/opt/torch/.venv/lib/python3.12/site-packages"

/* torch/version.py exactly as the 2.11.0+cu130 wheel on the H200 machine has it */
static const char torch_version_cu130[] =
	"from typing import Optional\n\n"
	"__all__ = ['__version__', 'debug', 'cuda', 'git_version', 'hip', 'rocm', 'xpu']\n"
	"__version__ = '2.11.0+cu130'\n"
	"debug = False\n"
	"cuda: Optional[str] = '13.0'\n"
	"git_version = '70d99e998b4955e0049d13a98d77ae1b14db1f45'\n"
	"hip: Optional[str] = None\n"
	"rocm: Optional[str] = None\n"
	"xpu: Optional[str] = None\n";

static const char torch_metadata_cu130[] =
	"Metadata-Version: 2.4\nName: torch\nVersion: 2.11.0\n"
	"Requires-Dist: filelock\n"
	"Requires-Dist: cuda-toolkit[cublas,cudart]==13.0.2; platform_system == \"Linux\"\n"
	"Requires-Dist: nvidia-cudnn-cu13==9.19.0.56; platform_system == \"Linux\"\n"
	"Requires-Dist: nvidia-nccl-cu13==2.28.9; platform_system == \"Linux\"\n"
	"\n"
	"Requires-Dist: nvidia-cudnn-cu13==1.0.0; this is the description, not a header\n";

static void collect(struct python_facts *py)
{
	struct env_facts env;

	memset(&env, 0, sizeof(env));
	python_collect(py, &env);
}

static const struct python_env *env_at(const struct python_facts *py, const char *site)
{
	int i;

	for (i = 0; i < py->n; i++)
		if (str_eq(py->v[i].site, site))
			return &py->v[i];
	return NULL;
}

static const struct framework *fw_of(const struct python_env *e, enum fw_kind kind)
{
	int i;

	for (i = 0; e && i < e->nfw; i++)
		if (e->fw[i].kind == kind)
			return &e->fw[i];
	return NULL;
}

/* The H200 machine's uv venv: torch cu130 and jax with the CUDA 13 plugin. */
static char *h200_root(void)
{
	char *root = fr_new();

	fr_exec(root, "/usr/bin/python3.12");
	fr_link(root, "/usr/bin/python3", "python3.12");
	fr_dir(root, "/usr/lib/python3/dist-packages/apt");
	fr_file(root, "/opt/torch/.venv/pyvenv.cfg",
		"home = /usr/bin\nimplementation = CPython\nuv = 0.11.15\nversion_info = 3.12.3\n"
		"include-system-site-packages = false\n");
	fr_link(root, "/opt/torch/.venv/bin/python", "/usr/bin/python3.12");
	fr_link(root, "/opt/torch/.venv/bin/python3", "python");
	fr_file(root, VENV_SITE "/torch/version.py", torch_version_cu130);
	fr_file(root, VENV_SITE "/torch/lib/libtorch_cuda.so", "ELF");
	fr_file(root, VENV_SITE "/torch-2.11.0.dist-info/METADATA", torch_metadata_cu130);
	fr_dir(root, VENV_SITE "/torch_geometric-2.8.0.post1.dist-info");
	fr_dir(root, VENV_SITE "/torchvision-0.26.0.dist-info");
	fr_dir(root, VENV_SITE "/jax");
	fr_dir(root, VENV_SITE "/jax-0.11.2.dist-info");
	fr_dir(root, VENV_SITE "/jaxlib-0.11.2.dist-info");
	fr_dir(root, VENV_SITE "/jax_cuda13_plugin-0.11.2.dist-info");
	fr_dir(root, VENV_SITE "/nvidia/cu13/include");
	fr_file(root, VENV_SITE "/nvidia/cu13/lib/libcublasLt.so.13", "ELF");
	fr_file(root, VENV_SITE "/nvidia/cu13/lib/libcudart.so.13", "ELF");
	fr_file(root, VENV_SITE "/nvidia/cudnn/lib/libcudnn.so.9", "ELF");
	fr_file(root, VENV_SITE "/nvidia/nccl/lib/libnccl.so.2", "ELF");
	fr_dir(root, VENV_SITE "/nvidia/nvshmem/lib");
	fr_facts(root, "env PATH=/opt/torch/.venv/bin:/usr/local/nvidia/bin:/usr/local/cuda/bin:"
		       "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:/opt/gcc/bin\n"
		       "env HOME=/root\n");
	return root;
}

static void h200_venv(void)
{
	char *root = h200_root();
	struct python_facts py;
	const struct python_env *e, *sys;
	const struct framework *t, *j;

	fr_use(root);
	collect(&py);
	CHECK(py.n == 2);
	e = &py.v[0];
	CHECK_STR(e->prefix, "/opt/torch/.venv");
	CHECK_STR(e->kind, "venv");
	CHECK(e->on_path && !e->active);
	CHECK_STR(e->site, VENV_SITE);
	CHECK_STR(e->py_version, "3.12.3");
	CHECK(e->nfw == 2);
	t = fw_of(e, FW_TORCH);
	CHECK(t != NULL);
	CHECK_STR(t->version, "2.11.0+cu130");
	CHECK_STR(t->cuda, "13.0");
	CHECK(!t->cpu_only && !t->rocm);
	CHECK_STR(t->archs, ""); /* the check maps cu130 to its arch list */
	CHECK_STR(t->cudnn_pin, "9.19.0.56");
	CHECK_STR(t->path, VENV_SITE "/torch");
	j = fw_of(e, FW_JAX);
	CHECK(j != NULL);
	CHECK_STR(j->version, "0.11.2");
	CHECK_STR(j->cuda, "13");
	CHECK(!j->cpu_only);
	CHECK_STR(e->nvidia_libdir, VENV_SITE "/nvidia/cu13/lib");
	CHECK_STR(e->nvidia_nccl_dir, VENV_SITE "/nvidia/nccl/lib");
	sys = env_at(&py, "/usr/lib/python3/dist-packages");
	CHECK(sys != NULL);
	CHECK_STR(sys->kind, "system");
	CHECK(!sys->on_path && sys->nfw == 0);
	fr_free(root);
}

/* A CPU-only torch in the system's pip folder, an older version.py without annotations. */
static void system_cpu_torch(void)
{
	char *root = fr_new();
	struct python_facts py;
	const struct python_env *e;
	const struct framework *t;

	fr_exec(root, "/usr/bin/python3.10");
	fr_link(root, "/usr/bin/python3", "python3.10");
	fr_file(root, "/usr/local/lib/python3.10/dist-packages/torch/version.py",
		"__version__ = '2.5.1+cpu'\ndebug = False\ncuda = None\nhip = None\n");
	fr_dir(root, "/usr/local/lib/python3.9/dist-packages/torch");
	fr_dir(root, "/usr/lib/python3/dist-packages");
	fr_facts(root, "env PATH=/usr/local/bin:/usr/bin\nenv HOME=/home/u\n");
	fr_use(root);
	collect(&py);
	e = env_at(&py, "/usr/local/lib/python3.10/dist-packages");
	CHECK(e != NULL);
	CHECK(e->on_path);
	CHECK_STR(e->kind, "system");
	CHECK_STR(e->prefix, "/usr/local");
	CHECK_STR(e->py_version, "3.10");
	t = fw_of(e, FW_TORCH);
	CHECK(t != NULL);
	CHECK_STR(t->version, "2.5.1+cpu");
	CHECK_STR(t->cuda, "");
	CHECK(t->cpu_only && !t->rocm);
	CHECK_STR(t->archs, "");
	/* python3.9's folder is not the on-PATH python's */
	CHECK(env_at(&py, "/usr/local/lib/python3.9/dist-packages") == NULL);
	CHECK(env_at(&py, "/usr/lib/python3/dist-packages")->on_path);
	fr_free(root);
}

/* Active conda env and venv, conda envs found by folder, a ROCm build, a torch without
 * version.py, TensorFlow in both build_info layouts, jaxlib with a CUDA tag. */
static void conda_venv_tf_rocm(void)
{
	char *root = fr_new();
	struct python_facts py;
	const struct python_env *e;
	const struct framework *f;

	fr_dir(root, "/home/u/miniconda3/conda-meta");
	fr_dir(root, "/home/u/miniconda3/lib/python3.11/site-packages");
	/* env "tf": TensorFlow 2.15 with the dict layout */
	fr_dir(root, "/home/u/miniconda3/envs/tf/conda-meta");
	fr_file(root, "/home/u/miniconda3/envs/tf/lib/python3.11/site-packages/tensorflow/python/"
		      "platform/build_info.py",
		"# generated\nimport collections\n\n"
		"build_info = collections.OrderedDict({'cpu_compiler': '/usr/bin/clang', "
		"'cuda_compute_capabilities': ['sm_50', 'sm_60', 'sm_70', 'sm_80', 'compute_90'], "
		"'cuda_version': '12.2', 'cudnn_version': '8', 'is_cuda_build': True, "
		"'is_rocm_build': False, 'is_tensorrt_build': True})\n");
	fr_dir(root, "/home/u/miniconda3/envs/tf/lib/python3.11/site-packages/"
		     "tensorflow-2.15.0.dist-info");
	/* env "old": TensorFlow 2.4 with module-level names, and jaxlib with a CUDA tag */
	fr_dir(root, "/home/u/miniconda3/envs/old/conda-meta");
	fr_file(root, "/home/u/miniconda3/envs/old/lib/python3.8/site-packages/tensorflow/python/"
		      "platform/build_info.py",
		"is_rocm_build = False\nis_cuda_build = True\ncuda_version_number = '11.0'\n"
		"cudnn_version_number = '8'\n"
		"build_info = {'cuda_compute_capabilities': ['3.5', '7.0']}\n");
	fr_dir(root, "/home/u/miniconda3/envs/old/lib/python3.8/site-packages/"
		     "tensorflow_gpu-2.4.1.dist-info");
	fr_dir(root, "/home/u/miniconda3/envs/old/lib/python3.8/site-packages/jax");
	fr_dir(root, "/home/u/miniconda3/envs/old/lib/python3.8/site-packages/"
		     "jaxlib-0.4.20+cuda12.cudnn89.dist-info");
	/* active conda env outside the usual folders: ROCm torch */
	fr_dir(root, "/srv/rocm/conda-meta");
	fr_file(root, "/srv/rocm/lib/python3.12/site-packages/torch/version.py",
		"__version__ = '2.5.1+rocm6.2'\ncuda: Optional[str] = None\n"
		"hip: Optional[str] = '6.2.41133-dd7f95766'\n");
	/* active venv: torch without version.py, CUDA from the dist-info name */
	fr_file(root, "/srv/venv/pyvenv.cfg", "version = 3.10.12\n");
	fr_file(root, "/srv/venv/lib/python3.10/site-packages/torch/lib/libtorch_cuda.so", "x");
	fr_file(root, "/srv/venv/lib/python3.10/site-packages/torch-2.4.0+cu121.dist-info/"
		      "METADATA",
		"Name: torch\nRequires-Dist: nvidia-cudnn-cu12==8.9.2.26; platform_system == "
		"\"Linux\"\n");
	fr_facts(root, "env PATH=/usr/bin\nenv HOME=/home/u\nenv CONDA_PREFIX=/srv/rocm\n"
		       "env VIRTUAL_ENV=/srv/venv\n");
	fr_use(root);
	collect(&py);

	e = env_at(&py, "/srv/venv/lib/python3.10/site-packages");
	CHECK(e && e->active && str_eq(e->kind, "venv"));
	CHECK_STR(e->py_version, "3.10.12");
	f = fw_of(e, FW_TORCH);
	CHECK(f != NULL);
	CHECK_STR(f->version, "2.4.0+cu121");
	CHECK_STR(f->cuda, "12.1");
	CHECK_STR(f->cudnn_pin, "8.9.2.26");

	e = env_at(&py, "/srv/rocm/lib/python3.12/site-packages");
	CHECK(e && e->active && str_eq(e->kind, "conda"));
	f = fw_of(e, FW_TORCH);
	CHECK(f && f->rocm && !f->cpu_only);
	CHECK_STR(f->cuda, "");

	e = env_at(&py, "/home/u/miniconda3/envs/tf/lib/python3.11/site-packages");
	CHECK(e && !e->active && !e->on_path && str_eq(e->kind, "conda"));
	CHECK_STR(e->prefix, "/home/u/miniconda3/envs/tf");
	f = fw_of(e, FW_TENSORFLOW);
	CHECK(f != NULL);
	CHECK_STR(f->version, "2.15.0");
	CHECK_STR(f->cuda, "12.2");
	CHECK_STR(f->cudnn_pin, "8");
	CHECK_STR(f->archs, "sm_50 sm_60 sm_70 sm_80 compute_90");
	CHECK(!f->cpu_only);

	e = env_at(&py, "/home/u/miniconda3/envs/old/lib/python3.8/site-packages");
	f = fw_of(e, FW_TENSORFLOW);
	CHECK(f != NULL);
	CHECK_STR(f->version, "2.4.1");
	CHECK_STR(f->cuda, "11.0");
	CHECK_STR(f->archs, "sm_35 sm_70 compute_70"); /* PTX for the highest X.Y */
	f = fw_of(e, FW_JAX);
	CHECK(f != NULL);
	CHECK_STR(f->cuda, "12");

	/* the conda base is listed too, with nothing in it */
	e = env_at(&py, "/home/u/miniconda3/lib/python3.11/site-packages");
	CHECK(e && e->nfw == 0);
	fr_free(root);
}

static void tensorflow_cpu_and_user_site(void)
{
	char *root = fr_new();
	struct python_facts py;
	const struct python_env *e;
	const struct framework *f;

	fr_exec(root, "/usr/bin/python3.12");
	fr_link(root, "/usr/bin/python3", "python3.12");
	fr_file(root, "/home/u/.local/lib/python3.12/site-packages/tensorflow/python/platform/"
		      "build_info.py",
		"build_info = {'cuda_version': '12.3', 'is_cuda_build': False}\n");
	fr_dir(root, "/home/u/.local/lib/python3.11/site-packages/torch");
	fr_facts(root, "env PATH=/usr/bin\nenv HOME=/home/u\n");
	fr_use(root);
	collect(&py);
	e = env_at(&py, "/home/u/.local/lib/python3.12/site-packages");
	CHECK(e && str_eq(e->kind, "user") && e->on_path);
	CHECK_STR(e->prefix, "/home/u/.local");
	f = fw_of(e, FW_TENSORFLOW);
	CHECK(f && f->cpu_only);
	CHECK_STR(f->cuda, "");
	fr_free(root);
}

#define TF_SITE "/opt/tf/lib/python3.12/site-packages"

/* The head gen_build_info.py writes above build_info (TensorFlow 2.5 and later). */
#define TF_HEAD                                                                                    \
	"# Copyright 2020 The TensorFlow Authors. All Rights Reserved.\n"                          \
	"# ==========================================================================\n"          \
	"\"\"\"Auto-generated module providing information about the build.\"\"\"\n"               \
	"import collections\n\n"

/* TensorFlow as read from a venv on PATH whose build_info.py holds text; false when absent. */
static bool tf_read(const char *text, struct framework *out)
{
	char *root = fr_new();
	struct python_facts py;
	const struct framework *f;

	fr_file(root, "/opt/tf/pyvenv.cfg", "version = 3.12.3\n");
	fr_exec(root, "/opt/tf/bin/python3");
	fr_file(root, TF_SITE "/tensorflow/python/platform/build_info.py", text);
	fr_dir(root, TF_SITE "/tensorflow-2.20.0.dist-info");
	fr_facts(root, "env PATH=/opt/tf/bin\n");
	fr_use(root);
	collect(&py);
	f = py.n == 1 ? fw_of(&py.v[0], FW_TENSORFLOW) : NULL;
	if (f)
		*out = *f;
	fr_free(root);
	return f != NULL;
}

/* What gen_build_info.py writes since TensorFlow 2.5: an OrderedDict of sorted pairs. */
static void tensorflow_pairs(void)
{
	struct framework f;

	CHECK(tf_read(TF_HEAD "build_info = collections.OrderedDict([('cpu_compiler', "
			      "'/usr/lib/llvm-18/bin/clang'), ('cuda_compute_capabilities', "
			      "['sm_60', 'sm_70', 'sm_80', 'sm_89', 'compute_90']), ('cuda_version', "
			      "'12.5.1'), ('cudnn_version', '9'), ('is_cuda_build', True), "
			      "('is_rocm_build', False), ('is_tensorrt_build', False)])\n",
		      &f));
	CHECK_STR(f.version, "2.20.0");
	CHECK_STR(f.cuda, "12.5.1");
	CHECK_STR(f.cudnn_pin, "9");
	CHECK_STR(f.archs, "sm_60 sm_70 sm_80 sm_89 compute_90");
	CHECK(!f.cpu_only && !f.rocm);

	/* the CPU wheel: only the build flags, is_cuda_build False */
	CHECK(tf_read(TF_HEAD "build_info = collections.OrderedDict([('cpu_compiler', "
			      "'/usr/lib/llvm-18/bin/clang'), ('is_cuda_build', False), "
			      "('is_rocm_build', False), ('is_tensorrt_build', False)])\n",
		      &f));
	CHECK(f.cpu_only && !f.rocm);
	CHECK_STR(f.cuda, "");
	CHECK_STR(f.archs, "");

	/* pairs written one a line, double quotes, a ROCm build */
	CHECK(tf_read(TF_HEAD "build_info = collections.OrderedDict([\n"
			      "    ( \"cuda_version\" ,\n      \"12.3\" ),\n"
			      "    ('is_cuda_build', False),\n    ('is_rocm_build', True),\n])\n",
		      &f));
	CHECK(f.rocm && !f.cpu_only);
	CHECK_STR(f.cuda, ""); /* is_cuda_build False wins over a stray cuda_version */
}

/* TensorFlow 2.3 and 2.4: a dict literal; 2.1 and 2.2: names at module level. */
static void tensorflow_dict_and_names(void)
{
	struct framework f;

	CHECK(tf_read("import collections\n\nbuild_info = {'cuda_version': '11.0', "
		      "'cudnn_version': '8', 'cuda_compute_capabilities': ['sm_35', 'sm_50', "
		      "'sm_60', 'sm_70', 'sm_75', 'compute_80'], 'is_cuda_build': True, "
		      "'is_rocm_build': False}\n",
		      &f));
	CHECK_STR(f.cuda, "11.0");
	CHECK_STR(f.cudnn_pin, "8");
	CHECK_STR(f.archs, "sm_35 sm_50 sm_60 sm_70 sm_75 compute_80");
	CHECK(!f.cpu_only);

	CHECK(tf_read("is_rocm_build = False\nis_cuda_build = True\n"
		      "cuda_version_number = '10.1'\ncudnn_version_number = '7'\n",
		      &f));
	CHECK_STR(f.cuda, "10.1");
	CHECK_STR(f.cudnn_pin, "7");
	CHECK_STR(f.archs, "");
	CHECK(!f.cpu_only);

	CHECK(tf_read("is_rocm_build = False\nis_cuda_build = False\n", &f));
	CHECK(f.cpu_only);
	CHECK_STR(f.cuda, "");
}

/*
 * Cut-off and malformed build_info.py: nothing that is not there is read, and a file that
 * never reaches is_cuda_build is not called a CPU build.
 */
static void tensorflow_malformed(void)
{
	struct framework f;

	/* cut inside the arch list: the list and what follows are unknown */
	CHECK(tf_read(TF_HEAD "build_info = collections.OrderedDict([('cpu_compiler', "
			      "'/usr/lib/llvm-18/bin/clang'), ('cuda_compute_capabilities', "
			      "['sm_60', 'sm_7",
		      &f));
	CHECK_STR(f.archs, "");
	CHECK_STR(f.cuda, "");
	CHECK(!f.cpu_only && !f.rocm);
	/* cut inside a value, and right after one (the pair is never closed) */
	CHECK(tf_read(TF_HEAD "build_info = collections.OrderedDict([('cuda_version', '12.5",
		      &f));
	CHECK_STR(f.cuda, "");
	CHECK(!f.cpu_only);
	CHECK(tf_read(TF_HEAD "build_info = collections.OrderedDict([('cuda_version', '12.5.1'",
		      &f));
	CHECK_STR(f.cuda, "");
	/* a string that runs past its line is not a value; lookalikes are not keys */
	CHECK(tf_read("build_info = collections.OrderedDict([('cuda_version', '12.5.1\n"
		      "'), ('is_cuda_build', Truest), ['cuda_version', '9.9'], "
		      "('cuda_versions', '8.0'), (\"cuda_version', '7.0'), "
		      "('cudnn_version' '9'), ('is_cuda_build', 'False')])\n",
		      &f));
	CHECK_STR(f.cuda, "");
	CHECK_STR(f.cudnn_pin, "");
	CHECK(!f.cpu_only);
	/* empty, and only punctuation */
	CHECK(tf_read("", &f));
	CHECK(!f.cpu_only && !f.cuda[0] && !f.archs[0]);
	CHECK(tf_read("((((('''[[[[ ,,, ))) is_cuda_build ( 'is_cuda_build' ,", &f));
	CHECK(!f.cpu_only && !f.cuda[0]);
	/* entries that are not X.Y stay as they are, without PTX invented for them */
	CHECK(tf_read("build_info = {'cuda_version': '11.2', "
		      "'cuda_compute_capabilities': ['7.5.1', '99999999999999999999.0', 'x.y']}\n",
		      &f));
	CHECK_STR(f.cuda, "11.2");
	CHECK_STR(f.archs, "7.5.1 99999999999999999999.0 x.y");
}

/* Hostile files: a version.py with no assignments, lookalike names, a huge listing cap. */
static void garbage_files(void)
{
	char *root = fr_new();
	struct python_facts py;
	const struct framework *f;

	fr_file(root, "/opt/v/pyvenv.cfg", "garbage without equals\n=\nversion\n");
	fr_exec(root, "/opt/v/bin/python3");
	fr_file(root, "/opt/v/lib/python3.12/site-packages/torch/version.py",
		"my_cuda = '9.9'\ncuda_extra = '1'\n__version__ = 'unterminated\ncuda ==\n");
	fr_dir(root, "/opt/v/lib/python3.12/site-packages/torch-2.3.0.dist-info");
	fr_file(root, "/opt/v/lib/python3.12/site-packages/jax/__init__.py", "");
	fr_facts(root, "env PATH=/opt/v/bin\n");
	fr_use(root);
	collect(&py);
	CHECK(py.n == 1);
	CHECK_STR(py.v[0].py_version, "3.12");
	f = fw_of(&py.v[0], FW_TORCH);
	CHECK(f != NULL);
	CHECK_STR(f->version, "2.3.0");
	CHECK_STR(f->cuda, "");
	CHECK(f->cpu_only);
	f = fw_of(&py.v[0], FW_JAX);
	CHECK(f && f->cpu_only && !f->version[0]);
	fr_free(root);
}

static void no_python_at_all(void)
{
	char *root = fr_new();
	struct python_facts py;

	fr_facts(root, "env PATH=/bin\n");
	fr_use(root);
	collect(&py);
	CHECK(py.n == 0);
	fr_free(root);
}

int main(void)
{
	RUN(h200_venv);
	RUN(system_cpu_torch);
	RUN(conda_venv_tf_rocm);
	RUN(tensorflow_cpu_and_user_site);
	RUN(tensorflow_pairs);
	RUN(tensorflow_dict_and_names);
	RUN(tensorflow_malformed);
	RUN(garbage_files);
	RUN(no_python_at_all);
	return TEST_DONE();
}
