/*
 * load.h - the one way a fabric comes in, whatever FABRIC names.
 *
 *   ibr_load("gen:SPEC" | DIR | FILE, &opts, &f, &tables, &err)
 *
 * SOURCE is a generator spec (gen:random:..., generate.h), a directory of
 * OpenSM dumps (opensm-subnet.lst and opensm-lfts.dump, dump.h) or an
 * ibnetdiscover / ibsim topology file (topo_io.h).  The contract is the
 * same for all three: on success *fp is a finalized fabric (fabric.h
 * invariants hold), its LIDs those the source fixes and, for the others,
 * the ones OpenSM gives over ibsim with the SM on opts->sm_guid
 * (lids.h); with `tables`, a dump's tables are returned too (others
 * leave tables zeroed).  On failure *fp is NULL and err names the file,
 * the line where there is one, and what was wrong.
 *
 * The LMC: an LMC asked for explicitly (lmc_given) is the fabric's; a
 * topology file's or a generator's LIDs given with another move as
 * OpenSM run with that LMC would move them (ibr_lids_for_lmc(), lids.h:
 * aligned ranges, kept where they fit), and *opts->lid_moves says how
 * many moved.  Without one, the LMC the source's CA ports were given
 * with (an ibnetdiscover file's `lid N lmc 1`), when they all agree, is
 * the fabric's (f->lmc) and that of the ports it gives no LID; else
 * opts->lmc is (each port keeping the LMC it was given).  A dump's LIDs are
 * OpenSM's real assignment, the one its tables refer to, and never move;
 * no dump records the LMC, so an explicit one tells it, and is refused
 * when the dump's LIDs contradict it (ibr_dump_read_lmc, dump.h).
 */
#ifndef IBROUTING_LOAD_H
#define IBROUTING_LOAD_H

#include <stdbool.h>
#include <stdint.h>

#include "ibrouting/component.h"
#include "ibrouting/fabric.h"
#include "ibrouting/lids.h"
#include "ibrouting/result.h"

struct ibr_load_options {
	unsigned lmc;        /* LMC of the LIDs the source does not fix */
	bool lmc_given;      /* asked for explicitly: contradictions refused */
	uint64_t sm_guid;    /* the SM's switch, CA port or CA node; 0: none */
	/* A disconnected topology file: NULL refuses it; else only the part
	 * of component_guid's node (0: the SM's, else the first switch) is
	 * kept, as OpenSM would see it, and *left_out says what went
	 * (component.h).  Dumps are OpenSM's view already: never cut, and
	 * a component_guid with one is refused. */
	struct ibr_left_out *left_out;
	uint64_t component_guid;
	/* NULL, or what moving the source's LIDs to opts->lmc did (lids.h);
	 * zeroed when nothing moved */
	struct ibr_lid_moves *lid_moves;
};

int ibr_load(const char *source, const struct ibr_load_options *opts,
	     struct ibr_fabric **fp, struct ibr_result *tables,
	     struct ibr_error *err);

/* The node the SM runs on, from a switch GUID, a CA port GUID or a CA
 * node GUID (then its port 1, where ibsim attaches a client). */
int ibr_fabric_set_sm(struct ibr_fabric *f, uint64_t guid,
		      struct ibr_error *err);

#endif
