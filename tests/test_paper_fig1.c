/*
 * test_paper_fig1.c - the worked example of the PIRa paper, entry for entry.
 *
 * tests/fabrics/fig1.net is the subnet of Fig. 1 (eight 4-port switches,
 * seven hosts, the paper's LIDs), rooted at LID 1 as in Fig. 4.
 *   - FERa must give the 120 entries of Fig. 6: every port and every
 *     distance (hops along our tables).
 *   - PIRa must give 7 default ports and 50 explicit entries (Fig. 8 and
 *     §3.2's text); every entry Fig. 8 shows must be explicit with its
 *     port, and the default ports must be Fig. 8's.
 *   - Both pass the verifier; the legal route of §2.2 (7 -> 2 -> 1 <- 3 <-
 *     9 <- 14) is the one FERa's tables take.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "ibrouting/engine.h"
#include "ibrouting/pira.h"
#include "ibrouting/topo_io.h"
#include "ibrouting/verify.h"
#include "ibrouting/walk.h"

/* Fig. 6: switch LID, destination LID, output port, distance. */
static const struct { int sw, dlid, port, dist; } fig6[] = {
	{  1,  1, 0, 0 },
	{  2,  1, 1, 1 },
	{  3,  1, 1, 1 },
	{  5,  1, 2, 2 },
	{  6,  1, 1, 2 },
	{  8,  1, 1, 2 },
	{  9,  1, 1, 2 },
	{ 10,  1, 1, 3 },
	{  1,  2, 1, 1 },
	{  2,  2, 0, 0 },
	{  3,  2, 1, 2 },
	{  5,  2, 2, 1 },
	{  6,  2, 1, 1 },
	{  8,  2, 1, 3 },
	{  9,  2, 1, 3 },
	{ 10,  2, 1, 2 },
	{  1,  3, 2, 1 },
	{  2,  3, 1, 2 },
	{  3,  3, 0, 0 },
	{  5,  3, 2, 3 },
	{  6,  3, 2, 1 },
	{  8,  3, 1, 1 },
	{  9,  3, 1, 1 },
	{ 10,  3, 2, 2 },
	{  1,  4, 3, 1 },
	{  2,  4, 1, 2 },
	{  3,  4, 1, 2 },
	{  5,  4, 2, 3 },
	{  6,  4, 1, 3 },
	{  8,  4, 1, 3 },
	{  9,  4, 1, 3 },
	{ 10,  4, 1, 4 },
	{  1,  5, 1, 2 },
	{  2,  5, 2, 1 },
	{  3,  5, 1, 3 },
	{  5,  5, 0, 0 },
	{  6,  5, 1, 2 },
	{  8,  5, 1, 4 },
	{  9,  5, 1, 4 },
	{ 10,  5, 1, 1 },
	{  1,  6, 1, 2 },
	{  2,  6, 3, 1 },
	{  3,  6, 4, 1 },
	{  5,  6, 2, 2 },
	{  6,  6, 0, 0 },
	{  8,  6, 1, 2 },
	{  9,  6, 1, 2 },
	{ 10,  6, 2, 1 },
	{  1,  7, 1, 2 },
	{  2,  7, 4, 1 },
	{  3,  7, 1, 3 },
	{  5,  7, 2, 2 },
	{  6,  7, 1, 2 },
	{  8,  7, 1, 4 },
	{  9,  7, 1, 4 },
	{ 10,  7, 1, 3 },
	{  1,  8, 2, 2 },
	{  2,  8, 1, 3 },
	{  3,  8, 2, 1 },
	{  5,  8, 2, 4 },
	{  6,  8, 2, 2 },
	{  8,  8, 0, 0 },
	{  9,  8, 1, 2 },
	{ 10,  8, 2, 3 },
	{  1,  9, 2, 2 },
	{  2,  9, 1, 3 },
	{  3,  9, 3, 1 },
	{  5,  9, 2, 4 },
	{  6,  9, 2, 2 },
	{  8,  9, 1, 2 },
	{  9,  9, 0, 0 },
	{ 10,  9, 2, 3 },
	{  1, 10, 1, 3 },
	{  2, 10, 2, 2 },
	{  3, 10, 4, 2 },
	{  5, 10, 1, 1 },
	{  6, 10, 3, 1 },
	{  8, 10, 1, 3 },
	{  9, 10, 1, 3 },
	{ 10, 10, 0, 0 },
	{  1, 11, 1, 3 },
	{  2, 11, 2, 2 },
	{  3, 11, 1, 4 },
	{  5, 11, 3, 1 },
	{  6, 11, 1, 3 },
	{  8, 11, 1, 5 },
	{  9, 11, 1, 5 },
	{ 10, 11, 1, 2 },
	{  1, 12, 1, 3 },
	{  2, 12, 3, 2 },
	{  3, 12, 4, 2 },
	{  5, 12, 2, 3 },
	{  6, 12, 4, 1 },
	{  8, 12, 1, 3 },
	{  9, 12, 1, 3 },
	{ 10, 12, 2, 2 },
	{  1, 13, 2, 3 },
	{  2, 13, 1, 4 },
	{  3, 13, 2, 2 },
	{  5, 13, 2, 5 },
	{  6, 13, 2, 3 },
	{  8, 13, 2, 1 },
	{  9, 13, 1, 3 },
	{ 10, 13, 2, 4 },
	{  1, 14, 2, 3 },
	{  2, 14, 1, 4 },
	{  3, 14, 3, 2 },
	{  5, 14, 2, 5 },
	{  6, 14, 2, 3 },
	{  8, 14, 1, 3 },
	{  9, 14, 2, 1 },
	{ 10, 14, 2, 4 },
	{  1, 15, 1, 4 },
	{  2, 15, 2, 3 },
	{  3, 15, 4, 3 },
	{  5, 15, 1, 2 },
	{  6, 15, 3, 2 },
	{  8, 15, 1, 4 },
	{  9, 15, 1, 4 },
	{ 10, 15, 3, 1 },
};

