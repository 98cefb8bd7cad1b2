/*
 * fabric.c - building and indexing the fabric model (see fabric.h).
 *
 * Building is append-only: nodes and their ports grow in two arrays, links
 * are written on both ends at once.  ibr_fabric_index() is the only place
 * that derives state (switch and end-port indexes, CSR adjacency, the LID
 * owner table); routing code reads only derived state, which is the same
 * whatever order the nodes were added in (switches by node GUID).  It
 * takes the LIDs as they are: giving the missing ones is
 * ibr_lids_assign()'s job (lids.c), and ibr_fabric_finalize() is the two
 * in a row.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ibrouting/fabric.h"
#include "ibrouting/lids.h"

/* Strings are copied into blocks of STRING_BLOCK bytes (a longer one gets
 * a block of its own): a fabric of thousands of nodes interns them with a
 * handful of allocations, and a string never moves once interned. */
#define STRING_BLOCK 16384

static char *intern(struct ibr_fabric *f, const char *s)
{
	size_t len = strlen(s) + 1;
	char *copy;

	if (len > f->string_room) {
		size_t size = len > STRING_BLOCK ? len : STRING_BLOCK;
		char *block;
		if (f->num_strings == f->strings_cap) {
			uint32_t cap = f->strings_cap ? 2 * f->strings_cap : 16;
			char **n = realloc(f->strings, cap * sizeof(*n));
			if (!n)
				return NULL;
			f->strings = n;
			f->strings_cap = cap;
		}
		block = malloc(size);
		if (!block)
			return NULL;
		f->strings[f->num_strings++] = block;
		f->string_next = block;
		f->string_room = size;
	}
	copy = f->string_next;
	memcpy(copy, s, len);
	f->string_next += len;
	f->string_room -= len;
	return copy;
}

struct ibr_fabric *ibr_fabric_new(void)
{
	struct ibr_fabric *f = calloc(1, sizeof(*f));

	if (f)
		f->sm_node = IBR_NONE;
	return f;
}

void ibr_fabric_free(struct ibr_fabric *f)
{
	if (!f)
		return;
	for (uint32_t i = 0; i < f->num_strings; i++)
		free(f->strings[i]);
	free(f->strings);
	ibr_guid_map_free(&f->guid_index);
	free(f->nodes);
	free(f->ports);
	free(f->sw_node);
	free(f->sw_adj_start);
	free(f->sw_adj);
	free(f->sw_ca_start);
	free(f->sw_cas);
	free(f->end_ports);
	free(f->lid_owner);
	free(f->loopbacks);
	free(f->notes);
	free(f);
}

static int grow(void **array, uint32_t *cap, uint32_t need, size_t elem)
{
	uint32_t n = *cap ? *cap : 64;
	void *p;

	if (need <= *cap)
		return 0;
	while (n < need)
		n *= 2;
	p = realloc(*array, (size_t)n * elem);
	if (!p)
		return -1;
	*array = p;
	*cap = n;
	return 0;
}

int ibr_fabric_reserve(struct ibr_fabric *f, uint32_t nodes, uint32_t ports,
		       struct ibr_error *err)
{
	if (grow((void **)&f->nodes, &f->nodes_cap, f->num_nodes + nodes,
		 sizeof(struct ibr_node)) ||
	    grow((void **)&f->ports, &f->ports_cap, f->num_ports + ports,
		 sizeof(struct ibr_port)) ||
	    ibr_guid_map_reserve(&f->guid_index, f->guid_index.count + nodes))
		return ibr_error_set(err, "out of memory for %u nodes, %u ports",
				     nodes, ports);
	return 0;
}

static const char *node_kind(const struct ibr_node *n)
{
	return n->type == IBR_NODE_SWITCH ? "switch" : "CA";
}

uint32_t ibr_fabric_add_node(struct ibr_fabric *f, enum ibr_node_type type,
			     uint64_t guid, unsigned num_ports,
			     const char *desc, const char *origin,
			     struct ibr_error *err)
{
	struct ibr_node *n;
	uint32_t id = f->num_nodes;

