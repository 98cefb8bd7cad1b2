/*
 * prior.h - routing from the tables in place: after a change, fera and
 * the multi-LID engines (colorl, dr) keep every route of the tables the
 * switches hold that still holds on the new fabric, and route again only
 * the pairs whose route broke (issue 20, point 5; the SM evaluation
 * paper, §4: under 2% of the entries change after a small change).
 *
 * The tables in place (struct ibr_prior) were made for the fabric before
 * the change: its switches are matched to the new fabric's by node GUID,
 * its CA ports by node GUID and port number; LIDs are those of each
 * fabric (a port whose LID moved keeps its routes all the same).
 *
 * What ibr_prior_route() leaves in r, when it applies:
 *   - offset 0 of every CA port's range: the old column where its walks
 *     still hold (legal under this run's orientation, delivering); from
 *     every switch whose walk does not, the shortest hop into a walk that
 *     holds, on the least loaded channel against the load of every base
 *     route kept or mended so far (repair.h, ibr_repair_column_balanced),
 *     FERa's walk where no holding walk is reached; a new port: FERa's
 *     tree; every switch LID: the old column mended with FERa's walks
 *     (FERa's tables are routed only when one of these needs them);
 *   - offset j >= 1 of a CA port that was there before, with as many
 *     LIDs: the old column of that offset, mapped onto the new switches,
 *     mended as the base is (but an entry that leads into a walk that
 *     holds again is kept, never swapped for a lighter hop: repair.h,
 *     `renamed`) from every switch with an entry whose walk no
 *     longer reaches the port by a legal up*-down* route of this run's
 *     orientation (a dead link, a switch gone, a turn the new orientation
 *     forbids), the port's base column the fallback; IBR_NO_PATH where
 *     the old column had none; every LID of a new port's range: FERa's
 *     tree, as fera's own tables have it;
 *   - fera (IBR_PRIOR_ONE_ROUTE): every LID of a range takes its base
 *     column, as fera's own tables do, and there is no designated map;
 *     a pair lost its route when its base walk did not hold;
 *   - the designated map (by source switch): a pair keeps its old offset
 *     where that offset's column still routes its source switch (offset 0
 *     always does); a pair whose route broke, and a new pair, takes the
 *     offset among 0 and the columns that still route its source switch
 *     whose walk is the least loaded (colorl) or the shortest, then the
 *     least loaded (dr), against the load of every route placed so far;
 *     such pairs are placed destination port by destination port, source
 *     switch by source switch, ports and switches in LID order, so the
 *     run is deterministic and does not depend on the order the model
 *     lists nodes in (OpenSM's, or a dump's).
 * Every walk of r is then a legal route of one orientation, so r is free
 * of loops and of credit loops, as a full run's tables are, and every
 * designated DLID delivers.  Nothing is renamed afresh: after a change
 * that breaks many routes a full run colours better, hence the limit.
 *
 * Cost: O(LIDs x switches) to map and check the columns and O(pairs x
 * path length) to measure the load, against the full colouring's
 * path selection; the tables change where the change touched them.
 */
#ifndef IBROUTING_PRIOR_H
#define IBROUTING_PRIOR_H

#include <stdbool.h>
#include <stdint.h>

#include "ibrouting/engine.h"

struct ibr_prior {
	const struct ibr_fabric *f;    /* the fabric the tables were made for */
	const struct ibr_result *r;    /* the tables in place, designated map too */
	const char *engine;            /* the engine that made them; NULL:
					* the caller vouches (ibrouting route
					* --prior) */
};

/* The engines' option: route from the tables in place unless more than
 * this percentage of CA pairs lost their route (0: never). */
#define IBR_PRIOR_OPTION "incremental"
#define IBR_PRIOR_OPTION_DEFAULT "10"

enum ibr_prior_choice {
	IBR_PRIOR_ONE_ROUTE,       /* fera: the base column on every LID of
				    * a range, no designated map */
	IBR_PRIOR_LEAST_LOADED,    /* colorl: the path selection's measure */
	IBR_PRIOR_SHORTEST,        /* dr: minimal paths first */
};

/* Routes ctx->f from ctx->prior into r (allocated, every entry
 * IBR_NO_PATH) as described above.  Returns 1 when it did, 0 when it
 * does not apply (no prior, another engine's or LMC's tables, a root set
 * other than theirs less the roots gone, the option at 0, or too many
 * pairs broken: r is then as it was given, every entry
 * IBR_NO_PATH, no figure set), -1 on failure (err).  Figures: "pairs kept
 * in place", "pairs re-routed", and for colorl and dr "renamed LIDs",
 * IBR_STAT_CA_LIDS_NEEDED. */
int ibr_prior_route(struct ibr_route_ctx *ctx, struct ibr_result *r,
		    enum ibr_prior_choice choice, struct ibr_error *err);

/* What the switches there before would be sent: the entries of r
 * (tables of f) that differ from the prior's for the same switch (by
 * GUID) and LID, of `compared` on those switches, and the LFT blocks
 * holding one; `forced` of them had to change: the prior's port leads to
 * a link or switch gone (no peer now, or another).  With ud (r's
 * orientation), `required`: the entries any legal tables of f under ud
 * change, a lower bound for every engine that keeps ud: those forced,
 * those of LIDs gone, and those whose port descends into a switch with no
 * all-down route left to the LID's switch (a route that has gone down
 * must go on down).  -1 when out of memory (then no `required`). */
struct ibr_prior_change {
	uint64_t entries, compared, blocks, forced, required;
};

int ibr_prior_difference(const struct ibr_prior *p,
			 const struct ibr_fabric *f,
			 const struct ibr_updown *ud,
			 const struct ibr_result *r,
			 struct ibr_prior_change *c);

#endif