/* Fig. 8 as printed (41 of the 50 entries the text counts). */
static const struct { int sw, dlid, port; } fig8[] = {
	{  1,  1, 0 },
	{  2,  2, 0 },
	{  1,  2, 1 },
	{  3,  3, 0 },
	{  1,  3, 2 },
	{  1,  4, 3 },
	{  5,  5, 0 },
	{  1,  5, 1 },
	{  6,  6, 0 },
	{  2,  6, 3 },
	{  1,  7, 1 },
	{  6,  7, 1 },
	{  8,  8, 0 },
	{  3,  8, 2 },
	{  9,  9, 0 },
	{  3,  9, 3 },
	{ 10, 10, 0 },
	{  3, 10, 4 },
	{ 10,  5, 1 },
	{  5, 10, 1 },
	{  1, 10, 2 },
	{  6, 10, 3 },
	{  1, 11, 1 },
	{  5, 11, 3 },
	{  2, 11, 2 },
	{ 10, 11, 1 },
	{  1, 12, 2 },
	{  3, 12, 4 },
	{  2, 12, 3 },
	{  6, 12, 4 },
	{  1, 13, 2 },
	{  8, 13, 2 },
	{  1, 14, 2 },
	{  9, 14, 2 },
	{  3, 14, 3 },
	{  1, 15, 2 },
	{  5, 15, 1 },
	{  2, 15, 3 },
	{  6, 15, 3 },
	{  3, 15, 4 },
	{ 10, 15, 3 },
};

/* Fig. 8, "Default port" column. */
static const struct { int sw, port; } fig8_defaults[] = {
	{  2, 1 },
	{  3, 1 },
	{  5, 2 },
	{  6, 2 },
	{  8, 1 },
	{  9, 1 },
	{ 10, 2 },
};

#define N(a) (sizeof(a) / sizeof((a)[0]))

static struct ibr_fabric *load_fig1(unsigned lmc)
{
	struct ibr_error err = { "" };
	struct ibr_fabric *f = ibr_fabric_read_file(FABRICS_DIR "/fig1.net", &err);

	if (f == NULL || ibr_fabric_finalize(f, lmc, &err) != 0)
		fail_msg("fig1.net: %s", err.msg);
	return f;
}

static uint32_t switch_by_lid(const struct ibr_fabric *f, int lid)
{
	const struct ibr_lid_owner *o = &f->lid_owner[lid];

	assert_int_not_equal(o->node, IBR_NONE);
	assert_int_equal(f->nodes[o->node].type, IBR_NODE_SWITCH);
	return f->nodes[o->node].sw_index;
}

