/*
 * lids.c - LID assignment, OpenSM's way (see lids.h for the rule).
 *
 * Three steps: claim the LIDs the source fixed (validated in node order,
 * so messages name the first offender as before); cut the rest of
 * 1..0xBFFF into free ranges; hand blocks out of them to the holders
 * without a LID, the SM's port first, then by byte-swapped port GUID.
 * Nothing here needs the fabric indexed: holders are found from the
 * nodes and their links.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ibrouting/lids.h"

/* A holder of LIDs: switch port 0, or a CA port. */
struct holder {
	uint32_t node;
	uint8_t port;
	uint64_t key;              /* OpenSM's port_guid_tbl order */
};

/* A free LID range [min, max]; min grows as blocks are taken. */
struct range {
	unsigned min, max;
};

struct lid_state {
	struct ibr_lid_owner *owner;  /* per LID 0..IBR_MAX_UCAST_LID */
	struct range *ranges;
	uint32_t num_ranges;
	uint32_t first[IBR_MAX_LMC + 1]; /* per block size: no fit before */
};

static bool holds_lid(const struct ibr_fabric *f, uint32_t node,
		      unsigned port)
{
	if (f->nodes[node].type == IBR_NODE_SWITCH)
		return port == 0;
	return port >= 1 && port <= f->nodes[node].num_ports &&
	       ibr_port(f, node, port)->remote_node != IBR_NONE;
}

/* A fixed LID: aligned, in range, not taken. */
static int claim(struct ibr_fabric *f, struct lid_state *s, uint32_t node,
		 unsigned port, struct ibr_error *err)
{
	struct ibr_port *p = ibr_port(f, node, port);
	const struct ibr_node *n = &f->nodes[node];
	/* messages lead with the node's file:line, as the readers' do */
	const char *at = n->origin ? n->origin : "", *sep = n->origin ? ": " : "";
	char a[160], b[160];
	unsigned count;

	if (p->lmc > IBR_MAX_LMC)
		return ibr_error_set(err, "%s%s%s: LMC %u out of range 0..%u", at, sep,
				     ibr_lid_holder_name(f, node, port, a, sizeof(a)),
				     p->lmc, IBR_MAX_LMC);
	if (f->nodes[node].type == IBR_NODE_SWITCH && !f->lmc_esp0)
		p->lmc = 0;
	count = ibr_port_lid_count(p);
	if (p->base_lid & (count - 1))
		return ibr_error_set(err, "%s%s%s: base LID %u is not aligned to "
				     "its LMC %u (multiple of %u expected)", at, sep,
				     ibr_lid_holder_name(f, node, port, a, sizeof(a)),
				     p->base_lid, p->lmc, count);
	if ((unsigned)p->base_lid + count - 1 > IBR_MAX_UCAST_LID)
		return ibr_error_set(err, "%s%s%s: LID %u+%u is beyond the "
				     "unicast LID space (max 0x%X)", at, sep,
				     ibr_lid_holder_name(f, node, port, a, sizeof(a)),
				     p->base_lid, count - 1, IBR_MAX_UCAST_LID);
	for (unsigned l = p->base_lid; l < p->base_lid + count; l++) {
		if (s->owner[l].node != IBR_NONE)
			return ibr_error_set(err, "%s%sLID %u is given twice: to "
					     "%s and to %s", at, sep, l,
					     ibr_lid_holder_name(f, s->owner[l].node,
							 s->owner[l].port, b,
							 sizeof(b)),
					     ibr_lid_holder_name(f, node, port, a,
							 sizeof(a)));
		s->owner[l].node = node;
		s->owner[l].port = port;
	}
	return 0;
}

/* The free ranges left between the fixed LIDs, ascending. */
static int find_ranges(struct lid_state *s, struct ibr_error *err)
{
	uint32_t n = 0;

	for (unsigned l = 1; l <= IBR_MAX_UCAST_LID; l++)
		if (s->owner[l].node == IBR_NONE &&
		    (l == 1 || s->owner[l - 1].node != IBR_NONE))
			n++;
	s->ranges = malloc((n ? n : 1) * sizeof(*s->ranges));
	if (!s->ranges)
		return ibr_error_set(err, "out of memory");
	for (unsigned l = 1; l <= IBR_MAX_UCAST_LID; l++) {
		if (s->owner[l].node != IBR_NONE)
			continue;
		if (l == 1 || s->owner[l - 1].node != IBR_NONE)
			s->ranges[s->num_ranges++].min = l;
		s->ranges[s->num_ranges - 1].max = l;
	}
	return 0;
}

/* 2^lmc LIDs from the first range that holds them once its start is
 * rounded up to a multiple of 2^lmc; the range then starts after them.
 * Ranges only shrink, so one that cannot hold a block now never will:
 * the search for each size resumes where it last succeeded. */
static int take_block(struct lid_state *s, unsigned lmc, unsigned *base)
{
	unsigned count = 1u << lmc;

	for (uint32_t r = s->first[lmc]; r < s->num_ranges; r++) {
		struct range *g = &s->ranges[r];
		unsigned lid = (g->min + count - 1) & ~(count - 1);
		if (lid + count - 1 <= g->max) {
			g->min = lid + count;
			s->first[lmc] = r;
			*base = lid;
			return 0;
		}
	}
	s->first[lmc] = s->num_ranges;
	return -1;
}

