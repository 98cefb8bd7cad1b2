/*
 * dump_read.c - OpenSM's routing dumps, read back (see dump.h).
 *
 * Reads opensm-subnet.lst (the fabric) and opensm-lfts.dump (the tables)
 * as OpenSM 3.3's osm_dump.c writes them, or as dump_write.c does.
 *
 * Invariants:
 *   - a node is created the first time its NodeGUID appears in the subnet
 *     list; later records of it must agree on type, port count, LIDs and
 *     port GUIDs, and links must agree from both ends (ibr_fabric_connect).
 *     Nodes' origins are "<path>:<line>" of their first record.
 *   - the subnet list gives base LIDs only, and no file of OpenSM's gives
 *     the LMC (dump.h says where it comes from).  A switch's LMC is log2
 *     of the number of consecutive LIDs from its base that the LFT dump's
 *     comments name with its port GUID; one with more than one LID turns
 *     lmc_esp0 on.  Every CA port gets the subnet's LMC when it is known
 *     (the caller's, else ibrouting-dlids.dump's), and then no port may
 *     have more LIDs named or a base not aligned to it.  Otherwise a CA
 *     port's LMC is that of its own run of named LIDs, raised to the
 *     longest run's where that range fits (aligned, unnamed by others).
 *     Neither the LFTs' top LID nor gaps between LIDs tell the LMC: OpenSM
 *     keeps the top and the LIDs ports had under an earlier LMC.  LIDs are
 *     fixed with ibr_fabric_set_lid() before ibr_fabric_finalize(), so the
 *     fabric's LIDs are exactly OpenSM's.
 *   - every switch of the subnet list has exactly one LFT section, every
 *     LFT section names a switch of the subnet list with the same LID, and
 *     every port GUID an LFT comment names owns that LID after finalize.
 *   - LFT entries missing from the dump are IBR_NO_PATH; entries for LIDs
 *     above the fabric's highest LID (owned by nobody) are dropped.
 *   - on failure nothing is returned: *fp is NULL and *r zeroed.
 *   - a link line's PHY= and SPD= (osm_rates.h) are the link's width and
 *     speed as its first port sees it (each end has its own line), kept
 *     for what is written of the fabric; "??" is unknown.
 *   - a router's record (Rt) is a CA's: an end port, as the plugin takes
 *     OpenSM's routers; a NodeGUID or PortGUID of 0 is refused.
 * Lines come through util/lines.h, within its limits; a failed
 * allocation is an error naming the file, never a shorter file.
 * Every error names the file and line it was found at.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ibrouting/dump.h"
#include "ibrouting/guid_map.h"
#include "osm_rates.h"
#include "util/lines.h"

/* ---- reader state --------------------------------------------------- */

struct lft_row {
	uint8_t *port;           /* [0 .. len), IBR_NO_PATH = no entry */
	unsigned len;
	unsigned line;           /* header line, 0 = no section seen */
};

struct lid_name {
	uint64_t guid;           /* port GUID the LFT comment names */
	unsigned line;           /* 0 = never named */
};

struct reader {
	struct ibr_fabric *f;
	struct ibr_error *err;
	char path[4096];         /* file being read, for messages */
	unsigned line;
	struct ibr_guid_map ports; /* port GUID -> node id << 8 | port */
	struct lft_row *rows;    /* per node id (switches only) */
	uint32_t rows_cap;
	struct lid_name *names;  /* per LID */
	unsigned names_cap;
};

