/*
 * random.c - random irregular fabrics: a random spanning tree plus random extra
 * links until the average degree reaches `deg`, with the link hash that
 * keeps parallel links the exception.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"

/* ---- random: link list with an adjacency multiset ------------------- */

struct links {
	uint32_t (*e)[2];         /* e[i] = {a, b}, creation order */
	uint32_t n;
	uint64_t *hkey;           /* open addressing, UINT64_MAX = empty */
	uint32_t *hcnt;           /* links between the pair (0 after rewire) */
	uint32_t hmask;
};

static uint64_t pair_key(uint32_t a, uint32_t b)
{
	return a < b ? (uint64_t)a << 32 | b : (uint64_t)b << 32 | a;
}

/* The slot holding the pair, or the empty one where it would go. */
static uint32_t hslot(const struct links *ls, uint64_t key)
{
	uint32_t i = (uint32_t)((key * 0x9E3779B97F4A7C15ull) >> 32) & ls->hmask;

	while (ls->hkey[i] != key && ls->hkey[i] != UINT64_MAX)
		i = (i + 1) & ls->hmask;
	return i;
}

static uint32_t adjacent(const struct links *ls, uint32_t a, uint32_t b)
{
	uint32_t i = hslot(ls, pair_key(a, b));

	return ls->hkey[i] == UINT64_MAX ? 0 : ls->hcnt[i];
}

static void adj_change(struct links *ls, uint32_t a, uint32_t b, int delta)
{
	uint64_t key = pair_key(a, b);
	uint32_t i = hslot(ls, key);

	if (ls->hkey[i] == UINT64_MAX) {
		ls->hkey[i] = key;
		ls->hcnt[i] = 0;
	}
	ls->hcnt[i] += delta;
}

/* Room for `max` links; every link ever made (rewires included) adds at
 * most one key, and there are at most 2*max of those: load stays <= 1/2. */
static int links_init(struct links *ls, uint32_t max)
{
	uint32_t size = 16;

	while (size < 4 * (uint64_t)max)
		size *= 2;
	ls->n = 0;
	ls->hmask = size - 1;
	ls->e = malloc((max ? max : 1) * sizeof(*ls->e));
	ls->hkey = malloc(size * sizeof(*ls->hkey));
	ls->hcnt = malloc(size * sizeof(*ls->hcnt));
	if (!ls->e || !ls->hkey || !ls->hcnt)
		return -1;
	memset(ls->hkey, 0xFF, size * sizeof(*ls->hkey));
	return 0;
}

static void links_free(struct links *ls)
{
	free(ls->e);
	free(ls->hkey);
	free(ls->hcnt);
}

/* ---- random: the switch graph --------------------------------------- */

struct rnd {
	struct gen *g;
	uint32_t sw;              /* switches */
	uint32_t want;            /* links to make */
	struct links ls;
	uint32_t *cap;            /* free switch-link ports per switch */
	uint32_t *open, *pos;     /* switches with cap > 0, and their index */
	uint32_t nopen;
};

static void open_add(struct rnd *r, uint32_t s)
{
	r->pos[s] = r->nopen;
	r->open[r->nopen++] = s;
}

/* One port of s is taken; a full switch leaves the open set. */
static void use_port(struct rnd *r, uint32_t s)
{
	if (--r->cap[s] == 0) {
		uint32_t last = r->open[--r->nopen];
		r->open[r->pos[s]] = last;
		r->pos[last] = r->pos[s];
	}
}

static void add_link(struct rnd *r, uint32_t a, uint32_t b)
{
	r->ls.e[r->ls.n][0] = a;
	r->ls.e[r->ls.n][1] = b;
	r->ls.n++;
	adj_change(&r->ls, a, b, +1);
	use_port(r, a);
	use_port(r, b);
}

/* Link k becomes (a,u) and (b,v) is appended: u and v keep their degree,
 * a and b gain one.  Connectivity survives even if (u,v) was a bridge
 * because a and b are adjacent (or equal) and u-a, v-b now hold. */
static void rewire(struct rnd *r, uint32_t k, uint32_t a, uint32_t u,
		   uint32_t b, uint32_t v)
{
	adj_change(&r->ls, u, v, -1);
	r->ls.e[k][0] = a;
	r->ls.e[k][1] = u;
	adj_change(&r->ls, a, u, +1);
	use_port(r, a);
	r->ls.e[r->ls.n][0] = b;
	r->ls.e[r->ls.n][1] = v;
	r->ls.n++;
	adj_change(&r->ls, b, v, +1);
	use_port(r, b);
}

/* Random spanning tree: each switch, in random order, hangs off a random
 * earlier one with a free port.  Switches with a single free port go last
 * (they can only be leaves).  Then, as random_check() ensured that all
 * free ports add up to 2*(sw-1) at least, the earlier switches always
 * have a free port left for the next one. */
