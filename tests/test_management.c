/*
 * test_management.c - management routes (management.h): under a root set
 * every switch reaches every LID and every CA port every switch LID, but
 * where data would take the entry; the legal entries are untouched; the
 * verifier and the certificate find a missing management route, one that
 * would carry data, and one that loops.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "ibrouting/certify.h"
#include "ibrouting/engine.h"
#include "ibrouting/management.h"
#include "ibrouting/updown.h"
#include "ibrouting/verify.h"
#include "fixtures.h"

static const char *const engines[] = { "fera", "pira", "dr", "colorl" };

/* fabrics with several roots and (but the first) pairs of switches with
 * no root above both beyond the roots themselves */
static const char *const specs[] = {
	"kary:k=4,n=3",
	"kary:k=4,n=3,cut=3,seed=2",
	"kary:k=4,n=3,down=2,seed=3",
	"dfplus:groups=9,leaves=4,spines=4,isolate=2",
	"clos:leaf=8,spine=4,ca=64,cut=3,seed=5",
	"kary:k=4,n=3,agg=1",
};

struct routed {
	struct ibr_fabric *f;
	struct ibr_result r;
	struct ibr_climb climb;
};

static void route(struct routed *x, const char *spec, const char *engine,
		  unsigned lmc)
{
	struct ibr_root_choice root = { .strategy = IBR_ROOT_AUTO };
	struct ibr_error err = { "" };
	struct ibr_updown ud;

	x->f = generated_fabric(spec, lmc);
	if (ibr_route_once(x->f, ibr_engine_find(engine), &root, NULL, &x->r,
			   &err))
		fail_msg("%s, %s: %s", spec, engine, err.msg);
	assert_true(x->r.num_roots > 1);
	assert_int_equal(ibr_updown_of_result(x->f, &x->r, &ud, &err), 0);
	assert_int_equal(ibr_climb_build(x->f, &ud, &x->climb, &err), 0);
	ibr_updown_free(&ud);
}

static void unroute(struct routed *x)
{
	ibr_climb_free(&x->climb);
	ibr_result_free(&x->r);
	ibr_fabric_free(x->f);
}

static bool legal(const struct routed *x, uint32_t s, ibr_lid_t lid)
{
	return ibr_climb_meet(&x->climb, s, ibr_lid_switch(x->f, lid));
}

/* Every entry is set but at a CA port's switch towards a CA port's LID
 * with no legal route; the verifier and the certificate find nothing and
 * count the management routes as the routing layer set them. */
static void test_every_switch_reaches_every_lid(void **state)
{
	(void)state;
	for (unsigned i = 0; i < sizeof(specs) / sizeof(specs[0]); i++)
		for (unsigned e = 0; e < sizeof(engines) / sizeof(engines[0]); e++) {
			unsigned lmc = e >= 2 ? 2 : 0;
			struct ibr_verify_report rep;
			struct ibr_certify_report cert;
			struct ibr_error err = { "" };
			struct routed x;
			uint64_t unset = 0;

			route(&x, specs[i], engines[e], lmc);
			for (ibr_lid_t lid = 1; lid <= x.f->max_lid; lid++) {
				if (x.f->lid_owner[lid].node == IBR_NONE)
					continue;
				for (uint32_t s = 0; s < x.f->num_switches; s++) {
					if (ibr_entry(&x.r, s, lid) != IBR_NO_PATH)
						continue;
					if (legal(&x, s, lid) ||
					    !ibr_management_carries_data(x.f, s, lid))
						fail_msg("%s, %s: switch %u has no "
							 "entry for LID %u", specs[i],
							 engines[e], s, lid);
					unset++;
				}
			}
			assert_int_equal(ibr_verify(x.f, &x.r, NULL, &rep, &err), 0);
			if (ibr_verify_findings(&rep))
				fail_msg("%s, %s: %s", specs[i], engines[e],
					 rep.messages[0]);
			assert_int_equal(ibr_certify(x.f, &x.r, &cert, &err), 0);
			if (ibr_certify_findings(&cert))
				fail_msg("%s, %s: certificate: %s", specs[i],
					 engines[e], cert.messages[0]);
			assert_true(x.r.management.set > 0);
			assert_int_equal(rep.management, x.r.management.set);
			assert_int_equal(cert.management, x.r.management.set);
			assert_int_equal(rep.no_legal_path, unset);
			assert_int_equal(x.r.management.owed_none, unset);
			/* aggregation nodes on the roots are the only CA
			 * ports owed none */
			if (!strstr(specs[i], "agg=1"))
				assert_int_equal(unset, 0);
			unroute(&x);
		}
}

/* The management routes change no entry with a legal route: cleared, the
 * tables are the legal ones, and set again, the same as routed. */
static void test_legal_entries_untouched(void **state)
{
	(void)state;
	for (unsigned i = 0; i < sizeof(specs) / sizeof(specs[0]); i++) {
		struct ibr_error err = { "" };
		struct ibr_result legal_only;
		struct ibr_updown ud;
		struct routed x;
		size_t n;

		route(&x, specs[i], "fera", 0);
		n = (size_t)x.r.num_lids * x.r.num_switches;
		assert_int_equal(ibr_result_copy(&legal_only, &x.r, &err), 0);
		assert_int_equal(ibr_updown_of_result(x.f, &x.r, &ud, &err), 0);
		assert_int_equal(ibr_management_clear(x.f, &ud, &legal_only,
						      &err), 0);
		for (ibr_lid_t lid = 1; lid <= x.f->max_lid; lid++)
			for (uint32_t s = 0; s < x.f->num_switches; s++) {
				uint8_t a = ibr_entry(&x.r, s, lid);
				uint8_t b = ibr_entry(&legal_only, s, lid);
				if (legal(&x, s, lid))
					assert_int_equal(a, b);
				else
					assert_int_equal(b, IBR_NO_PATH);
			}
		assert_int_equal(ibr_management_routes(x.f, &ud, &legal_only,
						       &err), 0);
		assert_memory_equal(legal_only.col, x.r.col, n);
		ibr_updown_free(&ud);
		ibr_result_free(&legal_only);
		unroute(&x);
	}
}

