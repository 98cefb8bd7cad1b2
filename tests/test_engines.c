/*
 * test_engines.c - every engine on dozens of generated fabrics.
 *
 * For each fabric (random irregular, 2-level Clos, 2D/3D tori with broken
 * links) and each engine:
 *   - the verifier finds nothing (delivery, no loop, acyclic CDG over all
 *     switches and all LIDs);
 *   - every walk is a legal up/down route: no up link after a down link,
 *     checked here against the orientation, independently of the engine;
 *   - FERa: a switch that can reach the destination going down only starts
 *     its route with a down link (the rule of §2.3), checked against a
 *     plain DFS;
 *   - PIRa: explicit entries never exceed FERa's and every switch but the
 *     root has a default port;
 *   - routing twice gives identical tables (determinism).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "ibrouting/engine.h"
#include "ibrouting/generate.h"
#include "ibrouting/metrics.h"
#include "ibrouting/verify.h"

static const char *const specs[] = {
	"random:sw=8,ca=16,seed=1",     "random:sw=8,ca=16,seed=2",
	"random:sw=16,ca=128,seed=1",   "random:sw=16,ca=128,seed=2",
	"random:sw=16,ca=128,seed=3",   "random:sw=24,ca=48,seed=4",
	"random:sw=32,ca=256,seed=1",   "random:sw=32,ca=256,seed=2",
	"random:sw=32,ca=256,seed=3",   "random:sw=32,ca=256,seed=4",
	"random:sw=32,ca=256,seed=5",   "random:sw=32,ca=256,seed=6",
	"random:sw=48,ca=96,deg=4,seed=7", "random:sw=48,ca=96,deg=6,seed=8",
	"random:sw=64,ca=512,seed=1",   "random:sw=64,ca=512,seed=2",
	"random:sw=64,ca=1024,seed=3",  "random:sw=64,ca=128,deg=3,seed=9",
	"random:sw=100,ca=300,seed=10", "random:sw=128,ca=1024,seed=11",
	"clos:leaf=4,spine=2,ca=32,seed=1",   "clos:leaf=8,spine=4,ca=128,seed=2",
	"clos:leaf=16,spine=8,ca=256,seed=3", "clos:leaf=12,spine=6,ca=100,seed=4",
	"clos:leaf=24,spine=12,ca=384,seed=5",
	"torus:dims=4x4,ca=1,broken=0,seed=1", "torus:dims=4x4,ca=2,broken=3,seed=2",
	"torus:dims=6x6,ca=1,broken=5,seed=3", "torus:dims=8x4,ca=2,broken=8,seed=4",
	"torus:dims=3x3x3,ca=1,broken=0,seed=5", "torus:dims=4x4x4,ca=1,broken=6,seed=6",
	"torus:dims=4x3x2,ca=2,broken=4,seed=7", "torus:dims=5x5x2,ca=1,broken=10,seed=8",
	"torus:dims=2x2x2,ca=3,broken=1,seed=9", "torus:dims=10x2,ca=1,broken=2,seed=10",
	"random:sw=2,ca=4,deg=1,seed=1", "random:sw=1,ca=8,deg=0,seed=1",
	"random:sw=200,ca=800,seed=12", "torus:dims=8x8,ca=1,broken=12,seed=11",
	"random:sw=40,ca=40,deg=8,seed=13",
};

#define N(a) (sizeof(a) / sizeof((a)[0]))

static struct ibr_fabric *make(const char *spec)
{
	struct ibr_error err = { "" };
	struct ibr_fabric *f = ibr_generate(spec, &err);

	if (!f || ibr_fabric_finalize(f, 0, &err))
		fail_msg("%s: %s", spec, err.msg);
	return f;
}

static void route(const struct ibr_fabric *f, const char *engine,
		  struct ibr_result *r, const char *spec)
{
	struct ibr_root_choice root = { 0, IBR_ROOT_SM };
	struct ibr_error err = { "" };

	if (ibr_route(f, ibr_engine_find(engine), &root, r, &err))
		fail_msg("%s on %s: %s", engine, spec, err.msg);
}

/* Walks every (switch, LID) and checks it is a legal up/down route. */
static void assert_legal_updown(const struct ibr_fabric *f,
				const struct ibr_result *r,
				const struct ibr_updown *ud, const char *what)
{
	for (uint32_t lid = 1; lid <= f->max_lid; lid++) {
		if (f->lid_owner[lid].node == IBR_NONE)
			continue;
		for (uint32_t start = 0; start < f->num_switches; start++) {
			uint32_t s = start, next = 0, hops = 0;
			int went_down = 0;
			while (ibr_lft_step(f, r, s, lid, &next) == IBR_STEP_NEXT) {
				int up = ibr_link_is_up(f, ud, s, next);
				if (up && went_down)
					fail_msg("%s: LID %u from switch %u turns "
						 "down->up at switch %u", what, lid,
						 start, s);
				went_down |= !up;
				s = next;
				if (++hops > f->num_switches)
					fail_msg("%s: LID %u loops", what, lid);
			}
			assert_int_equal(ibr_lft_step(f, r, s, lid, &next),
					 IBR_STEP_ARRIVED);
		}
	}
}

