/*
 * ranges.c - the LIDs above the bases of a multi-LID engine's ranges
 * routed from every switch (ranges.h says how and why it stays legal).
 *
 * Ports go in slices of PORTS_PER_TASK to the workers; each port is
 * completed with the worker's own scratch and a load of its own, so what
 * a port's columns become depends on nothing another worker does.
 *
 * The routes a range's LIDs take from a switch are told apart by a hash
 * of each walk (its channels, from the switch to the owner's), computed
 * per column over the tree its walks form, nearest switches first: O(S)
 * a column, then O(LIDs^2) per (switch, port) pair to count the distinct.
 */
#include <stdlib.h>
#include <string.h>

#include "ibrouting/ranges.h"
#include "ibrouting/repair.h"
#include "ibrouting/topology.h"
#include "ibrouting/walk.h"
#include "util/parallel.h"

#define SWITCHES_PER_TASK 4u

struct ranges_worker {
	struct ibr_repair rp;    /* over the run's walker, rp.order by LID */
	uint64_t *load;          /* per sw_adj entry: this port's flows */
	/* [offset][switch]: completing, the first port's completed columns
	 * of the switch (bytes); measuring, the walks' hashes (0: none) */
	uint64_t *tree;
	uint32_t *by_hops, *count;   /* hashing's counting sort */
	uint8_t *held;           /* per switch: its entry if its walk held */
	uint64_t *neck;          /* grow: per switch settled, its route's */
	uint32_t *round, *stamp; /* grow: when each settled, looked at */
	uint32_t *fresh;         /* grow: the switches in the order settled */
	struct ibr_range_figures fig;
};

struct ranges {
	const struct ibr_fabric *f;
	struct ibr_result *r;
	struct ibr_walker w;
	uint32_t *sw_order, *ep_order;
	uint32_t *ep_start, *ep_by_sw;   /* each switch's CA ports by LID */
	uint32_t *weight;        /* per switch: its hosts, the flows it sends */
	uint8_t *link_up;        /* per sw_adj entry: the link climbs */
	unsigned lids;           /* the largest range */
	struct ranges_worker *rw;
	unsigned workers;
};

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	x ^= x >> 33;
	return x;
}

/* rw->by_hops[0 .. n): the switches whose walk holds (judged: rp's
 * verdict and hops), fewest hops first, by index among equals (a
 * counting sort through rw->count); returns n. */
static uint32_t holding_by_hops(const struct ibr_repair *rp,
				struct ranges_worker *rw, uint32_t S)
{
	uint32_t most = 0, n = 0;

	memset(rw->count, 0, (S + 1) * sizeof(uint32_t));
	for (uint32_t s = 0; s < S; s++)
		if (ibr_repair_holds(rp, s)) {
			rw->count[rp->hops[s]]++;
			if (rp->hops[s] > most)
				most = rp->hops[s];
		}
	for (uint32_t k = 0, at = 0; k <= most; k++) {
		uint32_t c = rw->count[k];
		rw->count[k] = at;
		at += c;
	}
	for (uint32_t s = 0; s < S; s++)
		if (ibr_repair_holds(rp, s)) {
			rw->by_hops[rw->count[rp->hops[s]]++] = s;
			n++;
		}
	return n;
}

/* h[s]: a hash of the walk from s along col (judged: rp's verdict and
 * hops), 0 where it does not hold. */
static void hash_walks(const struct ranges *g, struct ranges_worker *rw,
		       const uint8_t *col, ibr_lid_t lid, uint64_t *h)
{
	const struct ibr_repair *rp = &rw->rp;
	uint32_t S = g->f->num_switches, n = holding_by_hops(rp, rw, S), t;

	for (uint32_t s = 0; s < S; s++)
		h[s] = 0;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t s = rw->by_hops[i];
		if (rp->hops[s] == 0 ||
		    ibr_walker_step(&g->w, s, lid, col[s], &t) != IBR_STEP_NEXT) {
			h[s] = 1;       /* delivered here */
			continue;
		}
		h[s] = mix(h[t] * 0x9e3779b97f4a7c15ull +
			   ibr_walker_channel(&g->w, s, col[s]) + 1) | 1;
	}
}

