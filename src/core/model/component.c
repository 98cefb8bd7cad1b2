/*
 * component.c - one connected part of a fabric, as OpenSM discovers it
 * (see component.h).
 *
 * Invariants: a node is kept iff it is a switch reached from the seed
 * switch over switch-to-switch links, or a CA with a port linked to such
 * a switch; the new fabric adds the kept nodes in their old order, so
 * node ids and messages follow the file as they would had the file held
 * the kept part only (switch indexes, and so tables, are in GUID order
 * anyway).  A fabric with nothing to leave out is not copied.
 */
#include <stdlib.h>
#include <string.h>

#include "ibrouting/component.h"

/* The switch a node or port GUID stands for: the switch itself, or the
 * switch the CA's port (the CA node's first linked port) hangs off. */
static uint32_t seed_switch(const struct ibr_fabric *f, uint64_t guid,
			    struct ibr_error *err)
{
	for (uint32_t n = 0; n < f->num_nodes; n++) {
		const struct ibr_node *node = &f->nodes[n];
		bool node_hit = node->guid == guid;
		if (node->type == IBR_NODE_SWITCH) {
			if (node_hit || ibr_port(f, n, 0)->guid == guid)
				return n;
			continue;
		}
		for (unsigned p = 1; p <= node->num_ports; p++) {
			const struct ibr_port *port = ibr_port(f, n, p);
			if ((node_hit || port->guid == guid) &&
			    port->remote_node != IBR_NONE &&
			    f->nodes[port->remote_node].type == IBR_NODE_SWITCH)
				return port->remote_node;
		}
		if (node_hit)
			break;
	}
	for (uint32_t n = 0; n < f->num_nodes; n++)
		if (f->nodes[n].guid == guid)
			ibr_error_set(err, "%s%snode 0x%016llx \"%s\" is linked to "
				      "no switch: it has no part of the fabric "
				      "to route", f->nodes[n].origin ?
				      f->nodes[n].origin : "",
				      f->nodes[n].origin ? ": " : "",
				      (unsigned long long)guid, f->nodes[n].desc);
	ibr_error_set(err, "0x%016llx: no such node or port GUID in the "
		      "fabric", (unsigned long long)guid);
	return IBR_NONE;
}

/* The SM's switch: its own node, or the switch its CA port hangs off
 * (another port of the CA may lead to another part: the SM's port
 * decides, as it decides what OpenSM discovers). */
static uint32_t sm_switch(const struct ibr_fabric *f, struct ibr_error *err)
{
	const struct ibr_node *n = &f->nodes[f->sm_node];
	const struct ibr_port *p = ibr_port(f, f->sm_node, f->sm_port);

	if (n->type == IBR_NODE_SWITCH)
		return f->sm_node;
	if (p->remote_node != IBR_NONE &&
	    f->nodes[p->remote_node].type == IBR_NODE_SWITCH)
		return p->remote_node;
	ibr_error_set(err, "%s%sthe SM's port %u of CA 0x%016llx \"%s\" is "
		      "linked to no switch: OpenSM there discovers no fabric",
		      n->origin ? n->origin : "", n->origin ? ": " : "",
		      f->sm_port, (unsigned long long)n->guid, n->desc);
	return IBR_NONE;
}

static uint32_t first_switch(const struct ibr_fabric *f)
{
	for (uint32_t n = 0; n < f->num_nodes; n++)
		if (f->nodes[n].type == IBR_NODE_SWITCH)
			return n;
	return IBR_NONE;
}

/* keep[n] for every node; returns the number kept. */
static uint32_t mark(const struct ibr_fabric *f, uint32_t seed, uint8_t *keep,
		     uint32_t *queue)
{
	uint32_t head = 0, tail = 0, kept = 0;

	keep[seed] = 1;
	queue[tail++] = seed;
	while (head < tail) {
		uint32_t s = queue[head++];
		for (unsigned p = 1; p <= f->nodes[s].num_ports; p++) {
			uint32_t t = ibr_port(f, s, p)->remote_node;
			if (t == IBR_NONE || keep[t])
				continue;
			keep[t] = 1;  /* a CA is kept, but not walked through */
			if (f->nodes[t].type == IBR_NODE_SWITCH)
				queue[tail++] = t;
		}
	}
	for (uint32_t n = 0; n < f->num_nodes; n++)
		kept += keep[n];
	return kept;
}

