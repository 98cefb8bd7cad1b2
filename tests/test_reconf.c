/*
 * test_reconf.c - the hybrid's reconfiguration state machine (reconf.h),
 * driven as the plugin drives it inside OpenSM, without OpenSM: every
 * routing run is the provisional pass when the fabric changed, else the
 * final pass; a run follows while the machine wants a re-route.
 *
 * From PIRa's tables to FERa's, at start-up and after a link cut and a
 * spine switch failure, on k-ary n-trees, a Clos network and a random
 * fabric whose direct union loops (so the way goes in safe steps):
 *  - the tables of every run verify on their own (no loop, delivered,
 *    acyclic), and from the provisional pass on, the union of each run's
 *    tables with the run's before verifies too (what switches may hold
 *    while OpenSM sends them);
 *  - wants_reroute is set exactly in PROVISIONAL and SAFE_STEP;
 *  - the way ends in FINAL with exactly the tables FERa makes alone, and
 *    a run after that changes nothing;
 *  - after a change, the provisional pass keeps columns of the prior
 *    tables;
 *  - REFUSED with its reason when the final engine fails or the steps run
 *    out, the prior tables unchanged, no re-route wanted; the next run
 *    tries again.
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
#include "ibrouting/reconf.h"
#include "ibrouting/verify.h"
#include "fixtures.h"

static void check_clean(const char *what, const char *spec,
			const struct ibr_verify_report *rep)
{
	if (ibr_verify_findings(rep))
		fail_msg("%s: %s: %s", spec, what, rep->messages[0]);
}

/* One routing run, as hybrid.c makes it; *kept the provisional pass's
 * kept columns (0 for a final pass). */
static void run(struct ibr_reconf *m, const char *spec,
		const struct ibr_fabric *f, uint32_t *kept,
		struct ibr_reconf_move *mv)
{
	struct ibr_root_choice root = { .strategy = IBR_ROOT_AUTO };
	struct ibr_verify_report rep;
	struct ibr_error err = { "" };
	struct ibr_result r;

	*kept = 0;
	memset(mv, 0, sizeof(*mv));
	if (ibr_reconf_changed(m, f)) {
		/* a single engine (prov NULL) routes its own tables */
		if (ibr_route_once(f, m->prov ? m->prov : m->fin, &root, NULL,
				   &r, &err) ||
		    ibr_verify(f, &r, NULL, &rep, &err))
			fail_msg("%s: provisional: %s", spec, err.msg);
		check_clean("provisional", spec, &rep);
		if (ibr_reconf_change(m, f, &r, &rep, kept, mv, &err))
			fail_msg("%s: %s", spec, err.msg);
		ibr_result_free(&r);
		return;
	}
	if (!ibr_reconf_has_final(m)) {
		ibr_reconf_final_root(m, &root);
		if (ibr_route_once(f, m->fin, &root, NULL, &r, &err) ||
		    ibr_verify(f, &r, NULL, &rep, &err))
			fail_msg("%s: final: %s", spec, err.msg);
		check_clean("final", spec, &rep);
		ibr_reconf_set_final(m, &r, &rep);
	}
	if (ibr_reconf_next(m, f, mv, &err))
		fail_msg("%s: next: %s", spec, err.msg);
}

/* Runs on f until the machine wants no re-route; checks every run's
 * tables (but a push that empties entries first: its holes are its
 * point) and every union of consecutive ones, the first with the tables
 * in place before the change as the switches hold them (mapped onto f).
 * Returns the runs made; *kept the first run's kept columns; *emptied
 * the pushes that emptied entries first. */
