/*
 * dr.c - destination renaming (PIRa paper §2.4, after López, Flich and
 * Duato, ICPP 2001): every pair of hosts takes a shortest legal up/down
 * path, and a destination gets as many of its LIDs as its paths need.
 *
 * Why: destination-based tables with one LID per port cannot hold every
 * minimal legal path.  At n2 of Fig. 5 packets from n2's own host would go
 * up port 1 (3 hops) while packets coming down from n3 must go on down
 * port 3, or the down-up turn could deadlock; FERa keeps one LID and gives
 * the short path up, DR renames n1 for it (Fig. 7).
 *
 * Offsets (doc/design.md, Contracts):
 *   - offset 0 of every range is exactly FERa's complete legal tree (FERa
 *     is run first), so hosts and switches that ignore designated DLIDs,
 *     and every switch LID, are routed as `fera` routes them;
 *   - offset k >= 1 of a CA's range holds only the paths placed on it and
 *     IBR_NO_PATH elsewhere: a host using a DLID it was not given is
 *     dropped or follows the suffix of a legal path, never a down-up turn.
 *
 * Paths.  The CAs of one switch share their paths: a path is chosen per
 * (source switch, destination end port) and the designated map is by
 * switch.  Per destination switch d, the all-down and the legal distances
 * of every switch to d (updown.h); a path then leaves s with "links left
 * = legal distance of s" and at each switch takes a link that keeps it
 * minimal and legal: in the up phase an up link to a switch whose legal
 * distance is one less, or a down link to a switch whose all-down
 * distance is one less (which starts the down phase); in the down phase
 * only the latter.  Among the links allowed it takes the least loaded so
 * far, then the lowest port: ties spread load, deterministically.  With
 * `port_choice balanced` (the default) a pair whose FERa route (the
 * balanced base tree, fera.c) is already minimal keeps it: it rides the
 * base LID, and on fat trees, where every FERa route is minimal, dr is
 * FERa's balanced routing; renaming is spent where FERa's single tree is
 * not minimal, the paper's case (Fig. 5).  A path's pairs (the CAs of its
 * source switch) are added to the load of the links its pairs finally
 * use.
 *
 * Renaming.  Per destination end port, paths are checked one after the
 * other (source switches in index order) and each joins the first
 * configuration (configs.h) it splits from no path of; configuration 0 is
 * seeded with FERa's column, so a path equal to FERa's takes the base LID.
 * Configuration k is realised on offset k.  A path whose configuration is
 * 2^LMC or beyond falls back to the base LID (FERa's route) and its pairs
 * are counted; configurations are still counted without a limit, for the
 * LIDs the renaming would need (2^ceil(lg k) per destination, as Table VI
 * of the LID paper counts).  Placing on configurations beyond the limit
 * changes nothing below it: first fit sees the same paths there.
 *
 * Cost: per destination switch O(E), FERa's route lengths among it
 * (fera_distances) and the states other paths may pass (mark_needed);
 * per destination end port O(S) to push the flows that ride FERa's
 * routes, and links chosen at those states only; per (source switch,
 * destination end port) O(1) when FERa's route is minimal and kept
 * (balanced), else O(length x degree) to choose and O(configurations x
 * length) to place.  On random fabrics most pairs keep FERa's route: at
 * 512 switches / 8192 CAs, lmc 1, dr's own instructions (callgrind,
 * beside FERa's) fell from 2.52 G to 0.48 G, with the same tables.
 */
#include <stdlib.h>
#include <string.h>

#include "engines.h"
#include "ibrouting/configs.h"
#include "ibrouting/dr.h"
#include "ibrouting/prior.h"
#include "ibrouting/walk.h"

