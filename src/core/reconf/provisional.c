/*
 * provisional.c - a hybrid's provisional tables kept from the prior tables
 * (transition.h, ibr_transition_provisional): the mender (mender.h) with the
 * provisional engine's tables as the fallback, then what ibr_route does
 * after the final engine: the ranges completed and the management
 * routes set.
 *
 * Why the final engine's way: after a change the final pass routes from
 * the final engine's last tables, which are the prior tables, with
 * the same mender; when the provisional pass mends them the same way,
 * in the same order against the same load, the final pass finds its own
 * prior tables and OpenSM sends no block after the provisional pass.
 *
 * Invariant: the fallback's walks are legal ones (the provisional
 * engine's management routes cleared, on a copy), so every column
 * written is legal on its own under ud and the tables are free of loops
 * and of credit loops as the provisional engine's are.
 */
#include "ibrouting/management.h"
#include "ibrouting/mender.h"
#include "ibrouting/ranges.h"
#include "ibrouting/transition.h"

int ibr_transition_provisional(const struct ibr_fabric *f, const struct ibr_updown *ud,
			const struct ibr_result *prior,
			const struct ibr_table_ids *prior_ids,
			bool ranges_as_base, unsigned threads,
			struct ibr_result *prov, uint32_t *kept,
			struct ibr_error *err)
{
	const struct ibr_mend_options o = {
		.ranges_as_base = ranges_as_base, .map = IBR_MEND_MAP_NONE,
		.max_broken = 100, .threads = threads,
	};
	struct ibr_mend_fallback fallback = { 0 };
	struct ibr_mend_counts c;
	struct ibr_result legal;
	int rc;

	*kept = 0;
	if (ibr_result_copy(&legal, prov, err))
		return -1;
	fallback.tables = &legal;
	rc = ibr_management_clear(f, ud, &legal, err) == 0 &&
	     ibr_mend(f, ud, prior, prior_ids, &fallback, &o, prov, &c, err) == 1 ?
	     0 : -1;
	ibr_result_free(&legal);
	if (rc)
		return -1;
	*kept = c.columns_kept;
	/* what mending left without an entry above a base (no walk that
	 * holds reached, a switch new to the fabric) routed as ibr_route
	 * completes the final engine's tables */
	if (!ranges_as_base && ibr_ranges_complete(f, ud, prov, threads, err))
		return -1;
	/* and the management routes of what was kept, as ibr_route sets
	 * them on the final engine's */
	return ibr_management_routes(f, ud, prov, err);
}
