/*
 * mc_join.c - join a multicast group through the SA as a full member, from
 * the port libibumad (or umad2sim, with SIM_HOST naming an ibsim node)
 * gives us.  A test tool: the Debian diagnostics have no join command.
 *
 *   mc_join MGID-SUFFIX     joins ff12:401b:ffff::SUFFIX (SUFFIX in hex)
 *
 * Prints "mlid 0x...." with the MLID OpenSM assigned and exits 0, or an
 * error and exits 1.  The record carries every component OpenSM requires
 * to create a group (MGID, PortGID, JoinState, Q_Key, TClass, P_Key,
 * FlowLabel, SL), so the first joiner creates it and later ones join it.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mad.h>

#define COMP(bit) (1ull << (bit))
#define CREATE_MASK (COMP(0) /* MGID */ | COMP(1) /* PortGID */ | \
		     COMP(2) /* Q_Key */ | COMP(6) /* TClass */ | \
		     COMP(7) /* P_Key */ | COMP(12) /* SL */ | \
		     COMP(13) /* FlowLabel */ | COMP(16) /* JoinState */)

static void put(uint8_t *rec, enum MAD_FIELDS field, uint32_t value)
{
	mad_encode_field(rec, field, &value);
}

int main(int argc, char **argv)
{
	int classes[] = { IB_SMI_CLASS, IB_SMI_DIRECT_CLASS, IB_SA_CLASS };
	struct ibmad_port *port;
	ib_portid_t self = { 0 }, sm = { 0 };
	ibmad_gid_t port_gid, mgid = { 0xff, 0x12, 0x40, 0x1b, 0xff, 0xff };
	uint8_t rec[IB_SA_DATA_SIZE] = { 0 };
	ib_sa_call_t sa = { 0 };
	unsigned long long suffix;
	uint32_t mlid = 0;
	int portnum;

	if (argc != 2 || sscanf(argv[1], "%llx", &suffix) != 1) {
		fprintf(stderr, "usage: mc_join MGID-SUFFIX-HEX\n");
		return 1;
	}
	for (int i = 0; i < 8; i++)
		mgid[15 - i] = (uint8_t)(suffix >> (8 * i));
	port = mad_rpc_open_port(NULL, 0, classes, 3);
	if (!port) {
		fprintf(stderr, "mc_join: cannot open the umad port\n");
		return 1;
	}
	if (ib_resolve_self_via(&self, &portnum, &port_gid, port) < 0 ||
	    ib_resolve_smlid_via(&sm, 0, port) < 0) {
		fprintf(stderr, "mc_join: cannot find our port or the SM\n");
		return 1;
	}
	mad_encode_field(rec, IB_SA_MCM_MGID_F, mgid);
	mad_encode_field(rec, IB_SA_MCM_PORTGID_F, port_gid);
	put(rec, IB_SA_MCM_QKEY_F, 0x0b1b); /* the default partition's */
	put(rec, IB_SA_MCM_TCLASS_F, 0);
	put(rec, IB_SA_MCM_PKEY_F, 0xffff);
	put(rec, IB_SA_MCM_SL_F, 0);
	put(rec, IB_SA_MCM_FLOW_LABEL_F, 0);
	put(rec, IB_SA_MCM_JOIN_STATE_F, 1); /* full member */
	sa.method = IB_MAD_METHOD_SET;
	sa.attrid = IB_SA_ATTR_MCRECORD;
	sa.mask = CREATE_MASK;
	sa.trid = mad_trid();
	if (!sa_rpc_call(port, rec, &sm, &sa, 0)) {
		fprintf(stderr, "mc_join: the SA refused the join\n");
		return 1;
	}
	mad_decode_field(rec, IB_SA_MCM_MLID_F, &mlid);
	printf("mlid 0x%04x\n", mlid);
	mad_rpc_close_port(port);
	return mlid ? 0 : 1;
}
