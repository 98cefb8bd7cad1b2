/*
 * test_designated.c - designated DLIDs by hand: a two-LID example where
 * one pair is sent off the base route on its destination's second LID.
 *
 *        s0 (root, LID 1)          every switch: ports 1, 2 to switches,
 *       /p1    \p2                 port 3 to its host h0..h3 (LMC 1:
 *     s1        s2                 h0 = 8-9, h1 = 10-11, h2 = 12-13,
 *       \p2    /p2                 h3 = 14-15)
 *        s3
 *
 * FERa sends h0 -> h3 through s1 (lowest port).  The path set realises
 * h0 -> h3 through s2 on LID 15, the rest of LID 15 completed with the
 * base tree: the verifier must accept it, walk the designated pair along
 * s2, count its load there; the dump must carry it and read it back; a
 * path that would split from it on LID 15 must be refused.
 * And the LID paper's Fig. 2: two paths to m4 that split, coloured and
 * realised on m4's LIDs 4 and 5 with the entries the figure prints.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "ibrouting/certify.h"
#include "ibrouting/colorl.h"
#include "ibrouting/dr.h"
#include "ibrouting/dump.h"
#include "ibrouting/engine.h"
#include "ibrouting/lidassign.h"
#include "ibrouting/pathset.h"
#include "ibrouting/management.h"
#include "ibrouting/ranges.h"
#include "ibrouting/verify.h"
#include "fixtures.h"

struct fixture {
	struct ibr_fabric *f;
	struct ibr_result r;
	uint32_t sw[4], host[4];   /* switch indexes, end port indexes */
};

static uint32_t end_port_of(const struct ibr_fabric *f, uint32_t node)
{
	for (uint32_t e = 0; e < f->num_end_ports; e++)
		if (f->end_ports[e].node == node)
			return e;
	fail_msg("node %u is no end port", node);
	return IBR_NONE;
}

static int setup(void **state)
{
	static struct fixture fx;
	static const unsigned links[][4] = {
		{ 0, 1, 1, 1 }, { 0, 2, 2, 1 }, { 1, 2, 3, 1 }, { 2, 2, 3, 2 },
	};
	struct ibr_root_choice root = { .strategy = IBR_ROOT_LOWEST_LID };
	struct ibr_error err = { "" };
	uint32_t sw[4], ca[4];

	memset(&fx, 0, sizeof(fx));
	fx.f = ibr_fabric_new();
	for (unsigned i = 0; i < 4; i++) {
		sw[i] = ibr_fabric_add_node(fx.f, IBR_NODE_SWITCH, 0x200000 + i, 3,
					    "square switch", NULL, &err);
		ca[i] = ibr_fabric_add_node(fx.f, IBR_NODE_CA, 0x100000 + 2 * i, 1,
					    "square host", NULL, &err);
		ibr_fabric_set_lid(fx.f, sw[i], 0, 1 + i, 0);
		ibr_fabric_set_lid(fx.f, ca[i], 1, 8 + 2 * i, 1);
		if (ibr_fabric_connect(fx.f, sw[i], 3, ca[i], 1, &err))
			fail_msg("%s", err.msg);
	}
	for (unsigned i = 0; i < 4; i++)
		if (ibr_fabric_connect(fx.f, sw[links[i][0]], links[i][1],
				       sw[links[i][2]], links[i][3], &err))
			fail_msg("%s", err.msg);
	if (ibr_fabric_finalize(fx.f, 1, &err) ||
	    ibr_route_once(fx.f, ibr_engine_find("fera"), &root, NULL, &fx.r,
			   &err))
		fail_msg("%s", err.msg);
	for (unsigned i = 0; i < 4; i++) {
		fx.sw[i] = fx.f->nodes[sw[i]].sw_index;
		fx.host[i] = end_port_of(fx.f, ca[i]);
	}
	*state = &fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;

	ibr_result_free(&fx->r);
	ibr_fabric_free(fx->f);
	return 0;
}

/* h0 -> h3 through s2: s0 port 2, s2 port 2, s3 port 3 (to h3). */
static uint32_t add_detour(struct fixture *fx, struct ibr_pathset *ps)
{
	const uint32_t sw[] = { fx->sw[0], fx->sw[2], fx->sw[3] };
	const uint8_t port[] = { 2, 2, 3 };
	struct ibr_error err = { "" };

	return ibr_pathset_add(ps, fx->host[0], fx->host[3], sw, port, 3, &err);
}

/* Offset 1 of h3 holds the detour; every other entry of it follows the
 * base tree, as an engine would complete it. */
