/*
 * colorl.h - what the engine colorl chose beyond its tables: the path of
 * every unit (paths.h) and which pairs were moved off their selected path
 * because their destination had more configurations than LIDs.  Tests and
 * tools call ibr_colorl_route_detail(); the engine reports counters only.
 */
#ifndef IBROUTING_COLORL_H
#define IBROUTING_COLORL_H

#include <stdbool.h>
#include <stdint.h>

#include "ibrouting/engine.h"
#include "ibrouting/paths.h"

struct ibr_colorl_detail {
	struct ibr_paths paths;     /* the selected path of every unit */
	/* One bit per entry of the designated map (r->designated: rows x
	 * cols): set when that pair's designated DLID does not carry its
	 * selected path (it was moved onto a LID whose tree reaches its
	 * source switch, or onto the base). */
	uint64_t *moved;
};

static inline bool ibr_colorl_moved(const struct ibr_colorl_detail *d,
				    size_t slot)
{
	return d->moved[slot / 64] >> (slot % 64) & 1;
}

/* Routes like the engine `colorl` into r (allocated by ibr_result_init)
 * and keeps its choices in d (freed by the caller with
 * ibr_colorl_detail_free, also after a failure). */
int ibr_colorl_route_detail(struct ibr_route_ctx *ctx, struct ibr_result *r,
			    struct ibr_colorl_detail *d, struct ibr_error *err);
void ibr_colorl_detail_free(struct ibr_colorl_detail *d);

#endif
