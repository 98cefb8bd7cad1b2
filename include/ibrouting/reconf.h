/*
 * reconf.h - the reconfiguration state machine: which tables go to the
 * switches at each routing run, from a topology change to the engine's
 * tables, for every engine of ours: a hybrid (PROVISIONAL+FINAL, PIRa
 * paper §3.4) and a single engine alike (a hybrid of one, prov NULL).
 * One machine, two drivers: the plugin (each run an OpenSM routing pass,
 * wants_reroute asking OpenSM for the next one) and `ibrouting
 * transition` offline, so the tool does what OpenSM does.  No push after
 * a change goes unchecked: every push's union with the prior tables
 * (what switches hold while OpenSM sends it) is verified, or the push is
 * a safe step, or it only empties entries (ibr_reconf_change).
 *
 * The caller routes (engines, root resolution, verification of one
 * engine's tables, logging are its); the machine decides what a run is
 * and what it pushes:
 *
 *   ibr_reconf_changed(m, f)   a run on a changed fabric: the caller
 *                              routes m->prov (a single engine: m->fin,
 *                              from the prior tables), verifies, and
 *                              hands the tables to ibr_reconf_change()
 *                              (a hybrid's columns of the prior tables
 *                              kept where they still hold; one push or
 *                              steps from the prior tables; state
 *                              PROVISIONAL, FINAL or SAFE_STEP);
 *   ibr_reconf_leg_provisional the way to a hybrid's provisional tables
 *                              goes on: ibr_reconf_next() without
 *                              routing;
 *   otherwise                  a final pass: unless ibr_reconf_has_final(),
 *                              the caller routes m->fin from the
 *                              provisional pass's roots
 *                              (ibr_reconf_final_root) and hands the
 *                              tables to ibr_reconf_set_final(), or, when
 *                              that fails, calls ibr_reconf_refuse();
 *                              ibr_reconf_next() then chooses FINAL (the
 *                              prior tables already, or a clean union:
 *                              one push),
 *                              SAFE_STEP k (transition.h), or REFUSED with a
 *                              reason.
 *
 * States:
 *   IDLE          nothing of ours in place (start, ibr_reconf_reset);
 *   PROVISIONAL   the provisional tables pushed, a final pass to come;
 *   SAFE_STEP     step m->step of the way to the final tables pushed,
 *                 the next step to come;
 *   FINAL         the final engine's tables pushed, designated DLIDs
 *                 and all (m->step: the steps it took, 0 for one push);
 *   REFUSED       the prior tables stay (m->reason says why); a later
 *                 run on the same fabric tries the final pass again;
 *   DOUBLE_SCHEME the Double Scheme's sub-step m->ds_step done, the
 *                 next to come (double_scheme.h, papers/double-scheme-
 *                 reconfiguration.md §3.1): only with ibr_reconf_double_
 *                 scheme(), the final pass's way instead of safe steps.
 *
 * The Double Scheme (ibr_reconf_double_scheme(), LMC >= 1): every run
 * routes its engine on one LID half (ibr_reconf_half(): the provisional
 * pass on the half in force, the final pass on the other) and places it
 * into full tables with ibr_ds_place() (the provisional pass over empty
 * tables, the final pass over the prior tables, switch LIDs included);
 * the provisional pass keeps no columns (the prior tables are another
 * half's) and fills the other half with copies of its own columns
 * (ibr_ds_mirror: base LIDs, in half 0, reachable whatever the half).  ibr_reconf_next() then checks both halves apart
 * (ibr_ds_check: each function verified on its view, its own dependency
 * graph acyclic); REFUSED when one is not clean (mv->finding says which),
 * else DOUBLE_SCHEME through the sub-steps below, one per run, to FINAL:
 *   RESTRICT_SL2VL  the in-force SL set onto VL set A only;
 *   PUSH_NEW        the new function on the free half (switch LIDs stay
 *                   with the function in force): m->prior changes;
 *   DRAIN_NEW_VLS   wait until VL set B holds no packet of the prior function;
 *   SWITCH_SA       the SA answers with the new half and SL set; the
 *                   switch LIDs take the new function: m->prior changes, the
 *                   half in force flips;
 *   DRAIN_PRIOR_VLS   wait until VL set A holds no packet of the prior function;
 *   RESTORE_SL2VL   the new SL set onto every VL: FINAL.
 * Drains are waits the driver bounds (ibr_ds_drain_bound); the machine
 * has no clock.  Without the flag nothing of this runs (the plugin sets
 * it only with its option `transition double_scheme`).
 *
 * Invariants:
 *  - state != IDLE <=> have_prior; `prior` are the tables of the last run,
 *    the ones to push (a copy of them), made for the fabric of
 *    `fingerprint`, whose rows and columns prior_ids names;
 *  - have_final => `final` are the final engine's verified tables for
 *    that fabric under the orientation of root_guids (the provisional
 *    pass's root set), final_rep their verifier report;
 *  - every table set the machine puts in `prior` verified on its own, and
 *    its union with the `prior` before it verified (no loop, acyclic
 *    channel dependencies): what switches may hold while a push is sent;
 *    with the Double Scheme instead each half verified on its own view
 *    (two graphs, two VL sets: double_scheme.h);
 *  - wants_reroute is true after a provisional pass and after a step
 *    (safe or Double Scheme sub-step) that is not the last, until the driver takes it (ibr_reconf_take_reroute)
 *    or the next run; false in IDLE, FINAL and REFUSED;
 *  - steps are at most IBR_RECONF_MAX_STEPS, then REFUSED ("too many steps").
 */
