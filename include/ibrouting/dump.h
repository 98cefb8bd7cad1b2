/*
 * dump.h - OpenSM's routing dumps, written and read.
 *
 * ibr_dump_write() writes, into a directory, the files OpenSM writes with
 * -D 0x40 (osm_dump.c), in the same formats, so OpenSM's own tools and
 * ibdmchk read our tables:
 *   opensm-subnet.lst   one line per connected port: both ends and the link
 *   opensm-lfts.dump    every switch's LFT with the owner of each LID
 *   opensm.fdbs         every switch's LID -> port : hops : optimal
 * ibr_dump_read() reads opensm-subnet.lst and opensm-lfts.dump (ours or
 * OpenSM's) back into a fabric and a result, so the verifier can judge
 * tables OpenSM computed.  LMC is inferred from the LID ranges in the LFT
 * dump (consecutive LIDs naming the same port GUID).
 */
#ifndef IBROUTING_DUMP_H
#define IBROUTING_DUMP_H

#include "ibrouting/fabric.h"
#include "ibrouting/result.h"

int ibr_dump_write(const char *dir, const struct ibr_fabric *f,
		   const struct ibr_result *r, struct ibr_error *err);

/* On success *fp is a finalized fabric and *r its tables (caller frees). */
int ibr_dump_read(const char *dir, struct ibr_fabric **fp,
		  struct ibr_result *r, struct ibr_error *err);

#endif