static void route(const struct ibr_fabric *f, const char *engine,
		  struct ibr_result *r)
{
	struct ibr_root_choice root = { .guid = 0, .strategy = IBR_ROOT_SM };
	struct ibr_error err = { "" };
	struct ibr_verify_report rep;

	/* the paper's figures: its tie rule, the lowest port */
	if (ibr_route_once_with(f, ibr_engine_find(engine), &root, NULL,
				IBR_PORT_LOWEST, r, &err) != 0)
		fail_msg("%s: %s", engine, err.msg);
	assert_int_equal(ibr_entry(r, r->root, 1), 0); /* root = LID 1 */
	assert_int_equal(ibr_verify(f, r, NULL, &rep, &err), 0);
	if (ibr_verify_findings(&rep) != 0)
		fail_msg("%s: %s", engine, rep.messages[0]);
	assert_true(rep.dependencies > 0);
}

static void test_fabric_is_fig1(void **state)
{
	struct ibr_fabric *f = load_fig1(0);

	(void)state;
	assert_int_equal(f->num_switches, 8);
	assert_int_equal(f->num_end_ports, 7);
	assert_int_equal(f->max_lid, 15);
	for (int lid = 1; lid <= 15; lid++) {
		const struct ibr_lid_owner *o = &f->lid_owner[lid];
		int is_host = lid == 4 || lid == 7 || lid >= 11;
		assert_int_not_equal(o->node, IBR_NONE);
		assert_int_equal(f->nodes[o->node].type,
				 is_host ? IBR_NODE_CA : IBR_NODE_SWITCH);
	}
	assert_int_equal(f->sw_adj_start[f->num_switches], 2 * 9);
	ibr_fabric_free(f);
}

static void test_fera_is_fig6(void **state)
{
	struct ibr_fabric *f = load_fig1(0);
	struct ibr_result r;
	struct ibr_walker w;
	struct ibr_error err = { "" };

	(void)state;
	route(f, "fera", &r);
	assert_int_equal(ibr_walker_init(&w, f, &err), 0);
	assert_int_equal(N(fig6), 120);
	assert_int_equal(ibr_stat_get(&r, "explicit entries", 0), 120);
	assert_int_equal(ibr_stat_get(&r, "default ports", 0), 0);
	for (unsigned i = 0; i < N(fig6); i++) {
		uint32_t s = switch_by_lid(f, fig6[i].sw);
		ibr_walk_column(&w, ibr_column(&r, fig6[i].dlid), fig6[i].dlid,
				NULL);
		if (ibr_entry(&r, s, fig6[i].dlid) != fig6[i].port ||
		    w.hops[s] != fig6[i].dist)
			fail_msg("Fig. 6 entry %d: %d -> %d (%d), got %d (%d)",
				 fig6[i].sw, fig6[i].dlid, fig6[i].port,
				 fig6[i].dist, ibr_entry(&r, s, fig6[i].dlid),
				 w.hops[s]);
	}
	ibr_walker_free(&w);
	ibr_result_free(&r);
	ibr_fabric_free(f);
}

/* §2.2: the legal route from host 7 to host 14 is 7 -> 2 -> 1 <- 3 <- 9 <- 14. */
static void test_fera_takes_the_legal_route_of_2_2(void **state)
{
	static const int path[] = { 2, 1, 3, 9 };
	struct ibr_fabric *f = load_fig1(0);
	struct ibr_result r;
	struct ibr_walker w;
	struct ibr_error err = { "" };
	uint32_t s = switch_by_lid(f, 2), next = 0;

	(void)state;
	route(f, "fera", &r);
	assert_int_equal(ibr_walker_init(&w, f, &err), 0);
	for (unsigned i = 0; i + 1 < N(path); i++) {
		assert_int_equal(s, switch_by_lid(f, path[i]));
		assert_int_equal(ibr_walker_entry_step(&w, &r, s, 14, &next),
				 IBR_STEP_NEXT);
		s = next;
	}
	assert_int_equal(s, switch_by_lid(f, 9));
	assert_int_equal(ibr_walker_entry_step(&w, &r, s, 14, &next),
			 IBR_STEP_ARRIVED);
	ibr_walker_free(&w);
	ibr_result_free(&r);
	ibr_fabric_free(f);
}

