/*
 * management.c - routes for management traffic where up*-down* has none
 * (see management.h for what is set, where, and why no credit loop can
 * come of it).
 *
 * Per LID: the switches owing it no legal route and not carrying data
 * through it are the candidates, their entries cleared (a management
 * route follows from the legal entries alone, whatever the column held,
 * so tables kept in place get the routes fresh tables get); a BFS from every switch that routes the
 * LID, through candidates only, gives each reached candidate its level,
 * and the candidate leaves by its lowest port to a switch one level
 * nearer.  Levels strictly decrease along a walk, so it ends at a switch
 * with a legal entry and goes on as the legal tables do.
 */
#include <stdlib.h>
#include <string.h>

#include "ibrouting/management.h"

#define UNSEEN UINT32_MAX

struct mgmt {
	const struct ibr_fabric *f;
	struct ibr_climb climb;
	uint32_t *level;     /* per switch, this LID's BFS level */
	uint32_t *queue;
	bool set;            /* set them, else only clear them */
};

static bool is_candidate(const struct mgmt *m, const uint8_t *col,
			 uint32_t s, uint32_t dsw, ibr_lid_t lid)
{
	return col[s] == IBR_NO_PATH && !ibr_climb_meet(&m->climb, s, dsw) &&
	       !ibr_management_carries_data(m->f, s, lid);
}

static void route_lid(struct mgmt *m, struct ibr_result *r, ibr_lid_t lid)
{
	const struct ibr_fabric *f = m->f;
	uint8_t *col = ibr_column(r, lid);
	uint32_t S = f->num_switches, dsw = ibr_lid_switch(f, lid);
	uint32_t head = 0, tail = 0, candidates = 0;

	/* what management routes the column had (kept from the prior
	 * tables, say) are cleared: they follow from the legal entries */
	for (uint32_t s = 0; s < S; s++) {
		if (ibr_climb_meet(&m->climb, s, dsw))
			continue;
		if (ibr_management_carries_data(f, s, lid)) {
			r->management.owed_none += col[s] == IBR_NO_PATH;
			continue;
		}
		col[s] = IBR_NO_PATH;
		candidates++;
	}
	if (!candidates || !m->set)
		return;
	for (uint32_t s = 0; s < S; s++) {
		m->level[s] = col[s] != IBR_NO_PATH ? 0 : UNSEEN;
		if (!m->level[s])
			m->queue[tail++] = s;
	}
	while (head < tail) {
		uint32_t u = m->queue[head++];
		for (uint32_t i = f->sw_adj_start[u]; i < f->sw_adj_start[u + 1]; i++) {
			uint32_t v = f->sw_adj[i].peer;
			if (m->level[v] != UNSEEN ||
			    !is_candidate(m, col, v, dsw, lid))
				continue;
			m->level[v] = m->level[u] + 1;
			m->queue[tail++] = v;
		}
	}
	/* the queue past the sources holds the candidates reached; entries
	 * are set after the search, which reads the column as it was */
	for (uint32_t k = 0; k < tail; k++) {
		uint32_t v = m->queue[k];
		if (!m->level[v])
			continue;
		for (uint32_t i = f->sw_adj_start[v]; i < f->sw_adj_start[v + 1]; i++)
			if (m->level[f->sw_adj[i].peer] == m->level[v] - 1) {
				col[v] = f->sw_adj[i].port; /* lowest: by port */
				r->management.set++;
				break;
			}
	}
}

/* The columns with their management routes cleared, or cleared and set
 * again. */
static int management(const struct ibr_fabric *f, const struct ibr_updown *ud,
		      struct ibr_result *r, bool set, struct ibr_error *err)
{
	struct mgmt m = { .f = f, .set = set };
	uint32_t S = f->num_switches;
	int rc = -1;

	memset(&r->management, 0, sizeof(r->management));
	if (ibr_climb_build(f, ud, &m.climb, err))
		return -1;
	if (m.climb.num_sinks <= 1) {
		/* every pair meets: every legal route exists already */
		ibr_climb_free(&m.climb);
		return 0;
	}
	m.level = malloc((S ? S : 1) * sizeof(uint32_t));
	m.queue = malloc((S ? S : 1) * sizeof(uint32_t));
	if (!m.level || !m.queue) {
		ibr_error_set(err, "management routes: out of memory for %u "
			      "switches", S);
		goto out;
	}
	for (ibr_lid_t lid = 1; lid <= f->max_lid; lid++)
		if (f->lid_owner[lid].node != IBR_NONE)
			route_lid(&m, r, lid);
	rc = 0;
out:
	ibr_climb_free(&m.climb);
	free(m.level);
	free(m.queue);
	return rc;
}

int ibr_management_routes(const struct ibr_fabric *f,
			  const struct ibr_updown *ud, struct ibr_result *r,
			  struct ibr_error *err)
{
	return management(f, ud, r, true, err);
}

int ibr_management_clear(const struct ibr_fabric *f,
			 const struct ibr_updown *ud, struct ibr_result *r,
			 struct ibr_error *err)
{
	return management(f, ud, r, false, err);
}
