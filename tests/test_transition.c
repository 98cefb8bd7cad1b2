/*
 * test_transition.c - the way from provisional to final tables.
 *
 * On generated fabrics of every kind, from PIRa's tables to FERa's (LMC 0)
 * and to dr's and colorl's (LMC 2), on one orientation: the union of the
 * two sets themselves is measured (it loops on most fabrics: the reason
 * for steps), then each step must
 *  - have a union with the tables before it that ibr_verify_union finds
 *    clean (no loop, no credit loop): what the switches may hold while
 *    OpenSM sends the step;
 *  - verify clean on its own (the switches hold it once sent);
 *  - move at least one entry while entries are left, and count them truly
 *    (moved + left adds up, left is the real difference);
 * and the last step must equal the final tables byte for byte, within 32
 * steps.  Also: from tables to themselves, nothing moves; the fabric
 * fingerprint a hybrid matches its passes on tells fabrics apart.
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
#include "ibrouting/prior.h"
#include "ibrouting/repair.h"
#include "ibrouting/transition.h"
#include "ibrouting/verify.h"
#include "fixtures.h"

static const char *const fabrics[] = {
	"random:sw=16,ca=64,seed=1", "random:sw=16,ca=128,seed=2",
	"random:sw=32,ca=128,seed=3", "random:sw=48,ca=192,seed=4",
	"random:sw=64,ca=256,seed=5", "random:sw=64,ca=512,seed=2",
	"clos:leaf=8,spine=4,ca=64,seed=1", "torus:dims=6x6,ca=1,seed=1",
	"torus:dims=8x8,ca=1,broken=3,seed=2", "torus:dims=4x4x4,ca=1,seed=1",
	"fattree:ports=8,levels=3",
};

/* The entries in which a and b differ. */
static uint64_t differing(const struct ibr_result *a,
			  const struct ibr_result *b)
{
	uint64_t d;

	ibr_result_difference(a, b, &d, NULL);
	return d;
}

/* Steps from cur to fin; returns how many, prints the direct union's
 * loops and the steps' sizes. */
static unsigned walk_steps(const char *spec, const struct ibr_fabric *f,
			   struct ibr_result *cur, const struct ibr_result *fin)
{
	struct ibr_error err = { "" };
	struct ibr_updown ud;
	struct ibr_result next;
	struct ibr_verify_report rep;
	uint64_t left = differing(cur, fin), direct_loops;
	unsigned steps = 0;
	char sizes[256] = "";
	size_t used = 0;

	assert_int_equal(cur->root, fin->root);
	assert_int_equal(ibr_updown_build(f, fin->root, &ud, &err), 0);
	assert_int_equal(ibr_result_init(&next, f, &err), 0);
	assert_int_equal(ibr_verify_union(f, cur, fin, &rep, &err), 0);
	direct_loops = rep.loops + rep.cycles;
	while (left > 0) {
		uint64_t moved, now_left;

		if (ibr_transition_step(f, &ud, cur, fin, &next, &moved,
					&now_left, &err))
			fail_msg("%s: %s", spec, err.msg);
		if (moved == 0)
			fail_msg("%s: step %u blocked with %llu entries left",
				 spec, steps + 1, (unsigned long long)left);
		assert_int_equal(moved + now_left, left);
		assert_int_equal(now_left, differing(&next, fin));
		assert_int_equal(ibr_verify_union(f, cur, &next, &rep, &err), 0);
		if (ibr_verify_findings(&rep))
			fail_msg("%s: step %u: union: %s", spec, steps + 1,
				 rep.messages[0]);
		assert_int_equal(ibr_verify(f, &next, NULL, &rep, &err), 0);
		if (ibr_verify_findings(&rep))
			fail_msg("%s: step %u: tables: %s", spec, steps + 1,
				 rep.messages[0]);
		memcpy(cur->col, next.col, (size_t)f->num_switches * cur->num_lids);
		left = now_left;
		steps++;
		if (used < sizeof(sizes) - 24)
			used += snprintf(sizes + used, sizeof(sizes) - used, " %llu",
					 (unsigned long long)moved);
		assert_true(steps <= 32);
	}
	assert_memory_equal(cur->col, fin->col,
			    (size_t)f->num_switches * cur->num_lids);
	print_message("%-38s direct union: %llu loops/credit loops; %u steps:%s\n",
		      spec, (unsigned long long)direct_loops, steps, sizes);
	ibr_result_free(&next);
	ibr_updown_free(&ud);
	return steps;
}