static struct ibr_fabric *copy_kept(const struct ibr_fabric *f,
				    const uint8_t *keep, uint32_t *new_id,
				    struct ibr_error *err)
{
	struct ibr_fabric *g = ibr_fabric_new();

	if (!g) {
		ibr_error_set(err, "out of memory");
		return NULL;
	}
	for (uint32_t n = 0; n < f->num_nodes; n++) {
		const struct ibr_node *node = &f->nodes[n];
		new_id[n] = IBR_NONE;
		if (!keep[n])
			continue;
		new_id[n] = ibr_fabric_add_node(g, node->type, node->guid,
						node->num_ports, node->desc,
						node->origin, err);
		if (new_id[n] == IBR_NONE)
			goto fail;
		for (unsigned p = 0; p <= node->num_ports; p++) {
			const struct ibr_port *a = ibr_port(f, n, p);
			struct ibr_port *b = ibr_port(g, new_id[n], p);
			b->guid = a->guid;
			b->base_lid = a->base_lid;
			b->lmc = a->lmc;
			b->width = a->width;
			b->speed = a->speed;
		}
	}
	for (uint32_t n = 0; n < f->num_nodes; n++)
		for (unsigned p = 1; keep[n] && p <= f->nodes[n].num_ports; p++) {
			const struct ibr_port *a = ibr_port(f, n, p);
			uint32_t m = a->remote_node;
			/* each link once, from its lower end (or port) */
			if (m == IBR_NONE || !keep[m] ||
			    (m < n || (m == n && a->remote_port < p)))
				continue;
			if (f->nodes[n].type == IBR_NODE_CA &&
			    f->nodes[m].type == IBR_NODE_CA)
				continue; /* CAs are not walked: not OpenSM's */
			if (ibr_fabric_connect(g, new_id[n], p, new_id[m],
					       a->remote_port, err))
				goto fail;
		}
	/* what the reader let through is still to be said */
	for (uint32_t i = 0; i < f->num_notes; i++)
		if (ibr_fabric_add_note(g, f->notes[i], err))
			goto fail;
	g->lmc_esp0 = f->lmc_esp0;
	g->lmc = f->lmc;
	if (f->sm_node != IBR_NONE && keep[f->sm_node]) {
		g->sm_node = new_id[f->sm_node];
		g->sm_port = f->sm_port;
	}
	return g;
fail:
	ibr_fabric_free(g);
	return NULL;
}

static void note_left_out(const struct ibr_fabric *f, const uint8_t *keep,
			  struct ibr_left_out *left)
{
	for (uint32_t n = 0; n < f->num_nodes; n++) {
		if (keep[n])
			continue;
		if (f->nodes[n].type == IBR_NODE_SWITCH)
			left->switches++;
		else
			left->cas++;
		if (left->shown < IBR_LEFT_OUT_SHOWN)
			left->first[left->shown++] = f->nodes[n].guid;
	}
}

int ibr_fabric_keep_component(struct ibr_fabric **fp, uint64_t guid,
			      struct ibr_left_out *left, struct ibr_error *err)
{
	struct ibr_fabric *f = *fp, *g;
	uint32_t seed, *scratch;
	uint8_t *keep;
	int rc = -1;

	memset(left, 0, sizeof(*left));
	if (guid)
		seed = seed_switch(f, guid, err);
	else if (f->sm_node != IBR_NONE)
		seed = sm_switch(f, err);
	else
		seed = first_switch(f);
	if (seed == IBR_NONE)
		return guid || f->sm_node != IBR_NONE ? -1 :
		       ibr_error_set(err, "the fabric has no switch");
	left->seed_guid = f->nodes[seed].guid;
	keep = calloc(f->num_nodes, 1);
	scratch = malloc(f->num_nodes * sizeof(*scratch));
	if (!keep || !scratch) {
		ibr_error_set(err, "out of memory");
		goto out;
	}
	if (mark(f, seed, keep, scratch) == f->num_nodes) {
		rc = 0;
		goto out;
	}
	g = copy_kept(f, keep, scratch, err);
	if (!g)
		goto out;
	note_left_out(f, keep, left);
	ibr_fabric_free(f);
	*fp = g;
	rc = 0;
out:
	free(keep);
	free(scratch);
	return rc;
}
