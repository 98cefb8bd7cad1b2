/*
 * test_topology.c - the topology recognition (topology.h) and the root
 * set repair (roots.h), without OpenSM, on fabrics built switch by switch
 * to carry what real captures carry:
 *   - a Clos network with an aggregation node on every switch is a fat
 *     tree whose roots are the spines, the aggregation nodes counted and
 *     still routed;
 *   - storage on a spine, a management leaf hanging off a spine, a
 *     management spine above the top level and a leaf whose hosts are all
 *     gone each leave the roots the spines, with a note;
 *   - a Dragonfly+ is recognised, its spines the roots, every minimal
 *     route legal, also with a group pair's direct link gone; every
 *     global link between two groups points the same way;
 *   - a random fabric is irregular;
 *   - the result does not depend on the order the fabric is listed in;
 *   - hosts on two roots are joined by leaving one of those roots out.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "ibrouting/engine.h"
#include "ibrouting/generate.h"
#include "ibrouting/roots.h"
#include "ibrouting/topology.h"
#include "ibrouting/updown.h"
#include "ibrouting/verify.h"

#define MAX_SW 64

/* A fabric as a recipe, built in either order (build()): switch i is
 * GUID 0x1000 + i, CAs 0x50000 + n. */
struct step {
	int kind;
	unsigned a, b, n;
	const char *desc;
};

struct builder {
	struct step step[1024];
	unsigned steps;
};

enum { SWITCH, LINK, HOSTS, AGG };

static void add(struct builder *b, int kind, unsigned x, unsigned y,
		unsigned n, const char *desc)
{
	assert_true(b->steps < 1024);
	b->step[b->steps++] = (struct step){ kind, x, y, n, desc };
}

static struct ibr_fabric *build(const struct builder *recipe, bool reversed)
{
	struct ibr_fabric *f = ibr_fabric_new();
	struct ibr_error err = { "" };
	uint32_t sw[MAX_SW];
	unsigned port[MAX_SW] = { 0 };
	uint64_t ca = 0;

	/* switches first, in either order; then links and CAs */
	for (unsigned k = 0; k < recipe->steps; k++) {
		unsigned i = reversed ? recipe->steps - 1 - k : k;
		unsigned s = recipe->step[i].a;
		if (recipe->step[i].kind != SWITCH)
			continue;
		sw[s] = ibr_fabric_add_node(f, IBR_NODE_SWITCH, 0x1000 + s, 64,
					    recipe->step[i].desc, NULL, &err);
		assert_int_not_equal(sw[s], IBR_NONE);
	}
	for (unsigned k = 0; k < recipe->steps; k++) {
		unsigned i = reversed ? recipe->steps - 1 - k : k;
		unsigned a = recipe->step[i].a, b = recipe->step[i].b;
		switch (recipe->step[i].kind) {
		case LINK:
			for (unsigned n = 0; n < recipe->step[i].n; n++)
				assert_int_equal(ibr_fabric_connect(f, sw[a],
						 ++port[a], sw[b], ++port[b],
						 &err), 0);
			break;
		case HOSTS:
		case AGG:
			for (unsigned n = 0; n < recipe->step[i].n; n++) {
				uint32_t c = ibr_fabric_add_node(f, IBR_NODE_CA,
					0x50000 + ca++, 1, recipe->step[i].kind ==
					AGG ? "Mellanox Technologies Aggregation "
					"Node" : "host", NULL, &err);
				assert_int_equal(ibr_fabric_connect(f, sw[a],
						 ++port[a], c, 1, &err), 0);
			}
			break;
		}
	}
	assert_int_equal(ibr_fabric_finalize(f, 0, &err), 0);
	return f;
}

/* A Clos of `leaves` x `spines`, h hosts a leaf; switch ids: leaves
 * 0 .. leaves-1, spines after. */
static void clos(struct builder *b, unsigned leaves, unsigned spines,
		 unsigned h)
{
	memset(b, 0, sizeof(*b));
	for (unsigned i = 0; i < leaves + spines; i++)
		add(b, SWITCH, i, 0, 0, i < leaves ? "leaf" : "spine");
	for (unsigned l = 0; l < leaves; l++) {
		add(b, HOSTS, l, 0, h, NULL);
		for (unsigned s = 0; s < spines; s++)
			add(b, LINK, l, leaves + s, 1, NULL);
	}
}

static struct ibr_topology recognise(const struct ibr_fabric *f)
{
	struct ibr_error err = { "" };
	struct ibr_topology t;

	if (ibr_topology_recognise(f, &t, &err))
		fail_msg("recognise: %s", err.msg);
	return t;
}

