/*
 * ldcache_gen.h: writing small /etc/ld.so.cache files for the tests of host/libs.c, in the
 * layouts glibc's ldconfig writes (glibc elf/cache.c, sysdeps/generic/dl-cache.h):
 *
 *   new   "glibc-ld.so.cache1.1" header (48 bytes), 24-byte entries, strings; string
 *         offsets are relative to the header (glibc 2.32 and later write only this)
 *   old   "ld.so-1.7.0" header (16 bytes), 12-byte entries, strings relative to the end of
 *         the entries
 *   compat  the old format whose string table starts, 8-byte aligned, with a complete new
 *         cache (what glibc before 2.32 wrote by default)
 *
 *   size_t n = ldc_build(buf, sizeof(buf), LDC_NEW, entries, count);
 */
#ifndef GPUVET_LDCACHE_GEN_H
#define GPUVET_LDCACHE_GEN_H

#include <stdint.h>
#include <string.h>

enum ldc_format { LDC_NEW, LDC_OLD, LDC_COMPAT };

struct ldc_entry {
	const char *key;   /* soname: "libcuda.so.1" */
	const char *value; /* path: "/usr/lib/x86_64-linux-gnu/libcuda.so.1" */
	uint32_t flags;	   /* 0x0303 = libc6, x86-64 */
};

static void ldc_put32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
	p[2] = (unsigned char)(v >> 16);
	p[3] = (unsigned char)(v >> 24);
}

/* The new format at out, strings included; returns its size, 0 when cap is too small. */
static size_t ldc_build_new(unsigned char *out, size_t cap, const struct ldc_entry *e, int n)
{
	size_t strings = 48 + (size_t)n * 24, at = strings;
	int i;

	if (at > cap)
		return 0;
	memset(out, 0, strings);
	memcpy(out, "glibc-ld.so.cache1.1", 20);
	ldc_put32(out + 20, (uint32_t)n);
	out[28] = 2; /* little endian */
	for (i = 0; i < n; i++) {
		unsigned char *ent = out + 48 + (size_t)i * 24;
		size_t kl = strlen(e[i].key) + 1, vl = strlen(e[i].value) + 1;

		if (at + kl + vl > cap)
			return 0;
		ldc_put32(ent, e[i].flags);
		memcpy(out + at, e[i].key, kl);
		ldc_put32(ent + 4, (uint32_t)at);
		at += kl;
		memcpy(out + at, e[i].value, vl);
		ldc_put32(ent + 8, (uint32_t)at);
		at += vl;
	}
	ldc_put32(out + 24, (uint32_t)(at - strings));
	return at;
}

static size_t ldc_build(unsigned char *out, size_t cap, enum ldc_format fmt,
			const struct ldc_entry *e, int n)
{
	size_t end = 16 + (size_t)n * 12, table, at, newlen = 0;
	int i;

	if (fmt == LDC_NEW)
		return ldc_build_new(out, cap, e, n);
	if (end + 8 > cap)
		return 0;
	memset(out, 0, end + 8);
	memcpy(out, "ld.so-1.7.0", 11);
	ldc_put32(out + 12, (uint32_t)n);
	table = end;
	at = end;
	if (fmt == LDC_COMPAT) {
		at = (end + 7) & ~(size_t)7;
		newlen = ldc_build_new(out + at, cap - at, e, n);
		if (!newlen)
			return 0;
		at += newlen;
	}
	/* the old entries get strings of their own after whatever the table already holds */
	for (i = 0; i < n; i++) {
		unsigned char *ent = out + 16 + (size_t)i * 12;
		size_t kl = strlen(e[i].key) + 1, vl = strlen(e[i].value) + 1;

		if (at + kl + vl > cap)
			return 0;
		ldc_put32(ent, e[i].flags);
		memcpy(out + at, e[i].key, kl);
		ldc_put32(ent + 4, (uint32_t)(at - table));
		at += kl;
		memcpy(out + at, e[i].value, vl);
		ldc_put32(ent + 8, (uint32_t)(at - table));
		at += vl;
	}
	return at;
}

#endif
