/*
 * certify.h - a cheap certificate that forwarding tables are legal
 * up/down routes under one orientation (doc/design.md, "Contracts").
 *
 * The orientation is the one of the tables' own run: ibr_updown_build()
 * from r->root.  Any root gives an acyclic orientation (links point from
 * the higher (rank, LID) to the lower), so the certificate's verdict
 * never rests on what the engine claims; an engine whose tables follow
 * another orientation fails it.
 *
 * Per LID, with its owner's switch t (the switch of a switch LID, the
 * switch a CA port hangs off), the certificate checks every switch s and
 * its entry e = col[s]:
 *   C1  e names a linked port; port 0 only at the owner of a switch LID; a
 *       port to a CA only at t, to the CA port owning the LID (the walk's
 *       own reading of an entry, walk.h);
 *   C2  an owned LID, every LID of a range (the base and those above it:
 *       hosts send to base+k without asking the SA) and every switch
 *       LID, has no IBR_NO_PATH anywhere;
 *   C3  under a root set, at a switch owed no legal route to the LID's
 *       owner (no root above both), the entry is a management route
 *       (management.h), or IBR_NO_PATH at a CA port's switch towards a
 *       CA port's LID, never a set entry there (its CA ports' data would
 *       take it); no entry of a switch with a legal route leads to a
 *       switch without one;
 *   C4  legality: no switch that is the head of a down hop (entered from
 *       a neighbour over a link pointing down) has an up entry; the
 *       management routes are left out (no data walk takes them, C3);
 *   C5  a LID nobody owns has IBR_NO_PATH everywhere;
 *   C7  the management routes of a LID do not loop: walked from each
 *       (once per switch), they reach a switch with a legal route;
 * and every designated DLID
 *   C6  lies inside its destination's range and, above the base, has a
 *       set entry at the source's switch.
 * O(S) per LID, O(rows x end ports) for the designated map.
 *
 * What it certifies: by C4 every walk climbs up links, then only goes
 * down (a switch entered going down never leaves going up).  Up links
 * lead to a lower (rank, LID), down links to a higher one, so a switch
 * could only be revisited by entering, going down, one the walk left
 * going up, which C4 forbids, or the turning switch, the walk's lowest:
 * no walk loops, every walk ends.  By C1 it ends only delivered at the
 * owner or on IBR_NO_PATH; by C2 and C3 a walk from a set entry of a
 * switch with a legal route meets neither IBR_NO_PATH nor a management
 * route, so it delivers, and by C7 and C3 so does a walk from a
 * management route (contracts 1 and 2; with C6, a
 * designated DLID above the base delivers exactly when its source
 * switch's entry is set, contract 4).  Every walk from a switch with a
 * legal route, every walk data can take, being a legal up/down route on
 * an acyclic orientation, the channel dependency graph of those walks is
 * acyclic (contract 3): no dependency leads from a down channel
 * to an up one, and along dependencies between up channels the heads'
 * (rank, LID) falls, between down channels it rises.
 *
 * What it does not: tables that are deadlock-free but not legal under
 * this orientation fail it.  The full verifier (verify.h) judges those;
 * the plugin runs it when the certificate fails, before refusing.
 *
 * Fails closed: ibr_certify() returns 0 only when the whole check ran.
 */
#ifndef IBROUTING_CERTIFY_H
#define IBROUTING_CERTIFY_H

#include <stdint.h>

#include "ibrouting/fabric.h"
#include "ibrouting/result.h"
#include "ibrouting/verify.h"

struct ibr_certify_report {
	uint64_t bad_port;       /* C1, C5: no link, port 0 or a CA off the owner */
	uint64_t unreachable;    /* C2, C3: IBR_NO_PATH where a route is owed */
	uint64_t down_up;        /* C4: entered going down, leaves going up */
	uint64_t bad_designated; /* C6 */
	/* What was checked, counted as verify.h's report counts it: the
	 * owned LIDs (every LID of every range), of them those above a
	 * range's base, entries = lids x switches; the LIDs owned by none,
	 * checked empty at every switch (C5). */
	uint64_t lids, lids_above, unowned_lids;
	uint64_t entries;        /* (switch, owned LID) entries checked */
	uint64_t loops;          /* C7: a management route loops */
	/* IBR_NO_PATH where no legal route exists under the root set
	 * (ibr_climb_meet: no root above both switches) at a CA port's
	 * switch towards a CA port's LID (aggregation nodes on two roots):
	 * owed none, not a finding */
	uint64_t no_legal_path;
	/* entries where no legal route exists: management routes
	 * (management.h), certified loop-free (C7) */
	uint64_t management;
	/* such an entry at a CA port's switch towards a CA port's LID */
	uint64_t illegal_data;
	unsigned num_messages;
	char messages[IBR_VERIFY_MAX_MESSAGES][256];
};

/* The certificate of r under the orientation from r's root set. */
int ibr_certify(const struct ibr_fabric *f, const struct ibr_result *r,
		struct ibr_certify_report *rep, struct ibr_error *err);

static inline uint64_t ibr_certify_findings(const struct ibr_certify_report *rep)
{
	return rep->bad_port + rep->unreachable + rep->down_up +
	       rep->bad_designated + rep->loops + rep->illegal_data;
}

#endif
