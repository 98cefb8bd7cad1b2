/*
 * pira.c - PIRa, the Partially Implicit Routing algorithm (PIRa paper §3.2).
 *
 * Nodes are switches and CA end ports.  PREV(x) is the set of x's up
 * neighbours (a CA's only neighbour is its switch).  Starting from the
 * root (the sink of the up/down graph), each step explores one node all of
 * whose PREV neighbours are explored, choosing among those eligible the
 * one with the lowest LID; its father f is the PREV neighbour explored
 * most recently (these two choices reproduce Fig. 8).  Then:
 *   DEF(x)      = x's port to f                       (switches only)
 *   FT(x, y)    = x's port to y, y in PREV(x), y != f
 *   FT(y, x)    = y's port to x, y in PREV(x)
 *   FT(y, x)    = FT(y, f) for every other explored switch y,
 * where an entry equal to the default port is not added (it stays
 * implicit).  Up segments ride default ports, down segments are explicit.
 *
 * Layout: the result's tables are stored by destination column, and the
 * last rule copies the father's whole column: one memcpy of S bytes (and
 * S bits of "explicit") per node, O(n * S) in all (the paper's O(n^2)).
 * Whether an entry is explicit lives in a bitmap beside the column, never
 * in the port byte, so no port number (1..254) can be mistaken for a
 * marker.  At the end every implicit entry of an owned LID gets its
 * switch's default port: the LFT realisation of doc/design.md.
 *
 * A root set (roots.h) gives the up/down graph several sinks.  The paper's
 * algorithm assumes one: every default chain then ends at the root, which
 * descends to everything.  With several, exploration starts from every
 * sink, a sink has no default port, and two additions keep every legal
 * route (and only legal ones):
 *   - merge: x's column is its father's, then, where that leaves an entry
 *     implicit, the explicit entry of another PREV neighbour: so every
 *     switch above x (which can descend to it) has an explicit down route;
 *   - repair: after expansion, a switch whose default chain climbs to a
 *     sink that cannot descend to the LID takes an explicit up entry to an
 *     up neighbour whose walk delivers, swept in up/down order so that
 *     neighbour is settled first; a switch with no legal route at all
 *     (ibr_climb_meet) gets IBR_NO_PATH.
 * Both only add explicit entries; with one sink neither changes anything,
 * so Figs. 4-8 stay the paper's.
 *
 * Port choice (engine.h): with `lowest` the father is the PREV neighbour
 * explored most recently, as the paper's Fig. 8; with `balanced` it is
 * the PREV neighbour that fathers the fewest CA ports' default routes so
 * far (most recently explored on ties), so default ports, which carry
 * every up segment, spread over a fat tree's up links.
 */
#include <stdlib.h>
#include <string.h>

#include "engines.h"
#include "ibrouting/pira.h"
#include "ibrouting/walk.h"

struct pira {
	const struct ibr_fabric *f;
	const struct ibr_updown *ud;
	struct ibr_result *r;
	struct ibr_pira_detail *d;
	uint32_t S, n;          /* switches; nodes = switches + end ports */
	uint32_t *step;         /* per node: step it was explored at, 0 = not */
	uint32_t *pending;      /* per node: unexplored up links */
	uint32_t *heap;         /* eligible nodes, min-heap by LID */
	uint32_t heap_len;
	ibr_lid_t *lid_of;      /* per node: its (base) LID */
	bool several_sinks;     /* merge and repair (above) */
	bool balanced;          /* port choice */
	uint64_t *fathered;     /* per switch: CA ports whose defaults it takes */
	uint32_t sinks;
};

/* Node ids: 0..S-1 are switches, S.. are end ports. */
static ibr_lid_t node_lid(const struct pira *w, uint32_t x)
{
	return w->lid_of[x];
}

static uint8_t *column(const struct pira *w, uint32_t x)
{
	return ibr_column(w->r, node_lid(w, x));
}

