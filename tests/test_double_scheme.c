/*
 * test_double_scheme.c - the Double Scheme (double_scheme.h) and its path
 * through the reconfiguration state machine (reconf.h):
 *  - a half's view: LMC - 1, CA bases on the half, switch LIDs as they
 *    are; placing and extracting a half are inverse;
 *  - pira -> colorl at LMC 2 on a k-ary 3-tree, driven as the plugin
 *    drives the machine: the six sub-steps in order, one re-route each;
 *    after the push the tables hold pira exactly on half 0 and colorl
 *    exactly on half 1; each half verifies clean with an acyclic graph
 *    of its own; FINAL on half 1, and a sweep changes nothing;
 *  - fera before a link cut -> fera after it: each function on the
 *    fabric it was made for, both halves clean, the combined set holds
 *    each exactly on its half;
 *  - a pair whose union on one VL set has a dependency cycle (two up/
 *    down functions with different roots on a torus: the one-push check
 *    refuses it) while each half on its own VL set is acyclic;
 *  - a half whose function loops: the check refuses, the machine REFUSED,
 *    the finding names the half;
 *  - the longest dependency chain and the drain bound.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "ibrouting/double_scheme.h"
#include "ibrouting/engine.h"
#include "ibrouting/reconf.h"
#include "ibrouting/verify.h"
#include "fixtures.h"

/* e routed on `half` of f, from the root choice (NULL: auto); the view
 * and its tables returned. */
static void route_half(const struct ibr_fabric *f, unsigned half,
		       const struct ibr_engine *e,
		       const struct ibr_root_choice *root,
		       struct ibr_fabric **view, struct ibr_result *hr)
{
	struct ibr_root_choice autoroot = { .strategy = IBR_ROOT_AUTO };
	struct ibr_error err = { "" };

	if (ibr_ds_view(f, half, view, &err) ||
	    ibr_route_once(*view, e, root ? root : &autoroot, NULL, hr, &err))
		fail_msg("%s on half %u: %s", e->name, half, err.msg);
}

/* Every column of hr's CA LIDs equals full's (the half held exactly). */
static void assert_half_held(const struct ibr_fabric *view,
			     const struct ibr_result *hr,
			     const struct ibr_result *full)
{
	uint64_t cols = 0;

	for (uint32_t lid = 1; lid <= view->max_lid; lid++) {
		uint32_t n = view->lid_owner[lid].node;
		if (n == IBR_NONE || view->nodes[n].type != IBR_NODE_CA)
			continue;
		assert_memory_equal(ibr_column(hr, lid), ibr_column(full, lid),
				    hr->num_switches);
		cols++;
	}
	assert_true(cols > 0);
}

static void test_views(void **state)
{
	struct ibr_fabric *f = generated_fabric("kary:k=4,n=3", 2), *v[2];
	struct ibr_error err = { "" };
	struct ibr_result hr, full, back;

	(void)state;
	for (unsigned h = 0; h < 2; h++) {
		if (ibr_ds_view(f, h, &v[h], &err))
			fail_msg("%s", err.msg);
		assert_int_equal(v[h]->lmc, 1);
		assert_int_equal(v[h]->num_end_ports, f->num_end_ports);
		for (uint32_t e = 0; e < f->num_end_ports; e++)
			assert_int_equal(ibr_end_port_lid(v[h], e),
					 ibr_end_port_lid(f, e) + 2 * h);
		for (uint32_t s = 0; s < f->num_switches; s++)
			assert_int_equal(ibr_switch_lid(v[h], s),
					 ibr_switch_lid(f, s));
	}
	/* dr at LMC 2 on a half: LMC 1, 2 LIDs per port, offsets 0..1
	 * there, 2..3 in the full tables; place then extract gives it back */
	route_half(f, 1, ibr_engine_find("dr"), NULL, &v[1], &hr);
	ibr_fabric_free(v[0]);
	if (ibr_result_init(&full, f, &err) ||
	    ibr_ds_place(f, v[1], &hr, true, &full, &err) ||
	    ibr_ds_extract(f, v[1], &full, &back, &err))
		fail_msg("%s", err.msg);
	assert_memory_equal(back.col, hr.col,
			    (size_t)hr.num_switches * hr.num_lids);
	assert_non_null(full.designated.offset);
	for (uint32_t i = 0; i < full.designated.rows * full.designated.cols; i++) {
		assert_in_range(full.designated.offset[i], 2, 3);
		assert_int_equal(back.designated.offset[i],
				 hr.designated.offset ? hr.designated.offset[i] : 0);
	}
	/* half 0's columns untouched: nothing routed there */
	for (uint32_t e = 0; e < f->num_end_ports; e++)
		for (unsigned k = 0; k < 2; k++)
			for (uint32_t s = 0; s < f->num_switches; s++)
				assert_int_equal(ibr_entry(&full, s,
					ibr_end_port_lid(f, e) + k), IBR_NO_PATH);
	ibr_result_free(&hr);
	ibr_result_free(&full);
	ibr_result_free(&back);
	ibr_fabric_free(v[1]);
	/* LMC 0 has no halves */
	ibr_fabric_free(f);
	f = generated_fabric("kary:k=4,n=3", 0);
	assert_int_equal(ibr_ds_view(f, 0, &v[0], &err), -1);
	assert_non_null(strstr(err.msg, "LMC >= 1"));
	ibr_fabric_free(f);
}

