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

#endif
