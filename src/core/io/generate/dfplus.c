/*
 * dfplus.c - Dragonfly+ fabrics (Shpiner et al., 2017): groups of leaves
 * and spines, each group a complete bipartite graph (every leaf linked to
 * every spine of its group), the groups joined by global links between
 * spines of different groups, with group pairs isolated, spines taken down
 * and global links cut at random, never disconnecting the fabric.
 *
 * Global links: `global` (N) for every pair of groups g < h, the pairs in
 * lexicographic order.  Each group keeps a round-robin counter over its
 * spines: a link of (g, h) takes the next spine of g and the next spine of
 * h.  So every group has (G-1) N global links, each of its spines carries
 * floor or ceil of (G-1) N / S of them, and the N links of a pair leave
 * from min(N, S) different spines on either side.
 *
 * Switch order (node ids, GUIDs 0x200000 + id): the leaves of group 0, of
 * group 1, ..., then the spines of group 0, 1, ...  Descriptions say what
 * a switch is, "dfplus g<group> leaf <i>" and "dfplus g<group> spine <j>",
 * and keep it when spines before it are taken down.
 *
 * Ports are fixed by position, so damage leaves them dark as pulled cables
 * would and renumbers nothing.  Leaf i: spine j of its group on port j+1,
 * hosts on S+1..S+H.  Spine j: leaf i of its group on port i+1, its global
 * links on L+1.. in creation order; every spine has L + ceil((G-1) N / S)
 * ports, so some have one dark.  With agg=1 every switch has one port more,
 * its last, for an aggregation node (gen_attach_extras()).  A switch needing
 * more than IBR_MAX_PORTS is refused, naming the keys.
 *
 * Hosts: H per leaf (by default S: as many host ports as uplinks, a
 * non-blocking leaf), 1-port CAs numbered round robin over the leaves in
 * node order: CA c on leaf c mod (G L), port S + 1 + c / (G L).  Then the
 * aggregation nodes.
 *
 * Damage, in this order and all from the spec's RNG: `isolate` group pairs
 * lose all their direct global links (gen_break_links() over the complete
 * graph of the groups: never a spanning tree's pair); `down` spines go
 * (gen_take_down(), never all of a group's, never one that disconnects);
 * `cut` of the global links left go (gen_break_links() over the groups as
 * nodes, which are each connected inside while they keep a spine, so no
 * cut disconnects the fabric).  Without damage the fabric does not depend
 * on `seed`.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "gen.h"

struct dfplus {
	uint32_t groups, leaves, spines, hosts, global;
	uint32_t leaf_ports, spine_ports;
	uint32_t first_spine;        /* groups * leaves: the first spine */
	uint64_t pairs;              /* groups * (groups - 1) / 2 */
};

/* The group of switch s, numbered as before any spine is taken down. */
static uint32_t group_of(const struct dfplus *d, uint32_t s)
{
	return s < d->first_spine ? s / d->leaves :
	       (s - d->first_spine) / d->spines;
}

/* Port counts, switches and GUIDs, before anything is allocated: the
 * checks bound the pairs and links too. */
