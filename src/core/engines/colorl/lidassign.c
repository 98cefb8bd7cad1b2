/*
 * lidassign.c - LID assignment for one destination (lid-assignment-color-l
 * §II-§V; contract in include/ibrouting/lidassign.h).
 *
 * Every heuristic works on the split graph of the *distinct* paths:
 *
 *  1. Dedupe.  Paths are hashed by their hop sequence; equal sequences are
 *     one distinct path, numbered in order of first appearance, so "the
 *     lower distinct index" is "the lower first path index" and ties keep
 *     the input's order.  Hosts of one switch that follow the same switch
 *     path cost nothing.
 *  2. Per-switch next hops.  For each switch the distinct paths through it
 *     (in distinct-index order) and the port each leaves by.  Two paths
 *     split exactly when some switch holds both in different port groups
 *     (Definition 1), so the split graph is built switch by switch: the
 *     row of every path of group g gets (paths through s) minus (group g),
 *     as bitsets.  No pair of paths is ever compared hop by hop.
 *  3. Adjacency as bitsets: row d has m bits (m distinct paths), W words;
 *     n^2/8 bytes in all (500 paths: 31 KiB; 5000: 3 MiB).  Every set
 *     operation the heuristics need (a configuration's conflicts, the
 *     working graph, clique candidates) is a word-wise AND/OR.
 *
 * Invariants:
 *  - adj is symmetric with an empty diagonal: a path that visits a switch
 *    twice is refused before the graph is built (it is a forwarding loop,
 *    and would split from itself);
 *  - every colouring a heuristic returns is proper on adj (split paths
 *    differ), uses colours 0..k-1 each at least once, and numbers colours
 *    in the order the heuristic opened them;
 *  - every result is a function of the input alone: ties go to the lower
 *    distinct index (= lower first path index), switch ties to the lower
 *    switch index, and GLPK runs single-threaded on the same model.
 *
 * The ILP (§IV, §VI-B) starts from the best heuristic's colouring (color/L
 * first among equals) and solves SD(k-1), SD(k-2), ... with GLPK until one
 * is infeasible, the clique bound is reached, or the time runs out.
 */
#include <config.h>

#include <limits.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#ifdef HAVE_GLPK
#include <glpk.h>
#endif

#include "ibrouting/fabric.h"
#include "ibrouting/lidassign.h"
#include "util/timer.h"

/* ---------------------------------------------------------------- names */

static const char *const heuristic_names[IBR_LA_COUNT] = {
	[IBR_LA_GREEDY] = "greedy",
	[IBR_LA_SPLIT_MERGE_S] = "split-merge/S",
	[IBR_LA_SPLIT_MERGE_L] = "split-merge/L",
	[IBR_LA_COLOR_S] = "color/S",
	[IBR_LA_COLOR_L] = "color/L",
	[IBR_LA_ILP] = "ilp",
};

const char *ibr_lid_heuristic_name(enum ibr_lid_heuristic h)
{
	return (unsigned)h < IBR_LA_COUNT ? heuristic_names[h] : "?";
}

int ibr_lid_heuristic_parse(const char *name, enum ibr_lid_heuristic *h)
{
	static const struct {
		const char *alias;
		enum ibr_lid_heuristic h;
	} aliases[] = {
		{ "sm-s", IBR_LA_SPLIT_MERGE_S }, { "sm-l", IBR_LA_SPLIT_MERGE_L },
		{ "color-s", IBR_LA_COLOR_S }, { "color-l", IBR_LA_COLOR_L },
		{ "colors", IBR_LA_COLOR_S }, { "colorl", IBR_LA_COLOR_L },
	};

	if (name == NULL)
		return -1;
	for (unsigned i = 0; i < IBR_LA_COUNT; i++)
		if (strcasecmp(name, heuristic_names[i]) == 0) {
			*h = (enum ibr_lid_heuristic)i;
			return 0;
		}
	for (unsigned i = 0; i < sizeof(aliases) / sizeof(aliases[0]); i++)
		if (strcmp(name, aliases[i].alias) == 0) {
			*h = aliases[i].h;
			return 0;
		}
	return -1;
}

bool ibr_lid_ilp_available(void)
{
#ifdef HAVE_GLPK
	return true;
#else
	return false;
#endif
}

/* -------------------------------------------------------------- scratch */

/* A grow-only buffer: destinations come one after the other, so the
 * largest one sizes the scratch once. */
struct vec {
	void *p;
	size_t cap;     /* bytes */
};

struct sm_entry {       /* split-merge: one path through the split node */
	uint32_t item, d;
	uint8_t port;
};

struct ibr_lid_assigner {
	uint32_t num_switches;
	uint32_t gen;           /* stamp generation: one per input path */
	uint32_t *stamp;        /* per switch: gen of the last path seen there */
	uint32_t *sw_cnt;       /* per switch: distinct paths through it (0 between calls) */
	uint32_t *sw_off;       /* per switch: start of its block in hop_d/hop_port */
	uint16_t slot[256];     /* port -> group of the switch at hand (0xFFFF: none) */
	bool glpk_used;

	struct vec dist, rep, mult, hash, touched, hop_d, hop_port, grouped;
	struct vec adj, deg, bits, degw, col, best, tmp, clique, order;
	struct vec sm, item, rank, istart, imember;
	struct vec ia, ja, ar;  /* GLPK's matrix */
};

static void *reserve(struct vec *v, size_t n, size_t size,
		     struct ibr_error *err)
{
	size_t bytes;

