/*
 * root_load.c - `auto` on an irregular fabric: the root chosen by the
 * load it gives (roots.h).
 *
 * With one root every up*-down* route bends at or below it, and where the
 * root sits sets the heaviest link, and no cheap property of a switch
 * (eccentricity, distance sum, degree) predicts it.
 * So the candidates, the switches of least eccentricity (then least
 * distance sum, then lowest LID), are each measured: the max link load of
 * the shortest legal routes under that root, down as soon as a route can
 * go down, lowest port among equals (FERa's rule with port_choice lowest:
 * the same port for every LID of a destination switch), for uniform
 * traffic between the CA ports of the switches.  One destination switch
 * at a time, O(E) for its distances and O(S * path) for the walks.
 *
 * Invariants: the candidates and the choice depend on the fabric and its
 * LIDs only (every tie to the candidate order, which ends in LIDs); the
 * first candidate is a switch of least eccentricity.
 */
#include <stdlib.h>
#include <string.h>

#include "ibrouting/roots.h"
#include "util/parallel.h"

#define MEASURE_BUDGET (25u << 16)   /* switches * sw_adj entries, summed */

struct candidate {
	uint32_t sw, ecc;
	uint64_t sum;
	ibr_lid_t lid;
};

static int by_centrality(const void *a, const void *b)
{
	const struct candidate *x = a, *y = b;

	if (x->ecc != y->ecc)
		return x->ecc < y->ecc ? -1 : 1;
	if (x->sum != y->sum)
		return x->sum < y->sum ? -1 : 1;
	return x->lid < y->lid ? -1 : x->lid > y->lid;
}

/* Scratch of the measure, reused across candidates. */
struct measure {
	const struct ibr_fabric *f;
	uint32_t *cas;           /* per switch: CA ports */
	uint8_t *link_up;        /* per sw_adj entry */
	uint32_t *down_dist, *legal_dist, *queue;  /* queue: then walk lengths */
	uint32_t *next;          /* per switch: its sw_adj entry toward d */
	uint32_t *by_len;        /* switches by walk length, longest first */
	uint32_t *count;         /* per route length */
	uint64_t *acc;           /* per switch: flows to d through it */
	uint64_t *load;          /* per sw_adj entry */
};

/* The sw_adj entry switch s takes toward d: down along down_dist when it
 * can, else up along legal_dist; lowest port among equals (sw_adj is by
 * port).  IBR_NONE when s has no legal route. */
static uint32_t next_link(const struct measure *m, uint32_t s)
{
	const struct ibr_fabric *f = m->f;
	bool down = m->down_dist[s] != IBR_FAR;

	if (!down && m->legal_dist[s] == IBR_FAR)
		return IBR_NONE;
	for (uint32_t i = f->sw_adj_start[s]; i < f->sw_adj_start[s + 1]; i++) {
		uint32_t t = f->sw_adj[i].peer;
		if (down ? !m->link_up[i] && m->down_dist[t] + 1 == m->down_dist[s] :
			   m->link_up[i] && m->legal_dist[t] + 1 == m->legal_dist[s])
			return i;
	}
	return IBR_NONE;
}

/* Adds the flows of every CA port to d's CA ports to the links of their
 * routes: the routes into d form a tree, so each switch's flows are
 * summed from the farthest switches in, O(S + E). */
