/*
 * kary.c - k-ary n-trees (Petrini and Vanneschi, 1997), the fat trees
 * production clusters are cabled as, with links cut and top-level switches
 * taken down at random, never disconnecting the fabric.
 *
 * Switches sit on levels 0 (top, the spines) .. n-1 (leaves), k^(n-1) per
 * level, each labelled by n-1 digits w_0 .. w_{n-2} in [0, k).  Switch
 * <w, l> links to the k switches <w', l+1> whose label differs from w in
 * digit l only (w'_l any of 0..k-1): every switch below the top has k
 * parents, every switch above the leaves k children.  Leaves give their k
 * down ports to one single-port CA each: k^n CAs, (n-1) k^n switch links.
 *
 * Ports: every switch has 2k (but see the extras).  Down ports 1..k, up ports k+1..2k: the link
 * <w, l> - <w', l+1> is parent port w'_l + 1 to child port k + 1 + w_l.
 * A top-level switch has its k down links and leaves ports k+1..2k dark; a
 * leaf's ports 1..k hold CAs.  A cut link leaves its two ports dark, as a
 * pulled cable would; nothing is renumbered.
 *
 * Switch order (node ids, hence GUIDs 0x200000 + id): level 0 first, then
 * level 1, ...; within a level by position, the label read in base k with
 * w_0 least significant.  So the top-level switches are nodes 0 .. k^(n-1)-1
 * in position order, less any taken down.  Descriptions name level and
 * position, "kary L<l> S<pos>", and keep them when switches before them
 * are taken down, so a description identifies a switch across specs.
 * CAs: as gen_attach_cas() numbers them (GUID 0x100000 + 2i, "ca<i>"),
 * round robin over the leaves in position order: CA i sits on leaf
 * i mod k^(n-1), port i / k^(n-1) + 1, as fattree.c places its machines.
 *
 * Extras after the hosts (gen_attach_extras()): `spinehosts` CAs round
 * robin over the top level left, on its dark up ports k+1.. and beyond 2k
 * if those are too few (the top switches then have more ports); with
 * `agg=1` an aggregation node on every switch's last port, one more than
 * it needs otherwise.
 *
 * Damage, in this order and all from the spec's RNG: `down` top-level
 * switches removed with their links (gen_take_down), then `cut` links of
 * those left (gen_break_links).  Without either the fabric does not
 * depend on `seed`.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "gen.h"

struct kary {
	unsigned k, n;
	uint32_t per_level;          /* k^(n-1) switches on every level */
	unsigned ports, top_ports;   /* of a switch, of a top-level one */
};

/* Every link, parent by parent from the top: child x of <w, l> is the
 * switch of level l+1 with digit l set to x. */
static uint32_t kary_links(const struct kary *t, struct gen_link *l)
{
	uint32_t n = 0, scale = 1;

	for (unsigned lv = 0; lv + 1 < t->n; lv++, scale *= t->k)
		for (uint32_t i = 0; i < t->per_level; i++) {
			uint32_t parent = lv * t->per_level + i;
			unsigned wl = i / scale % t->k;
			uint32_t base = (lv + 1) * t->per_level + i - wl * scale;
			for (unsigned x = 0; x < t->k; x++)
				l[n++] = (struct gen_link){
					parent, base + x * scale, (uint8_t)(x + 1),
					(uint8_t)(t->k + 1 + wl), false, false };
		}
	return n;
}

/* map: old switch index -> node id, IBR_NONE for one taken down. */
static int kary_emit(struct gen *g, const struct kary *t,
		     const struct gen_link *l, uint32_t n, const uint32_t *map,
		     struct ibr_error *err)
{
	uint32_t sw = t->n * t->per_level, leaves, *order;
	char desc[48];
	int rc;

