/*
 * fts_read.c - the LFTs of a live fabric as dump_fts (infiniband-diags)
 * prints them, read onto a fabric known from elsewhere (see dump.h).
 *
 *   Unicast lids [0x0-0xf] of switch DR path slid 0; dlid 0; 0,1 guid
 *       0x000000000020000a (desc):        (one line; or "switch Lid N guid")
 *     Lid  Out   Destination
 *          Port     Info
 *   0x0001 001 : (Switch portguid 0x0000000000200001: 'desc')
 *   0x0004 001 : (Channel Adapter portguid 0x0000000000100401: 'desc')
 *   15 valid lids dumped
 *
 * Invariants: every switch of the fabric has exactly one section and
 * every section names a switch of the fabric; every entry lies in its
 * section's LID range and names a port of its switch (255: no path);
 * an entry whose comment names a port GUID must find that port owning
 * the LID in the fabric, so tables read onto a fabric with other LIDs
 * (a net file whose LIDs were not OpenSM's) are refused, not misjudged.
 * LIDs dump_fts prints no entry for are IBR_NO_PATH; so are those -a
 * prints with port 255, and LID 0 (-a prints it: "illegal port").
 * Multicast sections (-M) are skipped: multicast is not routed here.
 * Every error is "FILE:LINE: ..."; on error r is freed.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ibrouting/dump.h"
#include "util/lines.h"

struct fts_reader {
	const struct ibr_fabric *f;
	struct ibr_result *r;
	struct ibr_lines l;
	struct ibr_error *err;
	unsigned *section_line;  /* per switch index: its header, 0 = none */
	uint32_t sw;             /* section open, IBR_NONE = none */
	bool multicast;          /* in a -M section, skipped */
	unsigned first, last;    /* its LID range */
};