static uint64_t *explicit_column(const struct pira *w, ibr_lid_t lid)
{
	return w->d->explicit_bits + (size_t)lid * w->d->words;
}

static void set_explicit(const struct pira *w, uint32_t x, uint32_t s,
			 uint8_t port)
{
	column(w, x)[s] = port;
	explicit_column(w, node_lid(w, x))[s / 64] |= 1ull << (s % 64);
}

static bool is_explicit(const struct pira *w, uint32_t x, uint32_t s)
{
	return ibr_pira_is_explicit(w->d, node_lid(w, x), s);
}

/* Column of LID `to` := column of LID `from`, ports and explicit bits. */
static void copy_column(const struct pira *w, ibr_lid_t to, ibr_lid_t from)
{
	memcpy(ibr_column(w->r, to), ibr_column(w->r, from), w->S);
	memcpy(explicit_column(w, to), explicit_column(w, from),
	       w->d->words * sizeof(uint64_t));
}

static void heap_push(struct pira *w, uint32_t x)
{
	uint32_t i = w->heap_len++;

	while (i > 0) {
		uint32_t up = (i - 1) / 2;
		if (node_lid(w, w->heap[up]) <= node_lid(w, x))
			break;
		w->heap[i] = w->heap[up];
		i = up;
	}
	w->heap[i] = x;
}

static uint32_t heap_pop(struct pira *w)
{
	uint32_t top = w->heap[0], last = w->heap[--w->heap_len], i = 0;

	for (;;) {
		uint32_t c = 2 * i + 1;
		if (c >= w->heap_len)
			break;
		if (c + 1 < w->heap_len &&
		    node_lid(w, w->heap[c + 1]) < node_lid(w, w->heap[c]))
			c++;
		if (node_lid(w, last) <= node_lid(w, w->heap[c]))
			break;
		w->heap[i] = w->heap[c];
		i = c;
	}
	w->heap[i] = last;
	return top;
}

/* After x is explored, its down neighbours may become eligible. */
static void release_down_neighbours(struct pira *w, uint32_t x)
{
	const struct ibr_fabric *f = w->f;

	if (x >= w->S)
		return; /* CAs have no down neighbours */
	for (uint32_t i = f->sw_adj_start[x]; i < f->sw_adj_start[x + 1]; i++) {
		uint32_t t = f->sw_adj[i].peer;
		if (!ibr_link_is_up(f, w->ud, x, t) && --w->pending[t] == 0)
			heap_push(w, t);
	}
	for (uint32_t i = f->sw_ca_start[x]; i < f->sw_ca_start[x + 1]; i++)
		heap_push(w, w->S + f->sw_cas[i]);
}

/* The father: the PREV neighbour explored most recently (balanced: the
 * one fathering the fewest CA ports, then the most recent); its port is
 * the lowest of the parallel links to it.  IBR_NO_PATH at a sink. */
static uint8_t father_port(const struct pira *w, uint32_t x, uint32_t *father)
{
	const struct ibr_fabric *f = w->f;
	uint32_t best_step = 0;
	uint64_t best_load = UINT64_MAX;
	uint8_t port = IBR_NO_PATH;

	for (uint32_t i = f->sw_adj_start[x]; i < f->sw_adj_start[x + 1]; i++) {
		uint32_t t = f->sw_adj[i].peer;
		uint64_t load = w->balanced ? w->fathered[t] : 0;
		if (!ibr_link_is_up(f, w->ud, x, t))
			continue;
		if (load < best_load || (load == best_load &&
					 w->step[t] > best_step)) {
			best_load = load;
			best_step = w->step[t];
			*father = t;
			port = f->sw_adj[i].port;
		}
	}
	return port;
}

/* Merge (several sinks): where x's column is still implicit, the
 * explicit entry of another PREV neighbour p: y routes to x as to p. */
