/*
 * topo_read.c - ibsim net files and ibnetdiscover output into a fabric.
 *
 * Two passes.  The first reads line by line and creates each node as soon
 * as its header is read, so node ids follow the file and GUIDs are counted
 * exactly as ibsim counts them; each port line is kept as a pending link.
 * The second resolves pending links by node id (a line may name a node
 * declared further down) and joins the ports.  A link may be listed from
 * one end or from both; when both, they must agree.
 *
 * The grammar is ibsim's, read strictly: what ibsim would read otherwise
 * than the line seems to say is an error here, so that a file accepted
 * here is the same fabric under ibsim.  Examples: a header right after a
 * record that lists fewer ports than the node has (ibsim swallows it),
 * `"peer" [2]` (ibsim reads port 1), an indented line (ibsim ignores it).
 *
 * Files as administrators capture them are read as ibnetdiscover wrote
 * them.  Line ends (LF or CR LF), a byte order mark and blanks at the end
 * of lines are dropped.  A line of text - no line of the grammar: not
 * blank, no comment, no port or @ line, no grammar word (Switch, Ca, Hca,
 * Rt, switchguid=, caguid=, vendid=, ..., in any case) at its start, or a
 * shell prompt `[user@host dir]# ...` - is skipped, with one note naming
 * the lines, where no line of the grammar comes before it (a banner, the
 * command line) or none comes after it (the prompt after the last
 * record's last port line, blank line or not).  Text between two lines
 * of the grammar, or right after a header (its record has no port line
 * yet), is refused, with the message its first line gets from
 * the grammar; a file of text alone is refused too.  (ibsim
 * ignores such text or stops at it: never another fabric.)  `lid
 * 65535`, ibnetdiscover's LID of a port OpenSM had given none yet, is no
 * LID, as `lid 0`: the port gets one as OpenSM would give it, with one
 * note.  Notes go in the fabric's notes[] for the loaders to warn about.
 * Where ibsim takes blanks inside `[ 1 ]` or around a port option's '='
 * (`w = 4`) they are taken here too.  So are the lines of a capture
 * whose tabs were all lost (a PuTTY log), which ibsim reads as they
 * look: a keyword directly followed by its number (`Switch41 "S-..."`,
 * `Hca2`), a quoted id directly followed by `#` or `[`, a port's `]`
 * by the quote (`[1]"H-..."[1]`).  `Ca12` and `Rt12` stay refused (ibsim
 * skips the character after Ca and Rt: 2 ports); so do `SwitchX 36` and
 * `switch41` (not ibsim's keyword as written: text around the records).
 *
 * Link rates are kept as ibsim brings the links up (struct rates): the
 * width=, speed= and extspeed= directives, a port line's w=, s= and e=
 * options and ibnetdiscover's `lid N 4xQDR` after the last quote give
 * each end what it enables (ibsim's 4x SDR where the file says nothing),
 * and the link gets the best width and speed both ends enable (fabric.h:
 * ibr_port.width and .speed), for the writers to carry; a link whose ends
 * enable no common width or speed (ibsim refuses to serve it) has them
 * unknown, and one note counts such links.
 *
 * Router records (Rt, rtguid=) are CAs: end ports, as the plugin takes
 * OpenSM's routers.  GUID 0 is refused, and so is a router whose GUID
 * ibsim would count from 0.  Lines come through util/lines.h, within its
 * limits, and so many nodes and ports at most (ibr_read_limit).
 *
 * Invariants: every error is "file:line: expected ..., found ..."; on
 * error no fabric is returned and nothing leaks; every node's origin is
 * the file:line of its header; the fabric is returned not finalized; a
 * failed allocation is an error, never a shorter file.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ibrouting/topo_io.h"
#include "util/lines.h"

#define MAX_ID_LEN   64         /* ibsim keeps node ids in 65 bytes */
#define CA_GUID_BASE 0x100000u  /* ibsim's first CA GUID */
#define SW_GUID_BASE 0x200000u  /* ibsim's first switch GUID */
#define CAPTURED_NO_LID 0xFFFFu /* ibnetdiscover's lid of a port without one */
#define SKIPPED_NAMED 8         /* runs of skipped lines a note names */

/* ibsim keeps one GUID counter per node type; its router counter starts
 * at 0, so a router needs an rtguid= directive (GUID 0 is refused). */
enum { GUID_CA, GUID_SW, GUID_RT, GUID_TYPES };

/* ibsim's enabled rates of a port (its sim.h): width bits 1 1x, 2 4x,
 * 4 8x, 8 12x, 16 2x; speed bits 1 SDR, 2 DDR, 4 QDR; ext bits 1 FDR,
 * 2 EDR, 4 HDR, 8 NDR; fdr10 Mellanox's FDR10.  A port starts with the
 * width=, speed= and extspeed= directives read before its node (ibsim's
 * defaults 4x, SDR, none without them); its line's options w= s= e= and
 * then ibnetdiscover's `lid N 4xQDR` change them.  A link comes up at the
 * best both ends enable (ibsim's link_ports). */
struct rates {
	uint8_t width, speed, ext;
	bool fdr10;
};

#define IBSIM_RATES { 2, 1, 0, false }

/* A port line waiting for the second pass. */
struct pending {
	uint32_t node;          /* the record the line belongs to */
	size_t peer;            /* arena offset of the peer's node id */
	unsigned line;
	uint8_t port, peer_port;
	bool own_guid;          /* `[p](guid)`: the CA port's own GUID */
	bool has_peer_guid;     /* `"peer"[q](guid)`: the peer port's GUID */
	uint64_t peer_guid;
	struct rates rates;     /* the port's, as its line leaves them */
};

struct reader {
	const char *name;       /* file name for messages */
	FILE *in;
	struct ibr_error *err;
	struct ibr_fabric *f;

	struct ibr_lines lines; /* the file, read within lines.h's limits */
	char *line;             /* the current line, end of line removed */
	unsigned lineno;
	bool eol;               /* the line ended with a newline */

	uint64_t guid_base[GUID_TYPES]; /* last `=` value, `+` counts from it */
	uint64_t guid_next[GUID_TYPES]; /* GUID of the next node of each type */

	char *names;            /* arena of NUL-terminated node ids: */
	size_t names_len, names_cap; /* offsets stay valid when it grows */
	size_t *node_name;      /* arena offset of each node's id */
	uint32_t node_name_cap;
	uint32_t *id_slot;      /* open hash on ids: node + 1, 0 = free */
	uint32_t slots;         /* size of the table, a power of two */

	struct pending *pend;
	size_t npend, pend_cap;

	struct rates net;       /* the rate directives read so far */
	struct rates *node_rates; /* each node's ports' before their lines */
	uint32_t node_rates_cap;
	bool cur_router;        /* the open record is an Rt: ibsim reads no
				   `lid N 4xQDR` on its port lines */

	uint32_t cur;           /* node whose record is open, or IBR_NONE */
	unsigned cur_lines;     /* port lines read in that record */
	uint32_t last;          /* the last record read, or IBR_NONE */
	unsigned port_line[IBR_MAX_PORTS + 1]; /* line of each port of cur */

	/* Text around the records, skipped (see the top of the file). */
	bool in_records;        /* a line of the grammar was read */
	bool holding;           /* text read since the last such line */
	struct ibr_error held;  /* what the first of that text would get */
	unsigned skipped;       /* lines of text in all */
	unsigned skip_runs;     /* runs of consecutive lines in skip_run */
	unsigned skip_run[SKIPPED_NAMED][2]; /* first and last line */

