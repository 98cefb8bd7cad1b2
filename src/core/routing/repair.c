/*
 * repair.c - a column kept where it holds, mended where it does not
 * (repair.h says what holding means and why mending ends).
 *
 * Judging is one memoised pass: each switch's walk is followed until it
 * ends (delivered, or a hole) or meets a switch already judged, then the
 * chain is judged backwards from there; a walk that meets its own chain
 * loops and is broken.  A switch entered by a down hop must go on down:
 * a hop x -> t holds when t's walk holds and the hop climbs, or descends
 * into a walk that only descends.
 */
#include <stdlib.h>
#include <string.h>

#include "ibrouting/repair.h"

int ibr_repair_init(struct ibr_repair *rp, const struct ibr_fabric *f,
		    const struct ibr_updown *ud, const struct ibr_walker *w,
		    struct ibr_error *err)
{
	uint32_t S = f->num_switches ? f->num_switches : 1;

	*rp = (struct ibr_repair){ .f = f, .ud = ud, .w = w };
	rp->verdict = malloc(S);
	rp->hops = malloc(S * sizeof(uint32_t));
	rp->mark = calloc(S, 1);
	rp->upstream = malloc(S * sizeof(uint32_t));
	rp->pending = malloc(S * sizeof(uint32_t));
	rp->chain = malloc(S * sizeof(uint32_t));
	rp->chain_next = malloc(S * sizeof(uint32_t));
	rp->carried = malloc(S * sizeof(uint64_t));
	rp->by_hops = malloc(S * sizeof(uint32_t));
	rp->hop_count = malloc((S + 1) * sizeof(uint32_t));
	if (!rp->verdict || !rp->hops || !rp->mark || !rp->upstream ||
	    !rp->pending || !rp->chain || !rp->chain_next || !rp->carried ||
	    !rp->by_hops || !rp->hop_count) {
		ibr_repair_free(rp);
		return ibr_error_set(err, "out of memory to mend columns of %u "
				     "switches", f->num_switches);
	}
	return 0;
}

void ibr_repair_orders(const struct ibr_fabric *f, const struct ibr_walker *w,
		       uint32_t *sw_order, uint32_t *ep_order)
{
	uint32_t ns = 0, ne = 0;

	/* an indexed fabric gives every switch and every end port a base
	 * LID (fabric.h), so each is listed once */
	for (uint32_t l = 1; l <= f->max_lid; l++) {
		const struct ibr_lid_owner *o = &f->lid_owner[l];
		const struct ibr_node *n;
		if (o->node == IBR_NONE ||
		    l != ibr_port(f, o->node, o->port)->base_lid)
			continue;
		n = &f->nodes[o->node];
		if (n->type == IBR_NODE_SWITCH)
			sw_order[ns++] = n->sw_index;
		else if (w->lid_end_port[l] != IBR_NONE)
			ep_order[ne++] = w->lid_end_port[l];
	}
}

void ibr_repair_free(struct ibr_repair *rp)
{
	free(rp->verdict);
	free(rp->hops);
	free(rp->mark);
	free(rp->upstream);
	free(rp->pending);
	free(rp->chain);
	free(rp->chain_next);
	free(rp->carried);
	free(rp->by_hops);
	free(rp->hop_count);
	rp->verdict = rp->mark = NULL;
	rp->hops = rp->upstream = rp->pending = rp->chain = rp->chain_next = NULL;
	rp->carried = NULL;
	rp->by_hops = rp->hop_count = NULL;
}

/* The verdict of x, whose hop leads to t judged `after`. */
static uint8_t combine(const struct ibr_repair *rp, uint32_t x, uint32_t t,
		       uint8_t after)
{
	if (after != IBR_WALK_DOWN && after != IBR_WALK_UP)
		return IBR_WALK_BROKEN;
	if (ibr_link_is_up(rp->f, rp->ud, x, t))
		return IBR_WALK_UP;
	/* down, then up: illegal */
	return after == IBR_WALK_DOWN ? IBR_WALK_DOWN : IBR_WALK_BROKEN;
}

