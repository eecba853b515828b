/*
 * test_amd.c: host/amd.c reading the gfx target list compiled into a HIP library: a real
 * shared object built here with gcc holds the list in .rodata (as libtorch_hip.so does), and
 * amd_elf_arch_list must find it through the ELF section headers; a lone target, a library
 * without a list and a file that is not ELF read as "cannot tell". Also the KFD
 * gfx_target_version names. Skipped (with the reason) where gcc is missing.
 */
#include <stdio.h>
#include <stdlib.h>

#include "fakeroot.h"
#include "host/facts.h"
#include "test.h"
#include "util/util.h"

/* Build root/<path> as a shared object from C source; false when gcc is not there. */
static bool build_so(const char *root, const char *path, const char *source)
{
	char src[4096], out[4096], cmd[9000];

	snprintf(src, sizeof(src), "%s/lib.c", root);
	snprintf(out, sizeof(out), "%s%s", root, path);
	fr_file(root, "/lib.c", source);
	fr_parent(out);
	snprintf(cmd, sizeof(cmd), "gcc -shared -fPIC -O0 -o '%s' '%s' 2>/dev/null", out, src);
	return system(cmd) == 0;
}

static void test_list_found(void)
{
	char *root = fr_new();
	char list[256], note[96];

	if (!build_so(root, "/lib/libtorch_hip.so",
		      "const char *arch_flags(void) { return "
		      "\"gfx900;gfx906;gfx908;gfx90a:xnack-;gfx942;gfx1100\"; }\n"
		      "const char *message(void) { return \"HIP error: gfx942\"; }\n")) {
		printf("SKIP gcc cannot build a shared object here\n");
		fr_free(root);
		return;
	}
	fr_use(root);
	CHECK(amd_elf_arch_list("/lib/libtorch_hip.so", list, sizeof(list), note, sizeof(note)) ==
	      1);
	CHECK_STR(list, "gfx900;gfx906;gfx908;gfx90a:xnack-;gfx942;gfx1100");
	fr_free(root);
}

static void test_no_list(void)
{
	char *root = fr_new();
	char list[256], note[96];

	if (!build_so(root, "/lib/one.so",
		      "const char *arch(void) { return \"gfx942\"; }\n"
		      "const char *other(void) { return \"gfx;gfx\"; }\n")) {
		printf("SKIP gcc cannot build a shared object here\n");
		fr_free(root);
		return;
	}
	fr_file(root, "/lib/text.so", "INPUT(libfoo.so.1)\n");
	fr_use(root);
	/* a lone target is no list: it also appears in messages */
	CHECK(amd_elf_arch_list("/lib/one.so", list, sizeof(list), note, sizeof(note)) == 0);
	CHECK_STR(list, "");
	CHECK_STR(note, "no target list in .rodata");
	/* a linker script where a library was expected */
	CHECK(amd_elf_arch_list("/lib/text.so", list, sizeof(list), note, sizeof(note)) == 0);
	CHECK_STR(note, "not a 64-bit little-endian ELF file");
	CHECK(amd_elf_arch_list("/lib/absent.so", list, sizeof(list), note, sizeof(note)) < 0);
	fr_free(root);
}

static void test_gfx_name(void)
{
	char name[16];

	CHECK(amd_gfx_name(90402, name, sizeof(name)));
	CHECK_STR(name, "gfx942");
	CHECK(amd_gfx_name(90010, name, sizeof(name)));
	CHECK_STR(name, "gfx90a");
	CHECK(amd_gfx_name(110000, name, sizeof(name)));
	CHECK_STR(name, "gfx1100");
	CHECK(amd_gfx_name(100300, name, sizeof(name)));
	CHECK_STR(name, "gfx1030");
	CHECK(!amd_gfx_name(0, name, sizeof(name)));
}

int main(void)
{
	RUN(test_list_found);
	RUN(test_no_list);
	RUN(test_gfx_name);
	return TEST_DONE();
}
