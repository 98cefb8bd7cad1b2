/*
 * paths.c - one legal path per unit (paths.h) by the two schemes of
 * lid-assignment-color-l §VI: shortest-widest and path selection
 * (k shortest legal paths, then most-loaded-link-first).
 *
 * Channels and states.  A channel is one sw_adj entry (a direction of one
 * link; parallel links are distinct channels).  A legal path is a walk
 * over (switch, phase) states: U(x), still climbing at x, may take any
 * channel (an up one to U(y), a down one to D(y)); D(x), descending, only
 * down channels (to D(y)).  State U(x) is numbered x, D(x) is S + x.  Up
 * channels go to earlier switches of ud->order and down channels to later
 * ones, so the state graph is a DAG, and a walk meets a switch at most
 * twice: once climbing and once descending.  That is the only loop a
 * walk can make; a shortest walk never makes it (cutting it out leaves a
 * shorter legal walk).  The destination switch ends every walk.
 *
 * Shortest-widest.  Units one after the other, in their order (by
 * destination, then source).  Every channel has weight 1 + the flows of
 * the units placed on it so far.  A unit takes, among the legal paths of
 * minimal length from its source switch, one of least total weight (sum
 * over its channels); ties go to the smallest sequence of output ports
 * (the lowest port at the first switch where two such paths differ).
 * Then its flows are added to the weights of its channels.  Per unit the
 * search is confined to the states on minimal legal paths from the
 * source (a BFS along channels that bring the legal distance down by
 * one), weighed backwards: cost of the minimal sub-DAG, not of the fabric.
 *
 * Path selection.  Candidates of a unit: its k shortest loop-free legal
 * paths, ordered by length then by sequence of output ports (as above).
 * Per destination switch one backward pass over the DAG keeps, for every
 * state, its kmax best walks to the destination in that order (merging
 * the sorted lists of its successors); a source's walks are then read off
 * in order and those that visit a switch twice dropped.  The lists are
 * exact for walks, so the loop-free walks read off are exactly the best
 * loop-free paths; when fewer than k survive and the list was full,
 * kmax doubles for that destination (at most KBEST_CAP walks per state:
 * beyond that a unit keeps the fewer candidates found, never wrong ones).
 * Then most-loaded-link-first: load[c] = sum over units of
 * flows / (candidates left) for each candidate left crossing c, kept
 * exactly as integers in 1/SHARES of a flow.  Repeatedly, at the channel
 * of highest load (ties to the lower channel index; a max-heap), the
 * groups with candidates crossing it and another not crossing it, those
 * with the most candidates left, lose the crossing ones one group at a
 * time (by group index), the loads of their channels redone after each,
 * while the channel stays within 1/TOLERANCE of the heaviest load; then
 * the heaviest channel is looked for again, so the load a removal shifts
 * elsewhere is seen before the next (the tolerance saves rescanning a
 * channel for every group where loads are nearly level).  A channel
 * where no group qualifies is exhausted for good (groups only lose
 * candidates).  Two distinct
 * loop-free paths from s to d differ in their channel sets, so the loop
 * ends with one candidate per unit.
 *
 * Threads (o->threads): the candidate search runs destination switches in
 * waves over the workers, each into a segment of its own, appended in
 * destination order after the wave: the same candidates in the same
 * order as one thread finds.  Most-loaded-link-first is sequential.
 *
 * Units.  Path selection runs on groups: switch pairs (flows = the CA
 * pairs between them) or, with per_ca, the CA pairs themselves (flows 1),
 * each with its own copy of its switch pair's candidates (proto: their
 * channels are shared), so that CA pairs of one switch pair, cut one at
 * a time, part ways over the candidates as the paper's per-machine
 * selection does; candidates counts per unit.  Shortest-widest places
 * CA units one by one (weights move between two CAs of a switch).
 *
 * Invariants of a result: units sorted by (dst, src), exactly the pairs
 * paths.h names; unit u's hops run from its source switch, each channel
 * a real link, up channels then down channels, no switch twice, ending
 * next to (and excluding) its destination switch; same input, same
 * output.
 */
#include <stdlib.h>
#include <string.h>

#include "ibrouting/paths.h"
#include "util/parallel.h"

#define MAX_K        16
#define SHARES       720720u /* lcm(1..16): flows / candidates is integral */
#define KBEST_SLACK  8       /* walks kept beyond k, for those that loop */
#define KBEST_CAP    1024    /* walks kept per state at most */

struct work {
	const struct ibr_fabric *f;
	const struct ibr_updown *ud;
	const struct ibr_path_options *o;
	struct ibr_error *err;
	uint32_t S, C;          /* switches, channels */
	uint8_t *link_up;       /* per channel */
	uint32_t *chan_sw;      /* per channel: the switch it leaves */
	uint32_t *ca_rank;      /* per switch: rank among switches with CAs */
	uint32_t hosts;         /* switches with CAs */
	/* to the current destination switch, per switch */
	uint32_t *down_dist, *legal_dist, *queue;
	uint32_t dist_of;       /* switch they are for, IBR_NONE at first */
	/* the result being built */
	struct ibr_paths *out;
	uint32_t hops, hop_cap;
};

static int oom(struct work *w, const char *what)
{
	return ibr_error_set(w->err, "paths: out of memory for %s (%u switches, "
			     "%u units)", what, w->S, w->out->num_units);
}

static uint32_t cas_on(const struct ibr_fabric *f, uint32_t s)
{
	return f->sw_ca_start[s + 1] - f->sw_ca_start[s];
}

static uint64_t switch_flows(const struct work *w, uint32_t s, uint32_t d)
{
	return (uint64_t)cas_on(w->f, s) * cas_on(w->f, d);
}

/* ---- scheme names ------------------------------------------------------ */

const char *ibr_path_scheme_name(enum ibr_path_scheme s)
{
	return s == IBR_PATHS_SELECTION ? "path-selection" : "shortest-widest";
}

int ibr_path_scheme_parse(const char *name, enum ibr_path_scheme *s)
{
	if (!name)
		return -1;
	if (!strcmp(name, "shortest-widest") || !strcmp(name, "sw"))
		*s = IBR_PATHS_SHORTEST_WIDEST;
	else if (!strcmp(name, "path-selection") || !strcmp(name, "ps"))
		*s = IBR_PATHS_SELECTION;
	else
		return -1;
	return 0;
}

/* ---- units and the result ----------------------------------------------- */

