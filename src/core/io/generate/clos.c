/*
 * clos.c - two-level Clos fabrics: every leaf linked to every spine,
 * `uplinks` times, optionally oversubscribed, with spines taken down and
 * links cut at random, never disconnecting the fabric.
 *
 * Ports are fixed by position, so damage leaves ports dark as pulled cables
 * would and renumbers nothing: leaf i's u-th link to spine j is leaf port
 * j*uplinks+u+1 to spine port i*uplinks+u+1; CA ports follow on the leaves
 * from spine*uplinks+1.  Switch order: leaves, then spines, "leaf<i>" and
 * "spine<j>" by position; a spine taken down leaves no node, and the
 * others keep their names (not their GUIDs, which follow node order).
 *
 * Hosts: `ca` CAs in all, or with `oversub=R` (never both: each sets the
 * number of hosts) R CA ports per uplink, R*spine*uplinks on every leaf:
 * an R:1 oversubscribed leaf.  CA ports go round robin over a random
 * permutation of the leaves.  Then `spinehosts` CAs round robin over the
 * spines left in order, on spine ports leaf*uplinks+1 onwards, and with
 * `agg=1` an aggregation node on every switch's last port, one more than
 * the switch needs otherwise (gen_attach_extras()).
 *
 * RNG draws, in this order: the leaf permutation, the spines taken down
 * (gen_take_down), the links cut (gen_break_links).  The first is the only
 * one that shapes an undamaged fabric, so `down` and `cut` only damage
 * the fabric the spec gives without them.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"

/* Hosts from oversub, or ca as given; refuses both. */
static int clos_hosts(struct gen *g, struct ibr_error *err)
{
	uint64_t ports;

	if (!g->given[K_OVERSUB])
		return 0;
	if (g->given[K_CA])
		return ibr_error_set(err, "generate: clos: oversub=%llu and "
				     "ca=%llu both set the number of hosts: give "
				     "one of them",
				     (unsigned long long)g->v[K_OVERSUB],
				     (unsigned long long)g->v[K_CA]);
	/* each factor <= 254: no overflow */
	ports = g->v[K_OVERSUB] * g->v[K_SPINE] * g->v[K_UPLINKS] * g->v[K_LEAF];
	if (ports % g->v[K_CAPORTS])
		return ibr_error_set(err, "generate: clos: oversub=%llu makes "
				     "%llu CA ports, not a whole number of "
				     "caports=%llu CAs",
				     (unsigned long long)g->v[K_OVERSUB],
				     (unsigned long long)ports,
				     (unsigned long long)g->v[K_CAPORTS]);
	g->v[K_CA] = ports / g->v[K_CAPORTS];
	return 0;
}

/* tops: the spines left after `down`, which the CAs of gen_extra_cas()
 * go on with those of every switch. */
static int clos_check(struct gen *g, uint64_t leaf_ports, uint64_t spine_ports,
		      uint32_t tops, struct ibr_error *err)
{
	unsigned long long leaf = g->v[K_LEAF], spine = g->v[K_SPINE];
	unsigned long long up = g->v[K_UPLINKS];
	char extras[48];

	if (spine_ports > IBR_MAX_PORTS)
		return ibr_error_set(err, "generate: clos: leaf=%llu uplinks=%llu%s "
				     "needs %llu ports per spine, more than %u",
				     leaf, up, gen_extras_text(g, extras,
							       sizeof(extras)),
				     (unsigned long long)spine_ports,
				     IBR_MAX_PORTS);
	if (leaf_ports > IBR_MAX_PORTS)
		return ibr_error_set(err, "generate: clos: spine=%llu uplinks=%llu "
				     "%s=%llu%s needs %llu ports per leaf, more "
				     "than %u", spine, up,
				     g->given[K_OVERSUB] ? "oversub" : "ca",
				     (unsigned long long)g->v[g->given[K_OVERSUB] ?
							      K_OVERSUB : K_CA],
				     g->v[K_AGG] ? " agg=1" : "",
				     (unsigned long long)leaf_ports, IBR_MAX_PORTS);
	return gen_check_ca_guids(g, g->v[K_CA] + gen_extra_cas(g, leaf + tops),
				  err);
}

