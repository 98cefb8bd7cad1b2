/*
 * shortest_widest.c - colorl's shortest-widest scheme (paths.c, at the
 * top): units placed one after the other in their order, each on a
 * minimal legal path of least weight, ties to the lowest output ports.
 *
 * Invariants: the weights are 1 + the flows placed so far, so a unit's
 * path depends on the units before it alone; each unit's hops are
 * appended to the result in unit order.
 */
#include <stdlib.h>

#include "paths_work.h"

struct widest {
	uint64_t *weight;       /* per channel: 1 + flows placed on it */
	uint64_t *best;         /* per state: lightest minimal walk's weight */
	uint32_t *next;         /* per state: the channel it starts with */
	uint32_t *seen;         /* per state: tag of the last unit reaching it */
	uint32_t *reach;        /* states on the unit's minimal walks, BFS order */
	uint32_t tag;
};

/* The states on minimal legal walks from switch s, in BFS order; every
 * minimal step brings the distance down by one, so a state's successors
 * come after it.  Returns their number. */
static uint32_t minimal_states(struct work *w, struct widest *b, uint32_t s)
{
	uint32_t n = 0;

	b->tag++;
	b->seen[s] = b->tag;
	b->reach[n++] = s;
	for (uint32_t h = 0; h < n; h++) {
		uint32_t st = b->reach[h], x = state_switch(w, st);
		for (uint32_t c = w->f->sw_adj_start[x]; c < w->f->sw_adj_start[x + 1]; c++) {
			uint32_t t = minimal_step(w, st, c);
			if (t != IBR_NONE && b->seen[t] != b->tag) {
				b->seen[t] = b->tag;
				b->reach[n++] = t;
			}
		}
	}
	return n;
}

/* Places the lightest minimal legal path from switch s to the current
 * destination (see the header) and adds flows to its channels. */
static int place_widest(struct work *w, struct widest *b, uint32_t s,
			uint64_t flows)
{
	uint32_t n;

	if (w->legal_dist[s] == IBR_FAR)        /* a unit has one: a bug */
		return paths_no_path(w, s, w->dist_of);
	n = minimal_states(w, b, s);
	while (n-- > 0) {
		uint32_t st = b->reach[n], x = state_switch(w, st);
		b->best[st] = state_dist(w, st) ? UINT64_MAX : 0;
		b->next[st] = IBR_NONE;
		for (uint32_t c = w->f->sw_adj_start[x]; c < w->f->sw_adj_start[x + 1]; c++) {
			uint32_t t = minimal_step(w, st, c);
			/* strict: the lowest port keeps a tie */
			if (t != IBR_NONE && b->weight[c] + b->best[t] < b->best[st]) {
				b->best[st] = b->weight[c] + b->best[t];
				b->next[st] = c;
			}
		}
	}
	if (paths_reserve_hops(w, w->legal_dist[s]))
		return -1;
	for (uint32_t st = s; state_dist(w, st) > 0;) {
		uint32_t c = b->next[st];
		put_hop(w, c);
		b->weight[c] += flows;
		st = next_state(w, st, c);
	}
	return 0;
}

int paths_shortest_widest(struct work *w)
{
	struct ibr_paths *p = w->out;
	struct widest b = { 0 };
	uint32_t states = 2 * w->S;
	int rc = -1;

	b.weight = malloc((w->C ? w->C : 1) * sizeof(uint64_t));
	b.best = malloc(states * sizeof(uint64_t));
	b.next = malloc(states * sizeof(uint32_t));
	b.seen = calloc(states, sizeof(uint32_t));
	b.reach = malloc(states * sizeof(uint32_t));
	if (!b.weight || !b.best || !b.next || !b.seen || !b.reach) {
		paths_oom(w, "shortest-widest");
		goto out;
	}
	for (uint32_t c = 0; c < w->C; c++)
		b.weight[c] = 1;
	for (uint32_t u = 0; u < p->num_units; u++) {
		uint32_t s = ibr_unit_src_switch(w->f, p, u);
		uint32_t d = ibr_unit_dst_switch(w->f, p, u);
		if ((rc = paths_stopped(w)) != 0)
			goto out;
		rc = -1;
		paths_distances_to(w, d);
		p->first[u] = w->hops;
		if (place_widest(w, &b, s, p->per_ca ? 1 : switch_flows(w, s, d)))
			goto out;
	}
	p->first[p->num_units] = w->hops;
	rc = 0;
out:
	free(b.weight);
	free(b.best);
	free(b.next);
	free(b.seen);
	free(b.reach);
	return rc;
}
