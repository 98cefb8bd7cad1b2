/*
 * fera.c - FERa, the Fully Explicit Routing algorithm (PIRa paper §2.3,
 * subnet-management-evaluation §2.3).
 *
 * For every destination, every switch gets an explicit entry:
 *   1. if some down port reaches the destination legally (down links only
 *      from there on), up options are ignored and the shortest such down
 *      route is taken;
 *   2. otherwise the shortest legal route, which starts with an up link;
 *   3. ties: with `port_choice lowest` the lowest port number, which
 *      reproduces Fig. 6 of the paper entry for entry; with `balanced`
 *      (the default) the least loaded route, below.
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
 * Balanced ties (engine.h, IBR_PORT_BALANCED), SSSP-style: rules 1 and 2
 * fix, per destination switch, the links each switch may take (its
 * candidates: a step one shorter along the route rules 1 and 2 allow);
 * then every destination end port is routed on its own, each switch
 * taking the candidate whose route is least loaded (choose_balanced says
 * in which sense), and the end port's flows (one per CA port sending to
 * it) are added to the links they use before the next destination.  So
 * the CAs of one leaf take different down links, and fat trees route as
 * ftree does.
 * Re-route passes (option passes, default 2): the first pass saw only the
 * destinations before it, so end ports are routed again, each with its
 * own flows taken off, against the loads of all the others, the heaviest
 * link of a route first.  A pass is made only while the heaviest link
 * between switches is above the bound no routing goes below
 * (heaviest_link), and routes again only the end ports whose route
 * crosses a link above that bound (keeps_route; option reroute_all
 * routes all).
 * Under a root set of several switches (fat trees, Clos):
 *   - the re-route passes put each switch's own flows on its route as
 *     soon as it settles (carry_hosts), so the sources of one destination
 *     split where its entry links do not divide evenly (a leaf with an up
 *     link cut has 3 links for 4 hosts' flows; agreeing sources would
 *     load one twice).  Not under one root, where it buys no balance for
 *     its cost;
 *   - the first pass spreads entries (choose_balanced): where down parts
 *     tie, a destination enters its switch from, and turns at, the switch
 *     sending the fewest flows down, not the lowest LID: by LIDs, a leaf
 *     with more entry switches than hosts leaves its highest ones idle
 *     and loads the lowest (tests/fabrics/real/ufm-ndt-director).  Kept
 *     only if no link ends above the load bound (metrics.h; given up at
 *     the first that does, then made again by LIDs), so no fabric is
 *     routed worse than by LIDs;
 *   - where the spread pass was given up and the re-route passes leave
 *     the heaviest link between switches above its bound, the routing is
 *     made again, the spread first pass made whole this time, and kept
 *     only if its heaviest link is lower (try_spread_whole): carrying
 *     hosts, the re-route passes do better from spread entries on some
 *     fabrics (Clos networks whose leaves' hosts do not divide among
 *     their up links), worse on others.
 * Switches are settled in an order where a candidate comes first: the
 * all-down part in BFS order from the destination, then the rest in
 * up/down order; flows are pushed in the reverse order.  O(S + K) per end
 * port for K candidates, beside the O(E) per destination switch.  On the
 * first pass, switches whose candidates are all up links to the same far
 * ends in the same order (a fat tree's leaves of one pod, its middle
 * switches of one place in every pod) have those far ends weighed once
 * for all of them (list_shared_ends): an up candidate's first keys are
 * its far end's route, not its own link, so the pass weighs about one
 * candidate per switch, with the tables weighing every up link gives.
 *
 * Threads (ctx->threads, parallel.h): a destination switch's candidates
 * and settling order, and on a re-route pass the flows its end ports'
 * routes carry before they are routed again (their columns are the pass
 * before's until then), do not depend on the loads the routing changes;
 * only the choices do.  So each pass goes through the destinations a
 * batch at a time (ibr_pipeline), and while one batch is routed in order,
 * the workers list the plans of the batches after it; the routing itself
 * stays one sequence, so the tables are the same for any thread count.
 *
 * After a change inside OpenSM (and `ibrouting route --prior`), fera keeps
 * the prior tables' routes that still hold and mends the others (prior.h,
 * IBR_PRIOR_ONE_ROUTE): its tables afresh are then only the fallback of
 * the mending, and the switches are sent the blocks the change touched.
 *
 * Invariant per destination: route_dist[s] is the length of the route
 * switch s's entry starts; every entry leads to the destination along a
 * legal up/down path of that length, so the tables are deadlock-free on
 * one VL whatever the tie rule.
 */
#include <stdlib.h>
#include <string.h>

#include "engines.h"
#include "ibrouting/metrics.h"
#include "ibrouting/prior.h"
#include "util/parallel.h"
#include "util/timer.h"

/* A link a switch may take to the destination: sw_adj entry, far end. */
struct candidate {
	uint32_t link, peer;
	bool up;
	uint8_t port;           /* the link's port at the switch */
};

/* The route a switch chose, as choose_balanced weighs it; one cache line
 * holds what a candidate's far end contributes. */
struct choice {
	uint64_t neck;          /* heaviest link of the route */
	uint64_t cost;          /* load along the route */
	uint64_t down_cost;     /* load of the route's down part */
	uint32_t turn;          /* LID of the switch where it starts down */
	uint32_t entry;         /* LID of the switch it reaches the destination's
				 * from; at d, above every LID */
	uint32_t via;           /* the sw_adj entry taken */
	/* the first pass under several roots (spread_entries): the flows
	 * going down out of the switches at entry and turn */
	uint64_t entry_load, turn_load;
};

/* What rules 1 and 2 give for one destination switch d, the loads
 * aside: the switches with a route to d in settling order and the links
 * each may take; on a re-route pass also the flows each end port's route
 * carries now, to come off before it is routed again.  Written by the
 * lister, then only read while d's end ports are routed. */
struct plan {
	uint32_t d;
	uint32_t num_settle;
	uint32_t *settle;       /* switches with a route, d excluded, in order */
	uint32_t *cand_start;   /* per settle position: its candidates are */
	struct candidate *cand; /*   cand[cand_start[k] .. cand_start[k+1]) */
	/* the same without the fixed switches: those with one candidate that
	 * no switch reaches d through (no other's candidate leads to them);
	 * no choice of theirs is ever weighed, so where no hosts are carried
	 * they are given their one link once and never chosen again */
	uint32_t num_decide;
	uint32_t *decide, *decide_start;
	struct candidate *decide_cand;
	uint32_t num_fixed;
	uint32_t *fixed;        /* settle positions of the fixed switches */
	/* the first pass: per decide position, the first position whose
	 * candidates lead to the same far ends in the same order, when they
	 * are several up links, none to d, and some switch after it shares
	 * them; IBR_NONE for the others (list_shared_ends) */
	uint32_t *same_as;
	/* where no hosts are carried, the flows are pushed along the
	 * switches decided only: start_flow[s] is s's hosts and those of the
	 * fixed switches leading to it, fixed_load the fixed switches' own
	 * links with their hosts (added on the first pass; on a re-route
	 * they would come off and go back on the same links) */
	uint64_t *start_flow;
	struct ibr_flow_step *fixed_load;
	uint32_t off_len;       /* entries per end port in off */
	uint32_t num_cas;
	uint32_t *cas;          /* d's end ports, by LID */
	struct ibr_flow_step *off;  /* re-route passes: end port cas[i]'s route,
				 * off[i * off_len ..]: the links and flows
				 * of the switches the routing moves (all
				 * when carrying hosts, else those decided) */
};