static void realise_detour(struct fixture *fx)
{
	struct ibr_pathset ps;
	struct ibr_error err = { "" };
	const uint8_t offset[] = { 1 };
	uint8_t *second = ibr_column(&fx->r, 15), *base = ibr_column(&fx->r, 14);

	ibr_pathset_init(&ps);
	assert_int_equal(add_detour(fx, &ps), 0);
	memset(second, IBR_NO_PATH, fx->f->num_switches);
	if (ibr_pathset_realise(&ps, fx->f, offset, &fx->r, &err))
		fail_msg("%s", err.msg);
	for (uint32_t s = 0; s < fx->f->num_switches; s++)
		if (second[s] == IBR_NO_PATH)
			second[s] = base[s];
	ibr_pathset_free(&ps);
}

static void test_base_route_goes_through_s1(void **state)
{
	struct fixture *fx = *state;

	assert_int_equal(ibr_entry(&fx->r, fx->sw[0], 14), 1);
	assert_int_equal(ibr_designated_dlid(&fx->r, fx->f, fx->host[0],
					     fx->host[3]), 14);
}

static void test_detour_is_designated_and_verified(void **state)
{
	struct fixture *fx = *state;
	struct ibr_verify_report before, after;
	struct ibr_error err = { "" };

	assert_int_equal(ibr_verify(fx->f, &fx->r, NULL, &before, &err), 0);
	realise_detour(fx);
	assert_int_equal(ibr_designated_dlid(&fx->r, fx->f, fx->host[0],
					     fx->host[3]), 15);
	assert_int_equal(ibr_designated_dlid(&fx->r, fx->f, fx->host[1],
					     fx->host[3]), 14);
	assert_int_equal(ibr_entry(&fx->r, fx->sw[0], 15), 2);
	assert_int_equal(ibr_verify(fx->f, &fx->r, NULL, &after, &err), 0);
	if (ibr_verify_findings(&after))
		fail_msg("%s", after.messages[0]);
	/* both routes are 4 links long: the mean stays, the load moves:
	 * 12 pairs; LIDs 14 and 15 of h3 are both used now. */
	assert_int_equal(after.designated.flows, 12);
	assert_true(after.designated.mean_path_len == before.designated.mean_path_len);
	assert_int_equal(after.designated.lids_used,
			 before.designated.lids_used + 1);
}

static void test_designated_walk_failure_is_found(void **state)
{
	struct fixture *fx = *state;
	struct ibr_verify_report rep;
	struct ibr_error err = { "" };

	realise_detour(fx);
	/* s2 drops LID 15: the column check and the designated walk fail */
	ibr_column(&fx->r, 15)[fx->sw[2]] = IBR_NO_PATH;
	assert_int_equal(ibr_verify(fx->f, &fx->r, NULL, &rep, &err), 0);
	assert_int_equal(rep.unreachable, 1);
	ibr_column(&fx->r, 15)[fx->sw[2]] = 2;
}

static void test_split_is_refused(void **state)
{
	struct fixture *fx = *state;
	/* h2 -> h3 through s0 and s1 on LID 15: at s2 it leaves by port 1
	 * where the detour leaves by port 2. */
	const uint32_t sw[] = { fx->sw[2], fx->sw[0], fx->sw[1], fx->sw[3] };
	const uint8_t port[] = { 1, 1, 2, 3 };
	const uint8_t offset[] = { 1, 1 };
	struct ibr_pathset ps;
	struct ibr_error err = { "" };

	memset(ibr_column(&fx->r, 15), IBR_NO_PATH, fx->f->num_switches);
	ibr_pathset_init(&ps);
	assert_int_equal(add_detour(fx, &ps), 0);
	assert_int_equal(ibr_pathset_add(&ps, fx->host[2], fx->host[3], sw, port,
					 4, &err), 1);
	assert_int_equal(ibr_path_len(&ps, 1), 4);
	assert_int_equal(ibr_pathset_realise(&ps, fx->f, offset, &fx->r, &err), -1);
	assert_non_null(strstr(err.msg, "splits at switch 0x0000000000200002"));
	ibr_pathset_free(&ps);
}

static void test_offset_beyond_range_is_refused(void **state)
{
	struct fixture *fx = *state;
	const uint8_t offset[] = { 2 };   /* LMC 1: offsets 0 and 1 */
	struct ibr_pathset ps;
	struct ibr_error err = { "" };

	ibr_pathset_init(&ps);
	add_detour(fx, &ps);
	assert_int_equal(ibr_pathset_realise(&ps, fx->f, offset, &fx->r, &err), -1);
	assert_non_null(strstr(err.msg, "beyond the destination's 2 LIDs"));
	ibr_pathset_free(&ps);
}