/* Lists the units in their order: by destination, then source. */
static int make_units(struct work *w)
{
	const struct ibr_fabric *f = w->f;
	struct ibr_paths *p = w->out;
	uint64_t n = 0;
	uint32_t u = 0;

	if (p->per_ca)
		for (uint32_t e = 0; e < f->num_end_ports; e++)
			n += f->num_end_ports - cas_on(f, f->end_ports[e].sw);
	else
		n = (uint64_t)w->hosts * (w->hosts ? w->hosts - 1 : 0);
	if (n >= UINT32_MAX)
		return ibr_error_set(w->err, "paths: %llu pairs, more than a "
				     "32-bit index holds",
				     (unsigned long long)n);
	p->num_units = (uint32_t)n;
	p->src = malloc((n ? n : 1) * sizeof(uint32_t));
	p->dst = malloc((n ? n : 1) * sizeof(uint32_t));
	p->first = malloc((n + 1) * sizeof(uint32_t));
	if (!p->src || !p->dst || !p->first)
		return oom(w, "units");
	if (p->per_ca) {
		for (uint32_t d = 0; d < f->num_end_ports; d++)
			for (uint32_t s = 0; s < f->num_end_ports; s++)
				if (f->end_ports[s].sw != f->end_ports[d].sw) {
					p->src[u] = s;
					p->dst[u++] = d;
				}
	} else {
		for (uint32_t d = 0; d < w->S; d++)
			for (uint32_t s = 0; s < w->S; s++)
				if (s != d && cas_on(f, s) && cas_on(f, d)) {
					p->src[u] = s;
					p->dst[u++] = d;
				}
	}
	return 0;
}

/* Room for n more hops in the result. */
static int reserve_hops(struct work *w, uint32_t n)
{
	struct ibr_paths *p = w->out;
	uint64_t cap = w->hop_cap ? w->hop_cap : 1024;
	uint32_t *sw;
	uint8_t *port;

	if ((uint64_t)w->hops + n <= w->hop_cap)
		return 0;
	while (cap < (uint64_t)w->hops + n)
		cap *= 2;
	if (cap > UINT32_MAX)
		return ibr_error_set(w->err, "paths: more than 2^32 hops");
	sw = realloc(p->hop_sw, cap * sizeof(uint32_t));
	if (!sw)
		return oom(w, "hops");
	p->hop_sw = sw;
	port = realloc(p->hop_port, cap);
	if (!port)
		return oom(w, "hops");
	p->hop_port = port;
	w->hop_cap = (uint32_t)cap;
	return 0;
}

/* Appends channel c as a hop (room reserved). */
static void put_hop(struct work *w, uint32_t c)
{
	w->out->hop_sw[w->hops] = w->chan_sw[c];
	w->out->hop_port[w->hops++] = w->f->sw_adj[c].port;
}

/* Distances of every switch to switch d (updown.h), unless they are. */
static void distances_to(struct work *w, uint32_t d)
{
	if (w->dist_of == d)
		return;
	ibr_down_distances(w->f, w->link_up, d, w->down_dist, w->queue);
	ibr_legal_distances(w->f, w->ud, w->link_up, w->down_dist,
			    w->legal_dist);
	w->dist_of = d;
}

static int no_path(struct work *w, uint32_t s, uint32_t d)
{
	return ibr_error_set(w->err, "paths: no legal path from switch "
			     "0x%016llx to switch 0x%016llx",
			     (unsigned long long)ibr_switch(w->f, s)->guid,
			     (unsigned long long)ibr_switch(w->f, d)->guid);
}

/* ---- states ------------------------------------------------------------- */

/* The state channel c leads to from state st, IBR_NONE when illegal
 * (an up channel while descending). */
static uint32_t next_state(const struct work *w, uint32_t st, uint32_t c)
{
	uint32_t y = w->f->sw_adj[c].peer;

	if (w->link_up[c])
		return st < w->S ? y : IBR_NONE;
	return w->S + y;
}

static uint32_t state_switch(const struct work *w, uint32_t st)
{
	return st < w->S ? st : st - w->S;
}

/* Links of the shortest legal walk from state st to the destination. */
static uint32_t state_dist(const struct work *w, uint32_t st)
{
	return st < w->S ? w->legal_dist[st] : w->down_dist[st - w->S];
}

/* The state channel c leads to from st when that keeps the walk legal
 * and minimal, else IBR_NONE. */
static uint32_t minimal_step(const struct work *w, uint32_t st, uint32_t c)
{
	uint32_t t = next_state(w, st, c), here = state_dist(w, st);

	if (t == IBR_NONE || state_dist(w, t) == IBR_FAR ||
	    state_dist(w, t) + 1 != here)
		return IBR_NONE;
	return t;
}

/* ---- shortest-widest ---------------------------------------------------- */

struct widest {
	uint64_t *weight;       /* per channel: 1 + flows placed on it */
	uint64_t *best;         /* per state: lightest minimal walk's weight */
	uint32_t *next;         /* per state: the channel it starts with */
	uint32_t *seen;         /* per state: tag of the last unit reaching it */
	uint32_t *reach;        /* states on the unit's minimal walks, BFS order */
	uint32_t tag;
};

/* The states on minimal legal walks from switch s, in BFS order; every
 * minimal step brings the distance down by one, so a state's successors
 * come after it.  Returns their number. */
static uint32_t minimal_states(struct work *w, struct widest *b, uint32_t s)
{
	uint32_t n = 0;

	b->tag++;
	b->seen[s] = b->tag;
	b->reach[n++] = s;
	for (uint32_t h = 0; h < n; h++) {
		uint32_t st = b->reach[h], x = state_switch(w, st);
		for (uint32_t c = w->f->sw_adj_start[x]; c < w->f->sw_adj_start[x + 1]; c++) {
			uint32_t t = minimal_step(w, st, c);
			if (t != IBR_NONE && b->seen[t] != b->tag) {
				b->seen[t] = b->tag;
				b->reach[n++] = t;
			}
		}
	}
	return n;
}

/* Places the lightest minimal legal path from switch s to the current
 * destination (see the header) and adds flows to its channels. */
static int place_widest(struct work *w, struct widest *b, uint32_t s,
			uint64_t flows)
{
	uint32_t n;

	if (w->legal_dist[s] == IBR_FAR)
		return no_path(w, s, w->dist_of);
	n = minimal_states(w, b, s);
	while (n-- > 0) {
		uint32_t st = b->reach[n], x = state_switch(w, st);
		b->best[st] = state_dist(w, st) ? UINT64_MAX : 0;
		b->next[st] = IBR_NONE;
		for (uint32_t c = w->f->sw_adj_start[x]; c < w->f->sw_adj_start[x + 1]; c++) {
			uint32_t t = minimal_step(w, st, c);
			/* strict: the lowest port keeps a tie */
			if (t != IBR_NONE && b->weight[c] + b->best[t] < b->best[st]) {
				b->best[st] = b->weight[c] + b->best[t];
				b->next[st] = c;
			}
		}
	}
	if (reserve_hops(w, w->legal_dist[s]))
		return -1;
	for (uint32_t st = s; state_dist(w, st) > 0;) {
		uint32_t c = b->next[st];
		put_hop(w, c);
		b->weight[c] += flows;
		st = next_state(w, st, c);
	}
	return 0;
}