void ibr_repair_judge(struct ibr_repair *rp, const uint8_t *col, ibr_lid_t lid)
{
	uint32_t S = rp->f->num_switches;
	uint8_t *v = rp->verdict;

	memset(v, IBR_WALK_UNKNOWN, S);
	for (uint32_t s = 0; s < S; s++) {
		uint32_t n = 0, x = s, t = IBR_NONE;
		uint8_t tail = IBR_WALK_BROKEN;

		if (v[s] != IBR_WALK_UNKNOWN)
			continue;
		for (;;) {
			enum ibr_step st = ibr_walker_step(rp->w, x, lid, col[x],
							   &t);
			rp->chain[n++] = x;
			v[x] = IBR_WALK_VISITING;
			if (st != IBR_STEP_NEXT) {
				tail = st == IBR_STEP_ARRIVED ? IBR_WALK_DOWN :
				       IBR_WALK_BROKEN;
				t = IBR_NONE;
				break;
			}
			rp->chain_next[n - 1] = t;
			if (v[t] != IBR_WALK_UNKNOWN)
				break;  /* judged, or a loop (VISITING) */
			x = t;
		}
		/* the last of the chain ends the walk or joins a known one */
		x = rp->chain[n - 1];
		v[x] = t == IBR_NONE ? tail : combine(rp, x, t, v[t]);
		rp->hops[x] = t == IBR_NONE ? 0 : rp->hops[t] + 1;
		for (uint32_t i = n - 1; i-- > 0;) {
			x = rp->chain[i];
			t = rp->chain_next[i];
			v[x] = combine(rp, x, t, v[t]);
			rp->hops[x] = rp->hops[t] + 1;
		}
	}
}

uint32_t ibr_repair_column(struct ibr_repair *rp, uint8_t *col,
			   const uint8_t *fallback, ibr_lid_t lid,
			   bool renamed)
{
	uint32_t S = rp->f->num_switches, changed = 0;
	bool again = true;

	while (again) {
		again = false;
		ibr_repair_judge(rp, col, lid);
		for (uint32_t s = 0; s < S; s++) {
			uint32_t x = s, t, n = 0;
			if (rp->verdict[s] != IBR_WALK_BROKEN ||
			    (renamed && col[s] == IBR_NO_PATH))
				continue;
			/* s takes fallback's walk, as far as it differs */
			while (n++ <= S) {
				if (col[x] != fallback[x]) {
					col[x] = fallback[x];
					changed++;
					again = true;
				}
				if (ibr_walker_step(rp->w, x, lid, col[x], &t) !=
				    IBR_STEP_NEXT)
					break;
				x = t;
			}
		}
	}
	return changed;
}

uint64_t ibr_repair_walk(const struct ibr_repair *rp, const uint8_t *col,
			 ibr_lid_t lid, uint32_t s, uint64_t add,
			 uint64_t *load, uint32_t *len)
{
	uint32_t x = s, t, n = 0;
	uint64_t neck = 0;

	while (n <= rp->f->num_switches &&
	       ibr_walker_step(rp->w, x, lid, col[x], &t) == IBR_STEP_NEXT) {
		uint32_t ch = ibr_walker_channel(rp->w, x, col[x]);
		if (ch != IBR_NONE) {
			load[ch] += add;
			if (load[ch] > neck)
				neck = load[ch];
		}
		x = t;
		n++;
	}
	if (len)
		*len = n;
	return neck;
}

