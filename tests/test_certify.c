/*
 * test_certify.c - the certificate (certify.h) accepts what our engines
 * make and rejects what it promises to reject.
 *
 * Acceptance: every engine of the registry on generated fabrics of every
 * kind, at LMC 0 to 3: no finding, and the full verifier agrees.
 * Rejection, each from correct FERa tables broken in one way: a down-up
 * turn that still delivers without a loop, a loop, every packet clockwise
 * round a ring (a credit loop), a port with no link, port 0 off the owner,
 * an owned LID with no route, a route for an unowned LID, a renamed LID
 * whose set entry leads to a switch without one, a designated DLID with no
 * route at its source switch and one outside its range; and tables legal
 * under one root judged under another, which the full verifier accepts
 * (why the plugin runs the full check before refusing).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "fixtures.h"
#include "ibrouting/certify.h"
#include "ibrouting/engine.h"
#include "ibrouting/verify.h"
#include "ibrouting/walk.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static struct ibr_certify_report certify(const struct ibr_fabric *f,
					 const struct ibr_result *r)
{
	struct ibr_certify_report rep;
	struct ibr_error err = { "" };

	if (ibr_certify(f, r, &rep, &err))
		fail_msg("certify: %s", err.msg);
	return rep;
}

static struct ibr_verify_report verify(const struct ibr_fabric *f,
				       const struct ibr_result *r)
{
	struct ibr_verify_report rep;
	struct ibr_error err = { "" };

	if (ibr_verify(f, r, NULL, &rep, &err))
		fail_msg("verify: %s", err.msg);
	return rep;
}

static void route(const struct ibr_fabric *f, const char *engine,
		  struct ibr_result *r)
{
	struct ibr_root_choice root = { .guid = 0, .strategy = IBR_ROOT_SM };
	struct ibr_error err = { "" };

	if (ibr_route_once(f, ibr_engine_find(engine), &root, NULL, r, &err))
		fail_msg("%s: %s", engine, err.msg);
}

static bool has_message(const struct ibr_certify_report *rep, const char *text)
{
	for (unsigned i = 0; i < rep->num_messages; i++)
		if (strstr(rep->messages[i], text))
			return true;
	return false;
}

/* ---- every engine's tables pass ----------------------------------------- */

static const struct {
	const char *spec;
	unsigned lmc;
} accepted[] = {
	{ "random:sw=16,ca=128,seed=1", 0 },   { "random:sw=32,ca=256,seed=2", 0 },
	{ "random:sw=64,ca=512,seed=1", 0 },   { "random:sw=48,ca=96,deg=4,seed=7", 0 },
	{ "clos:leaf=8,spine=4,ca=128,seed=2", 0 },
	{ "torus:dims=4x4x4,ca=1,broken=6,seed=6", 0 },
	{ "torus:dims=8x8,ca=1,broken=12,seed=11", 0 },
	{ "random:sw=2,ca=4,deg=1,seed=1", 0 }, { "random:sw=1,ca=8,deg=0,seed=1", 0 },
	{ "random:sw=3,ca=0,deg=2,seed=2", 0 },
	{ "random:sw=16,ca=64,seed=21", 1 },    { "random:sw=32,ca=128,seed=22", 2 },
	{ "clos:leaf=8,spine=4,ca=64,seed=23", 3 },
	{ "torus:dims=4x4,ca=2,broken=3,seed=24", 2 },
};