/* One routing run of the machine with the Double Scheme, as a driver
 * makes it: the engine routed on the run's half and placed. */
static void ds_run(struct ibr_reconf *m, const struct ibr_fabric *f,
		   struct ibr_reconf_move *mv)
{
	struct ibr_root_choice root = { .strategy = IBR_ROOT_AUTO };
	struct ibr_error err = { "" };
	struct ibr_verify_report rep;
	struct ibr_fabric *view;
	struct ibr_result hr, full;
	bool prov = ibr_reconf_changed(m, f);
	uint32_t kept;

	memset(mv, 0, sizeof(*mv));
	if (prov || !ibr_reconf_has_final(m)) {
		if (!prov)
			ibr_reconf_final_root(m, &root);
		route_half(f, ibr_reconf_half(m, prov), prov ? m->prov : m->fin,
			   &root, &view, &hr);
		if (prov ? ibr_result_init(&full, f, &err) :
			   ibr_result_copy(&full, &m->prior, &err))
			fail_msg("%s", err.msg);
		if (ibr_ds_place(f, view, &hr, true, &full, &err) ||
		    ibr_verify(view, &hr, NULL, &rep, &err))
			fail_msg("%s", err.msg);
		assert_int_equal(ibr_verify_findings(&rep), 0);
		ibr_result_free(&hr);
		ibr_fabric_free(view);
		if (prov) {
			if (ibr_reconf_change(m, f, &full, &rep, &kept, mv, &err))
				fail_msg("%s", err.msg);
			assert_int_equal(kept, 0);
			ibr_result_free(&full);
			return;
		}
		ibr_reconf_set_final(m, &full, &rep);
	}
	if (ibr_reconf_next(m, f, mv, &err))
		fail_msg("next: %s", err.msg);
}