	if (num_ports < 1 || num_ports > IBR_MAX_PORTS) {
		ibr_error_set(err, "%s%snode 0x%016llx: %u ports, expected 1..%u",
			      origin ? origin : "", origin ? ": " : "",
			      (unsigned long long)guid, num_ports,
			      IBR_MAX_PORTS);
		return IBR_NONE;
	}
	if (grow((void **)&f->nodes, &f->nodes_cap, id + 1, sizeof(*n)) ||
	    grow((void **)&f->ports, &f->ports_cap,
		 f->num_ports + num_ports + 1, sizeof(struct ibr_port))) {
		ibr_error_set(err, "out of memory adding node %u", id);
		return IBR_NONE;
	}
	n = &f->nodes[id];
	memset(n, 0, sizeof(*n));
	n->type = type;
	n->num_ports = num_ports;
	n->guid = guid;
	n->first_port = f->num_ports;
	n->sw_index = IBR_NONE;
	n->desc = intern(f, desc ? desc : "");
	n->origin = origin ? intern(f, origin) : NULL;
	if (!n->desc || (origin && !n->origin) ||
	    (ibr_fabric_find_guid(f, guid) == IBR_NONE &&
	     ibr_guid_map_put(&f->guid_index, guid, id))) {
		ibr_error_set(err, "out of memory adding node %u", id);
		return IBR_NONE;
	}
	for (unsigned p = 0; p <= num_ports; p++) {
		struct ibr_port *port = &f->ports[f->num_ports + p];
		memset(port, 0, sizeof(*port));
		port->remote_node = IBR_NONE;
		port->guid = type == IBR_NODE_SWITCH ? guid : guid + p;
	}
	f->num_ports += num_ports + 1;
	f->num_nodes++;
	return id;
}

static int check_port(const struct ibr_fabric *f, uint32_t node, unsigned port,
		      struct ibr_error *err)
{
	const struct ibr_node *n = &f->nodes[node];

	if (port < 1 || port > n->num_ports)
		return ibr_error_set(err, "%s%s%s 0x%016llx \"%s\": port %u out of "
				     "range 1..%u", n->origin ? n->origin : "",
				     n->origin ? ": " : "", node_kind(n),
				     (unsigned long long)n->guid, n->desc, port,
				     n->num_ports);
	return 0;
}

/* The loopback listing port `port` of `node`; NULL when none does. */
static const struct ibr_loopback *loopback_at(const struct ibr_fabric *f,
					      uint32_t node, unsigned port)
{
	for (uint32_t i = 0; i < f->num_loopbacks; i++) {
		const struct ibr_loopback *l = &f->loopbacks[i];
		if (l->node == node && (l->port == port || l->peer_port == port))
			return l;
	}
	return NULL;
}

int ibr_fabric_add_loopback(struct ibr_fabric *f, uint32_t node, unsigned pa,
			    unsigned pb, const char *origin,
			    struct ibr_error *err)
{
	const struct ibr_node *n = &f->nodes[node];
	unsigned lo = pa < pb ? pa : pb, hi = pa < pb ? pb : pa;
	const char *at = origin ? origin : n->origin ? n->origin : "";
	const char *sep = *at ? ": " : "";
	struct ibr_loopback *l;

	if (check_port(f, node, pa, err) || check_port(f, node, pb, err))
		return -1;
	if (n->type != IBR_NODE_SWITCH)
		return ibr_error_set(err, "%s%sCA 0x%016llx \"%s\": port %u is "
				     "linked to its own node", at, sep,
				     (unsigned long long)n->guid, n->desc, pa);
	for (unsigned i = 0; i < 2; i++) {
		unsigned port = i ? hi : lo;
		const struct ibr_loopback *other = loopback_at(f, node, port);
		const struct ibr_port *p = ibr_port(f, node, port);
		if (other && other->port == lo && other->peer_port == hi)
			return 0; /* the far end already declared this cable */
		if (other)
			return ibr_error_set(err, "%s%sswitch \"%s\" port %u is "
					     "linked twice: to its own port %u "
					     "and to its own port %u", at, sep,
					     n->desc, port, other->port == port ?
					     other->peer_port : other->port,
					     port == lo ? hi : lo);
		if (p->remote_node != IBR_NONE)
			return ibr_error_set(err, "%s%sswitch \"%s\" port %u is "
					     "linked twice: to \"%s\"[%u] and to "
					     "its own port %u", at, sep, n->desc,
					     port, f->nodes[p->remote_node].desc,
					     p->remote_port, port == lo ? hi : lo);
	}
	if (grow((void **)&f->loopbacks, &f->loopbacks_cap,
		 f->num_loopbacks + 1, sizeof(*l)))
		return ibr_error_set(err, "out of memory for a loopback");
	l = &f->loopbacks[f->num_loopbacks];
	l->node = node;
	l->port = lo;
	l->peer_port = hi;
	l->origin = origin ? intern(f, origin) : NULL;
	if (origin && !l->origin)
		return ibr_error_set(err, "out of memory for a loopback");
	f->num_loopbacks++;
	return 0;
}

