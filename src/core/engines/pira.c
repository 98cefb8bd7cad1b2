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
 * Layout: the tables are built by destination column, col[lid][switch],
 * because the last rule copies the father's whole column: one memcpy of S
 * bytes per node, O(n * S) in all (the paper's O(n^2)).  IMPLICIT marks an
 * entry left to the default port; a final blocked transpose writes the
 * linear tables, expanding IMPLICIT to the switch's default port (the LFT
 * realisation of DESIGN.md) and recording which entries were explicit.
 */
#include <stdlib.h>
#include <string.h>

#include "ibrouting/engine.h"

#define IMPLICIT 0xFE

struct pira {
	const struct ibr_fabric *f;
	const struct ibr_updown *ud;
	struct ibr_result *r;
	uint32_t S, n;          /* switches; nodes = switches + end ports */
	uint8_t *col;           /* (max_lid + 1) rows of S entries */
	uint32_t *step;         /* per node: step it was explored at, 0 = not */
	uint32_t *pending;      /* per node: unexplored up links */
	uint32_t *heap;         /* eligible nodes, min-heap by LID */
	uint32_t heap_len;
	ibr_lid_t *lid_of;      /* per node: its (base) LID */
};

/* Node ids: 0..S-1 are switches, S.. are end ports. */
static ibr_lid_t node_lid(const struct pira *w, uint32_t x)
{
	return w->lid_of[x];
}

static uint8_t *column(const struct pira *w, uint32_t x)
{
	return w->col + (size_t)node_lid(w, x) * w->S;
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

/* The father: the PREV neighbour explored most recently; its port is
 * the lowest of the parallel links to it. */
static uint8_t father_port(const struct pira *w, uint32_t x, uint32_t *father)
{
	const struct ibr_fabric *f = w->f;
	uint32_t best_step = 0;
	uint8_t port = IBR_NO_PATH;

	for (uint32_t i = f->sw_adj_start[x]; i < f->sw_adj_start[x + 1]; i++) {
		uint32_t t = f->sw_adj[i].peer;
		if (ibr_link_is_up(f, w->ud, x, t) && w->step[t] > best_step) {
			best_step = w->step[t];
			*father = t;
			port = f->sw_adj[i].port;
		}
	}
	return port;
}

static void explore_switch(struct pira *w, uint32_t x, uint32_t step)
{
	const struct ibr_fabric *f = w->f;
	uint8_t *cx = column(w, x);
	uint32_t father = IBR_NONE;

	if (step > 1) {
		uint8_t def = father_port(w, x, &father);
		w->r->default_port[x] = def;
		/* FT(y, x) = FT(y, father) for all explored y outside PREV(x) */
		memcpy(cx, column(w, father), w->S);
	}
	cx[x] = 0;
	/* FT(y, x) = y's port to x for y in PREV(x); of parallel links the
	 * lowest port on y's side.  0 marks "not set yet": y != x. */
	for (uint32_t i = f->sw_adj_start[x]; i < f->sw_adj_start[x + 1]; i++)
		if (ibr_link_is_up(f, w->ud, x, f->sw_adj[i].peer))
			cx[f->sw_adj[i].peer] = 0;
	for (uint32_t i = f->sw_adj_start[x]; i < f->sw_adj_start[x + 1]; i++) {
		const struct ibr_sw_link *l = &f->sw_adj[i];
		uint8_t *cy;
		if (!ibr_link_is_up(f, w->ud, x, l->peer))
			continue;
		if (cx[l->peer] == 0 || l->peer_port < cx[l->peer])
			cx[l->peer] = l->peer_port;
		/* FT(x, y) = x's port to y, y != father; links are in port
		 * order, so the first one seen is the lowest. */
		cy = column(w, l->peer);
		if (l->peer != father && cy[x] == IMPLICIT)
			cy[x] = l->port;
	}
}

static void explore_end_port(struct pira *w, uint32_t x)
{
	const struct ibr_end_port *e = &w->f->end_ports[x - w->S];
	uint8_t *cx = column(w, x);

	memcpy(cx, column(w, e->sw), w->S);
	cx[e->sw] = e->sw_port;
}

/* col -> linear tables, IMPLICIT -> default port.  Blocked 64 x 64 so
 * both the columns read and the rows written stay in cache.  Explicit
 * entries are few (PIRa's point), so their bits are set one by one. */
static void write_tables(struct pira *w)
{
	struct ibr_result *r = w->r;
	uint64_t explicit_entries = 0, stride = ibr_explicit_stride(r);
	enum { B = 64 };

	for (uint32_t l0 = 0; l0 < r->lft_size; l0 += B) {
		uint32_t l1 = l0 + B < r->lft_size ? l0 + B : r->lft_size;
		for (uint32_t s0 = 0; s0 < w->S; s0 += B) {
			uint32_t s1 = s0 + B < w->S ? s0 + B : w->S;
			for (uint32_t s = s0; s < s1; s++) {
				uint8_t *row = ibr_lft_row(r, s);
				uint8_t *bits = r->explicit_bits + (s * stride >> 3);
				uint8_t def = r->default_port[s];
				for (uint32_t lid = l0; lid < l1; lid++) {
					uint8_t v = w->col[(size_t)lid * w->S + s];
					if (v == IMPLICIT) {
						v = def;
					} else if (v != IBR_NO_PATH) {
						bits[lid >> 3] |= 1u << (lid & 7);
						explicit_entries++;
					}
					row[lid] = v;
				}
			}
		}
	}
	r->stats.explicit_entries = explicit_entries;
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
			memcpy(w->col + (size_t)lid * w->S,
			       w->col + (size_t)base * w->S, w->S);
	}
}