static void test_pira_to_colorl(void **state)
{
	struct ibr_fabric *f = generated_fabric("kary:k=4,n=3", 2), *v0, *v1;
	const struct ibr_engine *pira = ibr_engine_find("pira"),
				*colorl = ibr_engine_find("colorl");
	struct ibr_root_choice root = { .strategy = IBR_ROOT_AUTO };
	struct ibr_error err = { "" };
	struct ibr_reconf_move mv;
	struct ibr_result p0, c1;
	struct ibr_reconf m;

	(void)state;
	ibr_reconf_init(&m, pira, colorl);
	assert_int_equal(ibr_reconf_double_scheme(&m, 0, &err), -1);
	assert_false(m.double_scheme);
	if (ibr_reconf_double_scheme(&m, f->lmc, &err))
		fail_msg("%s", err.msg);
	ds_run(&m, f, &mv);
	assert_int_equal(m.state, IBR_RECONF_PROVISIONAL);
	assert_true(ibr_reconf_take_reroute(&m));
	for (enum ibr_ds_step s = IBR_DS_RESTRICT_SL2VL;
	     s <= IBR_DS_RESTORE_SL2VL; s++) {
		ds_run(&m, f, &mv);
		assert_int_equal(m.ds_step, s);
		assert_int_equal(m.state, s == IBR_DS_RESTORE_SL2VL ?
				 IBR_RECONF_FINAL : IBR_RECONF_DOUBLE_SCHEME);
		if (s == IBR_DS_RESTRICT_SL2VL) {
			/* the check: both halves clean, acyclic apart */
			assert_true(ibr_ds_check_clean(&m.ds));
			assert_true(m.ds.prior_rep.dependencies > 0);
			assert_true(m.ds.new_rep.dependencies > 0);
			assert_true(m.ds.prior_rep.longest_chain > 0);
		}
		assert_int_equal(mv.changed > 0, s == IBR_DS_PUSH_NEW ||
				 s == IBR_DS_SWITCH_SA);
		if (s == IBR_DS_PUSH_NEW) {
			/* pira exactly on half 0, colorl exactly on half 1 */
			route_half(f, 0, pira, NULL, &v0, &p0);
			ibr_reconf_final_root(&m, &root);
			route_half(f, 1, colorl, &root, &v1, &c1);
			assert_half_held(v0, &p0, &m.prior);
			assert_half_held(v1, &c1, &m.prior);
			/* switch LIDs still carry the function in force */
			for (uint32_t s2 = 0; s2 < f->num_switches; s2++)
				assert_memory_equal(
					ibr_column(&m.prior, ibr_switch_lid(f, s2)),
					ibr_column(&p0, ibr_switch_lid(f, s2)),
					f->num_switches);
			ibr_result_free(&p0);
			ibr_result_free(&c1);
			ibr_fabric_free(v0);
			ibr_fabric_free(v1);
		}
		assert_int_equal(m.half, s >= IBR_DS_SWITCH_SA ? 1 : 0);
		assert_int_equal(ibr_reconf_take_reroute(&m),
				 s != IBR_DS_RESTORE_SL2VL);
	}
	/* a sweep after the way changes nothing */
	ds_run(&m, f, &mv);
	assert_true(mv.unchanged);
	assert_int_equal(m.state, IBR_RECONF_FINAL);
	ibr_reconf_reset(&m);
	ibr_fabric_free(f);
}

/* the prior tables on half 0 of f0 and new on half 1 of f1 (same nodes, a link cut):
 * both verify on their own fabrics (the new one with its switch LIDs,
 * which it takes when the SA switches); the combined set on f1 holds
 * each exactly on its half. */
static void test_fera_across_a_cut(void **state)
{
	struct ibr_fabric *f0 = generated_fabric("kary:k=4,n=3", 1),
			  *f1 = generated_fabric("kary:k=4,n=3,cut=1,seed=1", 1),
			  *v0, *v1;
	const struct ibr_engine *fera = ibr_engine_find("fera");
	struct ibr_error err = { "" };
	struct ibr_result o, n, prior_full, both;
	struct ibr_ds_check c;
	char why[300];

	(void)state;
	assert_int_equal(f0->num_switches, f1->num_switches);
	assert_true(ibr_fabric_fingerprint(f0) != ibr_fabric_fingerprint(f1));
	route_half(f0, 0, fera, NULL, &v0, &o);
	route_half(f1, 1, fera, NULL, &v1, &n);
	if (ibr_result_init(&prior_full, f0, &err) ||
	    ibr_ds_place(f0, v0, &o, true, &prior_full, &err) ||
	    ibr_result_init(&both, f1, &err) ||
	    ibr_ds_place(f1, v0, &o, true, &both, &err) ||
	    ibr_ds_place(f1, v1, &n, true, &both, &err) ||
	    ibr_ds_check(f0, &prior_full, 0, f1, &both, &c, &err))
		fail_msg("%s", err.msg);
	if (!ibr_ds_check_clean(&c))
		fail_msg("%s", ibr_ds_check_finding(&c, why, sizeof(why)));
	assert_half_held(v0, &o, &both);
	assert_half_held(v1, &n, &both);
	assert_true(c.prior_rep.longest_chain > 0 && c.new_rep.longest_chain > 0);
	ibr_result_free(&o);
	ibr_result_free(&n);
	ibr_result_free(&prior_full);
	ibr_result_free(&both);
	ibr_fabric_free(v0);
	ibr_fabric_free(v1);
	ibr_fabric_free(f0);
	ibr_fabric_free(f1);
}

