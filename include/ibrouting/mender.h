/*
 * mender.h - the prior tables, made for the fabric before a change,
 * kept on the changed fabric where their routes still hold and mended
 * where they do not: what a hybrid's provisional pass does
 * (transition.h, ibr_transition_provisional) and what every engine routing
 * from the prior tables does (prior.h), in one place, so that the
 * final engine mending the provisional pass's tables finds its own.
 *
 * The prior tables are read through their identities (struct
 * ibr_table_ids, taken from their fabric when they were made): a row is
 * the switch of that node GUID, a column the LID of that (node GUID,
 * port) and offset in its range.  A port whose LID moved keeps its
 * routes all the same, on its new LID; a switch new to the fabric has no
 * entry, a port new to it (or whose range changed size) no column.
 *
 * What ibr_mend() leaves in `out`, for every LID the new fabric owns:
 *   - a switch LID, and every CA port's base LID: the prior column of that
 *     switch or port where its walks still hold (legal under ud,
 *     delivering); from every switch whose walk does not, the shortest
 *     hop into a walk that holds, on the least loaded channel against
 *     the load of every base route kept or mended so far (repair.h,
 *     ibr_repair_column_balanced), the fallback's walks where no holding
 *     walk is reached; switch LIDs first (switch traffic adds no load),
 *     then the CA ports' bases in LID order, after the flows of every
 *     walk that holds were counted; a new switch or port: the
 *     fallback's column;
 *   - a LID above a base (offset j >= 1): with ranges_as_base (one route
 *     per destination) a copy of the base; else the prior column of that
 *     offset, mended as the base is (but an entry that leads into a walk
 *     that holds again is kept: repair.h, `renamed`) from every switch
 *     with an entry whose walk does not hold, the port's base column the
 *     fallback, IBR_NO_PATH where the prior column had none; a new port's,
 *     and an enhanced switch port 0's: the fallback's;
 *   - with a designated map (map != IBR_MEND_MAP_NONE, by source
 *     switch): a pair keeps its prior offset where that column's walk from
 *     its source switch held (offset 0 always); a pair whose route broke,
 *     and a new pair, takes the offset among 0 and the columns that route
 *     its source switch whose walk is the least loaded
 *     (IBR_MEND_MAP_LEAST_LOADED) or the shortest, then the least loaded
 *     (IBR_MEND_MAP_SHORTEST), against the load of every route placed so
 *     far; placed destination port by destination port, source switch by
 *     source switch, ports and switches in LID order.
 * Every walk of `out` is then a legal route of ud (a kept walk that
 * holds, a hop into one, or a walk of the fallback, itself legal), so
 * out is free of loops and of credit loops; a walk that held is never
 * changed.  Management routes are not set (management.h: the caller's,
 * after), nor the ranges completed (ranges.h).
 *
 * Deterministic: every pass goes in ibr_repair_orders' orders (by LID),
 * ports shared by the workers write only their own columns and sum their
 * flows (integer sums), and the mending in order is one thread's: the
 * tables are the same, byte for byte, for any thread count and whatever
 * order the model lists the fabric in.
 *
 * Cost: a few O(S) passes per column (judging, the flows), mending only
 * where a walk does not hold; the fallback routed on demand only when a
 * column needs it (after a small change, most runs need none).
 */
#ifndef IBROUTING_MENDER_H
#define IBROUTING_MENDER_H

#include <stdbool.h>
#include <stdint.h>

#include "ibrouting/error.h"
#include "ibrouting/fabric.h"
#include "ibrouting/result.h"
#include "ibrouting/updown.h"

struct ibr_route_ctx;

/* Who owned a LID of the fabric tables were made for. */
struct ibr_lid_id {
	uint64_t guid;       /* the owner's node GUID; 0: nobody's */
	uint8_t port;        /* its port: 0 a switch's, else a CA's */
	uint8_t offset;      /* the LID's place in the port's range */
	uint8_t lids;        /* the range's LIDs */
	uint32_t end_port;   /* a CA port's end port index (the designated
			      * map's column), else IBR_NONE */
};

/* The identities of the rows and columns of tables made for a fabric:
 * what reading them on another fabric needs of the one they were made
 * for. */
struct ibr_table_ids {
	uint32_t num_switches;
	uint64_t *switch_guid;   /* per row (switch index): its node GUID */
	uint32_t *first_ca;      /* per row: the end port of its first CA
				  * (a designated map by end port reads
				  * its row), IBR_NONE */
	uint32_t num_lids;       /* LIDs 0 .. num_lids - 1 */
	struct ibr_lid_id *lid;
};

/* ids (any content) become f's; -1 (err) when out of memory, ids then
 * empty (ibr_table_ids_free may be called either way). */
int ibr_table_ids_of(const struct ibr_fabric *f, struct ibr_table_ids *ids,
		     struct ibr_error *err);
void ibr_table_ids_free(struct ibr_table_ids *ids);

/* The columns mending falls back on where no walk that holds is
 * reached: legal walks of ud only (no management route).  Either ready
 * tables of the new fabric, or a routing of it into fresh tables the
 * first time a column is needed, in the calling thread. */
struct ibr_mend_fallback {
	const struct ibr_result *tables;
	int (*route)(struct ibr_route_ctx *ctx, struct ibr_result *r,
		     struct ibr_error *err);
	struct ibr_route_ctx *ctx;
	const char *phase;       /* with options.phases: its time's name */
};

enum ibr_mend_map {
	IBR_MEND_MAP_NONE,           /* out's designated map left as it is */
	IBR_MEND_MAP_LEAST_LOADED,   /* colorl: the path selection's measure */
	IBR_MEND_MAP_SHORTEST,       /* dr: minimal paths first */
};

struct ibr_mend_options {
	bool ranges_as_base;     /* every LID of a range the base's column */
	enum ibr_mend_map map;   /* not with ranges_as_base */
	/* give up (ibr_mend returns 0) when more than this percentage of
	 * the CA pairs lost their route; 100: never */
	unsigned max_broken;
	bool phases;             /* the passes' times as out's phases */
	unsigned threads;        /* workers (0 or 1: one) */
};

struct ibr_mend_counts {
	uint32_t columns_kept;   /* columns in which an entry of prior survives */
	/* CA pairs (source switch, destination port; the port's own switch
	 * not counted): those whose route held, on their designated offset
	 * with a map, on the base without; the others were re-routed */
	uint64_t pairs, pairs_kept, pairs_rerouted;
	/* with a map: offsets above a base some pair is designated, and the
	 * CA LIDs that takes */
	uint64_t renamed, lids_needed;
};

/* out (tables of f, initialised; with a map, its designated map is made
 * anew) becomes prior (tables made for the fabric prior_ids describes)
 * kept and mended on f under ud, as above.  Returns 1 when it did, 0
 * when it gave up (more pairs broken than o->max_broken: out is then
 * partly written), -1 on failure (err; out partly written). */
int ibr_mend(const struct ibr_fabric *f, const struct ibr_updown *ud,
	     const struct ibr_result *prior, const struct ibr_table_ids *prior_ids,
	     const struct ibr_mend_fallback *fallback,
	     const struct ibr_mend_options *o, struct ibr_result *out,
	     struct ibr_mend_counts *c, struct ibr_error *err);

#endif