static void from_pira_to(const char *final, unsigned lmc)
{
	struct ibr_root_choice root = { .strategy = IBR_ROOT_LOWEST_LID };
	unsigned multi_step = 0;

	for (size_t i = 0; i < sizeof(fabrics) / sizeof(fabrics[0]); i++) {
		struct ibr_fabric *f = generated_fabric(fabrics[i], lmc);
		struct ibr_result prov, fin;
		struct ibr_error err = { "" };

		if (ibr_route_once(f, ibr_engine_find("pira"), &root, NULL,
				   &prov, &err) ||
		    ibr_route_once(f, ibr_engine_find(final), &root, NULL,
				   &fin, &err))
			fail_msg("%s: %s", fabrics[i], err.msg);
		multi_step += walk_steps(fabrics[i], f, &prov, &fin) > 1;
		ibr_result_free(&prov);
		ibr_result_free(&fin);
		ibr_fabric_free(f);
	}
	/* the steps are no formality: most fabrics need more than one */
	assert_true(multi_step > 0);
}

static void test_pira_to_fera(void **state)
{
	(void)state;
	from_pira_to("fera", 0);
}

static void test_pira_to_dr(void **state)
{
	(void)state;
	from_pira_to("dr", 2);
}

static void test_pira_to_colorl(void **state)
{
	(void)state;
	from_pira_to("colorl", 2);
}

/* Back from the final tables to PIRa's (the next topology change may
 * bring them) works the same way. */
static void test_fera_to_pira(void **state)
{
	struct ibr_root_choice root = { .strategy = IBR_ROOT_LOWEST_LID };
	struct ibr_fabric *f = generated_fabric(fabrics[5], 0);
	struct ibr_result prov, fin;
	struct ibr_error err = { "" };

	(void)state;
	if (ibr_route_once(f, ibr_engine_find("fera"), &root, NULL, &prov, &err) ||
	    ibr_route_once(f, ibr_engine_find("pira"), &root, NULL, &fin, &err))
		fail_msg("%s", err.msg);
	walk_steps(fabrics[5], f, &prov, &fin);
	ibr_result_free(&prov);
	ibr_result_free(&fin);
	ibr_fabric_free(f);
}

static void test_same_tables_move_nothing(void **state)
{
	struct ibr_root_choice root = { .strategy = IBR_ROOT_LOWEST_LID };
	struct ibr_fabric *f = generated_fabric(fabrics[0], 0);
	struct ibr_result a, next;
	struct ibr_updown ud;
	struct ibr_error err = { "" };
	uint64_t moved = 1, left = 1;

	(void)state;
	assert_int_equal(ibr_route_once(f, ibr_engine_find("fera"), &root, NULL,
					&a, &err), 0);
	assert_int_equal(ibr_updown_build(f, a.root, &ud, &err), 0);
	assert_int_equal(ibr_result_init(&next, f, &err), 0);
	assert_int_equal(ibr_transition_step(f, &ud, &a, &a, &next, &moved,
					     &left, &err), 0);
	assert_int_equal(moved, 0);
	assert_int_equal(left, 0);
	assert_memory_equal(next.col, a.col, (size_t)f->num_switches * a.num_lids);
	ibr_result_free(&a);
	ibr_result_free(&next);
	ibr_updown_free(&ud);
	ibr_fabric_free(f);
}

/* Does the walk from every switch of `prior_tables`'s column of every LID still
 * hold on f (same switches) under ud?  held[lid * S + s] says. */