static int pira_route(const struct ibr_fabric *f, const struct ibr_updown *ud,
		      struct ibr_result *r, struct ibr_error *err)
{
	struct pira w = { .f = f, .ud = ud, .r = r, .S = f->num_switches };
	size_t cells = (size_t)r->lft_size * w.S;
	uint32_t step = 0;
	int rc = -1;

	w.n = w.S + f->num_end_ports;
	w.col = malloc(cells);
	w.step = calloc(w.n, sizeof(uint32_t));
	w.pending = calloc(w.n, sizeof(uint32_t));
	w.heap = malloc(w.n * sizeof(uint32_t));
	w.lid_of = malloc(w.n * sizeof(ibr_lid_t));
	if (!w.col || !w.step || !w.pending || !w.heap || !w.lid_of ||
	    ibr_result_alloc_defaults(r, err)) {
		ibr_error_set(err, "pira: out of memory (%zu bytes of columns)",
			      cells);
		goto out;
	}
	for (uint32_t x = 0; x < w.n; x++)
		w.lid_of[x] = x < w.S ? ibr_switch_lid(f, x) : ibr_end_port_lid(f, x - w.S);
	memset(w.col, IBR_NO_PATH, cells);
	for (uint32_t x = 0; x < w.n; x++)
		memset(column(&w, x), IMPLICIT, w.S);
	for (uint32_t s = 0; s < w.S; s++)
		for (uint32_t i = f->sw_adj_start[s]; i < f->sw_adj_start[s + 1]; i++)
			w.pending[s] += ibr_link_is_up(f, ud, s, f->sw_adj[i].peer);

	heap_push(&w, ud->root);
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
	write_tables(&w);
	r->stats.default_ports = w.S - 1;
	rc = 0;
out:
	free(w.col);
	free(w.step);
	free(w.pending);
	free(w.heap);
	free(w.lid_of);
	return rc;
}

const struct ibr_engine ibr_engine_pira = {
	.name = "pira",
	.summary = "partially implicit up/down routing (PIRa)",
	.route = pira_route,
};
