/*
 * test_paths.c - path computation (paths.h) on generated fabrics.
 *
 * Every scheme, on random, clos and torus fabrics (switch pairs, and CA
 * pairs on the small ones):
 *   - units are exactly the pairs paths.h promises, sorted by destination
 *     then source;
 *   - every unit's path is a chain of real links (followed through the
 *     fabric's ports, not sw_adj) from the source's switch to the
 *     destination's switch, legal (no up link after a down link, against
 *     ibr_link_is_up) and loop-free;
 *   - shortest-widest and path selection with k=1 are as short as a BFS
 *     over (switch, phase) finds; every path selection path is at most as
 *     long as the longest of the unit's k shortest;
 *   - two runs give identical results.
 * On fabrics of at most SMALL switches, references built here by plain
 * enumeration of the legal loop-free paths (DFS over ports) replay the
 * rules exactly and must agree path for path: shortest-widest (units in
 * order, weights 1 + flows, least weight, ties to the smaller sequence of
 * ports) and path selection (the k first paths by (length, ports), then
 * most-loaded-link-first with exact loads, the most loaded channel by
 * (switch, port) on ties); the candidate count is checked against the
 * enumeration.
 * Loads (flows per channel) against FERa's on random 64/512 are printed.
 * Every allocation failing in turn gives -1, a message and no result.
 * Under a root set where some switch pairs have no legal route, those
 * pairs are no units.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "failing_alloc.h"
#include "fixtures.h"
#include "legal_ref.h"
#include "ibrouting/engine.h"
#include "ibrouting/paths.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define SMALL 32           /* switches: references by enumeration */
#define MAXLEN 64          /* links of a path in the references */
#define SHARES 720720u     /* lcm(1..16) */
#define TOLERANCE 64       /* mllf.c: loads within 1/64 of the heaviest */

static const char *const specs[] = {
	"random:sw=8,ca=16,seed=1",      "random:sw=16,ca=128,seed=1",
	"random:sw=24,ca=48,seed=4",     "random:sw=32,ca=256,seed=2",
	"random:sw=40,ca=40,deg=8,seed=13", "random:sw=48,ca=96,deg=6,seed=8",
	"random:sw=64,ca=128,deg=3,seed=9", "random:sw=64,ca=512,seed=1",
	"random:sw=2,ca=4,deg=1,seed=1", "random:sw=1,ca=8,deg=0,seed=1",
	"random:sw=3,ca=0,deg=2,seed=2",
	"clos:leaf=4,spine=2,ca=32,seed=1", "clos:leaf=8,spine=4,ca=128,seed=2",
	"clos:leaf=12,spine=6,ca=100,seed=4",
	"torus:dims=4x4,ca=1,broken=0,seed=1", "torus:dims=4x4,ca=2,broken=3,seed=2",
	"torus:dims=6x6,ca=1,broken=5,seed=3", "torus:dims=3x3x3,ca=1,broken=0,seed=5",
	"torus:dims=2x2x2,ca=3,broken=1,seed=9", "torus:dims=10x2,ca=1,broken=2,seed=10",
	"torus:dims=8x8,ca=1,broken=12,seed=11",
};

/* CA pairs too on these (few CAs) */
static const char *const per_ca_specs[] = {
	"random:sw=8,ca=16,seed=1", "random:sw=24,ca=48,seed=4",
	"clos:leaf=4,spine=2,ca=32,seed=1", "torus:dims=4x4,ca=2,broken=3,seed=2",
	"torus:dims=2x2x2,ca=3,broken=1,seed=9", "random:sw=1,ca=8,deg=0,seed=1",
};

struct fab {
	struct ibr_fabric *f;
	struct ibr_route_ctx ctx;
	const struct ibr_updown *ud;
	uint32_t *peer;         /* [switch * 256 + port]: switch, IBR_NONE */
};

static uint32_t peer_switch(const struct ibr_fabric *f, uint32_t s,
			    unsigned port);

/* x on fabric f (x's to free), under the roots `root` gives. */
static void fab_open_with(struct fab *x, struct ibr_fabric *f,
			  enum ibr_root_strategy strategy, const char *what)
{
	struct ibr_root_choice root = { .guid = 0, .strategy = strategy };
	struct ibr_error err = { "" };

	x->f = f;
	assert_int_equal(ibr_ctx_init(&x->ctx, x->f, &root, NULL, &err), 0);
	x->ud = ibr_ctx_updown(&x->ctx, &err);
	if (!x->ud)
		fail_msg("%s: %s", what, err.msg);
	x->peer = malloc((size_t)x->f->num_switches * 256 * sizeof(uint32_t));
	assert_non_null(x->peer);
	for (uint32_t sw = 0; sw < x->f->num_switches; sw++)
		for (unsigned q = 0; q < 256; q++)
			x->peer[sw * 256 + q] = peer_switch(x->f, sw, q);
}

static void fab_open(struct fab *x, const char *spec)
{
	fab_open_with(x, generated_fabric(spec, 0), IBR_ROOT_SM, spec);
}

static void fab_close(struct fab *x)
{
	free(x->peer);
	ibr_ctx_free(&x->ctx);
	ibr_fabric_free(x->f);
}

static void compute_with(const struct fab *x,
			 const struct ibr_path_options *o,
			 struct ibr_paths *p, const char *what)
{
	struct ibr_error err = { "" };

	if (ibr_paths_compute(x->f, x->ud, o, p, &err))
		fail_msg("%s: %s", what, err.msg);
}

static void compute(const struct fab *x, enum ibr_path_scheme scheme,
		    unsigned k, bool per_ca, struct ibr_paths *p,
		    const char *what)
{
	struct ibr_path_options o = { .scheme = scheme, .k = k,
				      .per_ca = per_ca, .threads = 1 };

	compute_with(x, &o, p, what);
}

static uint32_t cas_on(const struct ibr_fabric *f, uint32_t s)
{
	return f->sw_ca_start[s + 1] - f->sw_ca_start[s];
}

static uint64_t unit_flows(const struct ibr_fabric *f,
			   const struct ibr_paths *p, uint32_t u)
{
	return p->per_ca ? 1 : (uint64_t)cas_on(f, p->src[u]) * cas_on(f, p->dst[u]);
}

/* The switch index behind port `port` of switch s, IBR_NONE if none. */
static uint32_t peer_switch(const struct ibr_fabric *f, uint32_t s,
			    unsigned port)
{
	const struct ibr_node *n = ibr_switch(f, s);
	const struct ibr_port *p;

	if (port < 1 || port > n->num_ports)
		return IBR_NONE;
	p = ibr_port(f, f->sw_node[s], port);
	if (p->remote_node == IBR_NONE ||
	    f->nodes[p->remote_node].type != IBR_NODE_SWITCH)
		return IBR_NONE;
	return f->nodes[p->remote_node].sw_index;
}

/* Exactly the units paths.h promises, in its order: every pair, or with
 * the climb sets cl those whose switches have a legal route. */
