/*
 * metrics.h - route quality under uniform all-to-all CA traffic.
 *
 * Every end port sends one flow to every other end port along its
 * designated DLID (lid-assignment-color-l §VI-D); a channel's load is the
 * number of flows crossing it.  Path length is counted in links from the
 * source CA to the destination CA.
 */
#ifndef IBROUTING_METRICS_H
#define IBROUTING_METRICS_H

#include <stdint.h>

#include "ibrouting/fabric.h"
#include "ibrouting/result.h"

#define IBR_MAX_PATH_LEN 64

struct ibr_metrics {
	uint64_t max_link_load;        /* over switch output channels */
	uint64_t flows;                /* end-port pairs routed */
	uint64_t unrouted_flows;       /* pairs whose walk failed */
	uint64_t path_len_hist[IBR_MAX_PATH_LEN + 1];
	double mean_path_len;
	uint32_t ca_lids;              /* LIDs owned by end ports: the DLIDs
					* flows may use (switch LIDs are not) */
	uint32_t lids_used;            /* distinct DLIDs used by the flows */
};

int ibr_metrics_compute(const struct ibr_fabric *f, const struct ibr_result *r,
			struct ibr_metrics *m, struct ibr_error *err);
/* The same over at most `threads` worker threads (the LIDs split among
 * them, the integer sums merged): the same metrics for any count.  A
 * by-switch designated map is read transposed, for the time of the call
 * a copy as large as the map (faster to read): for the
 * engines' own load checks, which hold larger memory anyway; the check
 * before OpenSM's push and the verifier read the map as it is. */
int ibr_metrics_compute_threads(const struct ibr_fabric *f,
				const struct ibr_result *r, unsigned threads,
				struct ibr_metrics *m, struct ibr_error *err);

/* A max link load no routing of the fabric goes below (one path per
 * pair): a host's own link carries hosts - 1 flows, and the h hosts of a
 * switch send h * (hosts - h) flows over its L inter-switch links, so one
 * of them carries at least ceil(h * (hosts - h) / L).  *worst is the
 * switch that sets the bound, IBR_NONE when hosts - 1 does. */
uint64_t ibr_metrics_load_bound(const struct ibr_fabric *f, uint32_t *worst);
/* Its inter-switch part alone: the most any switch's hosts send over one
 * of its links at least, ceil(h * (hosts - h) / L); *worst as above
 * (IBR_NONE: no switch sends over links). */
uint64_t ibr_metrics_switch_link_bound(const struct ibr_fabric *f,
				       uint32_t *worst);

/* A cut bound over groups of switches (a Dragonfly+'s, topology.h):
 * the CA ports of a group send h * (ports - h) flows out over the links
 * leaving it, so one of them carries at least ceil(h * (ports - h) / L).
 * group[s]: switch s's group, IBR_NONE for none; *worst the group that
 * sets the bound and *links its links out (IBR_NONE, 0: no group sends
 * over links). */
uint64_t ibr_metrics_group_bound(const struct ibr_fabric *f,
				 const uint32_t *group, uint32_t groups,
				 uint32_t *worst, uint64_t *links);

#endif