static uint8_t *walks_that_hold(const struct ibr_fabric *f,
				const struct ibr_updown *ud,
				const struct ibr_result *prior_tables)
{
	uint32_t S = f->num_switches;
	uint8_t *held = calloc((size_t)prior_tables->num_lids * S, 1);
	struct ibr_error err = { "" };
	struct ibr_walker w;
	struct ibr_repair rp;

	assert_non_null(held);
	if (ibr_walker_init(&w, f, &err) || ibr_repair_init(&rp, f, ud, &w, &err))
		fail_msg("%s", err.msg);
	for (uint32_t l = 1; l <= f->max_lid && l < prior_tables->num_lids; l++) {
		if (f->lid_owner[l].node == IBR_NONE)
			continue;
		ibr_repair_judge(&rp, ibr_column(prior_tables, l), (ibr_lid_t)l);
		for (uint32_t s = 0; s < S; s++)
			held[(size_t)l * S + s] = ibr_repair_holds(&rp, s);
	}
	ibr_repair_free(&rp);
	ibr_walker_free(&w);
	return held;
}

/* After a link cut, PIRa's provisional tables keep the columns of the
 * prior tables (FERa's, made before the cut), mended where they no
 * longer hold (repair.h): the result verifies, keeps entries of most
 * columns, changes far fewer entries than PIRa's own tables would, is
 * the same from 1 and 3 workers, and no walk that still held changed an
 * entry. */