/* The distinct routes of port e's n LIDs from every switch but its own. */
static void count_routes(const struct ranges *g, struct ranges_worker *rw,
			 uint32_t e, unsigned n)
{
	uint32_t S = g->f->num_switches, own = g->f->end_ports[e].sw;

	for (uint32_t s = 0; s < S; s++) {
		unsigned distinct = 0;
		if (s == own || rw->tree[s] == 0)
			continue;
		for (unsigned k = 0; k < n; k++) {
			uint64_t h = rw->tree[(size_t)k * S + s];
			bool seen = h == 0;
			for (unsigned j = 0; j < k && !seen; j++)
				seen = rw->tree[(size_t)j * S + s] == h;
			distinct += !seen;
		}
		rw->fig.pairs++;
		rw->fig.routes += distinct;
		rw->fig.pairs_diverse += distinct > 1;
	}
}

/* The switches of col whose walk does not hold (the judgement in rw->rp)
 * given one that does, grown outwards from the walks that hold in rounds
 * (what repair.h's balanced mending does, in O(links + S x route) for a
 * column with few walks of its own): in round r a switch takes, among its
 * hops into a walk that held before the round and may be entered (one
 * that only descends, or any by an up link), the shortest route, then
 * the one whose heaviest channel (rw->load, as that walk's neck was when
 * it settled) is lightest, then the lowest port; rp's verdicts and hops
 * follow, so the column stays judged.  The flows of the switches grown
 * are then added along their walks.  Returns the switches left that the
 * base column routes (for the mending's last resort); those it leaves
 * without a route are owed none.
 *
 * The hops are offered, not sought: each switch settled in round r - 1
 * offers its hop to every neighbour not settled (the link seen from the
 * neighbour's side, `into`), and each neighbour offered one settles in
 * round r on the best offer.  Only those can be entered in round r: a
 * switch with a hop into one settled earlier was offered it then and
 * settled then.  So the choice is the same as looking, in round r, at
 * every neighbour settled before it, and each link is looked at once per
 * tree from the settled side; looking from the pending side would look
 * at a pending switch's every link each round a neighbour settled. */

/* Is the hop `i` (an sw_adj entry, into a settled switch) better than
 * `best` for its switch: shorter, then a lighter neck, then a lower port? */
static bool better_hop(const struct ranges *g, const struct ranges_worker *rw,
		       uint32_t i, uint32_t best)
{
	const struct ibr_fabric *f = g->f;
	uint32_t t = f->sw_adj[i].peer, bt = f->sw_adj[best].peer;
	uint32_t h = rw->rp.hops[t], bh = rw->rp.hops[bt];
	uint64_t n = rw->load[i] > rw->neck[t] ? rw->load[i] : rw->neck[t];
	uint64_t bn = rw->load[best] > rw->neck[bt] ? rw->load[best] :
		      rw->neck[bt];

	if (h != bh)
		return h < bh;
	if (n != bn)
		return n < bn;
	return f->sw_adj[i].port < f->sw_adj[best].port;
}