static void assert_units(const struct ibr_fabric *f, const struct ibr_paths *p,
			 const struct ibr_climb *cl, const char *what)
{
	uint32_t u = 0;

	if (p->per_ca) {
		for (uint32_t d = 0; d < f->num_end_ports; d++)
			for (uint32_t s = 0; s < f->num_end_ports; s++) {
				if (f->end_ports[s].sw == f->end_ports[d].sw ||
				    (cl && !ibr_climb_meet(cl, f->end_ports[s].sw,
							   f->end_ports[d].sw)))
					continue;
				assert_true(u < p->num_units);
				if (p->src[u] != s || p->dst[u] != d)
					fail_msg("%s: unit %u is %u->%u, expected "
						 "%u->%u", what, u, p->src[u],
						 p->dst[u], s, d);
				u++;
			}
	} else {
		for (uint32_t d = 0; d < f->num_switches; d++)
			for (uint32_t s = 0; s < f->num_switches; s++) {
				if (s == d || !cas_on(f, s) || !cas_on(f, d) ||
				    (cl && !ibr_climb_meet(cl, s, d)))
					continue;
				assert_true(u < p->num_units);
				assert_int_equal(p->src[u], s);
				assert_int_equal(p->dst[u], d);
				u++;
			}
	}
	assert_int_equal(u, p->num_units);
	assert_int_equal(p->first[0], 0);
	for (u = 0; u < p->num_units; u++)
		assert_true(p->first[u] < p->first[u + 1]);
}

/* Unit u's path: a chain of links from its source's switch to its
 * destination's, legal, no switch twice.  Returns its length. */
static uint32_t assert_path(const struct fab *x, const struct ibr_paths *p,
			    uint32_t u, uint8_t *seen, const char *what)
{
	const struct ibr_fabric *f = x->f;
	uint32_t s = ibr_unit_src_switch(f, p, u), d = ibr_unit_dst_switch(f, p, u);
	int went_down = 0;

	memset(seen, 0, f->num_switches);
	seen[s] = 1;
	for (uint32_t h = p->first[u]; h < p->first[u + 1]; h++) {
		uint32_t y = peer_switch(f, s, p->hop_port[h]);
		int up;
		if (p->hop_sw[h] != s || y == IBR_NONE)
			fail_msg("%s: unit %u hop %u: switch %u port %u is no "
				 "link of the chain", what, u, h - p->first[u],
				 p->hop_sw[h], p->hop_port[h]);
		up = ibr_link_is_up(f, x->ud, s, y);
		if (up && went_down)
			fail_msg("%s: unit %u turns down->up at switch %u", what,
				 u, s);
		if (seen[y])
			fail_msg("%s: unit %u visits switch %u twice", what, u, y);
		went_down |= !up;
		seen[y] = 1;
		s = y;
	}
	if (s != d)
		fail_msg("%s: unit %u ends at switch %u, not %u", what, u, s, d);
	return p->first[u + 1] - p->first[u];
}


/* ---- references by enumeration --------------------------------------- */

struct rpath {
	uint32_t len;
	uint32_t sw[MAXLEN];
	uint8_t port[MAXLEN];
};

struct rlist {
	struct rpath *v;
	uint32_t n, cap;
};

static void rlist_push(struct rlist *l, const struct rpath *p)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 64;
		l->v = realloc(l->v, l->cap * sizeof(*l->v));
		assert_non_null(l->v);
	}
	l->v[l->n++] = *p;
}

/* Every legal loop-free path from where cur stands to d of at most
 * `bound` links, ports in increasing order at every switch. */
static void enumerate(const struct fab *x, struct rpath *cur, uint32_t at,
		      int descending, uint32_t d, uint32_t bound,
		      uint8_t *on, struct rlist *out)
{
	const struct ibr_fabric *f = x->f;

	if (at == d) {
		rlist_push(out, cur);
		return;
	}
	if (cur->len == bound)
		return;
	on[at] = 1;
	for (unsigned q = 1; q <= ibr_switch(f, at)->num_ports; q++) {
		uint32_t y = x->peer[at * 256 + q];
		int up;
		if (y == IBR_NONE || on[y])
			continue;
		up = ibr_link_is_up(f, x->ud, at, y);
		if (up && descending)
			continue;
		cur->sw[cur->len] = at;
		cur->port[cur->len++] = (uint8_t)q;
		enumerate(x, cur, y, !up, d, bound, on, out);
		cur->len--;
	}
	on[at] = 0;
}

static int rpath_cmp(const void *a, const void *b)
{
	const struct rpath *p = a, *q = b;

	if (p->len != q->len)
		return p->len < q->len ? -1 : 1;
	return memcmp(p->port, q->port, p->len);
}

/* The legal loop-free paths s -> d by (length, ports), at least k of
 * them when there are (all of the lengths needed), from length min_len. */
static void k_shortest(const struct fab *x, uint32_t s, uint32_t d,
		       uint32_t min_len, unsigned k, uint8_t *on,
		       struct rlist *out)
{
	struct rpath cur = { 0 };

	for (uint32_t bound = min_len;; bound++) {
		out->n = 0;
		enumerate(x, &cur, s, 0, d, bound, on, out);
		if (out->n >= k || bound + 1 >= x->f->num_switches ||
		    bound + 1 >= MAXLEN)
			break;
	}
	qsort(out->v, out->n, sizeof(*out->v), rpath_cmp);
}

static int same_path(const struct ibr_paths *p, uint32_t u,
		     const struct rpath *r)
{
	uint32_t a = p->first[u];

	if (p->first[u + 1] - a != r->len)
		return 0;
	for (uint32_t i = 0; i < r->len; i++)
		if (p->hop_sw[a + i] != r->sw[i] || p->hop_port[a + i] != r->port[i])
			return 0;
	return 1;
}

/* Channel (switch, port) as one index, in sw_adj's order. */
static size_t chan(uint32_t sw, uint8_t port)
{
	return (size_t)sw * 256 + port;
}

/* Shortest-widest replayed: every unit, in order, takes the least heavy
 * minimal legal path, ties to the smaller port sequence. */
static void assert_widest_reference(const struct fab *x,
				    const struct ibr_paths *p, const char *what)
{
	const struct ibr_fabric *f = x->f;
	uint32_t S = f->num_switches, *len = malloc(S * S * sizeof(uint32_t));
	uint64_t *weight = malloc(S * 256 * sizeof(uint64_t));
	uint8_t *on = calloc(S, 1);
	struct rlist *minimal = calloc(S * S, sizeof(*minimal));

	assert_true(len && weight && on && minimal);
	for (uint32_t s = 0; s < S; s++)
		legal_lengths(f, x->ud, s, len + (size_t)s * S);
	for (size_t c = 0; c < (size_t)S * 256; c++)
		weight[c] = 1;
	for (uint32_t u = 0; u < p->num_units; u++) {
		uint32_t s = ibr_unit_src_switch(f, p, u), d = ibr_unit_dst_switch(f, p, u);
		struct rlist l = minimal[s * S + d];
		struct rpath cur = { 0 };
		uint64_t best = UINT64_MAX;
		uint32_t pick = 0;
		if (!l.n) { /* the minimal paths s -> d, by ports */
			enumerate(x, &cur, s, 0, d, len[(size_t)s * S + d], on, &l);
			qsort(l.v, l.n, sizeof(*l.v), rpath_cmp);
			minimal[s * S + d] = l;
		}
		for (uint32_t i = 0; i < l.n; i++) {
			uint64_t sum = 0;
			for (uint32_t h = 0; h < l.v[i].len; h++)
				sum += weight[chan(l.v[i].sw[h], l.v[i].port[h])];
			if (sum < best) {
				best = sum;
				pick = i;
			}
		}
		assert_true(l.n > 0);
		if (!same_path(p, u, &l.v[pick]))
			fail_msg("%s: shortest-widest unit %u (%u->%u) differs from "
				 "the reference (of %u minimal paths)", what, u,
				 p->src[u], p->dst[u], l.n);
		for (uint32_t h = 0; h < l.v[pick].len; h++)
			weight[chan(l.v[pick].sw[h], l.v[pick].port[h])] +=
				unit_flows(f, p, u);
	}
	for (uint32_t g = 0; g < S * S; g++)
		free(minimal[g].v);
	free(minimal);
	free(len);
	free(weight);
	free(on);
}