static unsigned drive_counting(struct ibr_reconf *m, const char *spec,
			       const struct ibr_fabric *f, uint32_t *kept,
			       unsigned *emptied)
{
	struct ibr_result before;
	struct ibr_verify_report rep;
	struct ibr_error err = { "" };
	struct ibr_reconf_move mv;
	bool have_before = false;
	unsigned runs = 0;
	uint32_t k;

	*emptied = 0;
	if (m->have_prior && ibr_reconf_changed(m, f)) {
		if (ibr_result_onto(&m->prior, m->prior_ids.switch_guid, f, &before, &err) ||
		    ibr_verify_union(f, &before, &before, &rep, &err))
			fail_msg("%s: %s", spec, err.msg);
		/* the generators' `down` renumbers the switches' GUIDs, so
		 * tables mapped by GUID can loop on their own: no push can
		 * make the switches hold less than that, the first union is
		 * not judged then (the pushes after it are) */
		have_before = ibr_verify_findings(&rep) == 0;
		if (!have_before) {
			print_message("%s: the prior tables loop on the new "
				      "fabric on their own: %s\n", spec,
				      rep.messages[0]);
			ibr_result_free(&before);
		}
	}
	do {
		run(m, spec, f, &k, &mv);
		if (runs++ == 0)
			*kept = k;
		*emptied += mv.emptied > 0;
		assert_true(m->have_prior);
		assert_true(m->state != IBR_RECONF_DOUBLE_SCHEME);
		assert_int_equal(m->wants_reroute,
				 m->state == IBR_RECONF_PROVISIONAL ||
				 m->state == IBR_RECONF_SAFE_STEP);
		if (ibr_verify(f, &m->prior, NULL, &rep, &err))
			fail_msg("%s: %s", spec, err.msg);
		if (!mv.emptied)
			check_clean(ibr_reconf_state_name(m->state), spec, &rep);
		if (have_before) {
			if (ibr_verify_union(f, &before, &m->prior, &rep, &err))
				fail_msg("%s: %s", spec, err.msg);
			check_clean("union with the run before", spec, &rep);
			ibr_result_free(&before);
		}
		if (ibr_result_copy(&before, &m->prior, &err))
			fail_msg("%s", err.msg);
		have_before = true;
		assert_true(runs <= IBR_RECONF_MAX_STEPS + 2);
	} while (ibr_reconf_take_reroute(m));
	assert_false(m->wants_reroute);
	ibr_result_free(&before);
	return runs;
}

static unsigned drive(struct ibr_reconf *m, const char *spec,
		      const struct ibr_fabric *f, uint32_t *kept)
{
	unsigned emptied;

	return drive_counting(m, spec, f, kept, &emptied);
}

/* The machine is in FINAL with exactly fin's own tables for f, and one
 * more run (a sweep) changes nothing. */
static void assert_final(struct ibr_reconf *m, const char *spec,
			 const struct ibr_fabric *f)
{
	struct ibr_root_choice root = { .strategy = IBR_ROOT_AUTO };
	struct ibr_error err = { "" };
	struct ibr_reconf_move mv;
	struct ibr_result alone;
	uint32_t kept;

	if (m->state != IBR_RECONF_FINAL)
		fail_msg("%s: ended %s (%s)", spec,
			 ibr_reconf_state_name(m->state),
			 m->reason ? m->reason : "");
	if (ibr_route_once(f, m->fin, &root, NULL, &alone, &err))
		fail_msg("%s: %s", spec, err.msg);
	assert_int_equal(alone.num_lids, m->prior.num_lids);
	assert_memory_equal(alone.col, m->prior.col,
			    (size_t)alone.num_lids * alone.num_switches);
	ibr_result_free(&alone);
	run(m, spec, f, &kept, &mv);
	assert_true(mv.unchanged);
	assert_int_equal(m->state, IBR_RECONF_FINAL);
	assert_false(m->wants_reroute);
}

/* Start-up on BEFORE, then the change to AFTER: both ways end in FINAL;
 * the provisional pass after the change keeps entries of columns of the
 * prior tables when expect_kept (every fabric here since columns are
 * mended, repair.h: even after a spine switch down on the 4-ary 3-tree,
 * whose automatic root set, the top level, loses that switch, the walks
 * still legal under the new orientation stay). */