	if (n == 0)
		n = 1;
	if (n > SIZE_MAX / size) {
		ibr_error_set(err, "lid assignment: %zu x %zu bytes overflow",
			      n, size);
		return NULL;
	}
	bytes = n * size;
	if (bytes > v->cap) {
		void *p = realloc(v->p, bytes);
		if (p == NULL) {
			ibr_error_set(err, "lid assignment: out of memory "
				      "(%zu bytes of scratch)", bytes);
			return NULL;
		}
		v->p = p;
		v->cap = bytes;
	}
	return v->p;
}

int ibr_lid_assigner_new(struct ibr_lid_assigner **out, uint32_t num_switches,
			 struct ibr_error *err)
{
	struct ibr_lid_assigner *a = calloc(1, sizeof(*a));
	size_t S = num_switches ? num_switches : 1;

	*out = NULL;
	if (a == NULL)
		return ibr_error_set(err, "lid assignment: out of memory");
	a->num_switches = num_switches;
	a->stamp = calloc(S, sizeof(*a->stamp));
	a->sw_cnt = calloc(S, sizeof(*a->sw_cnt));
	a->sw_off = calloc(S, sizeof(*a->sw_off));
	if (!a->stamp || !a->sw_cnt || !a->sw_off) {
		ibr_lid_assigner_free(a);
		return ibr_error_set(err, "lid assignment: out of memory for "
				     "%u switches", num_switches);
	}
	memset(a->slot, 0xFF, sizeof(a->slot));
	*out = a;
	return 0;
}

void ibr_lid_assigner_free(struct ibr_lid_assigner *a)
{
	struct vec *v[] = {
		&a->dist, &a->rep, &a->mult, &a->hash, &a->touched, &a->hop_d,
		&a->hop_port, &a->grouped, &a->adj, &a->deg, &a->bits,
		&a->degw, &a->col, &a->best, &a->tmp, &a->clique, &a->order,
		&a->sm, &a->item, &a->rank, &a->istart, &a->imember, &a->ia,
		&a->ja, &a->ar,
	};

	if (a == NULL)
		return;
	for (unsigned i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		free(v[i]->p);
	free(a->stamp);
	free(a->sw_cnt);
	free(a->sw_off);
#ifdef HAVE_GLPK
	/* GLPK keeps an environment per thread from its first call on; the
	 * core is its only user in this process, so the last assigner that
	 * used it gives it back (valgrind sees no GLPK memory left). */
	if (a->glpk_used)
		glp_free_env();
#endif
	free(a);
}

/* -------------------------------------------------------------- bitsets */

typedef uint64_t word;
#define WBITS 64u

static inline bool bit_get(const word *b, uint32_t i)
{
	return (b[i / WBITS] >> (i % WBITS)) & 1u;
}

static inline void bit_set(word *b, uint32_t i)
{
	b[i / WBITS] |= (word)1 << (i % WBITS);
}

static inline void bit_clear(word *b, uint32_t i)
{
	b[i / WBITS] &= ~((word)1 << (i % WBITS));
}

/* Lowest set bit at or above i, or UINT32_MAX. */
static inline uint32_t bit_next(const word *b, uint32_t W, uint32_t i)
{
	uint32_t w = i / WBITS;
	word x;

	if (w >= W)
		return UINT32_MAX;
	x = b[w] & (~(word)0 << (i % WBITS));
	while (x == 0) {
		if (++w >= W)
			return UINT32_MAX;
		x = b[w];
	}
	return w * WBITS + (uint32_t)__builtin_ctzll(x);
}

#define FOR_BITS(v, b, W) \
	for (uint32_t v = bit_next((b), (W), 0); v != UINT32_MAX; \
	     v = bit_next((b), (W), v + 1))

/* The state of one call: the distinct paths and their split graph. */
struct graph {
	uint32_t m, W;          /* distinct paths, words per row */
	word *adj;              /* m rows of W words */
	uint32_t *deg;          /* degree in the split graph */
	uint32_t *mult;         /* input paths each distinct path stands for */
	uint32_t *wdeg;         /* degree counting neighbours with mult */
	uint32_t hops;          /* hops of the distinct paths */
	uint32_t ntouched;      /* switches some path crosses */
	uint32_t *touched;      /* them, in order of first crossing */
	uint32_t *hop_d;        /* per switch block: distinct path ... */
	uint8_t *hop_port;      /* ... and the port it leaves by */
};

static inline word *row(const struct graph *g, uint32_t d)
{
	return g->adj + (size_t)d * g->W;
}

/* ------------------------------------------------------- dedupe, graph */

static uint64_t path_hash(const uint32_t *sw, const uint8_t *port,
			  uint32_t len)
{
	uint64_t h = 0x9E3779B97F4A7C15ull ^ len;

	for (uint32_t j = 0; j < len; j++) {
		h ^= ((uint64_t)sw[j] << 8) | port[j];
		h *= 0x100000001B3ull;
		h ^= h >> 29;
	}
	h ^= h >> 32;
	return h;
}

static bool same_hops(const struct ibr_dest_paths *p, uint32_t x, uint32_t y)
{
	uint32_t fx = p->first[x], fy = p->first[y];
	uint32_t len = p->first[x + 1] - fx;

	return len == p->first[y + 1] - fy &&
	       memcmp(p->sw + fx, p->sw + fy, len * sizeof(*p->sw)) == 0 &&
	       memcmp(p->port + fx, p->port + fy, len) == 0;
}

/* Checks every path (switches in range, no switch twice), numbers the
 * distinct ones: dist[i] for path i, rep[d] its first path.  Returns the
 * number of distinct paths, or UINT32_MAX after a message. */
static uint32_t dedupe(struct ibr_lid_assigner *a,
		       const struct ibr_dest_paths *p, uint32_t *hops,
		       struct ibr_error *err)
{
	uint32_t n = p->num_paths, m = 0, mask = 1, *dist, *rep, *mult, *tab;

	while (mask < 2 * (uint64_t)n && mask < (1u << 31))
		mask <<= 1;
	dist = reserve(&a->dist, n, sizeof(*dist), err);
	rep = reserve(&a->rep, n, sizeof(*rep), err);
	mult = reserve(&a->mult, n, sizeof(*mult), err);
	tab = reserve(&a->hash, mask, sizeof(*tab), err);
	if (!dist || !rep || !mult || !tab)
		return UINT32_MAX;
	memset(tab, 0xFF, (size_t)mask * sizeof(*tab));
	mask--;
	*hops = 0;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t f = p->first[i], len, h;

		if (p->first[i + 1] < f) {
			ibr_error_set(err, "lid assignment: path %u ends (hop %u) "
				      "before it starts (hop %u)", i,
				      p->first[i + 1], f);
			return UINT32_MAX;
		}
		len = p->first[i + 1] - f;
		if (++a->gen == 0) {    /* wrapped: old stamps could match */
			memset(a->stamp, 0, (size_t)a->num_switches *
			       sizeof(*a->stamp));
			a->gen = 1;
		}
		for (uint32_t j = f; j < f + len; j++) {
			uint32_t s = p->sw[j];
			if (s >= a->num_switches) {
				ibr_error_set(err, "lid assignment: path %u "
					      "hop %u: switch %u, expected "
					      "below %u", i, j - f, s,
					      a->num_switches);
				return UINT32_MAX;
			}
			if (a->stamp[s] == a->gen) {
				ibr_error_set(err, "lid assignment: path %u "
					      "visits switch %u twice (a "
					      "forwarding loop)", i, s);
				return UINT32_MAX;
			}
			a->stamp[s] = a->gen;
		}
		h = (uint32_t)path_hash(p->sw + f, p->port + f, len) & mask;
		while (tab[h] != UINT32_MAX && !same_hops(p, rep[tab[h]], i))
			h = (h + 1) & mask;
		if (tab[h] == UINT32_MAX) {
			tab[h] = m;
			mult[m] = 0;
			rep[m++] = i;
			*hops += len;
		}
		dist[i] = tab[h];
		mult[dist[i]]++;
	}
	return m;
}