struct dr {
	const struct ibr_fabric *f;
	const struct ibr_updown *ud;
	struct ibr_result *r;
	struct ibr_dr_detail *detail;   /* NULL unless asked for */
	uint8_t *link_up;       /* per sw_adj entry */
	uint32_t *down_dist;    /* per switch, to the current destination switch */
	uint32_t *legal_dist;   /* per switch, to the current destination switch */
	uint32_t *queue;        /* switches in BFS order from it, */
	uint32_t reached_down;  /*   this many (those with an all-down route) */
	uint64_t *load;         /* per sw_adj entry: flows placed on it */
	/* per switch, for the current destination end port: the link a path
	 * takes there (sw_adj entry) in the up and in the down phase, and the
	 * heaviest load on the rest of that path */
	uint32_t *next_up, *next_down;
	uint64_t *neck_up, *neck_down;
	/* the links minimal legal paths to the current destination switch
	 * may take (list_steps) */
	uint32_t *step_sw, *step_first, *step_link, num_down, num_steps;
	uint8_t *need;          /* per switch: NEED_UP, NEED_DOWN (mark_needed) */
	uint32_t *stack;        /* 2S states: mark_needed's */
	uint32_t *path_sw;      /* the path being placed: switches, */
	uint8_t *path_port;     /*   the ports they leave by, */
	uint32_t *path_chan;    /*   the channels (sw_adj entries) */
	uint32_t *fera_chan;    /* channels of FERa's route (the detail's paths) */
	uint64_t *fera_flow;    /* per switch: pairs riding FERa's route from
				 * it to the current end port (its own and
				 * those passing) */
	uint32_t *fera_dist;    /* per switch: FERa's route to the current
				 * destination switch, its length */
	uint32_t *push_order, num_push; /* switches, longest route first */
	uint32_t *push_count;   /* S + 1: fera_distances' counting sort */
	struct ibr_walker walker; /* the channel behind a port in one step */
	struct ibr_configs configs;
	bool balanced;          /* port_choice balanced: FERa's minimal routes kept */
	/* figures */
	uint64_t lids_needed, renamed_lids, renamed_pairs, fallback_pairs,
		 links_saved, links_above_minimal;
};

static uint32_t cas_on(const struct ibr_fabric *f, uint32_t s)
{
	return f->sw_ca_start[s + 1] - f->sw_ca_start[s];
}

#define NEED_UP   1u    /* the switch's up-phase choice is needed */
#define NEED_DOWN 2u    /* its down-phase choice */

/* FERa's route from s is a minimal legal path. */
static bool fera_minimal(const struct dr *w, uint32_t s)
{
	return w->fera_dist[s] == w->legal_dist[s];
}

/* The states (switch, phase) a path of switch d's end ports may pass:
 * those of the sources that do not keep FERa's route (all of them with
 * lowest ports), and every state their minimal legal steps reach.  Only
 * these states' links are listed and chosen, per end port; their choices
 * depend only on states after them, all needed too, so they are those a
 * choice at every state would give.  The same for every end port of d
 * (FERa's route lengths do not depend on the end port). */
static void mark_needed(struct dr *w, uint32_t d)
{
	const struct ibr_fabric *f = w->f;
	uint32_t S = f->num_switches, n = 0;

	memset(w->need, 0, S);
	/* a state is 2x + 1 when descending, 2x climbing */
	for (uint32_t s = 0; s < S; s++) {
		if (s == d || cas_on(f, s) == 0 || w->legal_dist[s] == IBR_FAR ||
		    (w->balanced && fera_minimal(w, s)))
			continue;
		w->need[s] |= NEED_UP;
		w->stack[n++] = 2 * s;
	}
	while (n > 0) {
		uint32_t st = w->stack[--n], x = st / 2;
		bool down = st & 1;
		if (x == d)
			continue;
		if (!down && w->down_dist[x] == w->legal_dist[x]) {
			/* its up choice is its down choice (choose_links) */
			if (!(w->need[x] & NEED_DOWN)) {
				w->need[x] |= NEED_DOWN;
				w->stack[n++] = 2 * x + 1;
			}
			continue;
		}
		for (uint32_t i = f->sw_adj_start[x]; i < f->sw_adj_start[x + 1]; i++) {
			uint32_t y = f->sw_adj[i].peer;
			uint8_t phase;
			if (down ? w->link_up[i] ||
				   w->down_dist[y] + 1 != w->down_dist[x] :
			    w->link_up[i] ? w->legal_dist[y] + 1 != w->legal_dist[x] :
			    w->down_dist[y] + 1 != w->legal_dist[x])
				continue;
			phase = w->link_up[i] ? NEED_UP : NEED_DOWN;
			if (!(w->need[y] & phase)) {
				w->need[y] |= phase;
				w->stack[n++] = 2 * y + (phase == NEED_DOWN);
			}
		}
	}
}

