/*
 * updown.c - root choice and the up/down orientation (see updown.h).
 *
 * Invariants of a built orientation:
 *   rank[r] == 0 for every root r of the set and rank[s] == BFS distance
 *   from the nearest root;
 *   order[] sorts switches by (rank, LID), position[] is its inverse;
 *   every switch but the roots has a neighbour of smaller rank, reached by
 *   a down link from it, so the roots together reach every switch going
 *   down only (one root alone reaches them all).
 * Root resolution (which switches are the roots) lives in roots.c.
 */
#include <stdlib.h>
#include <string.h>

#include "ibrouting/roots.h"
#include "ibrouting/updown.h"

static const char *const strategy_names[] = {
	[IBR_ROOT_SM] = "sm",
	[IBR_ROOT_LOWEST_LID] = "lowest-lid",
	[IBR_ROOT_CENTER] = "center",
	[IBR_ROOT_AUTO] = "auto",
};

const char *ibr_root_strategy_name(enum ibr_root_strategy s)
{
	return strategy_names[s];
}

int ibr_root_strategy_parse(const char *name, enum ibr_root_strategy *s)
{
	for (unsigned i = 0; i < sizeof(strategy_names) / sizeof(*strategy_names); i++)
		if (strcmp(name, strategy_names[i]) == 0) {
			*s = i;
			return 0;
		}
	return -1;
}

static const char *const fallback_names[] = {
	[IBR_ROOT_FALLBACK_NEXT] = "next",
	[IBR_ROOT_FALLBACK_REFUSE] = "refuse",
};

const char *ibr_root_fallback_name(enum ibr_root_fallback fb)
{
	return fallback_names[fb];
}

int ibr_root_fallback_parse(const char *name, enum ibr_root_fallback *fb)
{
	for (unsigned i = 0; i < sizeof(fallback_names) / sizeof(*fallback_names); i++)
		if (strcmp(name, fallback_names[i]) == 0) {
			*fb = i;
			return 0;
		}
	return -1;
}

uint32_t ibr_bfs_from(const struct ibr_fabric *f, const uint32_t *srcs,
		      uint32_t n, uint32_t *rank, uint32_t *queue)
{
	uint32_t head = 0, tail = 0, far = 0;

	for (uint32_t s = 0; s < f->num_switches; s++)
		rank[s] = UINT32_MAX;
	for (uint32_t i = 0; i < n; i++)
		if (rank[srcs[i]] == UINT32_MAX) {
			rank[srcs[i]] = 0;
			queue[tail++] = srcs[i];
		}
	while (head < tail) {
		uint32_t s = queue[head++];
		far = rank[s];
		for (uint32_t i = f->sw_adj_start[s]; i < f->sw_adj_start[s + 1]; i++) {
			uint32_t t = f->sw_adj[i].peer;
			if (rank[t] == UINT32_MAX) {
				rank[t] = rank[s] + 1;
				queue[tail++] = t;
			}
		}
	}
	return far;
}

static uint32_t bfs_ranks(const struct ibr_fabric *f, uint32_t src,
			  uint32_t *rank, uint32_t *queue)
{
	return ibr_bfs_from(f, &src, 1, rank, queue);
}

static uint32_t lowest_lid_switch(const struct ibr_fabric *f)
{
	uint32_t best = 0;

	for (uint32_t s = 1; s < f->num_switches; s++)
		if (ibr_switch_lid(f, s) < ibr_switch_lid(f, best))
			best = s;
	return best;
}

/* A switch of minimum eccentricity; ties to the lowest LID.  One BFS per
 * switch: O(S * E), offered as an option, not the default. */
static int center_switch(const struct ibr_fabric *f, uint32_t *root,
			 struct ibr_error *err)
{
	uint32_t S = f->num_switches, best = IBR_NONE, best_ecc = UINT32_MAX;
	uint32_t *rank = malloc(S * sizeof(uint32_t));
	uint32_t *queue = malloc(S * sizeof(uint32_t));

