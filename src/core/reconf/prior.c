/*
 * prior.c - routing from the prior tables after a change (prior.h):
 * when it applies (the engine's own tables, its LMC, its root set less
 * the roots gone, not too many pairs broken), the mender (mender.h)
 * with the engine's fallback's tables (FERa's), routed on demand, as the
 * fallback; and what the
 * switches there before would be sent.
 */
#include <stdlib.h>
#include <string.h>

#include "ibrouting/mender.h"
#include "ibrouting/prior.h"

/* Is switch GUID g among the n switches of roots (indexes of f)? */
static bool among(const struct ibr_fabric *f, const uint32_t *roots,
		  uint32_t n, uint64_t g)
{
	for (uint32_t i = 0; i < n; i++)
		if (ibr_switch(f, roots[i])->guid == g)
			return true;
	return false;
}

/* The run's root set is the prior's, less the roots gone from the
 * fabric: the same orientation but for what the change took.  Another
 * root (an administrator's choice, or a strategy that now picks another
 * switch) orients every route anew, and keeping routes then keeps
 * little: the engine routes afresh.  Tables that record no root set (read
 * from a dump) are taken as routed from this one. */
static bool same_roots(const struct ibr_route_ctx *ctx,
		       const struct ibr_prior *p)
{
	const struct ibr_updown *ud = &ctx->updown;
	const struct ibr_fabric *f = ctx->f, *of = p->f;

	if (!p->r->num_roots)
		return true;
	for (uint32_t i = 0; i < ud->num_roots; i++)
		if (!among(of, p->r->roots, p->r->num_roots,
			   ibr_switch(f, ud->roots[i])->guid))
			return false;
	for (uint32_t i = 0; i < p->r->num_roots; i++) {
		uint64_t g = ibr_switch(of, p->r->roots[i])->guid;
		uint32_t n = ibr_fabric_find_guid(f, g);
		if (n != IBR_NONE && f->nodes[n].type == IBR_NODE_SWITCH &&
		    !among(f, ud->roots, ud->num_roots, g))
			return false;
	}
	return true;
}

static bool applies(const struct ibr_route_ctx *ctx, unsigned *limit,
		    struct ibr_error *err)
{
	const struct ibr_prior *p = ctx->prior;

	*limit = 0;
	if (!p || !p->f || !p->r || !p->r->col ||
	    p->r->num_switches != p->f->num_switches ||
	    (p->engine && strcmp(p->engine, ctx->engine->name) != 0) ||
	    p->f->lmc != ctx->f->lmc || !ctx->have_updown ||
	    !same_roots(ctx, p))
		return false;
	if (ibr_option_uint(ctx, IBR_PRIOR_OPTION, limit, err))
		return false;
	return *limit > 0;
}

/* r back as it was given: every entry IBR_NO_PATH, no map, no figure,
 * no phase. */
static void give_back(struct ibr_result *r)
{
	memset(r->col, IBR_NO_PATH, (size_t)r->num_switches * r->num_lids);
	free(r->designated.offset);
	memset(&r->designated, 0, sizeof(r->designated));
	r->stats.count = 0;
	r->stats.phases = 0;
}

int ibr_prior_route(struct ibr_route_ctx *ctx, struct ibr_result *r,
		    enum ibr_prior_choice choice, struct ibr_error *err)
{
	static const enum ibr_mend_map maps[] = {
		[IBR_PRIOR_ONE_ROUTE] = IBR_MEND_MAP_NONE,
		[IBR_PRIOR_LEAST_LOADED] = IBR_MEND_MAP_LEAST_LOADED,
		[IBR_PRIOR_SHORTEST] = IBR_MEND_MAP_SHORTEST,
	};
	const struct ibr_engine *fb = ctx->engine->fallback;
	const struct ibr_mend_fallback fera = {
		.route = fb ? fb->route_afresh : NULL, .ctx = ctx,
		.phase = "FERa's tables, where needed",
	};
	struct ibr_mend_options o = {
		.ranges_as_base = choice == IBR_PRIOR_ONE_ROUTE,
		.map = maps[choice], .phases = true, .threads = ctx->threads,
	};
	const struct ibr_updown *ud;
	struct ibr_table_ids ids;
	struct ibr_mend_counts c;
	int rc;

	err->msg[0] = '\0';
	if (!fera.route)
		return ibr_error_set(err, "%s routes from the prior tables "
				     "but names no fallback engine",
				     ctx->engine->name);
	if (!applies(ctx, &o.max_broken, err))
		return err->msg[0] ? -1 : 0;
	ud = ibr_ctx_updown(ctx, err);
	if (!ud || ibr_table_ids_of(ctx->prior->f, &ids, err))
		return -1;
	rc = ibr_mend(ctx->f, ud, ctx->prior->r, &ids, &fera, &o, r, &c, err);
	ibr_table_ids_free(&ids);
	if (rc != 1) {
		give_back(r);
		return rc;
	}
	if (o.map != IBR_MEND_MAP_NONE) {
		ibr_stat_count(r, "CA LID needed", IBR_STAT_CA_LIDS_NEEDED,
			       c.lids_needed);
		ibr_stat_count(r, "renamed LID", "renamed LIDs", c.renamed);
	}
	ibr_stat_count(r, "pair kept", "pairs kept",
		       c.pairs_kept);
	ibr_stat_count(r, "pair re-routed", "pairs re-routed",
		       c.pairs_rerouted);
	return 1;
}