static int shortest_widest(struct work *w)
{
	struct ibr_paths *p = w->out;
	struct widest b = { 0 };
	uint32_t states = 2 * w->S;
	int rc = -1;

	b.weight = malloc((w->C ? w->C : 1) * sizeof(uint64_t));
	b.best = malloc(states * sizeof(uint64_t));
	b.next = malloc(states * sizeof(uint32_t));
	b.seen = calloc(states, sizeof(uint32_t));
	b.reach = malloc(states * sizeof(uint32_t));
	if (!b.weight || !b.best || !b.next || !b.seen || !b.reach) {
		oom(w, "shortest-widest");
		goto out;
	}
	for (uint32_t c = 0; c < w->C; c++)
		b.weight[c] = 1;
	for (uint32_t u = 0; u < p->num_units; u++) {
		uint32_t s = ibr_unit_src_switch(w->f, p, u);
		uint32_t d = ibr_unit_dst_switch(w->f, p, u);
		distances_to(w, d);
		p->first[u] = w->hops;
		if (place_widest(w, &b, s, p->per_ca ? 1 : switch_flows(w, s, d)))
			goto out;
	}
	p->first[p->num_units] = w->hops;
	rc = 0;
out:
	free(b.weight);
	free(b.best);
	free(b.next);
	free(b.seen);
	free(b.reach);
	return rc;
}

/* ---- path selection: k shortest loop-free legal paths ---------------- */

/* One walk of a state's list: its length, first channel, and which walk
 * of the next state's list it goes on with.  chan IBR_NONE: arrived. */
struct kwalk {
	uint32_t len, chan, j;
};

struct kbest {
	uint32_t kmax;          /* walks per state in the lists now */
	size_t cap;             /* kwalks allocated */
	struct kwalk *e;        /* state st's list: e[st * kmax + n], */
	uint32_t *count;        /*   n < count[st] */
	uint32_t *cursor;       /* per channel, while merging */
	uint32_t *mark, tag;    /* per switch: visited by the walk read off */
	uint32_t *walk;         /* its channels */
};

/* Switch pairs with CAs (group g = units sharing candidates), their
 * candidates and the candidates' channels. */
struct cands {
	uint32_t groups;
	uint32_t *group_first;  /* groups + 1: candidates of g */
	uint64_t *flows;        /* per group */
	uint32_t num, cap;      /* candidates */
	uint32_t *chan_first;   /* cap + 1: channels of candidate i */
	uint32_t *chans;
	uint32_t nchans, chans_cap;
	/* NULL, or per candidate: the candidate of another set whose
	 * channels it has (CA pairs share their switch pair's paths) */
	uint32_t *proto;
};

/* The channels of candidate i: chans[first .. end). */
static void cand_chans(const struct cands *c, uint32_t i, uint32_t *first,
		       uint32_t *end)
{
	uint32_t p = c->proto ? c->proto[i] : i;

	*first = c->chan_first[p];
	*end = c->chan_first[p + 1];
}

static struct kwalk *kwalks(struct kbest *k, uint32_t st)
{
	return &k->e[(size_t)st * k->kmax];
}

/* State st's kmax best walks, from its successors' lists: shorter first,
 * then by the channel taken (sw_adj order: lower port), then in the
 * successor's order; i.e. by (length, sequence of output ports). */
static void merge_state(struct work *w, struct kbest *k, uint32_t st)
{
	uint32_t x = state_switch(w, st), n;
	uint32_t lo = w->f->sw_adj_start[x], hi = w->f->sw_adj_start[x + 1];
	struct kwalk *out = kwalks(k, st);

	for (uint32_t c = lo; c < hi; c++)
		k->cursor[c] = 0;
	for (n = 0; n < k->kmax; n++) {
		uint32_t best = IBR_NONE, len = UINT32_MAX;
		for (uint32_t c = lo; c < hi; c++) {
			uint32_t t = next_state(w, st, c);
			if (t != IBR_NONE && k->cursor[c] < k->count[t] &&
			    kwalks(k, t)[k->cursor[c]].len + 1 < len) {
				len = kwalks(k, t)[k->cursor[c]].len + 1;
				best = c;
			}
		}
		if (best == IBR_NONE)
			break;
		out[n] = (struct kwalk){ len, best, k->cursor[best]++ };
	}
	k->count[st] = n;
}

/* Every state's list of walks to switch d, successors first: D states
 * by decreasing position (down channels go to later switches), then U
 * states by increasing position (up channels go to earlier ones). */
static void kbest_to(struct work *w, struct kbest *k, uint32_t d)
{
	const uint32_t *order = w->ud->order;

	for (uint32_t i = w->S; i-- > 0;) {
		uint32_t st = w->S + order[i];
		if (order[i] == d) {
			kwalks(k, st)[0] = (struct kwalk){ 0, IBR_NONE, 0 };
			k->count[st] = 1;
		} else {
			merge_state(w, k, st);
		}
	}
	for (uint32_t i = 0; i < w->S; i++) {
		uint32_t st = order[i];
		if (st == d) {
			kwalks(k, st)[0] = (struct kwalk){ 0, IBR_NONE, 0 };
			k->count[st] = 1;
		} else {
			merge_state(w, k, st);
		}
	}
}

/* Sets kmax, growing the lists' room; at most KBEST_CAP. */
static int kbest_size(struct work *w, struct kbest *k, uint32_t kmax)
{
	size_t need;

	k->kmax = kmax < KBEST_CAP ? kmax : KBEST_CAP;
	need = (size_t)2 * w->S * k->kmax;
	if (need > k->cap) {
		struct kwalk *e = realloc(k->e, need * sizeof(*e));
		if (!e)
			return oom(w, "candidate walks");
		k->e = e;
		k->cap = need;
	}
	return 0;
}

/* Reads walk n of switch s's list (U(s)) into k->walk; returns its
 * length, 0 when it visits a switch twice. */
static uint32_t read_walk(struct work *w, struct kbest *k, uint32_t s,
			  uint32_t n)
{
	uint32_t st = s, len = 0;

	if (++k->tag == 0) {
		memset(k->mark, 0, w->S * sizeof(uint32_t));
		k->tag = 1;
	}
	k->mark[s] = k->tag;
	for (;;) {
		const struct kwalk *e = &kwalks(k, st)[n];
		uint32_t y;
		if (e->chan == IBR_NONE)
			return len;
		y = w->f->sw_adj[e->chan].peer;
		if (k->mark[y] == k->tag)
			return 0;
		k->mark[y] = k->tag;
		k->walk[len++] = e->chan;
		st = next_state(w, st, e->chan);
		n = e->j;
	}
}