	if (!rank || !queue) {
		free(rank);
		free(queue);
		return ibr_error_set(err, "out of memory");
	}
	for (uint32_t s = 0; s < S; s++) {
		uint32_t ecc = bfs_ranks(f, s, rank, queue);
		if (ecc < best_ecc || (ecc == best_ecc &&
				       ibr_switch_lid(f, s) < ibr_switch_lid(f, best))) {
			best = s;
			best_ecc = ecc;
		}
	}
	free(rank);
	free(queue);
	*root = best;
	return 0;
}

const char *ibr_root_guid_unusable(const struct ibr_fabric *f, uint64_t guid)
{
	uint32_t n = ibr_fabric_find_guid(f, guid);

	if (n == IBR_NONE)
		return "is not in the fabric";
	if (f->nodes[n].type != IBR_NODE_SWITCH)
		return "is a CA, not a switch";
	return NULL;
}

int ibr_choose_root(const struct ibr_fabric *f,
		    const struct ibr_root_choice *choice, uint32_t *root,
		    struct ibr_error *err)
{
	if (choice && choice->guid) {
		const char *why = ibr_root_guid_unusable(f, choice->guid);
		if (why)
			return ibr_error_set(err, "root GUID 0x%016llx %s",
					     (unsigned long long)choice->guid,
					     why);
		*root = f->nodes[ibr_fabric_find_guid(f, choice->guid)].sw_index;
		return 0;
	}
	switch (choice ? choice->strategy : IBR_ROOT_SM) {
	case IBR_ROOT_AUTO:   /* one root asked for: auto's single-root rule */
	case IBR_ROOT_CENTER:
		return center_switch(f, root, err);
	case IBR_ROOT_SM:
		*root = ibr_sm_switch(f);
		if (*root != IBR_NONE)
			return 0;
		/* No SM known, as in an offline topology file. */
		__attribute__((fallthrough));
	case IBR_ROOT_LOWEST_LID:
		*root = lowest_lid_switch(f);
		return 0;
	}
	return ibr_error_set(err, "unknown root strategy");
}

