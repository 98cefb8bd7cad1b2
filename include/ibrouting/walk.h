/*
 * walk.h - following forwarding tables: one step, and every switch's walk
 * to one LID at once.
 *
 * This is the only place that interprets a table entry.  A walker indexes
 * the fabric once (what is behind every switch port, which end port owns
 * every LID) so a step is two loads; then ibr_walk_column() follows one
 * column from every switch with memoisation, O(S) per LID, and leaves
 *   next[s]  the switch a packet for the LID goes to from s, or
 *            IBR_WALK_ARRIVED (delivered to the owner), IBR_WALK_FAILED;
 *   hops[s]  links from switch s to the LID's owner (0 at the owning
 *            switch, 1 from a CA's switch to the CA), or IBR_HOPS_FAILED
 *            when the walk from s fails or loops (saturates at
 *            IBR_HOPS_MAX);
 *   order[]  every switch once, each after the switch it forwards to: in
 *            reverse, an order in which traffic can be pushed along the
 *            tree towards the owner.
 * Every fault is reported once, where it is, through the optional
 * observer: a bad step at the switch holding the entry, a loop once per
 * cycle.  Nothing here trusts the tables.
 */
#ifndef IBROUTING_WALK_H
#define IBROUTING_WALK_H

#include <stdint.h>

#include "ibrouting/fabric.h"
#include "ibrouting/result.h"

#define IBR_WALK_ARRIVED 0xFFFFFFFEu
#define IBR_WALK_FAILED  0xFFFFFFFDu
#define IBR_HOPS_FAILED  0xFF
#define IBR_HOPS_MAX     0xFE

/* One hop of a walk: where a packet for `lid` goes from switch s. */
enum ibr_step {
	IBR_STEP_ARRIVED,   /* delivered to the LID's owner */
	IBR_STEP_NEXT,      /* forwarded to switch *next */
	IBR_STEP_NO_PATH,   /* entry is IBR_NO_PATH */
	IBR_STEP_BAD_PORT,  /* port has no link, or is beyond the switch */
	IBR_STEP_WRONG_END, /* delivered to a CA or switch port 0 not owning lid */
};

/* Told about faults as the walk meets them. */
struct ibr_walk_observer {
	void *ctx;
	/* the entry `port` of switch s for lid fails with `step` */
	void (*bad_step)(void *ctx, uint32_t s, ibr_lid_t lid, uint8_t port,
			 enum ibr_step step);
	/* switches cycle[0] -> ... -> cycle[len-1] -> cycle[0] loop */
	void (*loop)(void *ctx, ibr_lid_t lid, const uint32_t *cycle,
		     uint32_t len);
};

struct ibr_walker {
	const struct ibr_fabric *f;
	uint32_t *port_start;   /* per switch: its port 0 in peer[] */
	uint32_t *peer;         /* per (switch, port), see walk.c */
	uint32_t *chan;         /* per (switch, port): sw_adj index or IBR_NONE */
	uint32_t *lid_end_port; /* per LID: owning end port, or IBR_NONE */
	/* results of the last ibr_walk_column() */
	uint32_t *next;
	uint8_t *hops;
	uint32_t *order;
	/* scratch */
	uint32_t *stack;
	uint8_t *state;
};

int ibr_walker_init(struct ibr_walker *w, const struct ibr_fabric *f,
		    struct ibr_error *err);
void ibr_walker_free(struct ibr_walker *w);

#define IBR_PEER_CA 0x80000000u   /* peer[]: a CA end port, not a switch */

/* The step a packet for lid takes from switch s on `port`. */
static inline enum ibr_step ibr_walker_step(const struct ibr_walker *w,
					    uint32_t s, ibr_lid_t lid,
					    uint8_t port, uint32_t *next)
{
	const struct ibr_fabric *f = w->f;
	uint32_t peer;

	if (port == IBR_NO_PATH)
		return IBR_STEP_NO_PATH;
	if (port == 0)
		return f->lid_owner[lid].node == f->sw_node[s] ?
		       IBR_STEP_ARRIVED : IBR_STEP_WRONG_END;
	if (w->port_start[s] + port >= w->port_start[s + 1])
		return IBR_STEP_BAD_PORT;
	peer = w->peer[w->port_start[s] + port];
	if (peer == IBR_NONE)
		return IBR_STEP_BAD_PORT;
	if (peer & IBR_PEER_CA)
		return (peer & ~IBR_PEER_CA) == w->lid_end_port[lid] ?
		       IBR_STEP_ARRIVED : IBR_STEP_WRONG_END;
	*next = peer;
	return IBR_STEP_NEXT;
}

/* Every switch's walk to lid along column[0 .. S); fills next[] and
 * hops[].  lid must be owned (f->lid_owner[lid].node != IBR_NONE). */
void ibr_walk_column(struct ibr_walker *w, const uint8_t *column,
		     ibr_lid_t lid, const struct ibr_walk_observer *obs);

/* The index of the channel (sw_adj entry) leaving switch s on port, or
 * IBR_NONE when the port does not lead to a switch. */
static inline uint32_t ibr_walker_channel(const struct ibr_walker *w,
					  uint32_t s, uint8_t port)
{
	if (w->port_start[s] + port >= w->port_start[s + 1])
		return IBR_NONE;
	return w->chan[w->port_start[s] + port];
}

/* The step from switch s for lid along the tables r. */
static inline enum ibr_step ibr_walker_entry_step(const struct ibr_walker *w,
						  const struct ibr_result *r,
						  uint32_t s, ibr_lid_t lid,
						  uint32_t *next)
{
	return ibr_walker_step(w, s, lid, ibr_entry(r, s, lid), next);
}

#endif