/* Per-switch blocks of (distinct path, port), each in distinct order, then
 * the split graph from them (see the file's comment), then degrees. */
static int build_graph(struct ibr_lid_assigner *a,
		       const struct ibr_dest_paths *p, struct graph *g,
		       struct ibr_error *err)
{
	const uint32_t *rep = a->rep.p;
	uint32_t m = g->m, W = g->W, off = 0, *grouped;
	word *U, *G;

	g->touched = reserve(&a->touched, a->num_switches, sizeof(uint32_t),
			     err);
	g->hop_d = reserve(&a->hop_d, g->hops, sizeof(uint32_t), err);
	g->hop_port = reserve(&a->hop_port, g->hops, 1, err);
	grouped = reserve(&a->grouped, m, sizeof(uint32_t), err);
	g->adj = reserve(&a->adj, (size_t)m * W, sizeof(word), err);
	g->deg = reserve(&a->deg, (size_t)2 * m, sizeof(uint32_t), err);
	g->mult = a->mult.p;
	U = reserve(&a->bits, (size_t)2 * W, sizeof(word), err);
	if (!g->touched || !g->hop_d || !g->hop_port || !grouped ||
	    !g->adj || !g->deg || !U)
		return -1;
	G = U + W;
	memset(g->adj, 0, (size_t)m * W * sizeof(word));
	memset(U, 0, (size_t)2 * W * sizeof(word));

	g->ntouched = 0;
	for (uint32_t d = 0; d < m; d++)
		for (uint32_t j = p->first[rep[d]]; j < p->first[rep[d] + 1]; j++)
			if (a->sw_cnt[p->sw[j]]++ == 0)
				g->touched[g->ntouched++] = p->sw[j];
	for (uint32_t t = 0; t < g->ntouched; t++) {
		uint32_t s = g->touched[t];
		a->sw_off[s] = off;
		off += a->sw_cnt[s];
		a->sw_cnt[s] = 0;       /* refilled below as a cursor */
	}
	for (uint32_t d = 0; d < m; d++)
		for (uint32_t j = p->first[rep[d]]; j < p->first[rep[d] + 1]; j++) {
			uint32_t s = p->sw[j], k = a->sw_off[s] + a->sw_cnt[s]++;
			g->hop_d[k] = d;
			g->hop_port[k] = p->port[j];
		}

