/*
 * topo_write.c - a finalized fabric as an ibnetdiscover topology file.
 *
 * The output is ibnetdiscover's format cut down to what both ibsim and
 * topo_read.c read back to the same fabric:
 *   - a switchguid=/caguid= line before each node, so GUIDs never depend
 *     on ibsim's counters; node ids are "S-<guid>"/"H-<guid>", unique
 *     because node GUIDs are (checked before anything is written);
 *   - nodes in fabric order, each record ended by a blank line: ibsim
 *     swallows the line after a record listing fewer ports than the node
 *     has, and that line must not be the next GUID directive;
 *   - every link listed from both ends, as ibsim insists;
 *   - LIDs where both readers find them: `base port 0 lid N lmc M` after
 *     the switch description, `# lid N lmc M` first thing in a CA port
 *     comment, and every port comment ending in `lid N 4xQDR` - when the
 *     word lid follows the last quote ibsim wants a width and speed there:
 *     the link's as the fabric read gave them (fabric.h), 4x and QDR
 *     where none is known (a generated fabric);
 *   - loopback cables (fabric.h) from both ends, as ibsim serves them and
 *     OpenSM discovers them: the fabric read back lists them again;
 *   - no line longer than ibsim's 254 characters.
 * A description with a double quote or a line break cannot be quoted and
 * is an error.  In the peer descriptions of port lines (comments, never
 * read back) '=' is written as '-': ibsim takes `s=` there as an option.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ibrouting/topo_io.h"

#define IBSIM_MAX_LINE 254      /* ibsim reads lines into 256 bytes */

struct writer {
	const struct ibr_fabric *f;
	FILE *out;
	struct ibr_error *err;
};

static char id_letter(const struct ibr_node *n)
{
	return n->type == IBR_NODE_SWITCH ? 'S' : 'H';
}