/* Every link, leaf by leaf, spine by spine, at its fixed ports. */
static uint32_t clos_links(const struct gen *g, struct gen_link *l)
{
	uint32_t leaves = (uint32_t)g->v[K_LEAF], spines = (uint32_t)g->v[K_SPINE];
	uint32_t up = (uint32_t)g->v[K_UPLINKS], n = 0;

	for (uint32_t i = 0; i < leaves; i++)
		for (uint32_t j = 0; j < spines; j++)
			for (uint32_t u = 0; u < up; u++)
				l[n++] = (struct gen_link){
					i, leaves + j, (uint8_t)(j * up + u + 1),
					(uint8_t)(i * up + u + 1), false, false };
	return n;
}

/* map: old switch index -> node id, IBR_NONE for a spine taken down;
 * leaves come first, so theirs never change. */
static int clos_emit(struct gen *g, unsigned leaf_ports, unsigned spine_ports,
		     const struct gen_link *l, uint32_t n, const uint32_t *map,
		     struct ibr_error *err)
{
	uint32_t leaves = (uint32_t)g->v[K_LEAF], spines = (uint32_t)g->v[K_SPINE];
	char desc[32];

	for (uint32_t i = 0; i < leaves + spines; i++) {
		if (map[i] == IBR_NONE)
			continue;
		if (i < leaves)
			snprintf(desc, sizeof(desc), "leaf%u", i);
		else
			snprintf(desc, sizeof(desc), "spine%u", i - leaves);
		if (gen_add_switch(g, i < leaves ? leaf_ports : spine_ports, desc,
			       err))
			return -1;
		/* spine hosts after the leaves' ports */
		g->next_port[map[i]] = (uint8_t)((i < leaves ? spines : leaves) *
						 g->v[K_UPLINKS] + 1);
	}
	for (uint32_t i = 0; i < n; i++)
		if (!l[i].broken &&
		    ibr_fabric_connect(g->f, l[i].a, l[i].pa, l[i].b, l[i].pb, err))
			return -1;
	return 0;
}

int gen_clos_build(struct gen *g, struct ibr_error *err)
{
	uint32_t leaves = (uint32_t)g->v[K_LEAF], spines = (uint32_t)g->v[K_SPINE];
	uint32_t sw = leaves + spines, n, *map = NULL, *order = NULL, *tops = NULL;
	/* too big a down is refused by gen_take_down; size for one spine */
	uint32_t ntop = g->v[K_DOWN] < spines ? spines - (uint32_t)g->v[K_DOWN] : 1;
	uint64_t up = g->v[K_UPLINKS] * spines, agg = g->v[K_AGG];
	uint64_t spine_ports, leaf_ports;
	struct gen_link *l = NULL;
	int rc = -1;

	if (clos_hosts(g, err))
		return -1;
	leaf_ports = up + gen_ca_ports_at(g->v[K_CA] * g->v[K_CAPORTS], leaves, 0) +
		     agg;
	spine_ports = g->v[K_UPLINKS] * leaves + gen_top_ports(g, ntop) + agg;
	if (clos_check(g, leaf_ports, spine_ports, ntop, err))
		return -1;
	g->next_port = malloc(sw);
	order = gen_permutation(leaves, &g->rng);
	map = malloc(sw * sizeof(*map));
	tops = malloc(ntop * sizeof(*tops));
	l = malloc(leaves * up * sizeof(*l));
	if (!g->next_port || !order || !map || !tops || !l) {
		gen_oom(err);
		goto out;
	}
	n = clos_links(g, l);
	if (gen_take_down(g, leaves, spines, spines, "spines", l, &n, sw, map,
			  err) ||
	    gen_break_links(g, K_CUT, l, n, (uint32_t)(sw - g->v[K_DOWN]), err) ||
	    clos_emit(g, (unsigned)leaf_ports, (unsigned)spine_ports, l, n, map,
		      err))
		goto out;
	for (uint32_t t = 0; t < ntop; t++)
		tops[t] = leaves + t;
	if (gen_attach_cas(g, g->v[K_CA], order, leaves, err) == 0)
		rc = gen_attach_extras(g, tops, ntop, err);
out:
	free(tops);
	free(order);
	free(map);
	free(l);
	return rc;
}
