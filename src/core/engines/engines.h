/*
 * engines.h - the engines the registry lists (src/core/routing/registry.c).
 * Internal to the core: everyone else finds engines through ibr_engines[].
 */
#ifndef IBROUTING_CORE_ENGINES_H
#define IBROUTING_CORE_ENGINES_H

#include "ibrouting/engine.h"

extern const struct ibr_engine ibr_engine_pira;
extern const struct ibr_engine ibr_engine_fera;
extern const struct ibr_engine ibr_engine_dr;
extern const struct ibr_engine ibr_engine_colorl;

/* FERa's tables computed afresh, whatever tables are in place: the base
 * (offset 0, switch LIDs) dr and colorl build on, and the fallback the
 * tables in place are mended with (prior.h).  ibr_engine_fera's route
 * keeps the tables in place first, when they apply. */
int ibr_fera_route_afresh(struct ibr_route_ctx *ctx, struct ibr_result *r,
			  struct ibr_error *err);

#endif