	unsigned unrated;       /* links whose ends share no width or speed */
	char unrated_first[200]; /* the first of them */
	unsigned lidless;       /* ports with lid 65535, given none */
	unsigned lidless_line;  /* the first of them */
};

/* ---- messages ----------------------------------------------------- */

static int fail_at(struct reader *r, unsigned line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail_at(struct reader *r, unsigned line, const char *fmt, ...)
{
	char msg[440];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return ibr_error_set(r->err, "%s:%u: %s", r->name, line, msg);
}

#define fail(r, ...) fail_at((r), (r)->lineno, __VA_ARGS__)

/* An error of the fabric model (e) as this file's: it names the file and
 * line unless it already starts with the file's name (a node's origin). */
static int relay(struct reader *r, unsigned line, const struct ibr_error *e)
{
	if (strncmp(e->msg, r->name, strlen(r->name)) == 0)
		return ibr_error_set(r->err, "%s", e->msg);
	return fail_at(r, line, "%s", e->msg);
}

/* What the reader found at p, quoted and cut short, for "found ...". */
static const char *found(const char *p, char *buf, size_t len)
{
	size_t i = 0, o = 1;

	if (*p == '\0')
		return "the end of the line";
	buf[0] = '\'';
	while (p[i] && o + 5 < len && i < 48) {
		unsigned char c = p[i++];
		buf[o++] = isprint(c) || c == '\t' ? c : '?';
	}
	if (p[i])
		o += snprintf(buf + o, len - o, "...");
	snprintf(buf + o, len - o, "'");
	return buf;
}

static const char *id_of(const struct reader *r, uint32_t node)
{
	return r->names + r->node_name[node];
}

static const char *kind(const struct ibr_node *n)
{
	return n->type == IBR_NODE_SWITCH ? "switch" : "CA";
}

/* ---- small scanners ------------------------------------------------ */

static const char *skip_ws(const char *p)
{
	while (*p && isspace((unsigned char)*p))
		p++;
	return p;
}

static bool blank_or_comment(const char *p)
{
	p = skip_ws(p);
	return *p == '\0' || *p == '#';
}

/* An unsigned number at *pp; base 0 reads 0x.. and 0.. as ibsim's
 * strtoul does.  False if there is no digit or it does not fit. */
static bool read_num(const char **pp, int base, uint64_t *v)
{
	const char *p = *pp;
	char *end;

	if (base == 16 ? !isxdigit((unsigned char)*p) :
	    !isdigit((unsigned char)*p))
		return false;
	errno = 0;
	*v = strtoull(p, &end, base);
	if (errno == ERANGE)
		return false;
	*pp = end;
	return true;
}

/* A keyword: the run of letters, digits, '_' and '-' at p. */
static size_t word_len(const char *p)
{
	size_t n = 0;

	while (isalnum((unsigned char)p[n]) || p[n] == '_' || p[n] == '-')
		n++;
	return n;
}

static bool is_word(const char *p, size_t n, const char *w)
{
	return n == strlen(w) && memcmp(p, w, n) == 0;
}

/* `(hex)`, as ibnetdiscover prints port GUIDs; absent is fine. */
static int read_paren_guid(const char **pp, bool *has, uint64_t *guid)
{
	const char *p = *pp;

	*has = false;
	if (*p != '(')
		return 0;
	p++;
	if (!read_num(&p, 16, guid) || *p != ')')
		return -1;
	*pp = p + 1;
	*has = true;
	return 0;
}

/* The N] of `[N]`, blanks around N taken as ibsim's atoi() takes them;
 * *pp is left at the ']', or where the reading stopped. */
static bool read_port_number(const char **pp, uint64_t *v)
{
	*pp = skip_ws(*pp);
	if (!read_num(pp, 10, v))
		return false;
	*pp = skip_ws(*pp);
	return **pp == ']';
}

/* `[ext N]`: ibnetdiscover -g prints external port numbers; ignored. */
static int skip_ext_port(const char **pp)
{
	const char *p = *pp;
	uint64_t v;

	if (strncmp(p, "[ext ", 5) != 0)
		return 0;
	p += 5;
	if (!read_num(&p, 10, &v) || *p != ']')
		return -1;
	*pp = p + 1;
	return 0;
}

/* ---- node ids: arena and hash table (GUIDs: the fabric's index) ---- */

static uint32_t hash_bytes(const char *s, size_t n)
{
	uint32_t h = 2166136261u; /* FNV-1a */

	while (n--)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

static bool same_id(const struct reader *r, uint32_t node, const char *s,
		    size_t n)
{
	const char *id = id_of(r, node);

	return memcmp(id, s, n) == 0 && id[n] == '\0';
}

static uint32_t find_id(const struct reader *r, const char *s, size_t n)
{
	uint32_t mask = r->slots - 1, i;

	if (!r->slots)
		return IBR_NONE;
	for (i = hash_bytes(s, n) & mask; r->id_slot[i]; i = (i + 1) & mask)
		if (same_id(r, r->id_slot[i] - 1, s, n))
			return r->id_slot[i] - 1;
	return IBR_NONE;
}

static void put_slots(struct reader *r, uint32_t node)
{
	uint32_t mask = r->slots - 1, i;
	const char *id = id_of(r, node);

	for (i = hash_bytes(id, strlen(id)) & mask; r->id_slot[i];
	     i = (i + 1) & mask)
		;
	r->id_slot[i] = node + 1;
}

/* Rebuilds the id table twice as large, with every node read so far. */
static int grow_slots(struct reader *r)
{
	uint32_t n = r->slots ? 2 * r->slots : 256;

	free(r->id_slot);
	r->id_slot = calloc(n, sizeof(uint32_t));
	r->slots = n;
	if (!r->id_slot || n == 0) {
		r->slots = 0;
		return fail(r, "out of memory");
	}
	for (uint32_t i = 0; i < r->f->num_nodes; i++)
		put_slots(r, i);
	return 0;
}

/* Copies s[0..n) into the arena; *off is where it landed. */
static int add_name(struct reader *r, const char *s, size_t n, size_t *off)
{
	if (r->names_len + n + 1 > r->names_cap) {
		size_t cap = r->names_cap ? r->names_cap : 4096;
		char *b;
		while (r->names_len + n + 1 > cap)
			cap *= 2;
		b = realloc(r->names, cap);
		if (!b)
			return fail(r, "out of memory");
		r->names = b;
		r->names_cap = cap;
	}
	memcpy(r->names + r->names_len, s, n);
	r->names[r->names_len + n] = '\0';
	*off = r->names_len;
	r->names_len += n + 1;
	return 0;
}

/* A quoted node id at *pp (the opening quote); ibsim's rules: not empty,
 * at most 64 bytes, no '#' (module prefixes) or '@' (aliases). */
static int read_id(struct reader *r, const char **pp, const char **id,
		   size_t *n)
{
	const char *p = *pp + 1, *end = strchr(p, '"');
	char buf[64];

	if (!end)
		return fail(r, "expected a closing \" after the node id, found %s",
			    found(*pp, buf, sizeof(buf)));
	*id = p;
	*n = (size_t)(end - p);
	*pp = end + 1;
	if (*n == 0)
		return fail(r, "expected a node id between the quotes, found \"\"");
	if (*n > MAX_ID_LEN)
		return fail(r, "node id of %zu characters: ibsim keeps at most %d",
			    *n, MAX_ID_LEN);
	if (memchr(p, '@', *n))
		return fail(r, "node aliases (\"...@...\") are not supported, "
			    "found \"%.*s\"", (int)*n, p);
	if (memchr(p, '#', *n))
		return fail(r, "expected a node id without '#' (ibsim module "
			    "prefixes are not supported), found \"%.*s\"",
			    (int)*n, p);
	return 0;
}

/* ---- node headers -------------------------------------------------- */

struct header {
	const char *desc;       /* NULL: use the node id */
	size_t desc_len;
	uint64_t lid, lmc;
};

/* The number after `lid` or `lmc` in a comment, range-checked. */
static int read_lid_word(struct reader *r, const char **pp, bool is_lid,
			 uint64_t *v)
{
	const char *p = skip_ws(*pp);
	uint64_t max = is_lid ? IBR_MAX_UCAST_LID : IBR_MAX_LMC;
	char buf[64];

	if (!read_num(&p, 0, v) || (*p && !isspace((unsigned char)*p)))
		return fail(r, "expected a number after \"%s\", found %s",
			    is_lid ? "lid" : "lmc",
			    found(skip_ws(*pp), buf, sizeof(buf)));
	/* ibnetdiscover's word for a port OpenSM had given no LID yet (the
	 * permissive LID): no LID here either, as lid 0, and one note */
	if (is_lid && *v == CAPTURED_NO_LID) {
		if (r->lidless++ == 0)
			r->lidless_line = r->lineno;
		*v = 0;
	}
	if (*v > max)
		return fail(r, "%s %llu out of range %s..%llu",
			    is_lid ? "LID" : "LMC", (unsigned long long)*v,
			    is_lid ? "1" : "0", (unsigned long long)max);
	*pp = p;
	return 0;
}

/* The words after a switch's description: `enhanced port 0` or `base
 * port 0` and `lid N lmc M`; other words are free comment, and only the
 * first lid and lmc count, as for ibsim.  Enhanced port 0 only says the
 * switch could own 2^lmc LIDs; whether it does is OpenSM's lmc_esp0
 * option, which the caller sets on the fabric. */
static int read_switch_lid(struct reader *r, const char *p, struct header *h)
{
	bool got_lid = false, got_lmc = false;

	for (;;) {
		size_t n;
		p = skip_ws(p);
		if (*p == '\0')
			return 0;
		n = word_len(p);
		if (is_word(p, n, "lid") && !got_lid) {
			p += n;
			got_lid = true;
			if (read_lid_word(r, &p, true, &h->lid))
				return -1;
		} else if (is_word(p, n, "lmc") && !got_lmc) {
			p += n;
			got_lmc = true;
			if (read_lid_word(r, &p, false, &h->lmc))
				return -1;
		} else {
			p += n ? n : 1;
		}
	}
}

/* The comment of a header: `# "desc" ...`, or an unquoted description
 * cut where ibsim cuts it, before the port 0 and LID words. */
static int read_header_comment(struct reader *r, const char *p, bool sw,
			       struct header *h)
{
	static const char *const cuts[] = {
		" enhanced port ", " base port ", " lid ", " lmc ",
	};
	const char *end = NULL;
	char buf[64];

	p = skip_ws(p + 1);
	if (*p == '"') {
		end = strchr(p + 1, '"');
		if (!end)
			return fail(r, "expected a closing \" after the node "
				    "description, found %s",
				    found(p, buf, sizeof(buf)));
		h->desc = p + 1;
		h->desc_len = (size_t)(end - p - 1);
		end++;
	} else {
		for (size_t i = 0; i < sizeof(cuts) / sizeof(*cuts) && !end; i++)
			end = strstr(p, cuts[i]);
		if (!end)
			end = p + strlen(p);
		h->desc = p;
		h->desc_len = (size_t)(end - p);
		while (h->desc_len && isspace((unsigned char)p[h->desc_len - 1]))
			h->desc_len--;
		if (h->desc_len == 0)
			h->desc = NULL; /* ibsim: an empty description is the id */
	}
	return sw ? read_switch_lid(r, end, h) : 0;
}

/* Next GUID of this type, then moves ibsim's counter past the node:
 * a switch takes one GUID, a CA one per port plus its own. */
static uint64_t take_guid(struct reader *r, int t, unsigned ports)
{
	uint64_t g = r->guid_next[t];

	r->guid_next[t] += t == GUID_SW ? 1 : ports + 1u;
	return g;
}

/* Files the new node under its id and GUID; tables stay half empty. */
static int remember_node(struct reader *r, uint32_t node, size_t id_off)
{
	if (node >= r->node_name_cap) {
		uint32_t cap = r->node_name_cap ? 2 * r->node_name_cap : 256;
		size_t *n = realloc(r->node_name, cap * sizeof(*n));
		if (!n)
			return fail(r, "out of memory");
		r->node_name = n;
		r->node_name_cap = cap;
	}
	r->node_name[node] = id_off;
	if (node >= r->node_rates_cap) {
		uint32_t cap = r->node_rates_cap ? 2 * r->node_rates_cap : 256;
		struct rates *n = realloc(r->node_rates, cap * sizeof(*n));
		if (!n)
			return fail(r, "out of memory");
		r->node_rates = n;
		r->node_rates_cap = cap;
	}
	r->node_rates[node] = r->net;
	if (2 * (uint64_t)(node + 1) >= r->slots)
		return grow_slots(r); /* files every node, this one too */
	put_slots(r, node);
	return 0;
}

/* A router is an end port, as OpenSM's routers are to the plugin
 * (src/osm/adapter.c): a CA here. */
static int open_record(struct reader *r, int t, const char *id, size_t n,
		       unsigned ports, const struct header *h)
{
	bool sw = t == GUID_SW;
	uint64_t guid = take_guid(r, t, ports);
	uint32_t other = find_id(r, id, n), node;
	struct ibr_error e = { "" };
	char *origin, *desc;
	size_t off;

	if (other != IBR_NONE)
		return fail(r, "duplicate node id \"%.*s\", first declared at %s",
			    (int)n, id, r->f->nodes[other].origin);
	if (ibr_read_limit(r->f->num_nodes, r->f->num_ports, ports))
		return fail(r, "%s", ibr_read_limit(r->f->num_nodes,
						     r->f->num_ports, ports));
	if (guid == 0)
		return fail(r, "node \"%.*s\" gets GUID 0, which is no GUID%s",
			    (int)n, id, t == GUID_RT ? " (ibsim counts router "
			    "GUIDs from 0: give it an rtguid= line)" :
			    " (check the switchguid=/caguid= lines)");
	other = ibr_fabric_find_guid(r->f, guid);
	if (other != IBR_NONE)
		return fail(r, "node \"%.*s\" gets GUID 0x%016llx, already the "
			    "GUID of \"%s\" declared at %s (check the "
			    "switchguid=/caguid= lines)", (int)n, id,
			    (unsigned long long)guid, id_of(r, other),
			    r->f->nodes[other].origin);
	origin = malloc(strlen(r->name) + 16);
	desc = h->desc ? strndup(h->desc, h->desc_len) : strndup(id, n);
	if (!origin || !desc || add_name(r, id, n, &off)) {
		free(origin);
		free(desc);
		return fail(r, "out of memory");
	}
	sprintf(origin, "%s:%u", r->name, r->lineno);
	node = ibr_fabric_add_node(r->f, sw ? IBR_NODE_SWITCH : IBR_NODE_CA,
				   guid, ports, desc, origin, &e);
	free(origin);
	free(desc);
	if (node == IBR_NONE)
		return relay(r, r->lineno, &e);
	if (remember_node(r, node, off))
		return -1;
	if (sw && h->lid)
		ibr_fabric_set_lid(r->f, node, 0, (ibr_lid_t)h->lid,
				   (unsigned)h->lmc);
	r->cur = r->last = node;
	r->cur_router = t == GUID_RT;
	r->cur_lines = 0;
	memset(r->port_line, 0, sizeof(r->port_line));
	return 0;
}

/* `Ca12 "id"`: ibsim skips the '1' and reads the number from the first
 * digit after it, here 2 ports, or 0 (a parse error) from an id such as
 * "H-0c42..."; refused, with what ibsim would read. */
static int glued_number(struct reader *r, const char *kw, size_t kwlen,
			unsigned ports_from)
{
	const char *q = kw + ports_from;
	unsigned long v;
	char buf[64];

	while (*q && !isdigit((unsigned char)*q))
		q++;
	v = strtoul(q, NULL, 0);
	return fail(r, "expected a blank between \"%.*s\" and its number of "
		    "ports, found %s (ibsim skips the '%c' after \"%.*s\" and "
		    "reads %lu ports from the rest of the line)", (int)kwlen, kw,
		    found(kw, buf, sizeof(buf)), kw[kwlen], (int)kwlen, kw, v);
}

/* `Switch N "id"  # "desc" ...` or `Ca N "id"  # "desc"`, the keyword
 * kwlen characters long; ibsim reads N from column ports_from on, past
 * whatever is no digit: `Switch41` and `Hca2` are read as they look, but
 * `Ca12` is 2 ports there (the '1' skipped), so it is refused. */
static int node_header(struct reader *r, const char *p, size_t kwlen,
		       unsigned ports_from, int t)
{
	bool sw = t == GUID_SW;
	struct header h = { NULL, 0, 0, 0 };
	const char *kw = p, *id;
	uint64_t ports;
	size_t n;
	char buf[64];

	if (kwlen < ports_from && isdigit((unsigned char)p[kwlen]))
		return glued_number(r, p, kwlen, ports_from);
	p = skip_ws(p + kwlen);
	if (!read_num(&p, 0, &ports))
		return fail(r, "expected the number of ports after \"%.*s\", "
			    "found %s", (int)kwlen, kw,
			    found(p, buf, sizeof(buf)));
	if (ports < 1 || ports > IBR_MAX_PORTS)
		return fail(r, "number of ports %llu out of range 1..%u",
			    (unsigned long long)ports, IBR_MAX_PORTS);
	p = skip_ws(p);
	if (*p != '"')
		return fail(r, "expected a quoted node id after the number of "
			    "ports, found %s", found(p, buf, sizeof(buf)));
	if (read_id(r, &p, &id, &n))
		return -1;
	p = skip_ws(p);
	if (*p == '#' && read_header_comment(r, p, sw, &h))
		return -1;
	if (*p != '#' && *p != '\0')
		return fail(r, "expected a # comment or the end of the line "
			    "after the node id, found %s",
			    found(p, buf, sizeof(buf)));
	if (!r->eol)
		return fail(r, "truncated file: expected the end of the line, "
			    "found the end of the file in the header of "
			    "\"%.*s\"", (int)n, id);
	return open_record(r, t, id, n, (unsigned)ports, &h);
}

/* ---- directives ---------------------------------------------------- */

/* switchguid=G / caguid=G set the next node's GUID; `+` counts from the
 * last `=` (ibsim's absolute and relative GUID bases). */
static int guid_directive(struct reader *r, const char *p, int t)
{
	const char *kw = p;
	size_t kwlen = word_len(p);
	bool relative, has;
	uint64_t v, port_guid;
	char buf[64];

	p = skip_ws(p + kwlen);
	relative = *p == '+';
	if (*p != '=' && *p != '+')
		goto bad;
	p = skip_ws(p + 1);
	if (!read_num(&p, 0, &v) || read_paren_guid(&p, &has, &port_guid))
		goto bad;
	p = skip_ws(p);
	if (*p != '\0' && *p != '#')
		goto bad;
	if ((!relative && v == 0) || (has && port_guid == 0))
		return fail(r, "GUID 0 is no GUID: expected a non-zero GUID "
			    "after %.*s", (int)kwlen, kw);
	if (relative) {
		r->guid_next[t] = r->guid_base[t] + v;
	} else {
		r->guid_base[t] = v;
		r->guid_next[t] = v;
	}
	return 0;
bad:
	return fail(r, "expected a GUID like %.*s=0x2c90000000001 or %.*s+4, "
		    "found %s", (int)kwlen, kw, (int)kwlen, kw,
		    found(skip_ws(kw + kwlen), buf, sizeof(buf)));
}

/* vendid=, devid=, width= ...: ibsim rejects them without '=' and
 * rejects out-of-range widths and speeds; width=, speed= and extspeed=
 * enable rates for the ports of the nodes after them (struct rates), the
 * others have no bearing on the fabric model. */
static int setting_directive(struct reader *r, const char *p, size_t kwlen,
			     uint64_t min, uint64_t max)
{
	const char *q = skip_ws(p + kwlen);
	uint64_t v;
	char buf[64];

	if (*q != '=')
		return fail(r, "expected '=' after \"%.*s\", found %s",
			    (int)kwlen, p, found(q, buf, sizeof(buf)));
	if (max == 0)
		return 0;
	q = skip_ws(q + 1);
	if (!read_num(&q, 0, &v) || v < min || v > max)
		return fail(r, "expected %.*s=N with N in %llu..%llu, found %s",
			    (int)kwlen, p, (unsigned long long)min,
			    (unsigned long long)max,
			    found(skip_ws(p + kwlen + 1), buf, sizeof(buf)));
	if (is_word(p, kwlen, "width"))
		r->net.width = (uint8_t)v;
	else if (is_word(p, kwlen, "speed"))
		r->net.speed = (uint8_t)v;
	else
		r->net.ext = (uint8_t)v;
	return 0;
}

static int not_supported(struct reader *r, const char *what)
{
	return fail(r, "%s not supported: expected Switch, Ca or Hca records, "
		    "port lines, GUID directives or comments", what);
}

/* The words that start a line of the grammar, as ibsim's parser tells
 * them (case matters there: "switch 36 ..." is a line ibsim ignores, so a
 * record it drops).  GUID directives are matched by prefix, as ibsim does. */
enum line_kind {
	LINE_SWITCH, LINE_CA, LINE_RT, LINE_SWITCHGUID, LINE_CAGUID,
	LINE_RTGUID, LINE_SETTING, LINE_INCLUDE, LINE_MODULE, LINE_DO,
	LINE_GROUP,
};

static const struct grammar_word {
	const char *text;
	enum line_kind kind;
	bool prefix;            /* switchguid0=... is ibsim's switchguid= */
	bool colon;             /* must be followed by ':' ("Hostname:") */
	uint64_t min, max;      /* a setting's range; max 0: any value */
	unsigned ports_from;    /* a record's: the column ibsim starts
				   reading its number of ports at */
} grammar_words[] = {
	{ "Switch", LINE_SWITCH, false, false, 0, 0, 6 },
	{ "Ca", LINE_CA, false, false, 0, 0, 3 },
	{ "Hca", LINE_CA, false, false, 0, 0, 3 },
	{ "Rt", LINE_RT, false, false, 0, 0, 3 },
	{ "switchguid", LINE_SWITCHGUID, true, false, 0, 0, 0 },
	{ "caguid", LINE_CAGUID, true, false, 0, 0, 0 },
	{ "hcaguids", LINE_CAGUID, true, false, 0, 0, 0 },
	{ "rtguid", LINE_RTGUID, true, false, 0, 0, 0 },
	{ "width", LINE_SETTING, false, false, 1, 31, 0 },
	{ "speed", LINE_SETTING, false, false, 1, 7, 0 },
	{ "extspeed", LINE_SETTING, false, false, 0, 15, 0 },
	{ "vendid", LINE_SETTING, false, false, 0, 0, 0 },
	{ "devid", LINE_SETTING, false, false, 0, 0, 0 },
	{ "sysimgguid", LINE_SETTING, false, false, 0, 0, 0 },
	{ "pdebug", LINE_SETTING, false, false, 0, 0, 0 },
	{ "include", LINE_INCLUDE, false, false, 0, 0, 0 },
	{ "module", LINE_MODULE, false, false, 0, 0, 0 },
	{ "do", LINE_DO, false, false, 0, 0, 0 },
	/* ibnetdiscover -g groups nodes under these lines; ibsim skips them */
	{ "Chassis", LINE_GROUP, false, false, 0, 0, 0 },
	{ "Non-Chassis", LINE_GROUP, false, false, 0, 0, 0 },
	{ "Hostname", LINE_GROUP, false, true, 0, 0, 0 },
};

/* The grammar's word the n characters at p are, NULL if none; any_case
 * also finds it written in another case (then it is refused, not taken
 * for text around the records). */
static const struct grammar_word *grammar_word(const char *p, size_t n,
					       bool any_case)
{
	for (size_t i = 0; i < sizeof(grammar_words) / sizeof(*grammar_words);
	     i++) {
		const struct grammar_word *w = &grammar_words[i];
		size_t len = strlen(w->text);
		if (w->prefix ? n < len : n != len)
			continue;
		if (any_case ? strncasecmp(p, w->text, len) != 0 :
		    memcmp(p, w->text, len) != 0)
			continue;
		if (!w->colon || p[n] == ':')
			return w;
	}
	return NULL;
}

/* The grammar's word line p starts with, its length in *len; NULL if
 * none.  A record's keyword may be directly followed by its number of
 * ports, as in a capture whose tabs were lost (`Switch41 "S-..."`): ibsim
 * reads the number from the first digit on, so the keyword is the
 * letters before it - written in its own case, as ibsim matches it (a
 * prompt `switch01 [standalone: master] #` stays text).  Other words are
 * still whole: `SwitchX 36`, `Switches` are no Switch record here. */
static const struct grammar_word *line_word(const char *p, bool any_case,
					    size_t *len)
{
	const struct grammar_word *w;

	*len = word_len(p);
	w = grammar_word(p, *len, any_case);
	if (w)
		return w;
	for (*len = 0; isalpha((unsigned char)p[*len]); ++*len)
		;
	if (!isdigit((unsigned char)p[*len]))
		return NULL;
	w = grammar_word(p, *len, false);
	return w && w->ports_from ? w : NULL;
}

static int top_line(struct reader *r)
{
	const char *p = r->line;
	const struct grammar_word *w;
	size_t n;
	char buf[64];

	if (blank_or_comment(p))
		return 0;
	if (isspace((unsigned char)*p))
		return fail(r, "expected a record, a directive or a comment at "
			    "the start of the line (ibsim ignores indented "
			    "lines), found %s", found(skip_ws(p), buf,
							  sizeof(buf)));
	if (*p == '@')
		return not_supported(r, "port aliases (@ lines) are");
	if (*p == '[') {
		if (r->last == IBR_NONE)
			return fail(r, "expected a node header before the first "
				    "port line, found %s",
				    found(p, buf, sizeof(buf)));
		return fail(r, "port line outside a record: the record of %s "
			    "\"%s\" (%s) ended before it, at a blank line or "
			    "after its %u ports", kind(&r->f->nodes[r->last]),
			    id_of(r, r->last), r->f->nodes[r->last].origin,
			    r->f->nodes[r->last].num_ports);
	}
	w = line_word(p, false, &n);
	if (!w)
		return fail(r, "expected a Switch, Ca or Hca record, a directive "
			    "(switchguid=, caguid=, ...) or a comment, found %s",
			    found(p, buf, sizeof(buf)));
	switch (w->kind) {
	case LINE_SWITCH:
		return node_header(r, p, n, w->ports_from, GUID_SW);
	case LINE_CA:
		return node_header(r, p, n, w->ports_from, GUID_CA);
	case LINE_RT:
		return node_header(r, p, n, w->ports_from, GUID_RT);
	case LINE_SWITCHGUID:
		return guid_directive(r, p, GUID_SW);
	case LINE_CAGUID:
		return guid_directive(r, p, GUID_CA);
	case LINE_RTGUID:
		return guid_directive(r, p, GUID_RT);
	case LINE_SETTING:
		return setting_directive(r, p, n, w->min, w->max);
	case LINE_INCLUDE:
		return not_supported(r, "include is");
	case LINE_MODULE:
		return not_supported(r, "module is");
	case LINE_DO:
		return not_supported(r, "do (ibsim commands) is");
	case LINE_GROUP:
		break;
	}
	return 0;
}

/* ---- port lines ---------------------------------------------------- */

/* ` w=4 s=2 e=0`: ibsim's per-port enabled width, speed and extended
 * speed (struct rates), checked as ibsim checks them; s=0 is QDR. */
static int read_port_options(struct reader *r, const char *p,
			     struct rates *rates, const char **rest)
{
	char buf[64];

	for (;;) {
		const char *opt;
		uint64_t v, max;
		p = skip_ws(p);
		if (*p == '\0' || *p == '#')
			break;
		opt = p;
		max = *p == 'w' ? 31 : *p == 's' ? 7 : *p == 'e' ? 15 : 0;
		p = skip_ws(p + 1); /* ibsim takes `w = 4` too */
		if (max == 0 || *p != '=')
			return fail(r, "expected a port option w=, s= or e=, a # "
				    "comment or the end of the line, found %s",
				    found(opt, buf, sizeof(buf)));
		p = skip_ws(p + 1);
		if (!read_num(&p, 0, &v) || v > max ||
		    (*opt == 'w' && v == 0) ||
		    (*p && !isspace((unsigned char)*p) && *p != '#'))
			return fail(r, "expected %c=N with N in %d..%llu, found %s",
				    *opt, *opt == 'w', (unsigned long long)max,
				    found(opt, buf, sizeof(buf)));
		if (*opt == 'w')
			rates->width = (uint8_t)v;
		else if (*opt == 's')
			rates->speed = v ? (uint8_t)v : 4;
		else
			rates->ext = (uint8_t)v;
	}
	*rest = p;
	return 0;
}

/* ibnetdiscover's `lid N 4xQDR` after the last double quote (p: the line
 * after the peer's id), read as ibsim reads it (parse_port_link_width_
 * and_speed): the first "lid" there, then "%d %dx%9s"; a speed is the
 * name it begins (SDR ... NDR, FDR10).  What ibsim cannot read there it
 * skips with a warning, and so does this reader, silently. */
static void read_link_rates(const char *p, struct rates *rates)
{
	static const struct {
		const char *name;
		uint8_t speed, ext;
		bool fdr10;
	} names[] = {
		{ "SDR", 1, 0, false }, { "DDR", 3, 0, false },
		{ "QDR", 7, 0, false }, { "FDR", 7, 1, true },
		{ "EDR", 7, 3, true }, { "HDR", 7, 7, true },
		{ "NDR", 7, 15, true }, { "FDR10", 7, 0, true },
	};
	const char *quote = strrchr(p, '"'), *lid;
	int rlid, width;
	char speed[10] = "";

	lid = strstr(quote ? quote + 1 : p, "lid");
	if (!lid || sscanf(lid, "lid %d %dx%9s", &rlid, &width, speed) != 3)
		return;
	if (width == 12)
		rates->width = 11;      /* 1x, 4x, 12x */
	else if (width == 8)
		rates->width = 4;
	else if (width == 4)
		rates->width = 3;       /* 1x, 4x */
	else if (width == 2)
		rates->width = 16;
	else if (width == 1)
		rates->width = 1;
	for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++)
		if (strncmp(speed, names[i].name, strlen(speed)) == 0) {
			rates->speed = names[i].speed;
			if (names[i].ext)
				rates->ext = names[i].ext;
			if (names[i].fdr10)
				rates->fdr10 = true;
			break;
		}
}

/* A CA port's own LID: ibnetdiscover writes `# lid N lmc M "peer" lid
 * P 4xQDR`.  ibsim reads N and M only when the word lid also follows the
 * last double quote; a LID it would drop is an error here. */
static int read_ca_port_lid(struct reader *r, const char *p, uint64_t *lid,
			    uint64_t *lmc)
{
	const char *quote = strrchr(p, '"');
	char buf[64];
	size_t n;

	p = skip_ws(p + 1);
	n = word_len(p);
	if (!is_word(p, n, "lid"))
		return 0;
	p += n;
	if (read_lid_word(r, &p, true, lid))
		return -1;
	if (quote && !strstr(quote, "lid"))
		return fail(r, "expected \"lid N <width>x<speed>\" after the last "
			    "quote of a CA port line that gives its LID (ibsim "
			    "drops the LID otherwise), found %s",
			    found(skip_ws(quote + 1), buf, sizeof(buf)));
	p = skip_ws(p);
	n = word_len(p);
	if (!is_word(p, n, "lmc"))
		return 0;
	p += n;
	return read_lid_word(r, &p, false, lmc);
}

static int bad_port_line(struct reader *r, const char *p)
{
	char buf[64];

	return fail(r, "expected a port line like [1] \"peer\"[2], found %s "
		    "at column %zu", found(p, buf, sizeof(buf)),
		    (size_t)(p - r->line) + 1);
}

static int add_pending(struct reader *r, const struct pending *pd)
{
	if (r->npend == r->pend_cap) {
		size_t cap = r->pend_cap ? 2 * r->pend_cap : 256;
		struct pending *n = realloc(r->pend, cap * sizeof(*n));
		if (!n)
			return fail(r, "out of memory");
		r->pend = n;
		r->pend_cap = cap;
	}
	r->pend[r->npend++] = *pd;
	return 0;
}

/* `[p](guid) "peer"[q](guid) w=4 # comment`, most parts optional. */
static int port_line(struct reader *r)
{
	struct ibr_node *n = &r->f->nodes[r->cur];
	struct pending pd = { .node = r->cur, .line = r->lineno,
			      .rates = r->node_rates[r->cur] };
	const char *p = r->line + 1, *id, *after_id;
	uint64_t port, peer_port = 1, own_guid, lid = 0, lmc = 0;
	size_t idlen;

	if (!read_port_number(&p, &port))
		return bad_port_line(r, p);
	if (port < 1 || port > n->num_ports)
		return fail(r, "port %llu out of range 1..%u for %s \"%s\"",
			    (unsigned long long)port, n->num_ports, kind(n),
			    id_of(r, r->cur));
	p++;
	if (skip_ext_port(&p))
		return bad_port_line(r, p);
	p = skip_ws(p);
	if (read_paren_guid(&p, &pd.own_guid, &own_guid))
		return bad_port_line(r, p);
	if (pd.own_guid && own_guid == 0)
		return fail(r, "port GUID (0) is no GUID: expected a non-zero GUID");
	p = skip_ws(p);
	if (*p != '"')
		return bad_port_line(r, p);
	if (read_id(r, &p, &id, &idlen))
		return -1;
	after_id = p;
	if (*p == '[') {
		p++;
		if (!read_port_number(&p, &peer_port))
			return bad_port_line(r, p);
		if (peer_port < 1 || peer_port > IBR_MAX_PORTS)
			return fail(r, "peer port %llu out of range 1..%u",
				    (unsigned long long)peer_port,
				    IBR_MAX_PORTS);
		p++;
		if (skip_ext_port(&p))
			return bad_port_line(r, p);
	} else if (*skip_ws(p) == '[') {
		return fail(r, "expected [port] right after the peer id, found "
			    "a space before it (ibsim would read port 1)");
	}
	p = skip_ws(p);
	if (read_paren_guid(&p, &pd.has_peer_guid, &pd.peer_guid))
		return bad_port_line(r, p);
	if (pd.has_peer_guid && pd.peer_guid == 0)
		return fail(r, "peer port GUID (0) is no GUID: expected a "
			    "non-zero GUID");
	if (read_port_options(r, p, &pd.rates, &p))
		return -1;
	if (!r->cur_router)
		read_link_rates(after_id, &pd.rates);
	if (*p == '#' && n->type == IBR_NODE_CA &&
	    read_ca_port_lid(r, p, &lid, &lmc))
		return -1;
	if (r->port_line[port])
		return fail(r, "port %llu of %s \"%s\" listed twice, first at "
			    "%s:%u", (unsigned long long)port, kind(n),
			    id_of(r, r->cur), r->name, r->port_line[port]);
	r->port_line[port] = r->lineno;
	pd.port = (uint8_t)port;
	pd.peer_port = (uint8_t)peer_port;
	/* switch ports share the node GUID (as in ibsim): only CAs take one */
	pd.own_guid = pd.own_guid && n->type == IBR_NODE_CA;
	if (pd.own_guid)
		ibr_port(r->f, r->cur, (unsigned)port)->guid = own_guid;
	if (lid)
		ibr_fabric_set_lid(r->f, r->cur, (unsigned)port, (ibr_lid_t)lid,
				   (unsigned)lmc);
	if (add_name(r, id, idlen, &pd.peer) || add_pending(r, &pd))
		return -1;
	/* ibsim reads no more port lines than the node has ports */
	if (++r->cur_lines == n->num_ports)
		r->cur = IBR_NONE;
	return 0;
}

/* A line while a record is open: a port line, a comment at column 0,
 * or whatever ends the record - which ibsim then swallows. */
static int record_line(struct reader *r)
{
	const char *p = r->line;
	char buf[64];

	if (*p == '#')
		return 0;
	if (!r->eol && !blank_or_comment(p))
		return fail(r, "truncated file: expected the end of the line, "
			    "found the end of the file in the record of %s "
			    "\"%s\" (%s)", kind(&r->f->nodes[r->cur]),
			    id_of(r, r->cur), r->f->nodes[r->cur].origin);
	if (*p == '[')
		return port_line(r);
	if (*p == '@')
		return not_supported(r, "port aliases (@ lines) are");
	if (blank_or_comment(p)) {
		r->cur = IBR_NONE;
		return 0;
	}
	return fail(r, "expected a port line or a blank line to end the record "
		    "of %s \"%s\" (%s), found %s (ibsim would swallow this "
		    "line)", kind(&r->f->nodes[r->cur]), id_of(r, r->cur),
		    r->f->nodes[r->cur].origin, found(p, buf, sizeof(buf)));
}

/* ---- pass two: links ----------------------------------------------- */

static uint32_t port_index(const struct ibr_fabric *f, uint32_t node,
			   unsigned port)
{
	return f->nodes[node].first_port + port;
}

/* The peer port's GUID seen from the far side: taken for a CA port whose
 * own line gave none; must agree with its own line otherwise. */
static int peer_guid(struct reader *r, const struct pending *pd, uint32_t b,
		     unsigned *guid_line)
{
	struct ibr_port *y = ibr_port(r->f, b, pd->peer_port);
	uint32_t yi = port_index(r->f, b, pd->peer_port);

	if (!pd->has_peer_guid || r->f->nodes[b].type != IBR_NODE_CA)
		return 0;
	if (guid_line[yi] && y->guid != pd->peer_guid)
		return fail_at(r, pd->line, "port GUID 0x%llx of \"%s\"[%u] "
			       "differs from 0x%llx given at %s:%u",
			       (unsigned long long)pd->peer_guid, id_of(r, b),
			       pd->peer_port, (unsigned long long)y->guid,
			       r->name, guid_line[yi]);
	y->guid = pd->peer_guid;
	guid_line[yi] = pd->line;
	return 0;
}

static int link_one(struct reader *r, const struct pending *pd,
		    unsigned *link_line, unsigned *guid_line)
{
	struct ibr_fabric *f = r->f;
	const char *peer = r->names + pd->peer;
	uint32_t a = pd->node, b = find_id(r, peer, strlen(peer)), xi, yi;
	const struct ibr_node *na = &f->nodes[a], *nb;
	const struct ibr_port *x, *y;
	struct ibr_error e = { "" };

	if (b == IBR_NONE)
		return fail_at(r, pd->line, "link to unknown node \"%s\" from "
			       "port %u of %s \"%s\"", peer, pd->port,
			       kind(na), id_of(r, a));
	nb = &f->nodes[b];
	if (pd->peer_port > nb->num_ports)
		return fail_at(r, pd->line, "port %u out of range 1..%u for %s "
			       "\"%s\"", pd->peer_port, nb->num_ports,
			       kind(nb), peer);
	if (a == b && na->type == IBR_NODE_SWITCH) {
		/* a loopback cable: listed, left out of routing (fabric.h) */
		char origin[512];
		snprintf(origin, sizeof(origin), "%s:%u", r->name, pd->line);
		return ibr_fabric_add_loopback(f, a, pd->port, pd->peer_port,
					       origin, r->err);
	}
	if (a == b)
		return fail_at(r, pd->line, "port %u of %s \"%s\" is linked to "
			       "its own node", pd->port, kind(na), peer);
	x = ibr_port(f, a, pd->port);
	y = ibr_port(f, b, pd->peer_port);
	xi = port_index(f, a, pd->port);
	yi = port_index(f, b, pd->peer_port);
	if (x->remote_node == b && x->remote_port == pd->peer_port)
		return peer_guid(r, pd, b, guid_line); /* the other end's line */
	if (x->remote_node != IBR_NONE)
		return fail_at(r, pd->line, "port %u of %s \"%s\" is linked to "
			       "\"%s\"[%u] here but to \"%s\"[%u] at %s:%u",
			       pd->port, kind(na), id_of(r, a), peer,
			       pd->peer_port, id_of(r, x->remote_node),
			       x->remote_port, r->name, link_line[xi]);
	if (y->remote_node != IBR_NONE)
		return fail_at(r, pd->line, "port %u of %s \"%s\" is linked to "
			       "\"%s\"[%u] at %s:%u, not to \"%s\"[%u] as here",
			       pd->peer_port, kind(nb), peer,
			       id_of(r, y->remote_node), y->remote_port,
			       r->name, link_line[yi], id_of(r, a), pd->port);
	if (ibr_fabric_connect(f, a, pd->port, b, pd->peer_port, &e))
		return relay(r, pd->line, &e);
	link_line[xi] = link_line[yi] = pd->line;
	return peer_guid(r, pd, b, guid_line);
}

static int link_all(struct reader *r)
{
	size_t n = r->f->num_ports ? r->f->num_ports : 1;
	unsigned *link_line = calloc(n, sizeof(unsigned));
	unsigned *guid_line = calloc(n, sizeof(unsigned));
	int rc = -1;

	if (!link_line || !guid_line) {
		fail(r, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < r->npend; i++)
		if (r->pend[i].own_guid)
			guid_line[port_index(r->f, r->pend[i].node,
					     r->pend[i].port)] = r->pend[i].line;
	for (size_t i = 0; i < r->npend; i++)
		if (link_one(r, &r->pend[i], link_line, guid_line))
			goto out;
	rc = 0;
out:
	free(link_line);
	free(guid_line);
	return rc;
}

/* The best of the bits both ends enable, in ibsim's order: the first of
 * best[] in common, as its value in out[]; 0 if none. */
static unsigned best_common(unsigned a, unsigned b, const uint8_t *best,
			    const uint8_t *out, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (a & b & best[i])
			return out[i];
	return 0;
}

/* A link's active width and speed from both ends' rates (ibsim's
 * get_active_link*, shown as ibnetdiscover shows them: an extended speed
 * first, then FDR10, then SDR..QDR).  ibsim refuses to serve a link whose
 * ends share no width or no speed; rates have no bearing on routing, so
 * the link is read, its rates left unknown, and one note counts such
 * links and names the first. */
static void link_rates(struct reader *r, unsigned line, uint32_t a,
		       unsigned pa, const struct rates *x,
		       const struct rates *y)
{
	static const uint8_t widths[] = { 8, 4, 2, 16, 1 },
			     lanes[] = { 12, 8, 4, 2, 1 },
			     speeds[] = { 4, 2, 1 },
			     basic[] = { IBR_SPEED_QDR, IBR_SPEED_DDR,
					 IBR_SPEED_SDR },
			     exts[] = { 8, 4, 2, 1 },
			     extended[] = { IBR_SPEED_NDR, IBR_SPEED_HDR,
					    IBR_SPEED_EDR, IBR_SPEED_FDR };
	unsigned width = best_common(x->width, y->width, widths, lanes, 5),
		 speed = best_common(x->speed, y->speed, speeds, basic, 3),
		 ext = best_common(x->ext, y->ext, exts, extended, 4);

	if (!width || !speed) {
		if (r->unrated++ == 0)
			snprintf(r->unrated_first, sizeof(r->unrated_first),
				 "%s:%u: port %u of %s \"%s\": widths 0x%x and "
				 "0x%x, speeds 0x%x and 0x%x", r->name, line, pa,
				 kind(&r->f->nodes[a]), id_of(r, a), x->width,
				 y->width, x->speed, y->speed);
		return;
	}
	ibr_fabric_set_link_rate(r->f, a, pa, width, ext ? ext :
			    x->fdr10 && y->fdr10 ? IBR_SPEED_FDR10 : speed);
}

/* Every link's rates as ibsim brings it up: a port has its node's rates
 * until its own line gives others. */
static int set_rates(struct reader *r)
{
	struct ibr_fabric *f = r->f;
	struct rates *port = malloc((f->num_ports ? f->num_ports : 1) *
				    sizeof(*port));
	unsigned *line = calloc(f->num_ports ? f->num_ports : 1,
				sizeof(*line));

	if (!port || !line) {
		free(port);
		free(line);
		return fail(r, "out of memory");
	}
	for (uint32_t n = 0; n < f->num_nodes; n++)
		for (unsigned p = 0; p <= f->nodes[n].num_ports; p++)
			port[port_index(f, n, p)] = r->node_rates[n];
	for (size_t i = 0; i < r->npend; i++) {
		uint32_t xi = port_index(f, r->pend[i].node, r->pend[i].port);
		port[xi] = r->pend[i].rates;
		line[xi] = r->pend[i].line;
	}
	for (uint32_t n = 0; n < f->num_nodes; n++)
		for (unsigned p = 1; p <= f->nodes[n].num_ports; p++) {
			const struct ibr_port *x = ibr_port(f, n, p);
			uint32_t xi = port_index(f, n, p), yi;
			if (x->remote_node == IBR_NONE ||
			    x->remote_node < n ||
			    (x->remote_node == n && x->remote_port < p))
				continue; /* each link once, from its lower end */
			yi = port_index(f, x->remote_node, x->remote_port);
			link_rates(r, line[xi] ? line[xi] : line[yi], n, p,
				   &port[xi], &port[yi]);
		}
	free(port);
	free(line);
	return 0;
}

/* ---- text around the records ---------------------------------------- */

/* `[root@node01 ~]# ...`, `[me@host dir]$ `: a shell prompt, never a port
 * line, which has no '@' (nor '"') before its first ']'. */
static bool is_shell_prompt(const char *p)
{
	const char *close = strchr(p, ']'), *at = strchr(p, '@');

	if (!close || !at || at > close ||
	    memchr(p, '"', (size_t)(close - p)))
		return false;
	p = skip_ws(close + 1);
	return *p == '#' || *p == '$' || *p == '%' || *p == '>';
}

/* Text, no line of the grammar: not blank, no comment, no port or alias
 * line, and starting with none of the grammar's words in any case (so a
 * mistyped "switch 36 ..." is refused as a record, never skipped). */
static bool is_text(const char *line)
{
	const char *p = skip_ws(line);
	size_t n;

	if (*p == '\0' || *p == '#' || *p == '@')
		return false;
	if (*p == '[')
		return is_shell_prompt(p);
	return line_word(p, true, &n) == NULL;
}

static void count_skipped(struct reader *r)
{
	unsigned *run = r->skip_runs ? r->skip_run[r->skip_runs - 1] : NULL;

	r->skipped++;
	if (run && run[1] + 1 == r->lineno) {
		run[1] = r->lineno;
	} else if (r->skip_runs < SKIPPED_NAMED) {
		run = r->skip_run[r->skip_runs++];
		run[0] = run[1] = r->lineno;
	}
}

/* A line of text is skipped unless a line of the grammar follows it and
 * one came before it: then it is inside the records and refused, with
 * what the first such line gets from the grammar, kept here meanwhile. */
static void hold_text(struct reader *r)
{
	struct ibr_error *err = r->err;

	count_skipped(r);
	if (r->holding)
		return;
	r->holding = true;
	r->held.msg[0] = '\0';
	r->err = &r->held;
	/* the grammar refuses whatever is_text() calls text; should it ever
	 * take some, that line must not pass unseen either */
	if ((r->cur != IBR_NONE ? record_line(r) : top_line(r)) == 0)
		fail(r, "expected a line of the grammar, found text");
	r->err = err;
}

/* The notes the fabric carries for the loaders to warn about. */
static int add_notes(struct reader *r)
{
	char msg[sizeof(r->err->msg)], runs[SKIPPED_NAMED * 24 + 8] = "";
	size_t len = 0;
	unsigned named = 0;

	for (unsigned i = 0; i < r->skip_runs; i++) {
		const unsigned *run = r->skip_run[i];
		len += (size_t)snprintf(runs + len, sizeof(runs) - len, "%s%u",
					i ? ", " : "", run[0]);
		if (run[1] > run[0])
			len += (size_t)snprintf(runs + len, sizeof(runs) - len,
						"-%u", run[1]);
		named += run[1] - run[0] + 1;
	}
	if (named < r->skipped)
		snprintf(runs + len, sizeof(runs) - len, ", ...");
	if (r->skipped) {
		snprintf(msg, sizeof(msg), "%s: skipped %u line%s that %s no "
			 "topology record: %s", r->name, r->skipped,
			 r->skipped == 1 ? "" : "s",
			 r->skipped == 1 ? "is" : "are", runs);
		if (ibr_fabric_add_note(r->f, msg, r->err))
			return -1;
	}
	if (r->unrated) {
		snprintf(msg, sizeof(msg), "%s: %u link%s whose ends enable no "
			 "common width or speed (ibsim refuses to serve %s), "
			 "width and speed left unknown; the first: %s", r->name,
			 r->unrated, r->unrated == 1 ? "" : "s",
			 r->unrated == 1 ? "it" : "them", r->unrated_first);
		if (ibr_fabric_add_note(r->f, msg, r->err))
			return -1;
	}
	if (r->lidless) {
		snprintf(msg, sizeof(msg), "%s:%u: %u port%s with lid 65535 (no "
			 "LID assigned when captured): given LIDs as OpenSM "
			 "would", r->name, r->lidless_line, r->lidless,
			 r->lidless == 1 ? "" : "s");
		if (ibr_fabric_add_note(r->f, msg, r->err))
			return -1;
	}
	return 0;
}

/* ---- driver -------------------------------------------------------- */

/* 1: a line is in r->line; 0: end of file; -1: error (lines.h). */
static int next_line(struct reader *r)
{
	int rc = ibr_lines_next(&r->lines, r->err);

	r->line = r->lines.line;
	r->lineno = r->lines.lineno;
	r->eol = r->lines.eol;
	return rc;
}

/* A record whose header was read and none of its port lines yet: text
 * there is the record's mistake, never the end of a capture. */
static bool header_without_ports(const struct reader *r)
{
	return r->cur != IBR_NONE && r->cur_lines == 0;
}

/* A byte order mark, which an editor may put before the first line. */
static void drop_byte_order_mark(struct reader *r)
{
	if (r->lineno == 1 && strncmp(r->line, "\xEF\xBB\xBF", 3) == 0)
		r->line += 3;
}

static int read_lines(struct reader *r)
{
	int rc;

	while ((rc = next_line(r)) > 0) {
		drop_byte_order_mark(r);
		if (is_text(r->line) && !header_without_ports(r)) {
			hold_text(r);
			continue;
		}
		if (!blank_or_comment(r->line)) {
			if (r->holding && r->in_records)
				return ibr_error_set(r->err, "%s", r->held.msg);
			r->holding = false;
			r->in_records = true;
		}
		if ((r->cur != IBR_NONE ? record_line(r) : top_line(r)) < 0)
			return -1;
	}
	/* nothing but text: no topology file, refused as before */
	if (rc == 0 && r->holding && !r->in_records)
		return ibr_error_set(r->err, "%s", r->held.msg);
	return rc;
}

struct ibr_fabric *ibr_fabric_read_stream(FILE *in, const char *name,
					  struct ibr_error *err)
{
	struct reader r;
	struct ibr_fabric *f = ibr_fabric_new();

	memset(&r, 0, sizeof(r));
	r.name = name ? name : "<stream>";
	r.in = in;
	r.err = err;
	r.f = f;
	ibr_lines_init(&r.lines, in, r.name);
	r.cur = r.last = IBR_NONE;
	r.guid_base[GUID_CA] = r.guid_next[GUID_CA] = CA_GUID_BASE;
	r.guid_base[GUID_SW] = r.guid_next[GUID_SW] = SW_GUID_BASE;
	r.net = (struct rates)IBSIM_RATES;
	if (!f) {
		ibr_error_set(err, "%s: out of memory", r.name);
	} else if (read_lines(&r) || link_all(&r) || set_rates(&r) ||
		   add_notes(&r)) {
		ibr_fabric_free(f);
		f = NULL;
	}
	ibr_lines_free(&r.lines);
	free(r.names);
	free(r.node_name);
	free(r.node_rates);
	free(r.id_slot);
	free(r.pend);
	return f;
}

struct ibr_fabric *ibr_fabric_read_file(const char *path,
					struct ibr_error *err)
{
	struct ibr_fabric *f;
	FILE *in = fopen(path, "r");

	if (!in) {
		ibr_error_set(err, "%s: cannot open: %s", path, strerror(errno));
		return NULL;
	}
	f = ibr_fabric_read_stream(in, path, err);
	fclose(in);
	return f;
}
