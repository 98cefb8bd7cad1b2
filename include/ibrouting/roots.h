/*
 * roots.h - which switches are the roots of a routing run: the root chain
 * and the automatic choice, written once for the plugin and the tool.
 *
 * The chain (struct ibr_root_choice, updown.h), tried in this order:
 *   1. a root set by GUID (OpenSM's root_guid_file, read as updn reads
 *      it: every listed switch is a root): the GUIDs that are switches of
 *      the fabric, in the file's order, repeats dropped;
 *   2. one GUID (the plugin's `root` option, the tool's --root);
 *   3. a strategy: auto (the default), sm, lowest-lid, center.
 * A link that names no usable switch (a GUID not in the fabric or of a
 * CA, a file that cannot be read) is passed over with a note naming the
 * GUID and why, for the caller to log; under IBR_ROOT_FALLBACK_REFUSE it
 * fails the resolution instead.  Strategies always find a switch.
 *
 * auto: the roots topology.h recognises: the top level of a fat tree or
 * Clos network, the spines of a Dragonfly+.  On an irregular fabric the
 * root is one switch, chosen by the load it gives (root_load.c): of the
 * IBR_ROOT_CANDIDATES switches of least eccentricity (then distance sum,
 * then LID), the one under which the shortest legal routes load a link
 * least; fewer candidates on large fabrics (a budget of work: 12 at 128
 * switches of degree 8), and none where fewer than half would fit (from
 * about 200 switches): there the centre strategy's switch, unmeasured.  For an engine that does
 * not balance its routes (c->unmeasured: pira, whose routing window comes
 * first) auto takes that first candidate unmeasured.
 * After a change (c->prior_roots: the prior tables were routed from one
 * root), auto's single root and center keep that root while it is a
 * switch of the fabric whose eccentricity is at most one more than the
 * least: the centre moves when a far switch is lost, and a new root turns
 * every route.
 *
 * A root is a sink of the orientation: it reaches only what lies below
 * it.  On a fat tree with a link cut, a top switch above the cut cannot
 * reach the hosts below it, nor they its LID: that is switch traffic
 * only (hosts reach every host through the other roots), and leaving the
 * root out would take its bandwidth from every pod.  So ibr_ctx_init
 *   - leaves out a root that cannot reach the SM's switch going down (the
 *     switches' traps must reach the SM on its host), naming it;
 *   - repairs a set that leaves two switches with hosts without a legal
 *     route between them by leaving out, one at a time, the root whose
 *     absence leaves the fewest such pairs (a host on a root is the
 *     usual cause), naming them; only when no root's absence helps is
 *     the set replaced by its first root alone;
 *   - counts the other (root, host switch) pairs without a route down
 *     (unreached), for a WRN line; the checks exempt exactly the pairs
 *     with no legal route (ibr_climb_meet).
 *
 * Invariant of a resolved set: count >= 1, distinct switch indexes; with
 * auto and root sets they are sorted by LID.
 */
#ifndef IBROUTING_ROOTS_H
#define IBROUTING_ROOTS_H

#include <stdbool.h>
#include <stdint.h>

#include "ibrouting/fabric.h"
#include "ibrouting/topology.h"
#include "ibrouting/updown.h"

#define IBR_ROOT_NOTES 8        /* passed-over links kept with their reason */

struct ibr_root_note {
	uint64_t guid;          /* 0: not about one GUID (a file unread) */
	const char *why;        /* "is not in the fabric", ... */
	const char *source;     /* "root_guid_file /etc/opensm/roots", ... */
};

struct ibr_roots {
	uint32_t *sw;           /* switch indexes */
	uint32_t count;
	char how[160];          /* how they were chosen, for the log */
	struct ibr_root_note passed[IBR_ROOT_NOTES];
	uint32_t num_passed;    /* may exceed IBR_ROOT_NOTES: the rest uncounted */
	char replaced[384];     /* non-empty: roots left out or replaced, and why */
	uint64_t unreached;     /* (root, host switch) pairs with no route down */
	uint32_t roots_unreaching; /* roots with such pairs */
	bool recognised;        /* auto recognised the fabric: */
	struct ibr_topology topology; /* its class and notes (roots moved to sw) */
};

/* Follows the chain; out is freed with ibr_roots_free(), also after a
 * failure.  Errors: refusals under IBR_ROOT_FALLBACK_REFUSE, allocation. */
int ibr_roots_resolve(const struct ibr_fabric *f,
		      const struct ibr_root_choice *c, struct ibr_roots *out,
		      struct ibr_error *err);
void ibr_roots_free(struct ibr_roots *r);

#define IBR_ROOT_CANDIDATES 16

/* auto's measure on an irregular fabric (see the top). */
struct ibr_root_load {
	uint32_t root;          /* the switch chosen */
	uint32_t centre;        /* the first candidate: least eccentricity */
	uint64_t load;          /* its max link load, flows */
	uint64_t centre_load;   /* the first candidate's */
	uint32_t tried;         /* candidates measured; 0: none, the fabric
				 * too large to measure enough of them */
};

/* The candidates measured side by side on at most `threads` workers: the
 * same choice for any count. */
int ibr_roots_least_loaded(const struct ibr_fabric *f, uint32_t max_tried,
			   unsigned threads, struct ibr_root_load *out,
			   struct ibr_error *err);

/* sw[0 .. n) sorted by LID (switch indexes; a LID is a switch's own). */
int ibr_switches_by_lid(const struct ibr_fabric *f, uint32_t *sw, uint32_t n,
			struct ibr_error *err);

/* The switch the SM's port is on or hangs off; IBR_NONE if unknown. */
uint32_t ibr_sm_switch(const struct ibr_fabric *f);

/* How the roots of ud serve the hosts (see the top). */
struct ibr_roots_reach {
	uint32_t kept;            /* roots kept: keep[i] for ud->roots[i] */
	bool hosts_apart;         /* two host switches with no legal route: */
	uint32_t a, b;            /*   these, the first found */
	uint64_t apart_pairs;     /* (host switch, host switch) pairs apart */
	uint64_t unreached;       /* (root, host switch) pairs, no route down */
	uint32_t roots_unreaching; /* roots with such pairs */
};

/* keep[i]: root ud->roots[i] reaches the SM's switch going down (a root
 * that is no sink, having a lower-LID root beside it, climbs to one and
 * is kept; with no SM known, or the SM on a switch's own port, every root
 * is).  -1 when out of memory. */
int ibr_roots_check_reach(const struct ibr_fabric *f,
			  const struct ibr_updown *ud, bool *keep,
			  struct ibr_roots_reach *out, struct ibr_error *err);

/* "0x..., 0x..., 0x... and N more" (at most `named` GUIDs) into buf. */
const char *ibr_roots_format(const struct ibr_fabric *f, const uint32_t *sw,
			     uint32_t count, unsigned named, char *buf,
			     size_t len);

#endif