/* The reference's pairs are p's units (switch pairs, or CA pairs sharing
 * their switch pair's candidates), in p's order, which is the engine's
 * group order; a unit's candidates alive start at base[u]. */
struct ref_sel {
	const struct ibr_fabric *f;
	const struct ibr_paths *p;
	uint32_t S;
	struct rlist *cand;          /* per switch pair s * S + d */
	uint32_t *base;              /* per unit */
	uint8_t *alive;
	uint64_t *load;              /* per chan(), S * 256 */
	uint8_t *dead;
};

static const struct rlist *ref_cands(const struct ref_sel *r, uint32_t u)
{
	return &r->cand[ibr_unit_src_switch(r->f, r->p, u) * r->S +
			ibr_unit_dst_switch(r->f, r->p, u)];
}

static uint64_t ref_flows(const struct ref_sel *r, uint32_t u)
{
	if (r->p->per_ca)
		return 1;
	return (uint64_t)cas_on(r->f, r->p->src[u]) * cas_on(r->f, r->p->dst[u]);
}

/* Channel loads as the rule defines them: each unit's flows spread over
 * its candidates alive, in 1/SHARES of a flow; recomputed from scratch. */
static void ref_loads(struct ref_sel *r)
{
	memset(r->load, 0, (size_t)r->S * 256 * sizeof(uint64_t));
	for (uint32_t u = 0; u < r->p->num_units; u++) {
		const struct rlist *l = ref_cands(r, u);
		const uint8_t *alive = r->alive + r->base[u];
		uint32_t left = 0;
		for (uint32_t i = 0; i < l->n; i++)
			left += alive[i];
		for (uint32_t i = 0; i < l->n; i++)
			for (uint32_t h = 0; alive[i] && h < l->v[i].len; h++)
				r->load[chan(l->v[i].sw[h], l->v[i].port[h])] +=
					ref_flows(r, u) * (SHARES / left);
	}
}

/* Of unit u's candidates alive (left), how many cross channel c (in). */
static void ref_crossing(const struct ref_sel *r, uint32_t u, size_t c,
			 uint32_t *in, uint32_t *left)
{
	const struct rlist *l = ref_cands(r, u);

	*in = *left = 0;
	for (uint32_t i = 0; i < l->n; i++) {
		int crosses = 0;
		if (!r->alive[r->base[u] + i])
			continue;
		++*left;
		for (uint32_t h = 0; h < l->v[i].len; h++)
			crosses |= chan(l->v[i].sw[h], l->v[i].port[h]) == c;
		*in += crosses;
	}
}

static uint64_t ref_top(const struct ref_sel *r)
{
	uint64_t top = 0;

	for (size_t i = 0; i < (size_t)r->S * 256; i++)
		if (!r->dead[i] && r->load[i] > top)
			top = r->load[i];
	return top;
}

/* Path selection replayed: candidates by enumeration, most-loaded-link-
 * first naively (loads recomputed at every step): at the heaviest
 * channel (lowest index on ties), the units crossing it and not only it,
 * with the most candidates left, lose the crossing ones, one by one in
 * unit order while the channel stays within 1/TOLERANCE of the heaviest
 * load; a channel where no unit qualifies is dropped for good. */
static void assert_selection_reference(const struct fab *x,
				       const struct ibr_paths *p, unsigned k,
				       const char *what)
{
	const struct ibr_fabric *f = x->f;
	uint32_t S = f->num_switches, *len = malloc(S * S * sizeof(uint32_t));
	struct ref_sel r = { f, p, S, calloc(S * S, sizeof(struct rlist)),
			     calloc(p->num_units + 1, sizeof(uint32_t)), NULL,
			     malloc(S * 256 * sizeof(uint64_t)), calloc(S * 256, 1) };
	uint8_t *on = calloc(S, 1);
	uint64_t candidates = 0;
	uint32_t total = 0, multi = 0;

	assert_true(len && r.cand && r.base && r.load && r.dead && on);
	for (uint32_t s = 0; s < S; s++)
		legal_lengths(f, x->ud, s, len + (size_t)s * S);
	for (uint32_t d = 0; d < S; d++)
		for (uint32_t s = 0; s < S; s++) {
			struct rlist *l = &r.cand[s * S + d];
			if (s == d || !cas_on(f, s) || !cas_on(f, d))
				continue;
			k_shortest(x, s, d, len[(size_t)s * S + d], k, on, l);
			if (l->n > k)
				l->n = k;
		}
	for (uint32_t u = 0; u < p->num_units; u++) {
		r.base[u] = total;
		total += ref_cands(&r, u)->n;
		multi += ref_cands(&r, u)->n > 1;
	}
	r.alive = malloc(total ? total : 1);
	assert_non_null(r.alive);
	memset(r.alive, 1, total ? total : 1);
	while (multi) {
		size_t best = SIZE_MAX;
		uint32_t most = 0, in, left;
		ref_loads(&r);
		for (size_t i = 0; i < (size_t)S * 256; i++)
			if (!r.dead[i] && (best == SIZE_MAX || r.load[i] > r.load[best]))
				best = i;
		assert_true(best != SIZE_MAX);
		for (uint32_t u = 0; u < p->num_units; u++) {
			ref_crossing(&r, u, best, &in, &left);
			if (in && in < left && left > most)
				most = left;
		}
		if (most == 0) {
			r.dead[best] = 1;
			continue;
		}
		for (uint32_t u = 0; u < p->num_units; u++) {
			const struct rlist *l = ref_cands(&r, u);
			uint64_t top;
			ref_crossing(&r, u, best, &in, &left);
			if (!in || in == left || left != most)
				continue;
			ref_loads(&r);
			top = ref_top(&r);
			if (r.load[best] < top - top / TOLERANCE)
				break;
			for (uint32_t i = 0; i < l->n; i++)
				for (uint32_t h = 0; h < l->v[i].len; h++)
					if (chan(l->v[i].sw[h], l->v[i].port[h]) == best)
						r.alive[r.base[u] + i] = 0;
			multi -= left - in == 1;
		}
	}
	for (uint32_t u = 0; u < p->num_units; u++) {
		const struct rlist *l = ref_cands(&r, u);
		uint32_t i = 0;
		while (!r.alive[r.base[u] + i])
			i++;
		candidates += l->n;
		if (!same_path(p, u, &l->v[i]))
			fail_msg("%s: path selection unit %u (%u->%u) differs from "
				 "the reference", what, u, p->src[u], p->dst[u]);
	}
	assert_int_equal(p->candidates, candidates);
	for (uint32_t g = 0; g < S * S; g++)
		free(r.cand[g].v);
	free(r.cand);
	free(r.alive);
	free(r.base);
	free(r.load);
	free(r.dead);
	free(len);
	free(on);
}

/* ---- checks per fabric ------------------------------------------------- */

static void assert_same(const struct ibr_paths *a, const struct ibr_paths *b)
{
	assert_int_equal(a->num_units, b->num_units);
	assert_int_equal(a->candidates, b->candidates);
	assert_memory_equal(a->src, b->src, a->num_units * sizeof(uint32_t));
	assert_memory_equal(a->dst, b->dst, a->num_units * sizeof(uint32_t));
	assert_memory_equal(a->first, b->first, (a->num_units + 1) * sizeof(uint32_t));
	assert_memory_equal(a->hop_sw, b->hop_sw, a->first[a->num_units] * sizeof(uint32_t));
	assert_memory_equal(a->hop_port, b->hop_port, a->first[a->num_units]);
}