static void test_pira_is_fig8(void **state)
{
	struct ibr_fabric *f = load_fig1(0);
	struct ibr_result r, engine;
	struct ibr_pira_detail d;
	struct ibr_route_ctx ctx;
	struct ibr_root_choice root = { .guid = 0, .strategy = IBR_ROOT_SM };
	struct ibr_error err = { "" };
	uint64_t explicit_entries = 0;

	(void)state;
	/* the registered engine: its counts and tables */
	route(f, "pira", &engine);
	assert_int_equal(ibr_stat_get(&engine, "default ports", 0), 7);
	assert_int_equal(ibr_stat_get(&engine, "explicit entries", 0), 50);
	/* the paper's form of the same routes */
	assert_int_equal(ibr_ctx_init(&ctx, f, &root, NULL, &err), 0);
	ctx.port_choice = IBR_PORT_LOWEST;
	assert_int_equal(ibr_result_init(&r, f, &err), 0);
	assert_int_equal(ibr_pira_route_detail(&ctx, &r, &d, &err), 0);
	assert_memory_equal(r.col, engine.col, (size_t)r.num_lids * r.num_switches);
	for (uint32_t s = 0; s < f->num_switches; s++)
		for (int lid = 1; lid <= 15; lid++) {
			if (ibr_pira_is_explicit(&d, lid, s))
				explicit_entries++;
			else
				assert_int_equal(ibr_entry(&r, s, lid),
						 d.default_port[s]);
		}
	assert_int_equal(explicit_entries, 50);
	assert_int_equal(d.default_port[switch_by_lid(f, 1)], IBR_NO_PATH);
	for (unsigned i = 0; i < N(fig8_defaults); i++)
		assert_int_equal(d.default_port[switch_by_lid(f, fig8_defaults[i].sw)],
				 fig8_defaults[i].port);
	for (unsigned i = 0; i < N(fig8); i++) {
		uint32_t s = switch_by_lid(f, fig8[i].sw);
		if (!ibr_pira_is_explicit(&d, fig8[i].dlid, s) ||
		    ibr_entry(&r, s, fig8[i].dlid) != fig8[i].port)
			fail_msg("Fig. 8 entry %d: %d -> %d, got %d (%s)",
				 fig8[i].sw, fig8[i].dlid, fig8[i].port,
				 ibr_entry(&r, s, fig8[i].dlid),
				 ibr_pira_is_explicit(&d, fig8[i].dlid, s) ?
				 "explicit" : "implicit");
	}
	ibr_pira_detail_free(&d);
	ibr_ctx_free(&ctx);
	ibr_result_free(&r);
	ibr_result_free(&engine);
	ibr_fabric_free(f);
}

/* With LMC 2 every LID of a host's range routes like its base LID. */
static void test_lmc_ranges_route_like_base(void **state)
{
	struct ibr_fabric *f = load_fig1(0);
	struct ibr_error err = { "" };
	static const char *const engines[] = { "pira", "fera" };

	(void)state;
	ibr_fabric_free(f);
	f = ibr_fabric_read_file(FABRICS_DIR "/fig1.net", &err);
	assert_non_null(f);
	/* drop the file's LIDs so finalize hands out aligned blocks of 4 */
	for (uint32_t i = 0; i < f->num_ports; i++)
		f->ports[i].base_lid = 0;
	assert_int_equal(ibr_fabric_finalize(f, 2, &err), 0);
	for (unsigned k = 0; k < N(engines); k++) {
		struct ibr_result r;
		route(f, engines[k], &r);
		for (uint32_t e = 0; e < f->num_end_ports; e++) {
			ibr_lid_t base = ibr_end_port_lid(f, e);
			assert_int_equal(base % 4, 0);
			for (uint32_t s = 0; s < f->num_switches; s++)
				for (int j = 1; j < 4; j++)
					assert_int_equal(ibr_entry(&r, s, base + j),
							 ibr_entry(&r, s, base));
		}
		ibr_result_free(&r);
	}
	ibr_fabric_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fabric_is_fig1),
		cmocka_unit_test(test_fera_is_fig6),
		cmocka_unit_test(test_fera_takes_the_legal_route_of_2_2),
		cmocka_unit_test(test_pira_is_fig8),
		cmocka_unit_test(test_lmc_ranges_route_like_base),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
