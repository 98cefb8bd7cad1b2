/*
 * dlids.c - the designated DLIDs file, ibrouting-dlids.dump (format in
 * dump.h), written and read.
 *
 * Invariants: the writer lists exactly the pairs whose designated offset
 * is not 0, in (source, destination) end-port order; the reader accepts
 * only lines whose GUIDs name end ports of the fabric, whose LIDs are
 * those ports' LIDs and whose DLID lies in the destination's range, so a
 * file read back gives the map it was written from.  The header says the
 * subnet's LMC ("# lmc N") when every CA port has the same, as no file of
 * OpenSM's does: the dump reader takes it from there; and the root set
 * the tables were routed from ("# roots GUID...:"), which a run from
 * these tables keeps (roots.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ibrouting/atomic_file.h"
#include "ibrouting/dump.h"
#include "util/lines.h"

#define DLIDS_FILE "ibrouting-dlids.dump"
#define LMC_LINE "# lmc "
#define ROOTS_LINE "# roots "
#define MAX_ROOTS_READ 4096

static uint64_t end_port_guid(const struct ibr_fabric *f, uint32_t e)
{
	return ibr_port(f, f->end_ports[e].node, f->end_ports[e].port)->guid;
}

static int dlids_path(char *path, size_t len, const char *dir,
		      struct ibr_error *err)
{
	if ((size_t)snprintf(path, len, "%s/" DLIDS_FILE, dir) >= len)
		return ibr_error_set(err, "%s/" DLIDS_FILE ": path too long", dir);
	return 0;
}

/* The LMC every CA port has, or -1 when they differ (a file's own). */
static int common_lmc(const struct ibr_fabric *f)
{
	int lmc = -1;

	for (uint32_t e = 0; e < f->num_end_ports; e++) {
		const struct ibr_end_port *ep = &f->end_ports[e];
		int l = ibr_port(f, ep->node, ep->port)->lmc;
		if (lmc >= 0 && l != lmc)
			return -1;
		lmc = l;
	}
	return lmc;
}

int ibr_dlids_write(const char *dir, const struct ibr_fabric *f,
		    const struct ibr_result *r, struct ibr_error *err)
{
	struct ibr_atomic_file af;
	int lmc = common_lmc(f);
	FILE *out;

	/* replaced whole: a reader never sees half a file (atomic_file.h) */
	if (ibr_atomic_open(&af, dir, DLIDS_FILE, err))
		return -1;
	out = af.out;
	fputs("# ibrouting designated DLIDs: end port SRC sends to end port "
	      "DST on DLID.\n# Pairs not listed use DST's base LID.\n", out);
	if (lmc >= 0)
		fprintf(out, LMC_LINE "%d: every CA port owns 2^%d LIDs from its "
			"base LID (the subnet's LMC)\n", lmc, lmc);
	if (r->num_roots) {
		fputs(ROOTS_LINE, out);
		for (uint32_t i = 0; i < r->num_roots; i++)
			fprintf(out, "%s0x%016" PRIx64, i ? " " : "",
				ibr_switch(f, r->roots[i])->guid);
		fputs(": the switches these tables were routed from\n", out);
	}
	fputs("# SRC-PORT-GUID SRC-LID DST-PORT-GUID DST-BASE-LID DLID\n", out);
	for (uint32_t src = 0; r->designated.offset && src < f->num_end_ports;
	     src++)
		for (uint32_t dst = 0; dst < f->num_end_ports; dst++) {
			uint8_t k = ibr_designated_offset(r, f, src, dst);
			if (k == 0 || src == dst)
				continue;
			fprintf(out, "0x%016" PRIx64 " %u 0x%016" PRIx64 " %u %u\n",
				end_port_guid(f, src), ibr_end_port_lid(f, src),
				end_port_guid(f, dst), ibr_end_port_lid(f, dst),
				ibr_end_port_lid(f, dst) + k);
		}
	return ibr_atomic_commit(&af, err);
}

