/*
 * walk.c - one step, and every switch's walk to one LID (see walk.h).
 *
 * peer[port_start[s] + p] says what is behind port p of switch s:
 *   a switch index, IBR_PEER_CA | end port index, or IBR_NONE (no link; also
 *   port 0, which is handled before the lookup); port_start[S] ends the
 *   last switch's ports, so a port beyond a switch's count is caught by
 *   the same bound.
 * A column walk is two passes: next[] for every switch (each bad entry
 * reported where it is), then the memoised walks over next[]: a walk
 * stops at the first switch whose outcome is known and unwinds its stack
 * with the hop counts, so every switch is visited once per LID.
 */
#include <stdlib.h>
#include <string.h>

#include "ibrouting/walk.h"

enum { UNKNOWN, ON_WALK, KNOWN };

int ibr_walker_init(struct ibr_walker *w, const struct ibr_fabric *f,
		    struct ibr_error *err)
{
	uint32_t S = f->num_switches, total = 0;

	memset(w, 0, sizeof(*w));
	w->f = f;
	w->port_start = malloc((S + 1) * sizeof(uint32_t));
	if (!w->port_start)
		goto oom;
	for (uint32_t s = 0; s < S; s++) {
		w->port_start[s] = total;
		total += ibr_switch(f, s)->num_ports + 1u;
	}
	w->port_start[S] = total;
	w->peer = malloc(total * sizeof(uint32_t));
	w->chan = malloc(total * sizeof(uint32_t));
	w->lid_end_port = malloc((f->max_lid + 1u) * sizeof(uint32_t));
	w->next = malloc(S * sizeof(uint32_t));
	w->hops = malloc(S);
	w->order = malloc(S * sizeof(uint32_t));
	w->stack = malloc(S * sizeof(uint32_t));
	w->state = malloc(S);
	if (!w->peer || !w->chan || !w->lid_end_port || !w->next || !w->hops ||
	    !w->order || !w->stack || !w->state)
		goto oom;
	for (uint32_t i = 0; i < total; i++)
		w->peer[i] = w->chan[i] = IBR_NONE;
	for (uint32_t s = 0; s < S; s++)
		for (uint32_t i = f->sw_adj_start[s]; i < f->sw_adj_start[s + 1]; i++) {
			w->peer[w->port_start[s] + f->sw_adj[i].port] = f->sw_adj[i].peer;
			w->chan[w->port_start[s] + f->sw_adj[i].port] = i;
		}
	for (uint32_t l = 0; l <= f->max_lid; l++)
		w->lid_end_port[l] = IBR_NONE;
	for (uint32_t e = 0; e < f->num_end_ports; e++) {
		const struct ibr_end_port *ep = &f->end_ports[e];
		const struct ibr_port *p = ibr_port(f, ep->node, ep->port);
		w->peer[w->port_start[ep->sw] + ep->sw_port] = IBR_PEER_CA | e;
		for (unsigned k = 0; k < ibr_port_lid_count(p); k++)
			w->lid_end_port[p->base_lid + k] = e;
	}
	return 0;
oom:
	ibr_walker_free(w);
	return ibr_error_set(err, "out of memory indexing %u switches for walks",
			     S);
}

void ibr_walker_free(struct ibr_walker *w)
{
	free(w->port_start);
	free(w->peer);
	free(w->chan);
	free(w->lid_end_port);
	free(w->next);
	free(w->hops);
	free(w->order);
	free(w->stack);
	free(w->state);
	memset(w, 0, sizeof(*w));
}

/* Pass 1: every switch's next hop, faults reported where they are. */
static uint32_t compute_next(struct ibr_walker *w, const uint8_t *column,
			     ibr_lid_t lid, const struct ibr_walk_observer *obs)
{
	const struct ibr_fabric *f = w->f;
	uint32_t owner = f->lid_owner[lid].node, known = 0;

	for (uint32_t s = 0; s < f->num_switches; s++) {
		uint32_t n = 0;
		enum ibr_step st = ibr_walker_step(w, s, lid, column[s], &n);
		w->state[s] = UNKNOWN;
		if (st == IBR_STEP_NEXT) {
			w->next[s] = n;
		} else if (st == IBR_STEP_ARRIVED) {
			w->next[s] = IBR_WALK_ARRIVED;
			w->hops[s] = owner == f->sw_node[s] ? 0 : 1;
			w->state[s] = KNOWN;
			w->order[known++] = s;
		} else {
			w->next[s] = IBR_WALK_FAILED;
			w->hops[s] = IBR_HOPS_FAILED;
			w->state[s] = KNOWN;
			w->order[known++] = s;
			if (obs && obs->bad_step)
				obs->bad_step(obs->ctx, s, lid, column[s], st);
		}
	}
	return known;
}

void ibr_walk_column(struct ibr_walker *w, const uint8_t *column,
		     ibr_lid_t lid, const struct ibr_walk_observer *obs)
{
	uint32_t S = w->f->num_switches, known;

	known = compute_next(w, column, lid, obs);
	for (uint32_t start = 0; start < S; start++) {
		uint32_t depth = 0, s = start;
		uint8_t tail;

		while (w->state[s] == UNKNOWN) {
			w->state[s] = ON_WALK;
			w->stack[depth++] = s;
			s = w->next[s];
		}
		if (w->state[s] == ON_WALK) {
			uint32_t from = depth;
			while (w->stack[from - 1] != s)
				from--;
			if (obs && obs->loop)
				obs->loop(obs->ctx, lid, w->stack + from - 1,
					  depth - from + 1);
			tail = IBR_HOPS_FAILED;
		} else {
			tail = w->hops[s];
		}
		/* Unwind: everything on the stack leads to s. */
		while (depth > 0) {
			uint32_t t = w->stack[--depth];
			if (tail != IBR_HOPS_FAILED && tail < IBR_HOPS_MAX)
				tail++;
			w->hops[t] = tail;
			w->state[t] = KNOWN;
			w->order[known++] = t;
			if (tail == IBR_HOPS_FAILED)
				w->next[t] = IBR_WALK_FAILED;
		}
	}
}