/* Reference: can switch s reach switch d going down only?  Plain DFS. */
static int reaches_down(const struct ibr_fabric *f, const struct ibr_updown *ud,
			uint32_t s, uint32_t d, uint8_t *seen)
{
	if (s == d)
		return 1;
	seen[s] = 1;
	for (uint32_t i = f->sw_adj_start[s]; i < f->sw_adj_start[s + 1]; i++) {
		uint32_t t = f->sw_adj[i].peer;
		if (!seen[t] && !ibr_link_is_up(f, ud, s, t) &&
		    reaches_down(f, ud, t, d, seen))
			return 1;
	}
	return 0;
}

static void assert_fera_prefers_down(const struct ibr_fabric *f,
				     const struct ibr_result *r,
				     const struct ibr_updown *ud, const char *spec)
{
	uint8_t *seen = malloc(f->num_switches);

	for (uint32_t d = 0; d < f->num_switches; d++) {
		ibr_lid_t lid = ibr_switch_lid(f, d);
		for (uint32_t s = 0; s < f->num_switches; s++) {
			uint32_t next = 0;
			if (s == d)
				continue;
			memset(seen, 0, f->num_switches);
			assert_int_equal(ibr_lft_step(f, r, s, lid, &next),
					 IBR_STEP_NEXT);
			if (reaches_down(f, ud, s, d, seen) &&
			    ibr_link_is_up(f, ud, s, next))
				fail_msg("%s: fera goes up from switch %u to LID %u "
					 "though a down route exists", spec, s, lid);
		}
	}
	free(seen);
}

static void assert_verified(const struct ibr_fabric *f,
			    const struct ibr_result *r, const char *what)
{
	struct ibr_verify_options all = { .all_sources = true, .switch_lids = true };
	struct ibr_verify_report rep;
	struct ibr_error err = { "" };

	assert_int_equal(ibr_verify(f, r, &all, &rep, &err), 0);
	if (ibr_verify_findings(&rep))
		fail_msg("%s: %s", what, rep.messages[0]);
}