void ibr_repair_add_flows(struct ibr_repair *rp, const uint8_t *col,
			  ibr_lid_t lid, const uint32_t *weight,
			  uint64_t *load)
{
	uint32_t S = rp->f->num_switches, most = 0, t;

	/* the switches that hold by hops, farthest first (a counting sort:
	 * a walk that holds is loop-free, so hops < S), each carrying its
	 * own flows and those of the walks through it */
	memset(rp->hop_count, 0, (S + 1) * sizeof(uint32_t));
	for (uint32_t s = 0; s < S; s++)
		if (ibr_repair_holds(rp, s)) {
			rp->hop_count[rp->hops[s]]++;
			rp->carried[s] = weight[s];
			if (rp->hops[s] > most)
				most = rp->hops[s];
		}
	for (uint32_t h = most, at = 0; h + 1 > 0; h--) {
		uint32_t c = rp->hop_count[h];
		rp->hop_count[h] = at;
		at += c;
	}
	for (uint32_t s = 0; s < S; s++)
		if (ibr_repair_holds(rp, s))
			rp->by_hops[rp->hop_count[rp->hops[s]]++] = s;
	for (uint32_t i = 0, n = rp->hop_count[0]; i < n; i++) {
		uint32_t s = rp->by_hops[i], ch;
		if (!rp->carried[s] ||
		    ibr_walker_step(rp->w, s, lid, col[s], &t) != IBR_STEP_NEXT)
			continue;
		ch = ibr_walker_channel(rp->w, s, col[s]);
		if (ch != IBR_NONE)
			load[ch] += rp->carried[s];
		rp->carried[t] += rp->carried[s];
	}
}

uint32_t ibr_repair_load(struct ibr_repair *rp, const uint8_t *col,
			 ibr_lid_t lid, const uint32_t *weight, uint64_t *load)
{
	uint32_t broken = 0;

	ibr_repair_judge(rp, col, lid);
	ibr_repair_add_flows(rp, col, lid, weight, load);
	for (uint32_t s = 0; s < rp->f->num_switches; s++)
		broken += rp->verdict[s] == IBR_WALK_BROKEN;
	return broken;
}

/* What a pending switch's mending must know of the pending walks that
 * lead into it (mark_chains). */
enum repair_mark {
	MARK_CAN_HOP = 1,    /* a neighbour's walk holds and may be entered */
	MARK_NEED_DOWN = 2,  /* a pending walk descends into it: a route
			      * that only descends from here settles it too */
	MARK_SHADOWED = 4,   /* a switch further on its walk can hop: that
			      * one's hop may settle this one unchanged */
};

/* May s's walk hold by a hop into a neighbour's walk that holds? */
static bool can_hop(const struct ibr_repair *rp, uint32_t s)
{
	const struct ibr_fabric *f = rp->f;

	for (uint32_t i = f->sw_adj_start[s]; i < f->sw_adj_start[s + 1]; i++) {
		uint32_t t = f->sw_adj[i].peer;
		uint8_t vt = rp->verdict[t];
		if (t != s && (vt == IBR_WALK_DOWN ||
			       (vt == IBR_WALK_UP && ibr_link_is_up(f, rp->ud, s, t))))
			return true;
	}
	return false;
}

/* Where the entry of s leads: the next switch, IBR_NONE for anything
 * else (a hole, a port to nothing). */
static uint32_t next_of(const struct ibr_repair *rp, const uint8_t *col,
			ibr_lid_t lid, uint32_t s)
{
	uint32_t t;

	return ibr_walker_step(rp->w, s, lid, col[s], &t) == IBR_STEP_NEXT ?
	       t : IBR_NONE;
}

/* Is pending switch t still waiting to be mended? */
static bool is_pending(const struct ibr_repair *rp, const uint8_t *col,
		       bool renamed, uint32_t t)
{
	return rp->verdict[t] == IBR_WALK_BROKEN &&
	       !(renamed && col[t] == IBR_NO_PATH);
}

/* rp->mark and rp->upstream of the pending switches [0, n): each walk
 * followed through the pending switches it enters, as long as it stays
 * legal (a climb after a descent breaks it there, whatever is mended
 * further on). */