/* The links a minimal legal path to the current destination switch d
 * may take, listed once per d for all its end ports (only the loads
 * change between them): first the down phase's, per switch in BFS order
 * from d (down links one all-down step closer), then the up phase's, per
 * switch in up/down order whose all-down route is not minimal (up links
 * one legal step closer, down links that start a minimal all-down
 * route).  Segment j: switch step_sw[j], links step_link[step_first[j] ..
 * step_first[j + 1]); the first num_down segments are the down phase's.
 * Only the states some path may pass are listed (mark_needed). */
static void list_steps(struct dr *w, uint32_t d)
{
	const struct ibr_fabric *f = w->f;
	uint32_t n = 0, j = 0;

	for (uint32_t k = 1; k < w->reached_down; k++) {
		uint32_t x = w->queue[k];
		if (!(w->need[x] & NEED_DOWN))
			continue;
		w->step_sw[j] = x;
		w->step_first[j++] = n;
		for (uint32_t i = f->sw_adj_start[x]; i < f->sw_adj_start[x + 1]; i++)
			if (!w->link_up[i] &&
			    w->down_dist[f->sw_adj[i].peer] + 1 == w->down_dist[x])
				w->step_link[n++] = i;
	}
	w->num_down = j;
	for (uint32_t k = 0; k < w->ud->num_switches; k++) {
		uint32_t x = w->ud->order[k];
		if (x == d || w->down_dist[x] == w->legal_dist[x] ||
		    !(w->need[x] & NEED_UP))
			continue;
		w->step_sw[j] = x;
		w->step_first[j++] = n;
		for (uint32_t i = f->sw_adj_start[x]; i < f->sw_adj_start[x + 1]; i++) {
			uint32_t y = f->sw_adj[i].peer;
			if (w->link_up[i] ? w->legal_dist[y] + 1 == w->legal_dist[x] :
			    w->down_dist[y] + 1 == w->legal_dist[x])
				w->step_link[n++] = i;
		}
	}
	w->num_steps = j;
	w->step_first[j] = n;
}

/* Chooses, for every switch, the link a minimal legal path to switch d
 * takes there in each phase, among those list_steps listed: the one
 * whose path has the least loaded link (bottleneck), then the lowest
 * port.  The down phase first, switches in BFS order from d; then the up
 * phase, in up/down order; a switch whose all-down route is minimal keeps
 * its down-phase choice, so paths passing it up or down do not split
 * there (FERa's rule, paid nothing in length). */
static void choose_links(struct dr *w, uint32_t d)
{
	const struct ibr_fabric *f = w->f;

	for (uint32_t x = 0; x < f->num_switches; x++) {
		w->neck_down[x] = w->neck_up[x] = UINT64_MAX;
		w->next_down[x] = w->next_up[x] = IBR_NONE;
	}
	w->neck_down[d] = w->neck_up[d] = 0;
	for (uint32_t j = 0; j < w->num_down; j++) {
		uint32_t x = w->step_sw[j], best = IBR_NONE;
		uint64_t neck = UINT64_MAX;
		for (uint32_t t = w->step_first[j]; t < w->step_first[j + 1]; t++) {
			uint32_t i = w->step_link[t], y = f->sw_adj[i].peer;
			uint64_t n = w->load[i] > w->neck_down[y] ? w->load[i] :
				     w->neck_down[y];
			if (n < neck) {
				neck = n;
				best = i;
			}
		}
		w->neck_down[x] = neck;
		w->next_down[x] = best;
	}
	for (uint32_t x = 0; x < f->num_switches; x++) {
		if (x != d && w->down_dist[x] == w->legal_dist[x]) {
			w->neck_up[x] = w->neck_down[x];
			w->next_up[x] = w->next_down[x];
		}
	}
	for (uint32_t j = w->num_down; j < w->num_steps; j++) {
		uint32_t x = w->step_sw[j], best = IBR_NONE;
		uint64_t neck = UINT64_MAX;
		for (uint32_t t = w->step_first[j]; t < w->step_first[j + 1]; t++) {
			uint32_t i = w->step_link[t], y = f->sw_adj[i].peer;
			uint64_t rest = w->link_up[i] ? w->neck_up[y] :
				       w->neck_down[y];
			uint64_t n = w->load[i] > rest ? w->load[i] : rest;
			if (n < neck) {
				neck = n;
				best = i;
			}
		}
		w->neck_up[x] = neck;
		w->next_up[x] = best;
	}
}