/* Destination switches in a batch of ibr_pipeline (balanced ties): the
 * plans are IBR_PIPELINE_DEPTH batches, the one routed and those listed
 * ahead of it. */
#define FERA_BATCH 8u

#ifdef IBR_TEST_HOOKS
struct ibr_fera_probe ibr_fera_probe;
#define WEIGH_EVERY_CANDIDATE ibr_fera_probe.weigh_every_candidate
#else
#define WEIGH_EVERY_CANDIDATE false
#endif

/* A worker's scratch while it lists a plan (and route_to_switch's). */
struct lister {
	uint32_t *down_dist;    /* per switch, IBR_FAR outside D */
	uint32_t *route_dist;   /* per switch */
	uint32_t *queue;
	uint8_t *reached;       /* per switch: some candidate leads to it */
	uint64_t *flow;         /* per switch: flows passing (list_take_off) */
	uint32_t *slot;         /* list_shared_ends' hash table: decide
				 * positions, IBR_NONE where free */
	uint32_t slot_mask;     /* its size - 1, a power of two >= 2 S */
};

struct fera {
	const struct ibr_fabric *f;
	const struct ibr_updown *ud;
	struct ibr_result *r;
	uint8_t *link_up;       /* per sw_adj entry: 1 if it points up */
	struct ibr_up_links up; /* each switch's up links: what the sweeps
				 * per destination read */
	uint8_t *out_port;      /* per switch: the chosen port */
	struct lister *listers; /* per worker listing (lowest ports: [0]) */
	unsigned num_listers;
	/* balanced ties only */
	bool balanced;
	bool neck_first;        /* re-route passes: the bottleneck first */
	bool carry;             /* re-route passes: carry_hosts as they settle
				 * (set before their plans are listed) */
	unsigned threads;       /* from 2, workers list plans beside the routing */
	struct plan plans[IBR_PIPELINE_DEPTH * FERA_BATCH];
	const struct plan *plan;        /* the destination being routed */
	uint64_t lids;          /* LIDs routed (the first pass) */
	uint64_t *load;         /* per sw_adj entry: flows routed over it */
	struct choice *choice;  /* per switch: its chosen route */
	ibr_lid_t *lid;         /* per switch: its LID */
	uint64_t *flow;         /* per switch: flows passing, per end port */
	uint64_t *hosts;        /* per switch: its CA ports, the flows it sends */
	bool spread;            /* this first pass weighs entry and turn loads
				 * (spread_entries) */
	bool spread_over;       /* and has loaded a link above load_bound */
	bool spread_give_up;    /* the spread pass is given up at the first
				 * link above load_bound (else made whole) */
	bool spread_kept;       /* the first pass made spread its tables */
	unsigned second_routing; /* try_spread_whole: 0 not made, 1 made and
				  * dropped, 2 made and kept */
	uint64_t load_bound;    /* ibr_metrics_load_bound */
	uint64_t *down_load;    /* per switch: flows routed over its down links
				 * (kept while spread) */
	uint32_t *by_lid;       /* switches by LID: the order destinations go */
	uint32_t *path;         /* one route's switches (carry_hosts) */
	uint64_t shared;        /* choices shared (ibr_fera_probe) */
	/* re-route passes: the bound no routing loads a link between
	 * switches below (metrics.h), and whether every end port is routed
	 * again (option reroute_all) or only those whose route crosses a
	 * link above it (keeps_route) */
	uint64_t bound;
	bool reroute_all;
	bool hosts_routed;      /* balanced: every switch with hosts had a
				 * route to every destination switch with
				 * hosts (the first pass's plans) */
	uint64_t rerouted;      /* end ports routed again, summed over the
				 * re-route passes */
	/* per decide position, where no hosts are carried: the link its
	 * switch took and the switch it leads to, written in settling order
	 * as choose_each decides, so add_flows reads them in sequence */
	uint32_t *took_link, *took_peer;
	uint32_t *shared_offset; /* per decide position that others share
				 * (plan.same_as): the offset, among its
				 * candidates and theirs, of the one the first
				 * pass takes for all of them, IBR_NONE on a
				 * tie (best_far_end) */
};

/* Rule 1 then rule 3: the lowest down port one step closer to d. */
static uint8_t best_down_port(const struct fera *w, const struct lister *l,
			      uint32_t s)
{
	const struct ibr_fabric *f = w->f;

	for (uint32_t i = f->sw_adj_start[s]; i < f->sw_adj_start[s + 1]; i++) {
		uint32_t t = f->sw_adj[i].peer;
		if (!w->link_up[i] && l->down_dist[t] + 1 == l->down_dist[s])
			return f->sw_adj[i].port;
	}
	return IBR_NO_PATH; /* unreachable: BFS parents are down neighbours */
}

/* Rule 2 then rule 3: shortest route through an up neighbour. */
static void best_up_route(struct fera *w, struct lister *l, uint32_t s)
{
	uint32_t best = IBR_FAR;
	uint8_t port = IBR_NO_PATH;

	for (uint32_t i = w->up.start[s]; i < w->up.start[s + 1]; i++) {
		uint32_t t = w->up.at[i].peer;
		if (l->route_dist[t] != IBR_FAR && l->route_dist[t] + 1 < best) {
			best = l->route_dist[t] + 1;
			port = w->up.at[i].port;
		}
	}
	l->route_dist[s] = best;
	w->out_port[s] = port;
}

static void route_to_switch(struct fera *w, struct lister *l, uint32_t d)
{
	const struct ibr_updown *ud = w->ud;

	ibr_down_distances(&w->up, w->f->num_switches, d, l->down_dist,
			   l->queue);
	for (uint32_t k = 0; k < ud->num_switches; k++) {
		uint32_t s = ud->order[k];
		if (s == d) {
			l->route_dist[s] = 0;
			w->out_port[s] = 0;
		} else if (l->down_dist[s] != IBR_FAR) {
			l->route_dist[s] = l->down_dist[s];
			w->out_port[s] = best_down_port(w, l, s);
		} else {
			best_up_route(w, l, s);
		}
	}
}

/* ---- balanced ties --------------------------------------------------- */

/* Switch s, with an all-down route, in BFS order from the destination:
 * its down links one step closer (rule 1), settled. */
static void add_down_candidates(const struct fera *w, const struct lister *l,
				struct plan *p, uint32_t s)
{
	const struct ibr_fabric *f = w->f;

	for (uint32_t i = f->sw_adj_start[s]; i < f->sw_adj_start[s + 1]; i++) {
		uint32_t t = f->sw_adj[i].peer;
		if (!w->link_up[i] && l->down_dist[t] + 1 == l->down_dist[s])
			p->cand[p->cand_start[p->num_settle + 1]++] =
				(struct candidate){ i, t, false,
						    f->sw_adj[i].port };
	}
	p->settle[p->num_settle++] = s;
	p->cand_start[p->num_settle + 1] = p->cand_start[p->num_settle];
}

/* Switch s, with no all-down route, in up/down order: its route length
 * (rule 2: one more than its best up neighbour's, all settled before it)
 * and the up links that give it, in one scan of its links; settled if it
 * has a route. */
static void add_up_candidates(const struct fera *w, struct lister *l,
			      struct plan *p, uint32_t s)
{
	const struct ibr_up_link *u = &w->up.at[w->up.start[s]];
	const struct ibr_up_link *end = &w->up.at[w->up.start[s + 1]];
	uint32_t best = IBR_FAR, first = p->cand_start[p->num_settle + 1];
	uint32_t n = first;

