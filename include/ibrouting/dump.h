/*
 * dump.h - OpenSM's routing dumps, written and read.
 *
 * ibr_dump_write() writes, into a directory, the files OpenSM writes with
 * -D 0x40 (osm_dump.c), in the same formats, so OpenSM's own tools and
 * ibdmchk read our tables:
 *   opensm-subnet.lst   one line per connected port: both ends and the link
 *   opensm-lfts.dump    every switch's LFT with the owner of each LID
 *   opensm.fdbs         every switch's LID -> port : hops : optimal
 * and beside them our own:
 *   ibrouting-dlids.dump  the designated DLIDs (format below)
 * ibr_dump_read() reads opensm-subnet.lst and opensm-lfts.dump (ours or
 * OpenSM's) back into a fabric and a result, so the verifier can judge
 * tables OpenSM computed, and ibrouting-dlids.dump when it is there.
 *
 * The LMC: no file of OpenSM's records it, and LIDs no switch routes (a
 * multi-LID engine's unused LIDs; OpenSM's dump prints no entry for them)
 * look like LIDs nobody owns.  It is, first that applies: the caller's
 * (ibr_dump_read_lmc: the lmc OpenSM ran with), checked against the dump;
 * the one ibrouting-dlids.dump's header gives ("# lmc N", written by
 * ibr_dlids_write, so our own dumps read back exactly); else the longest
 * run of consecutive LIDs the LFT dump names for one port GUID, rounded up
 * to 2^LMC, for every CA port whose range it fits (exact for tables that
 * route every LID of every range, as OpenSM's engines do).
 *
 * ibrouting-dlids.dump: '#' lines are comments (but "# lmc N: ..." in the
 * header, the LMC of every CA port, and "# roots GUID...: ...", the
 * switches the tables were routed from); every other line is
 *     SRC-PORT-GUID SRC-LID DST-PORT-GUID DST-BASE-LID DLID
 * (GUIDs 0x-prefixed hex, LIDs decimal): end port SRC sends to end port
 * DST on DLID, which lies in DST-BASE-LID .. DST-BASE-LID + 2^LMC - 1.
 * Only pairs whose DLID is not the base LID are listed; every pair not
 * listed uses the destination's base LID, so single-LID engines write the
 * comment lines alone.  Lines are sorted by source, then destination, in
 * end-port order.
 */
#ifndef IBROUTING_DUMP_H
#define IBROUTING_DUMP_H

#include <stdio.h>

#include "ibrouting/fabric.h"
#include "ibrouting/result.h"

int ibr_dump_write(const char *dir, const struct ibr_fabric *f,
		   const struct ibr_result *r, struct ibr_error *err);

/* On success *fp is a finalized fabric and *r its tables (caller frees). */
int ibr_dump_read(const char *dir, struct ibr_fabric **fp,
		  struct ibr_result *r, struct ibr_error *err);
/* The same with the subnet's LMC given (lmc >= 0; -1: as ibr_dump_read):
 * every CA port gets 2^lmc LIDs; an error names the dump and the port
 * when its LIDs contradict it (more LIDs named for a port, a base not
 * aligned, ranges that overlap), or ibrouting-dlids.dump gives another. */
int ibr_dump_read_lmc(const char *dir, int lmc, struct ibr_fabric **fp,
		      struct ibr_result *r, struct ibr_error *err);

/* The designated DLIDs of r into DIR/ibrouting-dlids.dump. */
int ibr_dlids_write(const char *dir, const struct ibr_fabric *f,
		    const struct ibr_result *r, struct ibr_error *err);

/* Reads DIR/ibrouting-dlids.dump into r's designated map when the file
 * exists (a map per end port; none when the file lists no pair).  Every
 * error names the file and line. */
int ibr_dlids_read(const char *dir, const struct ibr_fabric *f,
		   struct ibr_result *r, struct ibr_error *err);
/* *lmc: the LMC DIR/ibrouting-dlids.dump's header gives, -1 when there is
 * no file or no such line. */
int ibr_dlids_read_lmc(const char *dir, int *lmc, struct ibr_error *err);

/* The LFTs dump_fts (infiniband-diags) printed for a live fabric, read
 * from `in` (named `name` in messages) onto f, a finalized fabric with
 * the live fabric's GUIDs and LIDs (ibnetdiscover's output has both):
 * *r gets one table per switch (r->root unset).  Every switch needs its
 * section; every LID an entry's comment names must be its port's in f. */
int ibr_fts_read(FILE *in, const char *name, const struct ibr_fabric *f,
		 struct ibr_result *r, struct ibr_error *err);

#endif