/* The path from s to end port e on switch d along the chosen links;
 * returns its length in switches, 0 if it breaks off (a bug). */
static uint32_t follow_path(struct dr *w, uint32_t s, uint32_t d,
			    const struct ibr_end_port *e)
{
	const struct ibr_fabric *f = w->f;
	uint32_t x = s, len = 0;
	bool down = false;

	while (x != d) {
		uint32_t i = down ? w->next_down[x] : w->next_up[x];
		if (i == IBR_NONE || len == f->num_switches)
			return 0;
		w->path_sw[len] = x;
		w->path_port[len] = f->sw_adj[i].port;
		w->path_chan[len++] = i;
		down |= !w->link_up[i];
		x = f->sw_adj[i].peer;
	}
	w->path_sw[len] = d;
	w->path_port[len] = e->sw_port;
	w->path_chan[len++] = IBR_NONE;
	return len;
}

/* The channels of FERa's route from s along column `col` to switch d;
 * returns their number. */
static uint32_t fera_route(struct dr *w, const uint8_t *col, uint32_t s,
			   uint32_t d)
{
	const struct ibr_fabric *f = w->f;
	uint32_t x = s, n = 0;

	while (x != d && n < f->num_switches) {
		uint32_t i = ibr_walker_channel(&w->walker, x, col[x]);
		if (i == IBR_NONE)
			break; /* FERa's tables are complete: not reached */
		w->fera_chan[n++] = i;
		x = f->sw_adj[i].peer;
	}
	return n;
}

/* FERa's route (fera_chan[0 .. n)) from s to end port e on switch d as
 * the path being placed. */
static uint32_t take_fera_path(struct dr *w, uint32_t s, uint32_t n,
			       const struct ibr_end_port *e)
{
	const struct ibr_fabric *f = w->f;
	uint32_t x = s;

	for (uint32_t k = 0; k < n; k++) {
		uint32_t i = w->fera_chan[k];
		w->path_sw[k] = x;
		w->path_port[k] = f->sw_adj[i].port;
		w->path_chan[k] = i;
		x = f->sw_adj[i].peer;
	}
	w->path_sw[n] = x;
	w->path_port[n] = e->sw_port;
	w->path_chan[n] = IBR_NONE;
	return n + 1;
}

static void add_load(struct dr *w, const uint32_t *chan, uint32_t n,
		     uint64_t flows)
{
	for (uint32_t i = 0; i < n; i++)
		w->load[chan[i]] += flows;
}

static int keep_detail(struct dr *w, uint32_t s, uint32_t e, uint32_t len,
		       uint8_t offset, struct ibr_error *err)
{
	struct ibr_dr_detail *d = w->detail;
	const struct ibr_fabric *f = w->f;
	uint32_t src = f->sw_cas[f->sw_ca_start[s]], p;

	p = ibr_pathset_add(&d->paths, src, e, w->path_sw, w->path_port, len,
			    err);
	if (p == IBR_NONE)
		return -1;
	if (p >= d->offset_cap) {
		uint32_t cap = d->offset_cap ? 2 * d->offset_cap : 256;
		uint8_t *o = realloc(d->offset, cap);
		if (!o)
			return ibr_error_set(err, "dr: out of memory for %u "
					     "path offsets", cap);
		d->offset = o;
		d->offset_cap = cap;
	}
	d->offset[p] = offset;
	return 0;
}

/* The length of FERa's route from every switch to switch d (fera.c,
 * rules 1 and 2; the same for every end port of d, whatever the ties):
 * the all-down distance where there is one, else one more than the
 * shortest route of an up neighbour, which up/down order settles first.
 * Then the switches with a route, d aside, longest first (push_order):
 * each comes before the next switch of its FERa route. */