/* Two up/down functions rooted at different switches of a torus: the
 * union of the two on one VL set has a dependency cycle (so the one-push
 * check refuses them, and both on one VL set are not deadlock-free), yet
 * each on its own half and VL set is acyclic. */
static void test_union_cyclic_halves_clean(void **state)
{
	struct ibr_fabric *f = generated_fabric("torus:dims=4x4,ca=1,seed=1", 1),
			  *v0, *v1;
	const struct ibr_engine *fera = ibr_engine_find("fera");
	struct ibr_root_choice ra = { .strategy = IBR_ROOT_AUTO },
			       rb = { .strategy = IBR_ROOT_AUTO };
	struct ibr_error err = { "" };
	struct ibr_verify_report rep;
	struct ibr_result a, b, fa, fb, both, prior_full, new_full;
	struct ibr_ds_check c;
	bool found = false;

	(void)state;
	ra.guid = ibr_switch(f, 0)->guid;
	/* the first other root whose union with root 0's cycles */
	for (uint32_t s = 1; s < f->num_switches && !found; s++) {
		rb.guid = ibr_switch(f, s)->guid;
		if (ibr_route_once(f, fera, &ra, NULL, &fa, &err) ||
		    ibr_route_once(f, fera, &rb, NULL, &fb, &err) ||
		    ibr_verify_union(f, &fa, &fb, &rep, &err))
			fail_msg("%s", err.msg);
		found = rep.cycles > 0;
		ibr_result_free(&fa);
		ibr_result_free(&fb);
	}
	assert_true(found);
	assert_int_equal(rep.loops, 0);
	route_half(f, 0, fera, &ra, &v0, &a);
	route_half(f, 1, fera, &rb, &v1, &b);
	if (ibr_result_init(&both, f, &err) ||
	    ibr_ds_place(f, v0, &a, true, &both, &err) ||
	    ibr_ds_place(f, v1, &b, false, &both, &err) ||
	    ibr_result_init(&prior_full, f, &err) ||
	    ibr_ds_place(f, v0, &a, true, &prior_full, &err) ||
	    ibr_result_copy(&new_full, &both, &err) ||
	    ibr_ds_place(f, v1, &b, true, &new_full, &err) ||
	    ibr_ds_check(f, &prior_full, 0, f, &new_full, &c, &err))
		fail_msg("%s", err.msg);
	assert_true(ibr_ds_check_clean(&c));
	/* the same tables taken as one function on one VL set: the graph
	 * of both halves together is what the VL sets keep apart */
	if (ibr_verify(f, &both, NULL, &rep, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(rep.cycles, 1);
	ibr_result_free(&prior_full);
	ibr_result_free(&new_full);
	ibr_result_free(&a);
	ibr_result_free(&b);
	ibr_result_free(&both);
	ibr_fabric_free(v0);
	ibr_fabric_free(v1);
	ibr_fabric_free(f);
}

/* A new half whose column loops: refused, the machine REFUSED, the tables
 * in place unchanged, the finding naming the half. */
static void test_refused(void **state)
{
	struct ibr_fabric *f = generated_fabric("kary:k=4,n=3", 1);
	const struct ibr_engine *fera = ibr_engine_find("fera");
	struct ibr_error err = { "" };
	struct ibr_reconf_move mv;
	struct ibr_reconf m;
	struct ibr_result in_place;
	uint8_t *col;
	uint32_t a = IBR_NONE, b = IBR_NONE;
	ibr_lid_t lid;

	(void)state;
	ibr_reconf_init(&m, fera, fera);
	if (ibr_reconf_double_scheme(&m, f->lmc, &err))
		fail_msg("%s", err.msg);
	ds_run(&m, f, &mv);             /* provisional on half 0 */
	assert_true(ibr_reconf_take_reroute(&m));
	{
		struct ibr_root_choice root = { .strategy = IBR_ROOT_AUTO };
		struct ibr_verify_report rep = { 0 };
		struct ibr_fabric *v1;
		struct ibr_result hr, full;

		ibr_reconf_final_root(&m, &root);
		route_half(f, 1, fera, &root, &v1, &hr);
		if (ibr_result_copy(&full, &m.prior, &err) ||
		    ibr_ds_place(f, v1, &hr, true, &full, &err))
			fail_msg("%s", err.msg);
		lid = ibr_ds_half_base(ibr_end_port_lid(f, 0), 1, 1);
		col = ibr_column(&full, lid);
		/* a switch and its first neighbour send the LID to each other */
		a = 0;
		b = f->sw_adj[f->sw_adj_start[a]].peer;
		col[a] = f->sw_adj[f->sw_adj_start[a]].port;
		for (uint32_t i = f->sw_adj_start[b]; i < f->sw_adj_start[b + 1]; i++)
			if (f->sw_adj[i].peer == a)
				col[b] = f->sw_adj[i].port;
		ibr_reconf_set_final(&m, &full, &rep);
		ibr_result_free(&hr);
		ibr_fabric_free(v1);
	}
	if (ibr_result_copy(&in_place, &m.prior, &err) ||
	    ibr_reconf_next(&m, f, &mv, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(m.state, IBR_RECONF_REFUSED);
	assert_true(mv.blocked);
	assert_false(ibr_reconf_take_reroute(&m));
	assert_non_null(strstr(mv.finding, "the new function (half 1, VL set B)"));
	assert_non_null(strstr(mv.finding, "loops"));
	assert_memory_equal(in_place.col, m.prior.col,
			    (size_t)in_place.num_switches * in_place.num_lids);
	ibr_result_free(&in_place);
	ibr_reconf_reset(&m);
	ibr_fabric_free(f);
}

static void test_drain_bound(void **state)
{
	(void)state;
	/* 4.096 us * 2^18 = 1.073741824 s per switch */
	assert_true(ibr_ds_drain_bound(0, 18) > 1.0737 &&
		    ibr_ds_drain_bound(0, 18) < 1.0738);
	assert_true(ibr_ds_drain_bound(4, 18) > 5 * 1.0737 &&
		    ibr_ds_drain_bound(4, 18) < 5 * 1.0738);
	assert_true(ibr_ds_drain_bound(4, 20) < 0);
}

/* The provisional pass's other half (ibr_ds_mirror): routed on half 1
 * and placed over empty tables, then mirrored, every CA LID of the fabric
 * is delivered, with no more dependencies than the half alone (the same
 * walks), and each half-0 column equals its half-1 twin; half 0 holds the
 * base LIDs, so without the mirror they would be unreachable. */
static void test_mirror(void **state)
{
	struct ibr_fabric *f = generated_fabric("kary:k=4,n=2", 2), *v1;
	const struct ibr_engine *pira = ibr_engine_find("pira");
	struct ibr_error err = { "" };
	struct ibr_verify_report alone, both, empty;
	struct ibr_result h1, full;

	(void)state;
	route_half(f, 1, pira, NULL, &v1, &h1);
	if (ibr_result_init(&full, f, &err) ||
	    ibr_ds_place(f, v1, &h1, true, &full, &err) ||
	    ibr_verify(f, &full, NULL, &empty, &err))
		fail_msg("%s", err.msg);
	assert_true(empty.unreachable > 0);     /* half 0 empty: base LIDs */
	ibr_ds_mirror(f, 1, &full);
	if (ibr_verify(f, &full, NULL, &both, &err) ||
	    ibr_verify(v1, &h1, NULL, &alone, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(ibr_verify_findings(&both), 0);
	assert_int_equal(both.dependencies, alone.dependencies);
	for (uint32_t e = 0; e < f->num_end_ports; e++) {
		ibr_lid_t base = ibr_end_port_lid(f, e);
		for (unsigned i = 0; i < 2; i++)
			assert_memory_equal(ibr_column(&full, base + i),
					    ibr_column(&full, base + 2 + i),
					    full.num_switches);
	}
	ibr_result_free(&h1);
	ibr_result_free(&full);
	ibr_fabric_free(v1);
	ibr_fabric_free(f);
}

/* The check before a drain clock starts (R6): what update_sl2vl makes
 * passes for its own half and fails for the other; a table OpenSM zeroed
 * for a Set that got no answer (every SL on VL 0) fails, as do the
 * unrestricted table and one SL moved across; VL 15 passes. */
static void test_sl2vl_restricted(void **state)
{
	static const uint8_t def[16] = { 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3,
					 4, 5, 6, 7 };
	static const unsigned dvls[] = { 2, 4, 8, 15 };
	uint8_t out[16], zero[16] = { 0 };

	(void)state;
	for (size_t i = 0; i < sizeof(dvls) / sizeof(dvls[0]); i++)
		for (unsigned ph = 0; ph < 2; ph++) {
			ibr_ds_sl2vl(def, dvls[i], true, ph, out);
			assert_true(ibr_ds_sl2vl_restricted(out, dvls[i], ph));
			assert_false(ibr_ds_sl2vl_restricted(out, dvls[i],
							     1 - ph));
			assert_false(ibr_ds_sl2vl_restricted(zero, dvls[i],
							     ph));
		}
	assert_false(ibr_ds_sl2vl_restricted(def, 8, 0));
	ibr_ds_sl2vl(def, 8, true, 0, out);
	out[9] = 15;
	assert_true(ibr_ds_sl2vl_restricted(out, 8, 0));
	out[9] = 3;
	assert_false(ibr_ds_sl2vl_restricted(out, 8, 0));
	/* one data VL: no two sets to keep apart */
	ibr_ds_sl2vl(def, 1, true, 0, out);
	assert_false(ibr_ds_sl2vl_restricted(out, 1, 0));
}

/* The SL-to-VL tables of the plugin's update_sl2vl and path_sl's SL:
 * both sets disjoint on every port, no VL 15 made, the sizes of the sets;
 * not restricted: the configured table. */
static void test_sl2vl(void **state)
{
	static const uint8_t def[16] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11,
					 12, 13, 14, 7 };
	static const unsigned dvls[] = { 2, 4, 8, 15 };
	uint8_t out[16];

	(void)state;
	ibr_ds_sl2vl(def, 8, false, 0, out);
	assert_memory_equal(out, def, 16);
	for (size_t i = 0; i < sizeof(dvls) / sizeof(dvls[0]); i++)
		for (unsigned ph = 0; ph < 2; ph++) {
			unsigned H = dvls[i] / 2;
			ibr_ds_sl2vl(def, dvls[i], true, ph, out);
			for (unsigned sl = 0; sl < 16; sl++) {
				bool in_prior = (sl >> 3) == ph;
				assert_true(out[sl] != 15);
				if (in_prior)
					assert_true(out[sl] < H);
				else
					assert_true(out[sl] >= H &&
						    out[sl] < 2 * H);
			}
		}
	ibr_ds_sl2vl(def, 8, true, 0, out);
	{
		static const uint8_t want[16] = { 0, 1, 2, 3, 0, 1, 2, 3, 4, 5,
						  6, 7, 4, 5, 6, 7 };
		assert_memory_equal(out, want, 16);
	}
	/* one data VL: left alone (refused before) */
	ibr_ds_sl2vl(def, 1, true, 0, out);
	assert_memory_equal(out, def, 16);
	assert_int_equal(ibr_ds_path_sl(3, 0), 3);
	assert_int_equal(ibr_ds_path_sl(3, 1), 11);
	assert_int_equal(ibr_ds_path_sl(12, 0), 4);
	/* LMC 2: base 8 -> 8,9 half 0, 10,11 half 1; LMC 1: odd LIDs */
	assert_int_equal(ibr_ds_lid_half(8, 2), 0);
	assert_int_equal(ibr_ds_lid_half(9, 2), 0);
	assert_int_equal(ibr_ds_lid_half(10, 2), 1);
	assert_int_equal(ibr_ds_lid_half(11, 2), 1);
	assert_int_equal(ibr_ds_lid_half(5, 1), 1);
	assert_int_equal(ibr_ds_lid_half(16, 3), 0);
	assert_int_equal(ibr_ds_lid_half(20, 3), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_views),
		cmocka_unit_test(test_pira_to_colorl),
		cmocka_unit_test(test_fera_across_a_cut),
		cmocka_unit_test(test_union_cyclic_halves_clean),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_drain_bound),
		cmocka_unit_test(test_sl2vl),
		cmocka_unit_test(test_sl2vl_restricted),
		cmocka_unit_test(test_mirror),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