int ibr_fabric_add_note(struct ibr_fabric *f, const char *msg,
			struct ibr_error *err)
{
	const char *copy;

	if (grow((void **)&f->notes, &f->notes_cap, f->num_notes + 1,
		 sizeof(*f->notes)))
		return ibr_error_set(err, "out of memory for a note");
	copy = intern(f, msg);
	if (!copy)
		return ibr_error_set(err, "out of memory for a note");
	f->notes[f->num_notes++] = copy;
	return 0;
}

int ibr_fabric_connect(struct ibr_fabric *f, uint32_t a, unsigned pa,
		       uint32_t b, unsigned pb, struct ibr_error *err)
{
	struct ibr_port *x, *y;

	if (check_port(f, a, pa, err) || check_port(f, b, pb, err))
		return -1;
	if (a == b)
		return ibr_fabric_add_loopback(f, a, pa, pb, NULL, err);
	for (unsigned i = 0; i < 2; i++) {
		uint32_t node = i ? b : a;
		unsigned port = i ? pb : pa;
		const struct ibr_loopback *l = loopback_at(f, node, port);
		const struct ibr_node *n = &f->nodes[node];
		if (l)
			return ibr_error_set(err, "%s%sswitch \"%s\" port %u is "
					     "linked twice: to its own port %u "
					     "and to \"%s\"[%u]",
					     n->origin ? n->origin : "",
					     n->origin ? ": " : "", n->desc, port,
					     l->port == port ? l->peer_port :
					     l->port, f->nodes[i ? a : b].desc,
					     i ? pa : pb);
	}
	x = ibr_port(f, a, pa);
	y = ibr_port(f, b, pb);
	if (x->remote_node == b && x->remote_port == pb)
		return 0; /* the far end already declared this link */
	if (x->remote_node != IBR_NONE || y->remote_node != IBR_NONE) {
		const struct ibr_node *busy =
			x->remote_node != IBR_NONE ? &f->nodes[a] : &f->nodes[b];
		unsigned port = x->remote_node != IBR_NONE ? pa : pb;
		const struct ibr_port *bp = x->remote_node != IBR_NONE ? x : y;
		return ibr_error_set(err, "%s%s%s \"%s\" port %u is linked twice: "
				     "to \"%s\"[%u] and to \"%s\"[%u]",
				     busy->origin ? busy->origin : "",
				     busy->origin ? ": " : "", node_kind(busy),
				     busy->desc, port,
				     f->nodes[bp->remote_node].desc,
				     bp->remote_port,
				     f->nodes[bp == x ? b : a].desc,
				     bp == x ? pb : pa);
	}
	x->remote_node = b;
	x->remote_port = pb;
	y->remote_node = a;
	y->remote_port = pa;
	return 0;
}

void ibr_fabric_set_lid(struct ibr_fabric *f, uint32_t node, unsigned port,
			ibr_lid_t base_lid, unsigned lmc)
{
	struct ibr_port *p = ibr_port(f, node, port);

	p->base_lid = base_lid;
	p->lmc = lmc;
}

void ibr_fabric_set_rate(struct ibr_fabric *f, uint32_t node, unsigned port,
			 unsigned width, enum ibr_link_speed speed)
{
	struct ibr_port *p = ibr_port(f, node, port);

	p->width = (uint8_t)width;
	p->speed = (uint8_t)speed;
}

void ibr_fabric_set_link_rate(struct ibr_fabric *f, uint32_t node,
			      unsigned port, unsigned width,
			      enum ibr_link_speed speed)
{
	const struct ibr_port *p = ibr_port(f, node, port);

