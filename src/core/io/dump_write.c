/*
 * dump_write.c - OpenSM's routing dumps, written (see dump.h).
 *
 * Writes opensm-subnet.lst, opensm-lfts.dump and opensm.fdbs in the formats
 * of OpenSM 3.3's osm_dump.c (dump_topology_node, dump_ucast_lfts,
 * dump_ucast_routes), so that ibdmchk and scripts made for OpenSM read them.
 *
 * Invariants of the output:
 *   - nodes (subnet list) and switches (LFTs, fdbs) come in ascending node
 *     GUID order.  OpenSM walks a map keyed by the GUID in network byte
 *     order, which on a little-endian host is byte-reversed order; readers
 *     do not depend on it.
 *   - opensm-subnet.lst: one line per connected port of every node, ports
 *     ascending, so every link appears twice (once from each end).  A
 *     switch record shows the switch's port-0 LID, a CA record its port's
 *     LID.  We have no NodeInfo, so SystemGUID = NodeGUID, VenID = 0,
 *     DevID = 0, Rev = 0.  Every link is active (LOG=ACT) at the width
 *     and speed the fabric read gave it (PHY=, SPD=, osm_rates.h), 4x
 *     and 10 (QDR) where none is known (a generated fabric).
 *     "-SM" marks the fabric's SM node (its SM port for a CA).
 *   - opensm-lfts.dump: per switch, LIDs 1..max_lid whose entry is a port
 *     of the switch (0..num_ports); IBR_NO_PATH entries are skipped, as
 *     OpenSM skips ports >= its port count.  The header and trailer give
 *     the fabric's max_lid.
 *   - opensm.fdbs: per switch, every LID 1..max_lid: UNREACHABLE when no
 *     port owns it or the entry is IBR_NO_PATH, HOPS UNKNOWN when the walk
 *     along the tables fails, else the hop count along the tables and
 *     "yes" when it equals the shortest path in the switch graph (plus the
 *     CA link), otherwise "No <min> hop path possible via port <p>!" with
 *     p the lowest port that starts a shortest path.
 *   - descriptions are printed as OpenSM's print_desc: at most 63 bytes,
 *     non-printable bytes replaced by spaces, no other quoting.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ibrouting/atomic_file.h"
#include "ibrouting/dump.h"
#include "ibrouting/walk.h"
#include "osm_rates.h"

#define DUMP_VENDOR_ID 0x000000u
#define DUMP_DEVICE_ID 0x0000u
#define DUMP_REVISION  0x00000000u
#define DESC_MAX       63 /* OpenSM's clean_nodedesc() limit */
#define DIST_MAX       254

struct writer {
	const struct ibr_fabric *f;
	const struct ibr_result *r;
	uint32_t *node_order;   /* node ids by ascending GUID */
	uint32_t *sw_order;     /* switch indexes by ascending GUID */
	uint8_t *hops;          /* [lid * S + s]: hops along the tables */
	uint8_t *dist;          /* [t * S + s]: switch-graph distance */
};

struct by_guid {
	uint64_t guid;
	uint32_t id;
};