/* The roots' GUIDs are exactly 0x1000 + first .. first + n - 1. */
static void assert_roots(const struct ibr_fabric *f,
			 const struct ibr_topology *t, unsigned first,
			 unsigned n)
{
	assert_int_equal(t->num_roots, n);
	for (unsigned i = 0; i < n; i++) {
		uint64_t g = ibr_switch(f, t->roots[i])->guid;
		assert_true(g >= 0x1000 + first && g < 0x1000 + first + n);
	}
}

static bool has_note(const struct ibr_topology *t, const char *words)
{
	for (uint32_t i = 0; i < t->num_notes; i++)
		if (strstr(t->notes[i], words))
			return true;
	return false;
}

/* Routes f under auto roots with fera: verified, every pair of hosts
 * delivered. */
static void assert_routes(const struct ibr_fabric *f)
{
	struct ibr_root_choice c = { .strategy = IBR_ROOT_AUTO };
	struct ibr_error err = { "" };
	struct ibr_verify_report rep;
	struct ibr_result r;

	assert_int_equal(ibr_route_once(f, ibr_engine_find("fera"), &c, NULL,
					&r, &err), 0);
	assert_int_equal(ibr_verify(f, &r, NULL, &rep, &err), 0);
	assert_int_equal(ibr_verify_findings(&rep), 0);
	ibr_result_free(&r);
}

static void test_clos_with_aggregation_nodes(void **state)
{
	struct builder b;
	struct ibr_fabric *f;
	struct ibr_topology t;

	(void)state;
	clos(&b, 6, 3, 4);
	for (unsigned s = 0; s < 9; s++)
		add(&b, AGG, s, 0, 1, NULL);
	f = build(&b, false);
	t = recognise(f);
	assert_int_equal(t.kind, IBR_TOPO_FAT_TREE);
	assert_int_equal(t.levels, 2);
	assert_roots(f, &t, 6, 3);
	assert_true(has_note(&t, "9 CA ports named \"Aggregation Node\""));
	ibr_topology_free(&t);
	assert_routes(f);
	ibr_fabric_free(f);
}

static void test_storage_on_a_spine(void **state)
{
	struct builder b;
	struct ibr_fabric *f;
	struct ibr_topology t;

	(void)state;
	clos(&b, 6, 2, 8);
	add(&b, HOSTS, 6, 0, 3, NULL);  /* three storage ports on a spine */
	f = build(&b, false);
	t = recognise(f);
	assert_int_equal(t.kind, IBR_TOPO_FAT_TREE);
	assert_roots(f, &t, 6, 2);
	assert_true(has_note(&t, "3 host ports on 1 switch above the leaves "
			     "(0x0000000000001006)"));
	ibr_topology_free(&t);
	assert_routes(f);
	ibr_fabric_free(f);
}

/* A management leaf on one spine, and a management spine above two of
 * the top switches of a 3-level tree: neither changes the roots. */
static void test_management_switches(void **state)
{
	struct builder b;
	struct ibr_fabric *f;
	struct ibr_topology t;

	(void)state;
	memset(&b, 0, sizeof(b));
	/* leaves 0-3, middle 4-7 (pods {0,1}/{4,5} and {2,3}/{6,7}),
	 * top 8-11; management leaf 12 on middle switch 4, management
	 * spine 13 above tops 8 and 9 with a management leaf 14 below it */
	for (unsigned i = 0; i < 15; i++)
		add(&b, SWITCH, i, 0, 0, "sw");
	for (unsigned l = 0; l < 4; l++) {
		add(&b, HOSTS, l, 0, 4, NULL);
		for (unsigned m = 0; m < 2; m++)
			add(&b, LINK, l, 4 + (l / 2) * 2 + m, 1, NULL);
	}
	for (unsigned m = 4; m < 8; m++)
		for (unsigned k = 0; k < 2; k++)
			add(&b, LINK, m, 8 + (m % 2) * 2 + k, 2, NULL);
	add(&b, LINK, 12, 4, 2, NULL);
	add(&b, HOSTS, 12, 0, 2, NULL);
	add(&b, LINK, 13, 8, 1, NULL);
	add(&b, LINK, 13, 9, 1, NULL);
	add(&b, LINK, 14, 13, 2, NULL);
	add(&b, HOSTS, 14, 0, 1, NULL);
	f = build(&b, false);
	t = recognise(f);
	assert_int_equal(t.kind, IBR_TOPO_FAT_TREE);
	assert_int_equal(t.levels, 3);
	assert_roots(f, &t, 8, 4);
	assert_true(has_note(&t, "2 switches with 3 host ports hang off the "
			     "structure"));
	assert_true(has_note(&t, "1 switch above the top level with only 2 "
			     "links to it (0x000000000000100d)"));
	ibr_topology_free(&t);
	assert_routes(f);
	ibr_fabric_free(f);
}