/* One scheme on one fabric: structure, lengths, determinism, and the
 * references on small fabrics. */
static void check_scheme(const struct fab *x, enum ibr_path_scheme scheme,
			 unsigned k, bool per_ca, const char *spec)
{
	const struct ibr_fabric *f = x->f;
	uint32_t S = f->num_switches, *len = malloc(S * sizeof(uint32_t));
	uint8_t *seen = malloc(S);
	struct ibr_paths p, again;
	char what[200];
	uint32_t last = IBR_NONE;

	assert_true(len && seen);
	snprintf(what, sizeof(what), "%s %s k=%u%s", spec,
		 ibr_path_scheme_name(scheme), k, per_ca ? " per CA" : "");
	compute(x, scheme, k, per_ca, &p, what);
	assert_int_equal(p.per_ca, per_ca);
	assert_units(f, &p, NULL, what);
	for (uint32_t u = 0; u < p.num_units; u++) {
		uint32_t s = ibr_unit_src_switch(f, &p, u), n;
		if (s != last)
			legal_lengths(f, x->ud, s, len);
		last = s;
		n = assert_path(x, &p, u, seen, what);
		if ((scheme == IBR_PATHS_SHORTEST_WIDEST || k == 1) &&
		    n != len[ibr_unit_dst_switch(f, &p, u)])
			fail_msg("%s: unit %u has %u links, the shortest legal "
				 "route %u", what, u, n,
				 len[ibr_unit_dst_switch(f, &p, u)]);
	}
	if (scheme == IBR_PATHS_SELECTION) {
		assert_true(p.candidates >= p.num_units);
		assert_true(p.candidates <= (uint64_t)k * p.num_units);
	} else {
		assert_int_equal(p.candidates, 0);
	}
	compute(x, scheme, k, per_ca, &again, what);
	assert_same(&p, &again);
	if (S <= SMALL && (!per_ca || f->num_end_ports <= 64)) {
		if (scheme == IBR_PATHS_SHORTEST_WIDEST)
			assert_widest_reference(x, &p, what);
		else
			assert_selection_reference(x, &p, k, what);
	}
	ibr_paths_free(&again);
	ibr_paths_free(&p);
	free(len);
	free(seen);
}

/* The up links list exactly the sw_adj entries that point up, in order,
 * and the all-down and legal distances swept over them are the
 * reference's (legal_ref.h): the lengths every engine's candidates rest
 * on. */
static void test_distances_over_up_links(void **state)
{
	(void)state;
	for (unsigned i = 0; i < N(specs); i++) {
		struct fab x;
		fab_open(&x, specs[i]);
		const struct ibr_fabric *f = x.f;
		uint32_t S = f->num_switches, links = f->sw_adj_start[S], n = 0;
		uint8_t *link_up = malloc(links ? links : 1);
		uint32_t *down = malloc(S * sizeof(uint32_t));
		uint32_t *legal = malloc(S * sizeof(uint32_t));
		uint32_t *queue = malloc(S * sizeof(uint32_t));
		uint32_t *ref = malloc((size_t)S * S * sizeof(uint32_t));
		struct ibr_up_links up = { 0 };

		assert_true(link_up && down && legal && queue && ref);
		ibr_updown_link_flags(f, x.ud, link_up);
		assert_int_equal(ibr_up_links_build(f, link_up, &up), 0);
		for (uint32_t s = 0; s < S; s++) {
			assert_int_equal(up.start[s], n);
			for (uint32_t j = f->sw_adj_start[s];
			     j < f->sw_adj_start[s + 1]; j++) {
				if (!link_up[j])
					continue;
				assert_int_equal(up.at[n].link, j);
				assert_int_equal(up.at[n].peer, f->sw_adj[j].peer);
				assert_int_equal(up.at[n].port, f->sw_adj[j].port);
				n++;
			}
		}
		assert_int_equal(up.start[S], n);
		for (uint32_t s = 0; s < S; s++)
			legal_lengths(f, x.ud, s, &ref[(size_t)s * S]);
		for (uint32_t d = 0; d < S; d++) {
			uint32_t reached = ibr_down_distances(&up, S, d, down,
							      queue);
			ibr_legal_distances(&up, x.ud, down, legal);
			assert_int_equal(queue[0], d);
			for (uint32_t s = 0, in_d = 0; s < S; s++) {
				uint32_t want = ref[(size_t)s * S + d];
				if (legal[s] != want)
					fail_msg("%s: legal distance %u -> %u is "
						 "%u, the reference's %u",
						 specs[i], s, d, legal[s], want);
				/* an all-down route is legal: never shorter */
				assert_true(down[s] >= legal[s]);
				in_d += down[s] != IBR_FAR;
				if (s == S - 1)
					assert_int_equal(in_d, reached);
			}
		}
		ibr_up_links_free(&up);
		free(link_up);
		free(down);
		free(legal);
		free(queue);
		free(ref);
		fab_close(&x);
	}
}

static void test_families(void **state)
{
	(void)state;
	for (unsigned i = 0; i < N(specs); i++) {
		struct fab x;
		fab_open(&x, specs[i]);
		check_scheme(&x, IBR_PATHS_SHORTEST_WIDEST, 16, false, specs[i]);
		check_scheme(&x, IBR_PATHS_SELECTION, 16, false, specs[i]);
		check_scheme(&x, IBR_PATHS_SELECTION, 1, false, specs[i]);
		check_scheme(&x, IBR_PATHS_SELECTION, 4, false, specs[i]);
		fab_close(&x);
	}
	print_message("paths: %zu fabrics, shortest-widest and path selection "
		      "(k 16, 4, 1)\n", N(specs));
}

static void test_per_ca(void **state)
{
	(void)state;
	for (unsigned i = 0; i < N(per_ca_specs); i++) {
		struct fab x;
		fab_open(&x, per_ca_specs[i]);
		check_scheme(&x, IBR_PATHS_SHORTEST_WIDEST, 16, true, per_ca_specs[i]);
		check_scheme(&x, IBR_PATHS_SELECTION, 16, true, per_ca_specs[i]);
		check_scheme(&x, IBR_PATHS_SELECTION, 1, true, per_ca_specs[i]);
		fab_close(&x);
	}
}

/* A torus has many shortest paths: most pairs get all k candidates. */
static void test_torus_candidates(void **state)
{
	static const char *const tori[] = {
		"torus:dims=4x4,ca=1,broken=0,seed=1",
		"torus:dims=8x8,ca=1,broken=12,seed=11",
	};
	static const unsigned at_least[] = { 4, 8 }; /* per pair, on average */

	(void)state;
	for (unsigned i = 0; i < N(tori); i++) {
		struct fab x;
		struct ibr_paths p;
		fab_open(&x, tori[i]);
		compute(&x, IBR_PATHS_SELECTION, 16, false, &p, tori[i]);
		print_message("%s: %.2f candidates per pair\n", tori[i],
			      (double)p.candidates / p.num_units);
		assert_true(p.candidates >= (uint64_t)at_least[i] * p.num_units);
		ibr_paths_free(&p);
		fab_close(&x);
	}
}

/* Flows per inter-switch channel of a set of unit paths: the largest. */
static uint64_t paths_max_load(const struct ibr_fabric *f,
			       const struct ibr_paths *p)
{
	uint64_t *load = calloc((size_t)f->num_switches * 256, sizeof(uint64_t));
	uint64_t max = 0;

	assert_non_null(load);
	for (uint32_t u = 0; u < p->num_units; u++)
		for (uint32_t h = p->first[u]; h < p->first[u + 1]; h++) {
			size_t c = chan(p->hop_sw[h], p->hop_port[h]);
			load[c] += unit_flows(f, p, u);
			if (load[c] > max)
				max = load[c];
		}
	free(load);
	return max;
}