static uint32_t grow(const struct ranges *g, struct ranges_worker *rw,
		     uint8_t *col, const uint8_t *base, ibr_lid_t lid)
{
	const struct ibr_fabric *f = g->f;
	struct ibr_repair *rp = &rw->rp;
	uint32_t S = f->num_switches, n = 0, t, holding, settled;
	uint32_t *offer = rw->by_hops, *offered = rw->count;

	/* the necks of the walks that hold, nearest first */
	for (uint32_t s = 0; s < S; s++)
		rw->round[s] = ibr_repair_holds(rp, s) ? 0 : UINT32_MAX;
	holding = holding_by_hops(rp, rw, S);
	for (uint32_t i = 0; i < holding; i++) {
		uint32_t s = rw->by_hops[i], ch;
		rw->neck[s] = 0;
		if (rp->hops[s] == 0 ||
		    ibr_walker_step(&g->w, s, lid, col[s], &t) != IBR_STEP_NEXT)
			continue;
		ch = ibr_walker_channel(&g->w, s, col[s]);
		rw->neck[s] = rw->load[ch] > rw->neck[t] ? rw->load[ch] :
			      rw->neck[t];
	}
	/* round r: the offers of the switches settled in round r - 1 (the
	 * walks that hold: round 0), then each switch offered one settles
	 * on the best; by_hops and count are free now: offer[s], the best
	 * hop offered s this round (an sw_adj entry of s), offered[], the
	 * switches offered one */
	for (uint32_t s = 0; s < S; s++) {
		rw->stamp[s] = 0;
		if (ibr_repair_holds(rp, s))
			rw->fresh[n++] = s;
	}
	holding = n;
	for (uint32_t r = 1, from = 0, to = n; from < to; r++) {
		uint32_t m = 0;
		for (uint32_t j = from; j < to; j++) {
			uint32_t x = rw->fresh[j];
			uint8_t v = rp->verdict[x];
			for (uint32_t i = f->sw_adj_start[x];
			     i < f->sw_adj_start[x + 1]; i++) {
				uint32_t s = f->sw_adj[i].peer, into;
				if (s == x || rw->round[s] != UINT32_MAX ||
				    base[s] == IBR_NO_PATH)
					continue;
				into = ibr_walker_channel(&g->w, s,
							  f->sw_adj[i].peer_port);
				if (into == IBR_NONE ||
				    !(v == IBR_WALK_DOWN ||
				      (v == IBR_WALK_UP && g->link_up[into])))
					continue;
				if (rw->stamp[s] != r) {
					rw->stamp[s] = r;
					offer[s] = into;
					offered[m++] = s;
				} else if (better_hop(g, rw, into, offer[s])) {
					offer[s] = into;
				}
			}
		}
		for (uint32_t j = 0; j < m; j++) {
			uint32_t s = offered[j], i = offer[s];
			uint32_t x = f->sw_adj[i].peer;
			col[s] = f->sw_adj[i].port;
			rp->verdict[s] = g->link_up[i] ? IBR_WALK_UP :
				       IBR_WALK_DOWN;
			rp->hops[s] = rp->hops[x] + 1;
			rw->neck[s] = rw->load[i] > rw->neck[x] ? rw->load[i] :
				      rw->neck[x];
			rw->round[s] = r;
			rw->fresh[n++] = s;
		}
		from = to;
		to = n;
	}
	settled = n;
	n = 0;
	for (uint32_t s = 0; s < S; s++)
		n += rw->round[s] == UINT32_MAX && base[s] != IBR_NO_PATH;
	for (uint32_t i = holding; i < settled; i++) {
		uint32_t s = rw->fresh[i];
		rw->fig.set++;
		if (g->weight[s])
			ibr_repair_walk(rp, col, lid, s, g->weight[s], rw->load,
					NULL);
	}
	return n;
}

/* Offset k of the port e (its column col, the base column base): the
 * walks that hold kept, the rest mended against rw->load (ranges.h). */
static void mend_column(const struct ranges *g, struct ranges_worker *rw,
			uint32_t e, uint8_t *col, const uint8_t *base,
			ibr_lid_t lid)
{
	const struct ibr_end_port *ep = &g->f->end_ports[e];
	struct ibr_repair *rp = &rw->rp;
	uint32_t S = g->f->num_switches;

	/* an offset no path took: delivered at the owner's switch, so the
	 * mending grows a tree of its own from there */
	if (col[ep->sw] == IBR_NO_PATH && base[ep->sw] != IBR_NO_PATH) {
		col[ep->sw] = base[ep->sw];
		rw->fig.set++;
	}
	if (!ibr_repair_load(rp, col, lid, g->weight, rw->load))
		return;
	for (uint32_t s = 0; s < S; s++)
		rw->held[s] = ibr_repair_holds(rp, s) ? col[s] : IBR_NO_PATH;
	if (!grow(g, rw, col, base, lid))
		return;
	rw->fig.set += ibr_repair_mend_judged(rp, col, base, lid, false,
					      g->weight, rw->load);
	for (uint32_t s = 0; s < S; s++)
		rw->fig.held_changed += rw->held[s] != IBR_NO_PATH &&
					rw->held[s] != col[s];
}

/* Does the entry `port` of s climb?  (No channel to a switch: taken as
 * climbing, so the caller judges.) */
