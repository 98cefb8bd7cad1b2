/*
 * engine.h - the routing engines and the run that drives them.
 *
 * An engine fills a result from a finalized fabric and an up/down
 * orientation.  It must keep the contracts of DESIGN.md: connectivity,
 * loop-freedom, deadlock-freedom on one VL, determinism.  ibr_route() is
 * the one place that chooses the root, orients the graph, times the engine
 * and (optionally) verifies before anyone may push the tables.
 */
#ifndef IBROUTING_ENGINE_H
#define IBROUTING_ENGINE_H

#include "ibrouting/fabric.h"
#include "ibrouting/result.h"
#include "ibrouting/updown.h"

struct ibr_engine {
	const char *name;
	const char *summary;
	int (*route)(const struct ibr_fabric *f, const struct ibr_updown *ud,
		     struct ibr_result *r, struct ibr_error *err);
};

extern const struct ibr_engine ibr_engine_fera;
extern const struct ibr_engine ibr_engine_pira;

/* NULL-terminated list of every engine. */
extern const struct ibr_engine *const ibr_engines[];

const struct ibr_engine *ibr_engine_find(const char *name);

/* Chooses the root, orients, runs the engine.  On success r holds the
 * tables and stats (compute_ms covers orientation and engine). */
int ibr_route(const struct ibr_fabric *f, const struct ibr_engine *e,
	      const struct ibr_root_choice *root, struct ibr_result *r,
	      struct ibr_error *err);

#endif
