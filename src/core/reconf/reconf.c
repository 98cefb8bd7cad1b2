/*
 * reconf.c - the reconfiguration state machine of a hybrid engine
 * (reconf.h has the states, the driver's protocol and the invariants).
 *
 * The machine never routes: the caller does, as it always routes, with
 * its own root resolution and logging.  What lives here is every decision
 * between two routing runs, so that the plugin and `ibrouting transition`
 * cannot drift apart: whether a run is provisional or final, which
 * columns survive a change, whether the final tables go in one push or in
 * safe steps, and when the prior tables stay.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ibrouting/reconf.h"
#include "ibrouting/transition.h"

void ibr_reconf_init(struct ibr_reconf *m, const struct ibr_engine *prov,
		     const struct ibr_engine *fin)
{
	memset(m, 0, sizeof(*m));
	m->prov = prov;
	m->fin = fin;
	m->threads = 1;
}

int ibr_reconf_double_scheme(struct ibr_reconf *m, unsigned lmc,
			     struct ibr_error *err)
{
	if (lmc < 1)
		return ibr_error_set(err, "the Double Scheme needs LMC >= 1: "
				     "each function gets one half of every "
				     "port's LIDs");
	m->double_scheme = true;
	return 0;
}

unsigned ibr_reconf_half(const struct ibr_reconf *m, bool provisional)
{
	return provisional ? m->half : 1 - m->half;
}

const char *ibr_ds_step_name(enum ibr_ds_step s)
{
	switch (s) {
	case IBR_DS_NONE: return "none";
	case IBR_DS_RESTRICT_SL2VL: return "restrict SL-to-VL";
	case IBR_DS_PUSH_NEW: return "push the new half";
	case IBR_DS_DRAIN_NEW_VLS: return "drain VL set B";
	case IBR_DS_SWITCH_SA: return "switch the SA";
	case IBR_DS_DRAIN_PRIOR_VLS: return "drain VL set A";
	case IBR_DS_RESTORE_SL2VL: return "restore SL-to-VL";
	}
	return "?";
}

const char *ibr_reconf_state_name(enum ibr_reconf_state s)
{
	switch (s) {
	case IBR_RECONF_IDLE: return "idle";
	case IBR_RECONF_PROVISIONAL: return "provisional";
	case IBR_RECONF_SAFE_STEP: return "safe step";
	case IBR_RECONF_FINAL: return "final";
	case IBR_RECONF_REFUSED: return "refused";
	case IBR_RECONF_DOUBLE_SCHEME: return "double scheme";
	}
	return "?";
}

static void forget_final(struct ibr_reconf *m)
{
	if (m->have_final)
		ibr_result_free(&m->final);
	m->have_final = false;
	m->leg_provisional = false;
	m->step = 0;
	m->ds_step = IBR_DS_NONE;
}

static void drop_prior(struct ibr_reconf *m)
{
	if (m->have_prior)
		ibr_result_free(&m->prior);
	m->have_prior = false;
	ibr_table_ids_free(&m->prior_ids);
}

void ibr_reconf_reset(struct ibr_reconf *m)
{
	free(m->root_guids);
	m->root_guids = NULL;
	m->num_roots = 0;
	drop_prior(m);
	forget_final(m);
	m->wants_reroute = false;
	m->reason = NULL;
	m->state = IBR_RECONF_IDLE;
}

bool ibr_reconf_changed(const struct ibr_reconf *m, const struct ibr_fabric *f)
{
	return !m->have_prior || ibr_fabric_fingerprint(f) != m->fingerprint;
}

/* The prior tables become a copy of r, made for f (with f's
 * identities: the next change reads their columns by port). */
static int set_prior(struct ibr_reconf *m, const struct ibr_fabric *f,
		const struct ibr_result *r, struct ibr_error *err)
{
	drop_prior(m);
	if (ibr_table_ids_of(f, &m->prior_ids, err))
		return -1;
	if (ibr_result_copy(&m->prior, r, err)) {
		ibr_table_ids_free(&m->prior_ids);
		return -1;
	}
	m->have_prior = true;
	m->fingerprint = ibr_fabric_fingerprint(f);
	return 0;
}

/* After a change, the columns of the prior tables that still hold on
 * f replace r's (transition.h): after a small change OpenSM then sends
 * few blocks.  The result is verified again; on any failure, allocation
 * included, r stays the engine's own, which verified already: keeping is
 * an economy, never a condition of the pass. */
