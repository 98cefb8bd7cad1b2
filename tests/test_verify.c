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

#include "ibrouting/engine.h"
#include "ibrouting/verify.h"

struct fixture {
	struct ibr_fabric *f;
	struct ibr_result r;
};

/* A ring of 6 four-port switches: port 1 to the next switch (its port 2),
 * port 3 to a CA, port 4 left free. */
static int setup_ring(void **state)
{
	static struct fixture fx;
	struct ibr_root_choice root = { 0, IBR_ROOT_LOWEST_LID };
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_clean_tables_pass),
		cmocka_unit_test(test_loop_is_found),
		cmocka_unit_test(test_missing_route_is_found),
		cmocka_unit_test(test_dead_port_and_wrong_delivery_are_found),
		cmocka_unit_test(test_route_for_unowned_lid_is_found),
		cmocka_unit_test(test_credit_loop_is_found),
		cmocka_unit_test(test_designated_out_of_range_is_found),
	};
	return cmocka_run_group_tests(tests, setup_ring, teardown);
}
