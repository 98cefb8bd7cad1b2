/*
 * prior.h - routing from the prior tables: after a change, fera and
 * the multi-LID engines (colorl, dr) keep every route of the tables the
 * switches hold that still holds on the new fabric, and route again only
 * the pairs whose route broke (the SM evaluation paper, §4: a small
 * change should change few entries).
 *
 * The prior tables (struct ibr_prior) were made for the fabric before
 * the change; the mender (mender.h) reads them by identity (switches by
 * node GUID, CA ports by node GUID and port: a port whose LID moved
 * keeps its routes all the same) and says what the tables become.  Here:
 * when that applies, and the mender's choices per engine:
 *   - fera (IBR_PRIOR_ONE_ROUTE): every LID of a range takes its base
 *     column, as fera's own tables do, and there is no designated map;
 *     a pair lost its route when its base walk did not hold;
 *   - colorl (IBR_PRIOR_LEAST_LOADED) and dr (IBR_PRIOR_SHORTEST): the
 *     columns above the bases kept and mended, and the designated map
 *     (by source switch) kept where it still routes, the other pairs
 *     placed on the least loaded (dr: the shortest) column that does;
 *   - the fallback: FERa's tables on the new fabric, routed only when a
 *     column needs them (a new switch or port, a column where mending
 *     leaves switches no walk of the prior tables reaches).
 * Every walk is then a legal route of one orientation, so the tables are
 * free of loops and of credit loops, as a full run's are, and every
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
	const struct ibr_result *r;    /* the prior tables, designated map too */
	const char *engine;            /* the engine that made them; NULL:
					* the caller vouches (ibrouting route
					* --prior) */
};

/* The engines' option: route from the prior tables unless more than
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
