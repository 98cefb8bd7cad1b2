/*
 * paths_work.h - what colorl's path algorithms share, private to
 * src/core/engines/colorl: the work of one ibr_paths_compute (struct work,
 * paths.c), the legal walk's states, the candidates packed per group
 * (struct crossings, kpaths.c) and most-loaded-link-first's state
 * (mllf.c).  The design is described at the top of paths.c.
 *
 * Invariants: once init_work has set a struct work up, the algorithms
 * write only its error, the result being built (out, hops, hop_cap) and
 * the distances to the current destination (down_dist, legal_dist,
 * queue, dist_of); a candidate search worker copies it and writes only
 * its own error.  State U(x) is numbered x, D(x) is S + x.
 */
#ifndef IBR_COLORL_PATHS_WORK_H
#define IBR_COLORL_PATHS_WORK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ibrouting/paths.h"

#define KBEST_CAP    1024    /* walks kept per state at most */
/* A walk's length and its place in the next state's list, in 32 bits
 * (kpaths.c, struct kwalk): j below KBEST_CAP. */
#define KWALK_J_BITS 10
#define KWALK_MAX_LEN (UINT32_MAX >> KWALK_J_BITS)

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

int paths_oom(struct work *w, const char *what);
unsigned paths_workers_now(const struct work *w, unsigned most);
int paths_stopped(const struct work *w);
int paths_reserve_hops(struct work *w, uint32_t n);
void paths_distances_to(struct work *w, uint32_t d);
int paths_no_path(struct work *w, uint32_t s, uint32_t d);

static inline uint32_t cas_on(const struct ibr_fabric *f, uint32_t s)
{
	return f->sw_ca_start[s + 1] - f->sw_ca_start[s];
}

static inline uint64_t switch_flows(const struct work *w, uint32_t s,
				    uint32_t d)
{
	return (uint64_t)cas_on(w->f, s) * cas_on(w->f, d);
}

/* Switch s has a legal route to switch d: some sink above both
 * (updown.h).  Under one root, or a root set whose roots all meet, every
 * pair has; otherwise a pair that has none (two roots, or a switch only
 * some roots descend to, with CAs: an aggregation node on a spine) is
 * owed no route and is no unit (paths.h). */
static inline bool routed(const struct work *w, uint32_t s, uint32_t d)
{
	return ibr_climb_meet(&w->climb, s, d);
}

/* Hop h of the result is channel c (room reserved). */
static inline void set_hop(const struct work *w, uint32_t h, uint32_t c)
{
	w->out->hop_sw[h] = w->chan_sw[c];
	w->out->hop_port[h] = w->f->sw_adj[c].port;
}

/* Appends channel c as a hop (room reserved). */
static inline void put_hop(struct work *w, uint32_t c)
{
	set_hop(w, w->hops++, c);
}

/* ---- states ------------------------------------------------------------- */

/* The state channel c leads to from state st, IBR_NONE when illegal
 * (an up channel while descending). */
static inline uint32_t next_state(const struct work *w, uint32_t st, uint32_t c)
{
	uint32_t y = w->f->sw_adj[c].peer;

	if (w->link_up[c])
		return st < w->S ? y : IBR_NONE;
	return w->S + y;
}

static inline uint32_t state_switch(const struct work *w, uint32_t st)
{
	return st < w->S ? st : st - w->S;
}

/* Links of the shortest legal walk from state st to the destination. */
static inline uint32_t state_dist(const struct work *w, uint32_t st)
{
	return st < w->S ? w->legal_dist[st] : w->down_dist[st - w->S];
}

/* The state channel c leads to from st when that keeps the walk legal
 * and minimal, else IBR_NONE. */
static inline uint32_t minimal_step(const struct work *w, uint32_t st,
				    uint32_t c)
{
	uint32_t t = next_state(w, st, c), here = state_dist(w, st);

	if (t == IBR_NONE || state_dist(w, t) == IBR_FAR ||
	    state_dist(w, t) + 1 != here)
		return IBR_NONE;
	return t;
}

/* ---- the candidates ------------------------------------------------- */


/* Every group's candidates, packed (group g = units sharing candidates:
 * switch pairs with CAs, or with per_ca the CA pairs).  A group's
 * candidates are its ranks 0 .. ncand - 1, in the search's order.  Its
 * entries name each channel its candidates cross once, in order of first
 * crossing (by rank, then hop), with the ranks crossing it as a mask.
 * The candidates of a pair share many of their channels, an entry takes 4
 * bytes (6 above 65536 channels) where a hop would take 4 and its
 * inverted entry 4 more, and most-loaded-link-first works per entry, not per hop.
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

static inline uint32_t entry_chan(const struct crossings *x, uint32_t e)
{
	return x->wide ? x->ch32[e] : x->packed[e] & 0xffffu;
}

static inline uint16_t entry_ranks(const struct crossings *x, uint32_t e)
{
	return x->wide ? x->ranks[e] : (uint16_t)(x->packed[e] >> 16);
}

/* Where entry e's ranks are kept, to fetch ahead. */
static inline const void *entry_ranks_at(const struct crossings *x, uint32_t e)
{
	return x->wide ? (const void *)&x->ranks[e] : &x->packed[e];
}

/* Group g's entries: [*first, *end). */
static inline void group_entries(const struct crossings *x, uint32_t g,
			  uint32_t *first, uint32_t *end)
{
	uint32_t p = x->pair ? x->pair[g] : g;

	*first = x->first[p];
	*end = x->first[p + 1];
}

/* Room in x for n more entries (channel ids of w's width). */
void paths_crossings_free(struct crossings *x);
int paths_find_candidates(struct work *w, struct crossings *x,
			  uint32_t rank_lo, uint32_t rank_hi);

int paths_shortest_widest(struct work *w);

/* ---- most-loaded-link-first ---------------------------------------- */

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
	 * (mllf.c, "the selection in parts"); a group's destination is its
	 * switch pair's group (pair, or itself) / per_dest */
	bool whole_destinations;
	const uint32_t *pair;
	uint32_t per_dest;
};

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

int paths_most_loaded_link_first(struct work *w, const struct crossings *c,
				 struct selection *s, uint32_t g0,
				 uint32_t g1, const uint64_t *fixed);
void paths_free_selection(struct selection *s);

#endif
