/*
 * transition.h - replacing one set of tables by another without a moment
 * in which a packet can loop or a credit loop can close.
 *
 * OpenSM sends a new set of tables block by block, to all switches at
 * once, so while it does, each switch holds either version of each entry
 * and a packet may mix them hop by hop (ibr_verify_union checks exactly
 * that union).  Two sets of up/down tables on one orientation are each
 * deadlock-free, but their union need not be: PIRa climbs by its default
 * port where FERa descends, and a packet that FERa's entry sent down into
 * a switch can meet PIRa's entry there sending it up, even straight back.
 *
 * A step moves from `cur` towards `fin` as far as it safely can: an entry
 * takes fin's value only where the union of cur and the step's tables
 * keeps every walk up/down legal (no down hop followed by an up hop):
 *  - a new down entry X -> Y only where Y's entry, in cur and in the step,
 *    does not go up;
 *  - a new up entry at X only where no entry of cur or of the step goes
 *    down into X;
 *  - a delivery (port 0, the owner's CA) always;
 * and the step's tables stay acceptable to the verifier on their own: no
 * hop of the step leads into a switch without a route there, and a route
 * is taken away (IBR_NO_PATH, on LIDs above a range's base) only where no
 * hop of the step leads.
 * A legal union cannot loop and its channel dependency graph is acyclic
 * (every walk is an up/down route of one acyclic orientation).  Deeper
 * switches go first, so a chain of entries that must turn from up to down
 * takes one step per level; a few steps reach fin on the fabrics we know.
 *
 * Preconditions: cur and fin are tables of f, each legal under the
 * orientation ud (every walk up/down), as every engine of ours makes them.
 */
#ifndef IBROUTING_TRANSITION_H
#define IBROUTING_TRANSITION_H

#include <stdbool.h>
#include <stdint.h>

#include "ibrouting/error.h"
#include "ibrouting/fabric.h"
#include "ibrouting/mender.h"
#include "ibrouting/result.h"
#include "ibrouting/updown.h"

/* next (initialised for f by the caller, any content) becomes cur with
 * every entry moved to fin's value that may move now; *moved counts them,
 * *left the entries still differing from fin afterwards.  0 moved with
 * entries left means the way is blocked.  Designated DLIDs are not
 * touched. */
int ibr_transition_step(const struct ibr_fabric *f,
			const struct ibr_updown *ud,
			const struct ibr_result *cur,
			const struct ibr_result *fin,
			struct ibr_result *next, uint64_t *moved,
			uint64_t *left, struct ibr_error *err);

/* Provisional tables that change as little as possible (provisional.c): prov,
 * the provisional engine's verified tables of f, becomes `prior` (the
 * prior tables, made for the fabric prior_ids describes) kept and
 * mended on f under ud by the mender (mender.h) as the final engine
 * mends them when it routes from them (prior.h), prov's own walks the
 * fallback: a port's columns follow it by identity, whatever LID it has
 * now.  The LIDs above a CA port's base: with ranges_as_base (a final
 * engine with one route per destination: fera) copies of the mended
 * base, else prior's columns mended with the base as the fallback, then
 * completed (ranges.h, as ibr_route completes the final engine's
 * tables); then the management routes (management.h).  Each column is
 * legal on its own, so the whole is free of loops and credit loops as
 * prov is.  After a small change only the walks through it change and
 * OpenSM sends few blocks; where prov's walks were not needed the final
 * engine's pass from the same prior tables ends at these.  *kept
 * counts the columns in which an entry of prior survives.  prov's
 * designated map is left as it is.  threads: workers for the passes that
 * split (0 or 1: one); the tables are the same, byte for byte, for any
 * count. */
int ibr_transition_provisional(const struct ibr_fabric *f, const struct ibr_updown *ud,
			const struct ibr_result *prior,
			const struct ibr_table_ids *prior_ids,
			bool ranges_as_base, unsigned threads,
			struct ibr_result *prov, uint32_t *kept,
			struct ibr_error *err);

#endif
