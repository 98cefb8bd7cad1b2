/*
 * repair.h - one column (LID) of tables made before a change, kept where
 * it still holds on the changed fabric and mended where it does not,
 * with the fewest entries changed: what the mender (mender.h) does to
 * every column of the prior tables.
 *
 * A switch's walk "holds" when it delivers to the LID's owner by a legal
 * up*-down* route of the orientation ud: no hole, no loop, no down hop
 * followed by an up hop.  Mending takes, from every switch whose walk
 * does not hold, the walk of a fallback column (an engine's own, which
 * holds), entry by entry, and judges again until nothing changes.
 * Entries only ever turn into the fallback's, so it ends, at worst with
 * the fallback's column; every walk left is then a legal route of a kept
 * entry into the fallback's tree, or the fallback's own.  Columns of one
 * orientation mended so are together free of loops and credit loops.
 *
 * Cost: O(S) per judgement, a few judgements per column after a small
 * change.
 */
#ifndef IBROUTING_REPAIR_H
#define IBROUTING_REPAIR_H

#include <stdbool.h>
#include <stdint.h>

#include "ibrouting/error.h"
#include "ibrouting/fabric.h"
#include "ibrouting/updown.h"
#include "ibrouting/walk.h"

/* A switch's walk in the column judged last. */
enum ibr_walk_verdict {
	IBR_WALK_UNKNOWN,
	IBR_WALK_VISITING,
	IBR_WALK_BROKEN,    /* no legal delivery from here */
	IBR_WALK_DOWN,      /* delivers going down only (or here) */
	IBR_WALK_UP,        /* delivers, climbing first */
};

struct ibr_repair {
	const struct ibr_fabric *f;
	const struct ibr_updown *ud;
	const struct ibr_walker *w;   /* the caller's, over f */
	/* the order ibr_repair_column_balanced mends switches in (NULL:
	 * index order); an order of the fabric's own (by LID) makes the
	 * tables independent of the order the model lists switches in */
	const uint32_t *order;
	uint8_t *verdict;             /* per switch, enum ibr_walk_verdict */
	uint32_t *hops;               /* per switch whose walk holds: links */
	uint8_t *mark;                /* per pending switch: enum repair_mark */
	uint32_t *upstream;           /* per pending switch: the pending
				       * walks through it (itself included) */
	uint32_t *pending, *chain, *chain_next; /* scratch */
	/* the fallback column of lid when a mending is given none (NULL):
	 * one that holds, had on demand (the mender routes its fallback
	 * only then); NULL from it leaves the column unmended */
	const uint8_t *(*fallback_of)(void *ctx, ibr_lid_t lid);
	void *fallback_ctx;
	uint64_t *carried;            /* ibr_repair_load: per switch, the
				       * flows its hop carries */
	uint32_t *by_hops, *hop_count; /* ibr_repair_load: switches by hops */
};

int ibr_repair_init(struct ibr_repair *rp, const struct ibr_fabric *f,
		    const struct ibr_updown *ud, const struct ibr_walker *w,
		    struct ibr_error *err);
void ibr_repair_free(struct ibr_repair *rp);

/* The orders every pass over columns goes in, so that mended tables do
 * not depend on the order the model lists nodes in (OpenSM's, or a
 * dump's): sw_order, the S switches by LID (rp->order), and ep_order,
 * the end ports by base LID (an indexed fabric gives each one).  w: a
 * walker over f (lid_end_port). */
void ibr_repair_orders(const struct ibr_fabric *f, const struct ibr_walker *w,
		       uint32_t *sw_order, uint32_t *ep_order);

/* rp->verdict[s] for every switch s: does its walk along col hold?  And
 * where it does, rp->hops[s]: its links to the owner's switch. */
void ibr_repair_judge(struct ibr_repair *rp, const uint8_t *col,
		      ibr_lid_t lid);

/* Did the walk from s hold, in the column judged last? */
static inline bool ibr_repair_holds(const struct ibr_repair *rp, uint32_t s)
{
	return rp->verdict[s] == IBR_WALK_DOWN || rp->verdict[s] == IBR_WALK_UP;
}

/* col mended with fallback's walks as above; with `renamed` (a LID above
 * its range's base) a switch without an entry keeps none unless a mended
 * walk passes through it.  Returns the entries changed. */
uint32_t ibr_repair_column(struct ibr_repair *rp, uint8_t *col,
			   const uint8_t *fallback, ibr_lid_t lid,
			   bool renamed);

/* The walk from s along col: `add` flows put on each inter-switch channel
 * it crosses (0: none), the heaviest load met on them returned, *len (may
 * be NULL) the links walked. */
uint64_t ibr_repair_walk(const struct ibr_repair *rp, const uint8_t *col,
			 ibr_lid_t lid, uint32_t s, uint64_t add,
			 uint64_t *load, uint32_t *len);

/* load[ch] += weight[s] for every channel ch of the walk from every switch
 * s whose walk along col holds (weight: the flows each switch sends to
 * the LID), col judged (rp->verdict, rp->hops are col's: by
 * ibr_repair_judge, or as a mending leaves them).  O(S): the walks that
 * hold form a tree into the owner, so each hop carries the flows of the
 * switches whose walks pass it, summed from the farthest switches in. */
void ibr_repair_add_flows(struct ibr_repair *rp, const uint8_t *col,
			  ibr_lid_t lid, const uint32_t *weight,
			  uint64_t *load);

/* col judged, then its flows added as above.  Returns the switches whose
 * walk does not hold (0: nothing to mend). */
uint32_t ibr_repair_load(struct ibr_repair *rp, const uint8_t *col,
			 ibr_lid_t lid, const uint32_t *weight, uint64_t *load);

/* A column mended with regard to load and with few entries changed: in
 * rounds outwards from the walks that hold, a switch whose entry leads
 * into a walk that holds again keeps it unless one of its hops (chosen
 * as below) has a route with a lighter heaviest channel (with `renamed`
 * it keeps it always: only the entries that must change do, where a
 * break can hop); a break (an entry that leads to
 * no pending switch) takes the hop into a holding walk that only
 * descends if pending walks descend into it and one does, then the
 * shortest, then the one whose route (the hop and the walk after it) has
 * the lightest heaviest channel (load, per sw_adj entry, as
 * ibr_repair_load counts it), then on the lowest port, switches in
 * rp->order; when no break can, the one pending switch that can, last on
 * its walk, with the most pending walks through it; each adds its weight
 * along its new walk.  What no holding walk reaches takes fallback's
 * walks (ibr_repair_column); with `renamed` (a LID above its range's
 * base) it loses its entry instead, and a switch without an entry is
 * left without one.  weight NULL adds no load.  Every walk is then
 * legal, as there.  Returns the entries changed. */
uint32_t ibr_repair_column_balanced(struct ibr_repair *rp, uint8_t *col,
				    const uint8_t *fallback, ibr_lid_t lid,
				    bool renamed, const uint32_t *weight,
				    uint64_t *load);

/* The same for a column judged last (ibr_repair_judge, unchanged since):
 * one judgement saved.  After either, rp->verdict and rp->hops are the
 * mended column's. */
uint32_t ibr_repair_mend_judged(struct ibr_repair *rp, uint8_t *col,
				const uint8_t *fallback, ibr_lid_t lid,
				bool renamed, const uint32_t *weight,
				uint64_t *load);

#endif