/* The peer behind port `port` of node n of fabric f, by GUID; 0: none. */
static uint64_t peer_guid(const struct ibr_fabric *f, uint32_t n, unsigned port)
{
	const struct ibr_port *p;

	if (port == 0 || port > f->nodes[n].num_ports)
		return 0;
	p = ibr_port(f, n, port);
	return p->remote_node == IBR_NONE ? 0 : f->nodes[p->remote_node].guid;
}

/* down[d * S + t]: switch t has an all-down route to switch d under ud
 * (malloc'd bytes), NULL when out of memory. */
static uint8_t *down_routes(const struct ibr_fabric *f,
			    const struct ibr_updown *ud)
{
	uint32_t S = f->num_switches, links = f->sw_adj_start[S];
	uint8_t *down = calloc(S ? (size_t)S * S : 1, 1);
	uint8_t *link_up = malloc(links ? links : 1);
	uint32_t *dist = malloc((S ? S : 1) * sizeof(uint32_t));
	uint32_t *queue = malloc((S ? S : 1) * sizeof(uint32_t));
	struct ibr_up_links up = { 0 };
	bool ok = down && link_up && dist && queue;

	if (ok) {
		ibr_updown_link_flags(f, ud, link_up);
		ok = ibr_up_links_build(f, link_up, &up) == 0;
	}
	for (uint32_t d = 0; ok && d < S; d++) {
		uint32_t n = ibr_down_distances(&up, S, d, dist, queue);
		for (uint32_t i = 0; i < n; i++)
			down[(size_t)d * S + queue[i]] = 1;
	}
	ibr_up_links_free(&up);
	free(link_up);
	free(dist);
	free(queue);
	if (!ok) {
		free(down);
		return NULL;
	}
	return down;
}

/* Must the entry `was` (the prior's port) of switch s for lid change in
 * any legal tables of f under ud?  gone: s's ports whose peer went. */
static bool required(const struct ibr_fabric *f, const struct ibr_updown *ud,
		     const uint8_t *down, uint32_t s, ibr_lid_t lid,
		     uint8_t was, const bool *gone)
{
	const struct ibr_port *p;
	uint32_t d, t;

	if (was == IBR_NO_PATH)
		return false;
	if (gone[was] || lid > f->max_lid ||
	    (d = ibr_lid_switch(f, lid)) == IBR_NONE)
		return true;   /* the link, or the LID's owner, is gone */
	if (was == 0 || was > f->nodes[f->sw_node[s]].num_ports)
		return false;
	p = ibr_port(f, f->sw_node[s], was);
	if (p->remote_node == IBR_NONE ||
	    f->nodes[p->remote_node].type != IBR_NODE_SWITCH)
		return false;
	t = f->nodes[p->remote_node].sw_index;
	return !ibr_link_is_up(f, ud, s, t) && !down[(size_t)d * f->num_switches + t];
}

int ibr_prior_difference(const struct ibr_prior *p,
			 const struct ibr_fabric *f,
			 const struct ibr_updown *ud,
			 const struct ibr_result *r,
			 struct ibr_prior_change *c)
{
	const struct ibr_result *o = p->r;
	uint8_t *down = ud ? down_routes(f, ud) : NULL;
	bool gone[IBR_MAX_PORTS + 1];

	memset(c, 0, sizeof(*c));
	for (uint32_t s = 0; s < f->num_switches; s++) {
		uint32_t n = ibr_fabric_find_guid(p->f, ibr_switch(f, s)->guid);
		uint32_t os;

		if (n == IBR_NONE || p->f->nodes[n].type != IBR_NODE_SWITCH)
			continue;
		os = p->f->nodes[n].sw_index;
		gone[0] = false;
		for (unsigned q = 1; q <= IBR_MAX_PORTS; q++) {
			uint64_t was = q <= p->f->nodes[n].num_ports ?
				       peer_guid(p->f, n, q) : 0;
			gone[q] = was && was != peer_guid(f, f->sw_node[s], q);
		}
		for (uint32_t first = 0; first < r->num_lids;
		     first += IBR_LFT_BLOCK) {
			uint64_t in_block = 0;
			for (uint32_t l = first; l < r->num_lids &&
			     l < first + IBR_LFT_BLOCK; l++) {
				uint8_t was = l < o->num_lids ?
					      ibr_entry(o, os, l) : IBR_NO_PATH;
				if (ibr_entry(r, s, l) == was)
					continue;
				in_block++;
				c->forced += was != IBR_NO_PATH && gone[was];
				c->required += down &&
					required(f, ud, down, s, l, was, gone);
			}
			c->entries += in_block;
			c->blocks += in_block > 0;
		}
		c->compared += r->num_lids;
	}
	free(down);
	return ud && !down ? -1 : 0;
}