static int assign(struct ibr_fabric *f, struct lid_state *s,
		  const struct holder *h, unsigned subnet_lmc,
		  struct ibr_error *err)
{
	struct ibr_port *p = ibr_port(f, h->node, h->port);
	bool is_switch = f->nodes[h->node].type == IBR_NODE_SWITCH;
	unsigned lmc = is_switch && !f->lmc_esp0 ? 0 : subnet_lmc;
	unsigned lid;
	char a[160];

	if (take_block(s, lmc, &lid))
		return ibr_error_set(err, "more LIDs than the LID space: no "
				     "free block of %u LIDs left for %s",
				     1u << lmc, ibr_lid_holder_name(f, h->node, h->port,
							    a, sizeof(a)));
	for (unsigned l = lid; l < lid + (1u << lmc); l++) {
		s->owner[l].node = h->node;
		s->owner[l].port = h->port;
	}
	p->base_lid = lid;
	p->lmc = lmc;
	return 0;
}

static uint64_t swap64(uint64_t v)
{
	uint64_t r = 0;

	for (int i = 0; i < 8; i++, v >>= 8)
		r = r << 8 | (v & 0xFF);
	return r;
}

static int by_key(const void *a, const void *b)
{
	const struct holder *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	if (x->node != y->node)
		return x->node < y->node ? -1 : 1;
	return (x->port > y->port) - (x->port < y->port);
}

/* The SM's port: the one set, else ibsim's default attachment. */
static bool sm_port(const struct ibr_fabric *f, uint32_t *node, unsigned *port)
{
	if (f->sm_node != IBR_NONE && f->sm_node < f->num_nodes) {
		*node = f->sm_node;
		*port = f->nodes[*node].type == IBR_NODE_SWITCH ? 0 : f->sm_port;
	} else if (f->num_nodes > 0) {
		*node = 0;
		*port = f->nodes[0].type == IBR_NODE_SWITCH ? 0 : 1;
	} else {
		return false;
	}
	return holds_lid(f, *node, *port);
}

/* The holders without a LID, in the order OpenSM serves them. */
static int missing_holders(struct ibr_fabric *f, struct holder **out,
			   uint32_t *count, struct ibr_error *err)
{
	struct holder *h;
	uint32_t n = 0, sm_node;
	unsigned sm_p;

	for (uint32_t i = 0; i < f->num_nodes; i++)
		for (unsigned p = 0; p <= f->nodes[i].num_ports; p++)
			if (holds_lid(f, i, p) && ibr_port(f, i, p)->base_lid == 0)
				n++;
	h = malloc((n ? n : 1) * sizeof(*h));
	if (!h)
		return ibr_error_set(err, "out of memory");
	n = 0;
	for (uint32_t i = 0; i < f->num_nodes; i++)
		for (unsigned p = 0; p <= f->nodes[i].num_ports; p++)
			if (holds_lid(f, i, p) && ibr_port(f, i, p)->base_lid == 0) {
				h[n].node = i;
				h[n].port = p;
				h[n].key = swap64(ibr_port(f, i, p)->guid);
				n++;
			}
	qsort(h, n, sizeof(*h), by_key);
	/* the SM's port before every other */
	if (sm_port(f, &sm_node, &sm_p))
		for (uint32_t i = 0; i < n; i++)
			if (h[i].node == sm_node && h[i].port == sm_p) {
				struct holder sm = h[i];
				memmove(h + 1, h, i * sizeof(*h));
				h[0] = sm;
				break;
			}
	*out = h;
	*count = n;
	return 0;
}

int ibr_lids_assign(struct ibr_fabric *f, unsigned lmc, struct ibr_error *err)
{
	struct lid_state s = { 0 };
	struct holder *h = NULL;
	uint32_t n = 0;
	int rc = -1;

	if (lmc > IBR_MAX_LMC)
		return ibr_error_set(err, "LMC %u out of range 0..%u", lmc,
				     IBR_MAX_LMC);
	f->lmc = lmc;
	s.owner = malloc((IBR_MAX_UCAST_LID + 1) * sizeof(*s.owner));
	if (!s.owner)
		return ibr_error_set(err, "out of memory");
	for (unsigned l = 0; l <= IBR_MAX_UCAST_LID; l++)
		s.owner[l].node = IBR_NONE;
	s.owner[0].node = 0; /* LID 0 is reserved */

	for (uint32_t i = 0; i < f->num_nodes; i++)
		for (unsigned p = 0; p <= f->nodes[i].num_ports; p++)
			if (holds_lid(f, i, p) && ibr_port(f, i, p)->base_lid &&
			    claim(f, &s, i, p, err))
				goto out;
	if (missing_holders(f, &h, &n, err) || find_ranges(&s, err))
		goto out;
	for (uint32_t i = 0; i < n; i++)
		if (assign(f, &s, &h[i], lmc, err))
			goto out;
	rc = 0;
out:
	free(h);
	free(s.ranges);
	free(s.owner);
	return rc;
}