/* Room in c for n more candidates and h more hops. */
static int cands_reserve(struct work *w, struct cands *c, uint32_t n,
			 uint64_t h)
{
	if ((uint64_t)c->num + n > c->cap) {
		uint64_t cap = c->cap ? c->cap : 4096;
		uint32_t *first;
		while (cap < (uint64_t)c->num + n)
			cap *= 2;
		if (cap >= UINT32_MAX)
			return ibr_error_set(w->err, "paths: more than 2^32 "
					     "candidates");
		first = realloc(c->chan_first, (cap + 1) * sizeof(uint32_t));
		if (!first)
			return oom(w, "candidates");
		c->chan_first = first;
		c->cap = (uint32_t)cap;
	}
	if (c->nchans + h > c->chans_cap) {
		uint64_t cap = c->chans_cap ? c->chans_cap : 16384;
		uint32_t *ch;
		while (cap < c->nchans + h)
			cap *= 2;
		if (cap > UINT32_MAX)
			return ibr_error_set(w->err, "paths: more than 2^32 "
					     "candidate hops");
		ch = realloc(c->chans, cap * sizeof(uint32_t));
		if (!ch)
			return oom(w, "candidate hops");
		c->chans = ch;
		c->chans_cap = (uint32_t)cap;
	}
	return 0;
}

static int add_candidate(struct work *w, struct cands *c, const uint32_t *chans,
			 uint32_t len)
{
	if (cands_reserve(w, c, 1, len))
		return -1;
	c->chan_first[c->num] = c->nchans;
	memcpy(c->chans + c->nchans, chans, len * sizeof(uint32_t));
	c->nchans += len;
	c->chan_first[++c->num] = c->nchans;
	return 0;
}

/* Adds the k best loop-free walks of s's list as candidates.  *more: the
 * list was full and gave fewer than k, so a longer list may give more;
 * the caller drops what was added and asks again with a longer one. */
static int collect(struct work *w, struct kbest *k, struct cands *c,
		   uint32_t s, bool *more)
{
	uint32_t found = 0, n;

	for (n = 0; n < k->count[s] && found < w->o->k; n++) {
		uint32_t len = read_walk(w, k, s, n);
		if (len == 0)
			continue; /* loops (s is not the destination) */
		if (add_candidate(w, c, k->walk, len))
			return -1;
		found++;
	}
	*more = found < w->o->k && k->count[s] == k->kmax &&
		k->kmax < KBEST_CAP;
	return 0;
}

static void kbest_free(struct kbest *k)
{
	free(k->e);
	free(k->count);
	free(k->cursor);
	free(k->mark);
	free(k->walk);
	memset(k, 0, sizeof(*k));
}

static int kbest_init(struct work *w, struct kbest *k)
{
	memset(k, 0, sizeof(*k));
	k->count = malloc(2 * (size_t)w->S * sizeof(uint32_t));
	k->cursor = malloc((w->C ? w->C : 1) * sizeof(uint32_t));
	k->mark = calloc(w->S, sizeof(uint32_t));
	k->walk = malloc(w->S * sizeof(uint32_t));
	if (!k->count || !k->cursor || !k->mark || !k->walk) {
		kbest_free(k);
		return oom(w, "candidate search");
	}
	return 0;
}

/* Appends to c the candidates of destination d's groups, source switch
 * by source switch; ends[j] = c->num after the j-th of them (ends NULL:
 * c->group_first and c->flows are the whole set's, filled as well). */
static int candidates_to(struct work *w, struct kbest *k, struct cands *c,
			 uint32_t d, uint32_t *ends)
{
	uint32_t j = 0, g = w->ca_rank[d] * (w->hosts - 1);

	if (kbest_size(w, k, w->o->k + KBEST_SLACK))
		return -1;
	kbest_to(w, k, d);
	for (uint32_t s = 0; s < w->S; s++) {
		uint32_t num = c->num, nchans = c->nchans;
		bool more;
		if (s == d || !cas_on(w->f, s))
			continue;
		if (k->count[s] == 0)
			return no_path(w, s, d);
		for (;;) {
			if (collect(w, k, c, s, &more))
				return -1;
			if (!more)
				break;
			/* again, with longer lists (same prefix) */
			c->num = num;
			c->nchans = nchans;
			if (kbest_size(w, k, 2 * k->kmax))
				return -1;
			kbest_to(w, k, d);
		}
		if (ends) {
			ends[j++] = c->num;
		} else {
			c->flows[g] = switch_flows(w, s, d);
			c->group_first[++g] = c->num;
		}
	}
	return 0;
}

/* ---- the candidate search over worker threads ------------------------ */

/* Destinations are searched in waves of TASKS_PER_WORKER per worker, each
 * into a segment of its own (the worker's k-best lists, its own error),
 * and the segments appended to the set in destination order after the
 * wave: the same set, in the same order, as one thread makes. */
#define TASKS_PER_WORKER 4

struct search_team {
	struct work *w;
	struct cands *c;
	struct kbest *k;        /* per worker */
	uint32_t *dests;        /* the wave's destination switches */
	struct cands *seg;      /* per task of the wave */
	uint32_t *ends;         /* per task: hosts - 1 */
	struct ibr_error *errs; /* per task */
};

static int search_task(void *arg, unsigned t, unsigned worker)
{
	struct search_team *team = arg;
	struct work tw = *team->w;      /* read only but for the error */
	struct cands *seg = &team->seg[t];

	tw.err = &team->errs[t];
	seg->num = 0;
	seg->nchans = 0;
	if (seg->chan_first)
		seg->chan_first[0] = 0;
	else if (!(seg->chan_first = calloc(1, sizeof(uint32_t))))
		return oom(&tw, "candidates");
	return candidates_to(&tw, &team->k[worker], seg, team->dests[t],
			     team->ends + (size_t)t * (team->w->hosts - 1));
}


/* Segment t of the wave (destination d) after the candidates in c. */
static int append_segment(struct search_team *team, unsigned t)
{
	struct work *w = team->w;
	struct cands *c = team->c, *seg = &team->seg[t];
	const uint32_t *ends = team->ends + (size_t)t * (w->hosts - 1);
	uint32_t d = team->dests[t], g = w->ca_rank[d] * (w->hosts - 1), j = 0;
	uint32_t base = c->num;

	if (cands_reserve(w, c, seg->num, seg->nchans))
		return -1;
	for (uint32_t i = 0; i < seg->num; i++)
		c->chan_first[base + i] = c->nchans + seg->chan_first[i];
	memcpy(c->chans + c->nchans, seg->chans,
	       (size_t)seg->nchans * sizeof(uint32_t));
	c->num += seg->num;
	c->nchans += seg->nchans;
	c->chan_first[c->num] = c->nchans;
	for (uint32_t s = 0; s < w->S; s++) {
		if (s == d || !cas_on(w->f, s))
			continue;
		c->flows[g] = switch_flows(w, s, d);
		c->group_first[++g] = base + ends[j++];
	}
	return 0;
}

