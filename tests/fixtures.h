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

/* A Clos of 4 leaves and 2 spines, 4 hosts a leaf (clos:leaf=4,spine=2,
 * ca=16 of generate.h), with a SHARP aggregation node (a CA named as
 * NVIDIA names them) on each spine, finalized at LMC lmc: auto roots are
 * the two spines, which have no root above both, so the two aggregation
 * nodes owe each other no route (2 CA pairs, one each way).  Built here:
 * the generator's spines have no port left. */
static inline struct ibr_fabric *clos_with_aggregation_nodes(unsigned lmc)
{
	enum { LEAVES = 4, SPINES = 2, HOSTS = 4 };
	struct ibr_fabric *f = ibr_fabric_new();
	struct ibr_error err = { "" };
	uint32_t sw[LEAVES + SPINES];
	unsigned port[LEAVES + SPINES] = { 0 };
	uint64_t ca = 0;

	assert_non_null(f);
	for (unsigned i = 0; i < LEAVES + SPINES; i++) {
		sw[i] = ibr_fabric_add_node(f, IBR_NODE_SWITCH, 0x1000 + i, 8,
					    i < LEAVES ? "leaf" : "spine",
					    NULL, &err);
		assert_int_not_equal(sw[i], IBR_NONE);
	}
	for (unsigned l = 0; l < LEAVES; l++)
		for (unsigned s = LEAVES; s < LEAVES + SPINES; s++)
			assert_int_equal(ibr_fabric_connect(f, sw[l], ++port[l],
					 sw[s], ++port[s], &err), 0);
	for (unsigned i = 0; i < LEAVES + SPINES; i++)
		for (unsigned h = 0; h < (i < LEAVES ? HOSTS : 1); h++) {
			uint32_t c = ibr_fabric_add_node(f, IBR_NODE_CA,
				0x50000 + ca++, 1, i < LEAVES ? "host" :
				"Mellanox Technologies Aggregation Node",
				NULL, &err);
			assert_int_not_equal(c, IBR_NONE);
			assert_int_equal(ibr_fabric_connect(f, sw[i], ++port[i],
							    c, 1, &err), 0);
		}
	if (ibr_fabric_finalize(f, lmc, &err))
		fail_msg("clos: %s", err.msg);
	return f;
}

#endif
