/*
 * test_dr.c - destination renaming against the papers' own examples.
 *
 *  - PIRa paper §2.2/§2.4, Fig. 5 and Fig. 7 (tests/fabrics/dr-fig5.net):
 *    at switch n2, n1 is 3 hops away up port 1 and 4 hops down port 3;
 *    n3 sends its packets for n1 down into n2.  FERa takes the 4-hop
 *    route down port 3 for everyone; dr gives n2's host the 3-hop route
 *    up port 1 on a second LID of n1's host, the base LID keeps FERa's
 *    route, and no LID of n1's host turns down -> up at n2.
 *  - LID paper Fig. 5: the four paths p1..p4 to m0, checked one after the
 *    other as destination renaming does, take configurations 1, 2, 1, 3:
 *    3 LIDs, as the greedy heuristic needs there, where 2 suffice
 *    ({p1, p4} and {p2, p3}, the ILP's answer).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "ibrouting/configs.h"
#include "ibrouting/engine.h"
#include "ibrouting/load.h"
#include "ibrouting/walk.h"

static struct ibr_fabric *load_fig5(void)
{
	struct ibr_load_options o = { 0 };
	struct ibr_error err = { "" };
	struct ibr_fabric *f = NULL;

	if (ibr_load(FABRICS_DIR "/dr-fig5.net", &o, &f, NULL, &err))
		fail_msg("dr-fig5.net: %s", err.msg);
	return f;
}

static uint32_t switch_by_lid(const struct ibr_fabric *f, ibr_lid_t lid)
{
	for (uint32_t s = 0; s < f->num_switches; s++)
		if (ibr_switch_lid(f, s) == lid)
			return s;
	fail_msg("no switch has LID %u", lid);
	return IBR_NONE;
}

static uint32_t end_port_by_lid(const struct ibr_fabric *f, ibr_lid_t lid)
{
	for (uint32_t e = 0; e < f->num_end_ports; e++)
		if (ibr_end_port_lid(f, e) == lid)
			return e;
	fail_msg("no CA port has LID %u", lid);
	return IBR_NONE;
}

/* The switches a packet for lid visits from s, into path[]; returns how
 * many (the last is the destination's switch). */
static unsigned walk(const struct ibr_walker *w, const struct ibr_result *r,
		     uint32_t s, ibr_lid_t lid, uint32_t *path)
{
	unsigned n = 0;
	uint32_t next = 0;

	path[n++] = s;
	while (ibr_walker_entry_step(w, r, s, lid, &next) == IBR_STEP_NEXT) {
		assert_true(n < 16);
		path[n++] = s = next;
	}
	assert_int_equal(ibr_walker_entry_step(w, r, s, lid, &next),
			 IBR_STEP_ARRIVED);
	return n;
}