/* A leaf whose hosts are all gone sits above the spines as a top switch
 * would; linked as the leaves are, it is taken for one, not a root. */
static void test_empty_leaf(void **state)
{
	struct builder b;
	struct ibr_fabric *f;
	struct ibr_topology t;

	(void)state;
	clos(&b, 8, 4, 4);
	add(&b, SWITCH, 12, 0, 0, "empty leaf");
	for (unsigned s = 0; s < 4; s++)
		add(&b, LINK, 12, 8 + s, 1, NULL);
	f = build(&b, false);
	t = recognise(f);
	assert_int_equal(t.kind, IBR_TOPO_FAT_TREE);
	assert_int_equal(t.levels, 2);
	assert_roots(f, &t, 8, 4);
	assert_true(has_note(&t, "1 switch without hosts linked as leaves are "
			     "(0x000000000000100c): taken for leaves"));
	ibr_topology_free(&t);
	ibr_fabric_free(f);
}

static void dragonfly_links(struct builder *b, unsigned G, bool cut);

/* G groups of 2 leaves x 2 spines, spine k of each group joined to
 * spine k of every other group (the planes), 2 hosts a leaf; switch ids
 * 4g .. 4g+1 leaves, 4g+2 .. 4g+3 spines.  Without the links of
 * `cut_a`-`cut_b` (groups) when cut. */
static void dragonfly(struct builder *b, unsigned G, bool cut)
{
	memset(b, 0, sizeof(*b));
	for (unsigned i = 0; i < 4 * G; i++)
		add(b, SWITCH, i, 0, 0, i % 4 < 2 ? "leaf" : "spine");
	dragonfly_links(b, G, cut);
}

/* The same, the switches listed place by place across the groups (the
 * first leaf of every group, then the second, ...), as a discovery may
 * list them: LIDs interleave the groups. */
static void dragonfly_interleaved(struct builder *b, unsigned G, bool cut)
{
	memset(b, 0, sizeof(*b));
	for (unsigned k = 0; k < 4; k++)
		for (unsigned g = 0; g < G; g++)
			add(b, SWITCH, 4 * g + k, 0, 0, k < 2 ? "leaf" : "spine");
	dragonfly_links(b, G, cut);
}

static void dragonfly_links(struct builder *b, unsigned G, bool cut)
{
	for (unsigned g = 0; g < G; g++)
		for (unsigned l = 0; l < 2; l++) {
			add(b, HOSTS, 4 * g + l, 0, 2, NULL);
			for (unsigned s = 0; s < 2; s++)
				add(b, LINK, 4 * g + l, 4 * g + 2 + s, 1, NULL);
		}
	for (unsigned g = 0; g < G; g++)
		for (unsigned h = g + 1; h < G; h++)
			for (unsigned k = 0; k < 2; k++)
				if (!cut || g != 0 || h != 1)
					add(b, LINK, 4 * g + 2 + k,
					    4 * h + 2 + k, 1, NULL);
}

static void test_dragonfly_plus(void **state)
{
	for (int cut = 0; cut < 2; cut++) {
		struct builder b;
		struct ibr_fabric *f;
		struct ibr_topology t;

		(void)state;
		dragonfly(&b, 5, cut);
		f = build(&b, false);
		t = recognise(f);
		assert_int_equal(t.kind, IBR_TOPO_DRAGONFLY_PLUS);
		assert_int_equal(t.groups, 5);
		assert_int_equal(t.num_roots, 10);
		for (uint32_t i = 0; i < t.num_roots; i++)
			assert_string_equal(ibr_switch(f, t.roots[i])->desc,
					    "spine");
		assert_int_equal(has_note(&t, "1 group pair without a direct "
					  "global link"), cut);
		ibr_topology_free(&t);
		assert_routes(f);
		ibr_fabric_free(f);
	}
}

/* Between the spines of two groups every global link points the same
 * way (updown.h: ties between roots by part, then LID), whatever order
 * the LIDs come in: here they interleave the groups, where an order of
 * LIDs alone turns some links of a group pair up and others down. */
