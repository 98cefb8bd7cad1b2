/*
 * torus.c - 2D and 3D tori with random broken links that never disconnect them.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"

struct tlink {
	uint32_t a, b;            /* a's +d neighbour is b */
	uint8_t pa, pb;
	bool tree, broken;
};

static uint32_t uf_find(uint32_t *parent, uint32_t x)
{
	while (parent[x] != x) {
		parent[x] = parent[parent[x]];
		x = parent[x];
	}
	return x;
}

/* Every ring link, switch by switch and dimension by dimension; a ring of
 * two is a single link. */
static uint32_t torus_links(const struct gen *g, uint32_t sw, struct tlink *l)
{
	uint32_t n = 0;

	for (uint32_t s = 0; s < sw; s++) {
		uint32_t stride = 1;
		for (unsigned d = 0; d < g->ndims; d++) {
			uint32_t size = g->dims[d], c = s / stride % size;
			if (size > 2 || c == 0) {
				uint32_t t = s - c * stride + (c + 1) % size * stride;
				l[n++] = (struct tlink){ s, t, 2 * d + 1, 2 * d + 2,
							 false, false };
			}
			stride *= size;
		}
	}
	return n;
}

/* Breaks `broken` random links, none of a random spanning tree: Kruskal
 * over a shuffled order picks the tree, links are then broken in the
 * reverse of that order, skipping tree links. */
static int torus_break(struct gen *g, struct tlink *l, uint32_t n, uint32_t sw,
		       struct ibr_error *err)
{
	uint32_t *order = gen_permutation(n, &g->rng);
	uint32_t *parent = malloc(sw * sizeof(*parent)), left;

	if (!order || !parent) {
		free(order);
		free(parent);
		return gen_oom(err);
	}
	for (uint32_t s = 0; s < sw; s++)
		parent[s] = s;
	for (uint32_t i = 0; i < n; i++) {
		struct tlink *k = &l[order[i]];
		uint32_t ra = uf_find(parent, k->a), rb = uf_find(parent, k->b);
		if (ra != rb) {
			parent[ra] = rb;
			k->tree = true;
		}
	}
	left = (uint32_t)g->v[K_BROKEN];
	for (uint32_t i = n; i > 0 && left > 0; i--)
		if (!l[order[i - 1]].tree) {
			l[order[i - 1]].broken = true;
			left--;
		}
	free(order);
	free(parent);
	return 0;
}

static int torus_emit(struct gen *g, const struct tlink *l, uint32_t n,
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
	struct tlink *l;
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
	if (g->v[K_BROKEN] > n - (sw - 1))
		ibr_error_set(err, "generate: torus: broken=%llu would disconnect "
			      "the switches: at most %u of its %u links can break",
			      (unsigned long long)g->v[K_BROKEN], n - (sw - 1), n);
	else if (torus_break(g, l, n, sw, err) == 0)
		rc = torus_emit(g, l, n, sw, (unsigned)ports, err);
	free(l);
	return rc;
}
