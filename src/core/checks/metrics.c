/*
 * metrics.c - link load and path lengths under uniform all-to-all traffic
 * (lid-assignment-color-l §VI-D; see metrics.h).
 *
 * Per destination DLID the routes form an in-tree towards the owner, so
 * flows are summed, not walked: every switch starts with the number of
 * sources that send to this DLID from its CAs, and switches are settled
 * from the farthest to the nearest (bucketed by hop count), each adding
 * its flow to the channel it forwards on and to the next switch.  O(S)
 * per DLID, O(S * C) in all.
 */
#include <stdlib.h>
#include <string.h>

#include "ibrouting/metrics.h"

struct loads {
	const struct ibr_fabric *f;
	const struct ibr_result *r;
	struct ibr_metrics *m;
	uint64_t *chan;        /* per sw_adj entry */
	uint64_t *eject;       /* per end port: flows delivered to it */
	uint64_t *flow;        /* per switch, for the DLID at hand */
	uint32_t *senders;     /* per switch: sources using the DLID */
	uint8_t *hops;
	uint8_t *col;          /* the tables by destination (result.h) */
	uint32_t *bucket_start, *by_hops;
	uint8_t *dlid_used;
};

static uint8_t out_port(const struct loads *w, uint32_t s, ibr_lid_t lid)
{
	return w->col[(size_t)lid * w->f->num_switches + s];
}

static uint32_t link_index(const struct ibr_fabric *f, uint32_t s, uint8_t port)
{
	for (uint32_t i = f->sw_adj_start[s]; i < f->sw_adj_start[s + 1]; i++)
		if (f->sw_adj[i].port == port)
			return i;
	return IBR_NONE;
}

/* Spreads the flows of one DLID down its in-tree. */
static void route_flows(struct loads *w, ibr_lid_t lid, uint32_t dst)
{
	const struct ibr_fabric *f = w->f;
	uint32_t S = f->num_switches;

	ibr_hops_along(f, w->col + (size_t)lid * S, lid, w->hops);
	memset(w->bucket_start, 0, 257 * sizeof(uint32_t));
	for (uint32_t s = 0; s < S; s++)
		w->bucket_start[w->hops[s] + 1]++;
	for (unsigned h = 1; h <= 256; h++)
		w->bucket_start[h] += w->bucket_start[h - 1];
	for (uint32_t s = 0; s < S; s++)
		w->by_hops[w->bucket_start[w->hops[s]]++] = s;
	/* by_hops is now sorted by hops ascending; walk it backwards. */
	for (uint32_t s = 0; s < S; s++)
		w->flow[s] = w->senders[s];
	for (uint32_t k = S; k-- > 0;) {
		uint32_t s = w->by_hops[k], next = 0;
		uint64_t flow = w->flow[s];
		if (flow == 0)
			continue;
		if (w->hops[s] == UINT8_MAX) {
			w->m->unrouted_flows += w->senders[s];
			continue;
		}
		unsigned len = w->hops[s] + 1u;
		w->m->path_len_hist[len < IBR_MAX_PATH_LEN ? len : IBR_MAX_PATH_LEN] +=
			w->senders[s];
		if (ibr_port_step(f, s, lid, out_port(w, s, lid), &next) ==
		    IBR_STEP_NEXT) {
			w->chan[link_index(f, s, out_port(w, s, lid))] += flow;
			w->flow[next] += flow;
		} else {
			w->eject[dst] += flow;
		}
	}
}