static int fail(struct fts_reader *rd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int fail(struct fts_reader *rd, const char *fmt, ...)
{
	char msg[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return ibr_error_set(rd->err, "%s:%u: %s", rd->l.name, rd->l.lineno,
			     msg);
}

static int header(struct fts_reader *rd, const char *line)
{
	const char *g = strstr(line, " guid 0x");
	unsigned first, last;
	uint64_t guid;
	uint32_t n;
	char *end;

	if (rd->sw != IBR_NONE)
		return fail(rd, "the section of switch 0x%016" PRIx64 " (line %u) "
			    "has no \"lids dumped\" line", ibr_switch(rd->f,
			    rd->sw)->guid, rd->section_line[rd->sw]);
	if (sscanf(line, "Unicast lids [0x%x-0x%x]", &first, &last) != 2 || !g)
		return fail(rd, "expected \"Unicast lids [0x<first>-0x<last>] "
			    "of switch ... guid 0x<guid> (<desc>):\"");
	errno = 0;
	guid = strtoull(g + 8, &end, 16);
	if (end == g + 8 || errno || guid == 0)
		return fail(rd, "expected a non-zero switch GUID after \"guid\"");
	if (first > last || last > IBR_MAX_UCAST_LID)
		return fail(rd, "LID range 0x%x-0x%x is not in the unicast LID "
			    "space", first, last);
	n = ibr_fabric_find_guid(rd->f, guid);
	if (n == IBR_NONE || rd->f->nodes[n].type != IBR_NODE_SWITCH)
		return fail(rd, "0x%016" PRIx64 " is not a switch of the fabric "
			    "(the topology must be the fabric dump_fts read)",
			    guid);
	rd->sw = rd->f->nodes[n].sw_index;
	if (rd->section_line[rd->sw])
		return fail(rd, "second section of switch 0x%016" PRIx64 " (the "
			    "first is at line %u)", guid,
			    rd->section_line[rd->sw]);
	rd->section_line[rd->sw] = rd->l.lineno;
	rd->first = first;
	rd->last = last;
	return 0;
}

/* The port GUID a comment names must own the LID in the fabric. */
static int check_owner(struct fts_reader *rd, unsigned lid, const char *c)
{
	const struct ibr_fabric *f = rd->f;
	const struct ibr_lid_owner *o;
	uint64_t guid;
	char *end;

	errno = 0;
	guid = strtoull(c + 11, &end, 16);
	if (end == c + 11 || errno)
		return fail(rd, "expected a port GUID after \"portguid\"");
	o = lid <= f->max_lid ? &f->lid_owner[lid] : NULL;
	if (!o || o->node == IBR_NONE)
		return fail(rd, "LID %u belongs to port 0x%016" PRIx64 " here but "
			    "to no port of the fabric (were its LIDs OpenSM's? "
			    "ibnetdiscover's output has them)", lid, guid);
	if (ibr_port(f, o->node, o->port)->guid != guid)
		return fail(rd, "LID %u belongs to port 0x%016" PRIx64 " here but "
			    "to port 0x%016" PRIx64 " in the fabric (were its "
			    "LIDs OpenSM's? ibnetdiscover's output has them)",
			    lid, guid, ibr_port(f, o->node, o->port)->guid);
	return 0;
}

static int entry(struct fts_reader *rd, const char *line)
{
	const struct ibr_node *n;
	unsigned lid, port;
	const char *c;
	int end = 0;

	if (rd->sw == IBR_NONE)
		return fail(rd, "LFT entry outside a switch's section");
	if (sscanf(line, "0x%x %u%n", &lid, &port, &end) != 2 || end == 0 ||
	    (line[end] != '\0' && line[end] != ' '))
		return fail(rd, "expected \"0x<lid> <port> : (...)\"");
	n = ibr_switch(rd->f, rd->sw);
	if (lid == 0 && port == IBR_NO_PATH)
		return 0; /* -a lists LID 0, which no packet is sent to */
	if (lid < rd->first || lid > rd->last || lid == 0)
		return fail(rd, "LID 0x%04x outside the section's range "
			    "0x%x-0x%x", lid, rd->first, rd->last);
	if (port > n->num_ports && port != IBR_NO_PATH)
		return fail(rd, "LID 0x%04x goes to port %u but switch 0x%016"
			    PRIx64 " has %u ports", lid, port, n->guid,
			    n->num_ports);
	if (lid < rd->r->num_lids)
		ibr_set_entry(rd->r, rd->sw, lid, (uint8_t)port);
	c = strstr(line + end, "portguid 0x");
	return c ? check_owner(rd, lid, c) : 0;
}

static bool table_heading(const char *line)
{
	const char *p = line + strspn(line, " \t");

	return strncmp(p, "Lid  Out", 8) == 0 || strncmp(p, "Port     Info", 13) == 0;
}

static int one_line(struct fts_reader *rd)
{
	const char *line = rd->l.line;
	unsigned count;
	int end = 0;

	if (line[strspn(line, " \t")] == '\0' || table_heading(line))
		return 0;
	if (strncmp(line, "Multicast mlids [", 17) == 0) {
		if (rd->sw != IBR_NONE)
			return fail(rd, "a multicast section inside the unicast "
				    "section of line %u", rd->section_line[rd->sw]);
		rd->multicast = true;
		return 0;
	}
	if (rd->multicast) {
		if (sscanf(line, "%u valid mlids dumped%n", &count, &end) == 1 &&
		    end > 0)
			rd->multicast = false;
		return 0;
	}
	if (strncmp(line, "Unicast lids [", 14) == 0)
		return header(rd, line);
	if (strncmp(line, "0x", 2) == 0)
		return entry(rd, line);
	/* "N valid lids dumped", or "N lids dumped" with -a */
	if ((sscanf(line, "%u valid lids dumped%n", &count, &end) == 1 &&
	     end > 0) ||
	    (sscanf(line, "%u lids dumped%n", &count, &end) == 1 && end > 0)) {
		if (rd->sw == IBR_NONE)
			return fail(rd, "\"lids dumped\" outside a switch's section");
		rd->sw = IBR_NONE;
		return 0;
	}
	return fail(rd, "expected a dump_fts line (\"Unicast lids ...\", "
		    "\"0x<lid> <port> : ...\", \"N valid lids dumped\")");
}

int ibr_fts_read(FILE *in, const char *name, const struct ibr_fabric *f,
		 struct ibr_result *r, struct ibr_error *err)
{
	struct fts_reader rd = { .f = f, .r = r, .err = err, .sw = IBR_NONE };
	struct ibr_error e = { "" };
	int more, rc = -1;

	memset(r, 0, sizeof(*r));
	ibr_lines_init(&rd.l, in, name);
	rd.section_line = calloc(f->num_switches, sizeof(unsigned));
	if (!rd.section_line || ibr_result_init(r, f, &e)) {
		ibr_error_set(err, "%s: %s", name, e.msg[0] ? e.msg :
			      "out of memory");
		goto out;
	}
	while ((more = ibr_lines_next(&rd.l, err)) > 0)
		if (one_line(&rd))
			goto out;
	if (more < 0)
		goto out;
	if (rd.sw != IBR_NONE || rd.multicast) {
		if (rd.multicast) {
			fail(&rd, "truncated: a multicast section has no \"valid "
			     "mlids dumped\" line");
			goto out;
		}
		fail(&rd, "truncated: the section of switch 0x%016" PRIx64
		     " (line %u) has no \"lids dumped\" line",
		     ibr_switch(f, rd.sw)->guid, rd.section_line[rd.sw]);
		goto out;
	}
	for (uint32_t s = 0; s < f->num_switches; s++)
		if (!rd.section_line[s]) {
			ibr_error_set(err, "%s: switch 0x%016" PRIx64 " \"%s\" "
				      "has no section (dump_fts read another "
				      "fabric, or could not reach it)", name,
				      ibr_switch(f, s)->guid,
				      ibr_switch(f, s)->desc);
			goto out;
		}
	rc = 0;
out:
	if (rc)
		ibr_result_free(r);
	ibr_lines_free(&rd.l);
	free(rd.section_line);
	return rc;
}