static void add_destination(struct measure *m, uint32_t d, uint64_t *max)
{
	const struct ibr_fabric *f = m->f;
	uint32_t S = f->num_switches, longest = 0, *len = m->queue;

	for (uint32_t s = 0; s < S; s++) {
		m->next[s] = s == d ? IBR_NONE : next_link(m, s);
		m->acc[s] = s == d ? 0 : (uint64_t)m->cas[s] * m->cas[d];
		len[s] = UINT32_MAX;
	}
	/* each walk's length, memoised along the chain (a walk down can be
	 * longer than the shortest legal one, so distances do not order) */
	for (uint32_t s = 0; s < S; s++) {
		uint32_t x = s, top = 0;
		while (len[x] == UINT32_MAX && m->next[x] != IBR_NONE) {
			m->by_len[top++] = x;
			x = f->sw_adj[m->next[x]].peer;
		}
		if (len[x] == UINT32_MAX)
			len[x] = 0;
		while (top--) {
			uint32_t y = m->by_len[top];
			len[y] = len[f->sw_adj[m->next[y]].peer] + 1;
		}
	}
	for (uint32_t s = 0; s < S; s++)
		if (len[s] > longest)
			longest = len[s];
	/* counting sort, longest first: a switch before the one it leads to */
	memset(m->count, 0, (longest + 2) * sizeof(uint32_t));
	for (uint32_t s = 0; s < S; s++)
		m->count[longest - len[s] + 1]++;
	for (uint32_t k = 1; k <= longest + 1; k++)
		m->count[k] += m->count[k - 1];
	for (uint32_t s = 0; s < S; s++)
		m->by_len[m->count[longest - len[s]]++] = s;
	for (uint32_t k = 0; k < S; k++) {
		uint32_t s = m->by_len[k], i = m->next[s];
		if (i == IBR_NONE || !m->acc[s])
			continue;
		if ((m->load[i] += m->acc[s]) > *max)
			*max = m->load[i];
		m->acc[f->sw_adj[i].peer] += m->acc[s];
	}
}

/* The max link load of the routes under root r. */
static int load_under(struct measure *m, uint32_t r, uint64_t *max,
		      struct ibr_error *err)
{
	const struct ibr_fabric *f = m->f;
	uint32_t S = f->num_switches;
	struct ibr_updown ud;
	struct ibr_up_links up;

	if (ibr_updown_build(f, r, &ud, err))
		return -1;
	ibr_updown_link_flags(f, &ud, m->link_up);
	if (ibr_up_links_build(f, m->link_up, &up)) {
		ibr_up_links_free(&up);
		ibr_updown_free(&ud);
		return ibr_error_set(err, "out of memory for the up links");
	}
	memset(m->load, 0, f->sw_adj_start[S] * sizeof(uint64_t));
	*max = 0;
	for (uint32_t d = 0; d < S; d++) {
		if (!m->cas[d])
			continue;
		ibr_down_distances(&up, S, d, m->down_dist, m->queue);
		ibr_legal_distances(&up, &ud, m->down_dist, m->legal_dist);
		add_destination(m, d, max);
	}
	ibr_up_links_free(&up);
	ibr_updown_free(&ud);
	return 0;
}

static void measure_free(struct measure *m)
{
	free(m->link_up);
	free(m->down_dist);
	free(m->legal_dist);
	free(m->queue);
	free(m->next);
	free(m->by_len);
	free(m->count);
	free(m->acc);
	free(m->load);
}

static int measure_init(struct measure *m, const struct ibr_fabric *f,
			uint32_t *cas)
{
	uint32_t S = f->num_switches, E = f->sw_adj_start[S];

	*m = (struct measure){
		.f = f,
		.cas = cas,
		.link_up = malloc(E ? E : 1),
		.down_dist = malloc(S * sizeof(uint32_t)),
		.legal_dist = malloc(S * sizeof(uint32_t)),
		.queue = malloc(S * sizeof(uint32_t)),
		.next = malloc(S * sizeof(uint32_t)),
		.by_len = malloc(S * sizeof(uint32_t)),
		.count = malloc((S + 2) * sizeof(uint32_t)),
		.acc = malloc(S * sizeof(uint64_t)),
		.load = malloc((E ? E : 1) * sizeof(uint64_t)),
	};
	return m->link_up && m->down_dist && m->legal_dist && m->queue &&
	       m->next && m->by_len && m->count && m->acc && m->load ? 0 : -1;
}

/* The work the workers share: the centrality of every switch (tasks of
 * 64 switches), then the load under each candidate (a task each). */
struct team {
	const struct ibr_fabric *f;
	struct candidate *c;
	struct measure *m;      /* per worker */
	uint64_t *load;         /* per candidate */
	struct ibr_error *errs; /* per candidate */
};

#define PER_TASK 64