#ifndef IBROUTING_RECONF_H
#define IBROUTING_RECONF_H

#include <stdbool.h>
#include <stdint.h>

#include "ibrouting/double_scheme.h"
#include "ibrouting/engine.h"
#include "ibrouting/error.h"
#include "ibrouting/fabric.h"
#include "ibrouting/mender.h"
#include "ibrouting/result.h"
#include "ibrouting/updown.h"
#include "ibrouting/verify.h"

/* The fabrics we know need at most nine (bench/, tests/test_transition.c). */
#define IBR_RECONF_MAX_STEPS 64

enum ibr_reconf_state {
	IBR_RECONF_IDLE,
	IBR_RECONF_PROVISIONAL,
	IBR_RECONF_SAFE_STEP,
	IBR_RECONF_FINAL,
	IBR_RECONF_REFUSED,
	IBR_RECONF_DOUBLE_SCHEME,
};

/* The Double Scheme's sub-steps (§3.1), in order; 0 before the first. */
enum ibr_ds_step {
	IBR_DS_NONE,
	IBR_DS_RESTRICT_SL2VL,
	IBR_DS_PUSH_NEW,
	IBR_DS_DRAIN_NEW_VLS,
	IBR_DS_SWITCH_SA,
	IBR_DS_DRAIN_PRIOR_VLS,
	IBR_DS_RESTORE_SL2VL,
};

struct ibr_reconf {
	/* prov NULL: a single engine, a hybrid of one (no provisional pass:
	 * its own tables after a change go the way a final pass's go) */
	const struct ibr_engine *prov, *fin;
	/* worker threads for the machine's own work (keeping the prior
	 * tables, transition.h), set by the driver: 1 after init */
	unsigned threads;
	enum ibr_reconf_state state;
	const char *reason;             /* REFUSED: why, a static string */
	bool wants_reroute;
	unsigned step;                  /* steps pushed towards final */

	struct ibr_result prior;        /* the prior tables */
	bool have_prior;
	struct ibr_table_ids prior_ids; /* their rows' and columns' owners */
	uint64_t fingerprint;           /* the fabric they were made for */
	uint64_t *root_guids;           /* the provisional pass's root set */
	uint32_t num_roots;
	/* the tables the way leads to: the final engine's, or, while
	 * leg_provisional, a hybrid's provisional tables after a change */
	struct ibr_result final;
	bool have_final;
	bool leg_provisional;
	struct ibr_verify_report final_rep;

	bool double_scheme;             /* set by ibr_reconf_double_scheme */
	unsigned half;                  /* the LID half in force, 0 or 1 */
	enum ibr_ds_step ds_step;       /* the last sub-step done */
	struct ibr_ds_check ds;         /* the check of the final pass */
};

/* What ibr_reconf_next did, for the driver's words. */
struct ibr_reconf_move {
	bool unchanged;          /* FINAL: the final tables are the prior ones */
	/* the union of the prior tables and the final ones is not clean:
	 * union_rep says why (messages[0]); steps were tried */
	bool stepping;
	struct ibr_verify_report union_rep;
	uint64_t changed;       /* entries this push changes */
	uint64_t left;          /* entries still differing from the final */
	/* REFUSED because no step is safe or after IBR_RECONF_MAX_STEPS
	 * steps (m->reason says which): finding is the first finding of
	 * the step tried ("" when it moved nothing or none was tried) */
	bool blocked;
	char finding[256];
	/* no safe step was left: this push empties the entries that still
	 * differ (their union with the prior tables is a part of the
	 * prior tables, and with the target a part of the target), the
	 * target follows whole in the next pass */
	uint64_t emptied;
	/* nothing of ours was in place: the first push, unchecked against
	 * what the switches held (another SM's or engine's tables) */
	bool first;
};

void ibr_reconf_init(struct ibr_reconf *m, const struct ibr_engine *prov,
		     const struct ibr_engine *fin);