static int by_key(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Sorts switches by (rank, tie) through one packed key per switch:
 * rank in bits 40.., tie in bits 24..39 (a LID, or a root's place among
 * at most 65536), switch index in bits 0..23 (fabric_finalize caps nodes
 * below 2^24). */
static int sort_by_rank_and_tie(struct ibr_updown *ud)
{
	uint32_t S = ud->num_switches;
	uint64_t *keys = malloc(S * sizeof(uint64_t));

	if (!keys)
		return -1;
	for (uint32_t s = 0; s < S; s++)
		keys[s] = (uint64_t)ud->rank[s] << 40 |
			  (uint64_t)ud->tie[s] << 24 | s;
	qsort(keys, S, sizeof(uint64_t), by_key);
	for (uint32_t i = 0; i < S; i++) {
		ud->order[i] = keys[i] & 0xFFFFFF;
		ud->position[ud->order[i]] = i;
	}
	free(keys);
	return 0;
}

/* ud->tie (see updown.h): LIDs; the roots numbered by (their part's
 * lowest root LID, their LID), a part being what the links between a
 * root and a switch that is none join.  -1 when out of memory. */
static int set_ties(const struct ibr_fabric *f, struct ibr_updown *ud)
{
	uint32_t S = ud->num_switches, n = ud->num_roots;
	uint32_t *part = malloc((S ? S : 1) * sizeof(uint32_t));
	uint32_t *queue = malloc((S ? S : 1) * sizeof(uint32_t));
	uint64_t *keys = malloc((n ? n : 1) * sizeof(uint64_t));

	if (!part || !queue || !keys) {
		free(part);
		free(queue);
		free(keys);
		return -1;
	}
	for (uint32_t s = 0; s < S; s++) {
		ud->tie[s] = ibr_switch_lid(f, s);
		part[s] = IBR_NONE;
	}
	/* each part labelled by its lowest root LID */
	for (uint32_t i = 0; i < n; i++) {
		uint32_t head = 0, tail = 0, low = UINT32_MAX;
		if (part[ud->roots[i]] != IBR_NONE)
			continue;
		part[ud->roots[i]] = i;
		queue[tail++] = ud->roots[i];
		while (head < tail) {
			uint32_t x = queue[head++];
			if (ud->rank[x] == 0 && ibr_switch_lid(f, x) < low)
				low = ibr_switch_lid(f, x);
			for (uint32_t j = f->sw_adj_start[x]; j < f->sw_adj_start[x + 1]; j++) {
				uint32_t y = f->sw_adj[j].peer;
				if (part[y] == IBR_NONE &&
				    (ud->rank[x] == 0) != (ud->rank[y] == 0)) {
					part[y] = i;
					queue[tail++] = y;
				}
			}
		}
		for (uint32_t k = 0; k < tail; k++)
			part[queue[k]] = IBR_NONE - 1 - low; /* low, marked */
	}
	for (uint32_t i = 0; i < n; i++) {
		uint32_t r = ud->roots[i];
		keys[i] = (uint64_t)(IBR_NONE - 1 - part[r]) << 40 |
			  (uint64_t)ibr_switch_lid(f, r) << 24 | r;
	}
	qsort(keys, n, sizeof(uint64_t), by_key);
	for (uint32_t i = 0; i < n; i++)
		ud->tie[keys[i] & 0xFFFFFF] = i;
	free(part);
	free(queue);
	free(keys);
	return 0;
}

int ibr_updown_build(const struct ibr_fabric *f, uint32_t root,
		     struct ibr_updown *ud, struct ibr_error *err)
{
	return ibr_updown_build_set(f, &root, 1, ud, err);
}

int ibr_updown_build_set(const struct ibr_fabric *f, const uint32_t *roots,
			 uint32_t n, struct ibr_updown *ud,
			 struct ibr_error *err)
{
	uint32_t S = f->num_switches;

	memset(ud, 0, sizeof(*ud));
	if (n == 0 || n > S)
		return ibr_error_set(err, "orientation: %u roots for %u switches",
				     n, S);
	for (uint32_t i = 0; i < n; i++)
		if (roots[i] >= S)
			return ibr_error_set(err, "orientation: root %u is not a "
					     "switch index (%u switches)",
					     roots[i], S);
	ud->num_switches = S;
	ud->root = roots[0];
	ud->num_roots = n;
	ud->roots = malloc(n * sizeof(uint32_t));
	ud->rank = malloc(S * sizeof(uint32_t));
	ud->tie = malloc(S * sizeof(uint32_t));
	ud->order = malloc(S * sizeof(uint32_t));
	ud->position = malloc(S * sizeof(uint32_t));
	if (!ud->roots || !ud->rank || !ud->tie || !ud->order ||
	    !ud->position) {
		ibr_updown_free(ud);
		return ibr_error_set(err, "out of memory");
	}
	memcpy(ud->roots, roots, n * sizeof(uint32_t));
	ibr_bfs_from(f, roots, n, ud->rank, ud->order);
	if (set_ties(f, ud) || sort_by_rank_and_tie(ud)) {
		ibr_updown_free(ud);
		return ibr_error_set(err, "out of memory");
	}
	return 0;
}

void ibr_updown_free(struct ibr_updown *ud)
{
	free(ud->roots);
	free(ud->rank);
	free(ud->tie);
	free(ud->order);
	free(ud->position);
	memset(ud, 0, sizeof(*ud));
}

void ibr_updown_link_flags(const struct ibr_fabric *f,
			   const struct ibr_updown *ud, uint8_t *link_up)
{
	for (uint32_t s = 0; s < f->num_switches; s++)
		for (uint32_t i = f->sw_adj_start[s]; i < f->sw_adj_start[s + 1]; i++)
			link_up[i] = ibr_link_is_up(f, ud, s, f->sw_adj[i].peer);
}

int ibr_up_links_build(const struct ibr_fabric *f, const uint8_t *link_up,
		       struct ibr_up_links *up)
{
	uint32_t S = f->num_switches, links = f->sw_adj_start[S], n = 0;

	up->start = malloc((S + 1) * sizeof(uint32_t));
	up->at = malloc((links ? links : 1) * sizeof(*up->at));
	if (!up->start || !up->at)
		return -1;
	for (uint32_t s = 0; s < S; s++) {
		up->start[s] = n;
		for (uint32_t i = f->sw_adj_start[s]; i < f->sw_adj_start[s + 1]; i++)
			if (link_up[i])
				up->at[n++] = (struct ibr_up_link){
					i, f->sw_adj[i].peer, f->sw_adj[i].port };
	}
	up->start[S] = n;
	return 0;
}

void ibr_up_links_free(struct ibr_up_links *up)
{
	free(up->start);
	free(up->at);
	memset(up, 0, sizeof(*up));
}

uint32_t ibr_down_distances(const struct ibr_up_links *up,
			    uint32_t num_switches, uint32_t d,
			    uint32_t *down_dist, uint32_t *queue)
{
	uint32_t head = 0, tail = 0;

	for (uint32_t s = 0; s < num_switches; s++)
		down_dist[s] = IBR_FAR;
	down_dist[d] = 0;
	queue[tail++] = d;
	while (head < tail) {
		uint32_t x = queue[head++];
		for (uint32_t i = up->start[x]; i < up->start[x + 1]; i++) {
			uint32_t y = up->at[i].peer;
			/* x -> y up means y -> x down: y can descend to x. */
			if (down_dist[y] == IBR_FAR) {
				down_dist[y] = down_dist[x] + 1;
				queue[tail++] = y;
			}
		}
	}
	return tail;
}

void ibr_legal_distances(const struct ibr_up_links *up,
			 const struct ibr_updown *ud,
			 const uint32_t *down_dist, uint32_t *legal_dist)
{
	for (uint32_t k = 0; k < ud->num_switches; k++) {
		uint32_t s = ud->order[k], best = down_dist[s];
		for (uint32_t i = up->start[s]; i < up->start[s + 1]; i++) {
			uint32_t t = up->at[i].peer;
			if (legal_dist[t] != IBR_FAR && legal_dist[t] + 1 < best)
				best = legal_dist[t] + 1;
		}
		legal_dist[s] = best;
	}
}

int ibr_climb_build(const struct ibr_fabric *f, const struct ibr_updown *ud,
		    struct ibr_climb *cl, struct ibr_error *err)
{
	uint32_t S = f->num_switches, sinks = 0;
	uint32_t *sink_bit = malloc(S * sizeof(uint32_t));

	memset(cl, 0, sizeof(*cl));
	if (!sink_bit)
		return ibr_error_set(err, "out of memory for %u switches", S);
	/* a sink: no up link; only roots can be (every other switch has a
	 * neighbour of smaller rank) */
	for (uint32_t s = 0; s < S; s++) {
		bool up = false;
		sink_bit[s] = IBR_NONE;
		if (ud->rank[s] != 0)
			continue;
		for (uint32_t i = f->sw_adj_start[s]; !up && i < f->sw_adj_start[s + 1]; i++)
			up = ibr_link_is_up(f, ud, s, f->sw_adj[i].peer);
		if (!up)
			sink_bit[s] = sinks++;
	}
	cl->num_sinks = sinks;
	cl->words = (sinks + 63) / 64;
	cl->bits = calloc((size_t)S * cl->words, sizeof(uint64_t));
	cl->sink_bit = sink_bit;
	if (!cl->bits) {
		ibr_climb_free(cl);
		return ibr_error_set(err, "out of memory for the climb sets of "
				     "%u switches and %u sinks", S, sinks);
	}
	/* in (rank, LID) order every up neighbour comes first */
	for (uint32_t k = 0; k < S; k++) {
		uint32_t s = ud->order[k];
		uint64_t *mine = cl->bits + (size_t)s * cl->words;
		if (sink_bit[s] != IBR_NONE)
			mine[sink_bit[s] / 64] |= 1ull << (sink_bit[s] % 64);
		for (uint32_t i = f->sw_adj_start[s]; i < f->sw_adj_start[s + 1]; i++) {
			uint32_t t = f->sw_adj[i].peer;
			const uint64_t *up = cl->bits + (size_t)t * cl->words;
			if (!ibr_link_is_up(f, ud, s, t))
				continue;
			for (uint32_t w = 0; w < cl->words; w++)
				mine[w] |= up[w];
		}
	}
	return 0;
}

void ibr_climb_free(struct ibr_climb *cl)
{
	free(cl->bits);
	free(cl->sink_bit);
	memset(cl, 0, sizeof(*cl));
}