	for (; u < end; u++) {
		uint32_t len = l->route_dist[u->peer];
		if (len == IBR_FAR)
			continue;
		len++;
		if (len < best) {
			best = len;
			n = first; /* the longer ones listed so far go */
		}
		if (len == best)
			p->cand[n++] = (struct candidate){ u->link, u->peer,
							   true, u->port };
	}
	l->route_dist[s] = best;
	if (best == IBR_FAR)
		return;         /* no route: route_destination's IBR_NO_PATH */
	p->cand_start[p->num_settle + 1] = n;
	p->settle[p->num_settle++] = s;
	p->cand_start[p->num_settle + 1] = n;
}

/* The end ports of switch d into cas by LID; returns how many. */
static uint32_t end_ports_by_lid(const struct ibr_fabric *f, uint32_t d,
				 uint32_t *cas)
{
	uint32_t n = 0;

	for (uint32_t i = f->sw_ca_start[d]; i < f->sw_ca_start[d + 1]; i++) {
		uint32_t e = f->sw_cas[i], k = n++;
		ibr_lid_t lid = ibr_end_port_lid(f, e);
		for (; k > 0 && ibr_end_port_lid(f, cas[k - 1]) > lid; k--)
			cas[k] = cas[k - 1];
		cas[k] = e;
	}
	return n;
}

static void list_take_off(const struct fera *w, struct lister *l,
			  struct plan *p, uint32_t i);

/* The plan's switches split into those to decide and the fixed ones
 * (struct plan), both in settling order. */
static void list_fixed(const struct fera *w, struct lister *l,
		       struct plan *p)
{
	uint32_t n = 0;

	memset(l->reached, 0, w->f->num_switches);
	for (uint32_t j = 0; j < p->cand_start[p->num_settle]; j++)
		l->reached[p->cand[j].peer] = 1;
	p->num_decide = p->num_fixed = 0;
	p->decide_start[0] = 0;
	for (uint32_t k = 0; k < p->num_settle; k++) {
		uint32_t s = p->settle[k], j = p->cand_start[k];
		if (!l->reached[s] && p->cand_start[k + 1] == j + 1) {
			p->fixed[p->num_fixed++] = k;
			continue;
		}
		for (; j < p->cand_start[k + 1]; j++)
			p->decide_cand[n++] = p->cand[j];
		p->decide[p->num_decide++] = s;
		p->decide_start[p->num_decide] = n;
	}
	memcpy(p->start_flow, w->hosts, w->f->num_switches * sizeof(uint64_t));
	p->start_flow[p->d] = 0;
	for (uint32_t j = 0; j < p->num_fixed; j++) {
		uint32_t k = p->fixed[j], s = p->settle[k];
		const struct candidate *c = &p->cand[p->cand_start[k]];
		p->fixed_load[j] = (struct ibr_flow_step){
			c->link, (uint32_t)w->hosts[s] };
		p->start_flow[c->peer] += w->hosts[s];
	}
}

/* Whether the n candidates at c are all up links to switches other than
 * d: then what each weighs first (the load of the down part, the entry
 * and turn LIDs) is its far end's, not its own.  (An up link to d is a
 * route of one link, so all of its switch's candidates lead to d and
 * tie on those keys; the test on d only keeps weigh's entry rule out.) */
static bool all_up_elsewhere(const struct candidate *c, uint32_t n,
			     uint32_t d)
{
	for (uint32_t j = 0; j < n; j++)
		if (!c[j].up || c[j].peer == d)
			return false;
	return true;
}

static uint32_t hash_ends(const struct candidate *c, uint32_t n)
{
	uint32_t h = 2166136261u ^ n;

	for (uint32_t j = 0; j < n; j++)
		h = (h ^ c[j].peer) * 16777619u;
	return h ^ h >> 15;
}

/* Whether decide positions a and b have candidates leading to the same
 * far ends in the same order. */
static bool same_ends(const struct plan *p, uint32_t a, uint32_t b)
{
	uint32_t n = p->decide_start[a + 1] - p->decide_start[a];
	const struct candidate *x = &p->decide_cand[p->decide_start[a]];
	const struct candidate *y = &p->decide_cand[p->decide_start[b]];

	if (p->decide_start[b + 1] - p->decide_start[b] != n)
		return false;
	for (uint32_t j = 0; j < n; j++)
		if (x[j].peer != y[j].peer)
			return false;
	return true;
}

/* The switches to decide whose candidates, several and all up, lead to
 * the same far ends in the same order (plan.same_as).  On the first pass
 * such switches take the same candidate whenever one far end is strictly
 * best on the keys that come from the far end alone, which is then
 * decided once for all of them: the leaves of a fat tree's pod share
 * their middle switches, the middle switches of one place in every pod
 * their top switches, so the first pass weighs about one candidate per
 * switch where it weighed all of a switch's up links.  Costs the lister
 * O(S + K): clearing the hash table, hashing the far ends. */
static void list_shared_ends(struct lister *l, struct plan *p)
{
	memset(l->slot, 0xff, ((size_t)l->slot_mask + 1) * sizeof(uint32_t));
	for (uint32_t k = 0; k < p->num_decide; k++) {
		const struct candidate *c = &p->decide_cand[p->decide_start[k]];
		uint32_t n = p->decide_start[k + 1] - p->decide_start[k];

		p->same_as[k] = IBR_NONE;
		if (n < 2 || !all_up_elsewhere(c, n, p->d))
			continue;
		for (uint32_t i = hash_ends(c, n) & l->slot_mask;;
		     i = (i + 1) & l->slot_mask) {
			uint32_t first = l->slot[i];
			if (first == IBR_NONE) {
				l->slot[i] = k;
				break;
			}
			if (same_ends(p, first, k)) {
				p->same_as[first] = p->same_as[k] = first;
				break;
			}
		}
	}
}

/* d's plan: rules 1 and 2's route lengths and the candidates of every
 * switch, in settling order (those with an all-down route in BFS order
 * from d, then the others in up/down order), and d's end ports; from the
 * second pass on, their routes' flows.  The same lengths as
 * route_to_switch, whose lowest ports balanced ties do not need.  Uses
 * a lister's scratch. */
static void list_candidates(const struct fera *w, struct lister *l,
			    struct plan *p, uint32_t d, unsigned pass)
{
	const struct ibr_updown *ud = w->ud;
	uint32_t reached_down = ibr_down_distances(&w->up, w->f->num_switches,
						   d, l->down_dist, l->queue);

	p->d = d;
	p->num_settle = 0;
	p->cand_start[0] = p->cand_start[1] = 0;
	for (uint32_t k = 1; k < reached_down; k++)
		add_down_candidates(w, l, p, l->queue[k]);
	memcpy(l->route_dist, l->down_dist, w->f->num_switches * sizeof(uint32_t));
	for (uint32_t k = 0; k < ud->num_switches; k++) {
		uint32_t s = ud->order[k];
		if (l->down_dist[s] == IBR_FAR)
			add_up_candidates(w, l, p, s);
	}
	list_fixed(w, l, p);
	if (pass == 0)
		list_shared_ends(l, p);
	p->num_cas = end_ports_by_lid(w->f, d, p->cas);
	p->off_len = w->carry ? p->num_settle : p->num_decide;
	for (uint32_t i = 0; pass > 0 && i < p->num_cas; i++)
		list_take_off(w, l, p, i);
}

