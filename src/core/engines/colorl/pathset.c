/*
 * pathset.c - paths and their realisation as columns (see pathset.h).
 *
 * Invariant: first[0] = 0 and first[p + 1] - first[p] is path p's length;
 * hop_switch/hop_port grow together.  Realisation writes an entry only
 * where the column holds IBR_NO_PATH or the same port; anything else is a
 * split between two paths of that LID, and is refused.
 */
#include <stdlib.h>
#include <string.h>

#include "ibrouting/pathset.h"
#include "ibrouting/walk.h"

void ibr_pathset_init(struct ibr_pathset *ps)
{
	memset(ps, 0, sizeof(*ps));
}

void ibr_pathset_free(struct ibr_pathset *ps)
{
	free(ps->src);
	free(ps->dst);
	free(ps->first);
	free(ps->hop_switch);
	free(ps->hop_port);
	memset(ps, 0, sizeof(*ps));
}

static int grow_paths(struct ibr_pathset *ps)
{
	uint32_t cap = ps->paths_cap ? 2 * ps->paths_cap : 64;
	uint32_t *src = realloc(ps->src, cap * sizeof(uint32_t));
	uint32_t *dst = src ? realloc(ps->dst, cap * sizeof(uint32_t)) : NULL;
	uint32_t *first = dst ? realloc(ps->first, (cap + 1) * sizeof(uint32_t)) : NULL;

	if (src)
		ps->src = src;
	if (dst)
		ps->dst = dst;
	if (!first)
		return -1;
	ps->first = first;
	if (ps->paths_cap == 0)
		ps->first[0] = 0;
	ps->paths_cap = cap;
	return 0;
}

static int grow_hops(struct ibr_pathset *ps, uint32_t need)
{
	uint32_t cap = ps->hops_cap ? ps->hops_cap : 256;
	uint32_t *sw;
	uint8_t *port;

	while (cap < need)
		cap *= 2;
	sw = realloc(ps->hop_switch, cap * sizeof(uint32_t));
	if (!sw)
		return -1;
	ps->hop_switch = sw;
	port = realloc(ps->hop_port, cap);
	if (!port)
		return -1;
	ps->hop_port = port;
	ps->hops_cap = cap;
	return 0;
}

uint32_t ibr_pathset_add(struct ibr_pathset *ps, uint32_t src, uint32_t dst,
			 const uint32_t *sw, const uint8_t *port, uint32_t len,
			 struct ibr_error *err)
{
	uint32_t p = ps->num_paths;

	if ((p == ps->paths_cap && grow_paths(ps)) ||
	    (ps->num_hops + len > ps->hops_cap &&
	     grow_hops(ps, ps->num_hops + len))) {
		ibr_error_set(err, "out of memory: %u paths, %u hops", p,
			      ps->num_hops + len);
		return IBR_NONE;
	}
	memcpy(ps->hop_switch + ps->num_hops, sw, len * sizeof(uint32_t));
	memcpy(ps->hop_port + ps->num_hops, port, len);
	ps->num_hops += len;
	ps->src[p] = src;
	ps->dst[p] = dst;
	ps->first[p + 1] = ps->num_hops;
	ps->num_paths++;
	return p;
}

uint32_t ibr_pathset_add_walk(struct ibr_pathset *ps,
			      const struct ibr_walker *w,
			      const struct ibr_result *r, uint32_t src,
			      uint32_t dst, ibr_lid_t lid,
			      struct ibr_error *err)
{
	const struct ibr_fabric *f = w->f;
	uint32_t S = f->num_switches, len = 0, s = f->end_ports[src].sw;
	uint32_t *sw = malloc(S * sizeof(uint32_t));
	uint8_t *port = malloc(S);
	uint32_t p = IBR_NONE;

	if (!sw || !port) {
		ibr_error_set(err, "out of memory walking LID %u", lid);
		goto out;
	}
	for (;;) {
		uint32_t next = 0;
		enum ibr_step st = ibr_walker_entry_step(w, r, s, lid, &next);
		if (len == S || (st != IBR_STEP_NEXT && st != IBR_STEP_ARRIVED)) {
			ibr_error_set(err, "the walk from end port %u to LID %u "
				      "fails at switch 0x%016llx", src, lid,
				      (unsigned long long)ibr_switch(f, s)->guid);
			goto out;
		}
		sw[len] = s;
		port[len++] = ibr_entry(r, s, lid);
		if (st == IBR_STEP_ARRIVED)
			break;
		s = next;
	}
	p = ibr_pathset_add(ps, src, dst, sw, port, len, err);
out:
	free(sw);
	free(port);
	return p;
}

