/*
 * updown.h - the up/down orientation of a fabric's switch graph.
 *
 * Ranks are BFS distances from a root SET (one switch, the switches of a
 * root_guid_file, or the top level of a fat tree): every root has rank 0,
 * every other switch the distance to its nearest root.  A link between
 * switches a and b points up from a to b when rank(b) < rank(a), or when
 * the ranks are equal and tie(b) < tie(a): a switch's LID
 * (ncm-ib-configuration-model §3.3), except among roots, which are
 * numbered by (the lowest root LID of their part, their own LID), a part
 * being the switches that links between a root and a switch that is not
 * one join (a Dragonfly+ group: its spines and leaves).  So a link
 * between roots of two parts points up towards the part with the lower
 * lowest root LID, whatever the LIDs of its two ends.  The tie depends on
 * the fabric and the root set only: whoever rebuilds the orientation
 * from a result's roots gets it.  Links to CAs point down to the CA.
 * Any such ranking with a total tie order is acyclic, so every legal
 * up*-down* walk stays deadlock-free whatever the set; parallel links
 * between two switches share one direction.  With one root the root is
 * the only sink; with several, every root without a lower-tie root
 * beside it is a sink, and a legal route
 * from s to d exists exactly when some sink is reachable going up from both
 * (ibr_climb_meet()): connectivity, not deadlock-freedom, is what a root
 * set can break, and ibr_ctx_init() checks it before routing.
 *
 * `order` lists the switches by (rank, tie): every up link goes from a later
 * switch to an earlier one, so it is a topological order of the up graph
 * that engines sweep instead of sorting per destination.
 *
 * One orientation is computed per routing run and shared by every engine of
 * that run: the hybrid's deadlock-freedom rests on it.
 */
#ifndef IBROUTING_UPDOWN_H
#define IBROUTING_UPDOWN_H

#include <stdbool.h>
#include <stdint.h>

#include "ibrouting/fabric.h"

enum ibr_root_strategy {
	IBR_ROOT_SM,          /* switch the SM is attached to, else lowest LID */
	IBR_ROOT_LOWEST_LID,  /* switch with the lowest LID */
	IBR_ROOT_CENTER,      /* a switch of minimum eccentricity (lowest LID of those) */
	IBR_ROOT_AUTO,        /* the top level of a fat tree or Clos, else center */
};

/* What the plugin and the tool do when a configured root GUID cannot be
 * used (not in the fabric, or not a switch): move to the next link of the
 * root chain, with a warning, or refuse to route. */
enum ibr_root_fallback {
	IBR_ROOT_FALLBACK_NEXT,
	IBR_ROOT_FALLBACK_REFUSE,
};

/* The root chain (roots.h): the set `set` (a root_guid_file's GUIDs) when
 * one of them is a switch, else `guid`, else `strategy`.  Positional
 * initialisers { guid, strategy } keep their meaning. */
struct ibr_root_choice {
	uint64_t guid;                  /* explicit root node GUID, 0 = none */
	enum ibr_root_strategy strategy;
	const uint64_t *set;            /* root set by node GUID, may be NULL */
	uint32_t set_len;
	const char *set_source;         /* names the set in notes, e.g. "root_guid_file F" */
	bool set_unreadable;            /* the set's file could not be read */
	const char *guid_source;        /* names `guid` in notes, e.g. "--root" */
	enum ibr_root_fallback fallback;
	/* after a change: the root set the prior tables were routed from
	 * (prior.h); auto's single root and center keep it while it serves
	 * (roots.h) */
	const uint64_t *prior_roots;
	uint32_t prior_roots_len;
	/* auto on an irregular fabric: the most central switch, not the
	 * least loaded of the candidates (roots.h), for an engine that does
	 * not balance (engine.h, measures_root false) */
	bool unmeasured;
	unsigned threads;               /* workers for the measure; 0: one */
};

struct ibr_updown {
	uint32_t num_switches;
	uint32_t root;          /* switch index: roots[0] */
	uint32_t *roots;        /* the root set, switch indexes, no repeats */
	uint32_t num_roots;
	uint32_t *rank;         /* per switch index */
	uint32_t *tie;          /* per switch: the order among equal ranks */
	uint32_t *order;        /* switch indexes by (rank, tie) */
	uint32_t *position;     /* inverse of order */
};

/* Chooses the root switch.  Fails when an explicit GUID is not a switch of
 * the fabric (callers that follow a root chain, the plugin and the tool,
 * ask ibr_root_guid_unusable() first and move to their next link). */
int ibr_choose_root(const struct ibr_fabric *f,
		    const struct ibr_root_choice *choice, uint32_t *root,
		    struct ibr_error *err);

/* Why GUID cannot be the root of f ("is not in the fabric", "is a CA, not
 * a switch"); NULL when it can: it names a switch of f. */
const char *ibr_root_guid_unusable(const struct ibr_fabric *f, uint64_t guid);

