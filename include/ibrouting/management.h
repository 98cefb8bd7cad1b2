/*
 * management.h - routes for management traffic where up*-down* has none
 * (doc/design.md, "Management routes" and Contract 1).
 *
 * Under a root set of several switches some (switch, LID) pairs have no
 * legal route (updown.h, ibr_climb_meet: no root above both): a root
 * above a cut and the hosts it no longer descends to, two roots, a
 * switch and a root it does not climb to.  Those entries are what a
 * switch uses to answer a host's PerfMgt query (perfquery, ibqueryerrors,
 * ibdiagnet), to send a trap to the SM, and what an SM on a switch uses.
 *
 * Every such entry is set, on a shortest path into the switches that
 * already route the LID (a multi-source BFS from them over every link,
 * each switch leaving by its lowest port towards the previous level), so
 * every walk from it is loop-free and delivers; except where it would
 * carry data: at a switch with CA ports of its own, for a CA port's LID
 * (a pair of CA ports with no root above both stays unrouted, owed none).
 *
 * Why no credit loop can come of it.  An entry is set only where the
 * legal tables had none and the switch owes the LID no legal route; a
 * walk from a CA port to a CA port's LID starts at a switch with a legal
 * route (or, owed none, with no entry) and a legal walk never reaches a
 * switch owing no route, so no data walk uses a management entry and the
 * channel dependencies of the data walks are those of the legal tables.
 * The walks that do use them carry only traffic sent by a switch or to a
 * switch's LID: SMPs (traps, the SM's LID-routed SMPs, smpquery -L) on
 * VL15, which has no credit flow control and cannot block, and PerfMgt
 * queries and answers, one MAD per request.  The verifier and the
 * certificate check exactly this (verify.h, certify.h): management
 * entries only where no legal route exists and none at a CA port's switch
 * for a CA port's LID, every walk delivering, and the dependency graph of
 * the walks from switches with a legal route acyclic.
 *
 * Deterministic: the BFS levels and the lowest port do not depend on the
 * order the model lists switches in.  O(S + E) per LID that has entries
 * to set; nothing at all under one root.
 */
#ifndef IBROUTING_MANAGEMENT_H
#define IBROUTING_MANAGEMENT_H

#include "ibrouting/error.h"
#include "ibrouting/fabric.h"
#include "ibrouting/result.h"
#include "ibrouting/updown.h"

/* Sets r's management entries as above and fills r->management. */
int ibr_management_routes(const struct ibr_fabric *f,
			  const struct ibr_updown *ud, struct ibr_result *r,
			  struct ibr_error *err);

/* Clears r's management routes (IBR_NO_PATH wherever ibr_management_routes
 * would set one): for tables that serve as a mender's fallback, whose
 * walks must be legal ones (provisional.c, mender.h). */
int ibr_management_clear(const struct ibr_fabric *f,
			 const struct ibr_updown *ud, struct ibr_result *r,
			 struct ibr_error *err);

/* Switch s has CA ports of its own and lid is a CA port's: an entry
 * there would carry that switch's hosts' data. */
static inline bool ibr_management_carries_data(const struct ibr_fabric *f,
					       uint32_t s, ibr_lid_t lid)
{
	return f->sw_ca_start[s + 1] > f->sw_ca_start[s] &&
	       f->nodes[f->lid_owner[lid].node].type != IBR_NODE_SWITCH;
}

#endif