static void test_every_engine_is_certified(void **state)
{
	unsigned runs = 0;

	(void)state;
	for (unsigned i = 0; i < N(accepted); i++) {
		struct ibr_fabric *f = generated_fabric(accepted[i].spec,
							accepted[i].lmc);
		for (unsigned e = 0; ibr_engines[e]; e++) {
			struct ibr_result r;
			struct ibr_certify_report cert;
			struct ibr_verify_report full;
			route(f, ibr_engines[e]->name, &r);
			cert = certify(f, &r);
			full = verify(f, &r);
			if (ibr_certify_findings(&cert) != 0)
				fail_msg("%s on %s lmc %u: %s", ibr_engines[e]->name,
					 accepted[i].spec, accepted[i].lmc,
					 cert.messages[0]);
			assert_int_equal(ibr_verify_findings(&full), 0);
			/* counted as the verifier's walks and the engine's
			 * entries: the owned LIDs at every switch; the others
			 * checked empty apart */
			assert_int_equal(cert.entries, full.walks);
			assert_int_equal(cert.lids, full.lids);
			assert_int_equal(cert.lids_above, full.lids_above);
			assert_int_equal(cert.unowned_lids, full.unowned_lids);
			assert_int_equal(cert.lids + cert.unowned_lids,
					 f->max_lid);
			assert_int_equal(cert.entries,
					 cert.lids * f->num_switches);
			ibr_result_free(&r);
			runs++;
		}
		ibr_fabric_free(f);
	}
	print_message("%u engine runs certified\n", runs);
}

/* ---- the ring: breaks of one entry ------------------------------------- */

struct ring {
	struct ibr_fabric *f;
	struct ibr_result r;
};

/* A ring of 6 four-port switches: port 1 to the next switch (its port 2),
 * port 3 to a CA, port 4 left free; FERa's tables from the lowest LID. */
static int setup_ring(void **state)
{
	static struct ring ring;
	struct ibr_root_choice root = { .strategy = IBR_ROOT_LOWEST_LID };
	struct ibr_error err = { "" };
	uint32_t sw[6];

	ring.f = ibr_fabric_new();
	for (unsigned i = 0; i < 6; i++)
		sw[i] = ibr_fabric_add_node(ring.f, IBR_NODE_SWITCH, 0x200000 + i,
					    4, "ring switch", NULL, &err);
	for (unsigned i = 0; i < 6; i++) {
		uint32_t ca = ibr_fabric_add_node(ring.f, IBR_NODE_CA,
						  0x100000 + 2 * i, 1,
						  "ring host", NULL, &err);
		if (ibr_fabric_connect(ring.f, sw[i], 1, sw[(i + 1) % 6], 2, &err) ||
		    ibr_fabric_connect(ring.f, sw[i], 3, ca, 1, &err))
			fail_msg("%s", err.msg);
	}
	if (ibr_fabric_finalize(ring.f, 0, &err) ||
	    ibr_route_once(ring.f, ibr_engine_find("fera"), &root, NULL,
			   &ring.r, &err))
		fail_msg("%s", err.msg);
	*state = &ring;
	return 0;
}

static int teardown_ring(void **state)
{
	struct ring *ring = *state;

	ibr_result_free(&ring->r);
	ibr_fabric_free(ring->f);
	return 0;
}

static uint8_t *entry(struct ring *ring, uint32_t s, ibr_lid_t lid)
{
	return &ibr_column(&ring->r, lid)[s];
}

static void test_ring_tables_pass(void **state)
{
	struct ring *ring = *state;
	struct ibr_certify_report rep = certify(ring->f, &ring->r);

	assert_int_equal(ibr_certify_findings(&rep), 0);
	assert_int_equal(rep.num_messages, 0);
}

/* Switches 2 and 3 send a LID to each other: one of the two hops goes
 * down into a switch that leaves going up. */
static void test_loop_is_rejected(void **state)
{
	struct ring *ring = *state;
	ibr_lid_t lid = ibr_end_port_lid(ring->f, 0);  /* CA on switch 0 */
	uint8_t *e2 = entry(ring, 2, lid), *e3 = entry(ring, 3, lid);
	uint8_t save2 = *e2, save3 = *e3;
	struct ibr_certify_report rep;

	*e2 = 1; /* to switch 3 */
	*e3 = 2; /* back to switch 2 */
	assert_int_equal(verify(ring->f, &ring->r).loops, 1);
	rep = certify(ring->f, &ring->r);
	assert_int_equal(rep.down_up, 1);
	assert_int_equal(ibr_certify_findings(&rep), 1);
	assert_true(has_message(&rep, "entered going down"));
	*e2 = save2;
	*e3 = save3;
}

/* Clockwise round the ring for every destination: every walk delivers,
 * no loop, but a credit loop; not legal either. */