	for (uint32_t t = 0; t < g->ntouched; t++) {
		uint32_t s = g->touched[t], base = a->sw_off[s];
		uint32_t cnt = a->sw_cnt[s], ngroups = 0;
		uint32_t gstart[257], gfill[256];
		uint8_t gport[256];
		uint32_t lo, hi;

		for (uint32_t k = 0; k < cnt; k++) {
			uint8_t port = g->hop_port[base + k];
			if (a->slot[port] == 0xFFFF) {
				a->slot[port] = (uint16_t)ngroups;
				gport[ngroups] = port;
				gstart[ngroups++] = 0;
			}
			gstart[a->slot[port]]++;
		}
		if (ngroups > 1) {
			/* Counting sort by port, stable: groups keep the
			 * distinct order. */
			uint32_t sum = 0;
			for (uint32_t q = 0; q < ngroups; q++) {
				uint32_t c = gstart[q];
				gstart[q] = gfill[q] = sum;
				sum += c;
			}
			gstart[ngroups] = sum;
			for (uint32_t k = 0; k < cnt; k++)
				grouped[gfill[a->slot[g->hop_port[base + k]]]++] =
					g->hop_d[base + k];
			/* Only the words between the switch's lowest and
			 * highest path can change. */
			lo = g->hop_d[base] / WBITS;
			hi = g->hop_d[base + cnt - 1] / WBITS;
			for (uint32_t k = 0; k < cnt; k++)
				bit_set(U, g->hop_d[base + k]);
			for (uint32_t q = 0; q < ngroups; q++) {
				for (uint32_t k = gstart[q]; k < gstart[q + 1]; k++)
					bit_set(G, grouped[k]);
				for (uint32_t w = lo; w <= hi; w++)
					G[w] = U[w] & ~G[w];
				for (uint32_t k = gstart[q]; k < gstart[q + 1]; k++) {
					word *r = row(g, grouped[k]);
					for (uint32_t w = lo; w <= hi; w++)
						r[w] |= G[w];
				}
				memset(G + lo, 0, (hi - lo + 1) * sizeof(word));
			}
			memset(U + lo, 0, (hi - lo + 1) * sizeof(word));
		}
		for (uint32_t q = 0; q < ngroups; q++)
			a->slot[gport[q]] = 0xFFFF;
	}
	g->wdeg = g->deg + m;
	for (uint32_t d = 0; d < m; d++) {
		const word *r = row(g, d);
		uint32_t c = 0, wc = 0;
		for (uint32_t w = 0; w < W; w++)
			c += (uint32_t)__builtin_popcountll(r[w]);
		FOR_BITS(x, r, W)
			wc += g->mult[x];
		g->deg[d] = c;
		g->wdeg[d] = wc;
	}
	return 0;
}

/* sw_cnt must be all zero between calls. */
static void release_switches(struct ibr_lid_assigner *a, const struct graph *g)
{
	for (uint32_t t = 0; t < g->ntouched; t++)
		a->sw_cnt[g->touched[t]] = 0;
}

/* ----------------------------------------------------------- heuristics */

/* Greedy merge (Fig. 6) of items, each a set of distinct paths that never
 * split (single paths for greedy, the split phase's sets for Fig. 7), in
 * the order given: a configuration is opened, every item left that splits
 * from no path in it joins, and so on until none is left.  Conflicts of a
 * configuration are kept as the OR of its members' rows.  Returns k. */
static uint32_t greedy_merge(const struct graph *g, uint32_t nitems,
			     const uint32_t *istart, const uint32_t *member,
			     word *conflict, bool *done, uint32_t *col)
{
	uint32_t k = 0, left = nitems, W = g->W;

	memset(done, 0, nitems * sizeof(*done));
	while (left > 0) {
		memset(conflict, 0, (size_t)W * sizeof(word));
		for (uint32_t it = 0; it < nitems; it++) {
			bool fits = !done[it];
			for (uint32_t x = istart[it]; fits && x < istart[it + 1]; x++)
				fits = !bit_get(conflict, member[x]);
			if (!fits)
				continue;
			for (uint32_t x = istart[it]; x < istart[it + 1]; x++) {
				const word *r = row(g, member[x]);
				for (uint32_t w = 0; w < W; w++)
					conflict[w] |= r[w];
				col[member[x]] = k;
			}
			done[it] = true;
			left--;
		}
		k++;
	}
	return k;
}

static int run_greedy(struct ibr_lid_assigner *a, const struct graph *g,
		      uint32_t *col, uint32_t *k, struct ibr_error *err)
{
	uint32_t m = g->m;
	uint32_t *istart = reserve(&a->istart, m + 1, sizeof(uint32_t), err);
	uint32_t *member = reserve(&a->imember, m, sizeof(uint32_t), err);
	bool *done = reserve(&a->rank, m, sizeof(bool), err);
	word *conflict = reserve(&a->bits, (size_t)2 * g->W, sizeof(word), err);

	if (!istart || !member || !done || !conflict)
		return -1;
	for (uint32_t d = 0; d <= m; d++)
		istart[d] = d;
	for (uint32_t d = 0; d < m; d++)
		member[d] = d;
	*k = greedy_merge(g, m, istart, member, conflict, done, col);
	return 0;
}

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

static int cmp_sm(const void *x, const void *y)
{
	const struct sm_entry *a = x, *b = y;

	if (a->item != b->item)
		return a->item < b->item ? -1 : 1;
	if (a->port != b->port)
		return a->port < b->port ? -1 : 1;
	return a->d < b->d ? -1 : a->d > b->d;
}

/* Split-merge (Fig. 7).  Split phase: the switches are taken by the
 * number of distinct paths crossing them, fewest first (/S) or most first
 * (/L), ties to the lower switch index; at each, every item is cut by the
 * port its paths take there.  A path that does not cross the switch
 * cannot split there from anyone, so it stays where it is: with the
 * largest port group of its item (ties to the group holding the lowest
 * path), which keeps that group's item number while every other group
 * becomes a new item.  (Giving the paths that miss the switch an item of
 * their own would cut every item down to identical paths, i.e. greedy.)
 * Switches where all paths leave by one port are cut nowhere.  Merge
 * phase: greedy over the items ordered by their lowest path. */