static void test_pira_paper_fig5_fig7(void **state)
{
	struct ibr_fabric *f = load_fig5();
	struct ibr_root_choice root = { .guid = 0, .strategy = IBR_ROOT_SM };
	struct ibr_error err = { "" };
	struct ibr_route_ctx ctx;
	struct ibr_result fera, dr;
	struct ibr_walker w;
	uint32_t path[16];
	uint32_t n1 = switch_by_lid(f, 10), n2 = switch_by_lid(f, 4);
	uint32_t n3 = switch_by_lid(f, 2), a = switch_by_lid(f, 3);
	uint32_t b = switch_by_lid(f, 5);
	uint32_t h1 = end_port_by_lid(f, 20), h2 = end_port_by_lid(f, 24);
	uint32_t h3 = end_port_by_lid(f, 28);
	unsigned n;

	(void)state;
	assert_int_equal(ibr_port(f, f->end_ports[h1].node, f->end_ports[h1].port)->lmc, 1);
	assert_int_equal(ibr_ctx_init(&ctx, f, &root, NULL, &err), 0);
	assert_int_equal(ibr_route(&ctx, ibr_engine_find("fera"), &fera, &err), 0);
	assert_int_equal(ibr_route(&ctx, ibr_engine_find("dr"), &dr, &err), 0);
	assert_int_equal(ibr_walker_init(&w, f, &err), 0);
	assert_int_equal(fera.root, switch_by_lid(f, 1));

	/* FERa: n2 has a down route, so it never goes up (§2.3): port 3,
	 * n2 -> c -> d -> e -> n1, 4 hops. */
	assert_int_equal(ibr_entry(&fera, n2, 20), 3);
	n = walk(&w, &fera, n2, 20, path);
	assert_int_equal(n - 1, 4);
	assert_int_equal(path[n - 1], n1);

	/* dr: h2 -> h1 on h1's second LID (21), up port 1: n2 -> a -> b -> n1. */
	assert_int_equal(ibr_designated_dlid(&dr, f, h2, h1), 21);
	assert_int_equal(ibr_entry(&dr, n2, 21), 1);
	n = walk(&w, &dr, n2, 21, path);
	assert_int_equal(n - 1, 3);
	assert_int_equal(path[1], a);
	assert_int_equal(path[2], b);
	assert_int_equal(path[3], n1);
	assert_int_equal(ibr_stat_get(&dr, "renamed LIDs", 0), 1);
	assert_int_equal(ibr_stat_get(&dr, "fallback pairs", 1), 0);

	/* The base LID is FERa's tree: n3's packets come down into n2 and
	 * leave it down port 3 (Fig. 5's conflict, resolved as FERa does). */
	assert_memory_equal(ibr_column(&dr, 20), ibr_column(&fera, 20),
			    f->num_switches);
	assert_int_equal(ibr_entry(&dr, n3, 20), 2); /* n3 port 2 -> n2 */

	/* No LID of h1 turns down -> up at n2: whatever enters n2 from n3
	 * (a down link) leaves it down port 3, or the LID has no entry at
	 * n3 leading there. */
	for (ibr_lid_t lid = 20; lid <= 21; lid++) {
		uint8_t at_n3 = ibr_entry(&dr, n3, lid), at_n2 = ibr_entry(&dr, n2, lid);
		const struct ibr_port *out = ibr_port(f, f->sw_node[n3], at_n3 == IBR_NO_PATH ? 0 : at_n3);
		if (at_n3 != IBR_NO_PATH && out->remote_node == f->sw_node[n2])
			assert_int_equal(at_n2, 3);
	}
	/* h3 -> h1: n3's shortest legal route is 4 hops up through the
	 * root; it shares LID 21 with h2's path without splitting. */
	assert_int_equal(ibr_designated_dlid(&dr, f, h3, h1), 21);
	n = walk(&w, &dr, n3, 21, path);
	assert_int_equal(n - 1, 4);
	n = walk(&w, &fera, n3, 20, path);
	assert_int_equal(n - 1, 5);
	assert_int_equal(path[1], n2);

	ibr_walker_free(&w);
	ibr_result_free(&fera);
	ibr_result_free(&dr);
	ibr_ctx_free(&ctx);
	ibr_fabric_free(f);
}

static void test_lid_paper_fig5(void **state)
{
	/* Switches s0..s5 are indexes 0..5; a hop leaves by the port named
	 * after the next switch (port 10 + j to s_j), port 1 to m0. */
	enum { M0 = 1 };
	static const uint32_t p1[] = { 4, 1, 0 }, p2[] = { 4, 3, 2, 0 };
	static const uint32_t p3[] = { 5, 2, 0 }, p4[] = { 5, 3, 1, 0 };
	const uint32_t *paths[] = { p1, p2, p3, p4 };
	const uint32_t lens[] = { 3, 4, 3, 4 };
	const uint32_t expected[] = { 0, 1, 0, 2 };
	struct ibr_configs c, best;
	struct ibr_error err = { "" };
	uint8_t port[4][4];

	(void)state;
	for (unsigned p = 0; p < 4; p++)
		for (unsigned i = 0; i < lens[p]; i++)
			port[p][i] = i + 1 < lens[p] ? 10 + paths[p][i + 1] : M0;
	ibr_configs_init(&c, 6);
	for (unsigned p = 0; p < 4; p++)
		assert_int_equal(ibr_configs_first_fit(&c, paths[p], port[p],
						       lens[p], &err),
				 expected[p]);
	assert_int_equal(c.count, 3);
	assert_int_equal(ibr_lids_for_configs(c.count), 4);

	/* The splits the paper lists: p1/p2 at s4, p2/p4 at s3, p3/p4 at
	 * s5; so {p1, p4} and {p2, p3} are configurations: 2 LIDs do. */
	ibr_configs_init(&best, 6);
	assert_int_equal(ibr_configs_open(&best, &err), 0);
	assert_int_equal(ibr_configs_open(&best, &err), 1);
	ibr_configs_add(&best, 0, p1, port[0], 3);
	assert_true(ibr_configs_fits(&best, 0, p4, port[3], 4));
	assert_false(ibr_configs_fits(&best, 0, p2, port[1], 4));
	ibr_configs_add(&best, 1, p2, port[1], 4);
	assert_true(ibr_configs_fits(&best, 1, p3, port[2], 3));
	assert_false(ibr_configs_fits(&best, 1, p4, port[3], 4));
	ibr_configs_free(&best);
	ibr_configs_free(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pira_paper_fig5_fig7),
		cmocka_unit_test(test_lid_paper_fig5),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