/* The walk of the tables as a path, and the dump round trip. */
static void test_walk_and_dump_roundtrip(void **state)
{
	struct fixture *fx = *state;
	char dir[] = "/tmp/ibr-designated-XXXXXX", path[64];
	struct ibr_error err = { "" };
	struct ibr_verify_report rep;
	struct ibr_fabric *g = NULL;
	struct ibr_result back;
	struct ibr_pathset ps;
	struct ibr_walker w;

	realise_detour(fx);
	assert_int_equal(ibr_walker_init(&w, fx->f, &err), 0);
	ibr_pathset_init(&ps);
	assert_int_equal(ibr_pathset_add_walk(&ps, &w, &fx->r, fx->host[0],
					      fx->host[3], 15, &err), 0);
	assert_int_equal(ibr_path_len(&ps, 0), 3);
	assert_int_equal(ps.hop_switch[1], fx->sw[2]);
	ibr_pathset_free(&ps);
	ibr_walker_free(&w);

	assert_non_null(mkdtemp(dir));
	assert_int_equal(ibr_dump_write(dir, fx->f, &fx->r, &err), 0);
	assert_int_equal(ibr_dump_read(dir, &g, &back, &err), 0);
	assert_non_null(back.designated.offset);
	for (uint32_t src = 0; src < 4; src++)
		for (uint32_t dst = 0; dst < 4; dst++)
			assert_int_equal(ibr_designated_dlid(&back, g, src, dst),
					 ibr_designated_dlid(&fx->r, fx->f, src, dst));
	assert_int_equal(ibr_verify(g, &back, NULL, &rep, &err), 0);
	assert_int_equal(ibr_verify_findings(&rep), 0);
	ibr_result_free(&back);
	ibr_fabric_free(g);
	for (const char *const *name = (const char *const[]){ "opensm-subnet.lst",
		"opensm-lfts.dump", "opensm.fdbs", "ibrouting-dlids.dump", NULL };
	     *name; name++) {
		snprintf(path, sizeof(path), "%s/%s", dir, *name);
		unlink(path);
	}
	rmdir(dir);
}

/* LID paper Fig. 2: switches s0, s1 (two links between them), s2;
 * machines m0, m1 on s0, m2 on s1, m3 on s1 and s2, m4 on s2 with LIDs 4
 * and 5.  The paths m0 -> s0 -(2nd link)-> s1 -> s2 -> m4 and
 * m1 -> s0 -> s2 -> m4 split at s0: color/L gives them two
 * configurations, realised on m4's LIDs 4 and 5, with the entries the
 * figure prints for LID 4: (4, port 2) at s0, (4, 3) at s1, (4, 3) at s2. */