/* The same for FERa's tables: every CA pair on different switches walks
 * the destination's base LID from the source's switch. */
static uint64_t fera_max_load(struct fab *x)
{
	const struct ibr_fabric *f = x->f;
	uint64_t *load = calloc((size_t)f->num_switches * 256, sizeof(uint64_t));
	struct ibr_error err = { "" };
	struct ibr_result r;
	uint64_t max = 0;

	assert_non_null(load);
	if (ibr_route(&x->ctx, ibr_engine_find("fera"), &r, &err))
		fail_msg("fera: %s", err.msg);
	for (uint32_t d = 0; d < f->num_end_ports; d++) {
		ibr_lid_t lid = ibr_end_port_lid(f, d);
		for (uint32_t s = 0; s < f->num_end_ports; s++) {
			uint32_t sw = f->end_ports[s].sw, steps = 0;
			while (sw != f->end_ports[d].sw) {
				uint8_t port = ibr_entry(&r, sw, lid);
				size_t c = chan(sw, port);
				if (++load[c] > max)
					max = load[c];
				sw = peer_switch(f, sw, port);
				assert_true(sw != IBR_NONE && ++steps <= f->num_switches);
			}
		}
	}
	ibr_result_free(&r);
	free(load);
	return max;
}

/* Load balance against FERa on random 64/512: printed; the balanced
 * schemes must not be worse than twice FERa (a sanity bound only). */
static void test_loads(void **state)
{
	static const char *const randoms[] = {
		"random:sw=64,ca=512,seed=1", "random:sw=64,ca=512,seed=2",
		"random:sw=64,ca=512,seed=3",
	};

	(void)state;
	for (unsigned i = 0; i < N(randoms); i++) {
		struct fab x;
		struct ibr_paths sw, ps;
		uint64_t fera, lsw, lps;
		fab_open(&x, randoms[i]);
		compute(&x, IBR_PATHS_SHORTEST_WIDEST, 16, false, &sw, randoms[i]);
		compute(&x, IBR_PATHS_SELECTION, 16, false, &ps, randoms[i]);
		fera = fera_max_load(&x);
		lsw = paths_max_load(x.f, &sw);
		lps = paths_max_load(x.f, &ps);
		print_message("%s: max link load fera %llu, shortest-widest %llu "
			      "(%.2fx), path selection %llu (%.2fx)\n", randoms[i],
			      (unsigned long long)fera, (unsigned long long)lsw,
			      (double)lsw / fera, (unsigned long long)lps,
			      (double)lps / fera);
		assert_true(lsw <= 2 * fera && lps <= 2 * fera);
		ibr_paths_free(&sw);
		ibr_paths_free(&ps);
		fab_close(&x);
	}
}

static void test_options(void **state)
{
	struct fab x;
	struct ibr_paths p;
	struct ibr_path_options o = { .scheme = IBR_PATHS_SELECTION, .k = 0, .threads = 1 };
	struct ibr_error err = { "" };
	enum ibr_path_scheme s;

	(void)state;
	fab_open(&x, "random:sw=8,ca=16,seed=1");
	assert_int_equal(ibr_paths_compute(x.f, x.ud, &o, &p, &err), -1);
	assert_non_null(strstr(err.msg, "k=0"));
	assert_null(p.src);
	o.k = 17;
	assert_int_equal(ibr_paths_compute(x.f, x.ud, &o, &p, &err), -1);
	fab_close(&x);

	assert_int_equal(ibr_path_scheme_parse("sw", &s), 0);
	assert_int_equal(s, IBR_PATHS_SHORTEST_WIDEST);
	assert_int_equal(ibr_path_scheme_parse("path-selection", &s), 0);
	assert_int_equal(s, IBR_PATHS_SELECTION);
	assert_int_equal(ibr_path_scheme_parse("ps", &s), 0);
	assert_int_equal(ibr_path_scheme_parse(ibr_path_scheme_name(IBR_PATHS_SHORTEST_WIDEST), &s), 0);
	assert_int_equal(s, IBR_PATHS_SHORTEST_WIDEST);
	assert_int_equal(ibr_path_scheme_parse("widest", &s), -1);
	assert_int_equal(ibr_path_scheme_parse(NULL, &s), -1);
}

/* The runs of the tests below: a generated fabric, with the scheme or
 * path selection's k, and switch or CA pairs as units. */
struct scheme_run {
	const char *spec;
	enum ibr_path_scheme scheme;
	bool per_ca;
};

struct k_run {
	const char *spec;
	unsigned k;
	bool per_ca;
};

/* Every allocation of a run failing in turn: -1 with a message, the
 * result left empty (valgrind sees nothing leaked). */
static void test_allocation_failures(void **state)
{
	static const struct scheme_run runs[] = {
		/* 24/48 doubles its lists of walks */
		{ "random:sw=24,ca=48,seed=4", IBR_PATHS_SELECTION, false },
		/* in 3 parts (o.parts below) */
		{ "random:sw=24,ca=48,seed=4", IBR_PATHS_SELECTION, false },
		{ "random:sw=24,ca=48,seed=4", IBR_PATHS_SHORTEST_WIDEST, false },
		{ "random:sw=8,ca=16,seed=1", IBR_PATHS_SELECTION, true },
		{ "random:sw=8,ca=16,seed=1", IBR_PATHS_SHORTEST_WIDEST, true },
		/* in 3 batches, with 2 parts, and of CA pairs */
		{ "random:sw=24,ca=48,seed=4", IBR_PATHS_SELECTION, false },
		{ "random:sw=8,ca=16,seed=1", IBR_PATHS_SELECTION, true },
	};
	static const unsigned parts[N(runs)] = { 0, 3, 0, 0, 0, 2, 0 };
	static const unsigned batches[N(runs)] = { 0, 0, 0, 0, 0, 3, 3 };

	(void)state;
	for (unsigned r = 0; r < N(runs); r++) {
		struct ibr_path_options o = { .scheme = runs[r].scheme, .k = 16,
					      .per_ca = runs[r].per_ca,
					      .threads = 1,
					      .parts = parts[r],
					      .batches = batches[r] };
		struct ibr_error err = { "" };
		struct ibr_paths p;
		struct fab x;
		long total;
		fab_open(&x, runs[r].spec);
		failing_alloc_arm(-1);
		assert_int_equal(ibr_paths_compute(x.f, x.ud, &o, &p, &err), 0);
		total = failing_alloc_disarm();
		ibr_paths_free(&p);
		assert_true(total > 5);
		for (long k = 0; k < total; k++) {
			memset(&err, 0, sizeof(err));
			failing_alloc_arm(k);
			assert_int_equal(ibr_paths_compute(x.f, x.ud, &o, &p, &err), -1);
			failing_alloc_disarm();
			assert_non_null(strstr(err.msg, "out of memory"));
			assert_null(p.src);
			assert_null(p.hop_sw);
			assert_int_equal(p.num_units, 0);
		}
		fab_close(&x);
	}
}