static void test_credit_loop_is_rejected(void **state)
{
	struct ring *ring = *state;
	const struct ibr_fabric *f = ring->f;
	size_t bytes = (size_t)f->num_switches * ring->r.num_lids;
	uint8_t *save = malloc(bytes);
	struct ibr_verify_report full;
	struct ibr_certify_report rep;

	memcpy(save, ring->r.col, bytes);
	for (uint32_t e = 0; e < f->num_end_ports; e++) {
		ibr_lid_t lid = ibr_end_port_lid(f, e);
		for (uint32_t t = 0; t < f->num_switches; t++)
			if (t != f->end_ports[e].sw)
				*entry(ring, t, lid) = 1; /* clockwise */
	}
	full = verify(f, &ring->r);
	assert_true(ibr_verify_delivers(&full));
	assert_int_equal(full.cycles, 1);
	rep = certify(f, &ring->r);
	assert_true(rep.down_up > 0);
	assert_int_equal(rep.bad_port + rep.unreachable, 0);
	memcpy(ring->r.col, save, bytes);
	free(save);
}

static void test_bad_ports_are_rejected(void **state)
{
	struct ring *ring = *state;
	const struct ibr_fabric *f = ring->f;
	ibr_lid_t lid = ibr_end_port_lid(f, 2);
	uint32_t s = f->end_ports[4].sw;
	uint8_t *e = entry(ring, s, lid), save = *e;
	struct ibr_certify_report rep;

	*e = 4; /* the free port */
	assert_int_equal(ibr_port(f, f->sw_node[s], *e)->remote_node, IBR_NONE);
	rep = certify(f, &ring->r);
	assert_int_equal(rep.bad_port, 1);
	assert_int_equal(ibr_certify_findings(&rep), 1);
	assert_true(has_message(&rep, "which has no link"));

	*e = 0; /* port 0: not the owner */
	rep = certify(f, &ring->r);
	assert_int_equal(rep.bad_port, 1);
	assert_true(has_message(&rep, "is not there"));

	*e = 3; /* a CA, but not the LID's */
	rep = certify(f, &ring->r);
	assert_int_equal(rep.bad_port, 1);
	assert_true(has_message(&rep, "is not there"));
	*e = save;
}

static void test_owned_lid_without_route_is_rejected(void **state)
{
	struct ring *ring = *state;
	ibr_lid_t lid = ibr_end_port_lid(ring->f, 3);
	uint8_t *e = entry(ring, 0, lid), save = *e;
	struct ibr_certify_report rep;

	*e = IBR_NO_PATH;
	rep = certify(ring->f, &ring->r);
	assert_int_equal(rep.unreachable, 1);
	assert_int_equal(ibr_certify_findings(&rep), 1);
	assert_true(has_message(&rep, "has no route to LID"));
	*e = save;
}

static void test_route_for_unowned_lid_is_rejected(void **state)
{
	struct ring *ring = *state;
	struct ibr_fabric *f = ring->f;
	ibr_lid_t lid = ibr_end_port_lid(f, 0);
	struct ibr_lid_owner save = f->lid_owner[lid];
	struct ibr_certify_report rep;

	f->lid_owner[lid].node = IBR_NONE;
	rep = certify(f, &ring->r);
	assert_int_equal(rep.bad_port, f->num_switches);
	assert_true(has_message(&rep, "no port owns"));
	f->lid_owner[lid] = save;
}

static void test_root_outside_the_fabric_is_an_error(void **state)
{
	struct ring *ring = *state;
	struct ibr_certify_report rep;
	struct ibr_error err = { "" };
	uint32_t save = ring->r.root;

	ring->r.root = ring->f->num_switches;
	assert_int_equal(ibr_certify(ring->f, &ring->r, &rep, &err), -1);
	assert_non_null(strstr(err.msg, "root"));
	ring->r.root = save;
}

/* ---- a random fabric: a down-up turn, another root --------------------- */

/* The port of switch s to its neighbour t. */
static uint8_t port_to(const struct ibr_fabric *f, uint32_t s, uint32_t t)
{
	for (uint32_t i = f->sw_adj_start[s]; i < f->sw_adj_start[s + 1]; i++)
		if (f->sw_adj[i].peer == t)
			return f->sw_adj[i].port;
	fail_msg("switch %u has no link to %u", s, t);
	return 0;
}