static int run_split_merge(struct ibr_lid_assigner *a, const struct graph *g,
			   bool largest_first, uint32_t *col, uint32_t *k,
			   struct ibr_error *err)
{
	uint32_t m = g->m, nitems = 1;
	uint64_t *order = reserve(&a->order, g->ntouched, sizeof(uint64_t), err);
	uint32_t *item = reserve(&a->item, m, sizeof(uint32_t), err);
	struct sm_entry *e = reserve(&a->sm, m, sizeof(*e), err);
	uint32_t *rank, *istart, *member;
	word *conflict;
	bool *done;

	if (!order || !item || !e)
		return -1;
	for (uint32_t t = 0; t < g->ntouched; t++) {
		uint32_t s = g->touched[t], c = a->sw_cnt[s];
		order[t] = (uint64_t)(largest_first ? UINT32_MAX - c : c) << 32 | s;
	}
	qsort(order, g->ntouched, sizeof(*order), cmp_u64);
	for (uint32_t d = 0; d < m; d++)
		item[d] = 0;

	for (uint32_t t = 0; t < g->ntouched; t++) {
		uint32_t s = (uint32_t)order[t], base = a->sw_off[s];
		uint32_t cnt = a->sw_cnt[s];

		for (uint32_t x = 0; x < cnt; x++) {
			e[x].d = g->hop_d[base + x];
			e[x].port = g->hop_port[base + x];
			e[x].item = item[e[x].d];
		}
		qsort(e, cnt, sizeof(*e), cmp_sm);
		for (uint32_t i0 = 0, i1; i0 < cnt; i0 = i1) {
			uint32_t keep = i0, keep_len = 0;

			for (i1 = i0; i1 < cnt && e[i1].item == e[i0].item; i1++)
				;
			if (e[i0].port == e[i1 - 1].port)
				continue;       /* one port: no cut */
			/* largest group; ties to the lowest first path */
			for (uint32_t r0 = i0, r1; r0 < i1; r0 = r1) {
				for (r1 = r0; r1 < i1 && e[r1].port == e[r0].port; r1++)
					;
				if (r1 - r0 > keep_len ||
				    (r1 - r0 == keep_len && e[r0].d < e[keep].d)) {
					keep = r0;
					keep_len = r1 - r0;
				}
			}
			for (uint32_t r0 = i0, r1; r0 < i1; r0 = r1) {
				for (r1 = r0; r1 < i1 && e[r1].port == e[r0].port; r1++)
					;
				if (r0 == keep)
					continue;
				for (uint32_t x = r0; x < r1; x++)
					item[e[x].d] = nitems;
				nitems++;
			}
		}
	}

	/* Items in order of their lowest path, members in distinct order. */
	rank = reserve(&a->rank, nitems > m ? nitems : m, sizeof(uint32_t), err);
	istart = reserve(&a->istart, nitems + 1, sizeof(uint32_t), err);
	member = reserve(&a->imember, m, sizeof(uint32_t), err);
	conflict = reserve(&a->bits, (size_t)2 * g->W, sizeof(word), err);
	if (!rank || !istart || !member || !conflict)
		return -1;
	for (uint32_t it = 0; it < nitems; it++)
		rank[it] = UINT32_MAX;
	memset(istart, 0, (nitems + 1) * sizeof(*istart));
	for (uint32_t d = 0, r = 0; d < m; d++) {
		if (rank[item[d]] == UINT32_MAX)
			rank[item[d]] = r++;
		istart[rank[item[d]] + 1]++;
	}
	for (uint32_t it = 0; it < nitems; it++)
		istart[it + 1] += istart[it];
	for (uint32_t d = 0; d < m; d++)
		member[istart[rank[item[d]]]++] = d;
	for (uint32_t it = nitems; it > 0; it--)   /* undo the cursor shift */
		istart[it] = istart[it - 1];
	istart[0] = 0;
	/* rank is no longer needed: its memory serves as done[]. */
	done = (bool *)rank;
	*k = greedy_merge(g, nitems, istart, member, conflict, done, col);
	return 0;
}

/* color/L and color/S (Fig. 9).  Round c: the working graph is the
 * uncoloured paths; the path of largest (smallest) degree in it, ties to
 * the lower index, takes colour c and leaves it with its neighbours; until
 * it is empty.
 *
 * A path's degree is the number of uncoloured paths it splits with, §VI's
 * "paths that split with the largest number of other paths are colored
 * first": colouring a path lowers its neighbours' degrees, dropping a
 * neighbour from the working graph does not.  (Degrees within the working
 * graph, the other reading of line (5), put color/L further above the
 * ILP on Table IV's configurations than the paper's own figures.)  The
 * paper's split graph has a node per input path, so a
 * degree counts a distinct neighbour as many times as input paths follow
 * it (mult); twins have the same neighbours and take one colour in the
 * paper's algorithm too.
 *
 * Within a round the degrees of the paths still in the working graph do
 * not change (colouring v lowers the degrees of v's neighbours, and they
 * leave the working graph with it), so the round takes its paths in one
 * order fixed at its start: by degree, then index.  Sorting them once a
 * round replaces a scan of the working graph per path coloured (at 1024
 * switches two thirds of colorl's colouring time). */