/* Two results the same, array for array. */
static void assert_same_paths(const struct ibr_paths *a,
			      const struct ibr_paths *b, const char *what)
{
	if (a->num_units != b->num_units || a->candidates != b->candidates ||
	    a->per_ca != b->per_ca)
		fail_msg("%s: %u units, %llu candidates vs %u, %llu", what,
			 a->num_units, (unsigned long long)a->candidates,
			 b->num_units, (unsigned long long)b->candidates);
	if (memcmp(a->src, b->src, a->num_units * sizeof(uint32_t)) ||
	    memcmp(a->dst, b->dst, a->num_units * sizeof(uint32_t)) ||
	    memcmp(a->first, b->first, (a->num_units + 1) * sizeof(uint32_t)))
		fail_msg("%s: units differ", what);
	if (memcmp(a->hop_sw, b->hop_sw, a->first[a->num_units] * sizeof(uint32_t)) ||
	    memcmp(a->hop_port, b->hop_port, a->first[a->num_units]))
		fail_msg("%s: hops differ", what);
}

/* The candidate search over 2, 3 and 7 worker threads (waves of
 * destinations, segments appended in destination order) selects exactly
 * the paths one thread selects, switch and CA pairs, k 16 and 4. */
static void test_threads(void **state)
{
	static const struct k_run runs[] = {
		{ "random:sw=48,ca=192,seed=7", 16, false },
		{ "random:sw=24,ca=48,seed=4", 4, false },  /* lists doubled */
		{ "clos:leaf=12,spine=6,ca=100,seed=4", 16, false },
		{ "torus:dims=6x6,ca=1,broken=5,seed=3", 16, false },
		{ "random:sw=24,ca=48,seed=4", 16, true },
		{ "random:sw=1,ca=8,deg=0,seed=1", 16, false },
	};
	static const unsigned counts[] = { 2, 3, 7 };

	(void)state;
	for (unsigned r = 0; r < N(runs); r++) {
		struct fab x;
		struct ibr_paths one;
		fab_open(&x, runs[r].spec);
		compute(&x, IBR_PATHS_SELECTION, runs[r].k, runs[r].per_ca, &one,
			runs[r].spec);
		for (unsigned t = 0; t < N(counts); t++) {
			struct ibr_path_options o = {
				.scheme = IBR_PATHS_SELECTION, .k = runs[r].k,
				.per_ca = runs[r].per_ca, .threads = counts[t] };
			struct ibr_paths many;
			char what[128];
			snprintf(what, sizeof(what), "%s, %u threads",
				 runs[r].spec, counts[t]);
			compute_with(&x, &o, &many, what);
			assert_same_paths(&one, &many, what);
			ibr_paths_free(&many);
		}
		ibr_paths_free(&one);
		fab_close(&x);
	}
}

/* The caller's answers to workers_now, in turn: a count per call, the
 * last repeated; 0 stops the paths. */
struct pace {
	unsigned answers[4], calls, stop_at;   /* stop_at: 0 answered there */
};

static unsigned pace_workers(void *arg)
{
	struct pace *p = arg;
	unsigned n = p->calls++;

	if (p->stop_at && n + 1 >= p->stop_at)
		return 0;
	return p->answers[n < 4 ? n : 3];
}

/* A 0 at workers_now's question number `stop` (o paced by pace, which
 * starts over): IBR_PATHS_STOPPED, no message, no paths, no question
 * after it. */
static void assert_stopped_at(const struct fab *x,
			      const struct ibr_path_options *o,
			      struct pace *pace, unsigned stop)
{
	struct ibr_error err = { "" };
	struct ibr_paths paced;

	*pace = (struct pace){ { 1, 3, 2, 7 }, 0, stop };
	assert_int_equal(ibr_paths_compute(x->f, x->ud, o, &paced, &err),
			 IBR_PATHS_STOPPED);
	assert_string_equal(err.msg, "");
	assert_int_equal(paced.num_units, 0);
	assert_null(paced.first);
	assert_int_equal(pace->calls, stop);
}

/* workers_now (paths.h): counts that change from one wave of the search
 * to the next give the paths one thread gives; a 0 at any of its
 * questions stops the computation there with IBR_PATHS_STOPPED, no
 * message and no paths kept, for both schemes. */
static void test_workers_now(void **state)
{
	static const struct scheme_run runs[] = {
		{ "random:sw=48,ca=192,seed=7", IBR_PATHS_SELECTION, false },
		{ "random:sw=24,ca=48,seed=4", IBR_PATHS_SELECTION, true },
		{ "random:sw=24,ca=48,seed=4", IBR_PATHS_SHORTEST_WIDEST, false },
	};

	(void)state;
	for (unsigned r = 0; r < N(runs); r++) {
		struct fab x;
		struct ibr_paths one, paced;
		struct pace pace = { { 1, 3, 2, 7 }, 0, 0 };
		struct ibr_path_options o = {
			.scheme = runs[r].scheme, .k = 16,
			.per_ca = runs[r].per_ca, .threads = 7,
			.workers_now = pace_workers, .workers_arg = &pace };
		unsigned asked;
		fab_open(&x, runs[r].spec);
		compute(&x, runs[r].scheme, 16, runs[r].per_ca, &one,
			runs[r].spec);
		compute_with(&x, &o, &paced, runs[r].spec);
		assert_same_paths(&one, &paced, runs[r].spec);
		ibr_paths_free(&paced);
		asked = pace.calls;
		assert_true(asked > 2);
		/* stopped at the first question, one in the middle, the last */
		const unsigned stops[] = { 1, asked / 2, asked };
		for (unsigned i = 0; i < N(stops); i++)
			assert_stopped_at(&x, &o, &pace, stops[i]);
		ibr_paths_free(&one);
		fab_close(&x);
	}
}

/* Path selection's runs for the checks of most-loaded-link-first below:
 * random, Clos, torus and degraded fat tree, k 4 and 16, switch and CA
 * pairs, and one switch alone. */
static const struct k_run selection_runs[] = {
	{ "random:sw=64,ca=512,seed=1", 16, false },
	{ "random:sw=48,ca=192,seed=7", 4, false },
	{ "clos:leaf=12,spine=6,ca=100,seed=4", 16, false },
	{ "torus:dims=6x6,ca=1,broken=5,seed=3", 16, false },
	{ "fattree:ports=8,levels=3,broken=3,seed=2", 16, false },
	{ "random:sw=24,ca=48,seed=4", 16, true },
	{ "random:sw=1,ca=8,deg=0,seed=1", 16, false },
};

/* Most-loaded-link-first's shortcuts (a visit resumed where the last
 * one stopped; falling loads left in the heap until they reach the top)
 * select what the long way selects: every list scanned from its start,
 * every change moved in the heap. */
static void test_shortcuts_exact(void **state)
{
	const struct k_run *runs = selection_runs;

	(void)state;
	for (unsigned r = 0; r < N(selection_runs); r++) {
		struct ibr_path_options o = {
			.scheme = IBR_PATHS_SELECTION, .k = runs[r].k,
			.per_ca = runs[r].per_ca, .threads = 1,
			.exhaustive = true };
		struct ibr_paths fast, slow;
		struct fab x;
		fab_open(&x, runs[r].spec);
		compute(&x, IBR_PATHS_SELECTION, runs[r].k, runs[r].per_ca,
			&fast, runs[r].spec);
		compute_with(&x, &o, &slow, runs[r].spec);
		assert_same_paths(&fast, &slow, runs[r].spec);
		ibr_paths_free(&fast);
		ibr_paths_free(&slow);
		fab_close(&x);
	}
}

/* Past 65536 channels the packed candidates keep 32-bit channel ids
 * (paths_work.h, struct crossings): the same checks there, and the same paths
 * on 1 and 2 threads. */
