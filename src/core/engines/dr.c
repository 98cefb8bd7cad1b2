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
 * length) to place.  On random fabrics most pairs keep FERa's route.
 *
 * Threads (ctx->threads, parallel.h): all that a destination switch
 * needs before its end ports are renamed depends on FERa's tables alone,
 * never on dr's loads (its plan: the distances, the links minimal paths
 * may take, the sources that do not keep FERa's route, and per end port
 * the flows of those that do, pushed along FERa's column).  The workers
 * list the plans of the batches of destination switches ahead while one
 * batch is renamed (ibr_pipeline); the renaming stays one sequence, so
 * the tables are the same for any thread count.
 */
#include <stdlib.h>
#include <string.h>

#include "engines.h"
#include "ibrouting/configs.h"
#include "ibrouting/dr.h"
#include "ibrouting/prior.h"
#include "ibrouting/walk.h"
#include "util/parallel.h"
#include "util/timer.h"

/* What destination switch d's end ports need before they are renamed,
 * from FERa's tables alone (list_destination); the renaming only reads
 * it. */
struct plan {
	uint32_t d;
	uint32_t num_cas;       /* d's end ports, in sw_cas order; 0: none */
	uint32_t *down_dist;    /* per switch: all-down distance to d */
	uint32_t *legal_dist;   /* per switch: legal distance to d */
	uint32_t *fera_dist;    /* per switch: FERa's route to d, its length */
	uint32_t *push_order, num_push; /* switches, longest route first */
	/* the links minimal legal paths to d may take (list_steps) */
	uint32_t *step_sw, *step_first, *step_link, num_down, num_steps;
	/* the switches climbing through which a path takes its down-phase
	 * link (an all-down route is minimal there), those of them a path
	 * may pass climbing */
	uint32_t *same_sw, num_same;
	/* the sources whose paths are placed, ascending: those that do not
	 * keep FERa's route (every source with hosts, for the detail) */
	uint32_t *sources, num_sources;
	/* per end port i: kept[kept_start[i] .. kept_start[i + 1]), the
	 * pairs keeping FERa's route on each link of its column */
	uint32_t *kept_start;
	struct ibr_flow_step *kept;
	bool failed;            /* listing found a bug; err says which */
	struct ibr_error err;
};

/* A worker's scratch while it lists a plan. */
struct lister {
	uint32_t *queue;        /* switches in BFS order from d */
	uint8_t *need;          /* per switch: NEED_UP, NEED_DOWN (mark_needed) */
	uint32_t *stack;        /* 2S states: mark_needed's */
	uint32_t *push_count;   /* S + 1: fera_distances' counting sort */
	uint64_t *kept_flow;    /* per switch: its pairs keeping FERa's route */
	uint64_t *flow;         /* per switch: pairs pushed (list_destination) */
};

/* Destination switches in a batch of ibr_pipeline: the plans are
 * IBR_PIPELINE_DEPTH batches, the one renamed and those listed ahead of
 * it. */
#define DR_BATCH 8u