static void fera_distances(struct dr *w, uint32_t d)
{
	const struct ibr_fabric *f = w->f;
	uint32_t S = f->num_switches, *count = w->push_count;

	for (uint32_t k = 0; k < w->ud->num_switches; k++) {
		uint32_t x = w->ud->order[k], best = IBR_FAR;
		if (x == d || w->down_dist[x] != IBR_FAR) {
			w->fera_dist[x] = x == d ? 0 : w->down_dist[x];
			continue;
		}
		for (uint32_t i = f->sw_adj_start[x]; i < f->sw_adj_start[x + 1]; i++) {
			uint32_t t = f->sw_adj[i].peer;
			if (w->link_up[i] && w->fera_dist[t] != IBR_FAR &&
			    w->fera_dist[t] + 1 < best)
				best = w->fera_dist[t] + 1;
		}
		w->fera_dist[x] = best;
	}
	/* counting sort, longest first: count[l] switches are l long */
	memset(count, 0, (S + 1) * sizeof(*count));
	for (uint32_t x = 0; x < S; x++)
		if (x != d && w->fera_dist[x] < S)
			count[w->fera_dist[x]]++;
	for (uint32_t l = S, at = 0; l-- > 0;) {
		uint32_t n = count[l];
		count[l] = at;
		at += n;
	}
	w->num_push = 0;
	for (uint32_t x = 0; x < S; x++)
		if (x != d && w->fera_dist[x] < S) {
			w->push_order[count[w->fera_dist[x]]++] = x;
			w->num_push++;
		}
}

/* The pairs riding FERa's route to the LID of column col, fera_flow[x]
 * from each switch x's own hosts, added to the loads of the links:
 * pushed along col's tree, longest routes first, O(S): the same sums as
 * adding each source's route.  A step that does not bring the route one
 * link closer breaks FERa's invariant (a bug), and is an error. */
static int add_fera_flows(struct dr *w, const uint8_t *col, ibr_lid_t lid,
			  struct ibr_error *err)
{
	const struct ibr_fabric *f = w->f;

	for (uint32_t j = 0; j < w->num_push; j++) {
		uint32_t x = w->push_order[j], i, y;
		uint64_t flow = w->fera_flow[x];
		if (flow == 0)
			continue;
		i = ibr_walker_channel(&w->walker, x, col[x]);
		if (i == IBR_NONE ||
		    w->fera_dist[y = f->sw_adj[i].peer] + 1 != w->fera_dist[x])
			return ibr_error_set(err, "dr: FERa's entry for LID %u at "
					     "switch 0x%016llx (port %u) does not "
					     "lead one link closer (a bug)", lid,
					     (unsigned long long)ibr_switch(f, x)->guid,
					     col[x]);
		w->load[i] += flow;
		w->fera_flow[y] += flow;
	}
	return 0;
}

/* Places the path of every source switch to end port e (distances to its
 * switch d are computed) and writes e's LIDs above the base.
 *
 * With balanced ports, a source whose FERa route is minimal keeps it and
 * the base LID (configuration 0 is FERa's column, which a FERa route
 * always fits, and fitting adds nothing to it): its pairs only go on
 * fera_flow, and its loads are added with the others' after the loop, so
 * the loads every choice of this end port sees (choose_links, taken
 * once, before the first source needing it) are those before it. */
