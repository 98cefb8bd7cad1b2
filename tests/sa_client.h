/*
 * sa_client.h - what the tests' SA clients (mcjoin, prquery) share: the
 * local port opened as a host's would be (under ibsim: the CA umad2sim's
 * SIM_HOST names), our port and the SM found from our own PortInfo, one
 * SA request, and the SA's status in words.
 *
 * Invariants:
 *   - sa_client_open() succeeds only when our port has a GUID and a valid
 *     LID (an SM configured it) and our PortInfo names an SM LID;
 *   - sa_client_call() makes exactly one request (libibmad retries it
 *     SA_RETRIES times on a timeout) to that SM's QP1;
 *   - every failure prints one "PROG: ..." line on stderr.
 */
#ifndef IBROUTING_TESTS_SA_CLIENT_H
#define IBROUTING_TESTS_SA_CLIENT_H

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <infiniband/mad.h>

#define SA_TIMEOUT_MS	1000
#define SA_RETRIES	3

struct sa_client {
	const char *prog;
	struct ibmad_port *port;
	ib_portid_t self, sm;
	ibmad_gid_t port_gid;          /* our GID prefix + port GUID */
	uint64_t guid;                 /* our port GUID */
};

/* The SA's class-specific status codes (IBA 15.2.1.1, bits 8-15). */
static inline const char *sa_status_text(unsigned status)
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

static inline void sa_client_close(struct sa_client *c)
{
	if (c->port)
		mad_rpc_close_port(c->port);
	c->port = NULL;
}

static inline int sa_client_open(struct sa_client *c, const char *prog)
{
	int classes[] = { IB_SMI_CLASS, IB_SMI_DIRECT_CLASS, IB_SA_CLASS };
	int portnum;

	memset(c, 0, sizeof(*c));
	c->prog = prog;
	c->port = mad_rpc_open_port(NULL, 0, classes, 3);
	if (!c->port) {
		fprintf(stderr, "%s: cannot open the local umad port\n", prog);
		return -1;
	}
	mad_rpc_set_timeout(c->port, SA_TIMEOUT_MS);
	mad_rpc_set_retries(c->port, SA_RETRIES);
	if (ib_resolve_self_via(&c->self, &portnum, &c->port_gid, c->port) < 0) {
		fprintf(stderr, "%s: cannot read our own NodeInfo/PortInfo\n",
			prog);
		goto fail;
	}
	c->guid = mad_get_field64(c->port_gid, 0, IB_GID_GUID_F);
	if (!c->guid || !IB_LID_VALID(c->self.lid)) {
		fprintf(stderr, "%s: our port (GUID 0x%016" PRIx64 ", LID %d) "
			"is not configured by an SM yet\n", prog, c->guid,
			c->self.lid);
		goto fail;
	}
	if (ib_resolve_smlid_via(&c->sm, SA_TIMEOUT_MS, c->port) < 0) {
		fprintf(stderr, "%s: our PortInfo names no SM LID\n", prog);
		goto fail;
	}
	return 0;
fail:
	sa_client_close(c);
	return -1;
}

/* One SA request with component mask `mask` on record rec (answered in
 * place); `what` completes "the SA refused ..." in the message. */
static inline int sa_client_call(struct sa_client *c, unsigned method,
				 unsigned attr, uint64_t mask, uint8_t *rec,
				 const char *what)
{
	ib_rpc_v1_t rpc = { 0 };

	/* Version 1 of the rpc struct: mad_rpc then reports the MAD status
	 * and errno, which sa_rpc_call() keeps to itself. */
	rpc.mgtclass = IB_SA_CLASS | IB_MAD_RPC_VERSION1;
	rpc.method = method;
	rpc.attr.id = attr;
	rpc.mask = mask;
	rpc.dataoffs = IB_SA_DATA_OFFS;
	rpc.datasz = IB_SA_DATA_SIZE;
	rpc.trid = mad_trid();
	c->sm.qp = 1;
	c->sm.qkey = IB_DEFAULT_QP1_QKEY;
	if (mad_rpc(c->port, (ib_rpc_t *)&rpc, &c->sm, rec, rec))
		return 0;
	if (rpc.rstatus)
		fprintf(stderr, "%s: the SA (LID %d) refused %s: MAD status "
			"0x%04x (%s)\n", c->prog, c->sm.lid, what, rpc.rstatus,
			sa_status_text(rpc.rstatus));
	else
		fprintf(stderr, "%s: no answer from the SA (LID %d) after %d "
			"tries: %s\n", c->prog, c->sm.lid, SA_RETRIES,
			strerror(rpc.error ? rpc.error : EIO));
	return -1;
}

#endif