static void test_wide_channel_ids(void **state)
{
	static const char spec[] = "random:sw=3500,ca=12,deg=20,seed=2";
	struct ibr_path_options o = { .scheme = IBR_PATHS_SELECTION, .k = 16, .threads = 2 };
	struct ibr_paths one, two;
	struct fab x;

	(void)state;
	fab_open(&x, spec);
	assert_true(x.f->sw_adj_start[x.f->num_switches] > 65536);
	check_scheme(&x, IBR_PATHS_SELECTION, 16, false, spec);
	compute(&x, IBR_PATHS_SELECTION, 16, false, &one, spec);
	compute_with(&x, &o, &two, spec);
	assert_same_paths(&one, &two, spec);
	ibr_paths_free(&one);
	ibr_paths_free(&two);
	fab_close(&x);
}

/* Every allocation of a threaded search failing in turn: which request a
 * number falls on depends on the scheduling, so a run may also make fewer
 * requests than the number and succeed; a failed one says "out of memory"
 * and leaves the result empty (valgrind: nothing leaked). */
static void test_threads_allocation_failures(void **state)
{
	struct ibr_path_options o = { .scheme = IBR_PATHS_SELECTION, .k = 16, .threads = 2 };
	struct ibr_error err = { "" };
	struct ibr_paths p;
	struct fab x;
	long total, failed = 0;

	(void)state;
	fab_open(&x, "random:sw=24,ca=48,seed=4");
	failing_alloc_arm(-1);
	assert_int_equal(ibr_paths_compute(x.f, x.ud, &o, &p, &err), 0);
	total = failing_alloc_disarm();
	ibr_paths_free(&p);
	for (long k = 0; k < total + 8; k++) {
		int rc;
		memset(&err, 0, sizeof(err));
		failing_alloc_arm(k);
		rc = ibr_paths_compute(x.f, x.ud, &o, &p, &err);
		if (rc == 0) {
			assert_true(failing_alloc_disarm() <= k);
			ibr_paths_free(&p);
			continue;
		}
		failing_alloc_disarm();
		failed++;
		assert_non_null(strstr(err.msg, "out of memory"));
		assert_null(p.src);
		assert_null(p.hop_sw);
		assert_int_equal(p.num_units, 0);
	}
	assert_true(failed > 5);
	fab_close(&x);
}

/* Path selection the way o says (its threads aside): every unit one
 * legal loop-free path, of the pairs promised, among as many candidates
 * as seq's (the one sequence's); the same paths on each of `counts`
 * threads as on one, and the long way's (every list from its start,
 * every change moved in the heap). */
static void assert_selection_way(const struct fab *x,
				 struct ibr_path_options o,
				 const struct ibr_paths *seq, uint8_t *seen,
				 const unsigned *counts, unsigned ncounts,
				 const char *what)
{
	struct ibr_paths one, many;

	o.threads = 1;
	compute_with(x, &o, &one, what);
	assert_units(x->f, &one, NULL, what);
	for (uint32_t u = 0; u < one.num_units; u++)
		assert_path(x, &one, u, seen, what);
	assert_true(one.candidates == seq->candidates);
	for (unsigned t = 0; t < ncounts; t++) {
		char on[200];
		o.threads = counts[t];
		snprintf(on, sizeof(on), "%s, %u threads", what, counts[t]);
		compute_with(x, &o, &many, on);
		assert_same_paths(&one, &many, on);
		ibr_paths_free(&many);
	}
	o.threads = 1;
	o.exhaustive = true;
	compute_with(x, &o, &many, what);
	assert_same_paths(&one, &many, what);
	ibr_paths_free(&many);
	ibr_paths_free(&one);
}

/* Most-loaded-link-first in parts (mllf.c, "the selection in parts";
 * o->parts): every unit one legal loop-free path, of the pairs promised;
 * the same paths on 1, 2, 3 and 7 threads, and the long way's (every list
 * from its start, every change moved in the heap) within each part; and
 * the default on these small fabrics is the one sequence, which the
 * references of check_scheme replay. */
static void test_parts(void **state)
{
	const struct k_run *runs = selection_runs;
	static const unsigned parts[] = { 2, 3, 8 };
	static const unsigned counts[] = { 2, 3, 7 };

	(void)state;
	for (unsigned r = 0; r < N(selection_runs); r++) {
		struct fab x;
		struct ibr_paths seq, one;
		uint8_t *seen;
		fab_open(&x, runs[r].spec);
		seen = malloc(x.f->num_switches);
		assert_non_null(seen);
		compute(&x, IBR_PATHS_SELECTION, runs[r].k, runs[r].per_ca,
			&seq, runs[r].spec);
		for (unsigned i = 0; i < N(parts); i++) {
			struct ibr_path_options o = {
				.scheme = IBR_PATHS_SELECTION, .k = runs[r].k,
				.per_ca = runs[r].per_ca, .parts = parts[i] };
			char what[160];
			snprintf(what, sizeof(what), "%s, %u parts",
				 runs[r].spec, parts[i]);
			assert_selection_way(&x, o, &seq, seen, counts,
					     N(counts), what);
		}
		{
			struct ibr_path_options o = {
				.scheme = IBR_PATHS_SELECTION, .k = runs[r].k,
				.per_ca = runs[r].per_ca, .threads = 3,
				.parts = 1 };
			compute_with(&x, &o, &one, runs[r].spec);
			assert_same_paths(&seq, &one, runs[r].spec);
			ibr_paths_free(&one);
		}
		ibr_paths_free(&seq);
		free(seen);
		fab_close(&x);
	}
}

/* workers_now in parts: answers that change from epoch to epoch give the
 * paths one thread gives, and a 0 at the first question, one in the
 * middle or the last stops it all with nothing kept. */
static void test_parts_workers_now(void **state)
{
	static const char spec[] = "random:sw=48,ca=192,seed=7";
	struct pace pace = { { 1, 3, 2, 7 }, 0, 0 };
	struct ibr_path_options o = { .scheme = IBR_PATHS_SELECTION, .k = 16,
				      .threads = 1, .parts = 3 };
	struct ibr_paths one, paced;
	struct fab x;
	unsigned asked;

	(void)state;
	fab_open(&x, spec);
	compute_with(&x, &o, &one, spec);
	o.threads = 7;
	o.workers_now = pace_workers;
	o.workers_arg = &pace;
	compute_with(&x, &o, &paced, spec);
	assert_same_paths(&one, &paced, spec);
	ibr_paths_free(&paced);
	asked = pace.calls;
	assert_true(asked > 4);
	const unsigned stops[] = { 1, asked / 2, asked - 1, asked };
	for (unsigned i = 0; i < N(stops); i++)
		assert_stopped_at(&x, &o, &pace, stops[i]);
	ibr_paths_free(&one);
	fab_close(&x);
}

/* The default (o->parts or o->batches 0, per `set`) on specs[0] is
 * expect[0], and selects otherwise than 1 there (the test tells them
 * apart); on specs[1] it is expect[1] (1).  k 2 keeps it quick. */
static void assert_default_count(const char *const specs_[2],
				 const unsigned expect[2],
				 void (*set)(struct ibr_path_options *, unsigned))
{
	for (unsigned r = 0; r < 2; r++) {
		struct ibr_path_options o = { .scheme = IBR_PATHS_SELECTION,
					      .k = 2, .threads = 2 };
		struct ibr_paths dflt, other;
		struct fab x;
		fab_open(&x, specs_[r]);
		compute_with(&x, &o, &dflt, specs_[r]);
		set(&o, expect[r]);
		compute_with(&x, &o, &other, specs_[r]);
		assert_same_paths(&dflt, &other, specs_[r]);
		ibr_paths_free(&other);
		if (expect[r] > 1) {
			set(&o, 1);
			compute_with(&x, &o, &other, specs_[r]);
			uint32_t hops = dflt.first[dflt.num_units];
			assert_int_equal(other.num_units, dflt.num_units);
			assert_true(other.first[other.num_units] != hops ||
				    memcmp(dflt.first, other.first,
					   (dflt.num_units + 1) *
					   sizeof(uint32_t)) ||
				    memcmp(dflt.hop_sw, other.hop_sw,
					   hops * sizeof(uint32_t)) ||
				    memcmp(dflt.hop_port, other.hop_port, hops));
			ibr_paths_free(&other);
		}
		ibr_paths_free(&dflt);
		fab_close(&x);
	}
}

