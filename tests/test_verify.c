/*
 * test_verify.c - the verifier must catch what it promises to catch.
 *
 * Each test starts from correct FERa tables and breaks them in one way:
 * a loop, a missing route, a port with no link, a port 0 off the owner, a
 * route for an unowned LID, and finally tables that are loop-free and
 * deliver everything but close a credit loop (every packet goes clockwise
 * round a ring).  The verifier must count exactly that finding and name
 * the switch or the cycle.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "ibrouting/certify.h"
#include "ibrouting/engine.h"
#include "ibrouting/metrics.h"
#include "ibrouting/verify.h"
#include "fixtures.h"

struct fixture {
	struct ibr_fabric *f;
	struct ibr_result r;
};

/* A ring of 6 four-port switches: port 1 to the next switch (its port 2),
 * port 3 to a CA, port 4 left free. */
static int setup_ring(void **state)
{
	static struct fixture fx;
	struct ibr_root_choice root = { .strategy = IBR_ROOT_LOWEST_LID };
	struct ibr_error err = { "" };
	uint32_t sw[6];

	fx.f = ibr_fabric_new();
	for (unsigned i = 0; i < 6; i++)
		sw[i] = ibr_fabric_add_node(fx.f, IBR_NODE_SWITCH, 0x200000 + i, 4,
					    "ring switch", NULL, &err);
	for (unsigned i = 0; i < 6; i++) {
		uint32_t ca = ibr_fabric_add_node(fx.f, IBR_NODE_CA, 0x100000 + 2 * i,
						  1, "ring host", NULL, &err);
		if (ibr_fabric_connect(fx.f, sw[i], 1, sw[(i + 1) % 6], 2, &err) ||
		    ibr_fabric_connect(fx.f, sw[i], 3, ca, 1, &err))
			fail_msg("%s", err.msg);
	}
	if (ibr_fabric_finalize(fx.f, 0, &err) ||
	    ibr_route_once(fx.f, ibr_engine_find("fera"), &root, NULL, &fx.r,
			   &err))
		fail_msg("%s", err.msg);
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

static struct ibr_verify_report check(struct fixture *fx)
{
	struct ibr_verify_report rep;
	struct ibr_error err = { "" };

	assert_int_equal(ibr_verify(fx->f, &fx->r, NULL, &rep, &err), 0);
	return rep;
}

/* The entry of switch s for lid, to break it. */
static uint8_t *entry(struct fixture *fx, uint32_t s, ibr_lid_t lid)
{
	return &ibr_column(&fx->r, lid)[s];
}

/* A switch's port towards a neighbouring switch, and that neighbour. */
static void test_clean_tables_pass(void **state)
{
	struct ibr_verify_report rep = check(*state);

	assert_int_equal(ibr_verify_findings(&rep), 0);
	assert_int_equal(rep.num_messages, 0);
	assert_true(rep.walks > 0);
}

static void test_loop_is_found(void **state)
{
	struct fixture *fx = *state;
	ibr_lid_t lid = ibr_end_port_lid(fx->f, 0);  /* CA on switch 0 */
	uint8_t *e2 = entry(fx, 2, lid), *e3 = entry(fx, 3, lid);
	uint8_t save2 = *e2, save3 = *e3;
	struct ibr_verify_report rep;

	*e2 = 1; /* to switch 3 */
	*e3 = 2; /* back to switch 2 */
	rep = check(fx);
	assert_int_equal(rep.loops, 1);
	assert_int_equal(ibr_verify_findings(&rep), 1);
	assert_non_null(strstr(rep.messages[0], "loops"));
	assert_non_null(strstr(rep.messages[0], "0x0000000000200002"));
	*e2 = save2;
	*e3 = save3;
}

static void test_missing_route_is_found(void **state)
{
	struct fixture *fx = *state;
	ibr_lid_t lid = ibr_end_port_lid(fx->f, 3);
	uint8_t *e = entry(fx, 0, lid), save = *e;
	struct ibr_verify_report rep;

	*e = IBR_NO_PATH;
	rep = check(fx);
	assert_int_equal(rep.unreachable, 1);
	assert_int_equal(ibr_verify_findings(&rep), 1);
	assert_non_null(strstr(rep.messages[0], "has no route to LID"));
	*e = save;
}

/* Every LID of a range is owed a route from every switch, the ones above
 * the base too (hosts send to base+k without asking the SA): dr's tables
 * at LMC 1 on the ring verify clean; one extra LID deleted at one switch
 * is a finding of the verifier and of the certificate. */
static void test_missing_extra_lid_is_found(void **state)
{
	struct ibr_fabric *f = generated_fabric("random:sw=8,ca=16,seed=5", 1);
	struct ibr_root_choice root = { .strategy = IBR_ROOT_LOWEST_LID };
	struct ibr_error err = { "" };
	struct ibr_certify_report cert;
	struct ibr_verify_report rep;
	struct ibr_result r;
	ibr_lid_t lid = ibr_end_port_lid(f, 3) + 1;
	uint32_t s = (f->end_ports[3].sw + 1) % f->num_switches;

	(void)state;
	if (ibr_route_once(f, ibr_engine_find("dr"), &root, NULL, &r, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(ibr_verify(f, &r, NULL, &rep, &err), 0);
	assert_int_equal(ibr_verify_findings(&rep), 0);
	assert_int_not_equal(ibr_entry(&r, s, lid), IBR_NO_PATH);
	ibr_set_entry(&r, s, lid, IBR_NO_PATH);
	assert_int_equal(ibr_verify(f, &r, NULL, &rep, &err), 0);
	assert_true(rep.unreachable >= 1);
	assert_non_null(strstr(rep.messages[0], "above its range's base"));
	assert_int_equal(ibr_certify(f, &r, &cert, &err), 0);
	assert_true(cert.unreachable >= 1);
	ibr_result_free(&r);
	ibr_fabric_free(f);
}

static void test_dead_port_and_wrong_delivery_are_found(void **state)
{
	struct fixture *fx = *state;
	ibr_lid_t lid = ibr_end_port_lid(fx->f, 2);
	uint32_t s = fx->f->end_ports[4].sw;
	uint8_t *e = entry(fx, s, lid), save = *e;
	struct ibr_verify_report rep;

	*e = 4; /* the free port */
	assert_int_equal(ibr_port(fx->f, fx->f->sw_node[s], *e)->remote_node,
			 IBR_NONE);
	rep = check(fx);
	assert_int_equal(rep.bad_port, 1);
	assert_non_null(strstr(rep.messages[0], "which has no link"));

	*e = 0;
	rep = check(fx);
	assert_int_equal(rep.bad_port, 1);
	assert_non_null(strstr(rep.messages[0], "is not there"));
	*e = save;
}

static void test_route_for_unowned_lid_is_found(void **state)
{
	struct fixture *fx = *state;
	ibr_lid_t lid = ibr_end_port_lid(fx->f, 0);
	struct ibr_lid_owner save = fx->f->lid_owner[lid];
	struct ibr_verify_report rep;

	fx->f->lid_owner[lid].node = IBR_NONE;
	rep = check(fx);
	assert_int_equal(rep.bad_port, fx->f->num_switches);
	assert_non_null(strstr(rep.messages[0], "no port owns"));
	fx->f->lid_owner[lid] = save;
}

/* Clockwise round the ring for every destination: delivers, no loop, but
 * the channel dependencies close the ring. */
static void test_credit_loop_is_found(void **state)
{
	struct fixture *fx = *state;
	const struct ibr_fabric *f = fx->f;
	size_t bytes = (size_t)f->num_switches * fx->r.num_lids;
	uint8_t *save = malloc(bytes);
	struct ibr_verify_report rep;

	memcpy(save, fx->r.col, bytes);
	for (uint32_t e = 0; e < f->num_end_ports; e++) {
		ibr_lid_t lid = ibr_end_port_lid(f, e);
		for (uint32_t t = 0; t < f->num_switches; t++)
			if (t != f->end_ports[e].sw)
				*entry(fx, t, lid) = 1; /* clockwise */
	}
	rep = check(fx);
	assert_int_equal(rep.loops + rep.unreachable + rep.bad_port, 0);
	assert_int_equal(rep.cycles, 1);
	assert_non_null(strstr(rep.messages[0], "credit loop"));
	memcpy(fx->r.col, save, bytes);
	free(save);
}

/* ---- the union of two sets of tables ---------------------------------- */

/* A copy of the fixture's tables whose LIDs go round the ring one way
 * (port 1 clockwise, 2 counter-clockwise) except walks that would pass
 * switch 0 on the way, which go the other way round: loop-free and, the
 * chain of turns being broken at switch 0, free of credit loops on its
 * own.  clockwise picks the preferred direction. */
static void ring_one_way(const struct fixture *fx, struct ibr_result *out,
			 bool clockwise)
{
	const struct ibr_fabric *f = fx->f;
	struct ibr_error err = { "" };

	assert_int_equal(ibr_result_init(out, f, &err), 0);
	memcpy(out->col, fx->r.col, (size_t)f->num_switches * fx->r.num_lids);
	/* the CA LIDs (e < end ports), then the switch LIDs */
	for (uint32_t e = 0; e < f->num_end_ports + f->num_switches; e++) {
		bool ca = e < f->num_end_ports;
		uint32_t d = ca ? f->end_ports[e].sw : e - f->num_end_ports;
		ibr_lid_t lid = ca ? ibr_end_port_lid(f, e) : ibr_switch_lid(f, d);
		for (uint32_t s = 0; s < f->num_switches; s++) {
			/* does the walk the preferred way pass switch 0? */
			bool via0 = clockwise ? s > d && d != 0
					      : s < d && s != 0;
			if (s != d)
				ibr_column(out, lid)[s] =
					(clockwise != via0) ? 1 : 2;
		}
	}
}

static struct ibr_verify_report check_union(const struct fixture *fx,
					    const struct ibr_result *a,
					    const struct ibr_result *b)
{
	struct ibr_verify_report rep;
	struct ibr_error err = { "" };

	assert_int_equal(ibr_verify_union(fx->f, a, b, &rep, &err), 0);
	return rep;
}

/* Tables with themselves: nothing changes, nothing to find. */
static void test_union_of_equal_tables_is_clean(void **state)
{
	struct fixture *fx = *state;
	struct ibr_verify_report rep = check_union(fx, &fx->r, &fx->r);

	assert_int_equal(ibr_verify_findings(&rep), 0);
	assert_int_equal(rep.changed, 0);
	assert_true(rep.dependencies > 0);
}

/* A triangle of switches 0, 1, 2 (port 1 to the next switch, 2 to the
 * previous one, 3 to a CA), rooted at 0: 1 -> 2 points down, 2 -> 1 up.
 * FERa routes every LID over the direct link.  Provisional tables: FERa
 * but switch 2 reaches switch 1's LIDs through 0 (up, then down: legal).
 * Final tables: FERa but switch 0 reaches 2's LIDs through 1 and switch 1
 * reaches 0's through 2 (down, then up at 2: not up/down, yet acyclic).
 * Each set verifies on its own; mixed, the three turns close the triangle
 * 0 -> 1 -> 2 -> 0 while no walk loops. */
static void test_union_credit_loop_is_found(void **state)
{
	struct ibr_root_choice root = { .guid = 0x300000, .strategy = IBR_ROOT_SM };
	struct ibr_error err = { "" };
	struct fixture tri = { ibr_fabric_new(), { 0 } };
	struct ibr_result prov, fin;
	struct ibr_verify_report rep;
	uint32_t sw[3];

	(void)state;
	for (unsigned i = 0; i < 3; i++)
		sw[i] = ibr_fabric_add_node(tri.f, IBR_NODE_SWITCH, 0x300000 + i,
					    4, "triangle switch", NULL, &err);
	for (unsigned i = 0; i < 3; i++) {
		uint32_t ca = ibr_fabric_add_node(tri.f, IBR_NODE_CA,
						  0x400000 + 2 * i, 1,
						  "triangle host", NULL, &err);
		if (ibr_fabric_connect(tri.f, sw[i], 1, sw[(i + 1) % 3], 2, &err) ||
		    ibr_fabric_connect(tri.f, sw[i], 3, ca, 1, &err))
			fail_msg("%s", err.msg);
	}
	if (ibr_fabric_finalize(tri.f, 0, &err) ||
	    ibr_route_once(tri.f, ibr_engine_find("fera"), &root, NULL,
			   &tri.r, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(tri.r.root, sw[0]);
	assert_int_equal(ibr_result_init(&prov, tri.f, &err), 0);
	assert_int_equal(ibr_result_init(&fin, tri.f, &err), 0);
	memcpy(prov.col, tri.r.col, (size_t)3 * tri.r.num_lids);
	memcpy(fin.col, tri.r.col, (size_t)3 * tri.r.num_lids);
	for (uint32_t e = 0; e < tri.f->num_end_ports; e++) {
		ibr_lid_t lids[2] = { ibr_end_port_lid(tri.f, e),
				      ibr_switch_lid(tri.f, tri.f->end_ports[e].sw) };
		for (unsigned k = 0; k < 2; k++) {
			ibr_lid_t l = lids[k];
			switch (tri.f->end_ports[e].sw) {
			case 1: ibr_column(&prov, l)[2] = 1; break; /* 2 -> 0 -> 1 */
			case 2: ibr_column(&fin, l)[0] = 1; break;  /* 0 -> 1 -> 2 */
			case 0: ibr_column(&fin, l)[1] = 1; break;  /* 1 -> 2 -> 0 */
			}
		}
	}
	for (unsigned k = 0; k < 2; k++) {
		assert_int_equal(ibr_verify(tri.f, k ? &fin : &prov, NULL, &rep,
					    &err), 0);
		assert_int_equal(ibr_verify_findings(&rep), 0);
	}
	rep = check_union(&tri, &prov, &fin);
	assert_int_equal(rep.loops, 0);
	assert_int_equal(rep.cycles, 1);
	assert_int_equal(rep.changed, 6); /* 3 CA LIDs, 3 switch LIDs */
	assert_non_null(strstr(rep.messages[0], "credit loop"));
	/* either order: the union is symmetric */
	rep = check_union(&tri, &fin, &prov);
	assert_int_equal(rep.cycles, 1);
	/* and without the provisional detour, the final tables mix with
	 * FERa's safely */
	rep = check_union(&tri, &tri.r, &fin);
	assert_int_equal(ibr_verify_findings(&rep), 0);
	ibr_result_free(&prov);
	ibr_result_free(&fin);
	teardown(&(void *){ &tri });
}

/* Clockwise and counter-clockwise tables, each loop-free: mixed, a packet
 * can bounce between two neighbours. */
static void test_union_loop_is_found(void **state)
{
	struct fixture *fx = *state;
	struct ibr_result cw, ccw;
	struct ibr_verify_report rep;
	struct ibr_error err = { "" };

	ring_one_way(fx, &cw, true);
	ring_one_way(fx, &ccw, false);
	assert_int_equal(ibr_verify(fx->f, &ccw, NULL, &rep, &err), 0);
	assert_int_equal(ibr_verify_findings(&rep), 0);
	rep = check_union(fx, &cw, &ccw);
	assert_true(rep.loops > 0);
	assert_int_equal(rep.cycles, 0); /* not searched once a walk loops */
	assert_non_null(strstr(rep.messages[0], "can loop"));
	ibr_result_free(&cw);
	ibr_result_free(&ccw);
}

/* A designated DLID outside the destination's range is a finding. */
static void test_designated_out_of_range_is_found(void **state)
{
	struct fixture *fx = *state;
	struct ibr_error err = { "" };
	struct ibr_verify_report rep;

	assert_int_equal(ibr_designated_init(&fx->r, fx->f, false, &err), 0);
	rep = check(fx);
	assert_int_equal(ibr_verify_findings(&rep), 0);
	assert_int_equal(rep.designated.flows, 6 * 5);
	fx->r.designated.offset[1 * fx->r.designated.cols + 4] = 1; /* LMC 0 */
	rep = check(fx);
	assert_int_equal(rep.bad_designated, 1);
	assert_non_null(strstr(rep.messages[0], "outside its LIDs"));
	/* checking without measuring finds the same, measures nothing */
	{
		struct ibr_verify_options only = { .check_only = true };
		assert_int_equal(ibr_verify(fx->f, &fx->r, &only, &rep, &err), 0);
		assert_int_equal(rep.bad_designated, 1);
		assert_int_equal(rep.designated.flows, 0);
	}
	free(fx->r.designated.offset);
	fx->r.designated.offset = NULL;
}

/* The load bound: hosts - 1 on an intact 4-ary 2-tree (a host's own link;
 * a leaf's 4 hosts send 4 * 12 flows over 4 up links, 12 each), and on
 * the same tree with a leaf's up link cut, that leaf's 48 flows over 3
 * links: 16, set by that leaf. */
/* ca_lids_only: a switch LID's column is neither walked nor judged (one
 * LID half of the Double Scheme's tables, whose switch LIDs carry the
 * function in force); CA LIDs are judged as always. */
static void test_ca_lids_only_skips_switch_lids(void **state)
{
	struct fixture *fx = *state;
	const struct ibr_verify_options ca_only = { .ca_lids_only = true };
	ibr_lid_t sw_lid = ibr_switch_lid(fx->f, 3);
	ibr_lid_t ca_lid = ibr_end_port_lid(fx->f, 3);
	uint8_t *e = entry(fx, 0, sw_lid), save = *e;
	struct ibr_verify_report all = check(fx), rep;
	struct ibr_error err = { "" };

	*e = IBR_NO_PATH;
	assert_int_equal(check(fx).unreachable, 1);
	assert_int_equal(ibr_verify(fx->f, &fx->r, &ca_only, &rep, &err), 0);
	assert_int_equal(ibr_verify_findings(&rep), 0);
	assert_int_equal(rep.walks, all.walks - (uint64_t)fx->f->num_switches *
			 fx->f->num_switches);
	*e = save;
	e = entry(fx, 0, ca_lid);
	save = *e;
	*e = IBR_NO_PATH;
	assert_int_equal(ibr_verify(fx->f, &fx->r, &ca_only, &rep, &err), 0);
	assert_int_equal(rep.unreachable, 1);
	*e = save;
}

static void test_load_bound(void **state)
{
	struct ibr_fabric *f;
	uint32_t worst;

	(void)state;
	f = generated_fabric("kary:k=4,n=2", 0);
	assert_int_equal(ibr_metrics_load_bound(f, &worst), 15);
	assert_int_equal(worst, IBR_NONE);
	/* between switches: a leaf's 4 hosts send 4 * 12 flows over 4 links */
	assert_int_equal(ibr_metrics_switch_link_bound(f, &worst), 12);
	assert_int_not_equal(worst, IBR_NONE);
	assert_int_equal(f->sw_ca_start[worst + 1] - f->sw_ca_start[worst], 4);
	ibr_fabric_free(f);
	f = generated_fabric("kary:k=4,n=2,cut=1,seed=1", 0);
	assert_int_equal(ibr_metrics_load_bound(f, &worst), 16);
	assert_int_not_equal(worst, IBR_NONE);
	assert_int_equal(f->sw_ca_start[worst + 1] - f->sw_ca_start[worst], 4);
	assert_int_equal(f->sw_adj_start[worst + 1] - f->sw_adj_start[worst], 3);
	assert_int_equal(ibr_metrics_switch_link_bound(f, &worst), 16);
	ibr_fabric_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_clean_tables_pass),
		cmocka_unit_test(test_loop_is_found),
		cmocka_unit_test(test_missing_route_is_found),
		cmocka_unit_test(test_missing_extra_lid_is_found),
		cmocka_unit_test(test_dead_port_and_wrong_delivery_are_found),
		cmocka_unit_test(test_route_for_unowned_lid_is_found),
		cmocka_unit_test(test_credit_loop_is_found),
		cmocka_unit_test(test_union_of_equal_tables_is_clean),
		cmocka_unit_test(test_union_credit_loop_is_found),
		cmocka_unit_test(test_union_loop_is_found),
		cmocka_unit_test(test_designated_out_of_range_is_found),
		cmocka_unit_test(test_ca_lids_only_skips_switch_lids),
		cmocka_unit_test(test_load_bound),
	};
	return cmocka_run_group_tests(tests, setup_ring, teardown);
}
