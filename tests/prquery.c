/*
 * prquery.c - ask the SA for one PathRecord (SubnAdmGet) from the local
 * port to a destination port, as a host resolving a path does.  A test
 * tool for e2e_dr.sh: saquery asks with SubnAdmGetTable, and the SA hands
 * out designated DLIDs only on a Get.
 *
 *   prquery [-l|--slid] [-n|--no-source] DEST_PORT_GUID
 *
 * The request names the destination by DGID (the GID prefix of our
 * PortInfo, then DEST_PORT_GUID) and the source by SGID (our port GID),
 * or with -l by SLID (our base LID), or with -n not at all (the SA then
 * takes the requester, or any source: OpenSM's choice).  Under ibsim, run
 * it with LD_PRELOAD=.../libumad2sim.so and SIM_HOST=<node id> (e.g.
 * H-0000000000100008) to act from that CA.
 *
 * Invariants:
 *   - exactly one request is made: a PathRecord SubnAdmGet, sent to the
 *     SM LID our own PortInfo names;
 *   - its component mask is DGID plus SGID (default), SLID (-l) or
 *     nothing (-n); never DLID, so the SA chooses the DLID;
 *   - exit 0 only on a successful SA answer, printing one line
 *     "dlid N slid M sl S" (decimal LIDs and SL of the record); anything else prints
 *     one "prquery: ..." line on stderr (the SA's status decoded when it
 *     answered) and exits 1.  libibmad may add its own "ibwarn:" lines;
 *     umad2sim itself exits 255 when SIM_HOST names no node of the fabric.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sa_client.h"

/* PathRecord component mask bits (IBA 15.2.5.16) */
#define PR_DGID		(1ull << 2)
#define PR_SGID		(1ull << 3)
#define PR_SLID		(1ull << 5)


static void usage(void)
{
	fprintf(stderr,
		"usage: prquery [-l|--slid] [-n|--no-source] DEST_PORT_GUID\n");
	exit(1);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "slid", no_argument, NULL, 'l' },
		{ "no-source", no_argument, NULL, 'n' },
		{ NULL, 0, NULL, 0 },
	};
	enum { BY_SGID, BY_SLID, NO_SOURCE } source = BY_SGID;
	int opt;
	ibmad_gid_t dgid;
	uint8_t rec[IB_SA_DATA_SIZE] = { 0 };
	struct sa_client c;
	uint64_t dest, mask;
	uint32_t dlid = 0, slid = 0, sl = 0;
	char *end, what[80];

	while ((opt = getopt_long(argc, argv, "ln", longopts, NULL)) != -1) {
		switch (opt) {
		case 'l':
			source = BY_SLID;
			break;
		case 'n':
			source = NO_SOURCE;
			break;
		default:
			usage();
		}
	}
	if (optind != argc - 1)
		usage();
	errno = 0;
	dest = strtoull(argv[optind], &end, 0);
	if (errno || *argv[optind] == '\0' || *end || dest == 0) {
		fprintf(stderr, "prquery: '%s' is not a port GUID\n",
			argv[optind]);
		return 1;
	}

	if (sa_client_open(&c, "prquery"))
		return 1;

	/* DGID: our prefix, the destination's port GUID */
	memcpy(dgid, c.port_gid, sizeof(dgid));
	mad_set_field64(dgid, 0, IB_GID_GUID_F, dest);
	mad_encode_field(rec, IB_SA_PR_DGID_F, dgid);
	mask = PR_DGID;
	if (source == BY_SGID) {
		mad_encode_field(rec, IB_SA_PR_SGID_F, c.port_gid);
		mask |= PR_SGID;
	} else if (source == BY_SLID) {
		slid = (uint32_t)c.self.lid;
		mad_encode_field(rec, IB_SA_PR_SLID_F, &slid);
		mask |= PR_SLID;
	}

	snprintf(what, sizeof(what), "a path from 0x%016" PRIx64 " to 0x%016"
		 PRIx64, c.guid, dest);
	if (sa_client_call(&c, IB_MAD_METHOD_GET, IB_SA_ATTR_PATHRECORD, mask,
			   rec, what)) {
		sa_client_close(&c);
		return 1;
	}
	mad_decode_field(rec, IB_SA_PR_DLID_F, &dlid);
	mad_decode_field(rec, IB_SA_PR_SLID_F, &slid);
	mad_decode_field(rec, IB_SA_PR_SL_F, &sl);
	printf("dlid %u slid %u sl %u\n", dlid, slid, sl);
	sa_client_close(&c);
	return 0;
}
