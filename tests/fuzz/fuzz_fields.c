/*
 * fuzz_fields.c: libFuzzer target for field lists (gpu/fields.c): `status --query LIST`, and
 * the column names of `watch --fields LIST` (tui/columns.c). Each input is a list; every field
 * found is evaluated on a GPU that answered every reading, as status prints it. Seeds: the
 * lists the CLI tests and docs use, and every field name (run.sh).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/fields.h"
#include "tui/columns.h"

static struct gpu_system sys;
static struct gpu gpu;

/* One answer for every field, so field_get formats each kind instead of saying "unset". */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	size_t n, i;
	const struct field *all = field_all(&n);

	(void)argc;
	(void)argv;
	for (i = 0; i < n; i++) {
		const struct field *f = &all[i];
		char *base = f->kind == FK_SYS_TEXT || f->kind == FK_SYS_NUM ? (char *)&sys
									     : (char *)&gpu;

		/* the vendor is a byte of struct gpu (0: NVIDIA), not a struct num */
		if (f->kind == FK_TIMESTAMP || f->kind == FK_INDEX || f->kind == FK_VENDOR)
			continue;
		if (f->kind == FK_TEXT || f->kind == FK_SYS_TEXT) {
			struct text *t = (struct text *)(base + f->off);

			snprintf(t->s, sizeof(t->s), "NVIDIA H200");
			t->st = VAL_OK;
		} else if (f->kind == FK_CC) {
			gpu.st.cc_major.v = 9;
			gpu.st.cc_major.st = VAL_OK;
			gpu.st.cc_minor.st = VAL_OK;
		} else {
			struct num *v = (struct num *)(base + f->off);

			v->v = 0x12345678;
			v->st = VAL_OK;
		}
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct field_list fl;
	char *list = malloc(size + 1);
	size_t i;

	if (!list)
		return 0;
	memcpy(list, data, size);
	list[size] = '\0';
	field_list_parse(list, &fl);
	for (i = 0; i < fl.n; i++) {
		struct field_out out;
		struct column col;

		field_get(fl.v[i], &sys, &gpu, &out);
		column_find(fl.names[i], &col);
	}
	field_list_free(&fl);
	free(list);
	return 0;
}