static void mark_chains(struct ibr_repair *rp, const uint8_t *col,
			ibr_lid_t lid, bool renamed, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		rp->mark[rp->pending[i]] = can_hop(rp, rp->pending[i]) ?
					   MARK_CAN_HOP : 0;
		rp->upstream[rp->pending[i]] = 1;
	}
	for (uint32_t i = 0; i < n; i++) {
		uint32_t u = rp->pending[i], x = u, t, steps = 0;
		bool descended = false;

		while (steps++ < n &&
		       (t = next_of(rp, col, lid, x)) != IBR_NONE &&
		       is_pending(rp, col, renamed, t)) {
			if (!ibr_link_is_up(rp->f, rp->ud, x, t))
				descended = true;
			else if (descended)
				break;
			if (descended)
				rp->mark[t] |= MARK_NEED_DOWN;
			rp->upstream[t]++;
			if (rp->mark[t] & MARK_CAN_HOP)
				rp->mark[u] |= MARK_SHADOWED;
			x = t;
		}
	}
}

/* The heaviest of `first` and the loads of the channels on the walk from
 * t along col; once that exceeds `cap`, some value above it. */
static uint64_t walk_neck_within(const struct ibr_repair *rp,
				 const uint8_t *col, ibr_lid_t lid, uint32_t t,
				 const uint64_t *load, uint64_t first,
				 uint64_t cap)
{
	uint32_t x = t, next, n = 0;
	uint64_t neck = first;

	while (neck <= cap && n++ <= rp->f->num_switches &&
	       ibr_walker_step(rp->w, x, lid, col[x], &next) == IBR_STEP_NEXT) {
		uint32_t ch = ibr_walker_channel(rp->w, x, col[x]);
		if (ch != IBR_NONE && load[ch] > neck)
			neck = load[ch];
		x = next;
	}
	return neck;
}

/* The best hop from broken switch s into a walk that holds: with
 * `down_first` one that only descends, if any (the pending walks that
 * descend into s then hold unchanged); then the shortest legal one; then
 * the one whose route on (that channel and the walk after it) has the
 * lightest heaviest channel; then the lightest first channel (s's own
 * hop: of two routes with the same neck, the one that adds less to the
 * channel every mended walk of s shares); then the lowest port.  0 when no
 * neighbour's walk holds (or only by a down-then-up turn); *to its
 * neighbour, *neck_out (unless NULL) its route's heaviest channel.  The
 * route's heaviest channel, not the first one's: on a fat tree the
 * channels that fill up are the last ones, into the destination's leaf. */
static uint8_t best_hop(const struct ibr_repair *rp, const uint8_t *col,
			ibr_lid_t lid, uint32_t s, bool down_first,
			uint64_t *load, uint32_t *to, uint64_t *neck_out)
{
	const struct ibr_fabric *f = rp->f;
	uint32_t best_hops = UINT32_MAX, best_rank = UINT32_MAX;
	uint64_t best_neck = UINT64_MAX, best_first = UINT64_MAX;
	uint8_t best = 0;

	for (uint32_t i = f->sw_adj_start[s]; i < f->sw_adj_start[s + 1]; i++) {
		uint32_t t = f->sw_adj[i].peer, rank;
		uint8_t vt = rp->verdict[t], port = f->sw_adj[i].port;
		bool up = ibr_link_is_up(f, rp->ud, s, t);
		uint64_t neck;

		if (t == s || !(vt == IBR_WALK_DOWN || (vt == IBR_WALK_UP && up)))
			continue;
		rank = down_first && up;
		if (rank > best_rank ||
		    (rank == best_rank && rp->hops[t] + 1 > best_hops))
			continue;
		/* a route no shorter nor better ranked than the best must
		 * be lighter or as light; its walk is given up as soon as
		 * it is heavier (a neck only grows along a walk) */
		neck = rank == best_rank && rp->hops[t] + 1 == best_hops ?
		       walk_neck_within(rp, col, lid, t, load, load[i], best_neck) :
		       walk_neck_within(rp, col, lid, t, load, load[i],
					 UINT64_MAX);
		if (rank < best_rank || rp->hops[t] + 1 < best_hops ||
		    neck < best_neck ||
		    (neck == best_neck && (load[i] < best_first ||
					   (load[i] == best_first && port < best)))) {
			best_rank = rank;
			best_hops = rp->hops[t] + 1;
			best_neck = neck;
			best_first = load[i];
			best = port;
			*to = t;
		}
	}
	if (neck_out)
		*neck_out = best_neck;
	return best;
}