static void test_keep_columns_after_a_cut(void **state)
{
	struct ibr_root_choice root = { .strategy = IBR_ROOT_LOWEST_LID };
	struct ibr_fabric *before = generated_fabric("torus:dims=6x6,ca=2,seed=1", 0);
	struct ibr_fabric *after = generated_fabric("torus:dims=6x6,ca=2,broken=1,seed=1", 0);
	struct ibr_result prior_tables, prov, pira, threaded;
	struct ibr_verify_report rep;
	struct ibr_error err = { "" };
	struct ibr_updown ud;
	struct ibr_table_ids ids;
	uint64_t pira_changed = 0, changed = 0;
	uint32_t kept, kept3, owned = 0, S = after->num_switches;
	uint8_t *held;

	(void)state;
	assert_int_equal(before->max_lid, after->max_lid);
	assert_int_equal(before->num_switches, S);
	for (uint32_t s = 0; s < before->num_switches; s++)
		assert_true(ibr_switch(before, s)->guid ==
			    ibr_switch(after, s)->guid);
	if (ibr_table_ids_of(before, &ids, &err) ||
	    ibr_route_once(before, ibr_engine_find("fera"), &root, NULL, &prior_tables, &err) ||
	    ibr_route_once(after, ibr_engine_find("pira"), &root, NULL, &prov, &err) ||
	    ibr_result_copy(&pira, &prov, &err) ||
	    ibr_updown_build(after, prov.root, &ud, &err) ||
	    ibr_transition_provisional(after, &ud, &prior_tables, &ids, true, 1, &prov, &kept,
				&err))
		fail_msg("%s", err.msg);
	for (uint32_t l = 1; l <= after->max_lid; l++)
		owned += after->lid_owner[l].node != IBR_NONE;
	assert_int_equal(ibr_verify(after, &prov, NULL, &rep, &err), 0);
	if (ibr_verify_findings(&rep))
		fail_msg("kept tables: %s", rep.messages[0]);
	/* the same tables, byte for byte, from 3 workers (72 ports: 3 tasks) */
	if (ibr_result_copy(&threaded, &pira, &err) ||
	    ibr_transition_provisional(after, &ud, &prior_tables, &ids, true, 3, &threaded,
				&kept3, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(kept3, kept);
	assert_memory_equal(threaded.col, prov.col,
			    (size_t)prov.num_lids * prov.num_switches);
	ibr_result_free(&threaded);
	pira_changed = differing(&prior_tables, &pira);
	changed = differing(&prior_tables, &prov);
	print_message("torus 6x6, one link cut: %u of %u columns kept; entries "
		      "changed against the prior tables %llu (PIRa alone "
		      "%llu)\n", kept, owned, (unsigned long long)changed,
		      (unsigned long long)pira_changed);
	assert_true(kept > owned / 2 && kept <= owned);
	/* only the walks through the cut link change: a tenth of PIRa's */
	assert_true(changed > 0 && changed * 10 < pira_changed);
	/* a walk that still holds keeps every entry */
	held = walks_that_hold(after, &ud, &prior_tables);
	for (uint32_t l = 1; l <= after->max_lid; l++)
		for (uint32_t s = 0; s < S; s++)
			if (held[(size_t)l * S + s])
				assert_int_equal(ibr_entry(&prov, s, l),
						 ibr_entry(&prior_tables, s, l));
	free(held);
	ibr_result_free(&prior_tables);
	ibr_result_free(&prov);
	ibr_result_free(&pira);
	ibr_updown_free(&ud);
	ibr_table_ids_free(&ids);
	ibr_fabric_free(before);
	ibr_fabric_free(after);
}

/* The LID f's port (n, p) has in a copy of f: with `exchange`, every
 * switch's that of the switch as far from the last as it is from the
 * first, every CA port's likewise among the end ports (a middle one's
 * stays), as an SM without its LID cache may hand them out again. */
static ibr_lid_t copied_lid(const struct ibr_fabric *f, uint32_t n,
			    unsigned p, bool exchange)
{
	const struct ibr_node *nd = &f->nodes[n];

	if (!exchange)
		return ibr_port(f, n, p)->base_lid;
	if (nd->type == IBR_NODE_SWITCH)
		return ibr_switch_lid(f, f->num_switches - 1 - nd->sw_index);
	for (uint32_t e = 0; e < f->num_end_ports; e++)
		if (f->end_ports[e].node == n && f->end_ports[e].port == p)
			return ibr_end_port_lid(f, f->num_end_ports - 1 - e);
	return ibr_port(f, n, p)->base_lid;
}

/* f without switch `gone` (IBR_NONE: none) and the CAs on it, LIDs
 * exchanged or not (copied_lid): the same GUIDs, ports and links
 * otherwise, as OpenSM sees the fabric after the switch went down. */
static struct ibr_fabric *rebuilt(const struct ibr_fabric *f, uint32_t gone,
				  unsigned lmc, bool exchange)
{
	struct ibr_fabric *g = ibr_fabric_new();
	struct ibr_error err = { "" };
	uint32_t *to = malloc(f->num_nodes * sizeof(*to));
	uint32_t dead = gone == IBR_NONE ? IBR_NONE : f->sw_node[gone];

	assert_non_null(g);
	assert_non_null(to);
	for (uint32_t n = 0; n < f->num_nodes; n++) {
		const struct ibr_node *nd = &f->nodes[n];
		bool only_on_dead = nd->type == IBR_NODE_CA;
		for (unsigned p = 1; only_on_dead && p <= nd->num_ports; p++) {
			uint32_t r = ibr_port(f, n, p)->remote_node;
			only_on_dead = r == IBR_NONE || r == dead;
		}
		to[n] = IBR_NONE;
		if (n == dead || only_on_dead)
			continue;
		to[n] = ibr_fabric_add_node(g, nd->type, nd->guid, nd->num_ports,
					    nd->desc, NULL, &err);
		if (to[n] == IBR_NONE)
			fail_msg("%s", err.msg);
	}
	for (uint32_t n = 0; n < f->num_nodes; n++) {
		const struct ibr_node *nd = &f->nodes[n];
		if (to[n] == IBR_NONE)
			continue;
		for (unsigned p = 0; p <= nd->num_ports; p++) {
			const struct ibr_port *pp = ibr_port(f, n, p);
			if (pp->base_lid && (p == 0) == (nd->type == IBR_NODE_SWITCH))
				ibr_fabric_set_lid(g, to[n], p,
						   copied_lid(f, n, p, exchange),
						   pp->lmc);
			if (p == 0 || pp->remote_node == IBR_NONE ||
			    to[pp->remote_node] == IBR_NONE)
				continue;
			if (ibr_fabric_connect(g, to[n], p, to[pp->remote_node],
					       pp->remote_port, &err))
				fail_msg("%s", err.msg);
		}
	}
	if (ibr_fabric_finalize(g, lmc, &err))
		fail_msg("%s", err.msg);
	free(to);
	return g;
}

/* f without switch `gone` and the CAs on it, LIDs as they were. */
static struct ibr_fabric *without_switch(const struct ibr_fabric *f,
					 uint32_t gone, unsigned lmc)
{
	return rebuilt(f, gone, lmc, false);
}

/* A top switch of the 4-ary 3-tree down after `engine` routed it at LMC
 * lmc: the prior tables (before), the provisional pass of pira+engine
 * on the fabric after (prov, its columns kept: kept) and the final
 * engine's pass from the prior tables (final).  exchanged: every
 * switch's and CA port's LID exchanged with another's (rebuilt). */
struct top_down {
	const struct ibr_engine *fin;
	struct ibr_fabric *before, *after;
	struct ibr_result prior_tables, prov, final;
	struct ibr_prior prior;
	struct ibr_updown ud;
	struct ibr_table_ids ids;
	uint32_t kept;
};

static void top_down_setup(struct top_down *t, const char *engine,
			   unsigned lmc, bool exchanged)
{
	struct ibr_root_choice root = { .strategy = IBR_ROOT_AUTO };
	struct ibr_route_ctx ctx;
	struct ibr_error err = { "" };
	uint32_t top = IBR_NONE;

	t->fin = ibr_engine_find(engine);
	t->before = generated_fabric("kary:k=4,n=3", lmc);
	if (ibr_route_once(t->before, t->fin, &root, NULL, &t->prior_tables,
			   &err))
		fail_msg("%s", err.msg);
	/* the last switch of the top level (a root) goes down */
	assert_true(t->prior_tables.num_roots > 1);
	for (uint32_t r = 0; r < t->prior_tables.num_roots; r++)
		if (top == IBR_NONE || t->prior_tables.roots[r] > top)
			top = t->prior_tables.roots[r];
	t->after = exchanged ? rebuilt(t->before, top, lmc, true)
			     : without_switch(t->before, top, lmc);
	t->prior = (struct ibr_prior){ .f = t->before, .r = &t->prior_tables,
				       .engine = t->fin->name };
	if (ibr_table_ids_of(t->before, &t->ids, &err) ||
	    ibr_route_once(t->after, ibr_engine_find("pira"), &root, NULL,
			   &t->prov, &err) ||
	    ibr_updown_of_result(t->after, &t->prov, &t->ud, &err) ||
	    ibr_transition_provisional(t->after, &t->ud, &t->prior_tables,
				       &t->ids, !t->fin->designates_dlids, 2,
				       &t->prov, &t->kept, &err) ||
	    ibr_ctx_init(&ctx, t->after, &root, NULL, &err))
		fail_msg("%s: %s", t->fin->name, err.msg);
	ctx.prior = &t->prior;
	if (ibr_route(&ctx, t->fin, &t->final, &err))
		fail_msg("%s: %s", t->fin->name, err.msg);
	ibr_ctx_free(&ctx);
	/* the final engine did route from the prior tables */
	assert_int_not_equal(ibr_stat_get(&t->final, "pairs kept", UINT64_MAX),
			     UINT64_MAX);
	assert_int_equal(t->prov.num_lids, t->final.num_lids);
}

static void top_down_teardown(struct top_down *t)
{
	ibr_result_free(&t->prior_tables);
	ibr_result_free(&t->prov);
	ibr_result_free(&t->final);
	ibr_updown_free(&t->ud);
	ibr_table_ids_free(&t->ids);
	ibr_fabric_free(t->before);
	ibr_fabric_free(t->after);
}

/* A top switch of a k-ary n-tree down: the provisional pass keeps the
 * prior tables and mends them as the final engine does when it routes
 * from them (prior.h), so its final pass finds its own prior tables
 * and OpenSM sends no block after the provisional pass: PIRa's keep with
 * fera's prior tables equals fera's run from them (LMC 1: the ranges
 * are the bases' copies), with colorl's and dr's it equals theirs (LMC 2:
 * every LID above a base mended on its own), entry for entry. */
static void test_keep_is_the_final_engines_mending(void **state)
{
	static const struct { const char *engine; unsigned lmc; } cases[] = {
		{ "fera", 1 }, { "colorl", 2 }, { "dr", 2 },
	};

	(void)state;
	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct top_down t;
		struct ibr_prior_change moved;

		top_down_setup(&t, cases[i].engine, cases[i].lmc, false);
		assert_int_equal(t.prov.num_roots, t.prior_tables.num_roots - 1);
		assert_int_equal(ibr_prior_difference(&t.prior, t.after, NULL,
						      &t.prov, &moved), 0);
		print_message("kary 4,3 less a top switch, %s at LMC %u: %llu "
			      "entries moved, %llu of the provisional tables "
			      "differ from the final engine's (%u columns "
			      "kept)\n", t.fin->name, cases[i].lmc,
			      (unsigned long long)moved.entries,
			      (unsigned long long)differing(&t.prov, &t.final),
			      t.kept);
		assert_int_equal(differing(&t.prov, &t.final), 0);
		/* and the change did break walks: entries moved */
		assert_true(moved.entries > 0);
		top_down_teardown(&t);
	}
}

/* The LID `before` gave the owner of f's LID l (same node GUID, port
 * and offset in the range), 0 when it had none. */
static ibr_lid_t lid_before(const struct ibr_fabric *before,
			    const struct ibr_fabric *f, ibr_lid_t l)
{
	const struct ibr_lid_owner *o = &f->lid_owner[l];
	const struct ibr_port *p = ibr_port(f, o->node, o->port), *bp;
	uint32_t n = ibr_fabric_find_guid(before, f->nodes[o->node].guid);

	if (n == IBR_NONE)
		return 0;
	bp = ibr_port(before, n, o->port);
	return bp->base_lid ? (ibr_lid_t)(bp->base_lid + (l - p->base_lid)) : 0;
}

/* A top switch of the 4-ary 3-tree down, as in
 * test_keep_is_the_final_engines_mending, and every switch's and CA
 * port's LID exchanged with another's (copied_lid): the prior tables
 * are read by port, not by LID number, so the provisional pass and the
 * final engine's pass from the prior tables still agree entry for
 * entry, and a walk of the prior tables that still holds keeps every
 * entry on its port's new LID (read by LID number, nearly every column
 * would be another port's). */
static void test_mending_follows_ports_whose_lids_moved(void **state)
{
	static const struct { const char *engine; unsigned lmc; } cases[] = {
		{ "fera", 1 }, { "colorl", 2 }, { "dr", 2 },
	};

	(void)state;
	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct top_down t;
		struct ibr_verify_report rep;
		struct ibr_error err = { "" };
		struct ibr_walker w;
		struct ibr_repair rp;
		uint32_t owned = 0, moved = 0, S;
		uint64_t held = 0, entries = 0, by_number = 0;
		uint32_t *os;   /* after's switch -> before's, by GUID */
		uint8_t *col;
		const struct ibr_fabric *before, *after;

		top_down_setup(&t, cases[i].engine, cases[i].lmc, true);
		before = t.before;
		after = t.after;
		S = after->num_switches;
		assert_int_equal(differing(&t.prov, &t.final), 0);
		assert_int_equal(ibr_verify(after, &t.prov, NULL, &rep, &err), 0);
		if (ibr_verify_findings(&rep))
			fail_msg("%s: %s", t.fin->name, rep.messages[0]);
		/* every walk of the prior tables that holds on its port's
		 * new LID keeps its entries there */
		col = malloc(S);
		os = malloc(S * sizeof(*os));
		assert_non_null(col);
		assert_non_null(os);
		for (uint32_t s = 0; s < S; s++)
			os[s] = before->nodes[ibr_fabric_find_guid(before,
					ibr_switch(after, s)->guid)].sw_index;
		if (ibr_walker_init(&w, after, &err) ||
		    ibr_repair_init(&rp, after, &t.ud, &w, &err))
			fail_msg("%s", err.msg);
		for (ibr_lid_t l = 1; l <= after->max_lid; l++) {
			ibr_lid_t ol;
			if (after->lid_owner[l].node == IBR_NONE)
				continue;
			owned++;
			ol = lid_before(before, after, l);
			assert_int_not_equal(ol, 0);
			moved += ol != l;
			for (uint32_t s = 0; s < S; s++)
				col[s] = ibr_entry(&t.prior_tables, os[s], ol);
			ibr_repair_judge(&rp, col, l);
			for (uint32_t s = 0; s < S; s++) {
				entries++;
				if (!ibr_repair_holds(&rp, s))
					continue;
				held++;
				assert_int_equal(ibr_entry(&t.prov, s, l), col[s]);
				by_number += l >= t.prior_tables.num_lids ||
					     col[s] != ibr_entry(&t.prior_tables, os[s], l);
			}
		}
		print_message("kary 4,3 less a top switch, LIDs exchanged, %s at "
			      "LMC %u: %u of %u LIDs moved; %llu of %llu walks "
			      "held, kept on their port (%llu of them differ "
			      "from the prior_tables entry of the same LID number); %u "
			      "columns kept\n", t.fin->name, cases[i].lmc, moved,
			      owned, (unsigned long long)held,
			      (unsigned long long)entries,
			      (unsigned long long)by_number, t.kept);
		assert_true(moved * 10 > owned * 9);
		assert_true(held * 2 > entries);
		assert_true(by_number * 2 > held);
		assert_true(t.kept * 2 > owned && t.kept <= owned);
		ibr_repair_free(&rp);
		ibr_walker_free(&w);
		free(col);
		free(os);
		top_down_teardown(&t);
	}
}