static uint32_t keep_columns(struct ibr_reconf *m, const struct ibr_fabric *f,
			     struct ibr_result *r)
{
	const struct ibr_verify_options only = { .check_only = true };
	struct ibr_error err = { "" };
	struct ibr_verify_report rep;
	struct ibr_result mixed;
	struct ibr_updown ud;
	uint32_t kept = 0;

	if (!m->have_prior || ibr_result_copy(&mixed, r, &err))
		return 0;
	if (ibr_updown_of_result(f, r, &ud, &err) == 0) {
		/* one route per destination: the ranges are copies of
		 * their bases (prior.h) */
		if (ibr_transition_provisional(f, &ud, &m->prior, &m->prior_ids,
					!m->fin->designates_dlids, m->threads,
					&mixed, &kept, &err) == 0 &&
		    ibr_verify(f, &mixed, &only, &rep, &err) == 0 &&
		    ibr_verify_findings(&rep) == 0) {
			ibr_result_free(r);
			*r = mixed;
			ibr_updown_free(&ud);
			return kept;
		}
		ibr_updown_free(&ud);
	}
	ibr_result_free(&mixed);
	return 0;
}

/* r's root set, by GUID, for the final pass: one orientation for both
 * passes, the hybrid's deadlock-freedom rests on it. */
static int remember_roots(struct ibr_reconf *m, const struct ibr_fabric *f,
			  const struct ibr_result *r, struct ibr_error *err)
{
	uint64_t *g = malloc((r->num_roots ? r->num_roots : 1) * sizeof(*g));

	if (!g)
		return ibr_error_set(err, "out of memory for %u roots",
				     r->num_roots);
	for (uint32_t i = 0; i < r->num_roots; i++)
		g[i] = ibr_switch(f, r->roots[i])->guid;
	free(m->root_guids);
	m->root_guids = g;
	m->num_roots = r->num_roots;
	return 0;
}

/* The prior tables, made for another fabric, become tables of f, as
 * the switches hold them (ibr_result_onto). */
static int prior_onto(struct ibr_reconf *m, const struct ibr_fabric *f,
		     struct ibr_error *err)
{
	struct ibr_result on;
	int rc;

	if (ibr_result_onto(&m->prior, m->prior_ids.switch_guid, f, &on, err))
		return -1;
	rc = set_prior(m, f, &on, err);
	ibr_result_free(&on);
	return rc;
}

int ibr_reconf_change(struct ibr_reconf *m, const struct ibr_fabric *f,
		      const struct ibr_result *r,
		      const struct ibr_verify_report *rep, uint32_t *kept,
		      struct ibr_reconf_move *mv, struct ibr_error *err)
{
	bool hybrid = m->prov != NULL;
	struct ibr_result target;

	memset(mv, 0, sizeof(*mv));
	*kept = 0;
	forget_final(m);
	m->wants_reroute = false;
	m->reason = NULL;
	if (ibr_result_copy(&target, r, err)) {
		ibr_reconf_reset(m);
		return -1;
	}
	/* with the Double Scheme the prior tables hold another half's
	 * function: nothing of them fits r's half */
	if (hybrid && !m->double_scheme)
		*kept = keep_columns(m, f, &target);
	if (hybrid && remember_roots(m, f, &target, err))
		goto fail;
	if (!m->have_prior || m->double_scheme) {
		mv->first = !m->have_prior;
		mv->changed = (uint64_t)target.num_switches * target.num_lids;
		if (set_prior(m, f, &target, err))
			goto fail;
		if (hybrid) {
			ibr_result_free(&target);
			m->state = IBR_RECONF_PROVISIONAL;
			m->wants_reroute = true;
			return 0;
		}
		ibr_reconf_set_final(m, &target, rep);
		m->state = IBR_RECONF_FINAL;
		return 0;
	}
	if (prior_onto(m, f, err))
		goto fail;
	ibr_reconf_set_final(m, &target, rep);
	m->leg_provisional = hybrid;
	return ibr_reconf_next(m, f, mv, err);
fail:
	ibr_result_free(&target);
	ibr_reconf_reset(m);
	return -1;
}

void ibr_reconf_route_again(struct ibr_reconf *m)
{
	if (m->state == IBR_RECONF_FINAL || m->state == IBR_RECONF_REFUSED)
		forget_final(m);
}

bool ibr_reconf_leg_provisional(const struct ibr_reconf *m)
{
	return m->leg_provisional;
}