static void way(const char *before, const char *after, unsigned min_runs,
		bool expect_kept)
{
	struct ibr_fabric *a = generated_fabric(before, 0);
	struct ibr_fabric *b = after ? generated_fabric(after, 0) : NULL;
	struct ibr_reconf m;
	unsigned runs;
	uint32_t kept;

	ibr_reconf_init(&m, ibr_engine_find("pira"), ibr_engine_find("fera"));
	assert_string_equal(ibr_reconf_state_name(m.state), "idle");
	runs = drive(&m, before, a, &kept);
	print_message("%-44s start-up: %u runs, %u steps\n", before, runs,
		      m.step);
	assert_int_equal(kept, 0);
	assert_true(runs >= min_runs);
	assert_final(&m, before, a);
	if (b) {
		assert_true(ibr_reconf_changed(&m, b));
		runs = drive(&m, after, b, &kept);
		print_message("%-44s after the change: %u runs, %u steps, %u "
			      "LIDs kept\n", after, runs, m.step, kept);
		assert_int_equal(kept > 0, expect_kept);
		assert_final(&m, after, b);
		ibr_fabric_free(b);
	}
	ibr_reconf_reset(&m);
	assert_int_equal(m.state, IBR_RECONF_IDLE);
	assert_false(m.have_prior);
	ibr_fabric_free(a);
}

static void test_kary_link_cut(void **state)
{
	(void)state;
	way("kary:k=4,n=3,seed=1", "kary:k=4,n=3,cut=2,seed=1", 2, true);
}

static void test_kary_spine_down(void **state)
{
	(void)state;
	way("kary:k=4,n=3,seed=1", "kary:k=4,n=3,down=1,seed=1", 2, true);
}

static void test_clos_cut_and_spine_down(void **state)
{
	(void)state;
	way("clos:leaf=8,spine=4,ca=64,seed=1",
	    "clos:leaf=8,spine=4,ca=64,cut=3,down=1,seed=1", 2, true);
}

/* PIRa's and FERa's union loops here: the way must go in safe steps
 * (provisional, at least two steps). */
static void test_random_in_steps(void **state)
{
	(void)state;
	way("random:sw=64,ca=256,seed=5", NULL, 3, false);
}

/* A torus with a link cut: steps after the change too. */
static void test_torus_link_cut(void **state)
{
	(void)state;
	way("torus:dims=6x6,ca=2,seed=1", "torus:dims=6x6,ca=2,broken=1,seed=1",
	    2, true);
}

/* REFUSED: the final engine failed (the driver says so), or the steps ran
 * out; the prior tables stay as they were, no re-route is wanted, and
 * the next run on the same fabric tries the final pass again. */
static void test_kept(void **state)
{
	const char *spec = "random:sw=64,ca=256,seed=5";
	struct ibr_fabric *f = generated_fabric(spec, 0);
	struct ibr_reconf_move mv;
	struct ibr_result prov;
	struct ibr_error err = { "" };
	struct ibr_reconf m;
	uint32_t kept;

	(void)state;
	ibr_reconf_init(&m, ibr_engine_find("pira"), ibr_engine_find("fera"));
	run(&m, spec, f, &kept, &mv);
	assert_int_equal(m.state, IBR_RECONF_PROVISIONAL);
	assert_true(ibr_reconf_take_reroute(&m));
	assert_false(m.wants_reroute);
	if (ibr_result_copy(&prov, &m.prior, &err))
		fail_msg("%s", err.msg);

	ibr_reconf_refuse(&m, "the final engine failed");
	assert_int_equal(m.state, IBR_RECONF_REFUSED);
	assert_string_equal(m.reason, "the final engine failed");
	assert_false(ibr_reconf_take_reroute(&m));
	assert_false(ibr_reconf_changed(&m, f));

	/* out of steps: the step count at its limit */
	run(&m, spec, f, &kept, &mv);   /* routes the final engine */
	assert_int_equal(m.state, IBR_RECONF_SAFE_STEP);
	assert_true(mv.stepping);
	ibr_reconf_reset(&m);
	run(&m, spec, f, &kept, &mv);
	m.step = IBR_RECONF_MAX_STEPS;
	(void)ibr_reconf_take_reroute(&m);
	run(&m, spec, f, &kept, &mv);
	assert_int_equal(m.state, IBR_RECONF_REFUSED);
	assert_string_equal(m.reason, "too many steps");
	assert_true(mv.stepping);
	/* a warning as for no safe step: blocked, with the entries left
	 * (the final tables differ from the provisional ones here) */
	assert_true(mv.blocked);
	assert_true(mv.left > 0);
	assert_false(m.wants_reroute);
	assert_memory_equal(prov.col, m.prior.col,
			    (size_t)prov.num_lids * prov.num_switches);
	ibr_result_free(&prov);
	ibr_reconf_reset(&m);
	ibr_fabric_free(f);
}