static int dfplus_check(struct gen *g, struct dfplus *d, struct ibr_error *err)
{
	uint64_t agg = g->v[K_AGG], sw = (uint64_t)d->groups * (d->leaves +
								d->spines);
	uint64_t down = g->v[K_DOWN] < sw ? g->v[K_DOWN] : 0; /* else refused */
	uint64_t carried = ((uint64_t)d->groups - 1) * d->global;
	uint64_t leaf = (uint64_t)d->spines + d->hosts + agg;
	uint64_t spine = d->leaves + (carried + d->spines - 1) / d->spines + agg;
	const char *with = agg ? " agg=1" : "";

	if (leaf > IBR_MAX_PORTS)
		return ibr_error_set(err, "generate: dfplus: spines=%u hosts=%u%s "
				     "needs %llu ports per leaf, more than %u",
				     d->spines, d->hosts, with,
				     (unsigned long long)leaf, IBR_MAX_PORTS);
	if (spine > IBR_MAX_PORTS)
		return ibr_error_set(err, "generate: dfplus: groups=%u global=%u "
				     "spines=%u leaves=%u%s needs %llu ports per "
				     "spine, more than %u", d->groups, d->global,
				     d->spines, d->leaves, with,
				     (unsigned long long)spine, IBR_MAX_PORTS);
	if (sw > MAX_SWITCHES)
		return ibr_error_set(err, "generate: dfplus: groups=%u leaves=%u "
				     "spines=%u makes %llu switches, more than %u",
				     d->groups, d->leaves, d->spines,
				     (unsigned long long)sw, MAX_SWITCHES);
	d->leaf_ports = (uint32_t)leaf;
	d->spine_ports = (uint32_t)spine;
	d->first_spine = d->groups * d->leaves;
	d->pairs = (uint64_t)d->groups * (d->groups - 1) / 2;
	if (g->v[K_ISOLATE] > d->pairs - (d->groups - 1))
		return ibr_error_set(err, "generate: dfplus: isolate=%llu would "
				     "disconnect the groups: at most %llu of the "
				     "%llu group pairs can lose their links",
				     (unsigned long long)g->v[K_ISOLATE],
				     (unsigned long long)(d->pairs -
							  (d->groups - 1)),
				     (unsigned long long)d->pairs);
	return gen_check_ca_guids(g, (uint64_t)d->first_spine * d->hosts +
				  gen_extra_cas(g, (uint32_t)(sw - down)), err);
}

/* Every link at its fixed ports: the groups' leaf-spine links, then the
 * global links pair by pair; pair[p] is the p-th pair (g, h) as a link
 * between groups, for isolating it. */
static uint32_t dfplus_links(const struct dfplus *d, struct gen_link *l,
			     struct gen_link *pair, uint32_t *rr,
			     uint8_t *carried)
{
	uint32_t n = 0, p = 0;

	for (uint32_t gr = 0; gr < d->groups; gr++)
		for (uint32_t i = 0; i < d->leaves; i++)
			for (uint32_t j = 0; j < d->spines; j++)
				l[n++] = (struct gen_link){
					gr * d->leaves + i,
					d->first_spine + gr * d->spines + j,
					(uint8_t)(j + 1), (uint8_t)(i + 1),
					false, false };
	for (uint32_t a = 0; a < d->groups; a++)
		for (uint32_t b = a + 1; b < d->groups; b++, p++) {
			pair[p] = (struct gen_link){ a, b, 0, 0, false, false };
			for (uint32_t u = 0; u < d->global; u++) {
				uint32_t sa = d->first_spine + a * d->spines +
					      rr[a]++ % d->spines;
				uint32_t sb = d->first_spine + b * d->spines +
					      rr[b]++ % d->spines;
				l[n++] = (struct gen_link){
					sa, sb,
					(uint8_t)(d->leaves + 1 + carried[sa]++),
					(uint8_t)(d->leaves + 1 + carried[sb]++),
					false, false };
			}
		}
	return n;
}

/* Isolates the pairs gen_break_links() picks: their links leave the list
 * (global links come pair by pair after the groups' links). */
static int dfplus_isolate(struct gen *g, const struct dfplus *d,
			  struct gen_link *l, uint32_t *n, struct gen_link *pair,
			  struct ibr_error *err)
{
	uint32_t first = d->first_spine * d->spines, kept = first;

	if (gen_break_links(g, K_ISOLATE, pair, (uint32_t)d->pairs, d->groups,
			    err))
		return -1;
	for (uint32_t i = first; i < *n; i++)
		if (!pair[(i - first) / d->global].broken)
			l[kept++] = l[i];
	*n = kept;
	return 0;
}

/* Cuts global links with the groups as the nodes, after `down`: old[s] is
 * switch s's index before it, for its group. */
