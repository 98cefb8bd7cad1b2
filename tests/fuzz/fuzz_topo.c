/*
 * fuzz_topo.c - libFuzzer target: the topology reader (topo_io.h) on
 * arbitrary bytes, as ibr_load() reads an ibnetdiscover or ibsim file:
 * read, then finalize (the LIDs OpenSM would give, the fabric's indexes).
 *
 * Invariant checked: whatever the input, the reader returns a fabric or
 * NULL with a message, and neither path reads or writes out of bounds,
 * leaks, or hits undefined behaviour (ASan, UBSan, LeakSanitizer).  Built
 * and run by tests/fuzz.sh.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ibrouting/error.h"
#include "ibrouting/fabric.h"
#include "ibrouting/topo_io.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ibr_error err = { "" };
	struct ibr_fabric *f;
	FILE *in;

	/* fmemopen refuses a zero-sized buffer: an empty file is "" */
	in = fmemopen(size ? (void *)data : (void *)"", size ? size : 1, "r");
	if (!in)
		return 0;
	f = ibr_fabric_read_stream(in, "fuzz.net", &err);
	fclose(in);
	if (!f)
		return 0;
	/* LMC from the input's first byte: 0..7, as `--lmc` allows */
	if (ibr_fabric_finalize(f, size ? data[0] % 8 : 0, &err) == 0)
		(void)ibr_fabric_fingerprint(f);
	ibr_fabric_free(f);
	return 0;
}