void ibr_reconf_final_root(const struct ibr_reconf *m,
			   struct ibr_root_choice *root)
{
	root->set = m->root_guids;
	root->set_len = m->num_roots;
	root->set_source = "the provisional pass's roots";
	root->set_unreadable = false;
	root->guid = 0;
}

bool ibr_reconf_has_final(const struct ibr_reconf *m)
{
	return m->have_final;
}

void ibr_reconf_set_final(struct ibr_reconf *m, struct ibr_result *r,
			  const struct ibr_verify_report *rep)
{
	if (m->have_final)
		ibr_result_free(&m->final);
	m->final = *r;
	m->have_final = true;
	if (rep)
		m->final_rep = *rep;
	else
		memset(&m->final_rep, 0, sizeof(m->final_rep));
	memset(r, 0, sizeof(*r));
}

void ibr_reconf_refuse(struct ibr_reconf *m, const char *reason)
{
	m->state = IBR_RECONF_REFUSED;
	m->reason = reason;
	m->wants_reroute = false;
}

/* The final prior tables: designated DLIDs and all. */
static int arrive(struct ibr_reconf *m, const struct ibr_fabric *f,
		  struct ibr_error *err)
{
	if (set_prior(m, f, &m->final, err))
		return -1;
	m->reason = NULL;
	if (m->leg_provisional) {
		/* a hybrid's provisional prior tables: its final pass
		 * next, the final engine's tables yet to be routed */
		forget_final(m);
		m->state = IBR_RECONF_PROVISIONAL;
		m->wants_reroute = true;
		return 0;
	}
	m->state = IBR_RECONF_FINAL;
	m->wants_reroute = false;
	return 0;
}

/* No safe step is left: the entries that still differ from the target
 * are emptied (IBR_NO_PATH) in this push, and the target follows whole.
 * Both unions are safe by construction: this push's with the prior
 * tables has only their edges (whatever it holds, the switches hold
 * already), the next one's with the target only the target's (checked
 * then, as any push).  The price: packets to those entries are dropped
 * until the next pass.  Where only some LIDs' mixed walks loop (the
 * union has no credit loop), only those LIDs are emptied and the others
 * take the target's entries at once, when that union checks clean. */
/* t (a copy of the target): the target where a LID's union graph does
 * not loop (looping NULL: nowhere), elsewhere the prior tables with
 * the entries that differ from the target emptied; *emptied counts
 * them. */
static void emptied_tables(const struct ibr_reconf *m, const uint64_t *looping,
			   struct ibr_result *t, uint64_t *emptied)
{
	uint32_t S = m->prior.num_switches;

	*emptied = 0;
	for (ibr_lid_t lid = 0; lid < m->prior.num_lids; lid++) {
		const uint8_t *h = ibr_column(&m->prior, lid);
		const uint8_t *g = ibr_column(&m->final, lid);
		uint8_t *c = ibr_column(t, lid);
		bool loops = !looping || (looping[lid / 64] >> (lid % 64) & 1);

		for (uint32_t s = 0; s < S; s++) {
			c[s] = loops && h[s] != g[s] ? IBR_NO_PATH : g[s];
			*emptied += loops && h[s] != g[s] &&
				    h[s] != IBR_NO_PATH;
		}
	}
}

static int empty_first(struct ibr_reconf *m, const struct ibr_fabric *f,
		       struct ibr_reconf_move *mv, struct ibr_error *err)
{
	struct ibr_verify_report rep;
	struct ibr_result t;
	uint64_t emptied = 0, *looping;
	bool some = false;

	if (ibr_result_copy(&t, &m->final, err))
		return -1;
	/* first only the LIDs whose mixed walks loop, when the union has no
	 * credit loop: the others go to the target in this push, if the
	 * union of the prior tables and that push is clean */
	looping = calloc(m->prior.num_lids / 64 + 1, sizeof(*looping));
	if (!looping) {
		ibr_result_free(&t);
		return ibr_error_set(err, "out of memory for %u LIDs",
				     m->prior.num_lids);
	}
	if (ibr_verify_union_lids(f, &m->prior, &m->final, &rep, looping, err)) {
		free(looping);
		ibr_result_free(&t);
		return -1;
	}
	if (rep.loops && !rep.cycles) {
		emptied_tables(m, looping, &t, &emptied);
		if (ibr_verify_union(f, &m->prior, &t, &rep, err)) {
			free(looping);
			ibr_result_free(&t);
			return -1;
		}
		some = ibr_verify_findings(&rep) == 0;
	}
	free(looping);
	if (!some)
		emptied_tables(m, NULL, &t, &emptied);
	/* a part of the target's entries (and holes): judged, as the target
	 * is, under its root set */
	if (ibr_result_set_roots(&t, m->final.roots, m->final.num_roots, err) ||
	    set_prior(m, f, &t, err)) {
		ibr_result_free(&t);
		return -1;
	}
	ibr_result_free(&t);
	ibr_result_difference(&m->prior, &m->final, &mv->left, NULL);
	mv->emptied = emptied;
	mv->changed = emptied;
	m->step++;
	m->state = IBR_RECONF_SAFE_STEP;
	m->reason = NULL;
	m->wants_reroute = true;
	return 0;
}

