/*
 * lids.c - LID assignment, OpenSM's way (see lids.h for the rule).
 *
 * Three steps: claim the LIDs the source fixed (validated in node order,
 * so messages name the first offender in that order); cut the rest of
 * 1..0xBFFF into free ranges; hand blocks out of them to the holders
 * without a LID, the SM's port first, then by byte-swapped port GUID.
 * Nothing here needs the fabric indexed: holders are found from the
 * nodes and their links.
 *
 * ibr_lids_for_lmc() runs before them when the LMC asked for is not the
 * one the source's LIDs were given with, and does what OpenSM's LID
 * manager does to LIDs it finds in the ports' PortInfo (its guid2lid cache
 * empty): first every range that is aligned for the new LMC is reserved,
 * whoever else's LID lies inside it (lid_mgr_init_sweep); then, in the
 * order above, a holder keeps its LID when its range is aligned and no
 * holder served before kept a LID in it (lid_mgr_get_port_lid), else it
 * takes a block of the free ranges, which the reserved ranges cut
 * (lid_mgr_find_free_lid_range).  A reserved range whose holder lost it
 * is never handed out: OpenSM leaves it unused too.  Afterwards every
 * holder has a LID that fits, so the three steps just claim them.
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

/* The LMC of a holder's range under subnet LMC lmc: a switch without
 * lmc_esp0 owns one LID. */
static unsigned holder_lmc(const struct ibr_fabric *f, uint32_t node,
			   unsigned lmc)
{
	return f->nodes[node].type == IBR_NODE_SWITCH && !f->lmc_esp0 ? 0 : lmc;
}

static int assign(struct ibr_fabric *f, struct lid_state *s,
		  const struct holder *h, unsigned subnet_lmc,
		  struct ibr_error *err)
{
	struct ibr_port *p = ibr_port(f, h->node, h->port);
	unsigned lmc = holder_lmc(f, h->node, subnet_lmc);
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

/* The holders in the order OpenSM serves them; all of them, or only
 * those without a LID. */
static int holders_in_order(struct ibr_fabric *f, bool only_missing,
			    struct holder **out, uint32_t *count,
			    struct ibr_error *err)
{
	struct holder *h;
	uint32_t n = 0, sm_node;
	unsigned sm_p;

	for (uint32_t i = 0; i < f->num_nodes; i++)
		for (unsigned p = 0; p <= f->nodes[i].num_ports; p++)
			if (holds_lid(f, i, p) &&
			    (!only_missing || ibr_port(f, i, p)->base_lid == 0))
				n++;
	h = malloc((n ? n : 1) * sizeof(*h));
	if (!h)
		return ibr_error_set(err, "out of memory");
	n = 0;
	for (uint32_t i = 0; i < f->num_nodes; i++)
		for (unsigned p = 0; p <= f->nodes[i].num_ports; p++)
			if (holds_lid(f, i, p) &&
			    (!only_missing || ibr_port(f, i, p)->base_lid == 0)) {
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
	if (holders_in_order(f, true, &h, &n, err) || find_ranges(&s, err))
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

/* Some fixed LID was given with another range than subnet LMC lmc gives
 * its holder (an LMC out of range is left to ibr_lids_assign's message). */
static bool lmc_differs(const struct ibr_fabric *f, unsigned lmc)
{
	for (uint32_t i = 0; i < f->num_nodes; i++)
		for (unsigned p = 0; p <= f->nodes[i].num_ports; p++) {
			const struct ibr_port *port = ibr_port(f, i, p);
			if (holds_lid(f, i, p) && port->base_lid &&
			    port->lmc <= IBR_MAX_LMC &&
			    holder_lmc(f, i, port->lmc) != holder_lmc(f, i, lmc))
				return true;
		}
	return false;
}

/* The range [base, base + count) is aligned and inside the LID space. */
static bool range_fits(unsigned base, unsigned count)
{
	return base && (base & (count - 1)) == 0 &&
	       base + count - 1 <= IBR_MAX_UCAST_LID;
}

int ibr_lids_for_lmc(struct ibr_fabric *f, unsigned lmc,
		     struct ibr_lid_moves *m, struct ibr_error *err)
{
	struct lid_state s = { 0 };
	struct holder *h = NULL;
	bool *taken = NULL;      /* per LID: in the range of a holder served */
	uint32_t n = 0;
	int rc = -1;

	memset(m, 0, sizeof(*m));
	if (lmc > IBR_MAX_LMC)
		return ibr_error_set(err, "LMC %u out of range 0..%u", lmc,
				     IBR_MAX_LMC);
	if (!lmc_differs(f, lmc))
		return 0;
	m->relid = true;
	s.owner = malloc((IBR_MAX_UCAST_LID + 1) * sizeof(*s.owner));
	taken = calloc(IBR_MAX_UCAST_LID + 1, sizeof(*taken));
	if (!s.owner || !taken) {
		ibr_error_set(err, "out of memory");
		goto out;
	}
	for (unsigned l = 0; l <= IBR_MAX_UCAST_LID; l++)
		s.owner[l].node = IBR_NONE;
	s.owner[0].node = 0; /* LID 0 is reserved */
	/* OpenSM's init sweep: every range aligned for the new LMC is
	 * reserved, and only the rest is free */
	for (uint32_t i = 0; i < f->num_nodes; i++)
		for (unsigned p = 0; p <= f->nodes[i].num_ports; p++) {
			unsigned base = ibr_port(f, i, p)->base_lid;
			unsigned count = 1u << holder_lmc(f, i, lmc);
			if (!holds_lid(f, i, p) || !range_fits(base, count))
				continue;
			for (unsigned l = base; l < base + count; l++) {
				s.owner[l].node = i;
				s.owner[l].port = p;
			}
		}
	if (find_ranges(&s, err) || holders_in_order(f, false, &h, &n, err))
		goto out;
	for (uint32_t i = 0; i < n; i++) {
		struct ibr_port *p = ibr_port(f, h[i].node, h[i].port);
		unsigned hl = holder_lmc(f, h[i].node, lmc), count = 1u << hl;
		unsigned base = p->base_lid;
		bool keep = range_fits(base, count);
		for (unsigned l = base; keep && l < base + count; l++)
			keep = !taken[l];
		if (keep) {
			m->kept++;
		} else if (take_block(&s, hl, &base)) {
			char a[160];
			ibr_error_set(err, "more LIDs than the LID space: no free "
				      "block of %u LIDs left for %s", count,
				      ibr_lid_holder_name(f, h[i].node, h[i].port,
							  a, sizeof(a)));
			goto out;
		} else if (p->base_lid) {
			m->moved++;
		} else {
			m->fresh++;
		}
		for (unsigned l = base; l < base + count; l++)
			taken[l] = true;
		p->base_lid = (ibr_lid_t)base;
		p->lmc = (uint8_t)hl;
	}
	rc = 0;
out:
	free(h);
	free(taken);
	free(s.ranges);
	free(s.owner);
	return rc;
}