/* Each switch takes, among its candidates, the route whose down part
 * (from where it turns down to the destination) carries the least load;
 * on a tie the one that reaches the destination switch from the neighbour
 * with the lowest LID, then the one turning at the switch with the lowest
 * LID; then the least loaded route in all; then the least loaded first
 * link; then the lowest port.  A first pass spreading entries (w->spread)
 * compares, before each of the two LIDs, the flows that switch sends
 * down (down_load, as the pass left them before this end port): every
 * source weighs those alike too, and a leaf's destinations then enter
 * from the least used of its neighbours above, which spreads them over
 * the chassis or pods those lead to where a leaf has more up links than
 * hosts.  Why the down part first: every source
 * weighs it alike, so the sources of one destination agree on where to
 * turn (on a fat tree: one top switch per destination, as ftree assigns
 * them), and the down links into a leaf, which no source can avoid, fill
 * evenly; the up links then spread because each destination turns
 * elsewhere.  Why the entry next: sources that turn at different levels
 * (a leaf's pod mates below the middle level, the others at the top)
 * then still enter the destination's leaf by the same link, whatever the
 * LIDs of the levels (without it, OpenSM's LIDs at LMC 2 left a 4-ary
 * 3-tree at 76 flows where 63 is the bound). */
static void carry_hosts(struct fera *w, uint32_t s, uint32_t d);

/* The route through candidate c of a switch with LID lid_s (sending
 * down_s flows down), as choose_balanced weighs it (its first link's
 * load in *load), from the choices ch of the switches settled and the
 * links' loads; its neck only when with_neck (the first pass reads no
 * neck), its entry and turn loads only when spread. */
static inline struct choice weigh(const struct choice *ch,
				  const uint64_t *loads, ibr_lid_t lid_s,
				  uint64_t down_s, uint32_t d,
				  const struct candidate *c, uint64_t *load,
				  bool with_neck, bool spread)
{
	const struct choice *t = &ch[c->peer];
	uint64_t l = loads[c->link];

	*load = l;
	return (struct choice){
		.neck = !with_neck ? 0 : l > t->neck ? l : t->neck,
		.cost = l + t->cost,
		.down_cost = c->up ? t->down_cost : l + t->down_cost,
		.turn = c->up ? t->turn : lid_s,
		.entry = c->peer == d ? lid_s : t->entry,
		.via = c->link,
		.entry_load = !spread ? 0 : c->peer == d ? down_s :
			      t->entry_load,
		.turn_load = !spread ? 0 : c->up ? t->turn_load : down_s,
	};
}

/* The route through candidate c (weighed as weigh does) better than b,
 * whose first link is loaded b_load, in the order choose_balanced says:
 * the bottleneck first when neck_first, then the load of the down part,
 * (when spread, the flows its entry switch sends down) the LID the route
 * reaches the destination's switch from, (when spread, those of its turn
 * switch) the LID where it turns down, the load along it, its first
 * link's load.  Each key is
 * computed only when the ones before it tie: most candidates lose on the
 * first, and the route of a loser is never built. */
static inline bool beats(const struct choice *ch, const uint64_t *loads,
			 ibr_lid_t lid_s, uint64_t down_s, uint32_t d,
			 const struct candidate *c, const struct choice *b,
			 uint64_t b_load, bool neck_first, bool spread)
{
	const struct choice *t = &ch[c->peer];
	uint64_t l = loads[c->link], down_cost, cost, entry_load, turn_load;
	uint32_t entry, turn;

	if (neck_first) {
		uint64_t neck = l > t->neck ? l : t->neck;
		if (neck != b->neck)
			return neck < b->neck;
	}
	down_cost = c->up ? t->down_cost : l + t->down_cost;
	if (down_cost != b->down_cost)
		return down_cost < b->down_cost;
	if (spread) {
		entry_load = c->peer == d ? down_s : t->entry_load;
		if (entry_load != b->entry_load)
			return entry_load < b->entry_load;
	}
	entry = c->peer == d ? lid_s : t->entry;
	if (entry != b->entry)
		return entry < b->entry;
	if (spread) {
		turn_load = c->up ? t->turn_load : down_s;
		if (turn_load != b->turn_load)
			return turn_load < b->turn_load;
	}
	turn = c->up ? t->turn : lid_s;
	if (turn != b->turn)
		return turn < b->turn;
	cost = l + t->cost;
	if (cost != b->cost)
		return cost < b->cost;
	return l < b_load;
}

/* The candidate among the n at c (all up, none to d) whose far end is
 * strictly best on what every switch with these far ends weighs alike,
 * in beats' order: the down part's load, the entry LID, the turn LID
 * (each LID after its switch's down flows when spread); as
 * an offset from c, or IBR_NONE when two tie there (each switch then
 * weighs its own links). */
static inline uint32_t best_far_end(const struct choice *ch,
				    const struct candidate *c, uint32_t n,
				    bool spread)
{
	const struct choice *b = &ch[c[0].peer];
	uint32_t best = 0;
	bool tie = false;

	for (uint32_t j = 1; j < n; j++) {
		const struct choice *t = &ch[c[j].peer];
		if (t->down_cost != b->down_cost) {
			if (t->down_cost > b->down_cost)
				continue;
		} else if (spread && t->entry_load != b->entry_load) {
			if (t->entry_load > b->entry_load)
				continue;
		} else if (t->entry != b->entry) {
			if (t->entry > b->entry)
				continue;
		} else if (spread && t->turn_load != b->turn_load) {
			if (t->turn_load > b->turn_load)
				continue;
		} else if (t->turn != b->turn) {
			if (t->turn > b->turn)
				continue;
		} else {
			tie = true;
			continue;
		}
		b = t;
		best = j;
		tie = false;
	}
	return tie ? IBR_NONE : best;
}

/* choose_balanced's loop, carry and neck_first constants in each copy
 * (the re-route passes are the ones with a neck; inlined by force, as
 * GCC at -O2 kept one copy testing both at every candidate): the first
 * candidate is the best so far, each later one replaces it only when
 * strictly better, so ties keep the earlier.  On the first pass (no
 * neck, no hosts carried) the switches that share their candidates' far
 * ends (plan.same_as) take the one best_far_end finds when it finds one:
 * it beats every other on the first keys, whatever their own links'
 * loads, so the scan would end on it too. */
static inline __attribute__((always_inline))
void choose_each(struct fera *w, uint32_t d, bool carry, bool neck_first,
		 bool spread)
{
	const struct plan *p = w->plan;
	struct choice *ch = w->choice;
	uint8_t *out_port = w->out_port;
	const uint64_t *loads = w->load;
	const ibr_lid_t *lid = w->lid;
	const uint64_t *down_load = w->down_load;
	/* carrying hosts, every switch settles in turn; else the fixed ones
	 * keep the link route_destination gave them */
	const struct candidate *cand = carry ? p->cand : p->decide_cand;
	const struct candidate *c = cand;
	const uint32_t *settle = carry ? p->settle : p->decide;
	const uint32_t *cand_end = (carry ? p->cand_start : p->decide_start) + 1;
	uint32_t n = carry ? p->num_settle : p->num_decide;
	bool shared = !carry && !neck_first && !WEIGH_EVERY_CANDIDATE;
	uint32_t *took_link = w->took_link, *took_peer = w->took_peer;

	/* every switch settled has a candidate (list_candidates), so c is
	 * at the first of switch k's when its loop starts */
	for (uint32_t k = 0; k < n; k++) {
		uint32_t s = settle[k];
		ibr_lid_t lid_s = lid[s];
		uint64_t down_s = spread ? down_load[s] : 0;
		const struct candidate *end = cand + cand_end[k];
		const struct candidate *pick = c;
		uint64_t best_load;

		if (shared && p->same_as[k] != IBR_NONE) {
			uint32_t first = p->same_as[k];
			/* the first of them settles first: its far ends are
			 * settled then, and stay as they are for the others */
			if (first == k)
				w->shared_offset[k] = best_far_end(ch, c,
							(uint32_t)(end - c),
							spread);
			if (w->shared_offset[first] != IBR_NONE) {
				pick = c + w->shared_offset[first];
				ch[s] = weigh(ch, loads, lid_s, down_s, d,
					      pick, &best_load, false, spread);
				out_port[s] = pick->port;
				took_link[k] = pick->link;
				took_peer[k] = pick->peer;
				w->shared++;
				c = end;
				continue;
			}
		}

		/* the best so far is kept in place: no candidate leads to s */
		ch[s] = weigh(ch, loads, lid_s, down_s, d, c, &best_load,
			      neck_first, spread);
		for (c++; c < end; c++)
			if (beats(ch, loads, lid_s, down_s, d, c, &ch[s],
				  best_load, neck_first, spread)) {
				ch[s] = weigh(ch, loads, lid_s, down_s, d, c,
					      &best_load, neck_first, spread);
				pick = c;
			}
		out_port[s] = pick->port;
		if (carry) {
			carry_hosts(w, s, d);
		} else {
			took_link[k] = pick->link;
			took_peer[k] = pick->peer;
		}
	}
}

