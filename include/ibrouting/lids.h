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

#endif
