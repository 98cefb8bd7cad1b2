/*
 * flows.h - uniform all-to-all traffic along designated DLIDs, one
 * destination column at a time (internal to the checks).
 *
 * The metrics and the verifier both walk every LID's column once; instead
 * of walking twice, whoever walks hands the walked column to
 * ibr_flows_add_column(), which spreads that LID's flows down its in-tree
 * using the walker's hops[] and next[].  Call order: init, then
 * add_column for owned LIDs in increasing order (a port's LIDs are
 * consecutive, so its senders are counted once, at its base LID), then
 * finish.
 */
#ifndef IBROUTING_CHECKS_FLOWS_H
#define IBROUTING_CHECKS_FLOWS_H

#include "ibrouting/metrics.h"
#include "ibrouting/walk.h"

struct ibr_flows {
	const struct ibr_fabric *f;
	const struct ibr_result *r;
	struct ibr_metrics *m;
	uint64_t *chan;          /* per sw_adj entry: flows */
	uint64_t *eject;         /* per end port: flows delivered to it */
	uint64_t *flow;          /* per switch, for the LID at hand */
	uint32_t *senders;       /* per (offset, switch) of the current port */
	uint32_t senders_port;   /* end port senders[] was counted for */
	const uint8_t *columns;  /* NULL, or ibr_flows_columns() of r */
	uint8_t *dlid_used;      /* per LID */
};

/* *columns: r's by-switch designated map by column, [dst * rows + s] the
 * offset of source switch s to end port dst, so that a destination's
 * senders are counted from one run of bytes, where the map, by source
 * row, costs a cache line per switch; NULL without a by-switch map.  The
 * caller frees it, after every flows that use it.  0, or -1 after a
 * message (no memory).  It costs the map's size again: the engines'
 * load checks (ibr_metrics_compute_threads) take it, beside memory that
 * is larger anyway; the verifier and the check before OpenSM's push read
 * the map by rows. */
int ibr_flows_columns(const struct ibr_result *r, uint8_t **columns,
		      struct ibr_error *err);
/* columns: ibr_flows_columns(r), shared, or NULL. */
int ibr_flows_init(struct ibr_flows *fl, const struct ibr_fabric *f,
		   const struct ibr_result *r, const uint8_t *columns,
		   struct ibr_metrics *m, struct ibr_error *err);
/* w holds the walk of lid's column (ibr_walk_column). */
void ibr_flows_add_column(struct ibr_flows *fl, const struct ibr_walker *w,
			  const uint8_t *column, ibr_lid_t lid);
void ibr_flows_finish(struct ibr_flows *fl);
void ibr_flows_free(struct ibr_flows *fl);

#endif
