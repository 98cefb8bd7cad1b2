/*
 * fattree.c - m-port n-trees (Lin, Chung and Huang, IPDPS 2004), the fat
 * trees of lid-assignment-color-l §VI-C (an 8-port 3-tree: 128 machines,
 * 80 switches), with random broken links that never disconnect them.
 *
 * With h = m/2, switches sit on levels 0 (roots) .. n-1 (leaves) and are
 * labelled by n-1 digits w_0 .. w_{n-2}: w_0 in [0, m) on levels 1..n-1 and
 * in [0, h) on level 0, every other digit in [0, h).  So level 0 has
 * h^(n-1) switches and every other level m * h^(n-2): (2n-1) h^(n-1) in all.
 * A switch of level l+1 links up to the h switches of level l whose label
 * differs from its own in digit l only (any digit l in [0, h)): its up
 * port h+1+x leads to the one with digit l = x, and arrives there on down
 * port w_l + 1 (1..m on a root, 1..h below).  Leaves use their h down
 * ports for one machine each: 2 h^n machines, one CA per leaf port.
 * Every switch has m ports: roots m down, the others h down and h up.
 * Extras after the machines (gen_attach_extras()): `spinehosts` CAs round
 * robin over the roots on their ports m+1.., and with `agg=1` an
 * aggregation node on every switch's last port, one more than it needs
 * otherwise.
 *
 * Switch index: level 0 first, then level 1, ...; within a level, digits
 * in mixed radix with w_0 least significant.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "gen.h"

struct tree {
	unsigned m, h, n;
	uint32_t roots, per_level;   /* switches on level 0, on each other */
	unsigned ports, root_ports;  /* of a switch, of a root (extras) */
};

static uint32_t level_start(const struct tree *t, unsigned l)
{
	return l == 0 ? 0 : t->roots + (l - 1) * t->per_level;
}

/* Digits of switch i of level l into w[0 .. n-2]. */
static void digits(const struct tree *t, unsigned l, uint32_t i, unsigned *w)
{
	for (unsigned d = 0; d + 1 < t->n; d++) {
		unsigned radix = d == 0 && l > 0 ? t->m : t->h;
		w[d] = i % radix;
		i /= radix;
	}
}

static uint32_t index_of(const struct tree *t, unsigned l, const unsigned *w)
{
	uint32_t i = 0, scale = 1;

	for (unsigned d = 0; d + 1 < t->n; d++) {
		i += w[d] * scale;
		scale *= d == 0 && l > 0 ? t->m : t->h;
	}
	return level_start(t, l) + i;
}

/* Every link, child by child: each switch of levels 1..n-1 to its h
 * parents. */
static uint32_t tree_links(const struct tree *t, struct gen_link *l)
{
	unsigned w[8], up[8];
	uint32_t n = 0;

	for (unsigned lv = 1; lv < t->n; lv++)
		for (uint32_t i = 0; i < t->per_level; i++) {
			uint32_t child = level_start(t, lv) + i;
			digits(t, lv, i, w);
			for (unsigned x = 0; x < t->h; x++) {
				for (unsigned d = 0; d + 1 < t->n; d++)
					up[d] = w[d];
				up[lv - 1] = x;
				l[n++] = (struct gen_link){
					child, index_of(t, lv - 1, up),
					(uint8_t)(t->h + 1 + x),
					(uint8_t)(w[lv - 1] + 1), false, false };
			}
		}
	return n;
}

static int tree_emit(struct gen *g, const struct tree *t, const struct gen_link *l,
		     uint32_t n, struct ibr_error *err)
{
	uint32_t sw = t->roots + (t->n - 1) * t->per_level, leaves, *order;
	char desc[48];
	int rc;

	for (uint32_t s = 0; s < sw; s++) {
		unsigned lv = s < t->roots ? 0 : 1 + (s - t->roots) / t->per_level;
		snprintf(desc, sizeof(desc), "level%u-%u", lv, s - level_start(t, lv));
		if (gen_add_switch(g, lv ? t->ports : t->root_ports, desc, err))
			return -1;
		/* leaves: machines on ports 1..h; roots: spine hosts after m */
		g->next_port[s] = (uint8_t)(lv ? 1 : t->m + 1);
	}
	for (uint32_t i = 0; i < n; i++)
		if (!l[i].broken &&
		    ibr_fabric_connect(g->f, l[i].a, l[i].pa, l[i].b, l[i].pb, err))
			return -1;
	/* one machine per leaf down port: round robin over the leaves */
	leaves = level_start(t, t->n - 1);
	order = malloc(t->per_level * sizeof(*order));
	if (!order)
		return gen_oom(err);
	for (uint32_t i = 0; i < t->per_level; i++)
		order[i] = leaves + i;
	rc = gen_attach_cas(g, (uint64_t)t->per_level * t->h, order,
			    t->per_level, err);
	free(order);
	return rc ? rc : gen_attach_extras(g, NULL, t->roots, err);
}

int gen_fattree_build(struct gen *g, struct ibr_error *err)
{
	struct tree t = { (unsigned)g->v[K_PORTS], (unsigned)g->v[K_PORTS] / 2,
			  (unsigned)g->v[K_LEVELS], 1, 1, 0, 0 };
	char text[48];
	uint64_t sw, machines = 2;
	struct gen_link *l;
	uint32_t n;
	int rc = -1;

	if (t.m % 2)
		return ibr_error_set(err, "generate: fattree: ports=%u must be "
				     "even", t.m);
	g->v[K_CAPORTS] = 1;   /* one port per machine */
	for (unsigned d = 0; d + 1 < t.n; d++)
		t.roots *= t.h;
	t.per_level = t.roots / t.h * t.m;
	for (unsigned d = 0; d < t.n; d++)
		machines *= t.h;
	sw = t.roots + (uint64_t)(t.n - 1) * t.per_level;
	if (sw > MAX_SWITCHES)
		return ibr_error_set(err, "generate: fattree: ports=%u levels=%u "
				     "makes %llu switches, more than %u", t.m, t.n,
				     (unsigned long long)sw, MAX_SWITCHES);
	t.ports = t.m + (unsigned)g->v[K_AGG];
	t.root_ports = t.ports + gen_top_ports(g, t.roots);
	if (t.root_ports > IBR_MAX_PORTS)
		return ibr_error_set(err, "generate: fattree: ports=%u%s needs %u "
				     "ports per root, more than %u", t.m,
				     gen_extras_text(g, text, sizeof(text)),
				     t.root_ports, IBR_MAX_PORTS);
	if (gen_check_ca_guids(g, machines + gen_extra_cas(g, (uint32_t)sw), err))
		return -1;
	l = malloc((t.n - 1) * t.per_level * t.h * sizeof(*l));
	g->next_port = malloc(sw);
	if (!l || !g->next_port) {
		free(l);
		return gen_oom(err);
	}
	n = tree_links(&t, l);
	if (gen_break_links(g, K_BROKEN, l, n, (uint32_t)sw, err) == 0)
		rc = tree_emit(g, &t, l, n, err);
	free(l);
	return rc;
}