/* Whether the walk from switch s to lid passes switch c. */
static bool walk_passes(const struct ibr_walker *w, const struct ibr_result *r,
			uint32_t s, ibr_lid_t lid, uint32_t c)
{
	uint32_t next = 0;

	for (uint32_t steps = 0; steps <= w->f->num_switches; steps++) {
		if (s == c)
			return true;
		if (ibr_walker_entry_step(w, r, s, lid, &next) != IBR_STEP_NEXT)
			return false;
		s = next;
	}
	return true;
}

/* Switch c, above a, is sent down to a, which goes on up to b: every walk
 * still delivers without a loop, but the route from c turns down-up. */
static void test_down_up_turn_is_rejected(void **state)
{
	struct ibr_fabric *f = generated_fabric("random:sw=16,ca=32,seed=1", 0);
	struct ibr_verify_report full;
	struct ibr_certify_report rep;
	struct ibr_walker w;
	struct ibr_updown ud;
	struct ibr_result r;
	struct ibr_error err = { "" };
	bool done = false;

	(void)state;
	route(f, "fera", &r);
	assert_int_equal(ibr_walker_init(&w, f, &err), 0);
	assert_int_equal(ibr_updown_build(f, r.root, &ud, &err), 0);
	for (ibr_lid_t lid = 1; lid <= f->max_lid && !done; lid++) {
		for (uint32_t a = 0; a < f->num_switches && !done; a++) {
			uint32_t b = 0;
			if (ibr_walker_entry_step(&w, &r, a, lid, &b) !=
			    IBR_STEP_NEXT || !ibr_link_is_up(f, &ud, a, b))
				continue;
			for (uint32_t i = f->sw_adj_start[a];
			     i < f->sw_adj_start[a + 1] && !done; i++) {
				uint32_t c = f->sw_adj[i].peer, next = 0;
				if (c == b || !ibr_link_is_up(f, &ud, a, c) ||
				    walk_passes(&w, &r, b, lid, c) ||
				    (ibr_walker_entry_step(&w, &r, c, lid, &next) ==
				     IBR_STEP_NEXT && next == a))
					continue;
				/* c is above a: c -> a points down */
				ibr_set_entry(&r, c, lid, port_to(f, c, a));
				full = verify(f, &r);
				rep = certify(f, &r);
				assert_true(ibr_verify_delivers(&full));
				assert_int_equal(rep.down_up, 1);
				assert_int_equal(ibr_certify_findings(&rep), 1);
				assert_true(has_message(&rep, "entered going down"));
				done = true;
			}
		}
	}
	assert_true(done);
	ibr_updown_free(&ud);
	ibr_walker_free(&w);
	ibr_result_free(&r);
	ibr_fabric_free(f);
}

/* FERa's tables from the SM's root, judged under the orientation of
 * another root: deadlock-free, but not legal there. */
static void test_another_orientation_is_rejected(void **state)
{
	struct ibr_fabric *f = generated_fabric("random:sw=16,ca=32,seed=1", 0);
	struct ibr_certify_report rep;
	struct ibr_result r;
	uint32_t rejected = 0;

	(void)state;
	route(f, "fera", &r);
	rep = certify(f, &r);
	assert_int_equal(ibr_certify_findings(&rep), 0);
	{
		struct ibr_verify_report full = verify(f, &r);
		assert_int_equal(ibr_verify_findings(&full), 0);
	}
	/* judged under one root each time: the tables' own set dropped */
	free(r.roots);
	r.roots = NULL;
	r.num_roots = 0;
	for (uint32_t root = 0; root < f->num_switches; root++) {
		uint32_t own = r.root;
		r.root = root;
		rep = certify(f, &r);
		r.root = own;
		if (root == own)
			assert_int_equal(ibr_certify_findings(&rep), 0);
		else if (rep.down_up > 0)
			rejected++;
		assert_int_equal(rep.bad_port + rep.unreachable, 0);
	}
	assert_true(rejected > 0);
	print_message("FERa's tables rejected under %u of %u other roots\n",
		      rejected, f->num_switches - 1);
	ibr_result_free(&r);
	ibr_fabric_free(f);
}