static int search_waves(struct work *w, struct cands *c, unsigned workers)
{
	unsigned wave = workers * TASKS_PER_WORKER, n = 0;
	struct search_team team = { .w = w, .c = c };
	int rc = -1;

	team.k = calloc(workers, sizeof(*team.k));
	team.dests = malloc(wave * sizeof(uint32_t));
	team.seg = calloc(wave, sizeof(*team.seg));
	team.ends = malloc((size_t)wave * (w->hosts - 1) * sizeof(uint32_t));
	team.errs = calloc(wave, sizeof(*team.errs));
	if (!team.k || !team.dests || !team.seg || !team.ends || !team.errs) {
		oom(w, "the candidate search's workers");
		goto out;
	}
	for (unsigned i = 0; i < workers; i++)
		if (kbest_init(w, &team.k[i]))
			goto out;
	for (uint32_t d = 0; d <= w->S; d++) {
		if (d < w->S && !cas_on(w->f, d))
			continue;
		if (d < w->S)
			team.dests[n++] = d;
		if (n < wave && d < w->S)
			continue;
		if (n && ibr_parallel(workers, n, search_task, &team)) {
			for (unsigned t = 0; t < n; t++)
				if (team.errs[t].msg[0]) {
					ibr_error_set(w->err, "%s",
						      team.errs[t].msg);
					goto out;
				}
			goto out;
		}
		for (unsigned t = 0; t < n; t++)
			if (append_segment(&team, t))
				goto out;
		n = 0;
	}
	rc = 0;
out:
	for (unsigned i = 0; team.k && i < workers; i++)
		kbest_free(&team.k[i]);
	for (unsigned t = 0; team.seg && t < wave; t++) {
		free(team.seg[t].chan_first);
		free(team.seg[t].chans);
	}
	free(team.k);
	free(team.dests);
	free(team.seg);
	free(team.ends);
	free(team.errs);
	return rc;
}

/* The candidates of every group in group order (destination, then
 * source switch); over worker threads when there are several. */
static int find_candidates(struct work *w, struct cands *c)
{
	unsigned workers = ibr_parallel_workers(w->o->threads, w->hosts);
	struct kbest k;
	int rc = -1;

	c->chan_first = malloc(sizeof(uint32_t));
	if (!c->chan_first)
		return oom(w, "candidates");
	c->chan_first[0] = 0;
	if (workers > 1 && w->hosts > 1)
		return search_waves(w, c, workers);
	if (kbest_init(w, &k))
		return -1;
	for (uint32_t d = 0; d < w->S; d++)
		if (cas_on(w->f, d) && candidates_to(w, &k, c, d, NULL))
			goto out;
	rc = 0;
out:
	kbest_free(&k);
	return rc;
}

/* ---- path selection: most-loaded-link-first ---------------------------- */

struct mllf {
	uint64_t *load;         /* per channel, in 1/SHARES of a flow */
	uint32_t *inv_first;    /* C + 1: candidates crossing channel c are */
	uint32_t *inv;          /*   inv[inv_first[c] .. [c + 1]), each as
				 *   INV(group, its candidate's rank in it) */
	uint32_t *inv_end;      /* per channel: its list's live end (shrinks) */
	/* per group, bit r for its candidate of rank r (a group has at most
	 * MAX_GROUP_CANDS): alive; crossing the channel at hand.  A scan of
	 * relieve_channel reads one word of its group per entry and nothing
	 * per candidate: the cache misses of a scan are the groups' */
	struct gmask { uint16_t alive, crossing; } *gm;
	uint32_t *left;         /* per group: candidates alive */
	uint32_t *touched;      /* groups with candidates crossing */
	uint32_t *qualified;    /* of those, the ones that lose candidates */
	uint32_t multi;         /* groups with several candidates */
	/* drop_crossing's changes per channel, applied (and the heap fixed)
	 * once per channel: a group's candidates share many channels */
	uint64_t *delta;
	uint32_t *dirty, num_dirty;
	/* channels not yet exhausted, a max-heap by (load, lower index) */
	uint32_t *heap, *heap_pos, heap_len;
};

/* Inverted entries: a group and a rank in it, in 32 bits. */
#define MAX_GROUP_CANDS 16      /* k's range, and a CA pair's copies */
#define INV(g, r) ((g) << 4 | (r))
#define INV_GROUP(x) ((x) >> 4)
#define INV_RANK(x) ((x) & 15u)
#define MAX_GROUPS (UINT32_C(1) << 28)

/* Bits set in x: without a popcnt instruction __builtin_popcount is a
 * library call, a visible share of the scans. */
static unsigned ones(uint16_t x)
{
	unsigned v = x;

	v = v - ((v >> 1) & 0x5555u);
	v = (v & 0x3333u) + ((v >> 2) & 0x3333u);
	v = (v + (v >> 4)) & 0x0f0fu;
	return (v + (v >> 8)) & 0x1fu;
}

/* ---- the heap of channels ------------------------------------------- */

#define TOLERANCE 64   /* loads within 1/64 of the heaviest count as it */

static bool heavier(const struct mllf *m, uint32_t a, uint32_t b)
{
	return m->load[a] != m->load[b] ? m->load[a] > m->load[b] : a < b;
}

static void heap_swap(struct mllf *m, uint32_t i, uint32_t j)
{
	uint32_t a = m->heap[i], b = m->heap[j];

	m->heap[i] = b;
	m->heap[j] = a;
	m->heap_pos[b] = i;
	m->heap_pos[a] = j;
}

/* Channel ch's load changed: move it to its place. */
static void heap_fix(struct mllf *m, uint32_t ch)
{
	uint32_t i = m->heap_pos[ch];

	if (i == IBR_NONE)
		return;
	while (i > 0 && heavier(m, m->heap[i], m->heap[(i - 1) / 2])) {
		heap_swap(m, i, (i - 1) / 2);
		i = (i - 1) / 2;
	}
	for (;;) {
		uint32_t l = 2 * i + 1, r = l + 1, top = i;
		if (l < m->heap_len && heavier(m, m->heap[l], m->heap[top]))
			top = l;
		if (r < m->heap_len && heavier(m, m->heap[r], m->heap[top]))
			top = r;
		if (top == i)
			break;
		heap_swap(m, i, top);
		i = top;
	}
}

/* ch is the heaviest channel, or within 1/TOLERANCE of its load. */
static bool near_heaviest(const struct mllf *m, uint32_t ch)
{
	uint64_t top = m->load[m->heap[0]];

	return m->heap[0] == ch ||
	       m->load[ch] >= top - top / TOLERANCE;
}