/* "<path>:<line>: <message>" into rd->err.  Returns -1. */
static int fail(struct reader *rd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int fail(struct reader *rd, const char *fmt, ...)
{
	char msg[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return ibr_error_set(rd->err, "%s:%u: %s", rd->path, rd->line, msg);
}

static FILE *open_in(struct reader *rd, const char *dir, const char *name)
{
	FILE *in;

	snprintf(rd->path, sizeof(rd->path), "%s/%s", dir, name);
	rd->line = 0;
	in = fopen(rd->path, "r");
	if (!in)
		ibr_error_set(rd->err, "%s: cannot open: %s", rd->path,
			      strerror(errno));
	return in;
}

/* 1: the next line is in l->line, line end stripped; 0: end of file;
 * -1: an error naming the file and line (lines.h: limits, memory). */
static int next_line(struct reader *rd, struct ibr_lines *l)
{
	int rc = ibr_lines_next(l, rd->err);

	rd->line = l->lineno;
	return rc;
}

static bool blank(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return *s == '\0';
}

/* Shows at most 40 bytes of where parsing stopped. */
static const char *found(const char *p, char buf[48])
{
	if (*p == '\0')
		return "the end of the line";
	snprintf(buf, 48, "\"%.40s%s\"", p, strlen(p) > 40 ? "..." : "");
	return buf;
}

/* ---- opensm-subnet.lst ---------------------------------------------- */

struct port_rec {
	bool sw, sm;
	unsigned num_ports, lid, port;
	uint64_t node_guid, port_guid;
	char *desc;              /* inside the line buffer */
};

static void skip_spaces(char **p)
{
	while (**p == ' ' || **p == '\t')
		(*p)++;
}

/* Skips blanks, then expects the literal `lit`. */
static int expect(struct reader *rd, char **p, const char *lit,
		  const char *which)
{
	char buf[48];
	size_t n = strlen(lit);

	skip_spaces(p);
	if (strncmp(*p, lit, n) != 0)
		return fail(rd, "%s: expected \"%s\", found %s", which, lit,
			    found(*p, buf));
	*p += n;
	return 0;
}

/* "<key><hex digits>" ending at a blank, '}' or the end of the line. */
static int hex_field(struct reader *rd, char **p, const char *key,
		     uint64_t max, uint64_t *v, const char *which)
{
	char *end, buf[48];
	const char *start;

	if (expect(rd, p, key, which))
		return -1;
	start = *p;
	errno = 0;
	*v = strtoull(start, &end, 16);
	if (end == start || !strchr(" \t}", *end) || *start == '-' ||
	    *start == '+' || errno || *v > max)
		return fail(rd, "%s: bad %s value %s (hex up to 0x%" PRIX64
			    " expected)", which, key, found(start, buf), max);
	*p = end;
	return 0;
}

/* GUID 0 names no node or port: refused as on the command line. */
static int nonzero_guid(struct reader *rd, uint64_t guid, const char *key,
			const char *which)
{
	if (guid == 0)
		return fail(rd, "%s: %s 0 is no GUID: expected a non-zero GUID",
			    which, key);
	return 0;
}

/* One "{ SW Ports:08 SystemGUID:... {desc} LID:0001 PN:03 }" record. */
static int parse_port_rec(struct reader *rd, char **p, struct port_rec *rec,
			  const char *which)
{
	uint64_t v;
	char *close, buf[48];

	if (expect(rd, p, "{", which))
		return -1;
	skip_spaces(p);
	if (strncmp(*p, "SW", 2) == 0)
		rec->sw = true;
	else if (strncmp(*p, "CA", 2) == 0)
		rec->sw = false;
	else if (strncmp(*p, "Rt", 2) == 0)
		rec->sw = false; /* an end port, as the plugin takes routers */
	else
		return fail(rd, "%s: expected node type SW or CA, found %s",
			    which, found(*p, buf));
	*p += 2;
	rec->sm = strncmp(*p, "-SM", 3) == 0;
	if (rec->sm)
		*p += 3;
	if (**p != ' ' && **p != '\t')
		return fail(rd, "%s: bad node type %s", which, found(*p - 2, buf));

	if (hex_field(rd, p, "Ports:", IBR_MAX_PORTS, &v, which))
		return -1;
	rec->num_ports = (unsigned)v;
	if (rec->num_ports == 0)
		return fail(rd, "%s: node has 0 ports", which);
	if (hex_field(rd, p, "SystemGUID:", UINT64_MAX, &v, which) ||
	    hex_field(rd, p, "NodeGUID:", UINT64_MAX, &rec->node_guid, which) ||
	    nonzero_guid(rd, rec->node_guid, "NodeGUID", which) ||
	    hex_field(rd, p, "PortGUID:", UINT64_MAX, &rec->port_guid, which) ||
	    nonzero_guid(rd, rec->port_guid, "PortGUID", which) ||
	    hex_field(rd, p, "VenID:", UINT32_MAX, &v, which) ||
	    hex_field(rd, p, "DevID:", UINT32_MAX, &v, which) ||
	    hex_field(rd, p, "Rev:", UINT32_MAX, &v, which) ||
	    expect(rd, p, "{", which))
		return -1;
	close = strstr(*p, "} LID:");
	if (!close)
		return fail(rd, "%s: node description not closed by \"} LID:\"",
			    which);
	rec->desc = *p;
	*close = '\0';
	*p = close + 1;
	if (hex_field(rd, p, "LID:", 0xFFFF, &v, which))
		return -1;
	rec->lid = (unsigned)v;
	if (hex_field(rd, p, "PN:", 0xFF, &v, which))
		return -1;
	rec->port = (unsigned)v;
	if (rec->port < 1 || rec->port > rec->num_ports)
		return fail(rd, "%s: PN:%02X is not a port of a node with %u "
			    "ports", which, rec->port, rec->num_ports);
	if (rec->lid == 0 || rec->lid > IBR_MAX_UCAST_LID)
		return fail(rd, "%s: LID 0x%04X is not a unicast LID", which,
			    rec->lid);
	return expect(rd, p, "}", which);
}

static const char *kind(bool sw)
{
	return sw ? "switch" : "CA";
}

/* The node of a record, created on first sight, checked afterwards. */
static uint32_t record_node(struct reader *rd, const struct port_rec *rec,
			    const char *which)
{
	struct ibr_fabric *f = rd->f;
	uint32_t n = ibr_fabric_find_guid(rd->f, rec->node_guid);
	unsigned lid_port = rec->sw ? 0 : rec->port;
	struct ibr_port *lp;
	char origin[4200], where[16] = "";

	if (n == IBR_NONE) {
		struct ibr_error e = { "" };
		if (ibr_read_limit(f->num_nodes, f->num_ports, rec->num_ports)) {
			fail(rd, "%s", ibr_read_limit(f->num_nodes, f->num_ports,
						      rec->num_ports));
			return IBR_NONE;
		}
		snprintf(origin, sizeof(origin), "%s:%u", rd->path, rd->line);
		n = ibr_fabric_add_node(f, rec->sw ? IBR_NODE_SWITCH : IBR_NODE_CA,
					rec->node_guid, rec->num_ports, rec->desc,
					origin, &e);
		if (n == IBR_NONE) {
			fail(rd, "%s", e.msg);
			return IBR_NONE;
		}
		if (rec->sw) /* every port of a switch has port 0's GUID */
			for (unsigned p = 0; p <= rec->num_ports; p++)
				ibr_port(f, n, p)->guid = rec->port_guid;
	} else {
		const struct ibr_node *node = &f->nodes[n];
		if ((node->type == IBR_NODE_SWITCH) != rec->sw ||
		    node->num_ports != rec->num_ports) {
			fail(rd, "%s: node 0x%016" PRIx64 " is a %s with %u ports "
			     "here but a %s with %u ports at %s", which,
			     rec->node_guid, kind(rec->sw), rec->num_ports,
			     kind(node->type == IBR_NODE_SWITCH),
			     node->num_ports, node->origin);
			return IBR_NONE;
		}
	}
	if (!rec->sw)
		snprintf(where, sizeof(where), " port %u", rec->port);
	lp = ibr_port(f, n, lid_port);
	if (lp->base_lid == 0) {
		/* first record of this LID holder: its GUID and LID */
		uint32_t holder = ibr_guid_map_get(&rd->ports, rec->port_guid);
		if (holder != IBR_NONE) {
			fail(rd, "%s: port GUID 0x%016" PRIx64 " of %s 0x%016"
			     PRIx64 "%s is also a port of node 0x%016" PRIx64,
			     which, rec->port_guid, kind(rec->sw), rec->node_guid,
			     where, f->nodes[holder >> 8].guid);
			return IBR_NONE;
		}
		if (ibr_guid_map_put(&rd->ports, rec->port_guid, n << 8 | lid_port)) {
			fail(rd, "out of memory");
			return IBR_NONE;
		}
		lp->guid = rec->port_guid;
		lp->base_lid = rec->lid;
	} else if (lp->guid != rec->port_guid || lp->base_lid != rec->lid) {
		fail(rd, "%s: %s 0x%016" PRIx64 "%s has port GUID 0x%016" PRIx64
		     " LID 0x%04X here but port GUID 0x%016" PRIx64 " LID 0x%04X "
		     "before", which, kind(rec->sw), rec->node_guid, where,
		     rec->port_guid, rec->lid, lp->guid, lp->base_lid);
		return IBR_NONE;
	}
	if (rec->sm) {
		f->sm_node = n;
		f->sm_port = lid_port;
	}
	return n;
}

/* The rest of a link line, "PHY=4x LOG=ACT SPD=10" (osm_rates.h): the
 * link's width and speed at the line's first port, kept for what is
 * written of the fabric (no bearing on routing; a word missing or
 * unknown leaves it unknown). */
static void read_link_rate(struct ibr_fabric *f, uint32_t node, unsigned port,
			   const char *p)
{
	unsigned width = 0;
	enum ibr_link_speed speed = IBR_SPEED_UNKNOWN;

	for (;;) {
		size_t n;
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p)
			break;
		n = strcspn(p, " \t");
		if (n > 4 && strncmp(p, "PHY=", 4) == 0)
			width = osm_width_parse(p + 4, n - 4);
		else if (n > 4 && strncmp(p, "SPD=", 4) == 0)
			speed = osm_speed_parse(p + 4, n - 4);
		p += n;
	}
	ibr_fabric_set_rate(f, node, port, width, speed);
}

static int read_subnet_lst(struct reader *rd, const char *dir)
{
	FILE *in = open_in(rd, dir, "opensm-subnet.lst");
	struct ibr_lines l;
	int rc = -1, more;

	if (!in)
		return -1;
	ibr_lines_init(&l, in, rd->path);
	while ((more = next_line(rd, &l)) > 0) {
		struct ibr_error e = { "" };
		struct port_rec a, b;
		uint32_t na, nb;
		char *buf = l.line, *p = buf;

		if (blank(buf))
			continue;
		if (parse_port_rec(rd, &p, &a, "first port") ||
		    parse_port_rec(rd, &p, &b, "second port"))
			goto out;
		na = record_node(rd, &a, "first port");
		if (na == IBR_NONE)
			goto out;
		nb = record_node(rd, &b, "second port");
		if (nb == IBR_NONE)
			goto out;
		if (ibr_fabric_connect(rd->f, na, a.port, nb, b.port, &e)) {
			fail(rd, "link 0x%016" PRIx64 "[%u] - 0x%016" PRIx64
			     "[%u]: %s", a.node_guid, a.port, b.node_guid,
			     b.port, e.msg);
			goto out;
		}
		read_link_rate(rd->f, na, a.port, p);
	}
	if (more < 0)
		goto out;
	if (rd->f->num_nodes == 0) {
		ibr_error_set(rd->err, "%s: no links: empty subnet list",
			      rd->path);
		goto out;
	}
	rc = 0;
out:
	ibr_lines_free(&l);
	fclose(in);
	return rc;
}

/* ---- opensm-lfts.dump ----------------------------------------------- */

static int grow_rows(struct reader *rd)
{
	uint32_t n = rd->f->num_nodes;
	struct lft_row *rows;

	if (n <= rd->rows_cap)
		return 0;
	rows = realloc(rd->rows, n * sizeof(*rows));
	if (!rows)
		return fail(rd, "out of memory");
	memset(rows + rd->rows_cap, 0, (n - rd->rows_cap) * sizeof(*rows));
	rd->rows = rows;
	rd->rows_cap = n;
	return 0;
}

/* Records that the comment of an LFT line names port GUID `guid` for lid. */
static int name_lid(struct reader *rd, unsigned lid, uint64_t guid)
{
	struct lid_name *nm;

	if (ibr_guid_map_get(&rd->ports, guid) == IBR_NONE)
		return fail(rd, "LID 0x%04x: port GUID 0x%016" PRIx64 " is not "
			    "in opensm-subnet.lst", lid, guid);
	if (lid >= rd->names_cap) {
		unsigned cap = rd->names_cap ? rd->names_cap : 1024;
		while (cap <= lid)
			cap *= 2;
		nm = realloc(rd->names, cap * sizeof(*nm));
		if (!nm)
			return fail(rd, "out of memory");
		memset(nm + rd->names_cap, 0, (cap - rd->names_cap) * sizeof(*nm));
		rd->names = nm;
		rd->names_cap = cap;
	}
	nm = &rd->names[lid];
	if (nm->line && nm->guid != guid)
		return fail(rd, "LID 0x%04x is named for port 0x%016" PRIx64
			    " here but for port 0x%016" PRIx64 " at line %u",
			    lid, guid, nm->guid, nm->line);
	if (!nm->line) {
		nm->guid = guid;
		nm->line = rd->line;
	}
	return 0;
}

/* "Unicast lids [0-11] of switch Lid 1 guid 0x... ('desc'):" */
static int lft_header(struct reader *rd, const char *line, uint32_t *sw)
{
	unsigned max_lid, lid;
	uint64_t guid;
	uint32_t n;
	struct lft_row *row;
	int end = 0;

	if (sscanf(line, "Unicast lids [0-%u] of switch Lid %u guid 0x%" SCNx64
		   " (%n", &max_lid, &lid, &guid, &end) != 3 || end == 0)
		return fail(rd, "bad LFT header, expected \"Unicast lids [0-<max>]"
			    " of switch Lid <lid> guid 0x<guid> ('<desc>'):\"");
	if (max_lid > IBR_MAX_UCAST_LID)
		return fail(rd, "max LID %u beyond the unicast LID space", max_lid);
	n = ibr_fabric_find_guid(rd->f, guid);
	if (n == IBR_NONE)
		return fail(rd, "switch 0x%016" PRIx64 " is not in "
			    "opensm-subnet.lst", guid);
	if (rd->f->nodes[n].type != IBR_NODE_SWITCH)
		return fail(rd, "node 0x%016" PRIx64 " has an LFT but is a CA in "
			    "opensm-subnet.lst", guid);
	if (ibr_port(rd->f, n, 0)->base_lid != lid)
		return fail(rd, "switch 0x%016" PRIx64 " has LID %u here but "
			    "LID %u in opensm-subnet.lst", guid, lid,
			    ibr_port(rd->f, n, 0)->base_lid);
	row = &rd->rows[n];
	if (row->line)
		return fail(rd, "second LFT of switch 0x%016" PRIx64 " (the first "
			    "is at line %u)", guid, row->line);
	row->len = max_lid + 1;
	row->port = malloc(row->len);
	if (!row->port)
		return fail(rd, "out of memory");
	memset(row->port, IBR_NO_PATH, row->len);
	row->line = rd->line;
	*sw = n;
	return 0;
}

/* "0x0004 001 # Channel Adapter portguid 0x...: 'desc'" */
static int lft_entry(struct reader *rd, const char *line, uint32_t sw)
{
	struct lft_row *row = &rd->rows[sw];
	const struct ibr_node *n = &rd->f->nodes[sw];
	unsigned lid, port;
	const char *c;
	int end = 0;

	if (sscanf(line, "0x%x %u %n", &lid, &port, &end) != 2 || end == 0 ||
	    line[end] != '#')
		return fail(rd, "bad LFT entry, expected \"0x<lid> <port> # ...\"");
	if (lid == 0 || lid >= row->len)
		return fail(rd, "LID 0x%04x outside the header's range 1..%u", lid,
			    row->len - 1);
	if (port > n->num_ports)
		return fail(rd, "LID 0x%04x goes to port %u but switch 0x%016"
			    PRIx64 " has %u ports", lid, port, n->guid,
			    n->num_ports);
	if (row->port[lid] != IBR_NO_PATH)
		return fail(rd, "second entry for LID 0x%04x", lid);
	row->port[lid] = (uint8_t)port;
	c = strstr(line + end, "portguid 0x");
	if (c) {
		uint64_t guid;
		char *e;
		errno = 0;
		guid = strtoull(c + 11, &e, 16);
		if (e == c + 11 || errno)
			return fail(rd, "bad port GUID in the comment");
		return name_lid(rd, lid, guid);
	}
	return 0;
}

static int read_lfts(struct reader *rd, const char *dir)
{
	FILE *in = open_in(rd, dir, "opensm-lfts.dump");
	uint32_t sw = IBR_NONE;   /* section being read, IBR_NONE = none */
	struct ibr_lines l;
	int rc = -1, more;

	if (!in)
		return -1;
	ibr_lines_init(&l, in, rd->path);
	if (grow_rows(rd))
		goto out;
	while ((more = next_line(rd, &l)) > 0) {
		const char *buf = l.line;
		unsigned count;
		int end = 0;

		if (blank(buf))
			continue;
		if (strncmp(buf, "Unicast lids ", 13) == 0) {
			if (sw != IBR_NONE) {
				fail(rd, "LFT of switch 0x%016" PRIx64 " (line %u) "
				     "has no \"lids dumped\" line",
				     rd->f->nodes[sw].guid, rd->rows[sw].line);
				goto out;
			}
			if (lft_header(rd, buf, &sw))
				goto out;
		} else if (strncmp(buf, "0x", 2) == 0) {
			if (sw == IBR_NONE) {
				fail(rd, "LFT entry outside a switch's section");
				goto out;
			}
			if (lft_entry(rd, buf, sw))
				goto out;
		} else if (sscanf(buf, "%u lids dumped%n", &count, &end) == 1 &&
			   end > 0 && blank(buf + end)) {
			if (sw == IBR_NONE) {
				fail(rd, "\"lids dumped\" outside a switch's section");
				goto out;
			}
			if (count + 1 != rd->rows[sw].len) {
				fail(rd, "%u lids dumped, but the header says %u",
				     count, rd->rows[sw].len - 1);
				goto out;
			}
			sw = IBR_NONE;
		} else {
			char shown[48];
			fail(rd, "unrecognized line %s", found(buf, shown));
			goto out;
		}
	}
	if (more < 0)
		goto out;
	if (sw != IBR_NONE) {
		fail(rd, "truncated: the LFT of switch 0x%016" PRIx64 " (line %u) "
		     "has no \"lids dumped\" line", rd->f->nodes[sw].guid,
		     rd->rows[sw].line);
		goto out;
	}
	for (uint32_t n = 0; n < rd->f->num_nodes; n++)
		if (rd->f->nodes[n].type == IBR_NODE_SWITCH && !rd->rows[n].line) {
			ibr_error_set(rd->err, "%s: switch 0x%016" PRIx64 " \"%s\" "
				      "of %s has no LFT", rd->path,
				      rd->f->nodes[n].guid, rd->f->nodes[n].desc,
				      rd->f->nodes[n].origin);
			goto out;
		}
	rc = 0;
out:
	ibr_lines_free(&l);
	fclose(in);
	return rc;
}

/* ---- LMC, finalize, tables ------------------------------------------ */

/* LIDs from `base` on named for port GUID `guid`, counted. */
static unsigned named_run(const struct reader *rd, unsigned base, uint64_t guid)
{
	unsigned n = 0;

	while (base + n < rd->names_cap && rd->names[base + n].line &&
	       rd->names[base + n].guid == guid)
		n++;
	return n;
}

/* No LFT names a LID of [from, to). */
static bool lids_unnamed(const struct reader *rd, unsigned from, unsigned to)
{
	for (unsigned lid = from; lid < to && lid < rd->names_cap; lid++)
		if (rd->names[lid].line)
			return false;
	return true;
}

/* A port's range may end in LIDs no switch routes (a multi-LID engine's
 * unused renamed LIDs have IBR_NO_PATH everywhere, and OpenSM's dump
 * prints no entry for them): a run of n named LIDs stands for the
 * 2^ceil(lg n) LIDs of an aligned range whose rest nobody names. */
static int port_lmc(struct reader *rd, const struct ibr_port *port,
		    unsigned *lmc)
{
	unsigned run = named_run(rd, port->base_lid, port->guid);

	*lmc = 0;
	while ((1u << *lmc) < run && *lmc < IBR_MAX_LMC)
		++*lmc;
	if (run > 1 && (run > 1u << *lmc || port->base_lid % (1u << *lmc) ||
			!lids_unnamed(rd, port->base_lid + run,
				      port->base_lid + (1u << *lmc)))) {
		rd->line = rd->names[port->base_lid].line;
		return fail(rd, "port 0x%016" PRIx64 " owns %u consecutive LIDs "
			    "from %u: not 2^LMC, and LIDs %u..%u are no aligned "
			    "range of its own", port->guid, run, port->base_lid,
			    port->base_lid, port->base_lid + (1u << *lmc) - 1);
	}
	return 0;
}

/* The subnet's LMC known (`given`; `source` says from where, for the
 * message): every CA port gets it, and the dump must not contradict it. */
static int set_given_lmc(struct reader *rd, const char *dir, unsigned given,
			 const char *source)
{
	struct ibr_fabric *f = rd->f;
	unsigned count = 1u << given;

	for (uint32_t n = 0; n < f->num_nodes; n++) {
		if (f->nodes[n].type == IBR_NODE_SWITCH)
			continue;
		for (unsigned p = 1; p <= f->nodes[n].num_ports; p++) {
			struct ibr_port *port = ibr_port(f, n, p);
			unsigned run;
			if (port->base_lid == 0)
				continue;
			run = named_run(rd, port->base_lid, port->guid);
			if (run > count || port->base_lid % count)
				return ibr_error_set(rd->err, "%s: LMC %u%s does "
						     "not fit OpenSM's LIDs in it: "
						     "port 0x%016" PRIx64 " has base "
						     "LID %u%s%u", dir, given, source,
						     port->guid, port->base_lid,
						     run > count ? " and LIDs named "
						     "up to +" : ", not a multiple of ",
						     run > count ? run - 1 : count);
			ibr_fabric_set_lid(f, n, p, port->base_lid, given);
		}
	}
	return 0;
}

/* The LMCs: switches' from their runs of named LIDs; CA ports' the
 * subnet's when given (>= 0), else from the runs: every CA port whose
 * range the longest run's LMC fits, aligned and unnamed by others, gets
 * it (OpenSM gives all CA ports one LMC, and a port whose upper LIDs no
 * switch routes shows a shorter run). */
static int set_lmcs(struct reader *rd, const char *dir, int given,
		    const char *source, unsigned *subnet_lmc)
{
	struct ibr_fabric *f = rd->f;

	*subnet_lmc = given >= 0 ? (unsigned)given : 0;
	for (int pass = 0; pass < 2; pass++) {
		/* pass 0: each port's own run; pass 1: the longest run's */
		for (uint32_t n = 0; n < f->num_nodes; n++) {
			bool sw = f->nodes[n].type == IBR_NODE_SWITCH;
			unsigned last = sw ? 0u : f->nodes[n].num_ports;
			for (unsigned p = sw ? 0 : 1; p <= last; p++) {
				struct ibr_port *port = ibr_port(f, n, p);
				unsigned lmc, want = *subnet_lmc, run;
				if (port->base_lid == 0 || (!sw && given >= 0))
					continue;
				if (port_lmc(rd, port, &lmc))
					return -1;
				run = named_run(rd, port->base_lid, port->guid);
				if (pass == 1 && !sw && lmc < want &&
				    port->base_lid % (1u << want) == 0 &&
				    lids_unnamed(rd, port->base_lid + run,
						 port->base_lid + (1u << want)))
					lmc = want;
				if (sw && lmc)
					f->lmc_esp0 = true;
				if (!sw && lmc > *subnet_lmc)
					*subnet_lmc = lmc;
				ibr_fabric_set_lid(f, n, p, port->base_lid, lmc);
			}
		}
	}
	return given >= 0 ? set_given_lmc(rd, dir, (unsigned)given, source) : 0;
}

/* Every LID an LFT comment named belongs to that port in the fabric. */
static int check_names(struct reader *rd)
{
	const struct ibr_fabric *f = rd->f;

	for (unsigned lid = 1; lid < rd->names_cap; lid++) {
		const struct lid_name *nm = &rd->names[lid];
		const struct ibr_lid_owner *o;
		if (!nm->line)
			continue;
		o = lid <= f->max_lid ? &f->lid_owner[lid] : NULL;
		if (!o || o->node == IBR_NONE ||
		    ibr_port(f, o->node, o->port)->guid != nm->guid) {
			rd->line = nm->line;
			return fail(rd, "LID 0x%04x is named for port 0x%016" PRIx64
				    " but opensm-subnet.lst gives that port no "
				    "such LID", lid, nm->guid);
		}
	}
	return 0;
}

static void copy_rows(const struct reader *rd, struct ibr_result *r)
{
	const struct ibr_fabric *f = rd->f;

	for (uint32_t s = 0; s < f->num_switches; s++) {
		const struct lft_row *row = &rd->rows[f->sw_node[s]];
		unsigned len = row->len < r->num_lids ? row->len : r->num_lids;
		for (unsigned lid = 0; lid < len; lid++)
			ibr_set_entry(r, s, lid, row->port[lid]);
	}
}

int ibr_dump_read(const char *dir, struct ibr_fabric **fp,
		  struct ibr_result *r, struct ibr_error *err)
{
	return ibr_dump_read_lmc(dir, -1, fp, r, err);
}

int ibr_dump_read_lmc(const char *dir, int given, struct ibr_fabric **fp,
		      struct ibr_result *r, struct ibr_error *err)
{
	struct reader rd = { .err = err };
	struct ibr_error fe = { "" };
	const char *source = "";
	unsigned lmc;
	int rc = -1, ours;

	*fp = NULL;
	memset(r, 0, sizeof(*r));
	rd.f = ibr_fabric_new();
	if (!rd.f)
		return ibr_error_set(err, "%s: out of memory", dir);
	if (read_subnet_lst(&rd, dir) || read_lfts(&rd, dir) ||
	    ibr_dlids_read_lmc(dir, &ours, err))
		goto out;
	if (given >= 0 && ours >= 0 && given != ours) {
		ibr_error_set(err, "%s: LMC %d, but ibrouting-dlids.dump says its "
			      "tables were made at lmc %d", dir, given, ours);
		goto out;
	}
	if (given < 0 && ours >= 0) {
		given = ours;
		source = " (ibrouting-dlids.dump's)";
	}
	if (set_lmcs(&rd, dir, given, source, &lmc))
		goto out;
	/* the model's messages lead with a node's origin (this dump's
	 * file:line) when they have one; the others get the file's name */
	if (ibr_fabric_finalize(rd.f, lmc, &fe) || ibr_result_init(r, rd.f, &fe)) {
		if (strncmp(fe.msg, dir, strlen(dir)) == 0)
			ibr_error_set(err, "%s", fe.msg);
		else
			ibr_error_set(err, "%s/opensm-subnet.lst: %s", dir, fe.msg);
		goto out;
	}
	if (check_names(&rd))
		goto out;
	copy_rows(&rd, r);
	if (ibr_dlids_read(dir, rd.f, r, err))
		goto out;
	*fp = rd.f;
	rd.f = NULL;
	rc = 0;
out:
	if (rc)
		ibr_result_free(r);
	for (uint32_t i = 0; i < rd.rows_cap; i++)
		free(rd.rows[i].port);
	free(rd.rows);
	free(rd.names);
	ibr_guid_map_free(&rd.ports);
	ibr_fabric_free(rd.f);
	return rc;
}