/* ---- renamed LIDs and designated DLIDs (LMC 1) ------------------------- */

static void test_renamed_lid_hole_is_rejected(void **state)
{
	struct ibr_fabric *f = generated_fabric("random:sw=16,ca=32,seed=1", 1);
	const struct ibr_end_port *dst = &f->end_ports[0];
	ibr_lid_t lid = ibr_end_port_lid(f, 0) + 1;
	uint8_t *col, keep_port;
	uint32_t keep = (dst->sw + 1) % f->num_switches;
	struct ibr_certify_report rep;
	struct ibr_result r;
	struct ibr_error err = { "" };

	(void)state;
	route(f, "fera", &r);
	col = ibr_column(&r, lid);
	keep_port = col[keep];
	memset(col, IBR_NO_PATH, f->num_switches);
	rep = certify(f, &r);   /* no route at all: a hole at every switch */
	print_message("a LID above the base unrouted: %llu unreachable\n",
		      (unsigned long long)rep.unreachable);
	assert_int_equal(rep.unreachable, f->num_switches);
	assert_int_equal(ibr_certify_findings(&rep), f->num_switches);
	col[keep] = keep_port;  /* one set entry, towards switches with none:
				 * every other switch a hole */
	rep = certify(f, &r);
	assert_int_equal(rep.unreachable, f->num_switches - 1);
	assert_int_equal(ibr_certify_findings(&rep), f->num_switches - 1);
	assert_true(has_message(&rep, "no route"));

	/* a designated DLID on that LID from a switch without a route */
	col[keep] = IBR_NO_PATH;
	assert_int_equal(ibr_designated_init(&r, f, true, &err), 0);
	r.designated.offset[(size_t)keep * r.designated.cols + 0] = 1;
	rep = certify(f, &r);
	assert_int_equal(rep.bad_designated, 1);
	assert_int_equal(ibr_certify_findings(&rep), f->num_switches + 1);
	col[keep] = keep_port;  /* the route walks on to no route: C3 */
	rep = certify(f, &r);
	assert_int_equal(rep.bad_designated, 0);
	assert_int_equal(rep.unreachable, f->num_switches - 1);
	ibr_result_free(&r);

	/* FERa's full tables: offset 1 delivers everywhere, offset 2 is
	 * outside an LMC 1 range */
	route(f, "fera", &r);
	assert_int_equal(ibr_designated_init(&r, f, true, &err), 0);
	memset(r.designated.offset, 1,
	       (size_t)r.designated.rows * r.designated.cols);
	rep = certify(f, &r);
	assert_int_equal(ibr_certify_findings(&rep), 0);
	r.designated.offset[3 * r.designated.cols + 5] = 2;
	rep = certify(f, &r);
	assert_int_equal(rep.bad_designated, 1);
	assert_true(has_message(&rep, "outside its LIDs"));
	ibr_result_free(&r);
	ibr_fabric_free(f);
}

int main(void)
{
	const struct CMUnitTest ring_tests[] = {
		cmocka_unit_test(test_ring_tables_pass),
		cmocka_unit_test(test_loop_is_rejected),
		cmocka_unit_test(test_credit_loop_is_rejected),
		cmocka_unit_test(test_bad_ports_are_rejected),
		cmocka_unit_test(test_owned_lid_without_route_is_rejected),
		cmocka_unit_test(test_route_for_unowned_lid_is_rejected),
		cmocka_unit_test(test_root_outside_the_fabric_is_an_error),
	};
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_engine_is_certified),
		cmocka_unit_test(test_down_up_turn_is_rejected),
		cmocka_unit_test(test_another_orientation_is_rejected),
		cmocka_unit_test(test_renamed_lid_hole_is_rejected),
	};
	int failed = cmocka_run_group_tests(ring_tests, setup_ring, teardown_ring);

	return failed + cmocka_run_group_tests(tests, NULL, NULL);
}
