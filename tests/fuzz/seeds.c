/*
 * seeds.c: the seed corpora of the fuzz targets that read parts of a machine (tests/fuzz/run.sh
 * calls it), cut from the committed recordings so the fuzzers start from real inputs:
 *
 *   fuzz_seeds OUTDIR RECORDING...
 *     OUTDIR/kmsg/NAME        the recording's /dev/kmsg
 *     OUTDIR/pyscan/NAME-N    each recorded *.py file (torch/version.py, build_info.py)
 *     OUTDIR/ldcache/NAME     the recorded /etc/ld.so.cache (stored as hex)
 *     OUTDIR/ldcache/gen-*    the three layouts glibc writes (tests/unit/ldcache_gen.h)
 *     OUTDIR/facts/NAME       the .gpuvet/facts lines a replay of it writes (replay/replay.c's
 *                             format: env, uname, id, node, error)
 *     OUTDIR/fields/all       every field name, comma-separated
 *
 * Each recording is read as it is, without its "derive" base: a fault holds just what differs,
 * which is the interesting part. Not a test: it prints what it could not do and goes on.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../unit/ldcache_gen.h"
#include "gpu/fields.h"
#include "util/util.h"

static const char *outdir;

static void put(const char *sub, const char *name, const void *data, size_t len)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", outdir, sub);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%s/%s", outdir, sub, name);
	f = fopen(path, "wb");
	if (!f || fwrite(data, 1, len, f) != len)
		fprintf(stderr, "fuzz_seeds: cannot write %s\n", path);
	if (f)
		fclose(f);
}

/* A recorded file's text: "..." or {"content": "..."}; NULL for links, folders, hex. */
static const char *content(json_t *v, size_t *len)
{
	json_t *c = json_is_object(v) ? json_object_get(v, "content") : v;

	if (!json_is_string(c))
		return NULL;
	*len = json_string_length(c);
	return json_string_value(c);
}

static void put_hex(const char *sub, const char *name, const char *hex)
{
	size_t n;
	char *buf = hex_decode(hex, &n);

	if (buf)
		put(sub, name, (const unsigned char *)buf, n);
	free(buf);
}

/* A fake root's facts file (host.c facts_line) holding what this recording says of the
 * environment, uname, identity, device nodes and errors: real-looking seeds for fuzz_facts. */
static void facts(json_t *rec, const char *name)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	json_t *files = json_object_get(rec, "files"), *env = json_object_get(rec, "env");
	json_t *un = json_object_get(rec, "uname"), *id = json_object_get(rec, "identity"), *v;
	const char *k;
	size_t i;
	bool any = false;

	if (!f)
		return;
	json_object_foreach(files, k, v) {
		json_t *st = json_object_get(v, "stat"), *err = json_object_get(v, "error");

		if (json_is_string(err) && strcmp(json_string_value(err), "ENOENT") != 0) {
			fprintf(f, "error %s %s\n", k, json_string_value(err));
			any = true;
		}
		if (json_is_object(st) && json_is_string(json_object_get(st, "type")) &&
		    json_is_string(json_object_get(st, "mode"))) {
			fprintf(f, "node %s %c %s %lld %lld %lld %lld\n", k,
				json_string_value(json_object_get(st, "type"))[0],
				json_string_value(json_object_get(st, "mode")),
				(long long)json_integer_value(json_object_get(st, "uid")),
				(long long)json_integer_value(json_object_get(st, "gid")),
				(long long)json_integer_value(json_object_get(st, "major")),
				(long long)json_integer_value(json_object_get(st, "minor")));
			any = true;
		}
	}
	json_object_foreach(env, k, v) {
		if (json_is_string(v)) {
			fprintf(f, "env %s=%s\n", k, json_string_value(v));
			any = true;
		}
	}
	json_object_foreach(un, k, v) {
		if (json_is_string(v)) {
			fprintf(f, "uname %s %s\n", k, json_string_value(v));
			any = true;
		}
	}
	if (json_is_object(id)) {
		fprintf(f, "id %lld %lld", (long long)json_integer_value(json_object_get(id, "uid")),
			(long long)json_integer_value(json_object_get(id, "gid")));
		json_array_foreach(json_object_get(id, "groups"), i, v)
			fprintf(f, " %lld", (long long)json_integer_value(v));
		fputc('\n', f);
		any = true;
	}
	fclose(f);
	if (any)
		put("facts", name, text, len);
	free(text);
}