static int dfplus_cut(struct gen *g, const struct dfplus *d, struct gen_link *l,
		      uint32_t n, const uint32_t *old, struct ibr_error *err)
{
	struct gen_link *c = malloc((n ? n : 1) * sizeof(*c));
	uint32_t *at = malloc((n ? n : 1) * sizeof(*at)), m = 0;
	int rc = -1;

	if (!c || !at) {
		gen_oom(err);
		goto out;
	}
	for (uint32_t i = 0; i < n; i++) {
		uint32_t a = old[l[i].a], b = old[l[i].b];
		if (a < d->first_spine || b < d->first_spine)
			continue;           /* a group's own leaf-spine link */
		c[m] = (struct gen_link){ group_of(d, a), group_of(d, b), 0, 0,
					  false, false };
		at[m++] = i;
	}
	if (gen_break_links(g, K_CUT, c, m, d->groups, err))
		goto out;
	for (uint32_t i = 0; i < m; i++)
		l[at[i]].broken = c[i].broken;
	rc = 0;
out:
	free(c);
	free(at);
	return rc;
}

static int dfplus_emit(struct gen *g, const struct dfplus *d,
		       const struct gen_link *l, uint32_t n, const uint32_t *map,
		       uint32_t sw, struct ibr_error *err)
{
	char desc[64];

	for (uint32_t s = 0; s < sw; s++) {
		bool leaf = s < d->first_spine;
		if (map[s] == IBR_NONE)
			continue;
		snprintf(desc, sizeof(desc), "dfplus g%u %s %u", group_of(d, s),
			 leaf ? "leaf" : "spine", leaf ? s % d->leaves :
			 (s - d->first_spine) % d->spines);
		if (gen_add_switch(g, leaf ? d->leaf_ports : d->spine_ports, desc,
				   err))
			return -1;
		g->next_port[map[s]] = (uint8_t)(d->spines + 1); /* hosts */
	}
	for (uint32_t i = 0; i < n; i++)
		if (!l[i].broken &&
		    ibr_fabric_connect(g->f, l[i].a, l[i].pa, l[i].b, l[i].pb, err))
			return -1;
	/* leaves are never taken down: nodes 0 .. first_spine-1 */
	if (gen_attach_cas(g, (uint64_t)d->first_spine * d->hosts, NULL,
			   d->first_spine, err))
		return -1;
	return gen_attach_extras(g, NULL, 0, err);
}

int gen_dfplus_build(struct gen *g, struct ibr_error *err)
{
	struct dfplus d = {
		(uint32_t)g->v[K_GROUPS], (uint32_t)g->v[K_LEAVES],
		(uint32_t)g->v[K_SPINES], 0, (uint32_t)g->v[K_GLOBAL],
		0, 0, 0, 0 };
	struct gen_link *l = NULL, *pair = NULL;
	uint32_t sw, n, *rr = NULL, *map = NULL, *old = NULL;
	uint8_t *carried = NULL;
	uint64_t links;
	int rc = -1;

	g->v[K_CAPORTS] = 1;   /* one port per CA */
	d.hosts = (uint32_t)(g->given[K_HOSTS] ? g->v[K_HOSTS] : d.spines);
	if (dfplus_check(g, &d, err))
		return -1;
	sw = d.groups * (d.leaves + d.spines);
	links = (uint64_t)d.first_spine * d.spines + d.pairs * d.global;
	l = malloc(links * sizeof(*l));
	pair = malloc(d.pairs * sizeof(*pair));
	rr = calloc(d.groups, sizeof(*rr));
	carried = calloc(sw, sizeof(*carried));
	map = malloc(sw * sizeof(*map));
	old = malloc(sw * sizeof(*old));
	g->next_port = malloc(sw);
	if (!l || !pair || !rr || !carried || !map || !old || !g->next_port) {
		gen_oom(err);
		goto out;
	}
	n = dfplus_links(&d, l, pair, rr, carried);
	if (dfplus_isolate(g, &d, l, &n, pair, err) ||
	    gen_take_down(g, d.first_spine, d.groups * d.spines, d.spines,
			  "spines", l, &n, sw, map, err))
		goto out;
	for (uint32_t s = 0; s < sw; s++)
		if (map[s] != IBR_NONE)
			old[map[s]] = s;
	if (dfplus_cut(g, &d, l, n, old, err) == 0)
		rc = dfplus_emit(g, &d, l, n, map, sw, err);
out:
	free(l);
	free(pair);
	free(rr);
	free(carried);
	free(map);
	free(old);
	return rc;
}