static int random_tree(struct rnd *r, struct ibr_error *err)
{
	uint32_t *perm = gen_permutation(r->sw, &r->g->rng), *order, n = 0;

	order = malloc(r->sw * sizeof(*order));
	if (!perm || !order) {
		free(perm);
		free(order);
		return gen_oom(err);
	}
	for (uint32_t i = 0; i < r->sw; i++)
		if (r->cap[perm[i]] >= 2)
			order[n++] = perm[i];
	for (uint32_t i = 0; i < r->sw; i++)
		if (r->cap[perm[i]] < 2)
			order[n++] = perm[i];
	free(perm);
	if (r->cap[order[0]] > 0)
		open_add(r, order[0]);
	for (uint32_t i = 1; i < r->sw; i++) {
		uint32_t s = order[i];
		if (r->nopen == 0) {
			free(order);
			return ibr_error_set(err, "generate: random: internal: no "
					     "free port left for the spanning tree");
		}
		open_add(r, s);
		add_link(r, r->open[gen_rng_below(&r->g->rng, r->nopen - 1)], s);
	}
	free(order);
	return 0;
}

/* Two distinct open switches. */
static void open_pair(struct rnd *r, uint32_t *a, uint32_t *b)
{
	uint32_t i = gen_rng_below(&r->g->rng, r->nopen);
	uint32_t j = gen_rng_below(&r->g->rng, r->nopen - 1);

	*a = r->open[i];
	*b = r->open[j >= i ? j + 1 : j];
}

/* A new link between two open switches not linked yet. */
static bool try_simple_pair(struct rnd *r)
{
	uint32_t a, b;

	for (int t = 0; t < TRIES; t++) {
		open_pair(r, &a, &b);
		if (!adjacent(&r->ls, a, b)) {
			add_link(r, a, b);
			return true;
		}
	}
	if (r->nopen > SCAN_MAX)
		return false;
	for (uint32_t i = 0; i < r->nopen; i++)
		for (uint32_t j = i + 1; j < r->nopen; j++)
			if (!adjacent(&r->ls, r->open[i], r->open[j])) {
				add_link(r, r->open[i], r->open[j]);
				return true;
			}
	return false;
}

/* Open switches a, b are already linked: move a random link (u,v) to
 * (a,u) and add (b,v) when neither pair is linked yet. */
static bool try_rewire_pair(struct rnd *r)
{
	for (int t = 0; t < TRIES; t++) {
		uint32_t a, b, k = gen_rng_below(&r->g->rng, r->ls.n);
		uint32_t flip = gen_rng_below(&r->g->rng, 2);
		uint32_t u = r->ls.e[k][flip], v = r->ls.e[k][!flip];
		open_pair(r, &a, &b);
		if (u == a || u == b || v == a || v == b ||
		    adjacent(&r->ls, a, u) || adjacent(&r->ls, b, v))
			continue;
		rewire(r, k, a, u, b, v);
		return true;
	}
	return false;
}

static bool single_ok(struct rnd *r, uint32_t x, uint32_t k, bool simple)
{
	uint32_t u = r->ls.e[k][0], v = r->ls.e[k][1];

	return u != x && v != x && (!simple || (!adjacent(&r->ls, x, u) &&
						 !adjacent(&r->ls, x, v)));
}

/* A link for x to splice into: random tries for one whose ends x is not
 * linked to, then a scan for such a link, then any link not touching x. */
static bool find_splice(struct rnd *r, uint32_t x, uint32_t *k)
{
	for (int t = 0; t < TRIES; t++) {
		*k = gen_rng_below(&r->g->rng, r->ls.n);
		if (single_ok(r, x, *k, true))
			return true;
	}
	for (int simple = 1; simple >= 0; simple--)
		for (*k = 0; *k < r->ls.n; ++*k)
			if (single_ok(r, x, *k, simple))
				return true;
	return false;
}

/* Only switch x has free ports (at least two, since every link takes two
 * ports): splice x into a link (u,v) not touching it.  Such a link exists
 * because the other switches are full and their capacities are within
 * one of x's, so they cannot all be spent on links to x. */
static int rewire_single(struct rnd *r, struct ibr_error *err)
{
	uint32_t x = r->open[0], k;

	if (r->cap[x] < 2 || !find_splice(r, x, &k))
		return ibr_error_set(err, "generate: random: internal: cannot "
				     "place the last links on sw%u", x);
	rewire(r, k, x, r->ls.e[k][0], x, r->ls.e[k][1]);
	return 0;
}

/* Extra links up to `want`: simple ones first, rewiring next, a parallel
 * link only when both failed (it is unavoidable once deg > sw-1). */
static int random_extra(struct rnd *r, struct ibr_error *err)
{
	while (r->ls.n < r->want) {
		uint32_t a, b;
		if (r->nopen == 0)
			return ibr_error_set(err, "generate: random: internal: "
					     "out of ports at link %u", r->ls.n);
		if (r->nopen == 1) {
			if (rewire_single(r, err))
				return -1;
			continue;
		}
		if (try_simple_pair(r) || try_rewire_pair(r))
			continue;
		open_pair(r, &a, &b);
		add_link(r, a, b);
	}
	return 0;
}