static int run_color(struct ibr_lid_assigner *a, const struct graph *g,
		     bool largest_first, uint32_t *col, uint32_t *k,
		     struct ibr_error *err)
{
	uint32_t m = g->m, W = g->W, left = m, c = 0;
	uint32_t *deg = reserve(&a->degw, m, sizeof(uint32_t), err);
	uint64_t *order = reserve(&a->order, m, sizeof(uint64_t), err);
	word *unc = reserve(&a->bits, (size_t)2 * W, sizeof(word), err);
	word *work;

	if (!deg || !order || !unc)
		return -1;
	work = unc + W;
	memset(unc, 0, (size_t)W * sizeof(word));
	for (uint32_t d = 0; d < m; d++) {
		bit_set(unc, d);
		deg[d] = g->wdeg[d];
	}
	while (left > 0) {
		uint32_t n = 0;

		memcpy(work, unc, (size_t)W * sizeof(word));
		FOR_BITS(x, unc, W)
			order[n++] = (uint64_t)(largest_first ?
						UINT32_MAX - deg[x] : deg[x])
				     << 32 | x;
		qsort(order, n, sizeof(*order), cmp_u64);
		for (uint32_t i = 0; i < n; i++) {
			uint32_t v = (uint32_t)order[i];
			const word *rv;

			if (!bit_get(work, v))
				continue;       /* a neighbour took c */
			col[v] = c;
			left--;
			bit_clear(unc, v);
			bit_clear(work, v);
			rv = row(g, v);
			for (uint32_t w = 0; w < W; w++) {
				word x = rv[w] & unc[w];
				work[w] &= ~rv[w];
				while (x) {
					deg[w * WBITS + (uint32_t)__builtin_ctzll(x)] -=
						g->mult[v];
					x &= x - 1;
				}
			}
		}
		c++;
	}
	*k = c;
	return 0;
}

/* A clique of the split graph, grown greedily: from each of the (up to 16)
 * paths of highest degree, repeatedly add the candidate with the most
 * neighbours among the candidates (ties to the lower index), candidates
 * being the common neighbours of the clique so far.  Any clique bounds k
 * from below; stops early once `enough` is reached.  Returns its size,
 * the clique in clq[]. */
static uint32_t greedy_clique(struct ibr_lid_assigner *a, const struct graph *g,
			      uint32_t enough, uint32_t *clq,
			      struct ibr_error *err, bool *fail)
{
	uint32_t m = g->m, W = g->W, best = 0, nstarts;
	uint64_t *order = reserve(&a->order, m, sizeof(uint64_t), err);
	uint32_t *cur = reserve(&a->tmp, m, sizeof(uint32_t), err);
	word *cand = reserve(&a->bits, (size_t)2 * W, sizeof(word), err);

	*fail = !order || !cur || !cand;
	if (*fail || m == 0)
		return 0;
	for (uint32_t d = 0; d < m; d++)
		order[d] = (uint64_t)(UINT32_MAX - g->deg[d]) << 32 | d;
	qsort(order, m, sizeof(*order), cmp_u64);
	nstarts = m < 16 ? m : 16;
	for (uint32_t t = 0; t < nstarts && best < enough; t++) {
		uint32_t v = (uint32_t)order[t], size = 0;

		if (g->deg[v] + 1 <= best)
			break;          /* sorted: nobody later does better */
		memcpy(cand, row(g, v), (size_t)W * sizeof(word));
		cur[size++] = v;
		for (;;) {
			uint32_t u = UINT32_MAX, ubest = 0;
			FOR_BITS(x, cand, W) {
				const word *rx = row(g, x);
				uint32_t c = 0;
				for (uint32_t w = 0; w < W; w++)
					c += (uint32_t)__builtin_popcountll(rx[w] & cand[w]);
				if (u == UINT32_MAX || c > ubest) {
					u = x;
					ubest = c;
				}
			}
			if (u == UINT32_MAX)
				break;
			cur[size++] = u;
			const word *ru = row(g, u);
			for (uint32_t w = 0; w < W; w++)
				cand[w] &= ru[w];
		}
		if (size > best) {
			best = size;
			memcpy(clq, cur, size * sizeof(*clq));
		}
	}
	return best;
}

/* ------------------------------------------------------------------ ILP */

#ifdef HAVE_GLPK

enum ilp_answer { ILP_FEASIBLE, ILP_INFEASIBLE, ILP_UNKNOWN, ILP_ERROR };

static bool proper(const struct graph *g, const uint32_t *col, uint32_t K)
{
	for (uint32_t d = 0; d < g->m; d++) {
		if (col[d] >= K)
			return false;
		FOR_BITS(e, row(g, d), g->W)
			if (col[e] == col[d])
				return false;
	}
	return true;
}

/* SD(K) (§IV): x[d][c] binary, variable 1 + d*K + c; one colour per path
 * (row = 1); split paths never share a colour (x[p][c] + x[q][c] <= 1 per
 * edge and colour).  The clique's paths are fixed to colours 0..w-1 (w <=
 * K): any colouring can be renamed so, and it removes the w! symmetric
 * copies the branch and bound would otherwise explore.  No objective: the
 * first integer point ends the search. */
static enum ilp_answer ilp_decide_body(struct ibr_lid_assigner *a,
				       const struct graph *g, uint32_t K,
				       const uint32_t *clq, uint32_t w,
				       int tm_ms, uint32_t *col,
				       struct ibr_error *err)
{
	uint32_t m = g->m;
	size_t edges = 0, nnz, z = 0;
	int *ia, *ja, ret, st;
	double *ar;
	glp_prob *P;
	glp_iocp parm;
	enum ilp_answer ans = ILP_UNKNOWN;