/* Formats one line, refuses it if ibsim could not read it whole. */
static int put_line(struct writer *w, const struct ibr_node *n,
		    const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int put_line(struct writer *w, const struct ibr_node *n,
		    const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	int len;

	va_start(ap, fmt);
	len = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (len < 0 || len > IBSIM_MAX_LINE)
		return ibr_error_set(w->err, "node 0x%016llx \"%.60s\": a line "
				     "of its record would be %d characters, "
				     "ibsim reads at most %d (description too "
				     "long?)", (unsigned long long)n->guid,
				     n->desc, len, IBSIM_MAX_LINE);
	fputs(buf, w->out);
	fputc('\n', w->out);
	return 0;
}

/* "4xHDR": a port's link width and speed, 4x and QDR where unknown. */
static const char *rate_text(const struct ibr_port *port, char *buf,
			     size_t len)
{
	const char *speed = ibr_speed_name(port->speed);

	snprintf(buf, len, "%ux%s", port->width ? port->width : 4u,
		 speed ? speed : "QDR");
	return buf;
}

/* A peer description for a comment: '=' would read as a port option. */
static const char *comment_desc(const char *desc, char *buf, size_t len)
{
	size_t i;

	for (i = 0; desc[i] && i + 1 < len; i++)
		buf[i] = desc[i] == '=' ? '-' : desc[i];
	buf[i] = '\0';
	return buf;
}

/* The LID shown for a peer: its switch LID, or its CA port's base LID. */
static unsigned peer_lid(const struct ibr_fabric *f, uint32_t node,
			 unsigned port)
{
	if (f->nodes[node].type == IBR_NODE_SWITCH)
		port = 0;
	return ibr_port(f, node, port)->base_lid;
}

static int write_switch_port(struct writer *w, uint32_t i, unsigned p)
{
	const struct ibr_fabric *f = w->f;
	const struct ibr_port *port = ibr_port(f, i, p);
	const struct ibr_node *peer = &f->nodes[port->remote_node];
	char guid[24] = "", desc[300], rate[16];

	if (peer->type == IBR_NODE_CA)
		snprintf(guid, sizeof(guid), "(%llx) ", (unsigned long long)
			 ibr_port(f, port->remote_node, port->remote_port)->guid);
	return put_line(w, &f->nodes[i],
			"[%u]\t\"%c-%016llx\"[%u]%s\t\t# \"%s\" lid %u %s", p,
			id_letter(peer), (unsigned long long)peer->guid,
			port->remote_port, guid,
			comment_desc(peer->desc, desc, sizeof(desc)),
			peer_lid(f, port->remote_node, port->remote_port),
			rate_text(port, rate, sizeof(rate)));
}

static int write_ca_port(struct writer *w, uint32_t i, unsigned p)
{
	const struct ibr_fabric *f = w->f;
	const struct ibr_port *port = ibr_port(f, i, p);
	const struct ibr_node *peer = &f->nodes[port->remote_node];
	char desc[300], rate[16];

	return put_line(w, &f->nodes[i],
			"[%u](%llx) \t\"%c-%016llx\"[%u]\t\t# lid %u lmc %u "
			"\"%s\" lid %u %s", p, (unsigned long long)port->guid,
			id_letter(peer), (unsigned long long)peer->guid,
			port->remote_port, port->base_lid, port->lmc,
			comment_desc(peer->desc, desc, sizeof(desc)),
			peer_lid(f, port->remote_node, port->remote_port),
			rate_text(port, rate, sizeof(rate)));
}

/* A loopback cable of switch i at port p, if p has one: "[p] self[q]". */
static int write_loopback_port(struct writer *w, uint32_t i, unsigned p)
{
	const struct ibr_fabric *f = w->f;

	for (uint32_t k = 0; k < f->num_loopbacks; k++) {
		const struct ibr_loopback *l = &f->loopbacks[k];
		if (l->node != i || (l->port != p && l->peer_port != p))
			continue;
		return put_line(w, &f->nodes[i], "[%u]\t\"S-%016llx\"[%u]\t\t# "
				"loopback, left out of routing", p,
				(unsigned long long)f->nodes[i].guid,
				l->port == p ? l->peer_port : l->port);
	}
	return 0;
}

static int write_node(struct writer *w, uint32_t i)
{
	const struct ibr_fabric *f = w->f;
	const struct ibr_node *n = &f->nodes[i];
	const struct ibr_port *p0 = ibr_port(f, i, 0);
	bool sw = n->type == IBR_NODE_SWITCH;
	unsigned long long guid = (unsigned long long)n->guid;
	int rc;

	rc = sw ? put_line(w, n, "switchguid=0x%llx", guid) ||
		  put_line(w, n, "Switch\t%u \"S-%016llx\"\t\t# \"%s\" %s port 0 "
			   "lid %u lmc %u", n->num_ports, guid, n->desc,
			   f->lmc_esp0 ? "enhanced" : "base", p0->base_lid,
			   p0->lmc)
		: put_line(w, n, "caguid=0x%llx", guid) ||
		  put_line(w, n, "Ca\t%u \"H-%016llx\"\t\t# \"%s\"", n->num_ports,
			   guid, n->desc);
	for (unsigned p = 1; rc == 0 && p <= n->num_ports; p++)
		if (ibr_port(f, i, p)->remote_node != IBR_NONE)
			rc = sw ? write_switch_port(w, i, p)
				: write_ca_port(w, i, p);
		else if (sw)
			rc = write_loopback_port(w, i, p);
	if (rc == 0)
		fputc('\n', w->out);
	return rc ? -1 : 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Node ids are made of GUIDs, descriptions are quoted: both must hold. */
static int check_writable(struct writer *w)
{
	const struct ibr_fabric *f = w->f;
	uint64_t *guids;
	int rc = 0;

	if (!f->finalized)
		return ibr_error_set(w->err, "cannot write a fabric that is not "
				     "finalized (its LIDs are not assigned)");
	for (uint32_t i = 0; i < f->num_nodes; i++)
		if (strpbrk(f->nodes[i].desc, "\"\n\r"))
			return ibr_error_set(w->err, "node 0x%016llx: description "
					     "\"%.60s\" holds a double quote or "
					     "a line break, it cannot be "
					     "written", (unsigned long long)
					     f->nodes[i].guid, f->nodes[i].desc);
	guids = malloc((f->num_nodes ? f->num_nodes : 1) * sizeof(*guids));
	if (!guids)
		return ibr_error_set(w->err, "out of memory");
	for (uint32_t i = 0; i < f->num_nodes; i++)
		guids[i] = f->nodes[i].guid;
	qsort(guids, f->num_nodes, sizeof(*guids), cmp_u64);
	for (uint32_t i = 1; i < f->num_nodes && rc == 0; i++)
		if (guids[i] == guids[i - 1])
			rc = ibr_error_set(w->err, "two nodes have GUID 0x%016llx: "
					   "node ids \"S-/H-<guid>\" would clash",
					   (unsigned long long)guids[i]);
	free(guids);
	return rc;
}

int ibr_fabric_write_net(const struct ibr_fabric *f, FILE *out,
			 struct ibr_error *err)
{
	struct writer w = { f, out, err };

	if (check_writable(&w))
		return -1;
	fprintf(out, "#\n# Topology file written by ibrouting: %u switches, "
		"%u CA ports, %u nodes\n# ibnetdiscover format with GUIDs and "
		"LIDs; ibsim -s serves it as it is\n#\n\n", f->num_switches,
		f->num_end_ports, f->num_nodes);
	for (uint32_t i = 0; i < f->num_nodes; i++)
		if (write_node(&w, i))
			return -1;
	if (fflush(out) || ferror(out))
		return ibr_error_set(err, "write error on the topology file");
	return 0;
}
