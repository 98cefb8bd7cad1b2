/*
 * engine.c - the engine registry and one routing run (see engine.h).
 *
 * A run is: choose the root, orient the switch graph, allocate the
 * result, let the engine fill it.  The time reported covers orientation
 * and engine, the work an SM repeats after every topology change.  On any
 * failure the result is freed: a caller never sees half-built tables.
 */
#include <string.h>

#include "ibrouting/engine.h"
#include "util/timer.h"

const struct ibr_engine *const ibr_engines[] = {
	&ibr_engine_pira,
	&ibr_engine_fera,
	NULL,
};

const struct ibr_engine *ibr_engine_find(const char *name)
{
	for (unsigned i = 0; ibr_engines[i]; i++)
		if (strcmp(ibr_engines[i]->name, name) == 0)
			return ibr_engines[i];
	return NULL;
}

int ibr_route(const struct ibr_fabric *f, const struct ibr_engine *e,
	      const struct ibr_root_choice *root, struct ibr_result *r,
	      struct ibr_error *err)
{
	struct ibr_updown ud;
	uint32_t root_sw;
	double start = ibr_now_ms();
	int rc;

	memset(r, 0, sizeof(*r));
	if (!f->finalized)
		return ibr_error_set(err, "%s: fabric not finalized", e->name);
	if (ibr_choose_root(f, root, &root_sw, err) ||
	    ibr_updown_build(f, root_sw, &ud, err))
		return -1;
	rc = ibr_result_init(r, f, err);
	if (rc == 0)
		rc = e->route(f, &ud, r, err);
	ibr_updown_free(&ud);
	if (rc) {
		ibr_result_free(r);
		return -1;
	}
	r->root = root_sw;
	r->stats.compute_ms = ibr_now_ms() - start;
	r->stats.lids_used = 0;
	for (uint32_t l = 1; l <= f->max_lid; l++)
		r->stats.lids_used += f->lid_owner[l].node != IBR_NONE;
	return 0;
}