/* A hybrid pira+`final` (dr, colorl) at LMC 2 after the change from
 * `before` to `after`: the provisional tables keep the final engine's
 * prior tables, and every LID of every CA port's range is delivered
 * from every switch by a legal route (ranges.h; hosts send to base+k
 * without asking the SA), as the verifier requires, the same from 1 and
 * 3 workers.  Kept alone, a LID above a base lost its entry where no walk
 * that holds was reached, and a switch new to the fabric had none. */
static void assert_keep_completes(const char *name, const char *final,
				  const struct ibr_fabric *before,
				  const struct ibr_fabric *after)
{
	struct ibr_root_choice root = { .strategy = IBR_ROOT_AUTO };
	struct ibr_result prior_tables, prov, threaded;
	struct ibr_verify_report rep;
	struct ibr_error err = { "" };
	struct ibr_updown ud;
	uint32_t S = after->num_switches;
	struct ibr_table_ids ids;
	uint32_t kept, kept3, lids = 0;
	uint8_t *held;

	if (ibr_table_ids_of(before, &ids, &err) ||
	    ibr_route_once(before, ibr_engine_find(final), &root, NULL, &prior_tables,
			   &err) ||
	    ibr_route_once(after, ibr_engine_find("pira"), &root, NULL, &prov,
			   &err) ||
	    ibr_result_copy(&threaded, &prov, &err) ||
	    ibr_updown_of_result(after, &prov, &ud, &err) ||
	    ibr_transition_provisional(after, &ud, &prior_tables, &ids, false, 1, &prov, &kept,
				&err) ||
	    ibr_transition_provisional(after, &ud, &prior_tables, &ids, false, 3, &threaded,
				&kept3, &err))
		fail_msg("%s, pira+%s: %s", name, final, err.msg);
	assert_int_equal(kept3, kept);
	assert_memory_equal(threaded.col, prov.col, (size_t)prov.num_lids * S);
	held = walks_that_hold(after, &ud, &prov);
	for (uint32_t e = 0; e < after->num_end_ports; e++) {
		const struct ibr_end_port *ep = &after->end_ports[e];
		const struct ibr_port *p = ibr_port(after, ep->node, ep->port);
		for (unsigned k = 0; k < ibr_port_lid_count(p); k++) {
			ibr_lid_t l = (ibr_lid_t)(p->base_lid + k);
			for (uint32_t s = 0; s < S; s++)
				if (!held[(size_t)l * S + s])
					fail_msg("%s, pira+%s: LID %u (offset "
						 "%u) not delivered from switch "
						 "%u", name, final, (unsigned)l,
						 k, s);
			lids++;
		}
	}
	assert_int_equal(ibr_verify(after, &prov, NULL, &rep, &err), 0);
	if (ibr_verify_findings(&rep))
		fail_msg("%s, pira+%s: %s", name, final, rep.messages[0]);
	print_message("%s, pira+%s at LMC 2: %u CA LIDs delivered from all %u "
		      "switches, %u columns kept\n", name, final, lids, S, kept);
	free(held);
	ibr_result_free(&prior_tables);
	ibr_result_free(&prov);
	ibr_result_free(&threaded);
	ibr_updown_free(&ud);
	ibr_table_ids_free(&ids);
}