static void test_lid_paper_fig2(void **state)
{
	/* node, port, node, port (s0..s2 = 0..2, m0..m4 = 3..7) */
	static const unsigned links[][4] = {
		{ 0, 1, 1, 1 }, { 0, 2, 1, 2 }, { 0, 3, 2, 1 }, { 1, 3, 2, 2 },
		{ 0, 4, 3, 1 }, { 0, 5, 4, 1 }, { 1, 4, 5, 1 }, { 1, 5, 6, 1 },
		{ 2, 4, 6, 2 }, { 2, 3, 7, 1 },
	};
	static const unsigned lids[][3] = { /* node, port, LID */
		{ 0, 0, 1 }, { 1, 0, 2 }, { 2, 0, 3 }, { 3, 1, 6 }, { 4, 1, 8 },
		{ 5, 1, 10 }, { 6, 1, 12 }, { 6, 2, 14 }, { 7, 1, 4 },
	};
	static const uint32_t a_sw[] = { 0, 1, 2 }, b_sw[] = { 0, 2 };
	static const uint8_t a_port[] = { 2, 3, 3 }, b_port[] = { 3, 3 };
	struct ibr_fabric *f = ibr_fabric_new();
	struct ibr_lid_assign_options o = { IBR_LA_COLOR_L, 1 };
	struct ibr_lid_assigner *la;
	struct ibr_error err = { "" };
	struct ibr_pathset ps;
	struct ibr_result r;
	uint32_t first[3] = { 0, 3, 5 }, hop_sw[5], color[2], k;
	uint8_t hop_port[5], offset[2];
	uint32_t m0, m1, m4;

	(void)state;
	for (unsigned i = 0; i < 3; i++)
		ibr_fabric_add_node(f, IBR_NODE_SWITCH, 0x200000 + i, 5, NULL, NULL, &err);
	for (unsigned i = 0; i < 5; i++)
		ibr_fabric_add_node(f, IBR_NODE_CA, 0x100000 + 4 * i, i == 3 ? 2 : 1,
				    NULL, NULL, &err);
	for (unsigned i = 0; i < sizeof(links) / sizeof(links[0]); i++)
		assert_int_equal(ibr_fabric_connect(f, links[i][0], links[i][1],
						    links[i][2], links[i][3], &err), 0);
	for (unsigned i = 0; i < sizeof(lids) / sizeof(lids[0]); i++)
		ibr_fabric_set_lid(f, lids[i][0], lids[i][1], lids[i][2], 1);
	ibr_fabric_set_lid(f, 0, 0, 1, 0);
	ibr_fabric_set_lid(f, 1, 0, 2, 0);
	ibr_fabric_set_lid(f, 2, 0, 3, 0);
	assert_int_equal(ibr_fabric_finalize(f, 1, &err), 0);
	m0 = end_port_of(f, 3);
	m1 = end_port_of(f, 4);
	m4 = end_port_of(f, 7);

	/* the two paths to m4, as switch hops, and their colouring */
	memcpy(hop_sw, a_sw, sizeof(a_sw));
	memcpy(hop_sw + 3, b_sw, sizeof(b_sw));
	memcpy(hop_port, a_port, 3);
	memcpy(hop_port + 3, b_port, 2);
	assert_int_equal(ibr_lid_assigner_new(&la, f->num_switches, &err), 0);
	assert_int_equal(ibr_lid_assign(la, &(struct ibr_dest_paths){
				2, first, hop_sw, hop_port }, &o, color, &k, NULL,
				&err), 0);
	assert_int_equal(k, 2);
	assert_int_not_equal(color[0], color[1]);
	ibr_lid_assigner_free(la);

	/* realised on m4's LIDs 4 and 5 */
	assert_int_equal(ibr_result_init(&r, f, &err), 0);
	ibr_pathset_init(&ps);
	assert_int_not_equal(ibr_pathset_add(&ps, m0, m4, a_sw, a_port, 3, &err), IBR_NONE);
	assert_int_not_equal(ibr_pathset_add(&ps, m1, m4, b_sw, b_port, 2, &err), IBR_NONE);
	offset[0] = (uint8_t)color[0];
	offset[1] = (uint8_t)color[1];
	assert_int_equal(ibr_pathset_realise(&ps, f, offset, &r, &err), 0);
	assert_int_equal(ibr_designated_dlid(&r, f, m0, m4), 4 + color[0]);
	assert_int_equal(ibr_designated_dlid(&r, f, m1, m4), 4 + color[1]);
	{
		ibr_lid_t la_lid = 4 + color[0], lb_lid = 4 + color[1];
		assert_int_equal(ibr_entry(&r, 0, la_lid), 2);
		assert_int_equal(ibr_entry(&r, 1, la_lid), 3);
		assert_int_equal(ibr_entry(&r, 2, la_lid), 3);
		assert_int_equal(ibr_entry(&r, 0, lb_lid), 3);
		assert_int_equal(ibr_entry(&r, 1, lb_lid), IBR_NO_PATH);
		assert_int_equal(ibr_entry(&r, 2, lb_lid), 3);
		assert_int_equal(la_lid, 4); /* the first path is coloured first */
	}
	ibr_pathset_free(&ps);
	ibr_result_free(&r);
	ibr_fabric_free(f);
}

/* One engine's tables before the routing layer completes its ranges
 * (ranges.h) and after: every entry the engine set is unchanged (the
 * designated paths keep their walks), the designated map too, and every
 * (switch, LID of a range) now delivers by a legal route (verify, the
 * certificate), but where no legal route exists (no root above both). */