/* One safe step from the prior tables towards the final ones: FINAL
 * when it is the last, SAFE_STEP when more are to come, REFUSED when none is
 * safe.  A step's tables are checked twice: their union with the tables
 * before them (what the switches hold while OpenSM sends them) and on
 * their own (what they hold after). */
static int step(struct ibr_reconf *m, const struct ibr_fabric *f,
		struct ibr_reconf_move *mv, struct ibr_error *err)
{
	const struct ibr_verify_options only = { .check_only = true };
	struct ibr_verify_report rep, alone;
	struct ibr_result next;
	struct ibr_updown ud;
	uint64_t moved;

	if (m->step >= IBR_RECONF_MAX_STEPS) {
		/* a warning as for no step left: the final tables are not
		 * reached (a deep orientation: one level a step) */
		mv->blocked = true;
		ibr_result_difference(&m->prior, &m->final, &mv->left, NULL);
		ibr_reconf_refuse(m, "too many steps");
		return 0;
	}
	if (ibr_updown_of_result(f, &m->final, &ud, err))
		return -1;
	if (ibr_result_init(&next, f, err)) {
		ibr_updown_free(&ud);
		return -1;
	}
	if (ibr_transition_step(f, &ud, &m->prior, &m->final, &next, &moved,
				&mv->left, err) ||
	    ibr_verify_union(f, &m->prior, &next, &rep, err) ||
	    ibr_verify(f, &next, &only, &alone, err)) {
		ibr_result_free(&next);
		ibr_updown_free(&ud);
		return -1;
	}
	ibr_updown_free(&ud);
	if (moved == 0 || ibr_verify_findings(&rep) ||
	    ibr_verify_findings(&alone)) {
		const struct ibr_verify_report *why =
			ibr_verify_findings(&rep) ? &rep : &alone;

		if (why->num_messages)
			snprintf(mv->finding, sizeof(mv->finding), "%s",
				 why->messages[0]);
		ibr_result_free(&next);
		return empty_first(m, f, mv, err);
	}
	mv->changed = moved;
	m->step++;
	if (mv->left == 0) {
		/* the last step is the final tables: with their DLIDs */
		ibr_result_free(&next);
		return arrive(m, f, err);
	}
	next.stats = m->final.stats;
	if (set_prior(m, f, &next, err)) {
		ibr_result_free(&next);
		return -1;
	}
	ibr_result_free(&next);
	m->state = IBR_RECONF_SAFE_STEP;
	m->reason = NULL;
	m->wants_reroute = true;
	return 0;
}

/* The tables the new half's push leaves: the final ones with the switch
 * LIDs' columns of the prior tables (the function in force). */
static int push_tables(struct ibr_reconf *m, const struct ibr_fabric *f,
		       struct ibr_result *t, struct ibr_error *err)
{
	if (ibr_result_copy(t, &m->final, err))
		return -1;
	for (uint32_t s = 0; s < f->num_switches; s++) {
		ibr_lid_t lid = ibr_switch_lid(f, s);
		memcpy(ibr_column(t, lid), ibr_column(&m->prior, lid),
		       f->num_switches);
	}
	return 0;
}

/* One sub-step of the Double Scheme (reconf.h); tables change at
 * PUSH_NEW and SWITCH_SA only, the rest are SL-to-VL and SA changes and
 * waits, the driver's to carry out. */
static int ds_advance(struct ibr_reconf *m, const struct ibr_fabric *f,
		      struct ibr_reconf_move *mv, struct ibr_error *err)
{
	struct ibr_result t;