/* A switch with a management route to LID *lid, or IBR_NONE. */
static uint32_t managed_switch(const struct routed *x, ibr_lid_t *lid)
{
	for (ibr_lid_t l = 1; l <= x->f->max_lid; l++) {
		if (x->f->lid_owner[l].node == IBR_NONE)
			continue;
		for (uint32_t s = 0; s < x->f->num_switches; s++)
			if (!legal(x, s, l) &&
			    ibr_entry(&x->r, s, l) != IBR_NO_PATH) {
				*lid = l;
				return s;
			}
	}
	return IBR_NONE;
}

static void assert_found(const struct routed *x, const char *what,
			 uint64_t (*verify_count)(const struct ibr_verify_report *),
			 uint64_t (*cert_count)(const struct ibr_certify_report *))
{
	struct ibr_verify_report rep;
	struct ibr_certify_report cert;
	struct ibr_error err = { "" };

	assert_int_equal(ibr_verify(x->f, &x->r, NULL, &rep, &err), 0);
	assert_int_equal(ibr_certify(x->f, &x->r, &cert, &err), 0);
	print_message("%s: verify \"%s\", certify \"%s\"\n", what,
		      rep.num_messages ? rep.messages[0] : "",
		      cert.num_messages ? cert.messages[0] : "");
	assert_true(verify_count(&rep) > 0);
	assert_true(cert_count(&cert) > 0);
}

static uint64_t v_unreachable(const struct ibr_verify_report *r)
{
	return r->unreachable;
}

static uint64_t c_unreachable(const struct ibr_certify_report *r)
{
	return r->unreachable;
}

static uint64_t v_loops(const struct ibr_verify_report *r)
{
	return r->loops;
}

static uint64_t c_loops(const struct ibr_certify_report *r)
{
	return r->loops;
}

static uint64_t v_illegal(const struct ibr_verify_report *r)
{
	return r->illegal_data;
}

static uint64_t c_illegal(const struct ibr_certify_report *r)
{
	return r->illegal_data;
}

static void test_checks_find_faults(void **state)
{
	struct routed x;
	ibr_lid_t lid = 0;
	uint32_t s, t = IBR_NONE;
	uint8_t port;

	(void)state;
	/* a management route deleted: that switch's answers are lost */
	route(&x, "kary:k=4,n=3,cut=3,seed=2", "fera", 0);
	s = managed_switch(&x, &lid);
	assert_int_not_equal(s, IBR_NONE);
	ibr_set_entry(&x.r, s, lid, IBR_NO_PATH);
	assert_found(&x, "a management route deleted", v_unreachable,
		     c_unreachable);
	unroute(&x);

	/* two neighbours with no legal route to a switch LID sending it to
	 * each other: a loop */
	route(&x, "kary:k=4,n=3", "fera", 0);
	for (ibr_lid_t l = 1; t == IBR_NONE && l <= x.f->max_lid; l++)
		for (uint32_t q = 0; t == IBR_NONE && q < x.f->num_switches; q++) {
			if (x.f->lid_owner[l].node == IBR_NONE || legal(&x, q, l))
				continue;
			for (uint32_t i = x.f->sw_adj_start[q];
			     i < x.f->sw_adj_start[q + 1]; i++)
				if (!legal(&x, x.f->sw_adj[i].peer, l)) {
					t = x.f->sw_adj[i].peer;
					ibr_set_entry(&x.r, q, l, x.f->sw_adj[i].port);
					ibr_set_entry(&x.r, t, l,
						      x.f->sw_adj[i].peer_port);
					break;
				}
		}
	assert_int_not_equal(t, IBR_NONE);
	assert_found(&x, "two management routes into each other", v_loops,
		     c_loops);
	unroute(&x);

	/* an aggregation node's switch routing another root's aggregation
	 * node: its data would turn down then up */
	route(&x, "kary:k=4,n=3,agg=1", "fera", 0);
	s = IBR_NONE;
	for (ibr_lid_t l = 1; s == IBR_NONE && l <= x.f->max_lid; l++)
		for (uint32_t q = 0; q < x.f->num_switches; q++)
			if (x.f->lid_owner[l].node != IBR_NONE &&
			    ibr_entry(&x.r, q, l) == IBR_NO_PATH) {
				s = q;
				lid = l;
				break;
			}
	assert_int_not_equal(s, IBR_NONE);
	assert_true(ibr_management_carries_data(x.f, s, lid));
	port = x.f->sw_adj[x.f->sw_adj_start[s]].port;
	ibr_set_entry(&x.r, s, lid, port);
	assert_found(&x, "data on a management route", v_illegal, c_illegal);
	unroute(&x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_switch_reaches_every_lid),
		cmocka_unit_test(test_legal_entries_untouched),
		cmocka_unit_test(test_checks_find_faults),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