/* Ports must hold every CA port plus both ends of every link; CA counts
 * differ by one at most, so the total is the whole story. */
static int random_check(struct gen *g, uint32_t want, struct ibr_error *err)
{
	uint64_t sw = g->v[K_SW], deg = g->v[K_DEG];
	uint64_t ca_ports = g->v[K_CA] * g->v[K_CAPORTS];
	uint64_t need = (2 * (uint64_t)want + ca_ports + sw - 1) / sw;

	if (sw == 1 && deg > 0)
		return ibr_error_set(err, "generate: random: deg=%llu needs sw >= 2 "
				     "(one switch has no switch links; use deg=0)",
				     (unsigned long long)deg);
	if (deg * sw < 2 * (sw - 1))
		return ibr_error_set(err, "generate: random: deg=%llu cannot connect "
				     "sw=%llu switches: a spanning tree alone has "
				     "average degree %.2f", (unsigned long long)deg,
				     (unsigned long long)sw, 2.0 * (sw - 1) / sw);
	if (g->v[K_PORTS] < need)
		return ibr_error_set(err, "generate: random: deg=%llu needs ports >= "
				     "%llu with sw=%llu ca=%llu caports=%llu, got "
				     "ports=%llu", (unsigned long long)deg,
				     (unsigned long long)need, (unsigned long long)sw,
				     (unsigned long long)g->v[K_CA],
				     (unsigned long long)g->v[K_CAPORTS],
				     (unsigned long long)g->v[K_PORTS]);
	return gen_check_ca_guids(g, g->v[K_CA], err);
}

/* Nodes and ports from the link list: links first, in creation order. */
static int random_emit(struct rnd *r, const uint32_t *ca_order,
		       const struct gen_link *cut, struct ibr_error *err)
{
	struct gen *g = r->g;
	char desc[32];

	for (uint32_t s = 0; s < r->sw; s++) {
		snprintf(desc, sizeof(desc), "sw%u", s);
		if (gen_add_switch(g, (unsigned)g->v[K_PORTS], desc, err))
			return -1;
		g->next_port[s] = 1;
	}
	for (uint32_t i = 0; i < r->ls.n; i++) {
		uint32_t a = r->ls.e[i][0], b = r->ls.e[i][1];
		if (cut && cut[i].broken) {
			/* its ports stay dark: the rest is cabled as whole */
			g->next_port[a]++;
			g->next_port[b]++;
		} else if (gen_link_next(g, a, b, err)) {
			return -1;
		}
	}
	return gen_attach_cas(g, g->v[K_CA], ca_order, r->sw, err);
}

/* cut=N: the links to break, drawn after everything else, so the whole
 * fabric is the same spec's without cut (*cut NULL when N is 0). */
static int random_cut(struct rnd *r, struct gen_link **cut,
		      struct ibr_error *err)
{
	*cut = NULL;
	if (r->g->v[K_CUT] == 0)
		return 0;
	*cut = calloc(r->ls.n ? r->ls.n : 1, sizeof(**cut));
	if (!*cut)
		return gen_oom(err);
	for (uint32_t i = 0; i < r->ls.n; i++) {
		(*cut)[i].a = r->ls.e[i][0];
		(*cut)[i].b = r->ls.e[i][1];
	}
	return gen_break_links(r->g, K_CUT, *cut, r->ls.n, r->sw, err);
}

int gen_random_build(struct gen *g, struct ibr_error *err)
{
	struct rnd r = { .g = g, .sw = (uint32_t)g->v[K_SW] };
	uint64_t ca_ports = g->v[K_CA] * g->v[K_CAPORTS];
	uint32_t *ca_order = NULL;
	struct gen_link *cut = NULL;
	int rc = -1;

	/* ceil: the average degree reaches deg; never below the tree's
	 * sw-1 links, as random_check() rejects such a deg */
	r.want = (uint32_t)((g->v[K_DEG] * r.sw + 1) / 2);
	if (random_check(g, r.want, err))
		return -1;
	r.cap = malloc(r.sw * sizeof(*r.cap));
	r.open = malloc(r.sw * sizeof(*r.open));
	r.pos = malloc(r.sw * sizeof(*r.pos));
	g->next_port = malloc(r.sw);
	ca_order = gen_permutation(r.sw, &g->rng);
	if (links_init(&r.ls, r.want) || !r.cap || !r.open || !r.pos ||
	    !g->next_port || !ca_order) {
		gen_oom(err);
		goto out;
	}
	for (uint32_t i = 0; i < r.sw; i++)
		r.cap[ca_order[i]] = (uint32_t)g->v[K_PORTS] -
				     gen_ca_ports_at(ca_ports, r.sw, i);
	if (random_tree(&r, err) == 0 && random_extra(&r, err) == 0 &&
	    random_cut(&r, &cut, err) == 0)
		rc = random_emit(&r, ca_order, cut, err);
out:
	free(cut);
	links_free(&r.ls);
	free(r.cap);
	free(r.open);
	free(r.pos);
	free(ca_order);
	return rc;
}