	m->ds_step++;
	m->step++;
	if (m->ds_step == IBR_DS_PUSH_NEW) {
		if (push_tables(m, f, &t, err))
			return -1;
		ibr_result_difference(&m->prior, &t, &mv->changed, NULL);
		if (set_prior(m, f, &t, err)) {
			ibr_result_free(&t);
			return -1;
		}
		ibr_result_free(&t);
	} else if (m->ds_step == IBR_DS_SWITCH_SA) {
		ibr_result_difference(&m->prior, &m->final, &mv->changed,
				      NULL);
		if (set_prior(m, f, &m->final, err))
			return -1;
		m->half = 1 - m->half;
	} else if (m->ds_step == IBR_DS_RESTORE_SL2VL) {
		return arrive(m, f, err);
	}
	m->state = IBR_RECONF_DOUBLE_SCHEME;
	m->reason = NULL;
	m->wants_reroute = true;
	return 0;
}

/* The final pass by the Double Scheme: each half checked apart, then the
 * first sub-step (later passes take the next ones: ds_advance). */
static int double_scheme(struct ibr_reconf *m, const struct ibr_fabric *f,
			 struct ibr_reconf_move *mv, struct ibr_error *err)
{
	if (ibr_ds_check(f, &m->prior, m->half, f, &m->final, &m->ds, err))
		return -1;
	if (!ibr_ds_check_clean(&m->ds)) {
		ibr_ds_check_finding(&m->ds, mv->finding, sizeof(mv->finding));
		mv->blocked = true;
		ibr_reconf_refuse(m, "a half of the Double Scheme does not "
				"verify");
		return 0;
	}
	m->ds_step = IBR_DS_NONE;
	m->step = 0;
	return ds_advance(m, f, mv, err);
}

int ibr_reconf_next(struct ibr_reconf *m, const struct ibr_fabric *f,
		    struct ibr_reconf_move *mv, struct ibr_error *err)
{
	size_t bytes;
	int rc;

	memset(mv, 0, sizeof(*mv));
	m->wants_reroute = false;
	bytes = (size_t)m->final.num_switches * m->final.num_lids;
	if (!m->have_prior || !m->have_final) {
		rc = ibr_error_set(err, "no %s tables for the final pass",
				   m->have_prior ? "final" : "provisional");
	} else if (m->double_scheme && m->state == IBR_RECONF_DOUBLE_SCHEME) {
		/* before the in-place test: after SWITCH_SA the final tables
		 * are in place, the prior function's VLs not yet drained */
		rc = ds_advance(m, f, mv, err);
	} else if (m->prior.num_switches == m->final.num_switches &&
	    m->prior.num_lids == m->final.num_lids &&
	    memcmp(m->prior.col, m->final.col, bytes) == 0) {
		/* in place already (a sweep after the last step, or a final
		 * engine that agrees) */
		mv->unchanged = true;
		rc = arrive(m, f, err);
	} else if (m->double_scheme) {
		rc = double_scheme(m, f, mv, err);
	} else if (ibr_verify_union(f, &m->prior, &m->final, &mv->union_rep, err)) {
		rc = -1;
	} else if (ibr_verify_findings(&mv->union_rep) == 0) {
		/* OpenSM sends blocks to all switches at once: a clean
		 * union is what lets the final tables go in one push */
		mv->changed = mv->union_rep.changed;
		rc = arrive(m, f, err);
	} else {
		mv->stepping = true;
		rc = step(m, f, mv, err);
	}
	/* a check that could not run keeps the prior tables; prior tables
	 * that could not be copied leave nothing of ours to keep */
	if (rc && m->have_prior)
		ibr_reconf_refuse(m, "a check could not run");
	else if (rc)
		ibr_reconf_reset(m);
	return rc;
}

bool ibr_reconf_take_reroute(struct ibr_reconf *m)
{
	bool wanted = m->wants_reroute;

	m->wants_reroute = false;
	return wanted;
}

int ibr_reconf_place(const struct ibr_reconf *m, const struct ibr_fabric *f,
		     const struct ibr_fabric *view, bool provisional,
		     struct ibr_result *r, struct ibr_error *err)
{
	struct ibr_result full;

	if ((provisional ? ibr_result_init(&full, f, err) :
			   ibr_result_copy(&full, &m->prior, err))) {
		ibr_result_free(r);
		return -1;
	}
	if (ibr_ds_place(f, view, r, true, &full, err)) {
		ibr_result_free(&full);
		ibr_result_free(r);
		return -1;
	}
	/* no half left empty: base LIDs stay reachable (ibr_ds_mirror) */
	if (provisional)
		ibr_ds_mirror(f, ibr_reconf_half(m, true), &full);
	ibr_result_free(r);
	*r = full;
	return 0;
}
