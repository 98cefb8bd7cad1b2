/*
 * ranges.h - every LID of every CA port's range routed from every switch
 * (doc/design.md, Contract 1 and "Multi-LID engines").
 *
 * A multi-LID engine (dr, colorl: engine.h, designates_dlids) realises its
 * designated paths on the LIDs above a range's base and leaves the other
 * switches without an entry for them; hosts that send to base+k without
 * asking the SA (MPI's LMC multipath, a PathRecord GetTable) would be
 * dropped at the first such switch.  The routing layer completes those
 * columns once the engine is done (ibr_route, run.c), so dr and colorl,
 * afresh or from the prior tables, and each LID half of the Double
 * Scheme (routed on its view by ibr_route too) are completed in one place.
 *
 * How: per CA port, its base column's flows (every switch sends its
 * CAs' flows, repair.h's weight) seed a load of the port's own; then per
 * LID above the base, in order, the column is judged, the flows of its
 * walks that hold (the designated paths, a legal forest) added, and the
 * rest mended balanced against that load (repair.h,
 * ibr_repair_mend_judged, not `renamed`), the base column the fallback:
 * a walk that holds is never changed, so the designated pairs keep their
 * paths entry for entry; a mended walk is legal and takes, among the hops
 * into walks that hold, the shortest and then the one whose route is
 * least loaded by the base and the LIDs before it: where the fabric has
 * another route, a LID takes it.  Only switches with no legal route to
 * the port at all (no root above both: updown.h, ibr_climb_meet) are
 * left IBR_NO_PATH, as the base column leaves them.
 *
 * Deterministic: ports are independent (each its own load), switches are
 * mended in ibr_repair_orders' order (by LID), so the tables are the same
 * for any thread count and whatever order the model lists the fabric in.
 *
 * Cost: per LID above a base, one judgement and one pass of flows (O(S)),
 * and mending where walks do not hold.
 */
#ifndef IBROUTING_RANGES_H
#define IBROUTING_RANGES_H

#include "ibrouting/error.h"
#include "ibrouting/fabric.h"
#include "ibrouting/result.h"
#include "ibrouting/updown.h"

/* Completes every CA port's range of r as above, on `threads` workers,
 * and fills r->ranges.  Nothing to do (r->ranges.completed stays false)
 * when no range has more than one LID. */
int ibr_ranges_complete(const struct ibr_fabric *f,
			const struct ibr_updown *ud, struct ibr_result *r,
			unsigned threads, struct ibr_error *err);

/* r->ranges' measures of the tables as they are (without completing
 * anything): the entries above the bases and those left without a legal
 * route (owed none), and per (switch, CA port) pair, the switch not the
 * port's own and routed on the base, the distinct routes the LIDs of the
 * port's range take from it.  O(S) per LID and O(LIDs^2) per pair: for
 * the summaries, after the routing (its time is not the routing's). */
int ibr_ranges_measure(const struct ibr_fabric *f,
		       const struct ibr_updown *ud, struct ibr_result *r,
		       unsigned threads, struct ibr_error *err);

#endif