	ibr_fabric_set_rate(f, node, port, width, speed);
	if (p->remote_node != IBR_NONE)
		ibr_fabric_set_rate(f, p->remote_node, p->remote_port, width,
				    speed);
}

static const char *const speed_names[IBR_SPEED_COUNT] = {
	[IBR_SPEED_SDR] = "SDR", [IBR_SPEED_DDR] = "DDR",
	[IBR_SPEED_QDR] = "QDR", [IBR_SPEED_FDR10] = "FDR10",
	[IBR_SPEED_FDR] = "FDR", [IBR_SPEED_EDR] = "EDR",
	[IBR_SPEED_HDR] = "HDR", [IBR_SPEED_NDR] = "NDR",
};

const char *ibr_speed_name(unsigned speed)
{
	return speed < IBR_SPEED_COUNT ? speed_names[speed] : NULL;
}

enum ibr_link_speed ibr_speed_parse(const char *s, size_t len)
{
	for (unsigned i = IBR_SPEED_SDR; i < IBR_SPEED_COUNT; i++)
		if (strlen(speed_names[i]) == len &&
		    memcmp(s, speed_names[i], len) == 0)
			return (enum ibr_link_speed)i;
	return IBR_SPEED_UNKNOWN;
}

void ibr_fabric_count_lids(const struct ibr_fabric *f, struct ibr_lid_count *c)
{
	bool any_ca = false;

	memset(c, 0, sizeof(*c));
	for (uint32_t lid = 1; lid <= f->max_lid; lid++) {
		const struct ibr_lid_owner *o = &f->lid_owner[lid];
		const struct ibr_port *p;
		if (o->node == IBR_NONE) {
			c->unowned++;
			continue;
		}
		p = ibr_port(f, o->node, o->port);
		c->owned++;
		c->above += lid != p->base_lid;
		if (f->nodes[o->node].type == IBR_NODE_SWITCH) {
			c->sw++;
			continue;
		}
		c->ca++;
		if (!any_ca || p->lmc < c->lmc_min)
			c->lmc_min = p->lmc;
		if (!any_ca || p->lmc > c->lmc_max)
			c->lmc_max = p->lmc;
		any_ca = true;
	}
}

/* FNV-1a over 64-bit words. */
static uint64_t mix(uint64_t h, uint64_t v)
{
	for (unsigned i = 0; i < 8; i++) {
		h ^= (v >> (8 * i)) & 0xFF;
		h *= 0x100000001B3ull;
	}
	return h;
}

/* A node's part of the digest: what it is and what each port holds, a
 * peer named by its GUID, so that the part is the same whatever ids the
 * nodes were given. */
static uint64_t node_digest(const struct ibr_fabric *f, uint32_t n)
{
	const struct ibr_node *node = &f->nodes[n];
	uint64_t h = 0xCBF29CE484222325ull;

	h = mix(h, node->guid);
	h = mix(h, ((uint64_t)node->type << 8) | node->num_ports);
	for (unsigned p = 0; p <= node->num_ports; p++) {
		const struct ibr_port *port = &f->ports[node->first_port + p];
		bool linked = port->remote_node != IBR_NONE;
		h = mix(h, linked ? f->nodes[port->remote_node].guid : 0);
		h = mix(h, ((uint64_t)linked << 32) |
			   ((uint64_t)port->remote_port << 24) |
			   ((uint64_t)port->lmc << 16) | port->base_lid);
	}
	return h;
}

/* The nodes' digests are summed: addition commutes, so the order the
 * nodes were added in changes nothing. */
uint64_t ibr_fabric_fingerprint(const struct ibr_fabric *f)
{
	uint64_t h = 0xCBF29CE484222325ull, nodes = 0;
	bool sm = f->sm_node != IBR_NONE && f->sm_node < f->num_nodes;

	h = mix(h, f->num_nodes);
	h = mix(h, sm ? f->nodes[f->sm_node].guid : 0);
	h = mix(h, ((uint64_t)sm << 8) | f->sm_port);
	h = mix(h, ((uint64_t)f->lmc << 1) | f->lmc_esp0);
	for (uint32_t n = 0; n < f->num_nodes; n++)
		nodes += node_digest(f, n);
	return mix(h, nodes);
}