static bool climbs(const struct ranges *g, uint32_t s, uint8_t port)
{
	uint32_t ch = ibr_walker_channel(&g->w, s, port);

	return ch == IBR_NONE || g->link_up[ch];
}

/* Offset k of a port on switch d after the first: its holes take the
 * first's completed column's entries (tree; the CAs of one switch mostly
 * have the same paths) and what does not hold then is mended as the
 * first's was.  Without a judgement where none can break: a set entry's
 * walk holds (a designated path, or its suffix), and is legal, so it
 * climbs, if at all, from its first hop; a walk of tree's entries that
 * meets a set entry x differing from tree's goes on along x's walk, which
 * breaks it only if the walk descended before x (so x's walk in tree only
 * descends: tree's entry at x descends) and x's own walk climbs (its
 * entry climbs).  No such x: every walk holds. */
static void follow_first(const struct ranges *g, struct ranges_worker *rw,
			 uint32_t e, uint8_t *col, const uint8_t *base,
			 ibr_lid_t lid, const uint8_t *tree)
{
	uint32_t S = g->f->num_switches, d = g->f->end_ports[e].sw, filled = 0;
	uint8_t own = g->f->end_ports[e].sw_port, at_d = col[d];
	bool safe = at_d == IBR_NO_PATH || at_d == own;
	unsigned differ = 0;

	/* branch-free, over every switch: d is set apart below */
	col[d] = tree[d];
	for (uint32_t s = 0; s < S; s++)
		differ |= col[s] != IBR_NO_PATH && col[s] != tree[s];
	for (uint32_t s = 0; s < S && differ && safe; s++)
		if (col[s] != IBR_NO_PATH && col[s] != tree[s])
			safe = !climbs(g, s, col[s]) ||
			       (tree[s] != IBR_NO_PATH && climbs(g, s, tree[s]));
	for (uint32_t s = 0; s < S; s++) {
		filled += col[s] == IBR_NO_PATH && tree[s] != IBR_NO_PATH;
		col[s] = col[s] == IBR_NO_PATH ? tree[s] : col[s];
	}
	col[d] = at_d == IBR_NO_PATH ? own : at_d;
	/* d held tree[d] while the holes were counted: not among them */
	rw->fig.set += filled + (at_d == IBR_NO_PATH);
	if (!safe)
		mend_column(g, rw, e, col, base, lid);
}

/* The CA ports of switch d, by base LID (g->ep_by_sw), completed: the
 * first's LIDs above its base against a load of their own, seeded with
 * its base column's flows; the others follow it. */
static void complete_switch(const struct ranges *g, struct ranges_worker *rw,
			    uint32_t d)
{
	const struct ibr_fabric *f = g->f;
	uint32_t S = f->num_switches, links = f->sw_adj_start[S];
	uint32_t first = g->ep_start[d], end = g->ep_start[d + 1];
	unsigned built = 1;     /* offsets of the first trees built */

	if (first == end)
		return;
	memset(rw->load, 0, (links ? links : 1) * sizeof(uint64_t));
	for (uint32_t i = first; i < end; i++) {
		uint32_t e = g->ep_by_sw[i];
		const struct ibr_end_port *ep = &f->end_ports[e];
		const struct ibr_port *p = ibr_port(f, ep->node, ep->port);
		const uint8_t *base = ibr_column(g->r, p->base_lid);
		unsigned n = ibr_port_lid_count(p);

		if (n > built && built == 1)
			ibr_repair_load(&rw->rp, base, p->base_lid, g->weight,
					rw->load);
		for (unsigned k = 1; k < n; k++) {
			ibr_lid_t lid = (ibr_lid_t)(p->base_lid + k);
			uint8_t *col = ibr_column(g->r, lid);
			uint8_t *tree = (uint8_t *)rw->tree + (size_t)k * S;
			if (k < built) {
				follow_first(g, rw, e, col, base, lid, tree);
				continue;
			}
			mend_column(g, rw, e, col, base, lid);
			memcpy(tree, col, S);
			built = k + 1;
		}
	}
}

