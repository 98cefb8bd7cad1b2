/*
 * engines.h - the engines the registry lists (src/core/engines/registry.c).
 * Internal to the core: everyone else finds engines through ibr_engines[].
 */
#ifndef IBROUTING_CORE_ENGINES_H
#define IBROUTING_CORE_ENGINES_H

#include "ibrouting/engine.h"

/* One link of a route and the flows riding it there: what fera's and
 * dr's listers prepare for the routing to add to (or take off) the links'
 * loads.  Flows count CA pairs to one destination LID, at most the CA
 * ports, so 32 bits hold them. */
struct ibr_flow_step {
	uint32_t link;          /* sw_adj entry */
	uint32_t flows;
};

static inline void ibr_flow_steps_add(uint64_t *load,
				      const struct ibr_flow_step *steps,
				      uint32_t n)
{
	for (uint32_t k = 0; k < n; k++)
		load[steps[k].link] += steps[k].flows;
}

static inline void ibr_flow_steps_take_off(uint64_t *load,
					   const struct ibr_flow_step *steps,
					   uint32_t n)
{
	for (uint32_t k = 0; k < n; k++)
		load[steps[k].link] -= steps[k].flows;
}

extern const struct ibr_engine ibr_engine_pira;
extern const struct ibr_engine ibr_engine_fera;
extern const struct ibr_engine ibr_engine_dr;
extern const struct ibr_engine ibr_engine_colorl;

/* FERa's tables computed afresh, whatever the prior tables: the base
 * (offset 0, switch LIDs) dr and colorl build on, and the fallback the
 * prior tables are mended with (prior.h).  ibr_engine_fera's route
 * keeps the prior tables first, when they apply. */
int ibr_fera_route_afresh(struct ibr_route_ctx *ctx, struct ibr_result *r,
			  struct ibr_error *err);

/* What fera's balanced routing knows of its own tables' load without
 * walking them: the flows it keeps on every link between switches as it
 * routes (all-to-all traffic between CA ports along their base LIDs, as
 * metrics.h counts it).  With `known`, every switch with hosts had a
 * route to every other with hosts, so no flow is unrouted and each CA
 * port receives one from every other: the heaviest channel metrics.h
 * finds is the larger of `heaviest` and ports - 1 (test_roots checks it
 * against metrics.h's walk on random fabrics, degraded trees, a torus). */
struct ibr_fera_load {
	bool known;             /* port_choice balanced, hosts all routed */
	uint64_t heaviest;      /* flows on the most loaded inter-switch link */
};
/* ibr_fera_route_afresh, and *load. */
int ibr_fera_route_afresh_load(struct ibr_route_ctx *ctx,
			       struct ibr_result *r, struct ibr_fera_load *load,
			       struct ibr_error *err);

#ifdef IBR_TEST_HOOKS
/* Test builds only: a test that needs it compiles fera.c itself with
 * IBR_TEST_HOOKS (Makefile.am, tests/test_roots), so libibrcore, the
 * plugin and the tool have no probe.  With weigh_every_candidate set,
 * fera's first pass weighs every candidate of every switch, never
 * sharing a choice between switches with the same far ends (fera.c,
 * list_shared_ends), which must give the same tables; `shared` counts
 * the choices shared by the runs since it was last zeroed, so a test
 * sees that some were.  Written by the thread that runs fera; not for
 * concurrent runs. */
struct ibr_fera_probe {
	bool weigh_every_candidate;
	uint64_t shared;
};
extern struct ibr_fera_probe ibr_fera_probe;
#endif

#endif