static int alloc_loads(struct loads *w)
{
	const struct ibr_fabric *f = w->f;
	uint32_t S = f->num_switches, links = f->sw_adj_start[S];

	w->chan = calloc(links ? links : 1, sizeof(uint64_t));
	w->eject = calloc(f->num_end_ports ? f->num_end_ports : 1, sizeof(uint64_t));
	w->flow = malloc(S * sizeof(uint64_t));
	w->senders = calloc(S, sizeof(uint32_t));
	w->hops = malloc(S);
	w->bucket_start = malloc(257 * sizeof(uint32_t));
	w->by_hops = malloc(S * sizeof(uint32_t));
	w->dlid_used = calloc(f->max_lid + 1u, 1);
	w->col = ibr_result_columns(w->r);
	return w->chan && w->eject && w->flow && w->senders && w->hops &&
	       w->bucket_start && w->by_hops && w->dlid_used && w->col ? 0 : -1;
}

static void free_loads(struct loads *w)
{
	free(w->chan);
	free(w->eject);
	free(w->flow);
	free(w->senders);
	free(w->hops);
	free(w->bucket_start);
	free(w->by_hops);
	free(w->dlid_used);
	free(w->col);
}

/* All flows to end port dst, grouped by the DLID their sources use. */
static void flows_to(struct loads *w, uint32_t dst)
{
	const struct ibr_fabric *f = w->f;
	const struct ibr_port *p = ibr_port(f, f->end_ports[dst].node,
					    f->end_ports[dst].port);
	unsigned count = ibr_port_lid_count(p);

	for (unsigned k = 0; k < count; k++) {
		ibr_lid_t lid = p->base_lid + k;
		uint64_t n = 0;
		memset(w->senders, 0, f->num_switches * sizeof(uint32_t));
		for (uint32_t src = 0; src < f->num_end_ports; src++) {
			if (src == dst ||
			    ibr_result_designated_dlid(w->r, f, src, dst) != lid)
				continue;
			w->senders[f->end_ports[src].sw]++;
			n++;
		}
		if (n == 0)
			continue;
		w->dlid_used[lid] = 1;
		w->m->flows += n;
		route_flows(w, lid, dst);
	}
}

/* Fast path for single-LID engines: senders = CAs per switch. */
static void flows_to_base(struct loads *w, uint32_t dst)
{
	const struct ibr_fabric *f = w->f;
	uint32_t S = f->num_switches;

	for (uint32_t s = 0; s < S; s++)
		w->senders[s] = f->sw_ca_start[s + 1] - f->sw_ca_start[s];
	w->senders[f->end_ports[dst].sw]--;
	w->m->flows += f->num_end_ports - 1;
	w->dlid_used[ibr_end_port_lid(f, dst)] = 1;
	route_flows(w, ibr_end_port_lid(f, dst), dst);
}

int ibr_metrics_compute(const struct ibr_fabric *f, const struct ibr_result *r,
			struct ibr_metrics *m, struct ibr_error *err)
{
	struct loads w = { .f = f, .r = r, .m = m };
	uint64_t len_sum = 0, routed = 0;

	memset(m, 0, sizeof(*m));
	if (alloc_loads(&w)) {
		free_loads(&w);
		return ibr_error_set(err, "metrics: out of memory");
	}
	for (uint32_t dst = 0; dst < f->num_end_ports; dst++) {
		if (r->dlid_offset)
			flows_to(&w, dst);
		else
			flows_to_base(&w, dst);
	}
	for (uint32_t i = 0; i < f->sw_adj_start[f->num_switches]; i++)
		if (w.chan[i] > m->max_link_load)
			m->max_link_load = w.chan[i];
	for (uint32_t e = 0; e < f->num_end_ports; e++)
		if (w.eject[e] > m->max_link_load)
			m->max_link_load = w.eject[e];
	for (unsigned len = 0; len <= IBR_MAX_PATH_LEN; len++) {
		len_sum += (uint64_t)len * m->path_len_hist[len];
		routed += m->path_len_hist[len];
	}
	m->mean_path_len = routed ? (double)len_sum / routed : 0.0;
	for (uint32_t l = 1; l <= f->max_lid; l++) {
		m->lids_assigned += f->lid_owner[l].node != IBR_NONE;
		m->lids_used += w.dlid_used[l];
	}
	free_loads(&w);
	return 0;
}
