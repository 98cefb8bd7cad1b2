/*
 * paths.h - path computation separated from LID assignment
 * (lid-assignment-color-l §VI): one path for every pair, among the paths
 * legal under the run's up/down orientation, chosen for load balance.
 *
 * Schemes (§VI):
 *   shortest-widest  pairs one after the other; every channel starts at
 *                    weight 1 and gains the pair's flows per path placed
 *                    on it; among the shortest legal paths of a pair the
 *                    lightest (least sum of weights) is taken, ties to
 *                    the smaller sequence of output ports;
 *   path selection   up to k shortest legal paths per pair (loop-free,
 *                    by length then sequence of output ports; fewer when
 *                    the pair has fewer, or in rare fabrics where over
 *                    1024 looping walks hide them: never wrong ones),
 *                    then most-loaded-link-first (Koibuchi et al.): while
 *                    some pair has several candidates, the most loaded
 *                    channel (load = flows of the candidates crossing it,
 *                    each pair's flows spread evenly over its candidates)
 *                    loses every candidate of pairs that keep another.
 * Both are deterministic for a fabric, orientation and options.
 *
 * Pairs are units: with per_ca, every ordered pair of CA ports on
 * different switches (src, dst are end ports; flows 1); otherwise every
 * ordered pair of different switches that both have CAs (src, dst are
 * switch indexes; flows = CAs on src x CAs on dst), so that all CA pairs
 * between two switches share one path.  Either way only pairs whose
 * switches have a legal route (updown.h, ibr_climb_meet): under a root
 * set some have none (two roots of a fat tree's top level, each with a
 * SHARP aggregation node), and they are owed no route, as dr and fera
 * leave them: no unit, no path, no flows.  A unit's path runs from the
 * source's switch to the destination's switch: its hops are the switches
 * it leaves and the ports it leaves by, the destination switch not
 * included (the last port depends on the CA).  Units are sorted by
 * destination, then source, so one destination's units are contiguous.
 */
#ifndef IBROUTING_PATHS_H
#define IBROUTING_PATHS_H

#include <stdbool.h>
#include <stdint.h>

#include "ibrouting/fabric.h"
#include "ibrouting/lidassign.h"
#include "ibrouting/updown.h"

enum ibr_path_scheme {
	IBR_PATHS_SHORTEST_WIDEST,
	IBR_PATHS_SELECTION,
};

/* "shortest-widest" ("sw"), "path-selection" ("ps"). */
const char *ibr_path_scheme_name(enum ibr_path_scheme s);
int ibr_path_scheme_parse(const char *name, enum ibr_path_scheme *s);

struct ibr_path_options {
	enum ibr_path_scheme scheme;
	unsigned k;                 /* path selection: candidates per pair, 1..16 */
	bool per_ca;                /* units are CA pairs, not switch pairs */
	unsigned threads;           /* workers for the candidate search (0: 1);
				     * the same paths for any count */
	unsigned parts;             /* path selection: parts of the greedy
				     * sequence (mllf.c; 0: by the pairs'
				     * count, 1: one sequence, the paper's) */
	unsigned batches;           /* path selection: batches of destination
				     * switches, one after the other (paths.c;
				     * 0: by the pairs' count, 1: all at once,
				     * the paper's) */
	bool exhaustive;            /* path selection the long way, for tests:
				     * every visit scans its channel's list
				     * from its start, every load change
				     * moves its channel in the heap; the
				     * same paths */
	/* NULL, or asked now and then (before each wave of the candidate
	 * search, every STOP_EVERY steps of the selection, per unit of
	 * shortest-widest) how many workers the paths may use from now on,
	 * at most `threads` (the caller's other work may be running): 0 if
	 * they are no longer wanted, and ibr_paths_compute gives up
	 * (IBR_PATHS_STOPPED).  The same paths whatever it answers.  Called
	 * from the thread that called ibr_paths_compute. */
	unsigned (*workers_now)(void *arg);
	void *workers_arg;
};

/* ibr_paths_compute's return when o->workers_now said 0: no error, out
 * empty. */
#define IBR_PATHS_STOPPED 1

struct ibr_paths {
	bool per_ca;
	uint32_t num_units;
	uint32_t *src, *dst;        /* per unit: end ports or switch indexes */
	uint32_t *first;            /* num_units + 1: hops of unit u are [first[u], first[u+1]) */
	uint32_t *hop_sw;
	uint8_t *hop_port;
	uint64_t candidates;        /* path selection: sum over units of their
				     * candidates (0 for shortest-widest) */
	uint32_t batches;           /* path selection: batches it ran in
				     * (o->batches, or as paths.c chose) */
	/* wall-clock ms: path selection's candidate search, then its
	 * most-loaded-link-first with the paths written (search_ms 0 with
	 * shortest-widest, whose whole run is select_ms) */
	double search_ms, select_ms;
};

static inline uint32_t ibr_unit_src_switch(const struct ibr_fabric *f,
					   const struct ibr_paths *p, uint32_t u)
{
	return p->per_ca ? f->end_ports[p->src[u]].sw : p->src[u];
}

static inline uint32_t ibr_unit_dst_switch(const struct ibr_fabric *f,
					   const struct ibr_paths *p, uint32_t u)
{
	return p->per_ca ? f->end_ports[p->dst[u]].sw : p->dst[u];
}

/* Computes one path per unit under orientation ud.  Returns 0, or -1
 * after a message (no memory, k out of 1..16 with path selection;
 * shortest-widest ignores k), or IBR_PATHS_STOPPED (o->workers_now), out
 * then empty. */
int ibr_paths_compute(const struct ibr_fabric *f, const struct ibr_updown *ud,
		      const struct ibr_path_options *o, struct ibr_paths *out,
		      struct ibr_error *err);
void ibr_paths_free(struct ibr_paths *p);

/* ---- one destination's path set, for LID assignment -------------------- */

/* The end of the units of u0's destination (they are contiguous). */
static inline uint32_t ibr_paths_dest_end(const struct ibr_paths *p,
					  uint32_t u0)
{
	uint32_t u1 = u0;

	while (u1 < p->num_units && p->dst[u1] == p->dst[u0])
		u1++;
	return u1;
}

/* Buffers for one destination's paths, sized for the largest
 * destination of p: its units' hops plus the final hop to a CA. */
struct ibr_dest_set {
	uint32_t *first, *sw;
	uint8_t *port;
};

int ibr_dest_set_init(struct ibr_dest_set *d, const struct ibr_paths *p,
		      struct ibr_error *err);
void ibr_dest_set_free(struct ibr_dest_set *d);

/* dp = units [u0, u1) of p, each followed by the hop (sw, port) into the
 * destination CA; path i of dp is unit u0 + i. */
void ibr_dest_set_fill(struct ibr_dest_set *d, const struct ibr_paths *p,
		       uint32_t u0, uint32_t u1, uint32_t sw, uint8_t port,
		       struct ibr_dest_paths *dp);

#endif