int ibr_updown_build(const struct ibr_fabric *f, uint32_t root,
		     struct ibr_updown *ud, struct ibr_error *err);
/* The orientation from a root set (n >= 1 distinct switch indexes). */
int ibr_updown_build_set(const struct ibr_fabric *f, const uint32_t *roots,
			 uint32_t n, struct ibr_updown *ud,
			 struct ibr_error *err);
void ibr_updown_free(struct ibr_updown *ud);

/* rank[s]: BFS distance over inter-switch links from the nearest of
 * srcs[0 .. n) (UINT32_MAX if unreached); queue[] (num_switches entries)
 * is scratch.  Returns the largest distance.  O(E). */
uint32_t ibr_bfs_from(const struct ibr_fabric *f, const uint32_t *srcs,
		      uint32_t n, uint32_t *rank, uint32_t *queue);

/* True when the link from switch a to its neighbour b points up. */
static inline bool ibr_link_is_up(const struct ibr_fabric *f,
				  const struct ibr_updown *ud,
				  uint32_t a, uint32_t b)
{
	(void)f;
	if (ud->rank[b] != ud->rank[a])
		return ud->rank[b] < ud->rank[a];
	return ud->tie[b] < ud->tie[a];
}

/* ---- legal distances to one destination switch ----------------------- */

#define IBR_FAR UINT32_MAX   /* no legal route */

/* link_up[i] = 1 when sw_adj entry i points up (one byte per entry). */
void ibr_updown_link_flags(const struct ibr_fabric *f,
			   const struct ibr_updown *ud, uint8_t *link_up);

/* Each switch's up links (the sw_adj entries link_up marks), in sw_adj
 * order: the sweeps made once per destination read these, where a scan
 * of sw_adj would test and skip every down link (on a random fabric about
 * half of them).  at[start[s] .. start[s + 1]) are switch s's. */
struct ibr_up_link {
	uint32_t link;          /* the sw_adj entry */
	uint32_t peer;          /* the switch it leads up to */
	uint8_t port;           /* its port at the switch */
};

struct ibr_up_links {
	uint32_t *start;        /* num_switches + 1 */
	struct ibr_up_link *at;
};

/* up from link_up; -1 when out of memory (up then holds nothing to free
 * but what ibr_up_links_free frees). */
int ibr_up_links_build(const struct ibr_fabric *f, const uint8_t *link_up,
		       struct ibr_up_links *up);
void ibr_up_links_free(struct ibr_up_links *up);

/* down_dist[s]: links of the shortest all-down route from switch s to
 * switch d, IBR_FAR when s has none.  A BFS from d climbing up links;
 * leaves in queue[] (num_switches entries) the switches reached, d first,
 * in BFS order, and returns how many.  O(E). */
uint32_t ibr_down_distances(const struct ibr_up_links *up,
			    uint32_t num_switches, uint32_t d,
			    uint32_t *down_dist, uint32_t *queue);

/* legal_dist[s]: links of the shortest legal route (up links, then down
 * links) from s to d: min(down_dist[s], 1 + legal_dist of an up
 * neighbour), swept in `order` so up neighbours come first.  O(E). */
void ibr_legal_distances(const struct ibr_up_links *up,
			 const struct ibr_updown *ud,
			 const uint32_t *down_dist, uint32_t *legal_dist);

/* ---- which switches can reach which, legally ------------------------- */

/* climb[s]: the sinks switch s reaches going up only, one bit per sink.
 * A legal route from s to d exists iff climb[s] and climb[d] share a bit:
 * s climbs to that sink and the sink descends to d (the sink climbs to
 * nothing but itself, so d climbs to it).  With one sink every pair
 * meets.  O(E * sinks / 64) to build. */
struct ibr_climb {
	uint32_t words;         /* per switch */
	uint32_t num_sinks;
	uint64_t *bits;         /* num_switches * words */
	uint32_t *sink_bit;     /* per switch: its bit, IBR_NONE if no sink */
};

int ibr_climb_build(const struct ibr_fabric *f, const struct ibr_updown *ud,
		    struct ibr_climb *cl, struct ibr_error *err);
void ibr_climb_free(struct ibr_climb *cl);

static inline bool ibr_climb_meet(const struct ibr_climb *cl, uint32_t a,
				  uint32_t b)
{
	const uint64_t *x = cl->bits + (size_t)a * cl->words;
	const uint64_t *y = cl->bits + (size_t)b * cl->words;

	for (uint32_t i = 0; i < cl->words; i++)
		if (x[i] & y[i])
			return true;
	return false;
}

const char *ibr_root_strategy_name(enum ibr_root_strategy s);
int ibr_root_strategy_parse(const char *name, enum ibr_root_strategy *s);
const char *ibr_root_fallback_name(enum ibr_root_fallback fb);
/* "next" or "refuse"; -1 for anything else. */
int ibr_root_fallback_parse(const char *name, enum ibr_root_fallback *fb);

#endif
