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
 *     "dlid N slid M" (decimal LIDs of the record); anything else prints
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

#include <infiniband/mad.h>

/* PathRecord component mask bits (IBA 15.2.5.16) */
#define PR_DGID		(1ull << 2)
#define PR_SGID		(1ull << 3)
#define PR_SLID		(1ull << 5)

#define SA_TIMEOUT_MS	1000
#define SA_RETRIES	3

static void usage(void)
{
	fprintf(stderr,
		"usage: prquery [-l|--slid] [-n|--no-source] DEST_PORT_GUID\n");
	exit(1);
}

/* The SA's class-specific status codes (IBA 15.2.1.1, bits 8-15). */
static const char *sa_status_text(unsigned status)
{
	static const char *const sa[] = {
		"", "no resources", "request invalid", "no records",
		"too many records", "invalid GID", "insufficient components",
		"request denied",
	};
	unsigned code = (status >> 8) & 0xff;

	if (code && code < sizeof(sa) / sizeof(sa[0]))
		return sa[code];
	if (status & 0x1c)
		return "unsupported method, attribute or value";
	if (status & 0x1)
		return "busy";
	return "unknown status";
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "slid", no_argument, NULL, 'l' },
		{ "no-source", no_argument, NULL, 'n' },
		{ NULL, 0, NULL, 0 },
	};
	int classes[] = { IB_SMI_CLASS, IB_SMI_DIRECT_CLASS, IB_SA_CLASS };
	enum { BY_SGID, BY_SLID, NO_SOURCE } source = BY_SGID;
	int opt, portnum;
	ibmad_gid_t port_gid, dgid;
	uint8_t rec[IB_SA_DATA_SIZE] = { 0 };
	ib_portid_t self = { 0 }, sm = { 0 };
	ib_rpc_v1_t rpc = { 0 };
	struct ibmad_port *port;
	uint64_t guid, dest;
	uint32_t dlid = 0, slid = 0;
	char *end;

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

	port = mad_rpc_open_port(NULL, 0, classes, 3);
	if (!port) {
		fprintf(stderr, "prquery: cannot open the local umad port\n");
		return 1;
	}
	mad_rpc_set_timeout(port, SA_TIMEOUT_MS);
	mad_rpc_set_retries(port, SA_RETRIES);
	if (ib_resolve_self_via(&self, &portnum, &port_gid, port) < 0) {
		fprintf(stderr, "prquery: cannot read our own NodeInfo/PortInfo\n");
		goto fail;
	}
	guid = mad_get_field64(port_gid, 0, IB_GID_GUID_F);
	if (!guid || !IB_LID_VALID(self.lid)) {
		fprintf(stderr, "prquery: our port (GUID 0x%016" PRIx64 ", LID %d)"
			" is not configured by an SM yet\n", guid, self.lid);
		goto fail;
	}
	if (ib_resolve_smlid_via(&sm, SA_TIMEOUT_MS, port) < 0) {
		fprintf(stderr, "prquery: our PortInfo names no SM LID\n");
		goto fail;
	}

	/* DGID: our prefix, the destination's port GUID */
	memcpy(dgid, port_gid, sizeof(dgid));
	mad_set_field64(dgid, 0, IB_GID_GUID_F, dest);
	mad_encode_field(rec, IB_SA_PR_DGID_F, dgid);
	rpc.mask = PR_DGID;
	if (source == BY_SGID) {
		mad_encode_field(rec, IB_SA_PR_SGID_F, port_gid);
		rpc.mask |= PR_SGID;
	} else if (source == BY_SLID) {
		slid = (uint32_t)self.lid;
		mad_encode_field(rec, IB_SA_PR_SLID_F, &slid);
		rpc.mask |= PR_SLID;
	}

	/* Version 1 of the rpc struct: mad_rpc then reports the MAD status
	 * and errno, which sa_rpc_call() keeps to itself. */
	rpc.mgtclass = IB_SA_CLASS | IB_MAD_RPC_VERSION1;
	rpc.method = IB_MAD_METHOD_GET;
	rpc.attr.id = IB_SA_ATTR_PATHRECORD;
	rpc.dataoffs = IB_SA_DATA_OFFS;
	rpc.datasz = IB_SA_DATA_SIZE;
	rpc.trid = mad_trid();
	sm.qp = 1;
	sm.qkey = IB_DEFAULT_QP1_QKEY;
	if (!mad_rpc(port, (ib_rpc_t *)&rpc, &sm, rec, rec)) {
		if (rpc.rstatus)
			fprintf(stderr, "prquery: the SA (LID %d) refused a path "
				"from 0x%016" PRIx64 " to 0x%016" PRIx64 ": MAD "
				"status 0x%04x (%s)\n", sm.lid, guid, dest,
				rpc.rstatus, sa_status_text(rpc.rstatus));
		else
			fprintf(stderr, "prquery: no answer from the SA (LID %d) "
				"after %d tries: %s\n", sm.lid, SA_RETRIES,
				strerror(rpc.error ? rpc.error : EIO));
		goto fail;
	}
	mad_decode_field(rec, IB_SA_PR_DLID_F, &dlid);
	mad_decode_field(rec, IB_SA_PR_SLID_F, &slid);
	printf("dlid %u slid %u\n", dlid, slid);
	mad_rpc_close_port(port);
	return 0;

fail:
	mad_rpc_close_port(port);
	return 1;
}
