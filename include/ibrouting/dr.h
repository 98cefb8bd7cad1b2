/*
 * dr.h - what destination renaming chose beyond its tables: the path of
 * every (source switch, destination end port) pair and the offset it was
 * realised on.  The registered engine `dr` reports only counters; tests
 * and tools that want the paths call ibr_dr_route_detail().
 */
#ifndef IBROUTING_DR_H
#define IBROUTING_DR_H

#include <stdint.h>

#include "ibrouting/engine.h"
#include "ibrouting/pathset.h"

struct ibr_dr_detail {
	/* One path per source switch with CAs and destination end port on
	 * another switch, in the order the engine placed them; src is the
	 * first CA port of the source switch (every CA there shares it). */
	struct ibr_pathset paths;
	/* Per path: the offset realising it, or IBR_NOT_REALISED when no
	 * offset below 2^LMC fitted and its pairs fell back to the base
	 * LID (FERa's route). */
	uint8_t *offset;
	uint32_t offset_cap;
};

/* Routes like the engine `dr` into r (allocated by ibr_result_init) and
 * keeps the chosen paths in d (freed by the caller with
 * ibr_dr_detail_free, also after a failure). */
int ibr_dr_route_detail(struct ibr_route_ctx *ctx, struct ibr_result *r,
			struct ibr_dr_detail *d, struct ibr_error *err);
void ibr_dr_detail_free(struct ibr_dr_detail *d);

#endif