static void assert_completion_keeps(struct ibr_fabric *f, const char *engine,
				    const char *what)
{
	struct ibr_root_choice root = { .strategy = IBR_ROOT_AUTO };
	struct ibr_error err = { "" };
	struct ibr_route_ctx ctx;
	struct ibr_result r, before;
	struct ibr_verify_report rep;
	struct ibr_certify_report cert;
	size_t n;
	int rc;

	assert_int_equal(ibr_ctx_init(&ctx, f, &root, NULL, &err), 0);
	assert_int_equal(ibr_result_init(&r, f, &err), 0);
	rc = strcmp(engine, "dr") == 0 ?
	     ibr_dr_route_detail(&ctx, &r, NULL, &err) :
	     ibr_colorl_route_detail(&ctx, &r, NULL, &err);
	if (rc)
		fail_msg("%s: %s", what, err.msg);
	assert_int_equal(ibr_result_set_roots(&r, ctx.updown.roots,
					      ctx.updown.num_roots, &err), 0);
	assert_int_equal(ibr_result_copy(&before, &r, &err), 0);
	assert_int_equal(ibr_ranges_complete(f, &ctx.updown, &r, 2, &err), 0);
	assert_true(r.ranges.completed);
	assert_int_equal(r.ranges.held_changed, 0);
	n = (size_t)r.num_switches * r.num_lids;
	for (size_t i = 0; i < n; i++)
		if (before.col[i] != IBR_NO_PATH && before.col[i] != r.col[i])
			fail_msg("%s: entry %zu (LID %zu at switch %zu) changed "
				 "from %u to %u", what, i, i / r.num_switches,
				 i % r.num_switches, before.col[i], r.col[i]);
	assert_memory_equal(before.designated.offset, r.designated.offset,
			    (size_t)r.designated.rows * r.designated.cols);
	/* the management routes too, as ibr_route sets them after */
	assert_int_equal(ibr_management_routes(f, &ctx.updown, &r, &err), 0);
	assert_int_equal(ibr_verify(f, &r, NULL, &rep, &err), 0);
	if (ibr_verify_findings(&rep))
		fail_msg("%s: %s", what, rep.messages[0]);
	assert_int_equal(ibr_certify(f, &r, &cert, &err), 0);
	if (ibr_certify_findings(&cert))
		fail_msg("%s: certificate: %s", what, cert.messages[0]);
	/* nothing left unrouted but what no legal route reaches */
	assert_int_equal(ibr_ranges_measure(f, &ctx.updown, &r, 1, &err), 0);
	assert_true(r.ranges.owed_none <= rep.no_legal_path);
	assert_true(r.ranges.pairs > 0 && r.ranges.routes >= r.ranges.pairs);
	/* and the range spreads: a host sending to base+k takes another
	 * route than the base's from some switches (each fabric here has
	 * several legal routes between most switch pairs) */
	print_message("%s: %.2f distinct routes per (switch, CA port), %llu "
		      "of %llu pairs on more than one\n", what,
		      (double)r.ranges.routes / r.ranges.pairs,
		      (unsigned long long)r.ranges.pairs_diverse,
		      (unsigned long long)r.ranges.pairs);
	assert_true(r.ranges.pairs_diverse * 4 > r.ranges.pairs);
	/* the same tables for any thread count */
	{
		struct ibr_result one;
		assert_int_equal(ibr_result_copy(&one, &before, &err), 0);
		assert_int_equal(ibr_ranges_complete(f, &ctx.updown, &one, 1,
						     &err), 0);
		assert_int_equal(ibr_management_routes(f, &ctx.updown, &one,
						       &err), 0);
		assert_memory_equal(one.col, r.col, n);
		ibr_result_free(&one);
	}
	ibr_result_free(&before);
	ibr_result_free(&r);
	ibr_ctx_free(&ctx);
}

static void test_ranges_completed_around_designated(void **state)
{
	static const char *const specs[] = {
		"random:sw=32,ca=256,seed=3", "random:sw=16,ca=64,seed=21",
		"kary:k=4,n=3", "clos:leaf=8,spine=4,ca=64,seed=23",
	};
	static const char *const engines[] = { "dr", "colorl" };
	char what[128];

	(void)state;
	for (unsigned lmc = 1; lmc <= 3; lmc++)
		for (unsigned e = 0; e < 2; e++) {
			struct ibr_fabric *f;
			for (unsigned i = 0; i < sizeof(specs) / sizeof(*specs);
			     i++) {
				snprintf(what, sizeof(what), "%s lmc %u on %s",
					 engines[e], lmc, specs[i]);
				f = generated_fabric(specs[i], lmc);
				assert_completion_keeps(f, engines[e], what);
				ibr_fabric_free(f);
			}
			/* aggregation nodes on the roots: the switches with no
			 * root above both stay without a route, exempt */
			snprintf(what, sizeof(what), "%s lmc %u with aggregation "
				 "nodes", engines[e], lmc);
			f = clos_with_aggregation_nodes(lmc);
			assert_completion_keeps(f, engines[e], what);
			ibr_fabric_free(f);
		}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_base_route_goes_through_s1, setup, teardown),
		cmocka_unit_test_setup_teardown(test_detour_is_designated_and_verified, setup, teardown),
		cmocka_unit_test_setup_teardown(test_designated_walk_failure_is_found, setup, teardown),
		cmocka_unit_test_setup_teardown(test_split_is_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_offset_beyond_range_is_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_walk_and_dump_roundtrip, setup, teardown),
		cmocka_unit_test(test_lid_paper_fig2),
		cmocka_unit_test(test_ranges_completed_around_designated),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