struct dr {
	const struct ibr_fabric *f;
	const struct ibr_updown *ud;
	struct ibr_result *r;
	struct ibr_dr_detail *detail;   /* NULL unless asked for */
	uint8_t *link_up;       /* per sw_adj entry */
	struct ibr_up_links up; /* each switch's up links (the listers') */
	unsigned threads;
	struct plan plans[IBR_PIPELINE_DEPTH * DR_BATCH];
	struct lister *listers; /* one per worker of the pipeline */
	unsigned num_listers;
	/* the renaming's */
	uint64_t *load;         /* per sw_adj entry: flows placed on it */
	/* per switch, for the current destination end port: the link a path
	 * takes there (sw_adj entry) in the up and in the down phase, and the
	 * heaviest load on the rest of that path */
	uint32_t *next_up, *next_down;
	uint64_t *neck_up, *neck_down;
	bool links_set;         /* those of d's states no path passes: unset */
	uint32_t *path_sw;      /* the path being placed: switches, */
	uint8_t *path_port;     /*   the ports they leave by, */
	uint32_t *path_chan;    /*   the channels (sw_adj entries) */
	uint32_t *fera_chan;    /* channels of FERa's route (the detail's paths) */
	uint64_t *fera_flow;    /* per switch: pairs falling back to FERa's
				 * route from it to the current end port (its
				 * own and those passing); 0 between end ports */
	struct ibr_flow_step *fallen; /* those pairs, link by link */
	struct ibr_walker walker; /* the channel behind a port in one step */
	struct ibr_configs configs;
	bool balanced;          /* port_choice balanced: FERa's minimal routes kept */
	struct ibr_error rename_err;
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
static bool fera_minimal(const struct plan *p, uint32_t s)
{
	return p->fera_dist[s] == p->legal_dist[s];
}

/* The source switch s keeps FERa's route to d: no path of its own is
 * chosen, its pairs ride the base LID. */
static bool keeps_fera(const struct dr *w, const struct plan *p, uint32_t s)
{
	return w->balanced && fera_minimal(p, s);
}

/* The states (switch, phase) a path of switch d's end ports may pass:
 * those of the sources that do not keep FERa's route (all of them with
 * lowest ports), and every state their minimal legal steps reach.  Only
 * these states' links are listed and chosen, per end port; their choices
 * depend only on states after them, all needed too, so they are those a
 * choice at every state would give.  The same for every end port of d
 * (FERa's route lengths do not depend on the end port). */
static void mark_needed(const struct dr *w, struct lister *l,
			const struct plan *p)
{
	const struct ibr_fabric *f = w->f;
	uint32_t S = f->num_switches, n = 0, d = p->d;

	memset(l->need, 0, S);
	/* a state is 2x + 1 when descending, 2x climbing */
	for (uint32_t s = 0; s < S; s++) {
		if (s == d || cas_on(f, s) == 0 || p->legal_dist[s] == IBR_FAR ||
		    keeps_fera(w, p, s))
			continue;
		l->need[s] |= NEED_UP;
		l->stack[n++] = 2 * s;
	}
	while (n > 0) {
		uint32_t st = l->stack[--n], x = st / 2;
		bool down = st & 1;
		if (x == d)
			continue;
		if (!down && p->down_dist[x] == p->legal_dist[x]) {
			/* its up choice is its down choice (choose_links) */
			if (!(l->need[x] & NEED_DOWN)) {
				l->need[x] |= NEED_DOWN;
				l->stack[n++] = 2 * x + 1;
			}
			continue;
		}
		for (uint32_t i = f->sw_adj_start[x]; i < f->sw_adj_start[x + 1]; i++) {
			uint32_t y = f->sw_adj[i].peer;
			uint8_t phase;
			if (down ? w->link_up[i] ||
				   p->down_dist[y] + 1 != p->down_dist[x] :
			    w->link_up[i] ? p->legal_dist[y] + 1 != p->legal_dist[x] :
			    p->down_dist[y] + 1 != p->legal_dist[x])
				continue;
			phase = w->link_up[i] ? NEED_UP : NEED_DOWN;
			if (!(l->need[y] & phase)) {
				l->need[y] |= phase;
				l->stack[n++] = 2 * y + (phase == NEED_DOWN);
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
static void list_steps(const struct dr *w, const struct lister *l,
		       struct plan *p, uint32_t reached_down)
{
	const struct ibr_fabric *f = w->f;
	uint32_t n = 0, j = 0;

	for (uint32_t k = 1; k < reached_down; k++) {
		uint32_t x = l->queue[k];
		if (!(l->need[x] & NEED_DOWN))
			continue;
		p->step_sw[j] = x;
		p->step_first[j++] = n;
		for (uint32_t i = f->sw_adj_start[x]; i < f->sw_adj_start[x + 1]; i++)
			if (!w->link_up[i] &&
			    p->down_dist[f->sw_adj[i].peer] + 1 == p->down_dist[x])
				p->step_link[n++] = i;
	}
	p->num_down = j;
	for (uint32_t k = 0; k < w->ud->num_switches; k++) {
		uint32_t x = w->ud->order[k];
		if (x == p->d || p->down_dist[x] == p->legal_dist[x] ||
		    !(l->need[x] & NEED_UP))
			continue;
		p->step_sw[j] = x;
		p->step_first[j++] = n;
		for (uint32_t i = f->sw_adj_start[x]; i < f->sw_adj_start[x + 1]; i++) {
			uint32_t y = f->sw_adj[i].peer;
			if (w->link_up[i] ? p->legal_dist[y] + 1 == p->legal_dist[x] :
			    p->down_dist[y] + 1 == p->legal_dist[x])
				p->step_link[n++] = i;
		}
	}
	p->num_steps = j;
	p->step_first[j] = n;
	p->num_same = 0;
	for (uint32_t x = 0; x < f->num_switches; x++)
		if (x != p->d && p->down_dist[x] == p->legal_dist[x] &&
		    (l->need[x] & NEED_UP))
			p->same_sw[p->num_same++] = x;
}

/* Chooses, for every switch, the link a minimal legal path to switch d
 * takes there in each phase, among those list_steps listed: the one
 * whose path has the least loaded link (bottleneck), then the lowest
 * port.  The down phase first, switches in BFS order from d; then the up
 * phase, in up/down order; a switch whose all-down route is minimal keeps
 * its down-phase choice, so paths passing it up or down do not split
 * there (FERa's rule, paid nothing in length).  Only the states some
 * path may pass are chosen (mark_needed), and their choices read only
 * such states: the others are left unset from the first end port of d
 * (first) on, so a path meeting one breaks off (a bug, follow_path). */
static void choose_links(struct dr *w, const struct plan *p, bool first)
{
	const struct ibr_fabric *f = w->f;
	uint32_t d = p->d;

	for (uint32_t x = 0; first && x < f->num_switches; x++) {
		w->neck_down[x] = w->neck_up[x] = UINT64_MAX;
		w->next_down[x] = w->next_up[x] = IBR_NONE;
	}
	w->neck_down[d] = w->neck_up[d] = 0;
	for (uint32_t j = 0; j < p->num_down; j++) {
		uint32_t x = p->step_sw[j], best = IBR_NONE;
		uint64_t neck = UINT64_MAX;
		for (uint32_t t = p->step_first[j]; t < p->step_first[j + 1]; t++) {
			uint32_t i = p->step_link[t], y = f->sw_adj[i].peer;
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
	for (uint32_t j = 0; j < p->num_same; j++) {
		uint32_t x = p->same_sw[j];
		w->neck_up[x] = w->neck_down[x];
		w->next_up[x] = w->next_down[x];
	}
	for (uint32_t j = p->num_down; j < p->num_steps; j++) {
		uint32_t x = p->step_sw[j], best = IBR_NONE;
		uint64_t neck = UINT64_MAX;
		for (uint32_t t = p->step_first[j]; t < p->step_first[j + 1]; t++) {
			uint32_t i = p->step_link[t], y = f->sw_adj[i].peer;
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
static void fera_distances(const struct dr *w, struct lister *l,
			   struct plan *p)
{
	const struct ibr_fabric *f = w->f;
	uint32_t S = f->num_switches, d = p->d, *count = l->push_count;

	for (uint32_t k = 0; k < w->ud->num_switches; k++) {
		uint32_t x = w->ud->order[k], best = IBR_FAR;
		if (x == d || p->down_dist[x] != IBR_FAR) {
			p->fera_dist[x] = x == d ? 0 : p->down_dist[x];
			continue;
		}
		for (uint32_t i = w->up.start[x]; i < w->up.start[x + 1]; i++) {
			uint32_t t = w->up.at[i].peer;
			if (p->fera_dist[t] != IBR_FAR && p->fera_dist[t] + 1 < best)
				best = p->fera_dist[t] + 1;
		}
		p->fera_dist[x] = best;
	}
	/* counting sort, longest first: count[len] switches are len long */
	memset(count, 0, (S + 1) * sizeof(*count));
	for (uint32_t x = 0; x < S; x++)
		if (x != d && p->fera_dist[x] < S)
			count[p->fera_dist[x]]++;
	for (uint32_t len = S, at = 0; len-- > 0;) {
		uint32_t n = count[len];
		count[len] = at;
		at += n;
	}
	p->num_push = 0;
	for (uint32_t x = 0; x < S; x++)
		if (x != d && p->fera_dist[x] < S) {
			p->push_order[count[p->fera_dist[x]]++] = x;
			p->num_push++;
		}
}

/* The pairs flow[x] riding FERa's route from each switch x to the LID of
 * column col, pushed along col's tree, longest routes first, O(S): the
 * links they load and how much, into steps (the same sums as adding each
 * source's route); flow[] is left 0 but at d.  Returns how many steps, or
 * IBR_NONE with err set: a step that does not bring the route one link
 * closer breaks FERa's invariant (a bug). */
static uint32_t push_fera_flows(const struct dr *w, const struct plan *p,
				const uint8_t *col, ibr_lid_t lid,
				uint64_t *flow, struct ibr_flow_step *steps,
				struct ibr_error *err)
{
	const struct ibr_fabric *f = w->f;
	uint32_t n = 0;

	for (uint32_t j = 0; j < p->num_push; j++) {
		uint32_t x = p->push_order[j], i, y;
		uint64_t pairs = flow[x];
		if (pairs == 0)
			continue;
		flow[x] = 0;
		i = ibr_walker_channel(&w->walker, x, col[x]);
		if (i == IBR_NONE ||
		    p->fera_dist[y = f->sw_adj[i].peer] + 1 != p->fera_dist[x]) {
			ibr_error_set(err, "dr: FERa's entry for LID %u at "
				      "switch 0x%016llx (port %u) does not "
				      "lead one link closer (a bug)", lid,
				      (unsigned long long)ibr_switch(f, x)->guid,
				      col[x]);
			return IBR_NONE;
		}
		steps[n++] = (struct ibr_flow_step){ i, (uint32_t)pairs };
		flow[y] += pairs;
	}
	return n;
}

static const uint8_t *base_column(const struct dr *w, uint32_t e)
{
	const struct ibr_end_port *ep = &w->f->end_ports[e];

	return ibr_column(w->r, ibr_port(w->f, ep->node, ep->port)->base_lid);
}

/* The plan of destination switch d (struct plan), from FERa's tables,
 * on a lister's scratch.  A bug found (FERa's column not leading one
 * link closer) marks the plan failed, and its renaming reports it: the
 * sequence meets it there. */
static void list_destination(const struct dr *w, struct lister *l,
			     struct plan *p, uint32_t d)
{
	const struct ibr_fabric *f = w->f;
	uint32_t S = f->num_switches, reached_down;

	p->d = d;
	p->num_cas = cas_on(f, d);
	p->failed = false;
	p->err.msg[0] = '\0';
	if (p->num_cas == 0)
		return;
	reached_down = ibr_down_distances(&w->up, S, d, p->down_dist, l->queue);
	ibr_legal_distances(&w->up, w->ud, p->down_dist, p->legal_dist);
	fera_distances(w, l, p);
	mark_needed(w, l, p);
	list_steps(w, l, p, reached_down);
	/* a source with no legal route to d (no root above both: an
	 * aggregation node on another root) is owed none: no path, its
	 * entries IBR_NO_PATH as FERa's, its pairs on the base LID */
	p->num_sources = 0;
	for (uint32_t s = 0; s < S; s++)
		if (s != d && cas_on(f, s) > 0 &&
		    p->legal_dist[s] != IBR_FAR &&
		    (w->detail || !keeps_fera(w, p, s)))
			p->sources[p->num_sources++] = s;
	for (uint32_t s = 0; s < S; s++)
		l->kept_flow[s] = s != d && keeps_fera(w, p, s) ? cas_on(f, s) : 0;
	p->kept_start[0] = 0;
	for (uint32_t i = 0; i < p->num_cas; i++) {
		uint32_t e = f->sw_cas[f->sw_ca_start[d] + i], n;
		memcpy(l->flow, l->kept_flow, S * sizeof(*l->flow));
		n = push_fera_flows(w, p, base_column(w, e),
				    ibr_end_port_lid(f, e), l->flow,
				    p->kept + p->kept_start[i], &p->err);
		if (n == IBR_NONE) {
			p->failed = true;
			return;
		}
		p->kept_start[i + 1] = p->kept_start[i] + n;
	}
}

/* Places the path of every source switch to end port i of the plan's
 * switch d (the i-th of its sw_cas) and writes its LIDs above the base.
 *
 * With balanced ports, a source whose FERa route is minimal keeps it and
 * the base LID (configuration 0 is FERa's column, which a FERa route
 * always fits, and fitting adds nothing to it): its pairs are the plan's
 * kept flows, added to the loads with those that fall back after the
 * loop, so the loads every choice of this end port sees (choose_links,
 * taken once, before the first source needing it) are those before it. */
static int rename_destination(struct dr *w, const struct plan *p, uint32_t i,
			      struct ibr_error *err)
{
	const struct ibr_fabric *f = w->f;
	uint32_t S = f->num_switches, d = p->d;
	uint32_t e = f->sw_cas[f->sw_ca_start[d] + i];
	const struct ibr_end_port *ep = &f->end_ports[e];
	const struct ibr_port *port = ibr_port(f, ep->node, ep->port);
	uint32_t lids = ibr_port_lid_count(port);
	const uint8_t *base = ibr_column(w->r, port->base_lid);
	struct ibr_configs *c = &w->configs;
	bool chosen = false, fallen = false;
	uint32_t used;

	ibr_configs_clear(c);
	if (ibr_configs_open(c, err) == IBR_NONE)
		return -1;
	memcpy(ibr_configs_column(c, 0), base, S);
	for (uint32_t j = 0; j < p->num_sources; j++) {
		uint32_t s = p->sources[j], pairs = cas_on(f, s), len, k,
			 fera_len = 0;
		if (w->detail && keeps_fera(w, p, s)) { /* listed for it */
			fera_len = fera_route(w, base, s, d);
			len = take_fera_path(w, s, fera_len, ep);
			if (keep_detail(w, s, e, len, 0, err))
				return -1;
			continue;
		}
		if (!chosen) {
			choose_links(w, p, !w->links_set);
			w->links_set = true;
			chosen = true;
		}
		len = follow_path(w, s, d, ep);
		if (len == 0)
			return ibr_error_set(err, "dr: no legal path from switch "
					     "0x%016llx to LID %u",
					     (unsigned long long)ibr_switch(f, s)->guid,
					     port->base_lid);
		fera_len = p->fera_dist[s];
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
			fallen = true;
			w->fallback_pairs += pairs;
			w->links_above_minimal +=
				(uint64_t)(fera_len - (len - 1)) * pairs;
		}
		if (w->detail && keep_detail(w, s, e, len, k < lids ? (uint8_t)k :
					     IBR_NOT_REALISED, err))
			return -1;
	}
	ibr_flow_steps_add(w->load, p->kept + p->kept_start[i],
		  p->kept_start[i + 1] - p->kept_start[i]);
	if (fallen) {
		uint32_t n = push_fera_flows(w, p, base, port->base_lid,
					     w->fera_flow, w->fallen, err);
		w->fera_flow[d] = 0;
		if (n == IBR_NONE)
			return -1;
		ibr_flow_steps_add(w->load, w->fallen, n);
	}
	used = c->count < lids ? c->count : lids;
	for (uint32_t k = 1; k < lids; k++) {
		uint8_t *col = ibr_column(w->r, port->base_lid + k);
		if (k < used)
			memcpy(col, ibr_configs_column(c, k), S);
		else
			memset(col, IBR_NO_PATH, S);
	}
	w->lids_needed += ibr_lids_for_configs(c->count);
	w->renamed_lids += used - 1;
	return 0;
}

/* Batch b's plans: its slot of w->plans. */
static struct plan *batch_plans(struct dr *w, unsigned b)
{
	return &w->plans[ibr_pipeline_slot(b) * DR_BATCH];
}

/* ibr_pipeline's steps: batch b is destination switches b * DR_BATCH ..,
 * in index order. */
static int list_plan(void *arg, unsigned b, unsigned i, unsigned worker)
{
	struct dr *w = arg;

	if (b * DR_BATCH + i < w->f->num_switches)
		list_destination(w, &w->listers[worker],
				 &batch_plans(w, b)[i],
				 b * DR_BATCH + i);
	return 0;
}

static int rename_batch(void *arg, unsigned b)
{
	struct dr *w = arg;
	uint32_t S = w->f->num_switches;
	const struct plan *plans = batch_plans(w, b);

	for (uint32_t k = 0; k < DR_BATCH && b * DR_BATCH + k < S; k++) {
		if (plans[k].failed)
			return ibr_error_set(&w->rename_err, "%s",
					     plans[k].err.msg);
		w->links_set = false;
		for (uint32_t i = 0; i < plans[k].num_cas; i++)
			if (rename_destination(w, &plans[k], i, &w->rename_err))
				return -1;
	}
	return 0;
}

static int rename_all(struct dr *w, struct ibr_error *err)
{
	uint32_t S = w->f->num_switches;

	if (ibr_pipeline(w->threads, (S + DR_BATCH - 1) / DR_BATCH, DR_BATCH,
			 list_plan, rename_batch, w)) {
		*err = w->rename_err;
		return -1;
	}
	return 0;
}

/* A lister per worker of the pipeline; 0 or -1. */
static int alloc_listers(struct dr *w)
{
	uint32_t S = w->f->num_switches;

	w->num_listers = ibr_parallel_workers(w->threads, DR_BATCH + 1);
	w->listers = calloc(w->num_listers, sizeof(*w->listers));
	if (!w->listers)
		return -1;
	for (unsigned k = 0; k < w->num_listers; k++) {
		struct lister *l = &w->listers[k];
		l->queue = malloc(S * sizeof(uint32_t));
		l->need = malloc(S ? S : 1);
		l->stack = malloc(2 * S * sizeof(uint32_t));
		l->push_count = malloc((S + 1) * sizeof(uint32_t));
		l->flow = malloc(S * sizeof(uint64_t));
		l->kept_flow = malloc(S * sizeof(uint64_t));
		if (!l->queue || !l->need || !l->stack || !l->push_count ||
		    !l->flow || !l->kept_flow)
			return -1;
	}
	return 0;
}

/* The plans' arrays, sized for any destination switch of f; 0 or -1. */
static int alloc_plans(struct dr *w)
{
	const struct ibr_fabric *f = w->f;
	uint32_t S = f->num_switches, links = f->sw_adj_start[S], most_cas = 1;

	for (uint32_t x = 0; x < S; x++)
		if (cas_on(f, x) > most_cas)
			most_cas = cas_on(f, x);
	for (unsigned i = 0; i < IBR_PIPELINE_DEPTH * DR_BATCH; i++) {
		struct plan *p = &w->plans[i];
		p->down_dist = malloc(S * sizeof(uint32_t));
		p->legal_dist = malloc(S * sizeof(uint32_t));
		p->fera_dist = malloc(S * sizeof(uint32_t));
		p->push_order = malloc(S * sizeof(uint32_t));
		p->step_sw = malloc(2 * S * sizeof(uint32_t));
		p->step_first = malloc((2 * S + 1) * sizeof(uint32_t));
		p->step_link = malloc((2 * (size_t)links + 1) * sizeof(uint32_t));
		p->sources = malloc(S * sizeof(uint32_t));
		p->same_sw = malloc(S * sizeof(uint32_t));
		p->kept_start = malloc((most_cas + 1) * sizeof(uint32_t));
		p->kept = malloc((size_t)most_cas * (S ? S : 1) *
				 sizeof(*p->kept));
		if (!p->down_dist || !p->legal_dist || !p->fera_dist ||
		    !p->push_order || !p->step_sw || !p->step_first ||
		    !p->step_link || !p->sources || !p->same_sw ||
		    !p->kept_start || !p->kept)
			return -1;
	}
	return 0;
}

static void free_work(struct dr *w)
{
	for (unsigned i = 0; i < IBR_PIPELINE_DEPTH * DR_BATCH; i++) {
		struct plan *p = &w->plans[i];
		free(p->down_dist);
		free(p->legal_dist);
		free(p->fera_dist);
		free(p->push_order);
		free(p->step_sw);
		free(p->step_first);
		free(p->step_link);
		free(p->sources);
		free(p->same_sw);
		free(p->kept_start);
		free(p->kept);
	}
	for (unsigned k = 0; w->listers && k < w->num_listers; k++) {
		free(w->listers[k].queue);
		free(w->listers[k].need);
		free(w->listers[k].stack);
		free(w->listers[k].push_count);
		free(w->listers[k].flow);
		free(w->listers[k].kept_flow);
	}
	free(w->listers);
	free(w->link_up);
	ibr_up_links_free(&w->up);
	free(w->load);
	free(w->next_up);
	free(w->next_down);
	free(w->neck_up);
	free(w->neck_down);
	free(w->path_sw);
	free(w->path_port);
	free(w->path_chan);
	free(w->fera_chan);
	free(w->fera_flow);
	free(w->fallen);
	ibr_walker_free(&w->walker);
	ibr_configs_free(&w->configs);
}

int ibr_dr_route_detail(struct ibr_route_ctx *ctx, struct ibr_result *r,
			struct ibr_dr_detail *d, struct ibr_error *err)
{
	const struct ibr_fabric *f = ctx->f;
	uint32_t S = f->num_switches, links = f->sw_adj_start[S];
	struct dr w = { .f = f, .r = r, .detail = d, .threads = ctx->threads };
	double t0 = ibr_now_ms();
	int rc = -1;

	if (d)
		memset(d, 0, sizeof(*d));
	/* Offset 0 of every range, and every switch LID, is FERa's. */
	if (ibr_fera_route_afresh(ctx, r, err))
		return -1;
	r->stats.count = 0;
	r->stats.phases = 0;    /* dr's phases, FERa's tree one of them */
	ibr_phase_add(r, "FERa's base tree", ibr_now_ms() - t0);
	t0 = ibr_now_ms();
	w.ud = ibr_ctx_updown(ctx, err);
	if (!w.ud || ibr_designated_init(r, f, true, err))
		return -1;
	ibr_configs_init(&w.configs, S);
	if (ibr_walker_init(&w.walker, f, err))
		goto out;
	w.link_up = malloc(links ? links : 1);
	w.load = calloc(links ? links : 1, sizeof(uint64_t));
	w.next_up = malloc(S * sizeof(uint32_t));
	w.next_down = malloc(S * sizeof(uint32_t));
	w.neck_up = malloc(S * sizeof(uint64_t));
	w.neck_down = malloc(S * sizeof(uint64_t));
	w.path_sw = malloc((S + 1) * sizeof(uint32_t));
	w.path_port = malloc(S + 1);
	w.path_chan = malloc((S + 1) * sizeof(uint32_t));
	w.fera_chan = malloc((S + 1) * sizeof(uint32_t));
	w.fera_flow = calloc(S ? S : 1, sizeof(uint64_t));
	w.fallen = malloc((S ? S : 1) * sizeof(*w.fallen));
	if (!w.link_up || alloc_listers(&w) || !w.load || !w.next_up ||
	    !w.next_down ||
	    !w.neck_up || !w.neck_down || !w.path_sw || !w.path_port ||
	    !w.path_chan || !w.fera_chan || !w.fera_flow || !w.fallen ||
	    alloc_plans(&w)) {
		ibr_error_set(err, "dr: out of memory (%u switches)", S);
		goto out;
	}
	ibr_updown_link_flags(f, w.ud, w.link_up);
	if (ibr_up_links_build(f, w.link_up, &w.up)) {
		ibr_error_set(err, "dr: out of memory (%u switches)", S);
		goto out;
	}
	w.balanced = ctx->port_choice == IBR_PORT_BALANCED;
	if (rename_all(&w, err))
		goto out;
	ibr_phase_add(r, "renaming", ibr_now_ms() - t0);
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
	  "after a change, keep the prior tables' routes and re-route the pairs "
	  "whose route broke, unless more than this percentage of CA pairs "
	  "did (0: every path and renaming afresh every run)", NULL },
	{ NULL, NULL, 0, 0, NULL, NULL },
};

/* From the prior tables after a change (prior.h), else afresh. */
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
	.measures_root = true,
	.designates_dlids = true,
	.routes_from_prior = true,
	.fallback = &ibr_engine_fera,
	.route = dr_route,
	.min_lmc = 1,
	.below_min_lmc = "routing as fera",
	.overflow_stat = "fallback pairs",
	.overflow_fate = "took FERa's route on the base LID",
};