/* s (broken) now holds by its entry `port` to t. */
static void settle(struct ibr_repair *rp, uint8_t *col, ibr_lid_t lid,
		   uint32_t s, uint32_t t, const uint32_t *weight,
		   uint64_t *load)
{
	rp->verdict[s] = ibr_link_is_up(rp->f, rp->ud, s, t) ? IBR_WALK_UP :
			 IBR_WALK_DOWN;
	rp->hops[s] = rp->hops[t] + 1;
	if (weight)
		ibr_repair_walk(rp, col, lid, s, weight[s], load, NULL);
}

/* Which pending switches a pass looks at (every pass first settles
 * those whose own entry holds again). */
enum pass_kind {
	PASS_KEEP,      /* only those */
	PASS_BREAKS,    /* the breaks themselves (their entry leads to no
			 * pending switch) take their best hop */
	PASS_FRONTIER,  /* of the pending switches that can hop, last on
			 * their walks (rp->mark), the one with the most
			 * walks through it takes its best hop */
};

/* One pass over the pending switches [0, *n).  Returns whether one
 * settled; the unsettled stay in pending[0, *n). */
static bool pass(struct ibr_repair *rp, uint8_t *col, ibr_lid_t lid,
		 bool renamed, enum pass_kind kind, uint32_t *n,
		 const uint32_t *weight, uint64_t *load, uint32_t *changed)
{
	uint32_t left = 0, chosen = IBR_NONE;
	bool progress = false;

	/* one hop at a time: it may let a break further on hop, and that
	 * one's hop settle the others unchanged */
	for (uint32_t i = 0; kind == PASS_FRONTIER && i < *n; i++) {
		uint32_t s = rp->pending[i];
		if ((rp->mark[s] & (MARK_CAN_HOP | MARK_SHADOWED)) ==
		    MARK_CAN_HOP && (chosen == IBR_NONE ||
				     rp->upstream[s] > rp->upstream[chosen]))
			chosen = s;
	}
	for (uint32_t i = 0; i < *n; i++) {
		uint32_t s = rp->pending[i], t = next_of(rp, col, lid, s);
		uint8_t port;

		/* an entry that holds again is kept (a break mended
		 * earlier, maybe in this pass, is where it leads) unless a
		 * hop of s has a lighter route: mended walks of a base LID
		 * gather the flows of what leads into them.  A LID above
		 * its range's base keeps it always: its flows are not the
		 * load it is mended against (the pairs designated on it are
		 * placed after, by load), and swapping a whole tree changes
		 * far more entries than must change (ranges.h) */
		if (t != IBR_NONE &&
		    combine(rp, s, t, rp->verdict[t]) != IBR_WALK_BROKEN) {
			uint32_t ch = ibr_walker_channel(rp->w, s, col[s]), to;
			uint64_t kept, other;
			if (renamed) {
				settle(rp, col, lid, s, t, weight, load);
				progress = true;
				continue;
			}
			kept = walk_neck_within(rp, col, lid, t, load, 0,
						UINT64_MAX);
			if (ch != IBR_NONE && load[ch] > kept)
				kept = load[ch];
			port = best_hop(rp, col, lid, s,
					rp->mark[s] & MARK_NEED_DOWN, load, &to,
					&other);
			if (port && port != col[s] && other < kept) {
				col[s] = port;
				(*changed)++;
				t = to;
			}
			settle(rp, col, lid, s, t, weight, load);
			progress = true;
			continue;
		}
		if (kind == PASS_KEEP) {
			rp->pending[left++] = s;
			continue;
		}
		if ((kind == PASS_BREAKS && t != IBR_NONE &&
		     is_pending(rp, col, renamed, t)) ||
		    (kind == PASS_FRONTIER && s != chosen)) {
			rp->pending[left++] = s;   /* upstream of a break */
			continue;
		}
		port = best_hop(rp, col, lid, s, rp->mark[s] & MARK_NEED_DOWN,
				load, &t, NULL);
		if (!port) {
			rp->pending[left++] = s;
			continue;
		}
		if (col[s] != port) {
			col[s] = port;
			(*changed)++;
		}
		settle(rp, col, lid, s, t, weight, load);
		progress = true;
	}
	*n = left;
	return progress;
}

