/*
 * pathset.h - paths between end ports, and their realisation as LIDs and
 * table columns (for path-based engines: destination renaming, color/L).
 *
 * A path leads from a source end port to a destination end port as the
 * output ports it takes at each switch, from the source's switch to the
 * destination's (whose port is the one to the destination CA).  A set may
 * hold several paths per pair (candidates); each path is stored once, in
 * one array of hops (CSR), so millions of paths cost two words a hop.
 *
 * Realisation (ibr_pathset_realise): every path given an offset k is
 * written into the column of its destination's LID base + k, and the
 * pair's designated DLID becomes that LID.  Paths sharing a LID must never
 * split (lid-assignment-color-l, Definition 1: two paths to one LID split
 * when they leave a common switch by different ports): a split is refused,
 * naming both pairs, so no realised LID can route a packet off its path.
 * Entries the paths do not touch are left as they are: the engine fills
 * the rest (a complete tree on offset 0, safe entries elsewhere).
 */
#ifndef IBROUTING_PATHSET_H
#define IBROUTING_PATHSET_H

#include <stdint.h>

#include "ibrouting/fabric.h"
#include "ibrouting/result.h"
#include "ibrouting/walk.h"

#define IBR_NOT_REALISED 0xFF   /* offset of a path left out */

struct ibr_pathset {
	uint32_t num_paths, paths_cap;
	uint32_t *src, *dst;       /* per path: end port indexes */
	uint32_t *first;           /* per path + 1: its hops are [first[p], first[p+1]) */
	uint32_t num_hops, hops_cap;
	uint32_t *hop_switch;      /* per hop: the switch index */
	uint8_t *hop_port;         /* per hop: the port taken there */
};

void ibr_pathset_init(struct ibr_pathset *ps);
void ibr_pathset_free(struct ibr_pathset *ps);

/* Appends a path of len hops (switch sw[i] leaves by port[i]); returns
 * its index, or IBR_NONE after a message (allocation failure). */
uint32_t ibr_pathset_add(struct ibr_pathset *ps, uint32_t src, uint32_t dst,
			 const uint32_t *sw, const uint8_t *port, uint32_t len,
			 struct ibr_error *err);

static inline uint32_t ibr_path_len(const struct ibr_pathset *ps, uint32_t p)
{
	return ps->first[p + 1] - ps->first[p];
}

/* Appends the path end port src's packets to dst take along the tables'
 * column `lid` (a walk from src's switch); fails if the walk does. */
uint32_t ibr_pathset_add_walk(struct ibr_pathset *ps,
			      const struct ibr_walker *w,
			      const struct ibr_result *r, uint32_t src,
			      uint32_t dst, ibr_lid_t lid,
			      struct ibr_error *err);

/* Writes path p on offset[p] of its destination (IBR_NOT_REALISED: not at
 * all) and designates that DLID for the pair (the map is created when
 * missing, per end port).  Fails, naming the pairs, on a split, an offset
 * beyond the destination's range, a pair realised twice, or a path that
 * is not a chain of links ending at its destination; two paths of one
 * pair (or, with a map by switch, of one source switch and destination)
 * may be realised only on the same offset. */
int ibr_pathset_realise(const struct ibr_pathset *ps,
			const struct ibr_fabric *f, const uint8_t *offset,
			struct ibr_result *r, struct ibr_error *err);

#endif