static void merge_other_parents(struct pira *w, uint32_t x, uint32_t father)
{
	const struct ibr_fabric *f = w->f;
	ibr_lid_t to = node_lid(w, x);
	uint8_t *cx = ibr_column(w->r, to);
	uint64_t *bx = explicit_column(w, to);

	for (uint32_t i = f->sw_adj_start[x]; i < f->sw_adj_start[x + 1]; i++) {
		uint32_t p = f->sw_adj[i].peer;
		const uint64_t *bp;
		const uint8_t *cp;
		if (p == father || !ibr_link_is_up(f, w->ud, x, p))
			continue;
		bp = explicit_column(w, node_lid(w, p));
		cp = column(w, p);
		for (uint32_t k = 0; k < w->d->words; k++) {
			uint64_t add = bp[k] & ~bx[k];
			while (add) {
				uint32_t y = k * 64 + (uint32_t)__builtin_ctzll(add);
				add &= add - 1;
				cx[y] = cp[y];
			}
			bx[k] |= bp[k];
		}
	}
}

static void explore_switch(struct pira *w, uint32_t x, uint32_t step)
{
	const struct ibr_fabric *f = w->f;
	uint8_t *cx = column(w, x);
	uint32_t father = IBR_NONE;

	w->d->default_port[x] = father_port(w, x, &father);
	if (father != IBR_NONE) {
		/* FT(y, x) = FT(y, father) for all explored y outside PREV(x) */
		copy_column(w, node_lid(w, x), node_lid(w, father));
		if (w->balanced)
			w->fathered[father] += 1 + f->sw_ca_start[x + 1] -
					       f->sw_ca_start[x];
	}
	(void)step;
	set_explicit(w, x, x, 0);
	/* FT(y, x) = y's port to x for y in PREV(x); of parallel links the
	 * lowest port on y's side.  0 marks "not set yet": y != x. */
	for (uint32_t i = f->sw_adj_start[x]; i < f->sw_adj_start[x + 1]; i++)
		if (ibr_link_is_up(f, w->ud, x, f->sw_adj[i].peer))
			set_explicit(w, x, f->sw_adj[i].peer, 0);
	for (uint32_t i = f->sw_adj_start[x]; i < f->sw_adj_start[x + 1]; i++) {
		const struct ibr_sw_link *l = &f->sw_adj[i];
		if (!ibr_link_is_up(f, w->ud, x, l->peer))
			continue;
		if (cx[l->peer] == 0 || l->peer_port < cx[l->peer])
			cx[l->peer] = l->peer_port;
		/* FT(x, y) = x's port to y, y != father; links are in port
		 * order, so the first one seen is the lowest. */
		if (l->peer != father && !is_explicit(w, l->peer, x))
			set_explicit(w, l->peer, x, l->port);
	}
	if (w->several_sinks)
		merge_other_parents(w, x, father);
}


static void explore_end_port(struct pira *w, uint32_t x)
{
	const struct ibr_end_port *e = &w->f->end_ports[x - w->S];

	copy_column(w, node_lid(w, x), node_lid(w, e->sw));
	set_explicit(w, x, e->sw, e->sw_port);
}

/* LMC > 0: every LID of a range routes as its base LID. */
static void copy_lid_ranges(struct pira *w)
{
	const struct ibr_fabric *f = w->f;

	for (uint32_t lid = 1; lid <= f->max_lid; lid++) {
		const struct ibr_lid_owner *o = &f->lid_owner[lid];
		ibr_lid_t base;
		if (o->node == IBR_NONE)
			continue;
		base = ibr_port(f, o->node, o->port)->base_lid;
		if (base != lid)
			copy_column(w, lid, base);
	}
}

/* Implicit entries of owned LIDs take the switch's default port. */
static uint64_t expand_defaults(struct pira *w)
{
	const struct ibr_fabric *f = w->f;
	uint64_t explicit_entries = 0;

	for (uint32_t lid = 1; lid <= f->max_lid; lid++) {
		const uint64_t *bits = explicit_column(w, lid);
		uint8_t *col = ibr_column(w->r, lid);
		if (f->lid_owner[lid].node == IBR_NONE)
			continue;
		for (uint32_t s = 0; s < w->S; s++) {
			if (bits[s / 64] >> (s % 64) & 1)
				explicit_entries++;
			else
				col[s] = w->d->default_port[s];
		}
	}
	return explicit_entries;
}