/* Single engines after one link cut, over many seeds of 4x4 tori, random
 * 32-switch fabrics and 4-ary 3-trees (where pushing the engine's tables
 * at once can give a union that loops or has a credit loop): each push's
 * union with the tables before it, the first with the prior
 * tables mapped onto the cut fabric, is clean (drive_counting judges them
 * all), and the engine's own tables end in place. */
static void sweep(const char *engine, const char *whole_fmt,
		  const char *cut_fmt, unsigned cuts, unsigned *stepped,
		  unsigned *emptying)
{
	struct ibr_reconf m;
	uint32_t kept;
	unsigned emptied;

	*stepped = *emptying = 0;
	for (unsigned i = 1; i <= cuts; i++) {
		char whole[96], spec[96];
		struct ibr_fabric *a, *b;
		unsigned runs;

		snprintf(whole, sizeof(whole), whole_fmt, i);
		snprintf(spec, sizeof(spec), cut_fmt, i);
		a = generated_fabric(whole, 0);
		b = generated_fabric(spec, 0);
		ibr_reconf_init(&m, NULL, ibr_engine_find(engine));
		drive(&m, whole, a, &kept);
		assert_int_equal(m.state, IBR_RECONF_FINAL);
		runs = drive_counting(&m, spec, b, &kept, &emptied);
		*stepped += runs > 1;
		*emptying += emptied > 0;
		assert_final(&m, spec, b);
		ibr_reconf_reset(&m);
		ibr_fabric_free(a);
		ibr_fabric_free(b);
	}
	print_message("%s, %u fabrics with a link cut (%s): %u went in more "
		      "than one push (%u emptying entries first), every union "
		      "clean\n", engine, cuts, cut_fmt, *stepped, *emptying);
}

static void test_single_engine_cut_sweep(void **state)
{
	unsigned stepped, emptying;

	(void)state;
	sweep("fera", "torus:dims=4x4,ca=2,seed=%u",
	      "torus:dims=4x4,ca=2,broken=1,seed=%u", 32, &stepped, &emptying);
	assert_true(stepped > 0);
	sweep("fera", "random:sw=32,ca=128,seed=%u",
	      "random:sw=32,ca=128,cut=1,seed=%u", 40, &stepped, &emptying);
	assert_true(stepped > 0 && stepped < 40);
	sweep("dr", "random:sw=32,ca=128,seed=%u",
	      "random:sw=32,ca=128,cut=1,seed=%u", 10, &stepped, &emptying);
	sweep("fera", "kary:k=4,n=3,seed=%u", "kary:k=4,n=3,cut=1,seed=%u", 16,
	      &stepped, &emptying);
}

/* Every engine, single or hybrid, on a fabric of every family after
 * links cut and after a switch down: every push's union with the tables
 * before it clean (drive_counting), the final prior tables. */