/* assert_keep_completes after one and three links cut, and with a switch
 * (and its CAs) back up, on random fabrics. */
static void test_keep_completes_the_ranges(void **state)
{
	static const char *const specs[] = {
		"random:sw=32,ca=128,seed=3", "random:sw=64,ca=512,seed=1",
	};
	static const char *const finals[] = { "dr", "colorl" };

	(void)state;
	for (size_t i = 0; i < sizeof(specs) / sizeof(specs[0]); i++) {
		struct ibr_fabric *whole = generated_fabric(specs[i], 2);
		/* a switch whose loss leaves the rest connected, back up */
		struct ibr_fabric *less = NULL;
		for (uint32_t s = whole->num_switches; s-- > 0 && !less;) {
			struct ibr_root_choice root = { .strategy = IBR_ROOT_AUTO };
			struct ibr_error err = { "" };
			struct ibr_result r;
			less = without_switch(whole, s, 2);
			if (ibr_route_once(less, ibr_engine_find("dr"), &root,
					   NULL, &r, &err) == 0) {
				ibr_result_free(&r);
				break;
			}
			ibr_fabric_free(less);
			less = NULL;
		}
		assert_non_null(less);
		for (size_t j = 0; j < sizeof(finals) / sizeof(finals[0]); j++) {
			for (unsigned cuts = 1; cuts <= 3; cuts += 2) {
				char cut[96];
				struct ibr_fabric *after;
				snprintf(cut, sizeof(cut), "%s,cut=%u", specs[i],
					 cuts);
				after = generated_fabric(cut, 2);
				assert_keep_completes(cut, finals[j], whole, after);
				ibr_fabric_free(after);
			}
			assert_keep_completes("a switch back up", finals[j], less,
					      whole);
		}
		ibr_fabric_free(less);
		ibr_fabric_free(whole);
	}
}

