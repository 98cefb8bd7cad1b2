/*
 * fixtures.h - fabrics for the cmocka tests, through the one loader
 * (load.h), so tests build fabrics exactly as the tool does.  Include
 * after <cmocka.h>.
 */
#ifndef IBROUTING_TESTS_FIXTURES_H
#define IBROUTING_TESTS_FIXTURES_H

#include <stdio.h>

#include "ibrouting/load.h"

/* The generated fabric of SPEC (generate.h) with LMC lmc, finalized; the
 * test fails with the loader's message otherwise. */
static inline struct ibr_fabric *generated_fabric(const char *spec,
						  unsigned lmc)
{
	struct ibr_load_options o = { .lmc = lmc, .lmc_given = true };
	struct ibr_error err = { "" };
	struct ibr_fabric *f = NULL;
	char source[256];

	snprintf(source, sizeof(source), "gen:%s", spec);
	if (ibr_load(source, &o, &f, NULL, &err))
		fail_msg("%s: %s", spec, err.msg);
	return f;
}

#endif
