/*
 * mcjoin.c - join (or leave) a multicast group through the SA, as a full
 * member, from the local port.  A test tool for e2e_mcast.sh: the Debian
 * diagnostics can query multicast groups but not join one.
 *
 *   mcjoin [-l] [-q QKEY] MGID
 *
 * MGID is an IPv6-style address (ff12:401b:ffff::1234) or 32 hex digits
 * with an optional 0x.  Under ibsim, run it with
 * LD_PRELOAD=.../libumad2sim.so and SIM_HOST=<node id> (e.g. H-host7) to
 * act from that CA; without SIM_HOST umad2sim uses the net file's first
 * node.
 *
 * Invariants:
 *   - exactly one request is made: an MCMemberRecord SubnAdmSet (join) or,
 *     with -l, SubnAdmDelete (leave), sent to the SM LID our own PortInfo
 *     names;
 *   - the record is about our own port only (no proxy join): PortGID is
 *     the GID prefix of our PortInfo (fe80::/64 unless OpenSM set another)
 *     followed by our port GUID;
 *   - a join carries every component OpenSM 3.3.23 requires to create a
 *     group (MGID, PortGID, Q_Key, TClass 0, P_Key 0xffff, SL 0, FlowLabel
 *     0, JoinState) so that the first joiner creates it and later ones
 *     join it; a leave carries only MGID, PortGID and JoinState, the
 *     components a delete needs;
 *   - JoinState is always "full member" (bit 0);
 *   - exit 0 only on a successful SA answer: a join prints
 *     "mlid 0xXXXX" (the MLID the SA assigned, a multicast LID), a leave
 *     prints "left MGID"; anything else prints one "mcjoin: ..." line on
 *     stderr (the SA's status decoded when it answered) and exits 1.
 *     libibmad may add its own "ibwarn:" lines; umad2sim itself exits 255
 *     when SIM_HOST names no node of the fabric.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sa_client.h"

/* MCMemberRecord component mask bits (IBA 15.2.5.17) */
#define MCM_MGID	(1ull << 0)
#define MCM_PORTGID	(1ull << 1)
#define MCM_QKEY	(1ull << 2)
#define MCM_TCLASS	(1ull << 6)
#define MCM_PKEY	(1ull << 7)
#define MCM_SL		(1ull << 12)
#define MCM_FLOWLABEL	(1ull << 13)
#define MCM_JOINSTATE	(1ull << 16)

#define LEAVE_MASK	(MCM_MGID | MCM_PORTGID | MCM_JOINSTATE)
#define JOIN_MASK	(LEAVE_MASK | MCM_QKEY | MCM_TCLASS | MCM_PKEY | \
			 MCM_SL | MCM_FLOWLABEL)

#define JOIN_FULL_MEMBER 1
#define DEFAULT_QKEY	0x0b1b	/* IPoIB's, any value would do */

static void usage(void)
{
	fprintf(stderr,
		"usage: mcjoin [-l|--leave] [-q|--qkey QKEY] MGID\n"
		"  MGID: ff12:401b:ffff::1234 or 32 hex digits (0x optional)\n");
	exit(1);
}

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* An MGID from "ff12:401b::1" or "0xff12401b...": 0 when valid. */
static int parse_mgid(const char *s, ibmad_gid_t mgid)
{
	if (strchr(s, ':'))
		return inet_pton(AF_INET6, s, mgid) == 1 ? 0 : -1;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	if (strlen(s) != 32)
		return -1;
	for (int i = 0; i < 16; i++) {
		int hi = hex_digit(s[2 * i]), lo = hex_digit(s[2 * i + 1]);

		if (hi < 0 || lo < 0)
			return -1;
		mgid[i] = (uint8_t)(hi << 4 | lo);
	}
	return 0;
}

static void set_field(uint8_t *rec, enum MAD_FIELDS field, uint32_t value)
{
	mad_encode_field(rec, field, &value);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "leave", no_argument, NULL, 'l' },
		{ "qkey", required_argument, NULL, 'q' },
		{ NULL, 0, NULL, 0 },
	};
	int leave = 0, opt;
	unsigned long qkey = DEFAULT_QKEY;
	ibmad_gid_t mgid;
	char mgid_str[INET6_ADDRSTRLEN], *end, what[160];
	uint8_t rec[IB_SA_DATA_SIZE] = { 0 };
	struct sa_client c;
	uint32_t mlid = 0;

	while ((opt = getopt_long(argc, argv, "lq:", longopts, NULL)) != -1) {
		switch (opt) {
		case 'l':
			leave = 1;
			break;
		case 'q':
			errno = 0;
			qkey = strtoul(optarg, &end, 0);
			if (errno || *end || qkey > 0xffffffffUL)
				usage();
			break;
		default:
			usage();
		}
	}
	if (optind != argc - 1)
		usage();
	if (parse_mgid(argv[optind], mgid) < 0 || mgid[0] != 0xff) {
		fprintf(stderr, "mcjoin: '%s' is not a multicast GID "
			"(ff..:.... or 32 hex digits starting ff)\n",
			argv[optind]);
		return 1;
	}
	inet_ntop(AF_INET6, mgid, mgid_str, sizeof(mgid_str));

	if (sa_client_open(&c, "mcjoin"))
		return 1;

	mad_encode_field(rec, IB_SA_MCM_MGID_F, mgid);
	mad_encode_field(rec, IB_SA_MCM_PORTGID_F, c.port_gid);
	set_field(rec, IB_SA_MCM_JOIN_STATE_F, JOIN_FULL_MEMBER);
	if (!leave) {
		set_field(rec, IB_SA_MCM_QKEY_F, (uint32_t)qkey);
		set_field(rec, IB_SA_MCM_TCLASS_F, 0);
		set_field(rec, IB_SA_MCM_PKEY_F, 0xffff);
		set_field(rec, IB_SA_MCM_SL_F, 0);
		set_field(rec, IB_SA_MCM_FLOW_LABEL_F, 0);
	}

	snprintf(what, sizeof(what), "to %s %s for port 0x%016" PRIx64,
		 leave ? "remove us from" : "join us to", mgid_str, c.guid);
	if (sa_client_call(&c, leave ? IB_MAD_METHOD_DELETE : IB_MAD_METHOD_SET,
			   IB_SA_ATTR_MCRECORD, leave ? LEAVE_MASK : JOIN_MASK,
			   rec, what))
		goto fail;

	if (leave) {
		printf("left %s\n", mgid_str);
	} else {
		mad_decode_field(rec, IB_SA_MCM_MLID_F, &mlid);
		if (mlid < 0xc000 || mlid > 0xfffe) {
			fprintf(stderr, "mcjoin: the SA answered with MLID "
				"0x%04x, not a multicast LID\n", mlid);
			goto fail;
		}
		printf("mlid 0x%04x\n", mlid);
	}
	sa_client_close(&c);
	return 0;

fail:
	sa_client_close(&c);
	return 1;
}