static int cmp_guid(const void *a, const void *b)
{
	const struct by_guid *x = a, *y = b;

	if (x->guid != y->guid)
		return x->guid < y->guid ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* Node ids (or switch indexes) 0..n-1 in ascending GUID order. */
static uint32_t *sorted_ids(const struct ibr_fabric *f, uint32_t n,
			    bool switches)
{
	struct by_guid *tmp = malloc((n ? n : 1) * sizeof(*tmp));
	uint32_t *ids = malloc((n ? n : 1) * sizeof(*ids));

	if (!tmp || !ids) {
		free(tmp);
		free(ids);
		return NULL;
	}
	for (uint32_t i = 0; i < n; i++) {
		tmp[i].id = i;
		tmp[i].guid = switches ? ibr_switch(f, i)->guid : f->nodes[i].guid;
	}
	qsort(tmp, n, sizeof(*tmp), cmp_guid);
	for (uint32_t i = 0; i < n; i++)
		ids[i] = tmp[i].id;
	free(tmp);
	return ids;
}

/* OpenSM's print_desc: clean_nodedesc() of the 64-byte NodeDescription. */
static const char *print_desc(const char *desc, char buf[DESC_MAX + 1])
{
	size_t i;

	for (i = 0; i < DESC_MAX && desc[i]; i++)
		buf[i] = isprint((unsigned char)desc[i]) ? desc[i] : ' ';
	buf[i] = '\0';
	return buf;
}

/* ---- opensm-subnet.lst ---------------------------------------------- */

static bool is_sm_port(const struct ibr_fabric *f, uint32_t node, unsigned port)
{
	if (f->sm_node != node)
		return false;
	return f->nodes[node].type == IBR_NODE_SWITCH || f->sm_port == port;
}

/* One "{ ... }" record; the far end prints VenID on 8 digits, as OpenSM. */
static void write_port_record(FILE *out, const struct ibr_fabric *f,
			      uint32_t node, unsigned port, bool far_end)
{
	const struct ibr_node *n = &f->nodes[node];
	bool sw = n->type == IBR_NODE_SWITCH;
	const struct ibr_port *lid_port = ibr_port(f, node, sw ? 0 : port);
	char desc[DESC_MAX + 1];

	fprintf(out, "{ %s%s Ports:%02X SystemGUID:%016" PRIx64
		" NodeGUID:%016" PRIx64 " PortGUID:%016" PRIx64
		" VenID:%0*X DevID:%04X Rev:%08X {%s} LID:%04X PN:%02X } ",
		sw ? "SW" : "CA", is_sm_port(f, node, port) ? "-SM" : "",
		n->num_ports, n->guid, n->guid, ibr_port(f, node, port)->guid,
		far_end ? 8 : 6, DUMP_VENDOR_ID, DUMP_DEVICE_ID, DUMP_REVISION,
		print_desc(n->desc, desc), lid_port->base_lid, port);
}

static void write_subnet_lst(FILE *out, const struct writer *w)
{
	const struct ibr_fabric *f = w->f;

	for (uint32_t i = 0; i < f->num_nodes; i++) {
		uint32_t node = w->node_order[i];
		for (unsigned p = 1; p <= f->nodes[node].num_ports; p++) {
			const struct ibr_port *port = ibr_port(f, node, p);
			if (port->remote_node == IBR_NONE)
				continue;
			write_port_record(out, f, node, p, false);
			write_port_record(out, f, port->remote_node,
					  port->remote_port, true);
			fprintf(out, "PHY=%ux LOG=ACT SPD=%s\n",
				port->width ? port->width : 4u,
				port->speed ? osm_speed_text(port->speed) : "10");
		}
	}
}

/* ---- opensm-lfts.dump ----------------------------------------------- */

static void write_lid_owner(FILE *out, const struct ibr_fabric *f,
			    ibr_lid_t lid)
{
	const struct ibr_lid_owner *o = &f->lid_owner[lid];
	const struct ibr_node *n;
	char desc[DESC_MAX + 1];

	if (o->node == IBR_NONE) {
		fputs("unknown node and type", out);
		return;
	}
	n = &f->nodes[o->node];
	fprintf(out, "%s portguid 0x%016" PRIx64 ": '%s'",
		n->type == IBR_NODE_SWITCH ? "Switch" : "Channel Adapter",
		ibr_port(f, o->node, o->port)->guid, print_desc(n->desc, desc));
}

static void write_lfts(FILE *out, const struct writer *w)
{
	const struct ibr_fabric *f = w->f;
	unsigned max_lid = f->max_lid;

	for (uint32_t i = 0; i < f->num_switches; i++) {
		uint32_t s = w->sw_order[i];
		const struct ibr_node *n = ibr_switch(f, s);
		char desc[DESC_MAX + 1];

		fprintf(out, "Unicast lids [0-%u] of switch Lid %u guid 0x%016"
			PRIx64 " ('%s'):\n", max_lid, ibr_switch_lid(f, s),
			n->guid, print_desc(n->desc, desc));
		for (unsigned lid = 1; lid <= max_lid; lid++) {
			uint8_t port = ibr_entry(w->r, s, lid);
			if (port > n->num_ports)
				continue;
			fprintf(out, "0x%04x %03u # ", lid, port);
			write_lid_owner(out, f, lid);
			fputc('\n', out);
		}
		fprintf(out, "%u lids dumped\n", max_lid);
	}
}

/* ---- opensm.fdbs ---------------------------------------------------- */

/* dist[t * S + s]: links between switches t and s, saturated at DIST_MAX. */
static int switch_distances(struct writer *w)
{
	const struct ibr_fabric *f = w->f;
	uint32_t S = f->num_switches;
	uint32_t *queue = malloc(S * sizeof(*queue));

	if (!queue)
		return -1;
	for (uint32_t t = 0; t < S; t++) {
		uint8_t *d = w->dist + (size_t)t * S;
		uint32_t head = 0, tail = 0;

		memset(d, UINT8_MAX, S);
		d[t] = 0;
		queue[tail++] = t;
		while (head < tail) {
			uint32_t s = queue[head++];
			uint8_t next = d[s] < DIST_MAX ? d[s] + 1 : DIST_MAX;
			for (uint32_t i = f->sw_adj_start[s];
			     i < f->sw_adj_start[s + 1]; i++) {
				uint32_t peer = f->sw_adj[i].peer;
				if (d[peer] == UINT8_MAX) {
					d[peer] = next;
					queue[tail++] = peer;
				}
			}
		}
	}
	free(queue);
	return 0;
}

/* The switch a LID's owner is (or hangs off). */
static uint32_t owner_switch(const struct ibr_fabric *f,
			     const struct ibr_lid_owner *o)
{
	const struct ibr_node *n = &f->nodes[o->node];
	const struct ibr_port *p;

	if (n->type == IBR_NODE_SWITCH)
		return n->sw_index;
	p = ibr_port(f, o->node, o->port);
	return f->nodes[p->remote_node].sw_index;
}

/* Lowest port of switch s starting a shortest path to the owner o. */
static unsigned best_port(const struct writer *w, uint32_t s, uint32_t t,
			  const struct ibr_lid_owner *o)
{
	const struct ibr_fabric *f = w->f;
	const uint8_t *d = w->dist + (size_t)t * f->num_switches;

	if (s == t) {
		if (f->nodes[o->node].type == IBR_NODE_SWITCH)
			return 0;
		return ibr_port(f, o->node, o->port)->remote_port;
	}
	for (uint32_t i = f->sw_adj_start[s]; i < f->sw_adj_start[s + 1]; i++)
		if (d[f->sw_adj[i].peer] + 1 == d[s])
			return f->sw_adj[i].port;
	return IBR_NO_PATH; /* unreachable: the switch graph is connected */
}

static void write_fdb_entry(FILE *out, const struct writer *w, uint32_t s,
			    ibr_lid_t lid)
{
	const struct ibr_fabric *f = w->f;
	const struct ibr_lid_owner *o = &f->lid_owner[lid];
	unsigned port = ibr_entry(w->r, s, lid);
	unsigned hops, best;
	uint32_t t;

	fprintf(out, "0x%04X : ", lid);
	if (o->node == IBR_NONE || port == IBR_NO_PATH) {
		fputs("UNREACHABLE\n", out);
		return;
	}
	hops = w->hops[(size_t)lid * f->num_switches + s];
	if (hops == IBR_HOPS_FAILED) {
		fprintf(out, "%03u  : HOPS UNKNOWN\n", port);
		return;
	}
	t = owner_switch(f, o);
	best = w->dist[(size_t)t * f->num_switches + s];
	if (f->nodes[o->node].type != IBR_NODE_SWITCH)
		best++;
	fprintf(out, "%03u  : %02u   : ", port, hops);
	if (hops == best)
		fputs("yes\n", out);
	else
		fprintf(out, "No %u hop path possible via port %u!\n", best,
			best_port(w, s, t, o));
}

static void write_fdbs(FILE *out, const struct writer *w)
{
	const struct ibr_fabric *f = w->f;

	for (uint32_t i = 0; i < f->num_switches; i++) {
		uint32_t s = w->sw_order[i];
		fprintf(out, "dump_ucast_routes: Switch 0x%016" PRIx64
			"\nLID    : Port : Hops : Optimal\n", ibr_switch(f, s)->guid);
		for (unsigned lid = 1; lid <= f->max_lid; lid++)
			write_fdb_entry(out, w, s, lid);
	}
}

/* hops[lid * S + s] along the tables, IBR_HOPS_FAILED where a walk fails. */
static int hops_along_tables(struct writer *w, struct ibr_error *err)
{
	const struct ibr_fabric *f = w->f;
	uint32_t S = f->num_switches;
	struct ibr_walker walker;

	if (ibr_walker_init(&walker, f, err))
		return -1;
	memset(w->hops, IBR_HOPS_FAILED, (size_t)w->r->num_lids * S);
	for (unsigned lid = 1; lid <= f->max_lid; lid++) {
		if (f->lid_owner[lid].node == IBR_NONE)
			continue;
		ibr_walk_column(&walker, ibr_column(w->r, lid), lid, NULL);
		memcpy(w->hops + (size_t)lid * S, walker.hops, S);
	}
	ibr_walker_free(&walker);
	return 0;
}

/* ---- files ---------------------------------------------------------- */

/* Each file is replaced whole (atomic_file.h): a reader of the directory
 * (a script, ibdmchk) sees the previous version of a file or the new one,
 * never a part of it.  The files are replaced one after the other, so
 * between two renames a reader may find one file of each run. */

static int write_file(const char *dir, const char *name, const struct writer *w,
		      void (*fn)(FILE *, const struct writer *),
		      struct ibr_error *err)
{
	struct ibr_atomic_file af;

	if (ibr_atomic_open(&af, dir, name, err))
		return -1;
	fn(af.out, w);
	return ibr_atomic_commit(&af, err);
}

int ibr_dump_write(const char *dir, const struct ibr_fabric *f,
		   const struct ibr_result *r, struct ibr_error *err)
{
	struct writer w = { .f = f, .r = r };
	uint32_t S = f->num_switches;
	int rc = -1;

	if (!f->finalized)
		return ibr_error_set(err, "dump %s: the fabric is not finalized",
				     dir);
	if (r->num_switches != S || r->num_lids != f->max_lid + 1u)
		return ibr_error_set(err, "dump %s: tables are for %u switches "
				     "and %u LIDs, the fabric has %u and %u",
				     dir, r->num_switches, r->num_lids, S,
				     f->max_lid + 1u);
	w.node_order = sorted_ids(f, f->num_nodes, false);
	w.sw_order = sorted_ids(f, S, true);
	w.hops = malloc((size_t)r->num_lids * S);
	w.dist = malloc((size_t)S * S);
	if (!w.node_order || !w.sw_order || !w.hops || !w.dist ||
	    switch_distances(&w)) {
		ibr_error_set(err, "dump %s: out of memory", dir);
		goto out;
	}
	if (hops_along_tables(&w, err))
		goto out;
	if (write_file(dir, "opensm-subnet.lst", &w, write_subnet_lst, err) ||
	    write_file(dir, "opensm-lfts.dump", &w, write_lfts, err) ||
	    write_file(dir, "opensm.fdbs", &w, write_fdbs, err) ||
	    ibr_dlids_write(dir, f, r, err))
		goto out;
	rc = 0;
out:
	free(w.node_order);
	free(w.sw_order);
	free(w.hops);
	free(w.dist);
	return rc;
}
