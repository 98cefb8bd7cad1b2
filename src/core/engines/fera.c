/*
 * fera.c - FERa, the Fully Explicit Routing algorithm (PIRa paper §2.3,
 * subnet-management-evaluation §2.3).
 *
 * For every destination, every switch gets an explicit entry:
 *   1. if some down port reaches the destination legally (down links only
 *      from there on), up options are ignored and the shortest such down
 *      route is taken;
 *   2. otherwise the shortest legal route, which starts with an up link;
 *   3. ties go to the lowest port number.
 * This reproduces Fig. 6 of the paper entry for entry.
 *
 * Cost: one legality-aware pass per destination switch, O(E) each:
 *   - a BFS up from the destination finds `down_dist`, the length of the
 *     shortest all-down route of every switch that has one (set D);
 *   - a sweep in up/down order (updown.h: up links point to earlier
 *     switches) gives every other switch 1 + the best route of its up
 *     neighbours, which are all settled before it;
 * CA LIDs take the route of their switch plus the final link, so CAs
 * cost only their table writes.  Total O(S * (E + L)).  The tables are
 * stored by destination, so each LID's column is one memcpy.
 *
 * Invariant per destination: route_dist[s] is the length of the route
 * switch s's entry starts; every entry leads to the destination along a
 * legal up/down path, so the tables are deadlock-free on one VL.
 */
#include <stdlib.h>
#include <string.h>

#include "engines.h"

struct fera {
	const struct ibr_fabric *f;
	const struct ibr_updown *ud;
	struct ibr_result *r;
	uint8_t *link_up;       /* per sw_adj entry: 1 if it points up */
	uint32_t *down_dist;    /* per switch, IBR_FAR outside D */
	uint32_t *route_dist;   /* per switch */
	uint8_t *out_port;      /* per switch: the chosen port */
	uint32_t *queue;
};

/* Rule 1 then rule 3: the lowest down port one step closer to d. */
static uint8_t best_down_port(const struct fera *w, uint32_t s)
{
	const struct ibr_fabric *f = w->f;

	for (uint32_t i = f->sw_adj_start[s]; i < f->sw_adj_start[s + 1]; i++) {
		uint32_t t = f->sw_adj[i].peer;
		if (!w->link_up[i] && w->down_dist[t] + 1 == w->down_dist[s])
			return f->sw_adj[i].port;
	}
	return IBR_NO_PATH; /* unreachable: BFS parents are down neighbours */
}

/* Rule 2 then rule 3: shortest route through an up neighbour. */
static void best_up_route(struct fera *w, uint32_t s)
{
	const struct ibr_fabric *f = w->f;
	uint32_t best = IBR_FAR;
	uint8_t port = IBR_NO_PATH;

	for (uint32_t i = f->sw_adj_start[s]; i < f->sw_adj_start[s + 1]; i++) {
		uint32_t t = f->sw_adj[i].peer;
		if (w->link_up[i] && w->route_dist[t] != IBR_FAR &&
		    w->route_dist[t] + 1 < best) {
			best = w->route_dist[t] + 1;
			port = f->sw_adj[i].port;
		}
	}
	w->route_dist[s] = best;
	w->out_port[s] = port;
}

static void route_to_switch(struct fera *w, uint32_t d)
{
	const struct ibr_updown *ud = w->ud;

	ibr_down_distances(w->f, w->link_up, d, w->down_dist, w->queue);
	for (uint32_t k = 0; k < ud->num_switches; k++) {
		uint32_t s = ud->order[k];
		if (s == d) {
			w->route_dist[s] = 0;
			w->out_port[s] = 0;
		} else if (w->down_dist[s] != IBR_FAR) {
			w->route_dist[s] = w->down_dist[s];
			w->out_port[s] = best_down_port(w, s);
		} else {
			best_up_route(w, s);
		}
	}
}

/* Writes the column of every LID of `lid`'s range: one contiguous copy of
 * the switches' ports per LID. */
static void write_lids(struct fera *w, ibr_lid_t lid, unsigned count,
		       uint32_t at_switch, uint8_t final_port)
{
	uint32_t S = w->f->num_switches;

	for (unsigned k = 0; k < count; k++) {
		uint8_t *col = ibr_column(w->r, lid + k);
		memcpy(col, w->out_port, S);
		col[at_switch] = final_port;
	}
}

static int fera_route(struct ibr_route_ctx *ctx, struct ibr_result *r,
		      struct ibr_error *err)
{
	const struct ibr_fabric *f = ctx->f;
	const struct ibr_updown *ud = ibr_ctx_updown(ctx, err);
	uint32_t S = f->num_switches, links = f->sw_adj_start[S];
	struct fera w = { .f = f, .ud = ud, .r = r };
	uint64_t lids = 0;
	int rc = -1;

	if (!ud)
		return -1;
	w.link_up = malloc(links ? links : 1);
	w.down_dist = malloc(S * sizeof(uint32_t));
	w.route_dist = malloc(S * sizeof(uint32_t));
	w.out_port = malloc(S);
	w.queue = malloc(S * sizeof(uint32_t));
	if (!w.link_up || !w.down_dist || !w.route_dist || !w.out_port ||
	    !w.queue) {
		ibr_error_set(err, "fera: out of memory");
		goto out;
	}
	ibr_updown_link_flags(f, ud, w.link_up);

	for (uint32_t d = 0; d < S; d++) {
		const struct ibr_port *p0 = ibr_port(f, f->sw_node[d], 0);
		route_to_switch(&w, d);
		write_lids(&w, p0->base_lid, ibr_port_lid_count(p0), d, 0);
		lids += ibr_port_lid_count(p0);
		for (uint32_t i = f->sw_ca_start[d]; i < f->sw_ca_start[d + 1]; i++) {
			const struct ibr_end_port *e = &f->end_ports[f->sw_cas[i]];
			const struct ibr_port *p = ibr_port(f, e->node, e->port);
			write_lids(&w, p->base_lid, ibr_port_lid_count(p), d,
				   e->sw_port);
			lids += ibr_port_lid_count(p);
		}
	}
	ibr_stat_set(r, "explicit entries", lids * S);
	rc = 0;
out:
	free(w.link_up);
	free(w.down_dist);
	free(w.route_dist);
	free(w.out_port);
	free(w.queue);
	return rc;
}

const struct ibr_engine ibr_engine_fera = {
	.name = "fera",
	.summary = "fully explicit up/down routing (FERa)",
	.route = fera_route,
};
