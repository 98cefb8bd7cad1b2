/*
 * component.h - the part of a disconnected fabric that OpenSM would route.
 *
 * OpenSM discovers the subnet from its own port through switches: what no
 * switch path joins to the SM's switch it never sees.  The tool does the
 * same instead of refusing a disconnected file, and reports what it left
 * out so that nothing disappears silently.
 */
#ifndef IBROUTING_COMPONENT_H
#define IBROUTING_COMPONENT_H

#include <stdint.h>

#include "ibrouting/fabric.h"

#define IBR_LEFT_OUT_SHOWN 3     /* GUIDs of left-out nodes named */

struct ibr_left_out {
	uint32_t switches, cas;       /* nodes left out, by type */
	uint32_t shown;               /* GUIDs in first[] */
	uint64_t first[IBR_LEFT_OUT_SHOWN]; /* the first left out, file order */
	uint64_t seed_guid;           /* the node whose part was kept */
};

/* Keeps, of the fabric *fp (not finalized), the switches a switch path
 * joins to the switch of node or port `guid` (0: the switch of the SM's
 * port when set, else the first switch), the CAs linked to them, and the links among
 * these; CA ports linked outside are left unconnected.  When something is
 * left out *fp is replaced by a new fabric (nodes in the same order, the
 * same GUIDs, LIDs, origins, SM and notes) and the old one freed; *left says
 * what went.  Errors: a GUID of no node or port, a CA linked to no
 * switch as the seed, no switch at all. */
int ibr_fabric_keep_component(struct ibr_fabric **fp, uint64_t guid,
			      struct ibr_left_out *left, struct ibr_error *err);

#endif