static int centrality_task(void *arg, unsigned t, unsigned worker)
{
	struct team *tm = arg;
	const struct ibr_fabric *f = tm->f;
	struct measure *m = &tm->m[worker];
	uint32_t first, end;

	ibr_slice(t, PER_TASK, f->num_switches, &first, &end);
	for (uint32_t s = first; s < end; s++) {
		struct candidate *c = &tm->c[s];
		*c = (struct candidate){ .sw = s, .lid = ibr_switch_lid(f, s) };
		/* down_dist: scratch ranks, queue: the BFS's */
		c->ecc = ibr_bfs_from(f, &s, 1, m->down_dist, m->queue);
		for (uint32_t x = 0; x < f->num_switches; x++)
			c->sum += m->down_dist[x];
	}
	return 0;
}

static int load_task(void *arg, unsigned t, unsigned worker)
{
	struct team *tm = arg;

	return load_under(&tm->m[worker], tm->c[t].sw, &tm->load[t],
			  &tm->errs[t]) ? -1 : 0;
}

int ibr_roots_least_loaded(const struct ibr_fabric *f, uint32_t max_tried,
			   unsigned threads, struct ibr_root_load *out,
			   struct ibr_error *err)
{
	uint32_t S = f->num_switches, E = f->sw_adj_start[S];
	unsigned workers = ibr_parallel_workers(threads, max_tried > 1 ?
						max_tried : 1);
	struct team tm = {
		.f = f,
		.c = malloc(S * sizeof(struct candidate)),
		.m = calloc(workers, sizeof(struct measure)),
		.load = calloc(max_tried ? max_tried : 1, sizeof(uint64_t)),
		.errs = calloc(max_tried ? max_tried : 1, sizeof(struct ibr_error)),
	};
	uint32_t *cas = malloc(S * sizeof(uint32_t));
	int rc = -1;

	memset(out, 0, sizeof(*out));
	/* a measure costs about S * E: keep the candidates within a budget
	 * that the routing window affords (all 16 up to about 110 switches
	 * of degree 8, 12 at 128, none from about 200); fewer than half the
	 * candidates are not worth their time (too few to find a root
	 * better than the centre) */
	out->tried = S < max_tried ? S : max_tried;
	if ((uint64_t)S * (E ? E : 1) * out->tried > MEASURE_BUDGET)
		out->tried = (uint32_t)(MEASURE_BUDGET / ((uint64_t)S * (E ? E : 1)));
	if (out->tried < max_tried / 2 || out->tried <= 1) {
		out->tried = 0;
		rc = 0;
		goto out;
	}
	if (!tm.c || !tm.m || !tm.load || !tm.errs || !cas) {
		ibr_error_set(err, "out of memory for %u switches", S);
		goto out;
	}
	for (uint32_t s = 0; s < S; s++)
		cas[s] = f->sw_ca_start[s + 1] - f->sw_ca_start[s];
	for (unsigned w = 0; w < workers; w++)
		if (measure_init(&tm.m[w], f, cas)) {
			ibr_error_set(err, "out of memory for %u switches", S);
			goto out;
		}
	ibr_parallel(threads, ibr_slice_count(S, PER_TASK), centrality_task,
		     &tm);
	qsort(tm.c, S, sizeof(*tm.c), by_centrality);
	out->centre = tm.c[0].sw;
	out->root = tm.c[0].sw;
	if (ibr_parallel(threads, out->tried, load_task, &tm)) {
		for (uint32_t k = 0; k < out->tried; k++)
			if (tm.errs[k].msg[0]) {
				*err = tm.errs[k];
				break;
			}
		goto out;
	}
	/* in candidate order: the first of the least loaded */
	out->centre_load = out->load = tm.load[0];
	for (uint32_t k = 1; k < out->tried; k++)
		if (tm.load[k] < out->load) {
			out->root = tm.c[k].sw;
			out->load = tm.load[k];
		}
	rc = 0;
out:
	for (unsigned w = 0; tm.m && w < workers; w++)
		measure_free(&tm.m[w]);
	free(tm.c);
	free(tm.m);
	free(tm.load);
	free(tm.errs);
	free(cas);
	return rc;
}