static void set_parts(struct ibr_path_options *o, unsigned n)
{
	o->parts = n;
}

static void set_batches(struct ibr_path_options *o, unsigned n)
{
	o->batches = n;
}

/* From 513 switches with CAs (2^18 switch pairs) the default is 2 parts,
 * below it one sequence. */
static void test_parts_by_default(void **state)
{
	static const char *const specs_[] = {
		"random:sw=520,ca=520,deg=4,seed=3",
		"random:sw=512,ca=512,deg=4,seed=3",
	};
	static const unsigned expect[] = { 2, 1 };

	(void)state;
	assert_default_count(specs_, expect, set_parts);
}

/* Path selection in batches of destination switches (paths.c, "the
 * selection in batches"; o->batches), alone and with parts: every unit
 * one legal loop-free path, of the pairs promised, among the candidates
 * one batch finds (the same count: the search does not depend on the
 * batches); the same paths on 1, 2 and 3 threads and the long way's; more
 * batches than destination switches is a batch each.  A 0 from
 * workers_now in any batch stops it all with nothing kept. */
static void test_batches(void **state)
{
	const struct k_run *runs = selection_runs;
	static const struct { unsigned batches, parts; } ways[] = {
		{ 2, 1 }, { 3, 1 }, { 3, 2 }, { 64, 1 },
	};
	static const unsigned counts[] = { 2, 3 };

	(void)state;
	for (unsigned r = 0; r < N(selection_runs); r++) {
		struct fab x;
		struct ibr_paths seq;
		uint8_t *seen;
		fab_open(&x, runs[r].spec);
		seen = malloc(x.f->num_switches);
		assert_non_null(seen);
		compute(&x, IBR_PATHS_SELECTION, runs[r].k, runs[r].per_ca,
			&seq, runs[r].spec);
		for (unsigned i = 0; i < N(ways); i++) {
			struct ibr_path_options o = {
				.scheme = IBR_PATHS_SELECTION, .k = runs[r].k,
				.per_ca = runs[r].per_ca,
				.batches = ways[i].batches,
				.parts = ways[i].parts };
			char what[160];
			snprintf(what, sizeof(what), "%s, %u batches, %u parts",
				 runs[r].spec, ways[i].batches, ways[i].parts);
			assert_selection_way(&x, o, &seq, seen, counts,
					     N(counts), what);
		}
		ibr_paths_free(&seq);
		free(seen);
		fab_close(&x);
	}
	{
		static const char spec[] = "random:sw=48,ca=192,seed=7";
		struct pace pace = { { 1, 3, 2, 7 }, 0, 0 };
		struct ibr_path_options o = { .scheme = IBR_PATHS_SELECTION,
					      .k = 16, .threads = 1,
					      .batches = 3, .parts = 2 };
		struct ibr_paths ref, paced;
		struct fab x;
		unsigned asked;
		fab_open(&x, spec);
		compute_with(&x, &o, &ref, spec);
		o.threads = 7;
		o.workers_now = pace_workers;
		o.workers_arg = &pace;
		compute_with(&x, &o, &paced, spec);
		assert_same_paths(&ref, &paced, spec);
		ibr_paths_free(&paced);
		ibr_paths_free(&ref);
		asked = pace.calls;
		assert_true(asked > 6);
		const unsigned stops[] = { 1, asked / 3, 2 * asked / 3, asked };
		for (unsigned i = 0; i < N(stops); i++)
			assert_stopped_at(&x, &o, &pace, stops[i]);
		fab_close(&x);
	}
}

/* From 1255 switches with CAs (over 1.5 x 2^20 switch pairs) the default
 * is a batch per 1.5 x 2^20 switch pairs, below it one batch. */
static void test_batches_by_default(void **state)
{
	static const char *const specs_[] = {
		"random:sw=1255,ca=1255,deg=4,seed=3",
		"random:sw=1254,ca=1254,deg=4,seed=3",
	};
	static const unsigned expect[] = { 2, 1 };

	(void)state;
	assert_default_count(specs_, expect, set_batches);
}

/* Under a root set where some switch pairs have no legal route (the two
 * spines of a Clos, the roots under auto, each with an aggregation node:
 * fixtures.h), those pairs are no units, with either scheme and either
 * kind of unit, and every other pair has its legal path; before, both
 * schemes failed ("paths: no legal path"). */
static void test_owed_pairs_are_no_units(void **state)
{
	/* 6 switches with CAs (4 leaves of 4 hosts, 2 spines of 1): 30
	 * switch pairs, 18 x 17 - 4 x 4 x 3 CA pairs; the spines' pair owes
	 * none, each way */
	static const uint32_t units[2] = { 30 - 2, 18 * 17 - 48 - 2 };
	enum ibr_path_scheme schemes[] = { IBR_PATHS_SHORTEST_WIDEST,
					   IBR_PATHS_SELECTION };
	struct ibr_error err = { "" };
	struct ibr_climb cl;
	struct fab x;
	uint8_t *seen;

	(void)state;
	fab_open_with(&x, clos_with_aggregation_nodes(0), IBR_ROOT_AUTO,
		      "clos with aggregation nodes");
	assert_int_equal(x.ud->num_roots, 2);
	assert_int_equal(ibr_climb_build(x.f, x.ud, &cl, &err), 0);
	seen = malloc(x.f->num_switches);
	assert_non_null(seen);
	for (unsigned i = 0; i < N(schemes); i++)
		for (unsigned per_ca = 0; per_ca < 2; per_ca++) {
			struct ibr_paths p;
			char what[96];
			snprintf(what, sizeof(what), "%s, %s pairs",
				 ibr_path_scheme_name(schemes[i]),
				 per_ca ? "CA" : "switch");
			compute(&x, schemes[i], 4, per_ca, &p, what);
			assert_int_equal(p.num_units, units[per_ca]);
			assert_units(x.f, &p, &cl, what);
			for (uint32_t u = 0; u < p.num_units; u++)
				assert_path(&x, &p, u, seen, what);
			ibr_paths_free(&p);
		}
	free(seen);
	ibr_climb_free(&cl);
	fab_close(&x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_distances_over_up_links),
		cmocka_unit_test(test_families),
		cmocka_unit_test(test_per_ca),
		cmocka_unit_test(test_torus_candidates),
		cmocka_unit_test(test_loads),
		cmocka_unit_test(test_options),
		cmocka_unit_test(test_allocation_failures),
		cmocka_unit_test(test_threads),
		cmocka_unit_test(test_workers_now),
		cmocka_unit_test(test_wide_channel_ids),
		cmocka_unit_test(test_shortcuts_exact),
		cmocka_unit_test(test_threads_allocation_failures),
		cmocka_unit_test(test_parts),
		cmocka_unit_test(test_parts_workers_now),
		cmocka_unit_test(test_parts_by_default),
		cmocka_unit_test(test_batches),
		cmocka_unit_test(test_batches_by_default),
		cmocka_unit_test(test_owed_pairs_are_no_units),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
