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
 * beyond that a unit keeps the fewer candidates found, never wrong ones);
 * the lists that were full grow, their merges resumed, and no walk is
 * merged twice (at 1024 random switches three destinations in four
 * double, most of them twice: redoing their lists from the first walk
 * had cost 38% more merging).
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
 * ends with one candidate per unit.  Each entry of a channel's list
 * remembers how many candidates its group had left when last read, and
 * a visit reads only the entries that may qualify at its level, found
 * from the channel's ceiling down (relieve_channel): at 1024 switches 57
 * million entries read where a scan of every entry at every level read
 * 127 million; a visit scans only as far as its last drop.
 *
 * Memory: a pair's candidates are kept packed (struct crossings): each
 * channel they cross once, with the mask of the ranks crossing it, and
 * the inverted index lists a (pair, channel) once, where the pair
 * qualifies at the start.  That halves colorl's
 * peak at 1024 switches (900 to 472 MB), with the same selection.  Above
 * 1.5 x 2^20 switch pairs (1254 switches with CAs) the destination
 * switches go in batches, each searched and selected over the chosen
 * paths of those before, so that one batch's candidates are held at a
 * time ("the selection in batches" below): at 2048 switches 2.0 GB to
 * 0.89 GB.
 *
 * Threads (o->threads): the candidate search runs destination switches in
 * waves over the workers, each into a segment of its own, appended in
 * destination order after the wave: the same candidates in the same
 * order as one thread finds; the selected paths are written out in two
 * passes over blocks of units (lengths, then hops at the places their
 * sums give).  Most-loaded-link-first is one sequence up
 * to 512 switches with CAs (the paper's, exactly); above, by default, it
 * runs in two parts side by side ("the selection in parts" below), which
 * the fabric, never the thread count, decides (o->parts).
 * o->workers_now, when set, says before each wave how many workers the
 * search may use (the caller's other work may be running beside it), and
 * 0 there or every STOP_EVERY visits of the selection stops it all.
 *
 * Units.  Path selection runs on groups: switch pairs (flows = the CA
 * pairs between them) or, with per_ca, the CA pairs themselves (flows 1),
 * each with its own copy of its switch pair's candidates (proto: their
 * channels are shared), so that CA pairs of one switch pair, cut one at
 * a time, part ways over the candidates as the paper's per-machine
 * selection does; candidates counts per unit.  Shortest-widest places
 * CA units one by one (weights move between two CAs of a switch).
 *
 * Pairs with no legal route (updown.h, ibr_climb_meet: no sink above
 * both switches, as between two roots of a fat tree's top level, whose
 * SHARP aggregation nodes are CAs) are no units: no path, no flows, no
 * load, as dr and fera leave them (IBR_NO_PATH at the source; the
 * verifier counts them as owed no route).  Path selection keeps a group
 * per switch pair with CAs all the same, with no candidate, so that
 * group_of, the batches and the parts stay the arithmetic they are; the
 * shortest-widest sequence and the selection among the other pairs are
 * those without them, and where every pair has a route nothing changes.
 *
 * Invariants of a result: units sorted by (dst, src), exactly the pairs
 * paths.h names; unit u's hops run from its source switch, each channel
 * a real link, up channels then down channels, no switch twice, ending
 * next to (and excluding) its destination switch; same input, same
 * output.
 */
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "ibrouting/paths.h"
#include "util/parallel.h"
#include "util/timer.h"

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
	struct ibr_up_links up; /* each switch's up channels */
	uint32_t *chan_sw;      /* per channel: the switch it leaves */
	uint32_t *ca_rank;      /* per switch: rank among switches with CAs */
	uint32_t hosts;         /* switches with CAs */
	struct ibr_climb climb; /* which switch pairs have a legal route */
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

/* The workers the paths may use now, at most `most` (o->workers_now); 0:
 * no longer wanted. */
static unsigned workers_now(const struct work *w, unsigned most)
{
	unsigned n;

	if (!w->o->workers_now)
		return most;
	n = w->o->workers_now(w->o->workers_arg);
	return n < most ? n : most;
}

/* IBR_PATHS_STOPPED when the caller no longer wants the paths, else 0. */
static int stopped(const struct work *w)
{
	return workers_now(w, 1) ? 0 : IBR_PATHS_STOPPED;
}

static uint32_t cas_on(const struct ibr_fabric *f, uint32_t s)
{
	return f->sw_ca_start[s + 1] - f->sw_ca_start[s];
}

static uint64_t switch_flows(const struct work *w, uint32_t s, uint32_t d)
{
	return (uint64_t)cas_on(w->f, s) * cas_on(w->f, d);
}

/* Switch s has a legal route to switch d: some sink above both
 * (updown.h).  Under one root, or a root set whose roots all meet, every
 * pair has; otherwise a pair that has none (two roots, or a switch only
 * some roots descend to, with CAs: an aggregation node on a spine) is
 * owed no route and is no unit (paths.h). */
static bool routed(const struct work *w, uint32_t s, uint32_t d)
{
	return ibr_climb_meet(&w->climb, s, d);
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

/* Lists the units in their order: by destination, then source; the
 * pairs with no legal route left out. */
static int make_units(struct work *w)
{
	const struct ibr_fabric *f = w->f;
	struct ibr_paths *p = w->out;
	uint64_t n = 0;
	uint32_t u = 0;

	/* by switch pair: CA pairs count the CAs of their two switches */
	for (uint32_t d = 0; d < w->S; d++)
		for (uint32_t s = 0; s < w->S; s++)
			if (s != d && cas_on(f, s) && cas_on(f, d) &&
			    routed(w, s, d))
				n += p->per_ca ? switch_flows(w, s, d) : 1;
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
				if (f->end_ports[s].sw != f->end_ports[d].sw &&
				    routed(w, f->end_ports[s].sw,
					   f->end_ports[d].sw)) {
					p->src[u] = s;
					p->dst[u++] = d;
				}
	} else {
		for (uint32_t d = 0; d < w->S; d++)
			for (uint32_t s = 0; s < w->S; s++)
				if (s != d && cas_on(f, s) && cas_on(f, d) &&
				    routed(w, s, d)) {
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

/* Hop h of the result is channel c (room reserved). */
static void set_hop(const struct work *w, uint32_t h, uint32_t c)
{
	w->out->hop_sw[h] = w->chan_sw[c];
	w->out->hop_port[h] = w->f->sw_adj[c].port;
}

/* Appends channel c as a hop (room reserved). */
static void put_hop(struct work *w, uint32_t c)
{
	set_hop(w, w->hops++, c);
}

/* Distances of every switch to switch d (updown.h), unless they are. */
static void distances_to(struct work *w, uint32_t d)
{
	if (w->dist_of == d)
		return;
	ibr_down_distances(&w->up, w->S, d, w->down_dist, w->queue);
	ibr_legal_distances(&w->up, w->ud, w->down_dist, w->legal_dist);
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

	if (w->legal_dist[s] == IBR_FAR)        /* a unit has one: a bug */
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
		if ((rc = stopped(w)) != 0)
			goto out;
		rc = -1;
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
	uint32_t chan;
	uint32_t len_j;         /* len << KWALK_J_BITS | j */
};

/* 8 bytes a walk, not 12: a worker's lists, 2 x switches x kmax walks,
 * stay in its core's cache the longer (kmax reaches 96 for most
 * destinations at 1024 switches; the search 2% faster on one thread).  A
 * walk's length is below the states (2 x switches < 2^17 for a fabric
 * the LID space addresses, checked in init_work), and j below KBEST_CAP. */
#define KWALK_J_BITS 10
_Static_assert(KBEST_CAP <= 1u << KWALK_J_BITS, "j fits its bits");
#define KWALK_MAX_LEN (UINT32_MAX >> KWALK_J_BITS)

static struct kwalk kwalk_make(uint32_t len, uint32_t chan, uint32_t j)
{
	return (struct kwalk){ chan, len << KWALK_J_BITS | j };
}

static uint32_t kwalk_len(const struct kwalk *e)
{
	return e->len_j >> KWALK_J_BITS;
}

static uint32_t kwalk_j(const struct kwalk *e)
{
	return e->len_j & ((1u << KWALK_J_BITS) - 1);
}

struct kbest {
	uint32_t kmax;          /* walks per state in the lists now */
	size_t cap;             /* kwalks allocated */
	struct kwalk *e;        /* state st's list: e[st * kmax + n], */
	uint32_t *count;        /*   n < count[st] */
	/* per state st, its successors with walks: slots base(st) ..
	 * + nsucc[st] of via/to/cursor hold the channel, the state and how
	 * many of its walks st's list took (kept, so that a longer list
	 * resumes the merge); base(st): U states first, then D states, each
	 * by the switch's first channel */
	uint32_t *nsucc;
	uint32_t *via, *to, *cursor;
	uint32_t *head;         /* per channel: merge_state's scratch */
	uint32_t *mark, tag;    /* per switch: visited by the walk read off */
	uint32_t *walk;         /* its channels */
};

/* Every group's candidates, packed (group g = units sharing candidates:
 * switch pairs with CAs, or with per_ca the CA pairs).  A group's
 * candidates are its ranks 0 .. ncand - 1, in the search's order.  Its
 * entries name each channel its candidates cross once, in order of first
 * crossing (by rank, then hop), with the ranks crossing it as a mask.
 * The candidates of a pair share about half their channels (512
 * switches: 21.2 million hops, 10.2 million entries), an entry takes 4
 * bytes (6 above 65536 channels) where a hop took 4 and its inverted
 * entry 4 more, and most-loaded-link-first works per entry, not per hop.
 * Up to 65536 channels an entry's channel and ranks share 32 bits, so a
 * drop reading a group's entries misses the cache once per line, not
 * twice.
 * A candidate's path is its entries with its bit, in walk order from the
 * source switch: a loop-free path leaves each of its switches once. */
struct crossings {
	uint32_t groups;
	uint8_t *ncand;         /* per group: its candidates */
	uint32_t *flows;        /* per group (CAs of two switches: < 2^16) */
	uint32_t *first;        /* per group + 1: its entries (of pair[g]'s
				 * when per CA) */
	uint32_t num, cap;      /* entries */
	bool wide;              /* more than 65536 channels */
	/* per entry, its channel and its ranks (bit r: candidate r crosses
	 * it): channel | ranks << 16 in packed, or (wide) in ch32 and ranks */
	uint32_t *packed;
	uint32_t *ch32;
	uint16_t *ranks;
	/* NULL, or per group: the group of the switch pairs' set whose
	 * candidates it has (CA pairs share their switch pair's paths);
	 * first, packed, ch32 and ranks are then that set's, not owned */
	uint32_t *pair;
};

static uint32_t entry_chan(const struct crossings *x, uint32_t e)
{
	return x->wide ? x->ch32[e] : x->packed[e] & 0xffffu;
}

static uint16_t entry_ranks(const struct crossings *x, uint32_t e)
{
	return x->wide ? x->ranks[e] : (uint16_t)(x->packed[e] >> 16);
}

/* Where entry e's ranks are kept, to fetch ahead. */
static const void *entry_ranks_at(const struct crossings *x, uint32_t e)
{
	return x->wide ? (const void *)&x->ranks[e] : &x->packed[e];
}

/* Appends an entry for channel ch, no rank crossing it yet. */
static void entry_append(struct crossings *x, uint32_t ch)
{
	if (x->wide) {
		x->ch32[x->num] = ch;
		x->ranks[x->num] = 0;
	} else {
		x->packed[x->num] = ch;
	}
	x->num++;
}

static void entry_add_rank(struct crossings *x, uint32_t e, unsigned r)
{
	if (x->wide)
		x->ranks[e] |= (uint16_t)(1u << r);
	else
		x->packed[e] |= UINT32_C(1) << (16 + r);
}

/* Group g's entries: [*first, *end). */
static void group_entries(const struct crossings *x, uint32_t g,
			  uint32_t *first, uint32_t *end)
{
	uint32_t p = x->pair ? x->pair[g] : g;

	*first = x->first[p];
	*end = x->first[p + 1];
}

/* Room in x for n more entries (channel ids of w's width). */
static int crossings_reserve(struct work *w, struct crossings *x, uint64_t n)
{
	uint64_t cap = x->cap ? x->cap : 4096;

	x->wide = w->C > UINT16_MAX + 1u;
	if (x->num + n <= x->cap)
		return 0;
	while (cap < x->num + n)
		cap *= 2;
	if (cap > UINT32_MAX)
		return ibr_error_set(w->err, "paths: more than 2^32 channels "
				     "crossed by the candidates of all pairs");
	if (x->wide) {
		uint32_t *ch = realloc(x->ch32, cap * sizeof(uint32_t));
		uint16_t *ranks;
		if (ch)
			x->ch32 = ch;
		ranks = ch ? realloc(x->ranks, cap * sizeof(uint16_t)) : NULL;
		if (!ranks)
			return oom(w, "the candidates' channels");
		x->ranks = ranks;
	} else {
		uint32_t *packed = realloc(x->packed, cap * sizeof(uint32_t));
		if (!packed)
			return oom(w, "the candidates' channels");
		x->packed = packed;
	}
	x->cap = (uint32_t)cap;
	return 0;
}

static void crossings_free(struct crossings *x)
{
	free(x->ncand);
	free(x->flows);
	if (!x->pair) {
		free(x->first);
		free(x->packed);
		free(x->ch32);
		free(x->ranks);
	}
	free(x->pair);
	memset(x, 0, sizeof(*x));
}

static struct kwalk *kwalks(struct kbest *k, uint32_t st)
{
	return &k->e[(size_t)st * k->kmax];
}

/* State st's walks n0 .. kmax - 1 (all of them from n0 = 0), from its
 * successors' lists: shorter first, then by the channel taken (sw_adj
 * order: lower port), then in the successor's order; i.e. by (length,
 * sequence of output ports).  From n0 > 0 the merge goes on where it
 * stopped at n0 (the successors' lists are longer now too): the walks
 * are those a merge from 0 gives, which never took a successor's walk
 * beyond the room it had.  The successors' next walks are kept as the
 * lengths they give (head; UINT32_MAX once none is left), and the merge
 * goes by length: a successor's walks of one length are consecutive in
 * its list, so each length costs two scans of the heads, not each walk
 * one (at 1024 random switches the search 1.3x faster on one thread). */
static void merge_state(struct work *w, struct kbest *k, uint32_t st,
			uint32_t n0)
{
	uint32_t x = state_switch(w, st), n, succ;
	uint32_t lo = w->f->sw_adj_start[x], hi = w->f->sw_adj_start[x + 1];
	uint32_t b = (st < w->S ? 0 : w->C) + lo;
	uint32_t *via = k->via + b, *to = k->to + b, *cursor = k->cursor + b,
		 *head = k->head + lo;
	struct kwalk *out = kwalks(k, st);

	if (n0 == 0) {
		succ = 0;
		for (uint32_t c = lo; c < hi; c++) {
			uint32_t t = next_state(w, st, c);
			if (t == IBR_NONE || k->count[t] == 0)
				continue;
			via[succ] = c;
			to[succ] = t;
			cursor[succ++] = 0;
		}
		k->nsucc[st] = succ;
	}
	succ = k->nsucc[st];
	for (uint32_t i = 0; i < succ; i++)
		head[i] = cursor[i] < k->count[to[i]] ?
			  kwalk_len(&kwalks(k, to[i])[cursor[i]]) + 1 :
			  UINT32_MAX;
	/* a round: the shortest length left, then the successors in channel
	 * order, each its walks of that length in its own order; the order
	 * a walk by walk merge gives (the least head, ties to the lowest
	 * channel, stays at a successor until its walks of that length run
	 * out) */
	for (n = n0; n < k->kmax;) {
		uint32_t len = UINT32_MAX;
		for (uint32_t i = 0; i < succ; i++)
			if (head[i] < len)
				len = head[i];
		if (len == UINT32_MAX)
			break;
		for (uint32_t i = 0; i < succ && n < k->kmax; i++) {
			uint32_t t = to[i];
			while (head[i] == len && n < k->kmax) {
				out[n++] = kwalk_make(len, via[i],
						      cursor[i]++);
				head[i] = cursor[i] < k->count[t] ?
					  kwalk_len(&kwalks(k, t)[cursor[i]]) + 1 :
					  UINT32_MAX;
			}
		}
	}
	k->count[st] = n;
}

/* State st's list (kbest_to's step). */
static void kbest_state(struct work *w, struct kbest *k, uint32_t d,
			uint32_t st, uint32_t n0)
{
	if (n0 > 0) {
		if (k->count[st] == n0)
			merge_state(w, k, st, n0);
	} else if (state_switch(w, st) == d) {
		kwalks(k, st)[0] = kwalk_make(0, IBR_NONE, 0);
		k->count[st] = 1;
	} else {
		merge_state(w, k, st, 0);
	}
}

/* Every state's list of walks to switch d, successors first: D states
 * by decreasing position (down channels go to later switches), then U
 * states by increasing position (up channels go to earlier ones).  From
 * n0 > 0 (the room was n0, now kmax) only the lists that were full grow:
 * the others hold every walk there is. */
static void kbest_to(struct work *w, struct kbest *k, uint32_t d,
		     uint32_t n0)
{
	const uint32_t *order = w->ud->order;

	for (uint32_t i = w->S; i-- > 0;)
		kbest_state(w, k, d, w->S + order[i], n0);
	for (uint32_t i = 0; i < w->S; i++)
		kbest_state(w, k, d, order[i], n0);
}

/* Sets kmax, growing the lists' room; at most KBEST_CAP.  With `keep`
 * the lists' walks stay, each at its place in the new layout. */
static int kbest_size(struct work *w, struct kbest *k, uint32_t kmax,
		      bool keep)
{
	uint32_t was = k->kmax;
	size_t need;

	kmax = kmax < KBEST_CAP ? kmax : KBEST_CAP;
	need = (size_t)2 * w->S * kmax;
	if (need > k->cap) {
		struct kwalk *e = realloc(k->e, need * sizeof(*e));
		if (!e)
			return oom(w, "candidate walks");
		k->e = e;
		k->cap = need;
	}
	k->kmax = kmax;
	/* from the last state down: a list moves to a place at or after
	 * its own, past the lists still to move */
	for (uint32_t st = 2 * w->S; keep && kmax > was && st-- > 0;)
		memmove(&k->e[(size_t)st * kmax], &k->e[(size_t)st * was],
			k->count[st] * sizeof(*k->e));
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
		n = kwalk_j(e);
	}
}


/* Packs the k best loop-free walks of s's list, as they are read off,
 * as the next group of x: each channel they cross once, in order of first
 * crossing (by rank, then hop), with the ranks crossing it (slot: per
 * channel IBR_NONE, and so again on return).  *more: the list was full
 * and gave fewer than k, so a longer list may give more; then nothing is
 * packed, and the caller asks again with a longer one.  On failure (no
 * memory) nothing is packed either, and slot is clean: the worker's next
 * task reads it.  (Packed as read: through a list of the candidates'
 * channels first, the search took 4-5% longer on one thread at 1024
 * switches.) */
static int pack_walks(struct work *w, struct kbest *k, struct crossings *x,
		      uint32_t *slot, uint32_t s, bool *more)
{
	uint32_t found = 0, n, e0 = x->num, g = x->groups;
	int rc = 0;

	for (n = 0; n < k->count[s] && found < w->o->k; n++) {
		uint32_t len = read_walk(w, k, s, n);
		if (len == 0)
			continue; /* loops (s is not the destination) */
		if (crossings_reserve(w, x, len)) {
			rc = -1;        /* slot cleared, nothing packed */
			break;
		}
		for (uint32_t h = 0; h < len; h++) {
			uint32_t ch = k->walk[h];
			if (slot[ch] == IBR_NONE) {
				slot[ch] = x->num;
				entry_append(x, ch);
			}
			entry_add_rank(x, slot[ch], found);
		}
		found++;
	}
	for (uint32_t e = e0; e < x->num; e++)
		slot[entry_chan(x, e)] = IBR_NONE;
	*more = rc == 0 && found < w->o->k && k->count[s] == k->kmax &&
		k->kmax < KBEST_CAP;
	if (rc || *more) {
		x->num = e0;
		return rc;
	}
	x->ncand[g] = (uint8_t)found;
	x->first[g + 1] = x->num;
	x->groups++;
	return 0;
}

static void kbest_free(struct kbest *k)
{
	free(k->e);
	free(k->count);
	free(k->nsucc);
	free(k->via);
	free(k->to);
	free(k->head);
	free(k->cursor);
	free(k->mark);
	free(k->walk);
	memset(k, 0, sizeof(*k));
}

static int kbest_init(struct work *w, struct kbest *k)
{
	memset(k, 0, sizeof(*k));
	k->count = malloc(2 * (size_t)w->S * sizeof(uint32_t));
	k->nsucc = malloc(2 * (size_t)w->S * sizeof(uint32_t));
	k->via = malloc(2 * (size_t)(w->C ? w->C : 1) * sizeof(uint32_t));
	k->to = malloc(2 * (size_t)(w->C ? w->C : 1) * sizeof(uint32_t));
	k->cursor = malloc(2 * (size_t)(w->C ? w->C : 1) * sizeof(uint32_t));
	k->head = malloc((w->C ? w->C : 1) * sizeof(uint32_t));
	k->mark = calloc(w->S, sizeof(uint32_t));
	k->walk = malloc(w->S * sizeof(uint32_t));
	if (!k->count || !k->nsucc || !k->via || !k->to || !k->cursor ||
	    !k->head || !k->mark || !k->walk) {
		kbest_free(k);
		return oom(w, "candidate search");
	}
	return 0;
}

/* Packs into x the groups of destination d, source switch by source
 * switch (slot as pack_walks').  A source with no legal route to d (no
 * unit) has a group with no candidate: the groups stay one per switch
 * pair with CAs, where group_of finds them, and carry no load. */
static int candidates_to(struct work *w, struct kbest *k, struct crossings *x,
			 uint32_t *slot, uint32_t d)
{
	if (kbest_size(w, k, w->o->k + KBEST_SLACK, false))
		return -1;
	kbest_to(w, k, d, 0);
	for (uint32_t s = 0; s < w->S; s++) {
		bool more;
		if (s == d || !cas_on(w->f, s))
			continue;
		if (k->count[s] == 0 && routed(w, s, d))
			return no_path(w, s, d);        /* a bug */
		for (;;) {
			if (pack_walks(w, k, x, slot, s, &more))
				return -1;
			if (!more)
				break;
			/* again, with longer lists (same prefix) */
			uint32_t was = k->kmax;
			if (kbest_size(w, k, 2 * was, true))
				return -1;
			kbest_to(w, k, d, was);
		}
	}
	return 0;
}

/* ---- the candidate search, over worker threads ------------------------ */

/* Destinations are searched in waves of TASKS_PER_WORKER per worker, each
 * into a segment of its own (its groups packed with the worker's k-best
 * lists and slots, its own error), and the segments
 * appended to the set in destination order after the wave: the same set,
 * in the same order, whatever the number of workers. */
#define TASKS_PER_WORKER 4

struct searcher {               /* one per worker */
	struct kbest k;
	uint32_t *slot;         /* per channel, IBR_NONE between groups */
};

struct search_team {
	struct work *w;
	struct crossings *x;
	struct searcher *sr;    /* per worker */
	uint32_t *dests;        /* the wave's destination switches */
	struct crossings *seg;  /* per task of the wave: hosts - 1 groups */
	struct ibr_error *errs; /* per task */
};

static int search_task(void *arg, unsigned t, unsigned worker)
{
	struct search_team *team = arg;
	struct work tw = *team->w;      /* read only but for the error */
	struct searcher *sr = &team->sr[worker];
	struct crossings *seg = &team->seg[t];

	tw.err = &team->errs[t];
	seg->groups = 0;
	seg->num = 0;
	return candidates_to(&tw, &sr->k, seg, sr->slot, team->dests[t]);
}

/* Segment t of the wave (destination d) after the groups in x. */
static int append_segment(struct search_team *team, unsigned t)
{
	struct work *w = team->w;
	struct crossings *x = team->x, *seg = &team->seg[t];
	uint32_t d = team->dests[t], g = w->ca_rank[d] * (w->hosts - 1), j = 0;
	uint32_t base = x->num;

	if (seg->num) {
		if (crossings_reserve(w, x, seg->num))
			return -1;
		if (x->wide) {
			memcpy(x->ch32 + base, seg->ch32,
			       seg->num * sizeof(uint32_t));
			memcpy(x->ranks + base, seg->ranks,
			       seg->num * sizeof(uint16_t));
		} else {
			memcpy(x->packed + base, seg->packed,
			       seg->num * sizeof(uint32_t));
		}
		x->num += seg->num;
	}
	for (uint32_t s = 0; s < w->S; s++) {
		if (s == d || !cas_on(w->f, s))
			continue;
		x->flows[g] = (uint32_t)switch_flows(w, s, d);
		x->ncand[g] = seg->ncand[j];
		x->first[++g] = base + seg->first[++j];
	}
	return 0;
}

static void searcher_free(struct searcher *sr)
{
	kbest_free(&sr->k);
	free(sr->slot);
}

static int searcher_init(struct work *w, struct searcher *sr)
{
	if (kbest_init(w, &sr->k))
		return -1;
	sr->slot = malloc((w->C ? w->C : 1) * sizeof(uint32_t));
	if (!sr->slot)
		return oom(w, "the candidate search");
	for (uint32_t c = 0; c < w->C; c++)
		sr->slot[c] = IBR_NONE;
	return 0;
}

/* The candidates of every switch pair with CAs whose destination's rank
 * among them is in [rank_lo, rank_hi), packed into x in group order
 * (destination, then source switch) after the entries x has; over worker
 * threads when there are several. */
static int find_candidates(struct work *w, struct crossings *x,
			   uint32_t rank_lo, uint32_t rank_hi)
{
	unsigned workers = ibr_parallel_workers(w->o->threads, w->hosts);
	unsigned slots = workers * TASKS_PER_WORKER;  /* the largest wave */
	unsigned now = workers_now(w, workers), wave, n = 0;
	struct search_team team = { .w = w, .x = x };
	int rc = -1;

	if (now == 0)
		return IBR_PATHS_STOPPED;
	wave = now * TASKS_PER_WORKER;
	team.sr = calloc(workers, sizeof(*team.sr));
	team.dests = malloc(slots * sizeof(uint32_t));
	team.seg = calloc(slots, sizeof(*team.seg));
	team.errs = calloc(slots, sizeof(*team.errs));
	if (!team.sr || !team.dests || !team.seg || !team.errs) {
		oom(w, "the candidate search's workers");
		goto out;
	}
	for (unsigned i = 0; i < workers; i++)
		if (searcher_init(w, &team.sr[i]))
			goto out;
	for (unsigned t = 0; t < slots; t++) {
		team.seg[t].ncand = malloc(w->hosts ? w->hosts : 1);
		team.seg[t].first = calloc(w->hosts ? w->hosts : 1,
					   sizeof(uint32_t));
		if (!team.seg[t].ncand || !team.seg[t].first) {
			oom(w, "the candidate search's workers");
			goto out;
		}
	}
	for (uint32_t d = 0; d <= w->S; d++) {
		if (d < w->S && (!cas_on(w->f, d) || w->ca_rank[d] < rank_lo ||
				 w->ca_rank[d] >= rank_hi))
			continue;
		if (d < w->S)
			team.dests[n++] = d;
		if (n < wave && d < w->S)
			continue;
		if (n && ibr_parallel(now, n, search_task, &team)) {
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
		/* the next wave's workers (the caller's other work may have
		 * ended): the same segments in the same order for any */
		now = workers_now(w, workers);
		if (now == 0) {
			rc = IBR_PATHS_STOPPED;
			goto out;
		}
		wave = now * TASKS_PER_WORKER;
	}
	rc = 0;
out:
	for (unsigned i = 0; team.sr && i < workers; i++)
		searcher_free(&team.sr[i]);
	for (unsigned t = 0; team.seg && t < slots; t++)
		crossings_free(&team.seg[t]);
	free(team.sr);
	free(team.dests);
	free(team.seg);
	free(team.errs);
	return rc;
}

/* ---- path selection: most-loaded-link-first ---------------------------- */

#define MAX_GROUP_CANDS 16      /* k's range, and a CA pair's copies */

/* A channel's load as a part sees it, together: a drop changes it on
 * each channel its group's candidates cross, two channels a cache line
 * (the array aligned to one). */
struct chan_load {
	uint64_t load;          /* in 1/SHARES of a flow: all groups' (in
				 * parts: this part's own now, the others' as
				 * the last epoch left them) */
	uint64_t own;           /* in parts: this part's groups' load alone */
	uint64_t key;           /* the heap's order, >= load */
	uint32_t scale;         /* in parts: how much all the groups' load is
				 * taken to change when this part's does, in
				 * 1/SCALE_ONE (1 to parts) */
};

struct mllf {
	struct chan_load *cl;   /* per channel */
	bool in_parts;          /* own and scale kept (more than one part) */
	bool exhaustive;        /* o->exhaustive: no resume, keys = loads */
	uint32_t *inv_first;    /* C + 1: the groups qualifying at channel c */
	uint32_t *inv;          /*   at the start (some of their candidates
				 *   cross it, not all) are inv[inv_first[c]
				 *   .. [c + 1]), each as INV(group, its
				 *   entry's place among the group's entries) */
	uint8_t *below;         /* per inverted entry: its group's candidates
				 * left when a scan last read them (at first
				 * all), never fewer than left now: a scan at a
				 * level above it passes the entry unread; 0:
				 * the entry has left the list */
	unsigned place_bits;    /* of an inverted entry (the rest: the group) */
	/* per group, together for one cache miss a group (a scan reads its
	 * group's state and its entry's ranks per entry, a drop the state and
	 * the entries): where its entries start, its flows, bit r for its
	 * candidate of rank r (a group has at most MAX_GROUP_CANDS) alive,
	 * how many are alive and how many entries it has */
	struct gstate {
		uint32_t first, flows;
		uint16_t alive;
		uint8_t left;
		uint16_t count;  /* its entries; GS_MANY: read c->first */
	} *gs;
	uint64_t per_candidate[MAX_GROUP_CANDS + 1]; /* SHARES / n, n >= 1 */
	/* per channel: no group of its list qualifies with more candidates
	 * left than this (its entries' below are at most it) */
	uint8_t *ceiling;
	/* per channel: where its next visit resumes, and at which level (the
	 * candidates left of the groups qualifying; 0: none to resume) */
	uint32_t *resume_pos, *resume_level;
	uint32_t multi;         /* groups with several candidates */
	/* channels not yet exhausted, a max-heap by (load, lower index) */
	uint32_t *heap, *heap_pos, heap_len;
	/* in parts: a visit that drops a group of a destination switch
	 * drops all of that destination's qualifying groups at the level
	 * (paths.c, "the selection in parts"); a group's destination is its
	 * switch pair's group (pair, or itself) / per_dest */
	bool whole_destinations;
	const uint32_t *pair;
	uint32_t per_dest;
};

#define GS_MANY UINT16_MAX
#define SCALE_ONE 65536
/* A group with candidates alive `alive` qualifies at a channel that
 * `crossing` of them cross: some, not all. */
static bool qualifies(uint16_t crossing, uint16_t alive)
{
	return crossing && crossing != alive;
}

/* Group g's entries, [*first, *end), from its state (one cache miss
 * less than c->first's). */
static void gs_entries(const struct crossings *c, const struct mllf *m,
		       uint32_t g, uint32_t *first, uint32_t *end)
{
	const struct gstate *b = &m->gs[g];

	if (b->count == GS_MANY) {
		group_entries(c, g, first, end);
		return;
	}
	*first = b->first;
	*end = b->first + b->count;
}

/* Inverted entries: a group and its entry's place among its entries, in
 * 32 bits, the group in the high bits (as few as the groups need).  A
 * place too large for the low bits is stored as their largest value, and
 * the entry is found from there (a group's entries are in no particular
 * channel order, but ch's is at that place or after it). */
#define MAX_GROUPS (UINT32_C(1) << 28)

static uint32_t inv_entry(const struct mllf *m, uint32_t g, uint32_t place)
{
	uint32_t most = (UINT32_C(1) << m->place_bits) - 1;

	return g << m->place_bits | (place < most ? place : most);
}

/* Where the ranks of inverted entry x are, or the entry to look for
 * its channel from (see inv_entry). */
static uint32_t inv_place(const struct mllf *m, uint32_t x)
{
	uint32_t most = (UINT32_C(1) << m->place_bits) - 1;

	return m->gs[x >> m->place_bits].first + (x & most);
}

/* The entry of group g for channel ch, from its inverted entry x. */
static uint32_t inv_lookup(const struct crossings *c, const struct mllf *m,
			   uint32_t x, uint32_t ch)
{
	uint32_t most = (UINT32_C(1) << m->place_bits) - 1;
	uint32_t e = inv_place(m, x);

	if ((x & most) == most)
		while (entry_chan(c, e) != ch)
			e++;
	return e;
}

#define SCAN_AHEAD 24   /* entries read: prefetch distance of a scan */
#define VERDICTS_AHEAD 32 /* entries judged before they are acted on */
#define READ_AHEAD (2 * SCAN_AHEAD + VERDICTS_AHEAD) /* found, not acted */
#define READ_RING 128   /* >= READ_AHEAD, a power of two */
_Static_assert(READ_AHEAD <= READ_RING &&
	       (READ_RING & (READ_RING - 1)) == 0, "the scan's ring");
#define DROP_LINES 4    /* cache lines of a group's entries fetched ahead,
			 * at most */

/* Bits set in x, by bytes: without a popcnt instruction (the build's
 * baseline x86-64 has none) __builtin_popcount is a library call, and a
 * count by shifts and masks was a sixth of path selection's instructions
 * at 256 switches; this table stays in the first-level cache. */
#define ONES2(n) n, n + 1, n + 1, n + 2
#define ONES4(n) ONES2(n), ONES2(n + 1), ONES2(n + 1), ONES2(n + 2)
#define ONES6(n) ONES4(n), ONES4(n + 1), ONES4(n + 1), ONES4(n + 2)
static const uint8_t ones_in_byte[256] = {
	ONES6(0), ONES6(1), ONES6(1), ONES6(2),
};

static unsigned ones(uint16_t x)
{
	return ones_in_byte[x & 0xff] + ones_in_byte[x >> 8];
}

/* ---- the heap of channels ------------------------------------------- */

/* The heap orders channels by key, never below the channel's load now: a
 * load that rises above its key raises the key to the load and
 * 1/2^KEY_SLACK of it more, and moves up at once; one that falls, or
 * rises within its key, is left where it is until it comes to the top
 * (settle_top: its key set to its load, and moved down).  With the top
 * settled it is the heaviest channel, ties to the lower index: any
 * other's load is at most its key, which is at most the top's, and on
 * equal keys its index is higher.  So what the keys are above the loads
 * changes no choice, only how often channels move: most falling channels
 * never come back to the top, and are never moved, and the slack spares
 * the many small rises of a drop (at 512 switches / 8192 CAs, LMC 1,
 * 12.6 million moves up and 0.26 million settlings without it, 0.91 and
 * 0.83 million with 1/256). */

#define TOLERANCE 64   /* loads within 1/64 of the heaviest count as it */
#define KEY_SLACK 8     /* a raised key: the load and 1/2^8 of it more */

static bool heavier(const struct mllf *m, uint32_t a, uint32_t b)
{
	uint64_t ka = m->cl[a].key, kb = m->cl[b].key;

	return ka != kb ? ka > kb : a < b;
}

static void heap_swap(struct mllf *m, uint32_t i, uint32_t j)
{
	uint32_t a = m->heap[i], b = m->heap[j];

	m->heap[i] = b;
	m->heap[j] = a;
	m->heap_pos[b] = i;
	m->heap_pos[a] = j;
}

/* The channel at heap place i moved down to its place below. */
static void heap_down(struct mllf *m, uint32_t i)
{
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

/* Channel ch's key changed: move it to its place. */
static void heap_fix(struct mllf *m, uint32_t ch)
{
	uint32_t i = m->heap_pos[ch];

	if (i == IBR_NONE)
		return;
	while (i > 0 && heavier(m, m->heap[i], m->heap[(i - 1) / 2])) {
		heap_swap(m, i, (i - 1) / 2);
		i = (i - 1) / 2;
	}
	heap_down(m, i);
}

/* The top's key its load, the top then the heaviest channel. */
static void settle_top(struct mllf *m)
{
	while (m->heap_len &&
	       m->cl[m->heap[0]].key != m->cl[m->heap[0]].load) {
		m->cl[m->heap[0]].key = m->cl[m->heap[0]].load;
		heap_fix(m, m->heap[0]);
	}
}

/* ch is the heaviest channel, or within 1/TOLERANCE of its load. */
static bool near_heaviest(struct mllf *m, uint32_t ch)
{
	uint64_t top;

	settle_top(m);
	top = m->cl[m->heap[0]].load;

	return m->heap[0] == ch ||
	       m->cl[ch].load >= top - top / TOLERANCE;
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
static uint64_t share(const struct mllf *m, const struct gstate *b)
{
	return b->flows * m->per_candidate[b->left];
}

/* Channel ch's load changes by add (mod 2^64: a drop subtracts); a load
 * that rises above its key moves up at once (a valid heap between two
 * changes, whatever their order).  A group names a channel in one entry
 * only (pack_walks), so a drop changes each load once. */
static void add_load(struct mllf *m, uint32_t ch, uint64_t add)
{
	struct chan_load *l = &m->cl[ch];

	if (m->in_parts) {
		/* mod 2^64: add is the change's two's complement */
		int64_t seen = (int64_t)l->load +
			       (int64_t)add * l->scale / SCALE_ONE;
		l->own += add;
		l->load = seen > 0 ? (uint64_t)seen : 0;
	} else {
		l->load += add;
	}
	if (l->load > l->key || m->exhaustive) {
		l->key = m->exhaustive ? l->load :
			 l->load + (l->load >> KEY_SLACK);
		heap_fix(m, ch);
	}
}

/* Group g loses its candidates `crossing` the channel at hand (some are
 * left): their load goes, the survivors' shares grow; per entry, the
 * change of all the group's candidates on its channel at once. */
static void drop_crossing(const struct crossings *c, struct mllf *m,
			  uint32_t g, uint16_t crossing)
{
	struct gstate *b = &m->gs[g];
	uint16_t was = b->alive, now = (uint16_t)(was & ~crossing);
	unsigned to = b->left - ones(crossing);
	uint64_t before = share(m, b), after;
	/* the ranks up to the highest alive */
	uint16_t reach = (uint16_t)((2u << (31 - __builtin_clz(was))) - 1);
	uint32_t first, end;

	if (to == 1)
		m->multi--;
	b->left = (uint8_t)to;
	b->alive = now;
	after = share(m, b);
	gs_entries(c, m, g, &first, &end);
	/* entries come in order of the lowest rank crossing them
	 * (pack_walks): past the highest rank alive, none is alive */
	for (uint32_t e = first; e < end && (entry_ranks(c, e) & reach); e++) {
		uint16_t ranks = entry_ranks(c, e), alive = ranks & was;
		uint64_t gone, stay, add;
		uint32_t ch;
		if (!alive)
			continue;
		gone = ones(alive & crossing);
		stay = ones(alive & now);
		/* mod 2^64: the drops subtract */
		add = stay * (after - before) - gone * before;
		ch = entry_chan(c, e);
		if (add)
			add_load(m, ch, add);
	}
}

/* The first entry at j or after (end: none) of a list whose below is at
 * least `level`: one a scan at that level reads.  Sixteen at a time with
 * SSE2 (the x86-64 baseline): most entries are passed. */
static uint32_t next_read(const uint8_t *below, unsigned level, uint32_t j,
			  uint32_t end)
{
#ifdef __SSE2__
	const __m128i lv = _mm_set1_epi8((char)level), zero = _mm_setzero_si128();

	for (; end - j >= 16; j += 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)&below[j]);
		/* level - v saturates to 0 where v >= level */
		unsigned hit = (unsigned)_mm_movemask_epi8(
			_mm_cmpeq_epi8(_mm_subs_epu8(lv, v), zero));
		if (hit)
			return j + (uint32_t)__builtin_ctz(hit);
	}
#endif
	while (j < end && below[j] < level)
		j++;
	return j;
}

/* The group of ch's list entry j, alive, with its candidates alive that
 * cross ch (0: none; the entry is dead for good). */
static uint16_t entry_crossing(const struct crossings *c,
			       const struct mllf *m, uint32_t ch, uint32_t j)
{
	uint32_t x = m->inv[j];

	return entry_ranks(c, inv_lookup(c, m, x, ch)) &
	       m->gs[x >> m->place_bits].alive;
}

/* Group g's destination switch, as its rank among the switches with CAs
 * (groups go by destination, per_dest to a destination; a CA pair's
 * group is its switch pair's, pair[g]). */
static uint32_t dest_rank(const uint32_t *pair, uint32_t per_dest,
			  uint32_t g)
{
	return (pair ? pair[g] : g) / per_dest;
}

static uint32_t dest_of(const struct mllf *m, uint32_t g)
{
	return dest_rank(m->pair, m->per_dest, g);
}

/* What a visit does with an entry of its channel's list, in the high
 * half of scan_entry's value; its candidates crossing in the low half. */
enum scan_verdict {
	SCAN_GONE,      /* qualifies no more: leaves the list */
	SCAN_DROP,      /* qualifies at the visit's level: loses `crossing` */
	SCAN_KEEP,      /* qualifies, with fewer candidates left: stays */
};

/* A pass over ch's list at level `level`: entry j's verdict, as
 * crossing | verdict << 16.  It reads only the entry, its group's
 * state and ranks; a visit's drops change only the state of the group
 * dropped, which a channel's list names once, so an entry's verdict is
 * the same before and after the drops of the entries before it.  For a
 * group to drop, its entries are fetched: the drop reads them all. */
static uint32_t scan_entry(const struct crossings *c, const struct mllf *m,
			   uint32_t ch, unsigned level, uint32_t j)
{
	uint32_t g = m->inv[j] >> m->place_bits;
	uint16_t crossing = entry_crossing(c, m, ch, j);
	const struct gstate *b = &m->gs[g];

	if (!qualifies(crossing, b->alive))
		return crossing | (uint32_t)SCAN_GONE << 16; /* nor ever */
	if (b->left != level)
		return crossing | (uint32_t)SCAN_KEEP << 16;
	/* The cache lines of the group's entries (their ranks), from the
	 * line its first entry is on, at most DROP_LINES: a group crosses 43
	 * channels on average at 1024 switches, three or four lines; two
	 * lines from its first entry (before) left the drop to miss on the
	 * rest, and most-loaded-link-first took 10% to 12% longer.  (Above
	 * 65536 channels an entry's channel is in an array of its own, which
	 * is not fetched.)  Written here, not in a function of their own: GCC
	 * drops a call to a function of prefetches alone (it has no effect),
	 * and did, silently. */
	{
		uint32_t n = b->count < 64 * DROP_LINES ? b->count :
			     64 * DROP_LINES; /* 2 or 4 bytes an entry */
		uintptr_t at = (uintptr_t)entry_ranks_at(c, b->first) &
			       ~(uintptr_t)63;
		uintptr_t to = (uintptr_t)entry_ranks_at(c, b->first + n);
		for (unsigned line = 0; line < DROP_LINES && at < to;
		     line++, at += 64)
			__builtin_prefetch((const void *)at);
	}
	return crossing | (uint32_t)SCAN_DROP << 16;
}

/* One pass of the visit of ch at `level` (below): returns the groups it
 * dropped, *stopped when it stopped short of the list's end.  Entries are
 * read only where their below is at least the level: a group read with
 * fewer candidates left is kept, its below lowered to them; one that
 * qualifies no more (all its candidates alive cross ch, or none; it
 * never will again) leaves the list, as does a group dropped: its below
 * becomes 0, under every level.  Lists are not compacted: the passes
 * skip 16 entries at a time (next_read), and moving the entries that
 * stay cost as much as that saved.  Entries are judged VERDICTS_AHEAD
 * reads before they are acted on (scan_entry: the same verdicts), so
 * that the entries of a group to drop are in the cache when its drop
 * reads them. */
static uint32_t relieve_at(const struct crossings *c, struct mllf *m,
			   uint32_t ch, unsigned level, bool *stopped)
{
	uint32_t end = m->inv_first[ch + 1], next;
	uint32_t dropped = 0, last_dest = 0;
	/* the entries read, in list order: found (their states fetched),
	 * fetched (their ranks too), judged and acted on, counted from the
	 * pass's start; the k-th at read[k % READ_RING] */
	uint32_t read[READ_RING], verdict[READ_RING];
	uint32_t found = 0, fetched = 0, judged = 0, acted = 0;

	*stopped = false;
	next = !m->exhaustive && m->resume_level[ch] == level ?
	       m->resume_pos[ch] : m->inv_first[ch];
	m->resume_level[ch] = 0;
	for (;;) {
		uint32_t at, s, lim;
		while (found - acted < READ_AHEAD &&
		       (next = next_read(m->below, level, next, end)) < end) {
			read[found++ % READ_RING] = next;
			__builtin_prefetch(&m->gs[m->inv[next++] >>
						  m->place_bits]);
		}
		lim = next >= end ? found : found - SCAN_AHEAD;
		for (; fetched < found && (int32_t)(lim - fetched) > 0;
		     fetched++)
			__builtin_prefetch(entry_ranks_at(c, inv_place(m,
					m->inv[read[fetched % READ_RING]])));
		lim = next >= end ? found : found - 2 * SCAN_AHEAD;
		for (; judged < fetched && (int32_t)(lim - judged) > 0;
		     judged++)
			verdict[judged % READ_RING] = scan_entry(c, m, ch,
					level, read[judged % READ_RING]);
		if (acted == judged)
			break;
		at = read[acted % READ_RING];
		s = verdict[acted++ % READ_RING];
		if (s >> 16 == SCAN_DROP) {
			uint32_t g = m->inv[at] >> m->place_bits;
			uint32_t d = m->whole_destinations ? dest_of(m, g) : 0;
			if (!(m->whole_destinations && dropped &&
			      d == last_dest) && !near_heaviest(m, ch)) {
				m->resume_level[ch] = level;
				m->resume_pos[ch] = at;
				*stopped = true;
				break;
			}
			drop_crossing(c, m, g, (uint16_t)s);
			last_dest = d;
			dropped++;
		}
		/* kept: read again at its group's level; else gone for good */
		m->below[at] = s >> 16 == SCAN_KEEP ?
			       m->gs[m->inv[at] >> m->place_bits].left : 0;
	}
	return dropped;
}

/* Visits the most loaded channel ch.  The groups qualify that have
 * candidates crossing ch and another not crossing it; of those, the ones
 * with the most candidates left (the most alternatives: the level) lose
 * the crossing candidates, one after the other by group index, while ch
 * stays the most loaded channel or within 1/TOLERANCE of its load: pairs
 * alike (the CA pairs of one switch pair) part ways, and one visit serves
 * many steps.  The level is found by passes down from ch's ceiling: a
 * pass that drops none has read every group of its level and lowered
 * their below, and lowers the ceiling.  A group never comes to qualify
 * and its candidates left only fall, so no group qualifies above the
 * ceiling.  Returns 0 when no group qualifies: ch is exhausted (groups
 * only lose candidates, so it stays so); 1 after dropping; -1 when a pass
 * stopped before its first drop (a bug: ch is the heaviest channel, and
 * going a level down would change the selection silently).
 *
 * A visit that stops resumes there at the next visit of ch if the level
 * is the same (the ceiling stays there): the groups qualifying at that
 * level are those after the resume position (those before it at the
 * level were dropped, fell below it or left the list).  Else a pass
 * starts at the list's first entry.
 *
 * In parts (m->whole_destinations), a visit past its tolerance still drops
 * the groups of the destination it last dropped for that follow in the
 * list (its groups are consecutive there): see "the selection in parts". */
static int relieve_channel(const struct crossings *c, struct mllf *m,
			   uint32_t ch)
{
	for (unsigned level = m->ceiling[ch]; level > 1; level--) {
		bool stopped;
		if (relieve_at(c, m, ch, level, &stopped)) {
			m->ceiling[ch] = (uint8_t)(stopped ? level : level - 1);
			return 1;
		}
		if (stopped)
			return -1;
	}
	m->ceiling[ch] = 1;
	return 0;
}

static void free_mllf(struct mllf *m)
{
	free(m->heap);
	free(m->heap_pos);
	free(m->ceiling);
	free(m->cl);
	free(m->inv_first);
	free(m->inv);
	free(m->below);
	free(m->resume_pos);
	free(m->resume_level);
}

/* The entries of all groups (counting those shared, per CA, once per
 * group). */
static uint64_t count_entries(const struct crossings *c, uint32_t g0,
			      uint32_t g1)
{
	uint64_t n = 0;
	uint32_t first, end;

	for (uint32_t g = g0; g < g1; g++) {
		group_entries(c, g, &first, &end);
		n += end - first;
	}
	return n;
}

/* Bits enough for 0 .. n - 1 (at least 1). */
static unsigned bits_for(uint32_t n)
{
	unsigned b = 1;

	if (n <= 1)
		return 1;
	while (b < 32 && (n - 1) >> b)
		b++;
	return b;
}

/* ---- the selection in parts ------------------------------------------ */

/* Most-loaded-link-first is one greedy sequence: each drop reads the
 * loads the one before it left, so it stays on one core (7-9 s of colorl's
 * 10-13 s at 1024 switches / 16384 CAs).  In parts it spreads:
 *   - the groups of destination switches p, p + parts, p + 2 parts, ..
 *     (by rank among switches with CAs) form part p, with its own
 *     inverted lists, heap and loads;
 *   - each part runs the sequence above on its own groups for an epoch of
 *     EPOCH_VISITS visits; then the parts' own loads are summed, and every
 *     part sees them all again (share_loads);
 *   - within an epoch a part sees its own changes as they happen and takes
 *     the others to change alike (struct mllf, scale: a change of its own
 *     load on a channel moves the load it sees by the change times the
 *     channel's load over its own, at most times the parts), so that the
 *     parts together relieve a channel about as much as one sequence
 *     would, not once each;
 *   - a visit that drops a group of a destination switch drops the rest
 *     of that destination's groups qualifying at its level too, even past
 *     the tolerance: paths to one destination that avoid the channel
 *     together split less, and need fewer LIDs.  Without it two parts
 *     needed 2% to 3% more CA LIDs than one sequence on random fabrics of
 *     256 to 1024 switches; with it 2% to 3% fewer at 1024, at a max link
 *     load between 3.7% lower and 1.7% higher (BENCHMARKS.md).
 * The parts of an epoch share nothing they write (a group, its state and
 * its lists are its part's; the loads of the others are read only between
 * epochs), so they run on the workers, and the selection depends on the
 * fabric alone.  A channel leaves a part's heap when no group of that part
 * qualifies there: a part relieves the heaviest channel it can.  With one
 * part all of this is off and the sequence is exactly the paper's. */

/* Visits of most-loaded-link-first between two questions to
 * o->workers_now (is the selection still wanted?), with one part. */
#define STOP_EVERY 4096u

#define AUTO_PARTS_FROM (UINT64_C(1) << 18) /* switch pairs: 513 switches */
#define BATCH_GROUPS (UINT64_C(3) << 19) /* switch pairs a batch at most,
					  * by default: 1.5 x 2^20, 1254
					  * switches' in one */
#define AUTO_PARTS   2u
#define MAX_PARTS    8u
#define EPOCH_VISITS 256u

struct selection {
	unsigned parts;
	struct mllf *part;
	struct gstate *gs;      /* per group, shared: each its part's */
	uint32_t per_dest;      /* groups per destination switch, in order */
	uint32_t g0, g1;        /* the batch's groups (paths.c, "batches") */
	const uint64_t *fixed;  /* NULL, or per channel: the load of the
				 * batches before, their paths chosen */
	const struct crossings *c;
	struct work *w;
};

/* part_epoch's failures (bugs), what ibr_parallel hands back */
enum part_failure {
	PART_LEFT_SEVERAL = 1,  /* no channel left, groups with several */
	PART_STOPPED_FIRST = 2, /* a visit stopped before its first drop */
};

/* o->parts, or by the switch pairs with CAs (with CA pairs too: the
 * fabric's size, not the units', decides). */
static unsigned part_count(const struct work *w)
{
	uint64_t pairs = (uint64_t)w->hosts * (w->hosts ? w->hosts - 1 : 0);
	unsigned n = w->o->parts;

	if (n == 0)
		n = pairs < AUTO_PARTS_FROM ? 1 : AUTO_PARTS;
	return n > MAX_PARTS ? MAX_PARTS : n;
}

/* Group g's part: its destination switch's rank, mod the parts. */
static unsigned part_of(const struct selection *s, uint32_t g)
{
	return s->parts == 1 ? 0 :
	       dest_rank(s->c->pair, s->per_dest, g) % s->parts;
}

/* Part p's own state: its groups' states, loads (into own, or load with
 * one part and no batch to come), inverted lists and their ceilings; its
 * heap waits for the loads of all parts (start_heap). */
static int part_init(void *arg, unsigned p, unsigned worker)
{
	struct selection *s = arg;
	const struct crossings *c = s->c;
	struct mllf *m = &s->part[p];
	uint32_t C = s->w->C ? s->w->C : 1;
	uint64_t entries = 0;

	(void)worker;
	m->cl = aligned_alloc(64, ((size_t)C * sizeof(*m->cl) + 63) &
			      ~(size_t)63);
	m->in_parts = s->parts > 1;
	m->inv_first = malloc(((size_t)C + 1) * sizeof(uint32_t));
	m->ceiling = calloc(C, 1);
	m->heap = malloc(C * sizeof(uint32_t));
	m->heap_pos = malloc(C * sizeof(uint32_t));
	m->resume_pos = calloc(C, sizeof(uint32_t));
	m->resume_level = calloc(C, sizeof(uint32_t));
	if (!m->cl ||
	    !m->inv_first || !m->ceiling || !m->heap || !m->heap_pos ||
	    !m->resume_pos || !m->resume_level)
		return -1;
	memset(m->cl, 0, (size_t)C * sizeof(*m->cl));
	memset(m->inv_first, 0, ((size_t)C + 1) * sizeof(uint32_t));
	m->multi = 0;
	for (uint32_t g = s->g0; g < s->g1; g++) {
		uint32_t first, end;
		uint64_t sh;
		if (part_of(s, g) != p)
			continue;
		group_entries(c, g, &first, &end);
		m->gs[g] = (struct gstate){ first, c->flows[g],
			(uint16_t)((1u << c->ncand[g]) - 1), c->ncand[g],
			(uint16_t)(end - first < GS_MANY ? end - first :
				   GS_MANY) };
		m->multi += c->ncand[g] > 1;
		sh = share(m, &m->gs[g]);
		for (uint32_t e = first; e < end; e++) {
			uint16_t ranks = entry_ranks(c, e);
			uint32_t ch = entry_chan(c, e);
			*(m->in_parts ? &m->cl[ch].own : &m->cl[ch].load) +=
				ones(ranks) * sh;
			/* a group that does not qualify at ch now never
			 * will: not listed */
			if (!qualifies(ranks, m->gs[g].alive))
				continue;
			m->inv_first[ch + 1]++;
			entries++;
			if (m->ceiling[ch] < c->ncand[g])
				m->ceiling[ch] = c->ncand[g];
		}
	}
	/* channel -> this part's groups crossing it, in group order */
	m->inv = malloc((entries ? entries : 1) * sizeof(uint32_t));
	m->below = malloc(entries ? entries : 1);
	if (!m->inv || !m->below)
		return -1;
	if (!m->in_parts && s->fixed)
		for (uint32_t ch = 0; ch < s->w->C; ch++)
			m->cl[ch].load += s->fixed[ch];
	for (uint32_t ch = 0; ch < s->w->C; ch++)
		m->inv_first[ch + 1] += m->inv_first[ch];
	for (uint32_t g = s->g0; g < s->g1; g++) {
		uint32_t first, end;
		if (part_of(s, g) != p)
			continue;
		group_entries(c, g, &first, &end);
		for (uint32_t e = first; e < end; e++) {
			uint32_t at;
			if (!qualifies(entry_ranks(c, e), m->gs[g].alive))
				continue;
			at = m->inv_first[entry_chan(c, e)]++;
			m->inv[at] = inv_entry(m, g, e - first);
			m->below[at] = c->ncand[g];
		}
	}
	/* the fill moved every start to the next channel's */
	for (uint32_t ch = s->w->C; ch > 0; ch--)
		m->inv_first[ch] = m->inv_first[ch - 1];
	m->inv_first[0] = 0;
	return 0;
}

/* Every part sees the loads of all (the sum of their own), keys equal to
 * them, its heap in order again. */
static void share_loads(struct selection *s)
{
	uint32_t C = s->w->C;

	if (s->parts == 1)
		return;
	for (uint32_t ch = 0; ch < C; ch++) {
		uint64_t t = 0, fixed = s->fixed ? s->fixed[ch] : 0;
		for (unsigned p = 0; p < s->parts; p++)
			t += s->part[p].cl[ch].own;
		for (unsigned p = 0; p < s->parts; p++) {
			struct chan_load *l = &s->part[p].cl[ch];
			uint64_t own = l->own;
			l->load = l->key = t + fixed;
			l->scale = own == 0 || t / own >= s->parts ?
				       s->parts * SCALE_ONE :
				       (uint32_t)((unsigned __int128)t *
						  SCALE_ONE / own);
		}
	}
	for (unsigned p = 0; p < s->parts; p++) {
		struct mllf *m = &s->part[p];
		for (uint32_t i = m->heap_len / 2; i-- > 0;)
			heap_down(m, i);
	}
}

/* Part p's heap of every channel, once the loads are shared. */
static void start_heap(struct mllf *m, uint32_t C)
{
	for (uint32_t ch = 0; ch < C; ch++)
		m->cl[ch].key = m->cl[ch].load;
	m->heap_len = 0;
	for (uint32_t ch = 0; ch < C; ch++) {
		m->heap[m->heap_len] = ch;
		m->heap_pos[ch] = m->heap_len++;
		heap_fix(m, ch);
	}
}

/* Part p's visits of one epoch (all of them, with one part). */
static int part_epoch(void *arg, unsigned p, unsigned worker)
{
	struct selection *s = arg;
	struct mllf *m = &s->part[p];
	uint32_t visits = s->parts == 1 ? STOP_EVERY : EPOCH_VISITS;

	(void)worker;
	for (uint32_t v = 0; v < visits && m->multi > 0; v++) {
		if (m->heap_len == 0) /* distinct paths differ in a channel */
			return PART_LEFT_SEVERAL;
		int visit;
		settle_top(m);
		visit = relieve_channel(s->c, m, m->heap[0]);
		if (visit < 0)
			return PART_STOPPED_FIRST;
		if (!visit)
			heap_remove_top(m);
	}
	return 0;
}

static uint32_t groups_with_several(const struct selection *s)
{
	uint32_t n = 0;

	for (unsigned p = 0; p < s->parts; p++)
		n += s->part[p].multi;
	return n;
}

static void free_selection(struct selection *s)
{
	for (unsigned p = 0; s->part && p < s->parts; p++)
		free_mllf(&s->part[p]);
	free(s->part);
	free(s->gs);
}

/* Leaves alive exactly one candidate per group of [g0, g1), in s->gs (or
 * IBR_PATHS_STOPPED), over the load `fixed` (NULL: none) of the groups
 * whose paths are chosen. */
static int most_loaded_link_first(struct work *w, const struct crossings *c,
				  struct selection *s, uint32_t g0,
				  uint32_t g1, const uint64_t *fixed)
{
	uint32_t G = c->groups;
	uint64_t entries = count_entries(c, g0, g1);
	unsigned threads = w->o->threads ? w->o->threads : 1, now;

	if (G >= MAX_GROUPS)
		return ibr_error_set(w->err, "paths: %u pairs to select paths "
				     "for, at most %u", G, MAX_GROUPS - 1);
	if (entries > UINT32_MAX)
		return ibr_error_set(w->err, "paths: %llu channels crossed by "
				     "the candidates of all pairs, more than "
				     "a 32-bit index holds (use switch pairs)",
				     (unsigned long long)entries);
	for (uint32_t g = g0; g < g1; g++)
		if (c->ncand[g] > MAX_GROUP_CANDS)
			return ibr_error_set(w->err, "paths: a pair with %u "
					     "candidates, at most %u (a bug)",
					     c->ncand[g], MAX_GROUP_CANDS);
	s->w = w;
	s->c = c;
	s->g0 = g0;
	s->g1 = g1;
	s->fixed = fixed;
	s->parts = part_count(w);
	s->per_dest = w->hosts > 1 ? w->hosts - 1 : 1;
	s->part = calloc(s->parts, sizeof(*s->part));
	s->gs = malloc((G ? G : 1) * sizeof(*s->gs));
	if (!s->part || !s->gs)
		return oom(w, "path selection");
	for (unsigned p = 0; p < s->parts; p++) {
		struct mllf *m = &s->part[p];
		m->gs = s->gs;
		m->whole_destinations = s->parts > 1;
		m->pair = c->pair;
		m->per_dest = s->per_dest;
		m->place_bits = 32 - bits_for(G);
		m->exhaustive = w->o->exhaustive;
		for (uint32_t n = 1; n <= MAX_GROUP_CANDS; n++)
			m->per_candidate[n] = SHARES / n;
	}
	if ((now = workers_now(w, threads)) == 0)
		return IBR_PATHS_STOPPED;
	if (ibr_parallel(now, s->parts, part_init, s))
		return oom(w, "path selection");
	share_loads(s);
	for (unsigned p = 0; p < s->parts; p++)
		start_heap(&s->part[p], w->C);
	while (groups_with_several(s) > 0) {
		int rc;
		if ((now = workers_now(w, threads)) == 0)
			return IBR_PATHS_STOPPED;
		rc = ibr_parallel(now, s->parts, part_epoch, s);
		if (rc == PART_LEFT_SEVERAL)
			return ibr_error_set(w->err, "paths: selection left %u "
					     "pairs with several candidates "
					     "(a bug)", groups_with_several(s));
		if (rc)
			return ibr_error_set(w->err, "paths: a visit of the "
					     "heaviest channel stopped before "
					     "its first drop (a bug)");
		share_loads(s);
	}
	return 0;
}

/* Group of the switch pair (s, d), both with CAs, s != d. */
static uint32_t group_of(const struct work *w, uint32_t s, uint32_t d)
{
	uint32_t rs = w->ca_rank[s], rd = w->ca_rank[d];

	return rd * (w->hosts - 1) + rs - (rs > rd);
}

/* Every unit takes the candidate its group kept (with per-CA groups the
 * group is the unit): its entries with its bit, walked from the source
 * switch.  In two passes over blocks of units on the workers: each unit's
 * length, then (the units' places summed in order) its hops at its
 * place, so the result is the same for any number of workers. */
#define WRITE_BLOCK 4096u       /* units a task of write_selected */

struct writer {
	struct work *w;
	const struct crossings *c;
	const struct gstate *gs;
	uint32_t u0, u1;        /* the units written */
	uint32_t **path;        /* per worker: a path's channels, S */
	uint64_t *candidates;   /* per task */
	bool place;             /* second pass: hops written, else lengths */
};

/* The group whose candidate unit u takes, and that candidate's bit. */
static uint32_t unit_group(const struct writer *wr, uint32_t u,
			   uint16_t *bit)
{
	const struct work *w = wr->w;
	uint32_t g = wr->c->pair ? u :
		     group_of(w, ibr_unit_src_switch(w->f, w->out, u),
			      ibr_unit_dst_switch(w->f, w->out, u));

	*bit = (uint16_t)(wr->gs[g].alive & -wr->gs[g].alive);
	return g;
}

static int write_block(void *arg, unsigned t, unsigned worker)
{
	const struct writer *wr = arg;
	struct work *w = wr->w;
	struct ibr_paths *p = w->out;
	uint32_t u0 = wr->u0 + t * WRITE_BLOCK;
	uint32_t u1 = wr->u1 - u0 > WRITE_BLOCK ? u0 + WRITE_BLOCK : wr->u1;
	uint32_t *path = wr->path[worker];

	for (uint32_t u = u0; u < u1; u++) {
		uint32_t s = ibr_unit_src_switch(w->f, p, u), len = 0, at;
		uint32_t first, end;
		uint16_t bit;
		uint32_t g = unit_group(wr, u, &bit);
		group_entries(wr->c, g, &first, &end);
		if (!wr->place) {
			for (uint32_t e = first; e < end; e++)
				len += (entry_ranks(wr->c, e) & bit) != 0;
			p->first[u + 1] = len; /* summed into places after */
			wr->candidates[t] += wr->c->ncand[g];
			continue;
		}
		for (uint32_t e = first; e < end; e++)
			if (entry_ranks(wr->c, e) & bit)
				path[len++] = entry_chan(wr->c, e);
		at = p->first[u];
		for (uint32_t h = 0; h < len; h++) {
			/* the channel leaving s comes next */
			uint32_t i = h, ch;
			while (w->chan_sw[path[i]] != s)
				i++;
			ch = path[i];
			path[i] = path[h];
			set_hop(w, at + h, ch);
			s = w->f->sw_adj[ch].peer;
		}
	}
	return 0;
}

/* One pass of write_block over every block, on the workers there are
 * now (IBR_PATHS_STOPPED: none). */
static int write_pass(struct work *w, struct writer *wr, unsigned workers,
		      unsigned tasks, bool place)
{
	unsigned now = workers_now(w, workers);

	if (now == 0)
		return IBR_PATHS_STOPPED;
	wr->place = place;
	return ibr_parallel(now, tasks, write_block, wr);
}

/* Units [u0, u1) take their groups' paths, after the hops of the units
 * before them. */
static int write_selected(struct work *w, const struct crossings *c,
			  const struct gstate *gs, uint32_t u0, uint32_t u1)
{
	struct ibr_paths *p = w->out;
	unsigned tasks = (u1 - u0 + WRITE_BLOCK - 1) / WRITE_BLOCK;
	unsigned workers = ibr_parallel_workers(w->o->threads, tasks);
	struct writer wr = { .w = w, .c = c, .gs = gs, .u0 = u0, .u1 = u1 };
	uint64_t hops = w->hops;
	int rc = -1;

	wr.path = calloc(workers, sizeof(*wr.path));
	wr.candidates = calloc(tasks ? tasks : 1, sizeof(uint64_t));
	if (!wr.path || !wr.candidates) {
		oom(w, "the selected paths");
		goto out;
	}
	for (unsigned i = 0; i < workers; i++)
		if (!(wr.path[i] = malloc((w->S ? w->S : 1) *
					  sizeof(uint32_t)))) {
			oom(w, "the selected paths");
			goto out;
		}
	p->first[u0] = w->hops;
	if ((rc = write_pass(w, &wr, workers, tasks, false)) != 0)
		goto out;
	rc = -1;
	/* the lengths, summed in unit order: the places */
	for (uint32_t u = u0; u < u1; u++) {
		hops += p->first[u + 1];
		if (hops > UINT32_MAX) {
			ibr_error_set(w->err, "paths: more than 2^32 hops");
			goto out;
		}
		p->first[u + 1] = (uint32_t)hops;
	}
	for (unsigned t = 0; t < tasks; t++)
		p->candidates += wr.candidates[t];
	if (reserve_hops(w, (uint32_t)(hops - w->hops)))
		goto out;
	w->hops = (uint32_t)hops;
	rc = write_pass(w, &wr, workers, tasks, true);
out:
	for (unsigned i = 0; wr.path && i < workers; i++)
		free(wr.path[i]);
	free(wr.path);
	free(wr.candidates);
	return rc;
}

/* CA-pair groups (per_ca): every unit a group of its own, flows 1, whose
 * candidates are those of its switch pair (shared entries: pair); those
 * of units [u0, u1) set, the batch's. */
static int expand_per_ca(struct work *w, const struct crossings *sw,
			 struct crossings *ca, uint32_t u0, uint32_t u1)
{
	const struct ibr_paths *p = w->out;
	uint32_t n = p->num_units;
	uint8_t *ncand = ca->ncand;
	uint32_t *flows = ca->flows, *pair = ca->pair;

	if (!pair) {
		ncand = malloc(n ? n : 1);
		flows = malloc((n ? n : 1) * sizeof(uint32_t));
		pair = malloc((n ? n : 1) * sizeof(uint32_t));
		if (!ncand || !flows || !pair) {
			free(ncand);
			free(flows);
			free(pair);
			return oom(w, "CA pairs' candidates");
		}
	}
	*ca = *sw;      /* the entries, shared (sw's growth moves them: anew) */
	ca->groups = n;
	ca->ncand = ncand;
	ca->flows = flows;
	ca->pair = pair;
	for (uint32_t u = u0; u < u1; u++) {
		uint32_t g = group_of(w, ibr_unit_src_switch(w->f, p, u),
				      ibr_unit_dst_switch(w->f, p, u));
		ca->pair[u] = g;
		ca->ncand[u] = sw->ncand[g];
		ca->flows[u] = 1;
	}
	return 0;
}

/* ---- the selection in batches ---------------------------------------- */

/* The candidates of every pair are 8 bytes a (pair, channel) entry: at
 * 2048 switches / 32768 CAs about 235 million entries, 1.9 GB, far more
 * than the rest of colorl.  In batches:
 *   - the destination switches with CAs go in B consecutive runs of their
 *     ranks, batch b the ranks [b H / B, (b + 1) H / B); their groups,
 *     and their units, are consecutive (both go by destination);
 *   - batch by batch, the candidate search finds the batch's candidates
 *     alone, most-loaded-link-first (in its parts) selects among them
 *     over the load of the paths the batches before chose (`fixed`, exact:
 *     every group there has one path left), and the batch's units take
 *     their paths; then its candidates go;
 *   - so one batch's candidates are held, not all.  Each batch sees the
 *     whole load of those before it, but nothing of those after it, and
 *     cannot move their paths: the selected paths' max link load was
 *     0% to 6% higher than in one batch on random fabrics of 1024 and 2048
 *     switches (BENCHMARKS.md; taking the batches after it to load as
 *     this one did, or as its candidates did at its start, was worse).
 * B is o->batches, else one per BATCH_GROUPS switch pairs (1 up to 1254
 * switches with CAs: there the selection is the one it was; 3 at 2048),
 * at most one destination switch each.  The batches depend on the
 * fabric alone, so the paths are the same for any thread count. */

/* Units up to the first whose destination switch's rank is r or more,
 * from u. */
static uint32_t units_before_rank(const struct work *w, uint32_t u,
				  uint32_t r)
{
	const struct ibr_paths *p = w->out;

	while (u < p->num_units &&
	       w->ca_rank[ibr_unit_dst_switch(w->f, p, u)] < r)
		u++;
	return u;
}

/* o->batches, or by the switch pairs with CAs; at most a destination
 * switch each. */
static uint32_t batch_count(const struct work *w)
{
	uint64_t pairs = (uint64_t)w->hosts * (w->hosts ? w->hosts - 1 : 0);
	uint64_t n = w->o->batches;

	if (n == 0)
		n = (pairs + BATCH_GROUPS - 1) / BATCH_GROUPS;
	if (n > w->hosts)
		n = w->hosts;
	return n ? (uint32_t)n : 1;
}

static int path_selection(struct work *w)
{
	uint64_t groups = (uint64_t)w->hosts * (w->hosts ? w->hosts - 1 : 0);
	uint32_t batches = batch_count(w), u0 = 0;
	struct crossings c = { 0 }, ca = { 0 };
	uint64_t *fixed = NULL;
	int rc = -1;

	c.groups = (uint32_t)groups; /* <= the units, checked */
	c.ncand = malloc(groups ? groups : 1);
	c.flows = malloc((groups ? groups : 1) * sizeof(uint32_t));
	c.first = calloc(groups + 1, sizeof(uint32_t));
	if (batches > 1)
		fixed = calloc(w->C ? w->C : 1, sizeof(uint64_t));
	if (!c.ncand || !c.flows || !c.first || (batches > 1 && !fixed)) {
		oom(w, "switch pairs");
		goto out;
	}
	w->out->batches = batches;
	for (uint32_t b = 0; b < batches; b++) {
		uint32_t r0 = (uint32_t)((uint64_t)b * w->hosts / batches);
		uint32_t r1 = (uint32_t)((uint64_t)(b + 1) * w->hosts / batches);
		uint32_t g0 = r0 * (w->hosts - 1), g1 = r1 * (w->hosts - 1);
		uint32_t u1 = units_before_rank(w, u0, r1);
		const struct crossings *sel;
		struct selection m = { 0 };
		double t0 = ibr_now_ms();
		/* the batch's entries only, from the start of the arrays */
		c.num = 0;
		c.first[g0] = 0;
		rc = find_candidates(w, &c, r0, r1);
		w->out->search_ms += ibr_now_ms() - t0;
		t0 = ibr_now_ms();
		if (rc == 0) {
			rc = -1;
			if (w->o->per_ca && expand_per_ca(w, &c, &ca, u0, u1))
				goto out;
			/* the units' own groups: the CA pairs' copies, or
			 * the switch pairs (the units themselves) */
			sel = w->o->per_ca ? &ca : &c;
			rc = w->o->per_ca ?
			     most_loaded_link_first(w, sel, &m, u0, u1, fixed) :
			     most_loaded_link_first(w, sel, &m, g0, g1, fixed);
			if (rc == 0)
				rc = write_selected(w, sel, m.gs, u0, u1);
			/* every group of the batch has one path: the loads
			 * are exact, for the next batch to build on */
			if (rc == 0 && fixed)
				for (uint32_t ch = 0; ch < w->C; ch++)
					fixed[ch] = m.part[0].cl[ch].load;
		}
		free_selection(&m);
		w->out->select_ms += ibr_now_ms() - t0;
		if (rc)
			goto out;
		u0 = u1;
	}
	rc = 0;
out:
	free(fixed);
	crossings_free(&ca);
	crossings_free(&c);
	return rc;
}

/* ---- entry -------------------------------------------------------------- */

static int init_work(struct work *w)
{
	const struct ibr_fabric *f = w->f;

	w->C = f->sw_adj_start[w->S];
	w->dist_of = IBR_NONE;
	if ((uint64_t)2 * w->S > KWALK_MAX_LEN)
		return ibr_error_set(w->err, "paths: %u switches, at most %u",
				     w->S, KWALK_MAX_LEN / 2);
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
	if (ibr_up_links_build(f, w->link_up, &w->up))
		return oom(w, "distances");
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
	ibr_up_links_free(&w->up);
	free(w->chan_sw);
	free(w->ca_rank);
	free(w->down_dist);
	free(w->legal_dist);
	free(w->queue);
	ibr_climb_free(&w->climb);
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
	if (init_work(&w) || ibr_climb_build(f, ud, &w.climb, err) ||
	    make_units(&w) || reserve_hops(&w, 1))
		goto out;
	if (o->scheme == IBR_PATHS_SELECTION) {
		rc = path_selection(&w);
	} else {
		double t0 = ibr_now_ms();
		rc = shortest_widest(&w);
		out->select_ms = ibr_now_ms() - t0;
	}
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
