/*
 * test_toolkit.c: host/toolkit.c finding CUDA toolkits, their versions from version.json,
 * version.txt or cuda.h, the /usr/local/cuda link, the first nvcc on PATH and CUDA_HOME.
 */
#include <stdlib.h>

#include "fakeroot.h"
#include "host/facts.h"
#include "test.h"
#include "util/util.h"

static void collect(struct toolkit_facts *t)
{
	struct env_facts env;

	memset(&env, 0, sizeof(env));
	toolkit_collect(t, &env);
}

static const struct toolkit *find(const struct toolkit_facts *t, const char *path)
{
	int i;

	for (i = 0; i < t->n; i++)
		if (str_eq(t->v[i].path, path))
			return &t->v[i];
	return NULL;
}

/* The H200 image: no version.json, only cuda.h; cuda and cuda-13 are alternatives links. */
static void h200_layout(void)
{
	char *root = fr_new();
	struct toolkit_facts t;
	const struct toolkit *k;

	fr_file(root, "/usr/local/cuda-13.0/targets/x86_64-linux/include/cuda.h",
		"/*\n * Copyright 1993-2025 NVIDIA Corporation.\n */\n#ifndef __cuda_cuda_h__\n"
		"#define CUDA_VERSION_MAJOR_IS_NOT_THIS 1\n"
		"#define CUDA_VERSION 13000\n");
	fr_link(root, "/usr/local/cuda-13.0/include", "targets/x86_64-linux/include");
	fr_exec(root, "/usr/local/cuda-13.0/bin/nvcc");
	fr_link(root, "/usr/local/cuda", "/etc/alternatives/cuda");
	fr_link(root, "/etc/alternatives/cuda", "/usr/local/cuda-13.0");
	fr_link(root, "/usr/local/cuda-13", "/etc/alternatives/cuda-13");
	fr_link(root, "/etc/alternatives/cuda-13", "/usr/local/cuda-13.0");
	fr_facts(root, "env PATH=/opt/torch/.venv/bin:/usr/local/nvidia/bin:/usr/local/cuda/bin:"
		       "/usr/bin\nenv CUDA_HOME=/usr/local/cuda\n");
	fr_use(root);
	collect(&t);
	CHECK(t.n == 1);
	k = find(&t, "/usr/local/cuda-13.0");
	CHECK(k != NULL);
	CHECK_STR(k->version, "13.0");
	CHECK(k->is_default);
	CHECK_STR(t.nvcc_path, "/usr/local/cuda-13.0/bin/nvcc");
	CHECK_STR(t.nvcc_version, "13.0");
	CHECK_STR(t.cuda_home, "/usr/local/cuda");
	CHECK_STR(t.cuda_home_real, "/usr/local/cuda-13.0");
	CHECK_STR(t.cuda_home_version, "13.0");
	fr_free(root);
}

/* Three toolkits, three version sources; nvcc on PATH is not the default one. */
static void several_toolkits(void)
{
	char *root = fr_new();
	struct toolkit_facts t;
	const struct toolkit *k;

	fr_file(root, "/usr/local/cuda-12.4/version.json",
		"{\n   \"cuda\" : {\n      \"name\" : \"CUDA SDK\",\n      \"version\" : \"12.4.1\"\n"
		"   },\n   \"cuda_cccl\" : {\n      \"version\" : \"12.4.127\"\n   }\n}\n");
	fr_file(root, "/usr/local/cuda-11.0/version.txt", "CUDA Version 11.0.228\n");
	fr_file(root, "/usr/local/cuda-12.8/version.json",
		"{\"cuda_cudart\": {\"version\": \"12.8.90\"}, \"cuda\": {\"version\": \"12.8.1\"}}");
	fr_exec(root, "/usr/local/cuda-12.4/bin/nvcc");
	fr_exec(root, "/usr/local/cuda-12.8/bin/nvcc");
	fr_link(root, "/usr/local/cuda", "cuda-12.8");
	/* an nvcc that is not executable is not the one a shell runs */
	fr_file(root, "/opt/broken/bin/nvcc", "x");
	fr_facts(root, "env PATH=/opt/broken/bin:/usr/local/cuda-12.4/bin:/usr/local/cuda/bin\n"
		       "env CUDA_PATH=/usr/local/cuda-11.0\n");
	fr_use(root);
	collect(&t);
	CHECK(t.n == 3);
	CHECK_STR(find(&t, "/usr/local/cuda-12.4")->version, "12.4.1");
	CHECK_STR(find(&t, "/usr/local/cuda-11.0")->version, "11.0.228");
	k = find(&t, "/usr/local/cuda-12.8");
	CHECK(k && k->is_default);
	CHECK_STR(k->version, "12.8.1");
	CHECK(!find(&t, "/usr/local/cuda-12.4")->is_default);
	CHECK_STR(t.nvcc_path, "/usr/local/cuda-12.4/bin/nvcc");
	CHECK_STR(t.nvcc_version, "12.4.1");
	CHECK_STR(t.cuda_home, "/usr/local/cuda-11.0");
	CHECK_STR(t.cuda_home_version, "11.0.228");
	fr_free(root);
}

/* Debian's nvidia-cuda-toolkit: nvcc in /usr/bin, cuda.h in /usr/include. */
static void distro_nvcc(void)
{
	char *root = fr_new();
	struct toolkit_facts t;

	fr_exec(root, "/usr/bin/nvcc");
	fr_file(root, "/usr/include/cuda.h", "#define CUDA_VERSION 12040\n");
	fr_facts(root, "env PATH=/usr/local/bin:/usr/bin\nenv CUDA_HOME=/nonexistent\n");
	fr_use(root);
	collect(&t);
	CHECK_STR(t.nvcc_path, "/usr/bin/nvcc");
	CHECK_STR(t.nvcc_version, "12.4");
	CHECK(find(&t, "/usr") != NULL);
	CHECK_STR(t.cuda_home, "/nonexistent");
	CHECK_STR(t.cuda_home_real, "");
	fr_free(root);
}

static void nothing_and_garbage(void)
{
	char *root = fr_new();
	struct toolkit_facts t;

	/* a folder with no readable version: the name is the last resort; junk gives nothing */
	fr_file(root, "/usr/local/cuda-12.2/version.json", "{\"cuda\": {\"version\": ");
	fr_file(root, "/usr/local/cuda-12.2/include/cuda.h", "#define CUDA_VERSION banana\n");
	fr_file(root, "/usr/local/cuda-weird/version.txt", "nothing here");
	fr_file(root, "/usr/local/cuda-file", "not a folder");
	fr_facts(root, "env PATH=/usr/bin\n");
	fr_use(root);
	collect(&t);
	CHECK(t.n == 2);
	CHECK_STR(find(&t, "/usr/local/cuda-12.2")->version, "12.2");
	CHECK_STR(find(&t, "/usr/local/cuda-weird")->version, "");
	CHECK_STR(t.nvcc_path, "");
	CHECK_STR(t.cuda_home, "");
	fr_free(root);
}

int main(void)
{
	RUN(h200_layout);
	RUN(several_toolkits);
	RUN(distro_nvcc);
	RUN(nothing_and_garbage);
	return TEST_DONE();
}