static void test_every_engine_every_family(void **state)
{
	static const char *const changes[][2] = {
		{ "kary:k=4,n=3,seed=2", "kary:k=4,n=3,cut=2,seed=2" },
		{ "clos:leaf=8,spine=4,ca=32,seed=2",
		  "clos:leaf=8,spine=4,ca=32,cut=2,seed=2" },
		{ "torus:dims=4x4,ca=2,seed=2", "torus:dims=4x4,ca=2,broken=2,seed=2" },
		{ "random:sw=24,ca=48,seed=2", "random:sw=24,ca=48,cut=2,seed=2" },
		{ "dfplus:groups=5,leaves=2,spines=2,seed=2",
		  "dfplus:groups=5,leaves=2,spines=2,cut=2,seed=2" },
		{ "kary:k=4,n=3,seed=2", "kary:k=4,n=3,down=1,seed=2" },
		{ "dfplus:groups=5,leaves=2,spines=2,seed=2",
		  "dfplus:groups=5,leaves=2,spines=2,down=1,seed=2" },
	};
	static const char *const engines[][2] = {
		{ NULL, "pira" }, { NULL, "fera" }, { NULL, "dr" },
		{ NULL, "colorl" }, { "pira", "fera" }, { "pira", "colorl" },
	};
	unsigned pushes = 0, ways = 0, emptying = 0;

	(void)state;
	for (unsigned c = 0; c < sizeof(changes) / sizeof(changes[0]); c++)
		for (unsigned e = 0; e < sizeof(engines) / sizeof(engines[0]); e++) {
			const struct ibr_engine *fin = ibr_engine_find(engines[e][1]);
			unsigned lmc = fin->min_lmc, runs, emptied;
			struct ibr_fabric *a = generated_fabric(changes[c][0], lmc);
			struct ibr_fabric *b = generated_fabric(changes[c][1], lmc);
			struct ibr_reconf m;
			uint32_t kept;

			ibr_reconf_init(&m, engines[e][0] ?
					ibr_engine_find(engines[e][0]) : NULL, fin);
			drive(&m, changes[c][0], a, &kept);
			runs = drive_counting(&m, changes[c][1], b, &kept, &emptied);
			assert_final(&m, changes[c][1], b);
			pushes += runs;
			ways++;
			emptying += emptied > 0;
			ibr_reconf_reset(&m);
			ibr_fabric_free(a);
			ibr_fabric_free(b);
		}
	print_message("%u ways after a change (7 changes x 6 engines): %u pushes, "
		      "%u emptying entries first, every union clean\n", ways,
		      pushes, emptying);
}

/* A hybrid of one engine: the final tables are in place at once. */
static void test_same_engine_in_place(void **state)
{
	const char *spec = "kary:k=4,n=3,seed=1";
	struct ibr_fabric *f = generated_fabric(spec, 0);
	struct ibr_reconf_move mv;
	struct ibr_reconf m;
	uint32_t kept;

	(void)state;
	ibr_reconf_init(&m, ibr_engine_find("fera"), ibr_engine_find("fera"));
	run(&m, spec, f, &kept, &mv);
	assert_true(ibr_reconf_take_reroute(&m));
	run(&m, spec, f, &kept, &mv);
	assert_true(mv.unchanged);
	assert_int_equal(m.state, IBR_RECONF_FINAL);
	assert_int_equal(m.step, 0);
	assert_false(ibr_reconf_take_reroute(&m));
	assert_string_equal(ibr_reconf_state_name(IBR_RECONF_DOUBLE_SCHEME),
			    "double scheme");
	ibr_reconf_reset(&m);
	ibr_fabric_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kary_link_cut),
		cmocka_unit_test(test_kary_spine_down),
		cmocka_unit_test(test_clos_cut_and_spine_down),
		cmocka_unit_test(test_random_in_steps),
		cmocka_unit_test(test_torus_link_cut),
		cmocka_unit_test(test_kept),
		cmocka_unit_test(test_same_engine_in_place),
		cmocka_unit_test(test_single_engine_cut_sweep),
		cmocka_unit_test(test_every_engine_every_family),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