static void recording(const char *path)
{
	json_error_t je;
	json_t *rec = json_load_file(path, 0, &je), *files, *v;
	const char *slash = strrchr(path, '/'), *k, *text;
	char name[256];
	size_t len;
	int npy = 0;

	if (!rec) {
		fprintf(stderr, "fuzz_seeds: %s: %s\n", path, je.text);
		return;
	}
	snprintf(name, sizeof(name), "%s", slash ? slash + 1 : path);
	if (strstr(name, ".json"))
		*strstr(name, ".json") = '\0';
	files = json_object_get(rec, "files");
	json_object_foreach(files, k, v) {
		if (strcmp(k, "/dev/kmsg") == 0 && (text = content(v, &len)) != NULL) {
			put("kmsg", name, text, len);
		} else if (strlen(k) > 3 && strcmp(k + strlen(k) - 3, ".py") == 0 &&
			   (text = content(v, &len)) != NULL && len) {
			char pyname[300];

			snprintf(pyname, sizeof(pyname), "%s-%d", name, npy++);
			put("pyscan", pyname, text, len);
		} else if (strcmp(k, "/etc/ld.so.cache") == 0 &&
			   json_is_string(json_object_get(v, "hex"))) {
			put_hex("ldcache", name, json_string_value(json_object_get(v, "hex")));
		}
	}
	facts(rec, name);
	json_decref(rec);
}

static void ldcache_layouts(void)
{
	static const struct ldc_entry e[] = {
		{"libcuda.so.1", "/usr/lib/x86_64-linux-gnu/libcuda.so.1", 0x0303},
		{"libcuda.so", "/usr/local/cuda/lib64/stubs/libcuda.so", 0x0303},
		{"libnvidia-ml.so.1", "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1", 0x0303},
		{"libcudart.so.13", "/usr/local/cuda/lib64/libcudart.so.13", 0x0303},
		{"libcudnn.so.9", "/usr/lib/x86_64-linux-gnu/libcudnn.so.9", 0x0003},
		{"libc.so.6", "/lib/x86_64-linux-gnu/libc.so.6", 0x0303},
	};
	static const struct {
		const char *name;
		enum ldc_format fmt;
	} layouts[] = {{"gen-new", LDC_NEW}, {"gen-old", LDC_OLD}, {"gen-compat", LDC_COMPAT}};
	unsigned char buf[4096];
	size_t i, n;

	for (i = 0; i < sizeof(layouts) / sizeof(layouts[0]); i++) {
		n = ldc_build(buf, sizeof(buf), layouts[i].fmt, e, (int)(sizeof(e) / sizeof(e[0])));
		if (n)
			put("ldcache", layouts[i].name, buf, n);
	}
}

static void field_names(void)
{
	size_t n, i;
	const struct field *all = field_all(&n);
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return;
	for (i = 0; i < n; i++)
		fprintf(f, "%s%s", i ? "," : "", all[i].smi ? all[i].smi : all[i].key);
	fclose(f);
	put("fields", "all", text, len);
	free(text);
}

int main(int argc, char **argv)
{
	int i;

	if (argc < 2) {
		fprintf(stderr, "usage: fuzz_seeds OUTDIR RECORDING...\n");
		return 2;
	}
	outdir = argv[1];
	mkdir(outdir, 0755);
	for (i = 2; i < argc; i++)
		recording(argv[i]);
	ldcache_layouts();
	field_names();
	return 0;
}
