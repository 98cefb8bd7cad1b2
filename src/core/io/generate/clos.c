/*
 * clos.c - two-level Clos fabrics: every leaf linked to every spine.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"

static int clos_check(struct gen *g, unsigned leaf_ports, unsigned spine_ports,
		      struct ibr_error *err)
{
	unsigned long long leaf = g->v[K_LEAF], spine = g->v[K_SPINE];
	unsigned long long up = g->v[K_UPLINKS];

	if (spine_ports > IBR_MAX_PORTS)
		return ibr_error_set(err, "generate: clos: leaf=%llu uplinks=%llu "
				     "needs %u ports per spine, more than %u",
				     leaf, up, spine_ports, IBR_MAX_PORTS);
	if (leaf_ports > IBR_MAX_PORTS)
		return ibr_error_set(err, "generate: clos: spine=%llu uplinks=%llu "
				     "ca=%llu needs %u ports per leaf, more than %u",
				     spine, up, (unsigned long long)g->v[K_CA],
				     leaf_ports, IBR_MAX_PORTS);
	return gen_check_ca_guids(g, g->v[K_CA], err);
}

static int clos_emit(struct gen *g, unsigned leaf_ports, unsigned spine_ports,
		     struct ibr_error *err)
{
	uint32_t leaves = (uint32_t)g->v[K_LEAF], spines = (uint32_t)g->v[K_SPINE];
	char desc[32];

	for (uint32_t i = 0; i < leaves + spines; i++) {
		if (i < leaves)
			snprintf(desc, sizeof(desc), "leaf%u", i);
		else
			snprintf(desc, sizeof(desc), "spine%u", i - leaves);
		if (gen_add_switch(g, i < leaves ? leaf_ports : spine_ports, desc,
			       err))
			return -1;
		g->next_port[i] = 1;
	}
	for (uint32_t i = 0; i < leaves; i++)
		for (uint32_t j = 0; j < spines; j++)
			for (uint64_t u = 0; u < g->v[K_UPLINKS]; u++)
				if (gen_link_next(g, i, leaves + j, err))
					return -1;
	return 0;
}

int gen_clos_build(struct gen *g, struct ibr_error *err)
{
	uint32_t leaves = (uint32_t)g->v[K_LEAF], spines = (uint32_t)g->v[K_SPINE];
	uint64_t ca_ports = g->v[K_CA] * g->v[K_CAPORTS];
	uint64_t up = g->v[K_UPLINKS] * spines;
	uint64_t leaf_ports = up + gen_ca_ports_at(ca_ports, leaves, 0);
	uint64_t spine_ports = g->v[K_UPLINKS] * leaves;
	uint32_t *order;
	int rc;

	if (clos_check(g, (unsigned)leaf_ports, (unsigned)spine_ports, err))
		return -1;
	g->next_port = malloc(leaves + spines);
	order = gen_permutation(leaves, &g->rng);
	if (!g->next_port || !order) {
		free(order);
		return gen_oom(err);
	}
	rc = clos_emit(g, (unsigned)leaf_ports, (unsigned)spine_ports, err);
	if (rc == 0)
		rc = gen_attach_cas(g, g->v[K_CA], order, leaves, err);
	free(order);
	return rc;
}