static void test_all_fabrics(void **state)
{
	unsigned verified = 0;

	(void)state;
	for (unsigned i = 0; i < N(specs); i++) {
		struct ibr_fabric *f = make(specs[i]);
		struct ibr_result fera, pira, again;
		struct ibr_updown ud;
		struct ibr_error err = { "" };
		struct ibr_metrics m;
		char what[160];

		route(f, "fera", &fera, specs[i]);
		route(f, "pira", &pira, specs[i]);
		assert_int_equal(fera.root, pira.root);
		assert_int_equal(ibr_updown_build(f, fera.root, &ud, &err), 0);

		snprintf(what, sizeof(what), "fera on %s", specs[i]);
		assert_verified(f, &fera, what);
		assert_legal_updown(f, &fera, &ud, what);
		assert_fera_prefers_down(f, &fera, &ud, specs[i]);

		snprintf(what, sizeof(what), "pira on %s", specs[i]);
		assert_verified(f, &pira, what);
		assert_legal_updown(f, &pira, &ud, what);
		assert_true(pira.stats.explicit_entries <= fera.stats.explicit_entries);
		assert_int_equal(pira.stats.default_ports, f->num_switches - 1);

		/* both deliver every flow */
		assert_int_equal(ibr_metrics_compute(f, &pira, &m, &err), 0);
		assert_int_equal(m.unrouted_flows, 0);
		assert_int_equal(m.flows, (uint64_t)f->num_end_ports *
				 (f->num_end_ports ? f->num_end_ports - 1 : 0));

		route(f, "pira", &again, specs[i]);
		assert_memory_equal(again.lft, pira.lft,
				    (size_t)pira.num_switches * pira.lft_size);
		ibr_result_free(&again);
		route(f, "fera", &again, specs[i]);
		assert_memory_equal(again.lft, fera.lft,
				    (size_t)fera.num_switches * fera.lft_size);
		ibr_result_free(&again);

		ibr_updown_free(&ud);
		ibr_result_free(&fera);
		ibr_result_free(&pira);
		ibr_fabric_free(f);
		verified++;
	}
	print_message("%u generated fabrics verified with pira and fera\n", verified);
	assert_true(verified >= 40);
}

/* Every root strategy yields verified tables; center differs from sm
 * on at least one fabric (else the option would mean nothing). */
static void test_root_strategies(void **state)
{
	static const enum ibr_root_strategy strategies[] = {
		IBR_ROOT_SM, IBR_ROOT_LOWEST_LID, IBR_ROOT_CENTER,
	};
	unsigned center_differs = 0;

	(void)state;
	for (unsigned i = 0; i < 12; i++) {
		struct ibr_fabric *f = make(specs[i]);
		uint32_t roots[3];
		for (unsigned k = 0; k < N(strategies); k++) {
			struct ibr_root_choice root = { 0, strategies[k] };
			struct ibr_error err = { "" };
			struct ibr_result r;
			assert_int_equal(ibr_route(f, &ibr_engine_pira, &root, &r,
						   &err), 0);
			assert_verified(f, &r, specs[i]);
			roots[k] = r.root;
			ibr_result_free(&r);
		}
		assert_int_equal(roots[0], roots[1]); /* no SM known offline */
		center_differs += roots[2] != roots[1];
		ibr_fabric_free(f);
	}
	assert_true(center_differs > 0);
}

static void test_explicit_root_guid(void **state)
{
	struct ibr_fabric *f = make("random:sw=16,ca=32,seed=3");
	struct ibr_root_choice root = { ibr_switch(f, 7)->guid, IBR_ROOT_SM };
	struct ibr_root_choice ca = { 0, IBR_ROOT_SM };
	struct ibr_error err = { "" };
	struct ibr_result r;

	(void)state;
	assert_int_equal(ibr_route(f, &ibr_engine_fera, &root, &r, &err), 0);
	assert_int_equal(r.root, 7);
	assert_int_equal(ibr_lft_row(&r, 7)[ibr_switch_lid(f, 7)], 0);
	ibr_result_free(&r);

	ca.guid = f->nodes[f->end_ports[0].node].guid;
	assert_int_equal(ibr_route(f, &ibr_engine_fera, &ca, &r, &err), -1);
	assert_non_null(strstr(err.msg, "not a switch"));

	memset(&err, 0, sizeof(err));
	ca.guid = 0xdeadbeef;
	assert_int_equal(ibr_route(f, &ibr_engine_fera, &ca, &r, &err), -1);
	assert_non_null(strstr(err.msg, "not in the fabric"));
	ibr_fabric_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_all_fabrics),
		cmocka_unit_test(test_root_strategies),
		cmocka_unit_test(test_explicit_root_guid),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