static int complete_task(void *arg, unsigned t, unsigned worker)
{
	struct ranges *g = arg;
	uint32_t first, end;

	ibr_slice(t, SWITCHES_PER_TASK, g->f->num_switches, &first, &end);
	for (uint32_t i = first; i < end; i++)
		complete_switch(g, &g->rw[worker], g->sw_order[i]);
	return 0;
}

static void free_ranges(struct ranges *g)
{
	for (unsigned k = 0; g->rw && k < g->workers; k++) {
		ibr_repair_free(&g->rw[k].rp);
		free(g->rw[k].load);
		free(g->rw[k].tree);
		free(g->rw[k].by_hops);
		free(g->rw[k].count);
		free(g->rw[k].held);
		free(g->rw[k].neck);
		free(g->rw[k].round);
		free(g->rw[k].fresh);
		free(g->rw[k].stamp);
	}
	free(g->link_up);
	free(g->rw);
	free(g->sw_order);
	free(g->ep_order);
	free(g->ep_start);
	free(g->ep_by_sw);
	free(g->weight);
	ibr_walker_free(&g->w);
}

/* The scratch of a pass over the ranges of r; 0: no range has more than
 * one LID (nothing to do), 1: ready, -1 after a message. */
static int init_ranges(struct ranges *g, const struct ibr_fabric *f,
		       const struct ibr_updown *ud, struct ibr_result *r,
		       unsigned threads, struct ibr_error *err)
{
	uint32_t S = f->num_switches, links = f->sw_adj_start[S];
	uint32_t E = f->num_end_ports ? f->num_end_ports : 1;

	*g = (struct ranges){ .f = f, .r = r, .lids = 1 };
	for (uint32_t e = 0; e < f->num_end_ports; e++) {
		const struct ibr_end_port *ep = &f->end_ports[e];
		unsigned n = ibr_port_lid_count(ibr_port(f, ep->node, ep->port));
		if (n > g->lids)
			g->lids = n;
	}
	if (g->lids < 2 || S == 0)
		return 0;
	if (ibr_walker_init(&g->w, f, err))
		return -1;
	g->workers = ibr_parallel_workers(threads,
		ibr_slice_count(S, SWITCHES_PER_TASK));
	g->sw_order = malloc(S * sizeof(uint32_t));
	g->ep_order = malloc(E * sizeof(uint32_t));
	g->ep_start = calloc(S + 1, sizeof(uint32_t));
	g->ep_by_sw = malloc(E * sizeof(uint32_t));
	g->weight = malloc(S * sizeof(uint32_t));
	g->rw = calloc(g->workers, sizeof(*g->rw));
	g->link_up = malloc(links ? links : 1);
	if (!g->sw_order || !g->ep_order || !g->ep_start || !g->ep_by_sw ||
	    !g->weight || !g->rw || !g->link_up)
		goto oom;
	ibr_updown_link_flags(f, ud, g->link_up);
	ibr_repair_orders(f, &g->w, g->sw_order, g->ep_order);
	ibr_switch_hosts(f, g->weight);
	/* each switch's CA ports by base LID */
	for (uint32_t e = 0; e < f->num_end_ports; e++)
		g->ep_start[f->end_ports[e].sw + 1]++;
	for (uint32_t s = 0; s < S; s++)
		g->ep_start[s + 1] += g->ep_start[s];
	for (uint32_t i = 0; i < f->num_end_ports; i++) {
		uint32_t e = g->ep_order[i], sw = f->end_ports[e].sw;
		g->ep_by_sw[g->ep_start[sw]++] = e;
	}
	for (uint32_t s = S; s > 0; s--)
		g->ep_start[s] = g->ep_start[s - 1];
	g->ep_start[0] = 0;
	for (unsigned k = 0; k < g->workers; k++) {
		struct ranges_worker *rw = &g->rw[k];
		if (ibr_repair_init(&rw->rp, f, ud, &g->w, err)) {
			free_ranges(g);
			return -1;
		}
		rw->rp.order = g->sw_order;
		rw->load = malloc((links ? links : 1) * sizeof(uint64_t));
		rw->tree = malloc((size_t)g->lids * S * sizeof(uint64_t));
		rw->by_hops = malloc(S * sizeof(uint32_t));
		rw->count = malloc((S + 1) * sizeof(uint32_t));
		rw->held = malloc(S);
		rw->neck = malloc(S * sizeof(uint64_t));
		rw->round = malloc(S * sizeof(uint32_t));
		rw->fresh = malloc(S * sizeof(uint32_t));
		rw->stamp = malloc(S * sizeof(uint32_t));
		if (!rw->load || !rw->tree || !rw->by_hops || !rw->count ||
		    !rw->held || !rw->neck || !rw->round || !rw->fresh ||
		    !rw->stamp)
			goto oom;
	}
	return 1;
oom:
	free_ranges(g);
	return ibr_error_set(err, "out of memory for the LID ranges of %u "
			     "switches", S);
}