/* Repair (several sinks, see the top): per owned LID, in up/down order,
 * a switch whose walk fails takes an explicit up entry to a neighbour
 * whose walk delivers (balanced: the one fathering the fewest CA ports;
 * else the lowest port), or IBR_NO_PATH when no legal route exists. */
static int repair(struct pira *w, uint64_t *explicit_entries,
		  struct ibr_error *err)
{
	const struct ibr_fabric *f = w->f;
	const struct ibr_updown *ud = w->ud;
	struct ibr_walker walker;
	struct ibr_climb climb;
	uint8_t *reach = malloc(w->S);
	int rc = -1;

	if (!reach)
		return ibr_error_set(err, "pira: out of memory for %u switches",
				     w->S);
	if (ibr_walker_init(&walker, f, err)) {
		free(reach);
		return -1;
	}
	if (ibr_climb_build(f, ud, &climb, err))
		goto out_walker;
	for (uint32_t lid = 1; lid <= f->max_lid; lid++) {
		uint8_t *col = ibr_column(w->r, lid);
		uint64_t *bits = explicit_column(w, lid);
		uint32_t d = ibr_lid_switch(f, lid);
		bool all = true;
		if (d == IBR_NONE)
			continue;
		ibr_walk_column(&walker, col, lid, NULL);
		for (uint32_t s = 0; all && s < w->S; s++)
			all = walker.hops[s] != IBR_HOPS_FAILED;
		if (all)
			continue;
		for (uint32_t k = 0; k < w->S; k++) {
			uint32_t s = ud->order[k], best = IBR_NONE, next;
			uint64_t best_load = UINT64_MAX;
			enum ibr_step st;
			if (walker.hops[s] != IBR_HOPS_FAILED) {
				reach[s] = 1;
				continue;
			}
			st = ibr_walker_step(&walker, s, (ibr_lid_t)lid, col[s],
					     &next);
			if (st == IBR_STEP_NEXT && ibr_link_is_up(f, ud, s, next) &&
			    reach[next]) {
				reach[s] = 1; /* through a repaired switch */
				continue;
			}
			reach[s] = 0;
			if (!ibr_climb_meet(&climb, s, d)) {
				if (col[s] != IBR_NO_PATH &&
				    !(bits[s / 64] >> (s % 64) & 1))
					(*explicit_entries)++;
				col[s] = IBR_NO_PATH;
				bits[s / 64] |= 1ull << (s % 64);
				continue;
			}
			for (uint32_t i = f->sw_adj_start[s]; i < f->sw_adj_start[s + 1]; i++) {
				uint32_t t = f->sw_adj[i].peer;
				uint64_t load = w->balanced ? w->fathered[t] : 0;
				if (ibr_link_is_up(f, ud, s, t) && reach[t] &&
				    load < best_load) {
					best_load = load;
					best = i;
				}
			}
			if (best == IBR_NONE) {
				ibr_error_set(err, "pira: switch 0x%016llx has a "
					      "legal route to LID %u but no up "
					      "neighbour delivers it",
					      (unsigned long long)ibr_switch(f, s)->guid,
					      lid);
				goto out;
			}
			if (!(bits[s / 64] >> (s % 64) & 1))
				(*explicit_entries)++;
			col[s] = f->sw_adj[best].port;
			bits[s / 64] |= 1ull << (s % 64);
			reach[s] = 1;
		}
	}
	rc = 0;
out:
	ibr_climb_free(&climb);
out_walker:
	ibr_walker_free(&walker);
	free(reach);
	return rc;
}