	for (uint32_t d = 0; d < m; d++)
		edges += g->deg[d];
	edges /= 2;
	nnz = (size_t)m * K + 2 * edges * K;
	if ((uint64_t)m * K + edges * K >= INT_MAX || nnz >= INT_MAX) {
		ibr_error_set(err, "lid assignment: ILP of %u paths, %zu splits "
			      "and %u colours is too large for GLPK", m, edges, K);
		return ILP_ERROR;
	}
	ia = reserve(&a->ia, nnz + 1, sizeof(int), err);
	ja = reserve(&a->ja, nnz + 1, sizeof(int), err);
	ar = reserve(&a->ar, nnz + 1, sizeof(double), err);
	if (!ia || !ja || !ar)
		return ILP_ERROR;

	P = glp_create_prob();
	glp_set_obj_dir(P, GLP_MIN);
	glp_add_cols(P, (int)(m * K));
	for (int j = 1; j <= (int)(m * K); j++)
		glp_set_col_kind(P, j, GLP_BV);
	for (uint32_t i = 0; i < w; i++)
		glp_set_col_bnds(P, (int)(1 + clq[i] * K + i), GLP_FX, 1.0, 1.0);
	glp_add_rows(P, (int)(m + edges * K));
	for (uint32_t d = 0; d < m; d++) {
		glp_set_row_bnds(P, (int)(1 + d), GLP_FX, 1.0, 1.0);
		for (uint32_t c = 0; c < K; c++) {
			z++;
			ia[z] = (int)(1 + d);
			ja[z] = (int)(1 + d * K + c);
			ar[z] = 1.0;
		}
	}
	{
		int r = (int)m;
		for (uint32_t d = 0; d < m; d++)
			FOR_BITS(e, row(g, d), g->W) {
				if (e < d)
					continue;
				for (uint32_t c = 0; c < K; c++) {
					r++;
					glp_set_row_bnds(P, r, GLP_UP, 0.0, 1.0);
					ia[++z] = r;
					ja[z] = (int)(1 + d * K + c);
					ar[z] = 1.0;
					ia[++z] = r;
					ja[z] = (int)(1 + e * K + c);
					ar[z] = 1.0;
				}
			}
	}
	glp_load_matrix(P, (int)nnz, ia, ja, ar);

	glp_init_iocp(&parm);
	parm.msg_lev = GLP_MSG_OFF;
	parm.presolve = GLP_ON;
	parm.tm_lim = tm_ms;
	ret = glp_intopt(P, &parm);
	st = glp_mip_status(P);
	if ((ret == 0 || ret == GLP_ETMLIM) &&
	    (st == GLP_OPT || st == GLP_FEAS)) {
		for (uint32_t d = 0; d < m; d++) {
			col[d] = UINT32_MAX;
			for (uint32_t c = 0; c < K; c++)
				if (glp_mip_col_val(P, (int)(1 + d * K + c)) > 0.5)
					col[d] = c;
		}
		/* GLPK's word is checked, not trusted: a point that is no
		 * proper colouring proves nothing. */
		ans = proper(g, col, K) ? ILP_FEASIBLE : ILP_UNKNOWN;
	} else if ((ret == 0 && st == GLP_NOFEAS) || ret == GLP_ENOPFS) {
		ans = ILP_INFEASIBLE;
	}
	glp_delete_prob(P);
	return ans;
}

static void glpk_error_hook(void *info)
{
	longjmp(*(jmp_buf *)info, 1);
}

/* GLPK reports its internal errors (including running out of memory) by
 * aborting the process, unless a hook leaves by longjmp; then its whole
 * environment must be freed (GLPK reference, glp_error_hook). */
static enum ilp_answer ilp_decide(struct ibr_lid_assigner *a,
				  const struct graph *g, uint32_t K,
				  const uint32_t *clq, uint32_t w, int tm_ms,
				  uint32_t *col, struct ibr_error *err)
{
	jmp_buf jb;
	enum ilp_answer ans;

	a->glpk_used = true;
	if (setjmp(jb)) {
		glp_free_env();
		ibr_error_set(err, "lid assignment: GLPK failed (internal "
			      "error or no memory) solving SD(%u) over %u "
			      "paths", K, g->m);
		return ILP_ERROR;
	}
	glp_term_out(GLP_OFF);
	glp_error_hook(glpk_error_hook, &jb);
	ans = ilp_decide_body(a, g, K, clq, w, tm_ms, col, err);
	glp_error_hook(NULL, NULL);
	return ans;
}

/* Renumbers colours 0..k-1 in order of first use by distinct index;
 * returns k. */
static uint32_t compact(uint32_t *col, uint32_t m, uint32_t *map, uint32_t K)
{
	uint32_t k = 0;

	for (uint32_t c = 0; c < K; c++)
		map[c] = UINT32_MAX;
	for (uint32_t d = 0; d < m; d++) {
		if (map[col[d]] == UINT32_MAX)
			map[col[d]] = k++;
		col[d] = map[col[d]];
	}
	return k;
}

#endif /* HAVE_GLPK */

/* -------------------------------------------------------------- the API */