static void choose_balanced(struct fera *w, uint32_t d, bool carry)
{
	w->out_port[d] = 0;
	w->choice[d] = (struct choice){ 0, 0, 0, w->lid[d], UINT32_MAX,
					IBR_NONE, UINT64_MAX,
					w->spread ? w->down_load[d] : 0 };
	if (carry)
		choose_each(w, d, true, true, false);
	else if (w->neck_first)
		choose_each(w, d, false, true, false);
	else if (w->spread)
		choose_each(w, d, false, false, true);
	else
		choose_each(w, d, false, false, false);
}

/* The flows of switch s's hosts, on the route s just chose, onto the
 * links' loads, and the cached route weights of the switches along it
 * brought up to date, so the sources settled after s see them: the
 * sources of one destination then split where its entry links do not
 * divide evenly (a leaf with an up link cut). */
static void carry_hosts(struct fera *w, uint32_t s, uint32_t d)
{
	const struct ibr_fabric *f = w->f;
	struct choice *ch = w->choice;
	uint64_t h = w->hosts[s];
	uint32_t len = 0, downs = 0;
	uint64_t neck = 0;

	if (h == 0)
		return;
	for (uint32_t u = s; u != d; u = f->sw_adj[ch[u].via].peer) {
		w->path[len++] = u;
		w->load[ch[u].via] += h;
	}
	/* from the destination back: links and down links after u */
	for (uint32_t j = len, n = 0; j-- > 0; n++) {
		uint32_t u = w->path[j], i = ch[u].via;
		downs += !w->link_up[i];
		if (w->load[i] > neck)
			neck = w->load[i];
		ch[u].cost += h * (n + 1);
		ch[u].down_cost += h * downs;
		if (neck > ch[u].neck)
			ch[u].neck = neck;
	}
}

/* add_flows' flows on down links, onto their switches' down_load (the
 * first pass spreading entries); w->flow holds what each switch passes
 * on.  Notes a link loaded above the load bound: that pass is then given
 * up (spread_over). */
static void add_down_loads(struct fera *w, bool with_fixed)
{
	const struct plan *p = w->plan;

	for (uint32_t k = 0; k < p->num_decide; k++) {
		uint32_t i = w->took_link[k];
		if (!w->link_up[i])
			w->down_load[p->decide[k]] += w->flow[p->decide[k]];
		if (w->load[i] > w->load_bound)
			w->spread_over = true;
	}
	for (uint32_t j = 0; with_fixed && j < p->num_fixed; j++) {
		uint32_t i = p->fixed_load[j].link;
		if (!w->link_up[i])
			w->down_load[p->settle[p->fixed[j]]] +=
				p->fixed_load[j].flows;
		if (w->load[i] > w->load_bound)
			w->spread_over = true;
	}
}

/* The flows of every CA port to one destination end port, along the
 * link each decided switch took (took_link, took_peer), added to the
 * links' loads; those of the fixed switches' own links too when
 * with_fixed (the first pass: a re-route would take them off and put
 * them back on unchanged, and no choice in between weighs those links,
 * only their own switch having them as candidates, so it leaves them
 * alone, list_take_off too). */
static void add_flows(struct fera *w, bool with_fixed)
{
	const struct ibr_fabric *f = w->f;
	const struct plan *p = w->plan;

	memcpy(w->flow, p->start_flow, f->num_switches * sizeof(*w->flow));
	for (uint32_t k = p->num_decide; k-- > 0;) {
		uint64_t flow = w->flow[p->decide[k]];
		w->load[w->took_link[k]] += flow;
		w->flow[w->took_peer[k]] += flow;
	}
	if (with_fixed)
		ibr_flow_steps_add(w->load, p->fixed_load, p->num_fixed);
	if (w->spread)
		add_down_loads(w, with_fixed);
}

/* The lister's part of a re-route: the flows of every CA port to end
 * port cas[i] along the route its column holds (the pass before's, as
 * the routing leaves the columns of later destinations alone), link by
 * link, for take_off_flows. */
static void list_take_off(const struct fera *w, struct lister *l,
			  struct plan *p, uint32_t i)
{
	const struct ibr_fabric *f = w->f;
	const struct ibr_end_port *e = &f->end_ports[p->cas[i]];
	const uint8_t *col = ibr_column(w->r, ibr_port(f, e->node,
						       e->port)->base_lid);
	struct ibr_flow_step *off = p->off + (size_t)i * p->off_len;
	uint32_t n = 0, fixed_left = p->num_fixed;

	memcpy(l->flow, w->hosts, f->num_switches * sizeof(uint64_t));
	l->flow[p->d] = 0;
	for (uint32_t k = p->num_settle; k-- > 0;) {
		uint32_t s = p->settle[k], j = p->cand_start[k];
		/* the column's port is one of the candidates: pass 0 chose it */
		while (j + 1 < p->cand_start[k + 1] && p->cand[j].port != col[s])
			j++;
		bool is_fixed = fixed_left > 0 && p->fixed[fixed_left - 1] == k;
		fixed_left -= is_fixed;
		/* a fixed switch's flows pass on; its link keeps them */
		if (w->carry || !is_fixed)
			off[n++] = (struct ibr_flow_step){
				p->cand[j].link, (uint32_t)l->flow[s] };
		l->flow[p->cand[j].peer] += l->flow[s];
	}
}

/* Whether a re-route pass leaves end port cas[i] on the route its
 * column holds: unless reroute_all, when no link of that route listed in
 * its take-off steps (list_take_off: the links of the switches the
 * routing settles; carrying hosts, those of the fixed switches too, whose
 * one link no routing moves) is loaded above the bound.  Only the links
 * above the bound keep the max link load above it, and only the end
 * ports crossing them can bring it down; routing the others again moves
 * flows among links that are not the bottleneck.  Judged on the loads when the end port's
 * turn comes, so an end port moved off a heavy link spares those after
 * it.  dr and colorl build on fera's default, so their base tree skips
 * the same end ports. */
static bool keeps_route(const struct fera *w, uint32_t i)
{
	const struct plan *p = w->plan;
	const struct ibr_flow_step *off = p->off + (size_t)i * p->off_len;

	if (w->reroute_all)
		return false;
	for (uint32_t k = 0; k < p->off_len; k++)
		if (off[k].flows && w->load[off[k].link] > w->bound)
			return false;
	return true;
}

/* End port cas[i]'s flows off the links' loads, as list_take_off found
 * them. */