static void heap_remove_top(struct mllf *m)
{
	uint32_t ch = m->heap[0];

	heap_swap(m, 0, --m->heap_len);
	m->heap_pos[ch] = IBR_NONE;
	if (m->heap_len)
		heap_fix(m, m->heap[0]);
}

/* Group g's load on every channel of a candidate alive: its flows spread
 * evenly over its candidates alive. */
static uint64_t share(const struct cands *c, const struct mllf *m, uint32_t g)
{
	return c->flows[g] * (SHARES / m->left[g]);
}

/* The first loads, before the heap is built: candidate i's channels
 * carry `add` more.  Later changes go through gather_load. */
static void add_load(const struct cands *c, struct mllf *m, uint32_t i,
		     uint64_t add)
{
	uint32_t first, end;

	cand_chans(c, i, &first, &end);
	for (uint32_t h = first; h < end; h++)
		m->load[c->chans[h]] += add;
}

/* A change of channel loads gathered, applied at apply_deltas. */
static void gather_load(const struct cands *c, struct mllf *m, uint32_t i,
			uint64_t add)
{
	uint32_t first, end;

	cand_chans(c, i, &first, &end);
	for (uint32_t h = first; h < end; h++) {
		uint32_t ch = c->chans[h];
		if (m->delta[ch] == 0)
			m->dirty[m->num_dirty++] = ch;
		m->delta[ch] += add;
		/* a sum back to 0 is listed again: listed twice, applied
		 * once (the second finds 0) */
	}
}

/* The gathered changes, one channel at a time, each channel's heap
 * place fixed after its change (a valid heap between two changes, so
 * heap[0] is the heaviest whatever the order). */
static void apply_deltas(struct mllf *m)
{
	for (uint32_t t = 0; t < m->num_dirty; t++) {
		uint32_t ch = m->dirty[t];
		if (m->delta[ch] == 0)
			continue;
		m->load[ch] += m->delta[ch];
		m->delta[ch] = 0;
		heap_fix(m, ch);
	}
	m->num_dirty = 0;
}

/* Group g loses its candidates crossing the channel at hand (hits[g] of
 * them, some left): their load goes, the survivors' shares grow. */
static void drop_crossing(const struct cands *c, struct mllf *m, uint32_t g)
{
	uint64_t before = share(c, m, g), after;

	struct gmask *b = &m->gm[g];
	unsigned hits = ones(b->alive & b->crossing);

	if (m->left[g] - hits == 1)
		m->multi--;
	m->left[g] -= hits;
	after = share(c, m, g);
	for (uint32_t r = 0, i = c->group_first[g]; i < c->group_first[g + 1];
	     r++, i++) {
		uint16_t bit = (uint16_t)(1u << r);
		if (!(b->alive & bit))
			continue;
		if (b->crossing & bit) {
			b->alive &= (uint16_t)~bit;
			gather_load(c, m, i, -before); /* mod 2^64: subtracts */
		} else {
			gather_load(c, m, i, after - before);
		}
	}
	apply_deltas(m);
}

/* Channel -> candidates crossing it (each at most once: loop-free). */
static void build_index(const struct work *w, const struct cands *c,
			const uint32_t *g_of, struct mllf *m)
{
	uint32_t first, end;

	memset(m->inv_first, 0, ((size_t)w->C + 1) * sizeof(uint32_t));
	for (uint32_t i = 0; i < c->num; i++) {
		cand_chans(c, i, &first, &end);
		for (uint32_t h = first; h < end; h++)
			m->inv_first[c->chans[h] + 1]++;
	}
	for (uint32_t ch = 0; ch < w->C; ch++)
		m->inv_first[ch + 1] += m->inv_first[ch];
	for (uint32_t i = 0; i < c->num; i++) {
		cand_chans(c, i, &first, &end);
		for (uint32_t h = first; h < end; h++)
			m->inv[m->inv_first[c->chans[h]]++] = INV(g_of[i],
				i - c->group_first[g_of[i]]);
	}
	/* the fill moved every start to the next channel's */
	for (uint32_t ch = w->C; ch > 0; ch--)
		m->inv_first[ch] = m->inv_first[ch - 1];
	m->inv_first[0] = 0;
}

/* Steps at the most loaded channel ch.  The groups qualify that have
 * candidates crossing ch and another not crossing it; of those, the ones
 * with the most candidates left (the most alternatives) lose the
 * crossing candidates, one after the other by group index, while ch
 * stays the most loaded channel or within 1/TOLERANCE of its load: pairs
 * alike (the CA pairs of one switch pair) part ways, and one scan of ch
 * serves many steps.  Candidates dead since the last visit leave ch's
 * list as it is scanned, so lists shrink as selection goes.  Returns
 * false when no group qualifies: ch is exhausted (groups only lose
 * candidates, so it stays so). */
static bool relieve_channel(const struct cands *c, struct mllf *m, uint32_t ch)
{
	uint32_t nt = 0, nq = 0, most = 0, kept = m->inv_first[ch];

	/* the list is in group order (build_index) and stays so as its dead
	 * entries go, so touched, and qualified after it, come in group
	 * order: no sort */
	for (uint32_t j = m->inv_first[ch]; j < m->inv_end[ch]; j++) {
		uint32_t x = m->inv[j];
		struct gmask *b = &m->gm[INV_GROUP(x)];
		uint16_t bit = (uint16_t)(1u << INV_RANK(x));
		if (!(b->alive & bit))
			continue;
		m->inv[kept++] = x;
		if (!b->crossing)
			m->touched[nt++] = INV_GROUP(x);
		b->crossing |= bit;
	}
	m->inv_end[ch] = kept;
	for (uint32_t t = 0; t < nt; t++) {
		uint32_t g = m->touched[t];
		if (ones(m->gm[g].crossing) < m->left[g] && m->left[g] > most)
			most = m->left[g];
	}
	for (uint32_t t = 0; t < nt; t++) {
		uint32_t g = m->touched[t];
		if (ones(m->gm[g].crossing) < m->left[g] && m->left[g] == most)
			m->qualified[nq++] = g;
	}
	for (uint32_t t = 0; t < nq && near_heaviest(m, ch); t++)
		drop_crossing(c, m, m->qualified[t]);
	for (uint32_t t = 0; t < nt; t++)
		m->gm[m->touched[t]].crossing = 0;
	return nq > 0;
}

static void free_mllf(struct mllf *m)
{
	free(m->heap);
	free(m->heap_pos);
	free(m->delta);
	free(m->dirty);
	free(m->inv_end);
	free(m->qualified);
	free(m->load);
	free(m->inv_first);
	free(m->inv);
	free(m->gm);
	free(m->left);
	free(m->touched);
}