uint32_t ibr_fabric_find_guid(const struct ibr_fabric *f, uint64_t guid)
{
	return ibr_guid_map_get(&f->guid_index, guid);
}

/* ---- finalize: indexes ---------------------------------------------- */

static const char *where(const struct ibr_node *n)
{
	return n->origin ? n->origin : "";
}

/* "file:line: " of a node that has an origin, for a message to lead
 * with (the form of every reader's messages), else "". */
static const char *lead(const struct ibr_node *n, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s", where(n), n->origin ? ": " : "");
	return buf;
}

struct guid_node {
	uint64_t guid;
	uint32_t node;
};

static int by_guid(const void *a, const void *b)
{
	const struct guid_node *x = a, *y = b;

	if (x->guid != y->guid)
		return x->guid < y->guid ? -1 : 1;
	return x->node < y->node ? -1 : x->node > y->node;
}

/* Switch indexes in ascending node GUID order, whatever order the nodes
 * were added in: every index-ordered walk, and so every tie an engine
 * breaks by index, is the same for any description of the fabric. */
static int index_switches(struct ibr_fabric *f, struct ibr_error *err)
{
	struct guid_node *order;
	uint32_t s = 0;

	for (uint32_t i = 0; i < f->num_nodes; i++)
		if (f->nodes[i].type == IBR_NODE_SWITCH)
			f->num_switches++;
	if (f->num_switches == 0)
		return ibr_error_set(err, "the fabric has no switch");
	f->sw_node = malloc(f->num_switches * sizeof(*f->sw_node));
	order = malloc(f->num_switches * sizeof(*order));
	if (!f->sw_node || !order) {
		free(order);
		return ibr_error_set(err, "out of memory");
	}
	for (uint32_t i = 0; i < f->num_nodes; i++)
		if (f->nodes[i].type == IBR_NODE_SWITCH) {
			order[s].guid = f->nodes[i].guid;
			order[s++].node = i;
		}
	qsort(order, s, sizeof(*order), by_guid);
	for (s = 0; s < f->num_switches; s++) {
		f->nodes[order[s].node].sw_index = s;
		f->sw_node[s] = order[s].node;
	}
	free(order);
	return 0;
}

/* CSR lists per switch, in port order: inter-switch links and CA ports. */
static int index_links(struct ibr_fabric *f, struct ibr_error *err)
{
	uint32_t S = f->num_switches, links = 0, cas = 0;

	f->sw_adj_start = calloc(S + 1, sizeof(uint32_t));
	f->sw_ca_start = calloc(S + 1, sizeof(uint32_t));
	if (!f->sw_adj_start || !f->sw_ca_start)
		return ibr_error_set(err, "out of memory");

	for (uint32_t i = 0; i < f->num_nodes; i++) {
		const struct ibr_node *n = &f->nodes[i];
		for (unsigned p = 1; p <= n->num_ports; p++) {
			const struct ibr_port *port = ibr_port(f, i, p);
			const struct ibr_node *peer;
			if (port->remote_node == IBR_NONE)
				continue;
			peer = &f->nodes[port->remote_node];
			if (n->type == IBR_NODE_CA && peer->type == IBR_NODE_CA)
				return ibr_error_set(err, "%s%sCA \"%s\" port %u is "
						     "linked to CA \"%s\": CAs must "
						     "hang off switches", where(n),
						     n->origin ? ": " : "", n->desc,
						     p, peer->desc);
			if (n->type != IBR_NODE_SWITCH)
				continue;
			if (peer->type == IBR_NODE_SWITCH)
				links++;
			else
				cas++;
		}
	}
	f->sw_adj = malloc((links ? links : 1) * sizeof(*f->sw_adj));
	f->sw_cas = malloc((cas ? cas : 1) * sizeof(*f->sw_cas));
	f->end_ports = malloc((cas ? cas : 1) * sizeof(*f->end_ports));
	if (!f->sw_adj || !f->sw_cas || !f->end_ports)
		return ibr_error_set(err, "out of memory");

	links = cas = 0;
	for (uint32_t s = 0; s < S; s++) {
		uint32_t node = f->sw_node[s];
		f->sw_adj_start[s] = links;
		f->sw_ca_start[s] = cas;
		for (unsigned p = 1; p <= f->nodes[node].num_ports; p++) {
			const struct ibr_port *port = ibr_port(f, node, p);
			const struct ibr_node *peer;
			if (port->remote_node == IBR_NONE)
				continue;
			peer = &f->nodes[port->remote_node];
			if (peer->type == IBR_NODE_SWITCH) {
				f->sw_adj[links].peer = peer->sw_index;
				f->sw_adj[links].port = p;
				f->sw_adj[links].peer_port = port->remote_port;
				links++;
			} else {
				struct ibr_end_port *e = &f->end_ports[cas];
				e->node = port->remote_node;
				e->port = port->remote_port;
				e->sw = s;
				e->sw_port = p;
				f->sw_cas[cas] = cas;
				cas++;
			}
		}
	}
	f->sw_adj_start[S] = links;
	f->sw_ca_start[S] = cas;
	f->num_end_ports = cas;
	return 0;
}

