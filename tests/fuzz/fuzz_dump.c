/*
 * fuzz_dump.c - libFuzzer target: the reader of OpenSM's routing dumps
 * (dump.h) on arbitrary bytes, through ibr_load() on a directory, as
 * `ibrouting verify DIR` reads one.
 *
 * The input is the directory's files, in this order, separated by lines
 * "=====" (a missing part is a missing file):
 *   opensm-subnet.lst, opensm-lfts.dump, ibrouting-dlids.dump
 * tests/fuzz.sh builds the seeds that way from real dumps.
 *
 * Invariant checked: whatever the files, the reader returns a finalized
 * fabric and its tables, or an error with a message; neither path reads
 * or writes out of bounds, leaks, or hits undefined behaviour.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ibrouting/error.h"
#include "ibrouting/fabric.h"
#include "ibrouting/load.h"
#include "ibrouting/result.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const part_names[] = {
	"opensm-subnet.lst", "opensm-lfts.dump", "ibrouting-dlids.dump",
};
#define PARTS (sizeof(part_names) / sizeof(part_names[0]))
static const char separator[] = "\n=====\n";

/* One directory for the whole run: the files are rewritten per input. */
static char dir[64];

static int write_part(const char *name, const uint8_t *p, size_t n)
{
	char path[128];
	FILE *out;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	out = fopen(path, "w");
	if (!out)
		return -1;
	if (n && fwrite(p, 1, n, out) != n) {
		fclose(out);
		return -1;
	}
	return fclose(out);
}

static void remove_dir(void)
{
	char path[128];

	for (size_t i = 0; i < PARTS; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, part_names[i]);
		unlink(path);
	}
	rmdir(dir);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ibr_error err = { "" };
	struct ibr_fabric *f;
	struct ibr_result tables;
	const uint8_t *p = data, *end = data + size;
	char path[128];

	if (!dir[0]) {
		snprintf(dir, sizeof(dir), "%s/ibr-fuzz-dump-XXXXXX",
			 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
		if (!mkdtemp(dir))
			abort();
		atexit(remove_dir);
	}
	for (size_t i = 0; i < PARTS; i++) {
		const uint8_t *sep = p ? memmem(p, (size_t)(end - p), separator,
					      sizeof(separator) - 1) : NULL;
		const uint8_t *stop = sep ? sep : end;
		snprintf(path, sizeof(path), "%s/%s", dir, part_names[i]);
		unlink(path);
		if (p && write_part(part_names[i], p, (size_t)(stop - p)))
			abort();
		p = sep ? sep + sizeof(separator) - 1 : NULL;
	}
	if (ibr_load(dir, NULL, &f, &tables, &err) == 0) {
		(void)ibr_fabric_fingerprint(f);
		ibr_result_free(&tables);
		ibr_fabric_free(f);
	}
	return 0;
}