static size_t total_chans(const struct cands *c)
{
	size_t n = 0;
	uint32_t first, end;

	if (!c->proto)
		return c->nchans;
	for (uint32_t i = 0; i < c->num; i++) {
		cand_chans(c, i, &first, &end);
		n += end - first;
	}
	return n;
}

/* The most channel entries of one group's candidates: a bound on the
 * channels one drop_crossing changes (with repeats). */
static size_t max_group_chans(const struct cands *c)
{
	size_t most = 0;
	uint32_t first, end;

	for (uint32_t g = 0; g < c->groups; g++) {
		size_t n = 0;
		for (uint32_t i = c->group_first[g]; i < c->group_first[g + 1]; i++) {
			cand_chans(c, i, &first, &end);
			n += end - first;
		}
		if (n > most)
			most = n;
	}
	return most;
}

/* Leaves alive exactly one candidate per group. */
static int most_loaded_link_first(struct work *w, const struct cands *c,
				  struct mllf *m)
{
	uint32_t G = c->groups, n = c->num ? c->num : 1, *g_of;

	if (G >= MAX_GROUPS)
		return ibr_error_set(w->err, "paths: %u pairs to select paths "
				     "for, at most %u", G, MAX_GROUPS - 1);
	for (uint32_t g = 0; g < G; g++)
		if (c->group_first[g + 1] - c->group_first[g] > MAX_GROUP_CANDS)
			return ibr_error_set(w->err, "paths: a pair with %u "
					     "candidates, at most %u (a bug)",
					     c->group_first[g + 1] -
					     c->group_first[g], MAX_GROUP_CANDS);
	m->load = calloc(w->C ? w->C : 1, sizeof(uint64_t));
	m->inv_first = malloc(((size_t)w->C + 1) * sizeof(uint32_t));
	m->inv = malloc((total_chans(c) ? total_chans(c) : 1) * sizeof(uint32_t));
	m->gm = malloc((G ? G : 1) * sizeof(*m->gm));
	m->left = malloc((G ? G : 1) * sizeof(uint32_t));
	m->touched = malloc((G ? G : 1) * sizeof(uint32_t));
	g_of = malloc(n * sizeof(uint32_t));
	if (!m->load || !m->inv_first || !m->inv || !m->gm || !m->left ||
	    !m->touched || !g_of) {
		free(g_of);
		return oom(w, "path selection");
	}
	for (uint32_t g = 0; g < G; g++)
		for (uint32_t i = c->group_first[g]; i < c->group_first[g + 1]; i++)
			g_of[i] = g;
	build_index(w, c, g_of, m);
	free(g_of);
	m->multi = 0;
	for (uint32_t g = 0; g < G; g++) {
		m->left[g] = c->group_first[g + 1] - c->group_first[g];
		m->gm[g].alive = (uint16_t)((1u << m->left[g]) - 1);
		m->gm[g].crossing = 0;
		m->multi += m->left[g] > 1;
		for (uint32_t i = c->group_first[g]; i < c->group_first[g + 1]; i++)
			add_load(c, m, i, share(c, m, g));
	}
	m->heap = malloc((w->C ? w->C : 1) * sizeof(uint32_t));
	m->heap_pos = malloc((w->C ? w->C : 1) * sizeof(uint32_t));
	m->inv_end = malloc((w->C ? w->C : 1) * sizeof(uint32_t));
	m->qualified = malloc((G ? G : 1) * sizeof(uint32_t));
	m->delta = calloc(w->C ? w->C : 1, sizeof(uint64_t));
	m->dirty = malloc(((size_t)max_group_chans(c) + 1) * sizeof(uint32_t));
	m->num_dirty = 0;
	if (!m->heap || !m->heap_pos || !m->inv_end || !m->qualified ||
	    !m->delta || !m->dirty)
		return oom(w, "path selection");
	for (uint32_t ch = 0; ch < w->C; ch++)
		m->inv_end[ch] = m->inv_first[ch + 1];
	m->heap_len = 0;
	for (uint32_t ch = 0; ch < w->C; ch++) {
		m->heap[m->heap_len] = ch;
		m->heap_pos[ch] = m->heap_len++;
		heap_fix(m, ch);
	}
	while (m->multi > 0) {
		if (m->heap_len == 0) /* distinct paths differ in a channel */
			return ibr_error_set(w->err, "paths: selection left %u "
					     "pairs with several candidates "
					     "(a bug)", m->multi);
		if (!relieve_channel(c, m, m->heap[0]))
			heap_remove_top(m);
	}
	return 0;
}

/* Group of the switch pair (s, d), both with CAs, s != d. */
static uint32_t group_of(const struct work *w, uint32_t s, uint32_t d)
{
	uint32_t rs = w->ca_rank[s], rd = w->ca_rank[d];

	return rd * (w->hosts - 1) + rs - (rs > rd);
}

/* Every unit takes the candidate its group kept: with per-CA groups the
 * group is the unit. */
static int write_selected(struct work *w, const struct cands *c,
			  const struct mllf *m)
{
	struct ibr_paths *p = w->out;

	for (uint32_t u = 0; u < p->num_units; u++) {
		uint32_t g = c->proto ? u :
			     group_of(w, ibr_unit_src_switch(w->f, p, u),
				      ibr_unit_dst_switch(w->f, p, u));
		uint32_t i = c->group_first[g] +
			     (uint32_t)__builtin_ctz(m->gm[g].alive), first, end;
		p->candidates += c->group_first[g + 1] - c->group_first[g];
		cand_chans(c, i, &first, &end);
		if (reserve_hops(w, end - first))
			return -1;
		p->first[u] = w->hops;
		for (uint32_t h = first; h < end; h++)
			put_hop(w, c->chans[h]);
	}
	p->first[p->num_units] = w->hops;
	return 0;
}

/* CA-pair groups (per_ca): every unit a group of its own, flows 1, whose
 * candidates are those of its switch pair (shared channels: proto). */
static int expand_per_ca(struct work *w, const struct cands *sw,
			 struct cands *ca)
{
	const struct ibr_paths *p = w->out;
	uint64_t n = 0;