/* The path must be a chain of links from src's switch to dst. */
static int check_chain(const struct ibr_pathset *ps, const struct ibr_fabric *f,
		       uint32_t p, struct ibr_error *err)
{
	const struct ibr_end_port *s = &f->end_ports[ps->src[p]];
	const struct ibr_end_port *d = &f->end_ports[ps->dst[p]];
	uint32_t a = ps->first[p], b = ps->first[p + 1];

	if (a == b || ps->hop_switch[a] != s->sw ||
	    ps->hop_switch[b - 1] != d->sw || ps->hop_port[b - 1] != d->sw_port)
		return ibr_error_set(err, "path %u from end port %u to %u does "
				     "not run from the source's switch to the "
				     "destination", p, ps->src[p], ps->dst[p]);
	for (uint32_t i = a; i + 1 < b; i++) {
		uint8_t port = ps->hop_port[i];
		uint32_t node = f->sw_node[ps->hop_switch[i]];
		const struct ibr_port *out;
		if (port < 1 || port > f->nodes[node].num_ports)
			goto broken;
		out = ibr_port(f, node, port);
		if (out->remote_node != f->sw_node[ps->hop_switch[i + 1]])
			goto broken;
	}
	return 0;
broken:
	return ibr_error_set(err, "path %u from end port %u to %u: hop %u is "
			     "not a link to the next switch", p, ps->src[p],
			     ps->dst[p], ps->first[p + 1] - b);
}

/* Writes path p on lid; refuses a split with what the column holds. */
static int write_path(const struct ibr_pathset *ps, const struct ibr_fabric *f,
		      uint32_t p, ibr_lid_t lid, struct ibr_result *r,
		      struct ibr_error *err)
{
	for (uint32_t i = ps->first[p]; i < ps->first[p + 1]; i++) {
		uint32_t s = ps->hop_switch[i];
		uint8_t have = ibr_entry(r, s, lid);
		if (have != IBR_NO_PATH && have != ps->hop_port[i])
			return ibr_error_set(err, "path %u (end port %u -> %u) "
					     "splits at switch 0x%016llx on LID "
					     "%u: it leaves by port %u, another "
					     "path of that LID by port %u", p,
					     ps->src[p], ps->dst[p],
					     (unsigned long long)ibr_switch(f, s)->guid,
					     lid, ps->hop_port[i], have);
		ibr_set_entry(r, s, lid, ps->hop_port[i]);
	}
	return 0;
}

int ibr_pathset_realise(const struct ibr_pathset *ps,
			const struct ibr_fabric *f, const uint8_t *offset,
			struct ibr_result *r, struct ibr_error *err)
{
	uint8_t *taken;
	int rc = -1;

	if (!r->designated.offset && ibr_designated_init(r, f, false, err))
		return -1;
	taken = calloc(((size_t)r->designated.rows * r->designated.cols + 7) / 8, 1);
	if (!taken)
		return ibr_error_set(err, "out of memory realising %u paths",
				     ps->num_paths);
	for (uint32_t p = 0; p < ps->num_paths; p++) {
		const struct ibr_end_port *d = &f->end_ports[ps->dst[p]];
		const struct ibr_port *dp = ibr_port(f, d->node, d->port);
		size_t slot;
		if (offset[p] == IBR_NOT_REALISED)
			continue;
		if (offset[p] >= ibr_port_lid_count(dp)) {
			ibr_error_set(err, "path %u (end port %u -> %u): offset "
				      "%u beyond the destination's %u LIDs", p,
				      ps->src[p], ps->dst[p], offset[p],
				      ibr_port_lid_count(dp));
			goto out;
		}
		if (check_chain(ps, f, p, err) ||
		    write_path(ps, f, p, dp->base_lid + offset[p], r, err))
			goto out;
		slot = (size_t)ibr_designated_row(r, f, ps->src[p]) *
		       r->designated.cols + ps->dst[p];
		if ((taken[slot / 8] >> (slot % 8) & 1) &&
		    r->designated.offset[slot] != offset[p]) {
			ibr_error_set(err, "path %u (end port %u -> %u) is "
				      "realised on offset %u, another path of "
				      "the pair on offset %u", p, ps->src[p],
				      ps->dst[p], offset[p],
				      r->designated.offset[slot]);
			goto out;
		}
		taken[slot / 8] |= 1u << (slot % 8);
		r->designated.offset[slot] = offset[p];
	}
	rc = 0;
out:
	free(taken);
	return rc;
}