/* The hybrid's passes match on the fabric's fingerprint: the same fabric
 * built twice matches; a link less, another LMC or other LIDs do not. */
static void test_fingerprint(void **state)
{
	struct ibr_fabric *a = generated_fabric("torus:dims=4x4,ca=1,seed=1", 0);
	struct ibr_fabric *b = generated_fabric("torus:dims=4x4,ca=1,seed=1", 0);
	struct ibr_fabric *cut = generated_fabric("torus:dims=4x4,ca=1,broken=1,seed=1", 0);
	struct ibr_fabric *lmc = generated_fabric("torus:dims=4x4,ca=1,seed=1", 1);
	uint64_t fa = ibr_fabric_fingerprint(a);

	(void)state;
	assert_true(fa == ibr_fabric_fingerprint(b));
	assert_true(fa != ibr_fabric_fingerprint(cut));
	assert_true(fa != ibr_fabric_fingerprint(lmc));
	/* one LID moved */
	b->ports[b->nodes[b->end_ports[0].node].first_port +
		 b->end_ports[0].port].base_lid += 0x100;
	assert_true(fa != ibr_fabric_fingerprint(b));
	ibr_fabric_free(a);
	ibr_fabric_free(b);
	ibr_fabric_free(cut);
	ibr_fabric_free(lmc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pira_to_fera),
		cmocka_unit_test(test_pira_to_dr),
		cmocka_unit_test(test_pira_to_colorl),
		cmocka_unit_test(test_fera_to_pira),
		cmocka_unit_test(test_same_tables_move_nothing),
		cmocka_unit_test(test_fingerprint),
		cmocka_unit_test(test_keep_columns_after_a_cut),
		cmocka_unit_test(test_keep_is_the_final_engines_mending),
		cmocka_unit_test(test_mending_follows_ports_whose_lids_moved),
		cmocka_unit_test(test_keep_completes_the_ranges),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