static int alloc_work(struct pira *w, struct ibr_error *err)
{
	size_t bits_words;

	w->n = w->S + w->f->num_end_ports;
	w->d->words = (w->S + 63) / 64;
	bits_words = (size_t)w->r->num_lids * w->d->words;
	w->d->default_port = malloc(w->S);
	w->d->explicit_bits = calloc(bits_words, sizeof(uint64_t));
	w->step = calloc(w->n, sizeof(uint32_t));
	w->pending = calloc(w->n, sizeof(uint32_t));
	w->heap = malloc(w->n * sizeof(uint32_t));
	w->lid_of = malloc(w->n * sizeof(ibr_lid_t));
	w->fathered = calloc(w->S, sizeof(uint64_t));
	if (!w->d->default_port || !w->d->explicit_bits || !w->step ||
	    !w->pending || !w->heap || !w->lid_of || !w->fathered)
		return ibr_error_set(err, "pira: out of memory (%zu bytes of "
				     "explicit bits)", bits_words * 8);
	memset(w->d->default_port, IBR_NO_PATH, w->S);
	return 0;
}

int ibr_pira_route_detail(struct ibr_route_ctx *ctx, struct ibr_result *r,
			  struct ibr_pira_detail *d, struct ibr_error *err)
{
	const struct ibr_fabric *f = ctx->f;
	struct pira w = { .f = f, .r = r, .d = d, .S = f->num_switches,
			  .balanced = ctx->port_choice == IBR_PORT_BALANCED };
	uint64_t explicit_entries;
	uint32_t step = 0;
	int rc = -1;

	memset(d, 0, sizeof(*d));
	w.ud = ibr_ctx_updown(ctx, err);
	if (!w.ud || alloc_work(&w, err))
		goto out;
	for (uint32_t x = 0; x < w.n; x++)
		w.lid_of[x] = x < w.S ? ibr_switch_lid(f, x) :
			      ibr_end_port_lid(f, x - w.S);
	for (uint32_t s = 0; s < w.S; s++)
		for (uint32_t i = f->sw_adj_start[s]; i < f->sw_adj_start[s + 1]; i++)
			w.pending[s] += ibr_link_is_up(f, w.ud, s, f->sw_adj[i].peer);

	/* every sink starts: one root alone is the only one */
	for (uint32_t x = 0; x < w.S; x++)
		if (w.pending[x] == 0) {
			heap_push(&w, x);
			w.sinks++;
		}
	w.several_sinks = w.sinks > 1;
	while (w.heap_len > 0) {
		uint32_t x = heap_pop(&w);
		w.step[x] = ++step;
		if (x < w.S)
			explore_switch(&w, x, step);
		else
			explore_end_port(&w, x);
		release_down_neighbours(&w, x);
	}
	if (step != w.n) {
		ibr_error_set(err, "pira: explored %u of %u nodes: the up/down "
			      "graph is not acyclic with one sink", step, w.n);
		goto out;
	}
	copy_lid_ranges(&w);
	explicit_entries = expand_defaults(&w);
	if (w.several_sinks && repair(&w, &explicit_entries, err))
		goto out;
	ibr_stat_count(r, "explicit entry", "explicit entries", explicit_entries);
	ibr_stat_count(r, "default port", "default ports", w.S - w.sinks);
	rc = 0;
out:
	free(w.step);
	free(w.pending);
	free(w.heap);
	free(w.lid_of);
	free(w.fathered);
	return rc;
}

void ibr_pira_detail_free(struct ibr_pira_detail *d)
{
	free(d->default_port);
	free(d->explicit_bits);
	memset(d, 0, sizeof(*d));
}

static int pira_route(struct ibr_route_ctx *ctx, struct ibr_result *r,
		      struct ibr_error *err)
{
	struct ibr_pira_detail d;
	int rc = ibr_pira_route_detail(ctx, r, &d, err);

	ibr_pira_detail_free(&d);
	return rc;
}

const struct ibr_engine ibr_engine_pira = {
	.name = "pira",
	.summary = "partially implicit up/down routing (PIRa): explicit down "
		   "segments, up segments on one default port per switch",
	.route = pira_route,
};
