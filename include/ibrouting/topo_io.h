/*
 * topo_io.h - topology files in and out.
 *
 * Reads the two formats administrators already have: ibnetdiscover output
 * and ibsim net files (ibsim's grammar is a superset of ibnetdiscover's
 * node records: `Switch N "id"`, `Hca N "id"` / `Ca N "id"`, port lines
 * `[p] "peer"[q]`, `switchguid=` / `caguid=` directives, `#` comments).
 * GUIDs follow ibsim's rules so that a fabric read here and the same file
 * served by ibsim have the same GUIDs: an explicit `switchguid=`/`caguid=`
 * directive sets the next node's GUID; otherwise switches count up from
 * 0x200000 by one and CAs from 0x100000 by (ports + 1); a CA port's GUID is
 * the node GUID + port number unless the line gives it in parentheses.
 * LIDs come from `lid N lmc M` comments when present (`lid 65535`, a port
 * captured without a LID, is none).  Text a terminal saved around the
 * records (a banner, the prompts) is skipped; the fabric's notes[] say
 * what was let through so (topo_read.c tells exactly what).
 * Router records (`Rt N "id"`, `rtguid=`) are read as CAs: end ports, as
 * the plugin takes OpenSM's routers; ibsim counts router GUIDs from 0, so
 * each router needs an rtguid= line (GUID 0 is refused everywhere).
 * Limits (util/lines.h): lines up to 64 KiB, files up to 1 GiB, no NUL.
 *
 * Every error names file:line and what was expected.  The fabric returned
 * is not finalized: the caller picks the LMC and calls ibr_fabric_finalize().
 *
 * ibr_fabric_write_net() writes a finalized fabric in ibnetdiscover format
 * with GUID directives and LIDs, which ibsim serves with the same GUIDs and
 * LIDs and which ibr_fabric_read_file() reads back to the same fabric.
 */
#ifndef IBROUTING_TOPO_IO_H
#define IBROUTING_TOPO_IO_H

#include <stdio.h>

#include "ibrouting/fabric.h"

struct ibr_fabric *ibr_fabric_read_file(const char *path,
					struct ibr_error *err);
/* Same, from an open stream; `name` is used in messages. */
struct ibr_fabric *ibr_fabric_read_stream(FILE *in, const char *name,
					  struct ibr_error *err);

int ibr_fabric_write_net(const struct ibr_fabric *f, FILE *out,
			 struct ibr_error *err);

#endif