static int run_heuristic(struct ibr_lid_assigner *a, const struct graph *g,
			 enum ibr_lid_heuristic h, uint32_t *col, uint32_t *k,
			 struct ibr_error *err)
{
	switch (h) {
	case IBR_LA_GREEDY:
		return run_greedy(a, g, col, k, err);
	case IBR_LA_SPLIT_MERGE_S:
		return run_split_merge(a, g, false, col, k, err);
	case IBR_LA_SPLIT_MERGE_L:
		return run_split_merge(a, g, true, col, k, err);
	case IBR_LA_COLOR_S:
		return run_color(a, g, false, col, k, err);
	case IBR_LA_COLOR_L:
		return run_color(a, g, true, col, k, err);
	default:
		return ibr_error_set(err, "lid assignment: heuristic %d "
				     "unknown", (int)h);
	}
}

/* The ILP (§VI-B): the best heuristic's colouring (color/L first among
 * equals) is the start; SD(k-1), SD(k-2), ... are solved while the clique
 * bound w leaves room (SD(w-1) is infeasible without asking).  A feasible
 * answer may use fewer colours than asked; the next question starts below
 * what it used.  The time limit covers all questions of the destination;
 * GLPK checks it during branch and bound only, so building a model and its
 * root LP may overrun it. */
static int run_ilp(struct ibr_lid_assigner *a, const struct graph *g,
		   const struct ibr_lid_assign_options *o, uint32_t *col,
		   uint32_t *k, bool *exact, struct ibr_error *err)
{
#ifdef HAVE_GLPK
	static const enum ibr_lid_heuristic start[] = {
		IBR_LA_COLOR_L, IBR_LA_GREEDY, IBR_LA_SPLIT_MERGE_L,
		IBR_LA_SPLIT_MERGE_S, IBR_LA_COLOR_S,
	};
	uint32_t m = g->m, w, hk;
	uint32_t *tmp = reserve(&a->best, (size_t)2 * m, sizeof(uint32_t), err);
	uint32_t *clq = reserve(&a->clique, m, sizeof(uint32_t), err);
	uint32_t *map;
	double t0 = ibr_now_ms(), budget;
	bool fail;

	if (!tmp || !clq)
		return -1;
	map = tmp + m;
	*k = UINT32_MAX;
	for (unsigned i = 0; i < sizeof(start) / sizeof(start[0]); i++) {
		if (run_heuristic(a, g, start[i], tmp, &hk, err))
			return -1;
		if (hk < *k) {
			*k = hk;
			memcpy(col, tmp, m * sizeof(*col));
		}
	}
	w = greedy_clique(a, g, *k, clq, err, &fail);
	if (fail)
		return -1;
	*exact = *k <= 1 || w == *k;
	budget = o->ilp_seconds > 0 ? o->ilp_seconds * 1e3 : INT_MAX;
	while (!*exact) {
		double left = budget - (ibr_now_ms() - t0);
		int tm = left >= INT_MAX ? INT_MAX : (int)left;

		if (tm <= 0)
			break;          /* out of time: keep what we have */
		switch (ilp_decide(a, g, *k - 1, clq, w, tm, tmp, err)) {
		case ILP_FEASIBLE:
			*k = compact(tmp, m, map, *k - 1);
			memcpy(col, tmp, m * sizeof(*col));
			*exact = *k == w;
			break;
		case ILP_INFEASIBLE:
			*exact = true;
			break;
		case ILP_UNKNOWN:
			return 0;
		case ILP_ERROR:
			return -1;
		}
	}
	return 0;
#else
	(void)a; (void)g; (void)o; (void)col; (void)k; (void)exact;
	return ibr_error_set(err, "lid assignment: the ILP needs GLPK, and "
			     "this build has none (install libglpk-dev and "
			     "run configure again), or choose a heuristic "
			     "such as color/L");
#endif
}

int ibr_lid_assign(struct ibr_lid_assigner *a, const struct ibr_dest_paths *p,
		   const struct ibr_lid_assign_options *o, uint32_t *color,
		   uint32_t *k, bool *exact, struct ibr_error *err)
{
	struct graph g = { 0 };
	uint32_t m, kk = 0, *dcol;
	bool ex = false;
	int rc = -1;

	if ((unsigned)o->heuristic >= IBR_LA_COUNT)
		return ibr_error_set(err, "lid assignment: heuristic %d "
				     "unknown", (int)o->heuristic);
#ifndef HAVE_GLPK
	if (o->heuristic == IBR_LA_ILP)
		return run_ilp(a, &g, o, color, k, exact, err);
#endif
	m = dedupe(a, p, &g.hops, err);
	if (m == UINT32_MAX)
		return -1;
	g.m = m;
	g.W = (m + WBITS - 1) / WBITS;
	dcol = reserve(&a->col, m, sizeof(uint32_t), err);
	if (dcol == NULL || build_graph(a, p, &g, err))
		goto out;

	if (m == 0) {
		kk = 0;
		ex = true;
	} else if (o->heuristic == IBR_LA_ILP) {
		if (run_ilp(a, &g, o, dcol, &kk, &ex, err))
			goto out;
	} else {
		if (run_heuristic(a, &g, o->heuristic, dcol, &kk, err))
			goto out;
		ex = kk <= 1;
		if (!ex && exact != NULL) {
			uint32_t *clq = reserve(&a->clique, m, sizeof(uint32_t), err);
			bool fail = clq == NULL;
			uint32_t w = fail ? 0 : greedy_clique(a, &g, kk, clq, err, &fail);
			if (fail)
				goto out;
			ex = w == kk;
		}
	}
	for (uint32_t i = 0; i < p->num_paths; i++)
		color[i] = dcol[((const uint32_t *)a->dist.p)[i]];
	*k = kk;
	if (exact != NULL)
		*exact = ex;
	rc = 0;
out:
	release_switches(a, &g);
	return rc;
}