	for (uint32_t s = 0; s < sw; s++) {
		if (map[s] == IBR_NONE)
			continue;
		snprintf(desc, sizeof(desc), "kary L%u S%u", s / t->per_level,
			 s % t->per_level);
		if (gen_add_switch(g, s < t->per_level ? t->top_ports : t->ports,
				   desc, err))
			return -1;
		/* leaves: CAs on ports 1..k; the top: spine hosts from k+1 */
		g->next_port[map[s]] = (uint8_t)(s < t->per_level ? t->k + 1 : 1);
	}
	for (uint32_t i = 0; i < n; i++)
		if (!l[i].broken &&
		    ibr_fabric_connect(g->f, l[i].a, l[i].pa, l[i].b, l[i].pb, err))
			return -1;
	/* only top-level switches go down: the leaves are all there */
	leaves = (t->n - 1) * t->per_level;
	order = malloc(t->per_level * sizeof(*order));
	if (!order)
		return gen_oom(err);
	for (uint32_t i = 0; i < t->per_level; i++)
		order[i] = map[leaves + i];
	rc = gen_attach_cas(g, (uint64_t)t->per_level * t->k, order,
			    t->per_level, err);
	free(order);
	/* the top level left is nodes 0.. in position order */
	return rc ? rc : gen_attach_extras(g, NULL, t->per_level -
					   (uint32_t)g->v[K_DOWN], err);
}

/* Ports: 2k, and on the top level k down ports and the spine hosts' (at
 * least the k dark up ports); one more everywhere with agg. */
static int kary_ports(struct gen *g, struct kary *t, uint64_t sw,
		      struct ibr_error *err)
{
	uint32_t tops = g->v[K_DOWN] < t->per_level ?
			t->per_level - (uint32_t)g->v[K_DOWN] : 1;
	unsigned extra = gen_top_ports(g, tops);
	char text[48];

	t->ports = 2 * t->k + (unsigned)g->v[K_AGG];
	t->top_ports = t->k + (extra > t->k ? extra : t->k) +
		       (unsigned)g->v[K_AGG];
	if (t->ports > IBR_MAX_PORTS || t->top_ports > IBR_MAX_PORTS)
		return ibr_error_set(err, "generate: kary: k=%u%s needs %u ports "
				     "per %sswitch, more than %u", t->k,
				     gen_extras_text(g, text, sizeof(text)),
				     t->top_ports > t->ports ? t->top_ports :
				     t->ports, t->top_ports > t->ports ?
				     "top-level " : "", IBR_MAX_PORTS);
	return gen_check_ca_guids(g, (uint64_t)t->per_level * t->k +
				  gen_extra_cas(g, (uint32_t)sw -
						(t->per_level - tops)), err);
}

int gen_kary_build(struct gen *g, struct ibr_error *err)
{
	struct kary t = { (unsigned)g->v[K_K], (unsigned)g->v[K_N], 1, 0, 0 };
	uint64_t sw, cas, per = 1;
	struct gen_link *l;
	uint32_t n, *map;
	int rc = -1;

	g->v[K_CAPORTS] = 1;   /* one port per CA */
	for (unsigned d = 0; d + 1 < t.n; d++)
		per *= t.k;             /* k <= 127, n <= 6: no overflow */
	sw = per * t.n;
	cas = per * t.k;
	if (sw > MAX_SWITCHES)
		return ibr_error_set(err, "generate: kary: k=%u n=%u makes %llu "
				     "switches, more than %u", t.k, t.n,
				     (unsigned long long)sw, MAX_SWITCHES);
	t.per_level = (uint32_t)per;
	if (kary_ports(g, &t, sw, err))
		return -1;
	l = malloc((t.n - 1) * cas * sizeof(*l));
	map = malloc(sw * sizeof(*map));
	g->next_port = malloc(sw);
	if (!l || !map || !g->next_port) {
		free(l);
		free(map);
		return gen_oom(err);
	}
	n = kary_links(&t, l);
	if (gen_take_down(g, 0, t.per_level, t.per_level, "top-level switches",
			  l, &n, (uint32_t)sw, map, err) == 0 &&
	    gen_break_links(g, K_CUT, l, n, (uint32_t)(sw - g->v[K_DOWN]),
			    err) == 0)
		rc = kary_emit(g, &t, l, n, map, err);
	free(l);
	free(map);
	return rc;
}
