/*
 * pira.h - what PIRa computes beyond the linear tables: the paper's own
 * form of its routes (PIRa paper §3.2), explicit entries plus one default
 * port per switch.  The registered engine `pira` expands these into the
 * linear tables OpenSM programs and reports only the two counts; tests
 * and tools that want the entries themselves call ibr_pira_route_detail().
 */
#ifndef IBROUTING_PIRA_H
#define IBROUTING_PIRA_H

#include <stdbool.h>
#include <stdint.h>

#include "ibrouting/engine.h"

struct ibr_pira_detail {
	uint8_t *default_port;     /* per switch; IBR_NO_PATH at the root */
	uint64_t *explicit_bits;   /* per LID column: `words` words, bit s */
	uint32_t words;
};

/* Routes like the engine `pira` into r (allocated by ibr_result_init) and
 * keeps the explicit entries and default ports in d (freed by the caller
 * with ibr_pira_detail_free, also after a failure). */
int ibr_pira_route_detail(struct ibr_route_ctx *ctx, struct ibr_result *r,
			  struct ibr_pira_detail *d, struct ibr_error *err);
void ibr_pira_detail_free(struct ibr_pira_detail *d);

static inline bool ibr_pira_is_explicit(const struct ibr_pira_detail *d,
					ibr_lid_t lid, uint32_t s)
{
	return d->explicit_bits[(size_t)lid * d->words + s / 64] >> (s % 64) & 1;
}

#endif
