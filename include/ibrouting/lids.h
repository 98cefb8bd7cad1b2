/*
 * lids.h - LID assignment: every LID holder a source left without a LID
 * gets the one OpenSM 3.3 gives it on a fresh subnet served by ibsim.
 *
 * LID holders are switches (port 0) and connected CA ports.  A source
 * (topology file, OpenSM dump, generator, test) may fix some LIDs with
 * ibr_fabric_set_lid(); those are validated and kept.  The others get,
 * as OpenSM's LID manager hands them out (osm_lid_mgr.c) when its
 * guid2lid cache is empty and the ports carry no LID of their own:
 *
 *   1. the SM's own port first (lid_mgr_process_our_sm_node);
 *   2. then every other holder in the order of OpenSM's port_guid_tbl
 *      (osm_lid_mgr_process_subnet), a cl_qmap keyed by the port GUID
 *      in network byte order compared as a host integer: on x86 that is
 *      ascending byte-swapped port GUID (least significant byte first),
 *      which interleaves ibsim's switches and CAs;
 *   3. each takes 2^lmc LIDs (one for a switch without lmc_esp0) from
 *      the first free range of LIDs, in ascending order, that holds that
 *      many after rounding the range's start up to a multiple of 2^lmc;
 *      the range then starts after the block
 *      (lid_mgr_find_free_lid_range).  The LIDs skipped by rounding are
 *      not handed out later: with LMC 2 the sequence CA, switch, CA gives
 *      4-7, 8, 12-15.  Free ranges are the gaps between the fixed LIDs,
 *      over 1..0xBFFF (lid_mgr_init_sweep).
 *
 * The SM's port is (f->sm_node, f->sm_port) when sm_node is set (port 0
 * for a switch), else where ibsim attaches a client that names no node:
 * the first port of the first node of the file, i.e. port 0 of node 0
 * if it is a switch, port 1 if it is a CA (ibsim's set_default_port).
 */
#ifndef IBROUTING_LIDS_H
#define IBROUTING_LIDS_H

#include "ibrouting/fabric.h"

/* Validates the LIDs already set and assigns the missing ones as above;
 * sets f->lmc.  lmc: the subnet LMC, used for the CA ports (and, with
 * f->lmc_esp0, switches) that have no LID; a switch without lmc_esp0
 * always owns one LID.  Errors: LMC > 7, a fixed LID not aligned to its
 * LMC, beyond 0xBFFF or given twice, LID space exhausted.  Does not index
 * the fabric: see ibr_fabric_index(). */
int ibr_lids_assign(struct ibr_fabric *f, unsigned lmc, struct ibr_error *err);

/* What ibr_lids_for_lmc() did. */
struct ibr_lid_moves {
	bool relid;       /* the source's LIDs were for another LMC */
	uint32_t kept;    /* holders that kept the source's base LID */
	uint32_t moved;   /* holders whose source LID did not fit: a new range */
	uint32_t fresh;   /* holders the source gave no LID */
};

/* A source's LIDs taken to subnet LMC lmc when some were given with
 * another (an ibnetdiscover file carries `lid N lmc 0`; OpenSM run with
 * `lmc 2` on that fabric moves them), as OpenSM's LID manager does with
 * the LIDs it finds in the ports and no guid2lid cache:
 *   1. every holder's range at the new LMC (2^lmc LIDs; one for a switch
 *      without lmc_esp0) that starts at its LID and is aligned is
 *      reserved, whatever other LIDs lie inside it; the rest of
 *      1..0xBFFF is free;
 *   2. in the order of rule 2 above (the SM's port, then byte-swapped
 *      port GUID), a holder keeps its LID when that range is aligned and
 *      holds no LID of a holder served before it; any other holder takes
 *      a block from the free ranges as rule 3 does.
 * A reserved range whose holder lost it is not handed out (OpenSM leaves
 * it unused as well).  Afterwards every holder has a LID that fits lmc,
 * for ibr_lids_assign() to claim.  When every LID given already fits lmc
 * nothing changes and m->relid is false.  Errors: LMC > 7, LID space
 * exhausted. */
int ibr_lids_for_lmc(struct ibr_fabric *f, unsigned lmc,
		     struct ibr_lid_moves *m, struct ibr_error *err);

#endif
