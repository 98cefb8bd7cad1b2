/*
 * torus.c - 2D and 3D tori with random broken links that never disconnect them.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"

/* Every ring link, switch by switch and dimension by dimension; a ring of
 * two is a single link. */
static uint32_t torus_links(const struct gen *g, uint32_t sw, struct gen_link *l)
{
	uint32_t n = 0;

	for (uint32_t s = 0; s < sw; s++) {
		uint32_t stride = 1;
		for (unsigned d = 0; d < g->ndims; d++) {
			uint32_t size = g->dims[d], c = s / stride % size;
			if (size > 2 || c == 0) {
				uint32_t t = s - c * stride + (c + 1) % size * stride;
				l[n++] = (struct gen_link){ s, t, 2 * d + 1, 2 * d + 2,
							 false, false };
			}
			stride *= size;
		}
	}
	return n;
}

static int torus_emit(struct gen *g, const struct gen_link *l, uint32_t n,
		      uint32_t sw, unsigned ports, struct ibr_error *err)
{
	char desc[48];

	for (uint32_t s = 0; s < sw; s++) {
		uint32_t x = s % g->dims[0], y = s / g->dims[0] % g->dims[1];
		if (g->ndims == 3)
			snprintf(desc, sizeof(desc), "sw(%u,%u,%u)", x, y,
				 s / (g->dims[0] * g->dims[1]));
		else
			snprintf(desc, sizeof(desc), "sw(%u,%u)", x, y);
		if (gen_add_switch(g, ports, desc, err))
			return -1;
		g->next_port[s] = (uint8_t)(2 * g->ndims + 1);
	}
	for (uint32_t i = 0; i < n; i++)
		if (!l[i].broken &&
		    ibr_fabric_connect(g->f, l[i].a, l[i].pa, l[i].b, l[i].pb, err))
			return -1;
	return gen_attach_cas(g, g->v[K_CA] * sw, NULL, sw, err);
}

int gen_torus_build(struct gen *g, struct ibr_error *err)
{
	uint32_t sw = 1, n;
	uint64_t ports = 2 * g->ndims + g->v[K_CA] * g->v[K_CAPORTS];
	struct gen_link *l;
	int rc = -1;

	for (unsigned d = 0; d < g->ndims; d++)
		sw *= g->dims[d];
	if (ports > IBR_MAX_PORTS)
		return ibr_error_set(err, "generate: torus: ca=%llu caports=%llu "
				     "needs %llu ports per switch, more than %u",
				     (unsigned long long)g->v[K_CA],
				     (unsigned long long)g->v[K_CAPORTS],
				     (unsigned long long)ports, IBR_MAX_PORTS);
	if (gen_check_ca_guids(g, g->v[K_CA] * sw, err))
		return -1;
	l = malloc(g->ndims * sw * sizeof(*l));
	g->next_port = malloc(sw);
	if (!l || !g->next_port) {
		free(l);
		return gen_oom(err);
	}
	n = torus_links(g, sw, l);
	if (gen_break_links(g, K_BROKEN, l, n, sw, err) == 0)
		rc = torus_emit(g, l, n, sw, (unsigned)ports, err);
	free(l);
	return rc;
}