static void test_dragonfly_ties_by_group(void **state)
{
	for (int reversed = 0; reversed < 2; reversed++) {
		struct builder b;
		struct ibr_fabric *f;
		struct ibr_topology t;
		struct ibr_updown ud;
		struct ibr_error err = { "" };
		int8_t way[5][5] = { { 0 } };

		(void)state;
		dragonfly_interleaved(&b, 5, true);
		f = build(&b, reversed);
		t = recognise(f);
		assert_int_equal(t.kind, IBR_TOPO_DRAGONFLY_PLUS);
		assert_int_equal(ibr_updown_build_set(f, t.roots, t.num_roots,
						      &ud, &err), 0);
		for (uint32_t s = 0; s < f->num_switches; s++)
			for (uint32_t i = f->sw_adj_start[s]; i < f->sw_adj_start[s + 1]; i++) {
				uint32_t x = f->sw_adj[i].peer;
				uint32_t g = t.group[s], h = t.group[x];
				int8_t up = ibr_link_is_up(f, &ud, s, x) ? 1 : -1;
				if (ud.rank[s] || ud.rank[x])
					continue;
				assert_true(way[g][h] == 0 || way[g][h] == up);
				way[g][h] = up;
			}
		ibr_updown_free(&ud);
		ibr_topology_free(&t);
		ibr_fabric_free(f);
	}
}

static void test_random_is_irregular(void **state)
{
	struct ibr_error err = { "" };
	struct ibr_fabric *f = ibr_generate("random:sw=32,ca=128,seed=3", &err);
	struct ibr_topology t;

	(void)state;
	assert_non_null(f);
	assert_int_equal(ibr_fabric_finalize(f, 0, &err), 0);
	t = recognise(f);
	assert_int_equal(t.kind, IBR_TOPO_IRREGULAR);
	assert_int_equal(t.num_roots, 0);
	ibr_topology_free(&t);
	ibr_fabric_free(f);
}

static int by_guid(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The roots' GUIDs, sorted, into g (room for t's roots). */
static void root_guids(const struct ibr_fabric *f,
		       const struct ibr_topology *t, uint64_t *g)
{
	for (uint32_t i = 0; i < t->num_roots; i++)
		g[i] = ibr_switch(f, t->roots[i])->guid;
	qsort(g, t->num_roots, sizeof(uint64_t), by_guid);
}

/* The same fabrics listed backwards (other switch indexes and LIDs):
 * the same class and root GUIDs. */
static void test_order_does_not_matter(void **state)
{
	struct builder b[2];

	(void)state;
	clos(&b[0], 6, 2, 8);
	add(&b[0], HOSTS, 6, 0, 3, NULL);
	dragonfly(&b[1], 4, true);
	for (int k = 0; k < 2; k++) {
		struct ibr_fabric *f = build(&b[k], false);
		struct ibr_fabric *g = build(&b[k], true);
		struct ibr_topology t = recognise(f), u = recognise(g);
		uint64_t x[MAX_SW], y[MAX_SW];
		assert_int_equal(t.kind, u.kind);
		assert_int_equal(t.num_roots, u.num_roots);
		assert_int_not_equal(t.num_roots, 0);
		root_guids(f, &t, x);
		root_guids(g, &u, y);
		assert_memory_equal(x, y, t.num_roots * sizeof(uint64_t));
		ibr_topology_free(&t);
		ibr_topology_free(&u);
		ibr_fabric_free(f);
		ibr_fabric_free(g);
	}
}

/* A root set naming both spines of a Clos where each spine carries
 * storage: the two spines' hosts have no legal route between them; one
 * spine leaves the set (not the whole set for a single root). */
static void test_hosts_on_two_roots_repaired(void **state)
{
	struct builder b;
	struct ibr_fabric *f;
	struct ibr_route_ctx ctx;
	struct ibr_error err = { "" };
	uint64_t set[] = { 0x1006, 0x1007, 0x1008 };
	struct ibr_root_choice c = { .set = set, .set_len = 3,
				     .set_source = "test" };

	(void)state;
	clos(&b, 6, 3, 4);
	add(&b, HOSTS, 6, 0, 2, NULL);
	add(&b, HOSTS, 7, 0, 2, NULL);
	f = build(&b, false);
	assert_int_equal(ibr_ctx_init(&ctx, f, &c, NULL, &err), 0);
	assert_int_equal(ctx.roots.count, 2);
	assert_non_null(strstr(ctx.roots.replaced, "1 left out of the set"));
	ibr_ctx_free(&ctx);
	assert_routes(f);
	ibr_fabric_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_clos_with_aggregation_nodes),
		cmocka_unit_test(test_storage_on_a_spine),
		cmocka_unit_test(test_management_switches),
		cmocka_unit_test(test_empty_leaf),
		cmocka_unit_test(test_dragonfly_plus),
		cmocka_unit_test(test_dragonfly_ties_by_group),
		cmocka_unit_test(test_random_is_irregular),
		cmocka_unit_test(test_order_does_not_matter),
		cmocka_unit_test(test_hosts_on_two_roots_repaired),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