/* Every switch reachable from switch 0; every CA has a link. */
static int check_connected(struct ibr_fabric *f, struct ibr_error *err)
{
	uint32_t S = f->num_switches, head = 0, tail = 0;
	uint32_t *queue = malloc(S * sizeof(uint32_t));
	uint8_t *seen = calloc(S, 1);
	int rc = 0;

	if (!queue || !seen) {
		free(queue);
		free(seen);
		return ibr_error_set(err, "out of memory");
	}
	seen[0] = 1;
	queue[tail++] = 0;
	while (head < tail) {
		uint32_t s = queue[head++];
		for (uint32_t i = f->sw_adj_start[s]; i < f->sw_adj_start[s + 1]; i++) {
			uint32_t t = f->sw_adj[i].peer;
			if (!seen[t]) {
				seen[t] = 1;
				queue[tail++] = t;
			}
		}
	}
	if (tail < S) {
		for (uint32_t s = 0; s < S; s++)
			if (!seen[s]) {
				const struct ibr_node *cut = ibr_switch(f, s);
				const struct ibr_node *main = ibr_switch(f, 0);
				rc = ibr_error_set(err, "disconnected fabric: %u of %u "
						   "switches cannot reach switch "
						   "0x%016llx \"%s\", e.g. switch "
						   "0x%016llx \"%s\"%s%s", S - tail,
						   S, (unsigned long long)main->guid,
						   main->desc,
						   (unsigned long long)cut->guid,
						   cut->desc, cut->origin ? " at " : "",
						   where(cut));
				break;
			}
	}
	for (uint32_t i = 0; rc == 0 && i < f->num_nodes; i++) {
		const struct ibr_node *n = &f->nodes[i];
		bool linked = false;
		if (n->type != IBR_NODE_CA)
			continue;
		for (unsigned p = 1; p <= n->num_ports && !linked; p++)
			linked = ibr_port(f, i, p)->remote_node != IBR_NONE;
		if (!linked)
			rc = ibr_error_set(err, "disconnected fabric: CA 0x%016llx "
					   "\"%s\"%s%s has no link to any switch",
					   (unsigned long long)n->guid, n->desc,
					   n->origin ? " at " : "", where(n));
	}
	free(queue);
	free(seen);
	return rc;
}

/* ---- index: the LID owner table ------------------------------------ */

const char *ibr_lid_holder_name(const struct ibr_fabric *f, uint32_t node,
				unsigned port, char *buf, size_t len)
{
	const struct ibr_node *n = &f->nodes[node];

	if (n->type == IBR_NODE_SWITCH)
		snprintf(buf, len, "switch 0x%016llx \"%s\"%s%s",
			 (unsigned long long)n->guid, n->desc,
			 n->origin ? " at " : "", where(n));
	else
		snprintf(buf, len, "CA 0x%016llx \"%s\" port %u%s%s",
			 (unsigned long long)n->guid, n->desc, port,
			 n->origin ? " at " : "", where(n));
	return buf;
}

/* One LID holder's range, checked: set, LMC in range, aligned, in the LID
 * space.
 * A switch without lmc_esp0 owns one LID whatever LMC it was given. */