int ibr_ranges_complete(const struct ibr_fabric *f,
			const struct ibr_updown *ud, struct ibr_result *r,
			unsigned threads, struct ibr_error *err)
{
	struct ranges g;
	int rc;

	memset(&r->ranges, 0, sizeof(r->ranges));
	rc = init_ranges(&g, f, ud, r, threads, err);
	if (rc <= 0)
		return rc;
	ibr_parallel(threads, ibr_slice_count(f->num_switches,
					      SWITCHES_PER_TASK),
		     complete_task, &g);
	r->ranges.completed = true;
	r->ranges.lids = g.lids;
	for (unsigned k = 0; k < g.workers; k++) {
		r->ranges.set += g.rw[k].fig.set;
		r->ranges.held_changed += g.rw[k].fig.held_changed;
	}
	free_ranges(&g);
	return 0;
}

/* The routes of port e's LIDs from every switch (their hashes), and the
 * entries left without a legal route. */
static void measure_port(const struct ranges *g, struct ranges_worker *rw,
			 uint32_t e)
{
	const struct ibr_fabric *f = g->f;
	const struct ibr_end_port *ep = &f->end_ports[e];
	const struct ibr_port *p = ibr_port(f, ep->node, ep->port);
	unsigned n = ibr_port_lid_count(p);
	uint32_t S = f->num_switches;

	if (n < 2)
		return;
	for (unsigned k = 0; k < n; k++) {
		ibr_lid_t lid = (ibr_lid_t)(p->base_lid + k);
		const uint8_t *col = ibr_column(g->r, lid);
		ibr_repair_judge(&rw->rp, col, lid);
		if (k > 0) {
			rw->fig.entries += S;
			for (uint32_t s = 0; s < S; s++)
				rw->fig.owed_none +=
					!ibr_repair_holds(&rw->rp, s);
		}
		hash_walks(g, rw, col, lid, rw->tree + (size_t)k * S);
	}
	count_routes(g, rw, e, n);
}

static int measure_task(void *arg, unsigned t, unsigned worker)
{
	struct ranges *g = arg;
	uint32_t first, end;

	ibr_slice(t, SWITCHES_PER_TASK, g->f->num_switches, &first, &end);
	for (uint32_t i = first; i < end; i++)
		for (uint32_t j = g->ep_start[g->sw_order[i]];
		     j < g->ep_start[g->sw_order[i] + 1]; j++)
			measure_port(g, &g->rw[worker], g->ep_by_sw[j]);
	return 0;
}

int ibr_ranges_measure(const struct ibr_fabric *f,
		       const struct ibr_updown *ud, struct ibr_result *r,
		       unsigned threads, struct ibr_error *err)
{
	struct ranges g;
	int rc = init_ranges(&g, f, ud, r, threads, err);

	if (rc <= 0)
		return rc;
	ibr_parallel(threads, ibr_slice_count(f->num_switches,
					      SWITCHES_PER_TASK),
		     measure_task, &g);
	r->ranges.lids = g.lids;
	r->ranges.entries = r->ranges.owed_none = 0;
	r->ranges.pairs = r->ranges.routes = r->ranges.pairs_diverse = 0;
	for (unsigned k = 0; k < g.workers; k++) {
		const struct ibr_range_figures *w = &g.rw[k].fig;
		r->ranges.entries += w->entries;
		r->ranges.owed_none += w->owed_none;
		r->ranges.pairs += w->pairs;
		r->ranges.routes += w->routes;
		r->ranges.pairs_diverse += w->pairs_diverse;
	}
	free_ranges(&g);
	return 0;
}