static int rename_destination(struct dr *w, uint32_t e, struct ibr_error *err)
{
	const struct ibr_fabric *f = w->f;
	const struct ibr_end_port *ep = &f->end_ports[e];
	const struct ibr_port *p = ibr_port(f, ep->node, ep->port);
	uint32_t S = f->num_switches, d = ep->sw, lids = ibr_port_lid_count(p);
	const uint8_t *base = ibr_column(w->r, p->base_lid);
	struct ibr_configs *c = &w->configs;
	bool chosen = false;
	uint32_t used;

	ibr_configs_clear(c);
	if (ibr_configs_open(c, err) == IBR_NONE)
		return -1;
	memcpy(ibr_configs_column(c, 0), base, S);
	memset(w->fera_flow, 0, S * sizeof(*w->fera_flow));
	for (uint32_t s = 0; s < S; s++) {
		uint32_t pairs = cas_on(f, s), len, k, fera_len = 0;
		if (s == d || pairs == 0)
			continue;
		if (w->balanced && fera_minimal(w, s)) {
			w->fera_flow[s] += pairs;
			if (w->detail) {
				fera_len = fera_route(w, base, s, d);
				len = take_fera_path(w, s, fera_len, ep);
				if (keep_detail(w, s, e, len, 0, err))
					return -1;
			}
			continue;
		}
		if (!chosen) {
			choose_links(w, d);
			chosen = true;
		}
		len = follow_path(w, s, d, ep);
		if (len == 0)
			return ibr_error_set(err, "dr: no legal path from switch "
					     "0x%016llx to LID %u",
					     (unsigned long long)ibr_switch(f, s)->guid,
					     p->base_lid);
		fera_len = w->fera_dist[s];
		k = ibr_configs_first_fit(c, w->path_sw, w->path_port, len, err);
		if (k == IBR_NONE)
			return -1;
		if (k < lids) {
			add_load(w, w->path_chan, len - 1, pairs);
			w->r->designated.offset[(size_t)s * w->r->designated.cols + e] =
				(uint8_t)k;
			if (k > 0) {
				w->renamed_pairs += pairs;
				w->links_saved += (uint64_t)(fera_len - (len - 1)) * pairs;
			}
		} else {
			w->fera_flow[s] += pairs;
			w->fallback_pairs += pairs;
			w->links_above_minimal +=
				(uint64_t)(fera_len - (len - 1)) * pairs;
		}
		if (w->detail && keep_detail(w, s, e, len, k < lids ? (uint8_t)k :
					     IBR_NOT_REALISED, err))
			return -1;
	}
	if (add_fera_flows(w, base, p->base_lid, err))
		return -1;
	used = c->count < lids ? c->count : lids;
	for (uint32_t k = 1; k < lids; k++) {
		uint8_t *col = ibr_column(w->r, p->base_lid + k);
		if (k < used)
			memcpy(col, ibr_configs_column(c, k), S);
		else
			memset(col, IBR_NO_PATH, S);
	}
	w->lids_needed += ibr_lids_for_configs(c->count);
	w->renamed_lids += used - 1;
	return 0;
}

static int rename_all(struct dr *w, struct ibr_error *err)
{
	const struct ibr_fabric *f = w->f;

	for (uint32_t d = 0; d < f->num_switches; d++) {
		if (f->sw_ca_start[d] == f->sw_ca_start[d + 1])
			continue;
		w->reached_down = ibr_down_distances(f, w->link_up, d,
						     w->down_dist, w->queue);
		ibr_legal_distances(f, w->ud, w->link_up, w->down_dist,
				    w->legal_dist);
		fera_distances(w, d);
		mark_needed(w, d);
		list_steps(w, d);
		for (uint32_t i = f->sw_ca_start[d]; i < f->sw_ca_start[d + 1]; i++)
			if (rename_destination(w, f->sw_cas[i], err))
				return -1;
	}
	return 0;
}

static void free_work(struct dr *w)
{
	free(w->link_up);
	free(w->down_dist);
	free(w->legal_dist);
	free(w->queue);
	free(w->load);
	free(w->path_sw);
	free(w->path_port);
	free(w->path_chan);
	free(w->fera_chan);
	free(w->fera_flow);
	free(w->fera_dist);
	free(w->push_order);
	free(w->push_count);
	free(w->next_up);
	free(w->next_down);
	free(w->neck_up);
	free(w->neck_down);
	free(w->step_sw);
	free(w->need);
	free(w->stack);
	free(w->step_first);
	free(w->step_link);
	ibr_walker_free(&w->walker);
	ibr_configs_free(&w->configs);
}

int ibr_dr_route_detail(struct ibr_route_ctx *ctx, struct ibr_result *r,
			struct ibr_dr_detail *d, struct ibr_error *err)
{
	const struct ibr_fabric *f = ctx->f;
	uint32_t S = f->num_switches, links = f->sw_adj_start[S];
	struct dr w = { .f = f, .r = r, .detail = d };
	int rc = -1;