int ibr_dlids_read_lmc(const char *dir, int *lmc, struct ibr_error *err)
{
	char path[4096];
	struct ibr_lines l;
	FILE *in;
	int more;

	*lmc = -1;
	if (dlids_path(path, sizeof(path), dir, err))
		return -1;
	in = fopen(path, "r");
	if (!in)
		return errno == ENOENT ? 0 :
		       ibr_error_set(err, "%s: cannot open: %s", path,
				     strerror(errno));
	ibr_lines_init(&l, in, path);
	/* the header: comment lines before the first pair */
	while ((more = ibr_lines_next(&l, err)) > 0 && l.line[0] == '#') {
		unsigned v;
		char colon;
		if (strncmp(l.line, LMC_LINE, strlen(LMC_LINE)) != 0)
			continue;
		if (sscanf(l.line + strlen(LMC_LINE), "%u%c", &v, &colon) != 2 ||
		    colon != ':' || v > IBR_MAX_LMC) {
			ibr_error_set(err, "%s:%u: expected \"" LMC_LINE "N:\" with "
				      "N 0..%d", path, l.lineno, IBR_MAX_LMC);
			more = -1;
			break;
		}
		*lmc = (int)v;
		break;
	}
	ibr_lines_free(&l);
	fclose(in);
	return more < 0 ? -1 : 0;
}

struct guid_end_port {
	uint64_t guid;
	uint32_t e;
};

static int by_guid(const void *a, const void *b)
{
	uint64_t x = ((const struct guid_end_port *)a)->guid;
	uint64_t y = ((const struct guid_end_port *)b)->guid;

	return x < y ? -1 : x > y;
}

static uint32_t find_end_port(const struct guid_end_port *index, uint32_t n,
			      uint64_t guid)
{
	struct guid_end_port key = { guid, 0 };
	const struct guid_end_port *hit = bsearch(&key, index, n, sizeof(key),
						  by_guid);

	return hit ? hit->e : IBR_NONE;
}

/* One line: the pair and its offset, or a message naming path:line. */
static int parse_line(const char *line, const char *path, unsigned lineno,
		      const struct ibr_fabric *f,
		      const struct guid_end_port *index, uint32_t *src,
		      uint32_t *dst, uint8_t *offset, struct ibr_error *err)
{
	uint64_t sg, dg;
	unsigned sl, dl, dlid, count;
	const struct ibr_port *dp;
	int used = 0;

	if (sscanf(line, "%" SCNx64 " %u %" SCNx64 " %u %u %n", &sg, &sl, &dg,
		   &dl, &dlid, &used) != 5 || line[used] != '\0')
		return ibr_error_set(err, "%s:%u: expected SRC-PORT-GUID SRC-LID "
				     "DST-PORT-GUID DST-BASE-LID DLID", path,
				     lineno);
	*src = find_end_port(index, f->num_end_ports, sg);
	*dst = find_end_port(index, f->num_end_ports, dg);
	if (*src == IBR_NONE || *dst == IBR_NONE)
		return ibr_error_set(err, "%s:%u: port 0x%016" PRIx64 " is not "
				     "an end port of the fabric", path, lineno,
				     *src == IBR_NONE ? sg : dg);
	if (sl != ibr_end_port_lid(f, *src) || dl != ibr_end_port_lid(f, *dst))
		return ibr_error_set(err, "%s:%u: LIDs %u and %u, the fabric "
				     "gives these ports %u and %u", path, lineno,
				     sl, dl, ibr_end_port_lid(f, *src),
				     ibr_end_port_lid(f, *dst));
	dp = ibr_port(f, f->end_ports[*dst].node, f->end_ports[*dst].port);
	count = ibr_port_lid_count(dp);
	if (dlid < dl || dlid >= dl + count)
		return ibr_error_set(err, "%s:%u: DLID %u is not one of the "
				     "destination's LIDs %u..%u", path, lineno,
				     dlid, dl, dl + count - 1);
	*offset = (uint8_t)(dlid - dl);
	return 0;
}