	for (uint32_t u = 0; u < p->num_units; u++) {
		uint32_t g = group_of(w, ibr_unit_src_switch(w->f, p, u),
				      ibr_unit_dst_switch(w->f, p, u));
		n += sw->group_first[g + 1] - sw->group_first[g];
	}
	if (n > UINT32_MAX - 1)
		return ibr_error_set(w->err, "paths: %llu candidates of CA "
				     "pairs: too many (use switch pairs)",
				     (unsigned long long)n);
	ca->groups = p->num_units;
	ca->group_first = malloc(((size_t)p->num_units + 1) * sizeof(uint32_t));
	ca->flows = malloc((p->num_units ? p->num_units : 1) * sizeof(uint64_t));
	ca->proto = malloc((n ? n : 1) * sizeof(uint32_t));
	if (!ca->group_first || !ca->flows || !ca->proto)
		return oom(w, "CA pairs' candidates");
	ca->chan_first = sw->chan_first;
	ca->chans = sw->chans;
	ca->num = 0;
	for (uint32_t u = 0; u < p->num_units; u++) {
		uint32_t g = group_of(w, ibr_unit_src_switch(w->f, p, u),
				      ibr_unit_dst_switch(w->f, p, u));
		ca->group_first[u] = ca->num;
		ca->flows[u] = 1;
		for (uint32_t i = sw->group_first[g]; i < sw->group_first[g + 1]; i++)
			ca->proto[ca->num++] = i;
	}
	ca->group_first[p->num_units] = ca->num;
	return 0;
}

static int path_selection(struct work *w)
{

	uint64_t groups = (uint64_t)w->hosts * (w->hosts ? w->hosts - 1 : 0);
	struct cands c = { 0 }, ca = { 0 };
	struct mllf m = { 0 };
	int rc = -1;

	c.groups = (uint32_t)groups; /* <= the units, checked */
	c.group_first = calloc(groups + 1, sizeof(uint32_t));
	c.flows = malloc((groups ? groups : 1) * sizeof(uint64_t));
	if (!c.group_first || !c.flows) {
		oom(w, "switch pairs");
		goto out;
	}
	if (find_candidates(w, &c))
		goto out;
	if (w->o->per_ca) {
		if (expand_per_ca(w, &c, &ca) ||
		    most_loaded_link_first(w, &ca, &m) ||
		    write_selected(w, &ca, &m))
			goto out;
	} else if (most_loaded_link_first(w, &c, &m) ||
		   write_selected(w, &c, &m)) {
		goto out;
	}
	rc = 0;
out:
	free_mllf(&m);
	free(c.group_first);
	free(c.flows);
	free(c.chan_first);
	free(c.chans);
	free(ca.group_first);
	free(ca.flows);
	free(ca.proto);
	return rc;
}

/* ---- entry -------------------------------------------------------------- */

static int init_work(struct work *w)
{
	const struct ibr_fabric *f = w->f;

	w->C = f->sw_adj_start[w->S];
	w->dist_of = IBR_NONE;
	w->link_up = malloc(w->C ? w->C : 1);
	w->chan_sw = malloc((w->C ? w->C : 1) * sizeof(uint32_t));
	w->ca_rank = malloc(w->S * sizeof(uint32_t));
	w->down_dist = malloc(w->S * sizeof(uint32_t));
	w->legal_dist = malloc(w->S * sizeof(uint32_t));
	w->queue = malloc(w->S * sizeof(uint32_t));
	if (!w->link_up || !w->chan_sw || !w->ca_rank || !w->down_dist ||
	    !w->legal_dist || !w->queue)
		return oom(w, "distances");
	ibr_updown_link_flags(f, w->ud, w->link_up);
	for (uint32_t s = 0; s < w->S; s++) {
		for (uint32_t c = f->sw_adj_start[s]; c < f->sw_adj_start[s + 1]; c++)
			w->chan_sw[c] = s;
		w->ca_rank[s] = cas_on(f, s) ? w->hosts++ : IBR_NONE;
	}
	return 0;
}

static void free_work(struct work *w)
{
	free(w->link_up);
	free(w->chan_sw);
	free(w->ca_rank);
	free(w->down_dist);
	free(w->legal_dist);
	free(w->queue);
}

int ibr_paths_compute(const struct ibr_fabric *f, const struct ibr_updown *ud,
		      const struct ibr_path_options *o, struct ibr_paths *out,
		      struct ibr_error *err)
{
	struct work w = { .f = f, .ud = ud, .o = o, .err = err, .out = out,
			  .S = f->num_switches };
	int rc = -1;

	memset(out, 0, sizeof(*out));
	out->per_ca = o->per_ca;
	if (o->scheme == IBR_PATHS_SELECTION && (o->k < 1 || o->k > MAX_K))
		return ibr_error_set(err, "paths: k=%u, path selection takes "
				     "1 to %u candidates per pair", o->k, MAX_K);
	if (init_work(&w) || make_units(&w) || reserve_hops(&w, 1))
		goto out;
	if (o->scheme == IBR_PATHS_SELECTION)
		rc = path_selection(&w);
	else
		rc = shortest_widest(&w);
out:
	free_work(&w);
	if (rc)
		ibr_paths_free(out);
	return rc;
}

int ibr_dest_set_init(struct ibr_dest_set *d, const struct ibr_paths *p,
		      struct ibr_error *err)
{
	uint32_t most = 1, most_hops = 1;

	memset(d, 0, sizeof(*d));
	for (uint32_t u0 = 0, u1; u0 < p->num_units; u0 = u1) {
		u1 = ibr_paths_dest_end(p, u0);
		if (u1 - u0 > most)
			most = u1 - u0;
		if (p->first[u1] - p->first[u0] + (u1 - u0) > most_hops)
			most_hops = p->first[u1] - p->first[u0] + (u1 - u0);
	}
	d->first = malloc((most + 1) * sizeof(uint32_t));
	d->sw = malloc(most_hops * sizeof(uint32_t));
	d->port = malloc(most_hops);
	if (d->first && d->sw && d->port)
		return 0;
	ibr_dest_set_free(d);
	return ibr_error_set(err, "paths: out of memory for %u paths of %u "
			     "hops", most, most_hops);
}

void ibr_dest_set_free(struct ibr_dest_set *d)
{
	free(d->first);
	free(d->sw);
	free(d->port);
	memset(d, 0, sizeof(*d));
}

void ibr_dest_set_fill(struct ibr_dest_set *d, const struct ibr_paths *p,
		       uint32_t u0, uint32_t u1, uint32_t sw, uint8_t port,
		       struct ibr_dest_paths *dp)
{
	uint32_t n = u1 - u0;

	d->first[0] = 0;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t u = u0 + i, at = d->first[i];
		uint32_t len = p->first[u + 1] - p->first[u];
		memcpy(d->sw + at, p->hop_sw + p->first[u], len * sizeof(uint32_t));
		memcpy(d->port + at, p->hop_port + p->first[u], len);
		d->sw[at + len] = sw;
		d->port[at + len] = port;
		d->first[i + 1] = at + len + 1;
	}
	*dp = (struct ibr_dest_paths){ n, d->first, d->sw, d->port };
}

void ibr_paths_free(struct ibr_paths *p)
{
	free(p->src);
	free(p->dst);
	free(p->first);
	free(p->hop_sw);
	free(p->hop_port);
	memset(p, 0, sizeof(*p));
}