uint32_t ibr_repair_column_balanced(struct ibr_repair *rp, uint8_t *col,
				    const uint8_t *fallback, ibr_lid_t lid,
				    bool renamed, const uint32_t *weight,
				    uint64_t *load)
{
	ibr_repair_judge(rp, col, lid);
	return ibr_repair_mend_judged(rp, col, fallback, lid, renamed, weight,
				      load);
}

uint32_t ibr_repair_mend_judged(struct ibr_repair *rp, uint8_t *col,
				const uint8_t *fallback, ibr_lid_t lid,
				bool renamed, const uint32_t *weight,
				uint64_t *load)
{
	uint32_t S = rp->f->num_switches, n = 0, changed = 0;
	bool progress = true;

	for (uint32_t i = 0; i < S; i++) {
		uint32_t s = rp->order ? rp->order[i] : i;
		if (is_pending(rp, col, renamed, s))
			rp->pending[n++] = s;
	}
	/* Rounds outwards from the walks that hold, changing as few
	 * entries as it can.  A switch whose entry leads into a walk that
	 * holds again keeps it (its walk broke further on, and was mended
	 * there); a break itself takes the best hop into a walk that holds;
	 * only when none can does the last switch of each walk that can
	 * (its hop may settle every switch before it on the walk).  Where
	 * pending walks descend into the switch that hops, a route that only
	 * descends settles them too. */
	while (n && progress) {
		while (pass(rp, col, lid, renamed, PASS_KEEP, &n, weight, load,
			    &changed))
			;
		if (!n)
			break;
		mark_chains(rp, col, lid, renamed, n);
		progress = pass(rp, col, lid, renamed, PASS_BREAKS, &n, weight,
				load, &changed) ||
			   pass(rp, col, lid, renamed, PASS_FRONTIER, &n, weight,
				load, &changed);
	}
	/* what no walk that holds reaches: a LID above its range's base
	 * leaves it without an entry (its pairs take another LID), where the
	 * fallback's walks would set entries along the way; a base LID takes
	 * the fallback's walks (its own turns), as ibr_repair_column mends */
	if (n && renamed) {
		for (uint32_t i = 0; i < n; i++)
			if (col[rp->pending[i]] != IBR_NO_PATH) {
				col[rp->pending[i]] = IBR_NO_PATH;
				changed++;
			}
	} else if (n) {
		if (!fallback && rp->fallback_of)
			fallback = rp->fallback_of(rp->fallback_ctx, lid);
		if (!fallback)
			return changed;
		for (uint32_t i = 0; i < n; i++)
			if (col[rp->pending[i]] != fallback[rp->pending[i]]) {
				col[rp->pending[i]] = fallback[rp->pending[i]];
				changed++;
			}
		changed += ibr_repair_column(rp, col, fallback, lid, renamed);
		for (uint32_t i = 0; i < n && weight; i++)
			ibr_repair_walk(rp, col, lid, rp->pending[i],
					weight[rp->pending[i]], load, NULL);
	}
	return changed;
}