	if (d)
		memset(d, 0, sizeof(*d));
	/* Offset 0 of every range, and every switch LID, is FERa's. */
	if (ibr_fera_route_afresh(ctx, r, err))
		return -1;
	r->stats.count = 0;
	w.ud = ibr_ctx_updown(ctx, err);
	if (!w.ud || ibr_designated_init(r, f, true, err))
		return -1;
	ibr_configs_init(&w.configs, S);
	if (ibr_walker_init(&w.walker, f, err))
		goto out;
	w.link_up = malloc(links ? links : 1);
	w.down_dist = malloc(S * sizeof(uint32_t));
	w.legal_dist = malloc(S * sizeof(uint32_t));
	w.queue = malloc(S * sizeof(uint32_t));
	w.load = calloc(links ? links : 1, sizeof(uint64_t));
	w.path_sw = malloc((S + 1) * sizeof(uint32_t));
	w.path_port = malloc(S + 1);
	w.path_chan = malloc((S + 1) * sizeof(uint32_t));
	w.fera_chan = malloc((S + 1) * sizeof(uint32_t));
	w.fera_flow = malloc(S * sizeof(uint64_t));
	w.fera_dist = malloc(S * sizeof(uint32_t));
	w.push_order = malloc(S * sizeof(uint32_t));
	w.push_count = malloc((S + 1) * sizeof(uint32_t));
	w.next_up = malloc(S * sizeof(uint32_t));
	w.next_down = malloc(S * sizeof(uint32_t));
	w.neck_up = malloc(S * sizeof(uint64_t));
	w.neck_down = malloc(S * sizeof(uint64_t));
	w.step_sw = malloc(2 * S * sizeof(uint32_t));
	w.need = malloc(S ? S : 1);
	w.stack = malloc(2 * S * sizeof(uint32_t));
	w.step_first = malloc((2 * S + 1) * sizeof(uint32_t));
	w.step_link = malloc((2 * (size_t)links + 1) * sizeof(uint32_t));
	if (!w.next_up || !w.next_down || !w.neck_up || !w.neck_down ||
	    !w.step_sw || !w.step_first || !w.step_link || !w.need || !w.stack ||
	    !w.link_up || !w.down_dist || !w.legal_dist || !w.queue ||
	    !w.load || !w.path_sw || !w.path_port || !w.path_chan ||
	    !w.fera_chan || !w.fera_flow || !w.fera_dist || !w.push_order ||
	    !w.push_count) {
		ibr_error_set(err, "dr: out of memory (%u switches)", S);
		goto out;
	}
	ibr_updown_link_flags(f, w.ud, w.link_up);
	w.balanced = ctx->port_choice == IBR_PORT_BALANCED;
	if (rename_all(&w, err))
		goto out;
	ibr_stat_count(r, "CA LID needed", IBR_STAT_CA_LIDS_NEEDED, w.lids_needed);
	ibr_stat_count(r, "renamed LID", "renamed LIDs", w.renamed_lids);
	ibr_stat_count(r, "renamed pair", "renamed pairs", w.renamed_pairs);
	ibr_stat_count(r, "fallback pair", "fallback pairs", w.fallback_pairs);
	ibr_stat_count(r, "link saved against fera", "links saved against fera",
		       w.links_saved);
	ibr_stat_count(r, "link above minimal", "links above minimal",
		       w.links_above_minimal);
	rc = 0;
out:
	free_work(&w);
	return rc;
}

void ibr_dr_detail_free(struct ibr_dr_detail *d)
{
	ibr_pathset_free(&d->paths);
	free(d->offset);
	memset(d, 0, sizeof(*d));
}

static const struct ibr_option_spec dr_options[] = {
	{ IBR_PRIOR_OPTION, IBR_PRIOR_OPTION_DEFAULT, 0, 100,
	  "after a change, keep the routes in place and re-route the pairs "
	  "whose route broke, unless more than this percentage of CA pairs "
	  "did (0: every path and renaming afresh every run)", NULL },
	{ NULL, NULL, 0, 0, NULL, NULL },
};

/* From the tables in place after a change (prior.h), else afresh. */
static int dr_route(struct ibr_route_ctx *ctx, struct ibr_result *r,
		    struct ibr_error *err)
{
	int kept = ibr_prior_route(ctx, r, IBR_PRIOR_SHORTEST, err);

	if (kept)
		return kept < 0 ? -1 : 0;
	return ibr_dr_route_detail(ctx, r, NULL, err);
}

const struct ibr_engine ibr_engine_dr = {
	.name = "dr",
	.summary = "destination renaming: minimal legal up/down paths, "
		   "several LIDs per destination (needs lmc >= 1)",
	.options = dr_options,
	.route = dr_route,
	.min_lmc = 1,
	.below_min_lmc = "routing as fera",
	.overflow_stat = "fallback pairs",
	.overflow_fate = "took FERa's route on the base LID",
};