/* "# roots GUID...: ..." into r's root set: switches of f, at most
 * MAX_ROOTS_READ. */
static int parse_roots(const char *line, const char *path, unsigned lineno,
		       const struct ibr_fabric *f, struct ibr_result *r,
		       struct ibr_error *err)
{
	uint32_t *sw = malloc(MAX_ROOTS_READ * sizeof(uint32_t)), n = 0;
	const char *p = line + strlen(ROOTS_LINE);
	struct ibr_error local = { "" };
	int rc = -1;

	if (!sw)
		return ibr_error_set(err, "%s:%u: out of memory", path, lineno);
	for (;;) {
		uint64_t g;
		uint32_t node;
		int used = 0;
		if (*p == ':' && n > 0)
			break;
		if (n == MAX_ROOTS_READ ||
		    sscanf(p, " %" SCNx64 "%n", &g, &used) != 1) {
			ibr_error_set(err, "%s:%u: expected \"" ROOTS_LINE
				      "GUID...:\" with 1 to %u switch GUIDs",
				      path, lineno, MAX_ROOTS_READ);
			goto out;
		}
		node = ibr_fabric_find_guid(f, g);
		if (node == IBR_NONE || f->nodes[node].type != IBR_NODE_SWITCH) {
			ibr_error_set(err, "%s:%u: root 0x%016" PRIx64 " is not a "
				      "switch of the fabric", path, lineno, g);
			goto out;
		}
		sw[n++] = f->nodes[node].sw_index;
		p += used;
	}
	if (ibr_result_set_roots(r, sw, n, &local))
		ibr_error_set(err, "%s:%u: out of memory for %u roots", path,
			      lineno, n);
	else
		rc = 0;
out:
	free(sw);
	return rc;
}

int ibr_dlids_read(const char *dir, const struct ibr_fabric *f,
		   struct ibr_result *r, struct ibr_error *err)
{
	char path[4096];
	struct guid_end_port *index = NULL;
	struct ibr_lines l;
	FILE *in;
	int rc = -1, more;

	if (dlids_path(path, sizeof(path), dir, err))
		return -1;
	in = fopen(path, "r");
	if (!in)
		return errno == ENOENT ? 0 :
		       ibr_error_set(err, "%s: cannot open: %s", path,
				     strerror(errno));
	ibr_lines_init(&l, in, path);
	index = malloc((f->num_end_ports ? f->num_end_ports : 1) * sizeof(*index));
	if (!index) {
		ibr_error_set(err, "%s: out of memory", path);
		goto out;
	}
	for (uint32_t e = 0; e < f->num_end_ports; e++)
		index[e] = (struct guid_end_port){ end_port_guid(f, e), e };
	qsort(index, f->num_end_ports, sizeof(*index), by_guid);
	while ((more = ibr_lines_next(&l, err)) > 0) {
		struct ibr_error e = { "" };
		uint32_t src = 0, dst = 0;
		uint8_t k = 0;
		if (strncmp(l.line, ROOTS_LINE, strlen(ROOTS_LINE)) == 0) {
			if (parse_roots(l.line, path, l.lineno, f, r, err))
				goto out;
			continue;
		}
		if (l.line[0] == '#' || l.line[0] == '\0')
			continue;
		if (parse_line(l.line, path, l.lineno, f, index, &src, &dst, &k,
			       err))
			goto out;
		if (!r->designated.offset &&
		    ibr_designated_init(r, f, false, &e)) {
			ibr_error_set(err, "%s:%u: %s", path, l.lineno, e.msg);
			goto out;
		}
		r->designated.offset[(size_t)src * r->designated.cols + dst] = k;
	}
	if (more < 0)
		goto out;
	rc = 0;
out:
	ibr_lines_free(&l);
	free(index);
	fclose(in);
	return rc;
}