static void take_off_flows(struct fera *w, uint32_t i)
{
	const struct plan *p = w->plan;

	ibr_flow_steps_take_off(w->load, p->off + (size_t)i * p->off_len,
				p->off_len);
}

/* Balanced ties depend on the order destinations are routed in: by LID,
 * which every source of the same fabric (OpenSM's subnet, its dumps, a
 * topology file with those LIDs) numbers alike, switch indexes aside. */
static int order_by_lid(struct fera *w, struct ibr_error *err)
{
	for (uint32_t s = 0; s < w->f->num_switches; s++)
		w->by_lid[s] = s;
	return ibr_switches_by_lid(w->f, w->by_lid, w->f->num_switches, err);
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

/* Every switch with hosts is p->d or has a route to it, or p->d has no
 * hosts to send to (a switch the plan does not settle has no route:
 * several roots, one above a cut). */
static bool hosts_settled(const struct fera *w, const struct plan *p)
{
	uint64_t n = w->hosts[p->d];

	if (p->num_cas == 0)
		return true;
	for (uint32_t k = 0; k < p->num_settle; k++)
		n += w->hosts[p->settle[k]];
	return n == w->f->num_end_ports;
}

/* Destination d's LIDs, its plan listed (balanced ties), on pass
 * `pass`.  The first places every end port against the loads of those
 * before it; each later one routes every end port again, its own flows
 * taken off, against the loads of all the others (rip-up and re-route),
 * then puts them back. */
static void route_destination(struct fera *w, const struct plan *plan,
			      unsigned pass)
{
	const struct ibr_fabric *f = w->f;
	uint32_t d = plan->d;

	w->plan = plan;
	/* a switch the plan does not settle has no route to d (several
	 * roots); choose_each writes every other but the fixed ones */
	memset(w->out_port, IBR_NO_PATH, f->num_switches);
	for (uint32_t j = 0; j < plan->num_fixed; j++) {
		uint32_t k = plan->fixed[j];
		w->out_port[plan->settle[k]] =
			plan->cand[plan->cand_start[k]].port;
	}
	if (pass == 0) {
		const struct ibr_port *p0 = ibr_port(f, f->sw_node[d], 0);
		if (plan->num_settle + 1 < f->num_switches &&
		    !hosts_settled(w, plan))
			w->hosts_routed = false;
		choose_balanced(w, d, false);
		write_lids(w, p0->base_lid, ibr_port_lid_count(p0), d, 0);
		w->lids += ibr_port_lid_count(p0);
	}
	for (uint32_t i = 0; i < plan->num_cas; i++) {
		const struct ibr_end_port *e = &f->end_ports[plan->cas[i]];
		const struct ibr_port *p = ibr_port(f, e->node, e->port);
		if (pass == 0) {
			choose_balanced(w, d, false);
			add_flows(w, true);
			w->lids += ibr_port_lid_count(p);
		} else {
			if (keeps_route(w, i))
				continue;
			w->rerouted++;
			take_off_flows(w, i);
			choose_balanced(w, d, w->carry);
			if (!w->carry)
				add_flows(w, false);
		}
		write_lids(w, p->base_lid, ibr_port_lid_count(p), d,
			   e->sw_port);
	}
}

/* The pass being made, for ibr_pipeline's steps. */
struct pass_step {
	struct fera *w;
	unsigned pass;
};

/* Batch b's plans: its slot of w->plans. */
static struct plan *batch_plans(struct fera *w, unsigned b)
{
	return &w->plans[ibr_pipeline_slot(b) * FERA_BATCH];
}

/* Plan i of batch b (destination by_lid[b * FERA_BATCH + i]) into its
 * batch's slot of w->plans, on the worker's lister. */
static int list_plan(void *arg, unsigned b, unsigned i, unsigned worker)
{
	const struct pass_step *step = arg;
	struct fera *w = step->w;

	if (b * FERA_BATCH + i < w->f->num_switches)
		list_candidates(w, &w->listers[worker],
				&batch_plans(w, b)[i],
				w->by_lid[b * FERA_BATCH + i], step->pass);
	return 0;
}

static int route_batch(void *arg, unsigned b)
{
	const struct pass_step *step = arg;
	struct fera *w = step->w;
	uint32_t S = w->f->num_switches;
	const struct plan *plans = batch_plans(w, b);

	for (uint32_t i = 0; i < FERA_BATCH && b * FERA_BATCH + i < S; i++) {
		route_destination(w, &plans[i], step->pass);
		if (w->spread_over && w->spread_give_up)
			return 1;       /* the pass is given up */
	}
	return 0;
}

/* One pass over every destination switch, by LID: a list task writes
 * only its plan and its worker's lister, the routing reads the plans. */
static int balanced_pass(struct fera *w, unsigned pass)
{
	struct pass_step step = { w, pass };

	return ibr_pipeline(w->threads, (w->f->num_switches + FERA_BATCH - 1) /
		     FERA_BATCH, FERA_BATCH, list_plan, route_batch, &step);
}

/* The flows on the most loaded link between switches, after a pass.
 * At the bound no routing goes below (metrics.h: a switch's hosts must
 * send that much over one of its links), a re-route pass cannot lower
 * it: intact fat trees and Clos networks are there after the first pass
 * (the hosts' own links, at hosts - 1 flows, heavier still), and a
 * second would cost twice the first (it carries hosts) for nothing. */
static uint64_t heaviest_link(const struct fera *w)
{
	uint64_t most = 0;

	for (uint32_t i = 0; i < w->f->sw_adj_start[w->f->num_switches]; i++)
		if (w->load[i] > most)
			most = w->load[i];
	return most;
}

/* Lowest ports: every LID of destination d from route_to_switch. */
static void route_lowest(struct fera *w, uint32_t d)
{
	const struct ibr_fabric *f = w->f;
	const struct ibr_port *p0 = ibr_port(f, f->sw_node[d], 0);

	route_to_switch(w, &w->listers[0], d);
	write_lids(w, p0->base_lid, ibr_port_lid_count(p0), d, 0);
	w->lids += ibr_port_lid_count(p0);
	for (uint32_t i = f->sw_ca_start[d]; i < f->sw_ca_start[d + 1]; i++) {
		const struct ibr_end_port *e = &f->end_ports[f->sw_cas[i]];
		const struct ibr_port *p = ibr_port(f, e->node, e->port);
		write_lids(w, p->base_lid, ibr_port_lid_count(p), d,
			   e->sw_port);
		w->lids += ibr_port_lid_count(p);
	}
}

/* fera's own `passes` and `reroute_all`; as dr's and colorl's base tree,
 * the defaults (neither engine takes them). */
static int read_pass_options(const struct ibr_route_ctx *ctx,
			     unsigned *passes, bool *reroute_all,
			     struct ibr_error *err)
{
	unsigned all = 0;

	*passes = 2;
	*reroute_all = false;
	if (ctx->engine != &ibr_engine_fera)
		return 0;
	if (ibr_option_uint(ctx, "passes", passes, err) ||
	    ibr_option_uint(ctx, "reroute_all", &all, err))
		return -1;
	*reroute_all = all;
	return 0;
}

/* A lister per worker of the pipeline (one for lowest ports); 0 or -1. */
static int alloc_listers(struct fera *w)
{
	uint32_t S = w->f->num_switches;

	w->num_listers = w->balanced ?
		ibr_parallel_workers(w->threads, FERA_BATCH + 1) : 1;
	w->listers = calloc(w->num_listers, sizeof(*w->listers));
	if (!w->listers)
		return -1;
	for (unsigned k = 0; k < w->num_listers; k++) {
		struct lister *l = &w->listers[k];
		l->down_dist = malloc(S * sizeof(uint32_t));
		l->route_dist = malloc(S * sizeof(uint32_t));
		l->queue = malloc(S * sizeof(uint32_t));
		if (w->balanced) {
			l->flow = malloc(S * sizeof(uint64_t));
			l->reached = malloc(S ? S : 1);
			size_t slots = 1;
			while (slots < 2 * (size_t)S)
				slots *= 2;
			l->slot = malloc(slots * sizeof(uint32_t));
			l->slot_mask = (uint32_t)(slots - 1);
		}
		if (!l->down_dist || !l->route_dist || !l->queue ||
		    (w->balanced && (!l->flow || !l->reached || !l->slot)))
			return -1;
	}
	return 0;
}

/* The plans' arrays, sized for any destination of f (with the flows of
 * re-route passes when there are `passes` > 1); 0 or -1. */
static int alloc_plans(struct fera *w, unsigned passes)
{
	const struct ibr_fabric *f = w->f;
	uint32_t S = f->num_switches, links = f->sw_adj_start[S], most_cas = 1;

	for (uint32_t x = 0; x < S; x++)
		if (f->sw_ca_start[x + 1] - f->sw_ca_start[x] > most_cas)
			most_cas = f->sw_ca_start[x + 1] - f->sw_ca_start[x];
	for (unsigned i = 0; i < IBR_PIPELINE_DEPTH * FERA_BATCH; i++) {
		struct plan *p = &w->plans[i];
		p->settle = malloc(S * sizeof(uint32_t));
		p->cand_start = malloc((S + 2) * sizeof(uint32_t));
		p->cand = malloc((links ? links : 1) * sizeof(*p->cand));
		p->cas = malloc(most_cas * sizeof(uint32_t));
		p->decide = malloc(S * sizeof(uint32_t));
		p->decide_start = malloc((S + 1) * sizeof(uint32_t));
		p->decide_cand = malloc((links ? links : 1) * sizeof(*p->cand));
		p->fixed = malloc(S * sizeof(uint32_t));
		p->same_as = malloc(S * sizeof(uint32_t));
		p->start_flow = malloc(S * sizeof(uint64_t));
		p->fixed_load = malloc(S * sizeof(*p->fixed_load));
		if (!p->decide || !p->decide_start || !p->decide_cand ||
		    !p->fixed || !p->same_as || !p->start_flow ||
		    !p->fixed_load)
			return -1;
		if (passes > 1)
			p->off = malloc((size_t)most_cas * (S ? S : 1) *
					sizeof(*p->off));
		if (!p->settle || !p->cand_start || !p->cand || !p->cas ||
		    (passes > 1 && !p->off))
			return -1;
	}
	return 0;
}

static void free_work(struct fera *w)
{
	for (unsigned i = 0; i < IBR_PIPELINE_DEPTH * FERA_BATCH; i++) {
		free(w->plans[i].settle);
		free(w->plans[i].cand_start);
		free(w->plans[i].cand);
		free(w->plans[i].cas);
		free(w->plans[i].off);
		free(w->plans[i].decide);
		free(w->plans[i].decide_start);
		free(w->plans[i].decide_cand);
		free(w->plans[i].fixed);
		free(w->plans[i].same_as);
		free(w->plans[i].start_flow);
		free(w->plans[i].fixed_load);
	}
	for (unsigned k = 0; w->listers && k < w->num_listers; k++) {
		free(w->listers[k].down_dist);
		free(w->listers[k].route_dist);
		free(w->listers[k].queue);
		free(w->listers[k].flow);
		free(w->listers[k].reached);
		free(w->listers[k].slot);
	}
	free(w->listers);
	free(w->link_up);
	ibr_up_links_free(&w->up);
	free(w->out_port);
	free(w->load);
	free(w->choice);
	free(w->lid);
	free(w->flow);
	free(w->hosts);
	free(w->down_load);
	free(w->by_lid);
	free(w->path);
	free(w->shared_offset);
	free(w->took_link);
	free(w->took_peer);
}

/* Loads and figures at zero for a first pass, spreading or not. */
static void start_first_pass(struct fera *w, bool spread)
{
	uint32_t S = w->f->num_switches, links = w->f->sw_adj_start[S];

	memset(w->load, 0, (links ? links : 1) * sizeof(*w->load));
	memset(w->down_load, 0, (S ? S : 1) * sizeof(*w->down_load));
	w->spread = spread;
	w->spread_over = false;
	w->lids = 0;
	w->shared = 0;
	w->hosts_routed = true;
}

/* The balanced routing afresh, loads at zero: the first pass, spreading
 * entries when spread (given up at the first link above load_bound and
 * made by LIDs when give_up), then the re-route passes, as many as
 * `passes` allows while the heaviest link between switches is above
 * w->bound; the passes made. */
static unsigned route_balanced(struct fera *w, unsigned passes, bool spread,
			       bool give_up)
{
	unsigned made = 1;
	double t0 = ibr_now_ms();

	w->neck_first = w->carry = false;
	w->rerouted = 0;
	w->spread_give_up = give_up;
	w->spread_kept = spread;
	start_first_pass(w, spread);
	if (balanced_pass(w, 0)) {
		/* spreading loaded a link above the bound and gives up:
		 * the first pass by LIDs instead */
		w->spread_kept = false;
		start_first_pass(w, false);
		balanced_pass(w, 0);
	}
	w->spread = false;
	ibr_phase_add(w->r, "first pass", ibr_now_ms() - t0);
	/* later passes weigh the bottleneck first: every destination's
	 * load is on the links now, so the heaviest link is what they can
	 * lower, unless no routing can */
	w->neck_first = true;
	w->carry = w->ud->num_roots > 1;
	for (; made < passes && heaviest_link(w) > w->bound; made++) {
		t0 = ibr_now_ms();
		balanced_pass(w, made);
		ibr_phase_add(w->r, "re-route passes", ibr_now_ms() - t0);
	}
	return made;
}

/* One balanced outcome put aside (try_spread_whole): its tables, its
 * loads and its figures. */
struct outcome {
	uint8_t *col;
	uint64_t *load;
	uint64_t lids, shared, rerouted;
	bool hosts_routed;
	unsigned made;
};

/* w's outcome into o; -1 when out of memory (o then holds nothing). */
static int keep_outcome(const struct fera *w, struct outcome *o,
			unsigned made)
{
	size_t n = (size_t)w->r->num_lids * w->r->num_switches;
	uint32_t links = w->f->sw_adj_start[w->f->num_switches];

	o->col = malloc(n ? n : 1);
	o->load = malloc((links ? links : 1) * sizeof(uint64_t));
	if (!o->col || !o->load) {
		free(o->col);
		free(o->load);
		return -1;
	}
	memcpy(o->col, w->r->col, n);
	memcpy(o->load, w->load, links * sizeof(uint64_t));
	o->lids = w->lids;
	o->shared = w->shared;
	o->rerouted = w->rerouted;
	o->hosts_routed = w->hosts_routed;
	o->made = made;
	return 0;
}

/* o back into w (and freed); the passes it made. */
static unsigned restore_outcome(struct fera *w, struct outcome *o)
{
	size_t n = (size_t)w->r->num_lids * w->r->num_switches;
	uint32_t links = w->f->sw_adj_start[w->f->num_switches];

	memcpy(w->r->col, o->col, n);
	memcpy(w->load, o->load, links * sizeof(uint64_t));
	w->lids = o->lids;
	w->shared = o->shared;
	w->rerouted = o->rerouted;
	w->hosts_routed = o->hosts_routed;
	free(o->col);
	free(o->load);
	return o->made;
}

/* Under several roots, after a first pass whose spreading was given up
 * (a link above the load bound) and re-route passes that left the
 * heaviest link between switches above w->bound: the routing again with
 * the spread first pass made whole, the re-route passes after it, kept
 * only if its heaviest link is lower, else the first outcome put back.
 * A link above the bound in the first pass is no sign of the end: the
 * re-route passes carry hosts (carry_hosts) and split the sources of a
 * destination, and they do better from spread entries on uneven Clos
 * networks, where a leaf's hosts do not divide among its up links
 * (leaf 24, spine 12, 16 hosts a leaf: 512 flows where the LIDs' pass
 * left 704, the bound 491).  Elsewhere they may do worse (selene-storage
 * 2079 against 2073), hence the comparison; so no fabric is routed
 * worse than by that first outcome.  Costs the routing twice, only
 * where both conditions hold (the result's stats say it, and which was
 * kept); the passes made. */
static unsigned try_spread_whole(struct fera *w, unsigned passes,
				 unsigned made)
{
	uint64_t first = heaviest_link(w);
	struct outcome o;

	bool kept;

	if (w->spread_kept || first <= w->bound || keep_outcome(w, &o, made))
		return made;
	made = route_balanced(w, passes, true, false);
	kept = heaviest_link(w) < first;
	w->second_routing = kept ? 2 : 1;
	if (!kept)
		return restore_outcome(w, &o);
	free(o.col);
	free(o.load);
	return made;
}

int ibr_fera_route_afresh_load(struct ibr_route_ctx *ctx,
			       struct ibr_result *r, struct ibr_fera_load *load,
			       struct ibr_error *err)
{
	const struct ibr_fabric *f = ctx->f;
	const struct ibr_updown *ud = ibr_ctx_updown(ctx, err);
	uint32_t S = f->num_switches, links = f->sw_adj_start[S];
	struct fera w = { .f = f, .ud = ud, .r = r, .threads = ctx->threads,
			  .hosts_routed = true };
	unsigned passes = 1, made = 0;  /* balanced ties: passes made */
	int rc = -1;

	if (!ud || read_pass_options(ctx, &passes, &w.reroute_all, err))
		return -1;
	w.balanced = ctx->port_choice == IBR_PORT_BALANCED;
	w.link_up = malloc(links ? links : 1);
	w.out_port = malloc(S);
	if (!w.link_up || !w.out_port || alloc_listers(&w)) {
		ibr_error_set(err, "fera: out of memory");
		goto out;
	}
	if (w.balanced) {
		w.load = calloc(links ? links : 1, sizeof(uint64_t));
		w.choice = malloc(S * sizeof(*w.choice));
		w.lid = malloc(S * sizeof(*w.lid));
		w.flow = malloc(S * sizeof(uint64_t));
		w.hosts = malloc(S * sizeof(uint64_t));
		w.down_load = calloc(S ? S : 1, sizeof(uint64_t));
		w.by_lid = malloc(S * sizeof(uint32_t));
		w.path = malloc(S * sizeof(uint32_t));
		w.shared_offset = malloc(S * sizeof(uint32_t));
		w.took_link = malloc(S * sizeof(uint32_t));
		w.took_peer = malloc(S * sizeof(uint32_t));
		if (!w.load || !w.choice || !w.lid || !w.flow || !w.hosts ||
		    !w.down_load || !w.by_lid || !w.path || !w.shared_offset ||
		    !w.took_link || !w.took_peer ||
		    alloc_plans(&w, passes)) {
			ibr_error_set(err, "fera: out of memory for the link "
				      "loads of %u switches", S);
			goto out;
		}
		if (order_by_lid(&w, err))
			goto out;
		for (uint32_t x = 0; x < S; x++) {
			w.lid[x] = ibr_switch_lid(f, x);
			w.hosts[x] = f->sw_ca_start[x + 1] - f->sw_ca_start[x];
		}
	}
	ibr_updown_link_flags(f, ud, w.link_up);
	if (ibr_up_links_build(f, w.link_up, &w.up)) {
		ibr_error_set(err, "fera: out of memory for the up links of %u "
			      "switches", S);
		goto out;
	}

	if (!w.balanced) {
		for (uint32_t d = 0; d < S; d++)
			route_lowest(&w, d);
	} else {
		uint32_t worst;
		uint64_t bound = ibr_metrics_switch_link_bound(f, &worst);
		w.load_bound = ibr_metrics_load_bound(f, &worst);
		w.bound = bound;
		made = route_balanced(&w, passes, ud->num_roots > 1, true);
		if (ud->num_roots > 1)
			made = try_spread_whole(&w, passes, made);
	}
	ibr_stat_count(r, "explicit entry", "explicit entries", w.lids * S);
	if (made)
		ibr_stat_count(r, "routing pass", "routing passes", made);
	if (made > 1)
		ibr_stat_count(r, "end port routed again",
			       "end ports routed again", w.rerouted);
	if (w.second_routing) {
		ibr_stat_count(r, "second routing from spread entries",
			       "second routings from spread entries", 1);
		ibr_stat_count(r, "second routing kept",
			       "second routings kept", w.second_routing == 2);
	}
#ifdef IBR_TEST_HOOKS
	ibr_fera_probe.shared += w.shared;
#endif
	if (load)
		*load = (struct ibr_fera_load){
			.known = w.balanced && w.hosts_routed,
			.heaviest = w.balanced ? heaviest_link(&w) : 0 };
	rc = 0;
out:
	free_work(&w);
	return rc;
}

int ibr_fera_route_afresh(struct ibr_route_ctx *ctx, struct ibr_result *r,
			  struct ibr_error *err)
{
	return ibr_fera_route_afresh_load(ctx, r, NULL, err);
}

/* From the prior tables after a change (prior.h), else afresh. */
static int fera_route(struct ibr_route_ctx *ctx, struct ibr_result *r,
		      struct ibr_error *err)
{
	int kept = ibr_prior_route(ctx, r, IBR_PRIOR_ONE_ROUTE, err);

	if (kept)
		return kept < 0 ? -1 : 0;
	return ibr_fera_route_afresh(ctx, r, err);
}

static const struct ibr_option_spec fera_options[] = {
	{ "passes", "2", 1, 8, "port_choice balanced: routing passes at most; "
	  "from 2 on, each destination is routed again against the others' "
	  "loads, unless the heaviest link between switches is at the bound "
	  "no routing goes below", NULL },
	{ "reroute_all", "0", 0, 1, "port_choice balanced: 1 routes every "
	  "end port again on a re-route pass; 0 only those whose route "
	  "crosses a link above the bound, the others keeping theirs", NULL },
	/* 50, where colorl's and dr's is 10: their limit guards LIDs
	 * coloured or renamed for routes that are gone, and fera has
	 * none; a spine of six down breaks a sixth of a Clos's routes,
	 * and mending them moves those alone */
	{ IBR_PRIOR_OPTION, "50", 0, 100,
	  "after a change, keep the prior tables' routes and mend those that "
	  "broke, unless more than this percentage of CA pairs lost their "
	  "route (0: afresh every run)", NULL },
	{ NULL, NULL, 0, 0, NULL, NULL },
};

const struct ibr_engine ibr_engine_fera = {
	.name = "fera",
	.options = fera_options,
	.summary = "fully explicit up/down routing (FERa)",
	.measures_root = true,
	.routes_from_prior = true,
	.fallback = &ibr_engine_fera,
	.route = fera_route,
	.route_afresh = ibr_fera_route_afresh,
};