static int holder_range(struct ibr_fabric *f, uint32_t node, unsigned port,
			unsigned *first, unsigned *count, struct ibr_error *err)
{
	struct ibr_port *p = ibr_port(f, node, port);
	char a[200], at[160];

	lead(&f->nodes[node], at, sizeof(at));
	if (p->base_lid == 0)
		return ibr_error_set(err, "%s%s has no LID", at,
				     ibr_lid_holder_name(f, node, port, a, sizeof(a)));
	if (p->lmc > IBR_MAX_LMC)
		return ibr_error_set(err, "%s%s: LMC %u out of range 0..%u", at,
				     ibr_lid_holder_name(f, node, port, a, sizeof(a)),
				     p->lmc, IBR_MAX_LMC);
	if (f->nodes[node].type == IBR_NODE_SWITCH && !f->lmc_esp0)
		p->lmc = 0;
	*first = p->base_lid;
	*count = ibr_port_lid_count(p);
	if (*first & (*count - 1))
		return ibr_error_set(err, "%s%s: base LID %u is not aligned to "
				     "its LMC %u (multiple of %u expected)", at,
				     ibr_lid_holder_name(f, node, port, a, sizeof(a)),
				     *first, p->lmc, *count);
	if (*first + *count - 1 > IBR_MAX_UCAST_LID)
		return ibr_error_set(err, "%s%s: LID %u+%u is beyond the unicast "
				     "LID space (max 0x%X)", at,
				     ibr_lid_holder_name(f, node, port, a, sizeof(a)),
				     *first, *count - 1, IBR_MAX_UCAST_LID);
	return 0;
}

/* lid_owner[] from the LIDs the holders have: every switch and every end
 * port (the CA ports index_links found) must have one, none shared. */
static int index_lids(struct ibr_fabric *f, struct ibr_error *err)
{
	unsigned first, count, max = 0;
	char a[200], b[200], at[160];

	for (uint32_t s = 0; s < f->num_switches; s++) {
		if (holder_range(f, f->sw_node[s], 0, &first, &count, err))
			return -1;
		if (first + count - 1 > max)
			max = first + count - 1;
	}
	for (uint32_t e = 0; e < f->num_end_ports; e++) {
		if (holder_range(f, f->end_ports[e].node, f->end_ports[e].port,
				 &first, &count, err))
			return -1;
		if (first + count - 1 > max)
			max = first + count - 1;
	}
	f->max_lid = max;
	f->lid_owner = malloc((max + 1u) * sizeof(*f->lid_owner));
	if (!f->lid_owner)
		return ibr_error_set(err, "out of memory");
	for (unsigned l = 0; l <= max; l++) {
		f->lid_owner[l].node = IBR_NONE;
		f->lid_owner[l].port = 0;
	}
	for (uint32_t i = 0; i < f->num_switches + f->num_end_ports; i++) {
		uint32_t node = i < f->num_switches ? f->sw_node[i] :
				f->end_ports[i - f->num_switches].node;
		unsigned port = i < f->num_switches ? 0 :
				f->end_ports[i - f->num_switches].port;
		holder_range(f, node, port, &first, &count, err);
		for (unsigned l = first; l < first + count; l++) {
			struct ibr_lid_owner *o = &f->lid_owner[l];
			if (o->node != IBR_NONE)
				return ibr_error_set(err, "%sLID %u is held twice: "
						     "by %s and by %s",
						     lead(&f->nodes[node], at,
							  sizeof(at)), l,
						     ibr_lid_holder_name(f, o->node,
								 o->port, b,
								 sizeof(b)),
						     ibr_lid_holder_name(f, node, port,
								 a, sizeof(a)));
			o->node = node;
			o->port = port;
		}
	}
	return 0;
}

int ibr_fabric_index(struct ibr_fabric *f, struct ibr_error *err)
{
	if (f->finalized)
		return 0;
	if (f->num_nodes >= (1u << 24))
		return ibr_error_set(err, "too many nodes: %u", f->num_nodes);
	if (index_switches(f, err) || index_links(f, err) ||
	    check_connected(f, err) || index_lids(f, err))
		return -1;
	f->finalized = true;
	return 0;
}

int ibr_fabric_finalize(struct ibr_fabric *f, unsigned lmc,
			struct ibr_error *err)
{
	if (f->finalized)
		return 0;
	if (ibr_lids_assign(f, lmc, err))
		return -1;
	return ibr_fabric_index(f, err);
}