/* The final pass goes by the Double Scheme: -1 (err) unless lmc >= 1. */
int ibr_reconf_double_scheme(struct ibr_reconf *m, unsigned lmc,
			     struct ibr_error *err);
/* The LID half a run routes on (Double Scheme): the half in force for
 * the provisional pass, the other for the final pass. */
unsigned ibr_reconf_half(const struct ibr_reconf *m, bool provisional);
const char *ibr_ds_step_name(enum ibr_ds_step s);

/* Double Scheme: r, tables routed on view (the run's LID half of f,
 * ibr_ds_view), becomes full tables of f with ibr_ds_place (switch LIDs
 * included): over empty tables for the provisional pass, its columns
 * then mirrored onto the other half (ibr_ds_mirror), over the prior
 * tables (m->prior) for the final one.  r is freed either way;
 * -1 (err) on failure. */
int ibr_reconf_place(const struct ibr_reconf *m, const struct ibr_fabric *f,
		     const struct ibr_fabric *view, bool provisional,
		     struct ibr_result *r, struct ibr_error *err);

/* Back to IDLE, everything freed (the engines stay; so do the Double
 * Scheme flag and the half in force). */
void ibr_reconf_reset(struct ibr_reconf *m);

const char *ibr_reconf_state_name(enum ibr_reconf_state s);

/* A run on f is a provisional pass: nothing of ours in place, or the
 * prior tables were made for another fabric. */
bool ibr_reconf_changed(const struct ibr_reconf *m, const struct ibr_fabric *f);

/* A run on a changed fabric f (ibr_reconf_changed): r are the run's
 * verified tables for f, rep their report: a hybrid's provisional
 * engine's, or a single engine's own (routed from the prior tables).
 * A hybrid's r first gets the columns of the prior tables that still
 * hold on f (transition.h, ibr_transition_provisional; *kept counts them, 0 when
 * keeping fails: then r stays the engine's own) and its roots are
 * remembered for the final pass.  Then r is the target of the way:
 *  - nothing of ours in place (or the Double Scheme, whose prior
 *    tables are another half's): r goes in whole (mv->first);
 *  - else the prior tables, mapped onto f by switch GUID and LID (what
 *    the switches hold now, links gone and all), are where the way
 *    starts, and it goes as a final pass's (ibr_reconf_next): one push
 *    when the union is clean, else safe steps, else the differing
 *    entries emptied first (mv->emptied).
 * State once r is in place: PROVISIONAL for a hybrid (wants_reroute: the
 * final pass), FINAL for a single engine; SAFE_STEP on the way.  r is
 * the caller's still.  -1 (err) when out of memory: reset the machine. */
int ibr_reconf_change(struct ibr_reconf *m, const struct ibr_fabric *f,
		      const struct ibr_result *r,
		      const struct ibr_verify_report *rep, uint32_t *kept,
		      struct ibr_reconf_move *mv, struct ibr_error *err);

/* On the same fabric, out of a way (FINAL or REFUSED): the target is
 * forgotten, so the caller routes again (a single engine, whose options
 * may have changed; the same tables are found in place). */
void ibr_reconf_route_again(struct ibr_reconf *m);

/* The way to a hybrid's provisional tables is still being stepped: the
 * next run continues it (ibr_reconf_next) before any final pass. */
bool ibr_reconf_leg_provisional(const struct ibr_reconf *m);

/* The final pass's root request: the provisional pass's root set, by
 * GUID (valid while m is not reset). */
void ibr_reconf_final_root(const struct ibr_reconf *m,
			   struct ibr_root_choice *root);

bool ibr_reconf_has_final(const struct ibr_reconf *m);
/* r (moved in: *r is zeroed) are m->fin's tables for the fabric in place,
 * verified clean as rep says. */
void ibr_reconf_set_final(struct ibr_reconf *m, struct ibr_result *r,
			  const struct ibr_verify_report *rep);

/* The prior tables stay (state REFUSED, reason a static string). */
void ibr_reconf_refuse(struct ibr_reconf *m, const char *reason);

/* The final pass's decision on f (the fabric in place, have_final):
 * FINAL, SAFE_STEP or REFUSED (with the Double Scheme: the check, then one
 * sub-step per call, DOUBLE_SCHEME until FINAL, or REFUSED); m->prior are then the tables to push.  -1
 * (err) when a check could not run: then REFUSED, reason "a check could not
 * run" (the prior tables stay). */
int ibr_reconf_next(struct ibr_reconf *m, const struct ibr_fabric *f,
		    struct ibr_reconf_move *mv, struct ibr_error *err);

/* The driver asks for the re-route: true (and wants_reroute cleared) when
 * a pass is still to come. */
bool ibr_reconf_take_reroute(struct ibr_reconf *m);

#endif
