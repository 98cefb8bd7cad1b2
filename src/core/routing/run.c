/*
 * run.c - one routing run: the context engines share and the call that
 * drives an engine (see engine.h).
 *
 * The root set is resolved once per context and the orientation built
 * once, at init, so every engine routed with one context sees the same
 * up/down graph (the hybrid's deadlock-freedom rests on it).  The time
 * reported covers what ibr_route() did: the engine, and for a multi-LID
 * engine the completion of its ranges (ranges.h), and the management
 * routes where the root set leaves no legal one (management.h).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ibrouting/engine.h"
#include "ibrouting/management.h"
#include "ibrouting/ranges.h"
#include "ibrouting/topology.h"
#include "util/timer.h"

static const char *const port_choice_names[] = {
	[IBR_PORT_BALANCED] = "balanced",
	[IBR_PORT_LOWEST] = "lowest",
};

const char *ibr_port_choice_name(enum ibr_port_choice pc)
{
	return port_choice_names[pc];
}

int ibr_port_choice_parse(const char *name, enum ibr_port_choice *pc)
{
	for (unsigned i = 0; i < 2; i++)
		if (strcmp(name, port_choice_names[i]) == 0) {
			*pc = i;
			return 0;
		}
	return -1;
}

static int rebuild(struct ibr_route_ctx *ctx, struct ibr_error *err)
{
	ibr_updown_free(&ctx->updown);
	ctx->have_updown = false;
	if (ibr_updown_build_set(ctx->f, ctx->roots.sw, ctx->roots.count,
				 &ctx->updown, err))
		return -1;
	ctx->have_updown = true;
	return 0;
}

/* The apart pairs with the roots gone[] marks left out; the set and the
 * orientation are left as they were (the caller rebuilds). */
static int apart_without(struct ibr_route_ctx *ctx, const uint8_t *gone,
			 bool *keep, uint64_t *apart, struct ibr_error *err)
{
	struct ibr_roots *roots = &ctx->roots;
	struct ibr_roots_reach reach;
	uint32_t *all = roots->sw, n = roots->count, k = 0;
	uint32_t *left = malloc(n * sizeof(uint32_t));
	int rc;

	if (!left)
		return ibr_error_set(err, "out of memory for %u roots", n);
	for (uint32_t i = 0; i < n; i++)
		if (!gone[all[i]])
			left[k++] = all[i];
	roots->sw = left;
	roots->count = k;
	rc = k == 0 ? 1 : rebuild(ctx, err) ? -1 :
	     ibr_roots_check_reach(ctx->f, &ctx->updown, keep, &reach, err);
	roots->sw = all;
	roots->count = n;
	free(left);
	*apart = rc == 0 ? reach.apart_pairs : UINT64_MAX;
	return rc < 0 ? -1 : 0;
}

/* The moves repair_apart weighs, for the first pair (a, b) apart: each
 * root alone that a or b climbs to or that has hosts, and all the roots
 * a climbs to, and all b does (a switch hanging off a few roots meets
 * the rest only when those leave: then it climbs past them). */
struct move {
	uint8_t *gone;          /* per switch */
	uint32_t size;
};

static int weigh_moves(struct ibr_route_ctx *ctx, const uint32_t *hosts,
		       uint32_t a, uint32_t b, uint64_t apart, bool *keep,
		       struct move *best, uint64_t *least,
		       struct ibr_error *err)
{
	const struct ibr_fabric *f = ctx->f;
	struct ibr_roots *roots = &ctx->roots;
	uint32_t S = f->num_switches;
	uint8_t *move = calloc(S, 1), *climbs = calloc(S, 2);
	struct ibr_climb cl;
	int rc = -1;

	*least = apart;
	best->size = 0;
	if (!move || !climbs || ibr_climb_build(f, &ctx->updown, &cl, err)) {
		if (!move || !climbs)
			ibr_error_set(err, "out of memory");
		free(move);
		free(climbs);
		return -1;
	}
	for (uint32_t i = 0; i < roots->count; i++) {
		uint32_t r = roots->sw[i], bit = cl.sink_bit[r];
		const uint64_t *x = cl.bits + (size_t)a * cl.words;
		const uint64_t *y = cl.bits + (size_t)b * cl.words;
		if (bit == IBR_NONE)
			continue;
		climbs[r] = x[bit / 64] >> (bit % 64) & 1;
		climbs[S + r] = y[bit / 64] >> (bit % 64) & 1;
	}
	ibr_climb_free(&cl);
	/* moves 0, 1: a's roots, b's roots; then each root alone */
	for (uint32_t m = 0; m < 2 + roots->count; m++) {
		uint32_t size = 0;
		uint64_t left = UINT64_MAX;
		memset(move, 0, S);
		for (uint32_t i = 0; i < roots->count; i++) {
			uint32_t r = roots->sw[i];
			bool in = m < 2 ? climbs[m * S + r] : i == m - 2 &&
				  (climbs[r] || climbs[S + r] || hosts[r]);
			move[r] = in;
			size += in;
		}
		if (size == 0 || (m >= 2 && size == roots->count))
			continue;
		if (apart_without(ctx, move, keep, &left, err))
			goto out;
		if (left < *least || (left == *least && left < apart &&
				      size < best->size)) {
			*least = left;
			best->size = size;
			memcpy(best->gone, move, S);
		}
	}
	rc = 0;
out:
	free(move);
	free(climbs);
	return rc;
}

/* Leaves roots out, a move at a time (weigh_moves), while that lessens
 * the host switch pairs apart: the move leaving the fewest, then the
 * smaller.  Names the roots left out into `names`; *fixed when no pair
 * is left apart. */
static int repair_apart(struct ibr_route_ctx *ctx,
			const struct ibr_roots_reach *first, bool *keep,
			uint32_t *left_out, char *names, size_t len, bool *fixed,
			struct ibr_error *err)
{
	const struct ibr_fabric *f = ctx->f;
	struct ibr_roots *roots = &ctx->roots;
	struct ibr_roots_reach reach = *first;
	uint32_t S = f->num_switches;
	uint32_t *hosts = malloc(S * sizeof(uint32_t));
	struct move best = { calloc(S, 1), 0 };
	int rc = -1;

	*fixed = false;
	if (!hosts || !best.gone) {
		ibr_error_set(err, "out of memory");
		goto out;
	}
	ibr_switch_hosts(f, hosts);
	while (reach.apart_pairs && roots->count > 1) {
		uint64_t least;
		uint32_t n = 0;
		if (weigh_moves(ctx, hosts, reach.a, reach.b, reach.apart_pairs,
				keep, &best, &least, err))
			goto out;
		if (best.size == 0)
			break;
		for (uint32_t i = 0; i < roots->count; i++) {
			uint32_t r = roots->sw[i];
			if (!best.gone[r]) {
				roots->sw[n++] = r;
			} else if ((*left_out)++ < 4) {
				size_t used = strlen(names);
				snprintf(names + used, len - used, "%s0x%016"
					 PRIx64, used ? ", " : "",
					 ibr_switch(f, r)->guid);
			}
		}
		roots->count = n;
		if (rebuild(ctx, err) ||
		    ibr_roots_check_reach(f, &ctx->updown, keep, &reach, err))
			goto out;
	}
	*fixed = reach.apart_pairs == 0;
	rc = rebuild(ctx, err);
out:
	free(hosts);
	free(best.gone);
	return rc;
}

/* The root set's service to the hosts (roots.h): roots that cannot reach
 * the SM's switch going down leave the set, named, the orientation built
 * again without them until every root does; a set that leaves two host
 * switches apart is repaired by leaving roots out (repair_apart), and
 * replaced by its first root alone, which as the only sink reaches
 * everything, only when that fails or no root is left.
 * ctx->roots.replaced says what was done, unreached what is left without
 * a route down. */
static int serve_hosts(struct ibr_route_ctx *ctx, struct ibr_error *err)
{
	const struct ibr_fabric *f = ctx->f;
	struct ibr_roots *roots = &ctx->roots;
	struct ibr_roots_reach reach;
	uint32_t dropped = 0, first = roots->sw[0], before, left_out = 0;
	char names[160] = "", left[100] = "";
	bool *keep, fixed = false;
	int rc = -1;

	if (roots->count < 2)
		return 0;
	keep = malloc(roots->count * sizeof(bool));
	if (!keep)
		return ibr_error_set(err, "out of memory for %u roots",
				     roots->count);
	for (;;) {
		uint32_t n = 0;
		if (ibr_roots_check_reach(f, &ctx->updown, keep, &reach, err))
			goto out;
		if (reach.kept == roots->count || reach.kept == 0)
			break;
		for (uint32_t i = 0; i < roots->count; i++)
			if (keep[i]) {
				roots->sw[n++] = roots->sw[i];
			} else if (dropped++ < 4) {
				size_t used = strlen(names);
				snprintf(names + used, sizeof(names) - used,
					 "%s0x%016" PRIx64, used ? ", " : "",
					 ibr_switch(f, roots->sw[i])->guid);
			}
		roots->count = n;
		if (rebuild(ctx, err))
			goto out;
	}
	before = roots->count;
	if (reach.kept && reach.hosts_apart) {
		if (repair_apart(ctx, &reach, keep, &left_out, left,
				 sizeof(left), &fixed, err) ||
		    ibr_roots_check_reach(f, &ctx->updown, keep, &reach, err))
			goto out;
		if (fixed)
			snprintf(roots->replaced, sizeof(roots->replaced),
				 "the %u roots (%s) left switches with hosts "
				 "without a legal route between them; %u left "
				 "out of the set: %s%s", before, roots->how,
				 left_out, left, left_out > 4 ? " ..." : "");
	}
	if (reach.kept == 0 || (reach.hosts_apart && !fixed)) {
		if (reach.hosts_apart)
			snprintf(roots->replaced, sizeof(roots->replaced),
				 "the %u roots (%s) leave switches 0x%016" PRIx64
				 " and 0x%016" PRIx64 " without a legal route "
				 "between their hosts, whatever root is left "
				 "out; replaced by the first root alone", before,
				 roots->how, ibr_switch(f, reach.a)->guid,
				 ibr_switch(f, reach.b)->guid);
		else
			snprintf(roots->replaced, sizeof(roots->replaced),
				 "no root of %s reaches the SM's switch going "
				 "down; replaced by the first root alone",
				 roots->how);
		roots->sw[0] = first;
		roots->count = 1;
		if (rebuild(ctx, err))
			goto out;
		memset(&reach, 0, sizeof(reach));
	} else if (dropped) {
		size_t used = strlen(roots->replaced);
		snprintf(roots->replaced + used, sizeof(roots->replaced) - used,
			 "%s%u roots of %s cannot reach the SM's switch going "
			 "down (a link below them is gone) and are left out of "
			 "the set: %s%s", used ? "; " : "", dropped, roots->how,
			 names, dropped > 4 ? " ..." : "");
	}
	roots->unreached = reach.unreached;
	roots->roots_unreaching = reach.roots_unreaching;
	rc = 0;
out:
	free(keep);
	return rc;
}

int ibr_ctx_init(struct ibr_route_ctx *ctx, const struct ibr_fabric *f,
		 const struct ibr_root_choice *root,
		 const struct ibr_options *options, struct ibr_error *err)
{
	memset(ctx, 0, sizeof(*ctx));
	ctx->f = f;
	ctx->options = options;
	ctx->port_choice = IBR_PORT_BALANCED;
	ctx->threads = 1;
	if (!f->finalized)
		return ibr_error_set(err, "fabric not finalized");
	if (ibr_roots_resolve(f, root, &ctx->roots, err) ||
	    ibr_updown_build_set(f, ctx->roots.sw, ctx->roots.count,
				 &ctx->updown, err)) {
		ibr_roots_free(&ctx->roots);
		return -1;
	}
	ctx->have_updown = true;
	if (serve_hosts(ctx, err)) {
		ibr_ctx_free(ctx);
		return -1;
	}
	ctx->root = ctx->roots.sw[0];
	return 0;
}

void ibr_ctx_free(struct ibr_route_ctx *ctx)
{
	if (ctx->have_updown)
		ibr_updown_free(&ctx->updown);
	ibr_roots_free(&ctx->roots);
	memset(ctx, 0, sizeof(*ctx));
}

const struct ibr_updown *ibr_ctx_updown(struct ibr_route_ctx *ctx,
					struct ibr_error *err)
{
	if (!ctx->have_updown) {
		ibr_error_set(err, "no orientation: the context was not "
			      "initialised");
		return NULL;
	}
	return &ctx->updown;
}

int ibr_route(struct ibr_route_ctx *ctx, const struct ibr_engine *e,
	      struct ibr_result *r, struct ibr_error *err)
{
	double start = ibr_now_ms();

	memset(r, 0, sizeof(*r));
	if (ibr_options_check(ctx->options, e, err) ||
	    ibr_result_init(r, ctx->f, err))
		return -1;
	ctx->engine = e;
	if (e->route(ctx, r, err)) {
		ibr_result_free(r);
		return -1;
	}
	/* a multi-LID engine routes the LIDs above the bases only along its
	 * designated paths: the rest of every range, from every switch, is
	 * the routing layer's (ranges.h), whatever the engine and however
	 * it routed (afresh, from the prior tables, on a LID half) */
	if (e->designates_dlids) {
		double t0 = ibr_now_ms();
		if (ibr_ranges_complete(ctx->f, &ctx->updown, r, ctx->threads,
					err)) {
			ibr_result_free(r);
			return -1;
		}
		if (r->ranges.completed)
			ibr_phase_add(r, "ranges completed", ibr_now_ms() - t0);
	}
	/* where the root set leaves a switch no legal route, management
	 * traffic still gets one (management.h), whatever the engine */
	{
		double t0 = ibr_now_ms();
		if (ibr_management_routes(ctx->f, &ctx->updown, r, err)) {
			ibr_result_free(r);
			return -1;
		}
		if (r->management.set)
			ibr_phase_add(r, "management routes", ibr_now_ms() - t0);
	}
	if (ibr_result_set_roots(r, ctx->updown.roots, ctx->updown.num_roots,
				 err)) {
		ibr_result_free(r);
		return -1;
	}
	r->stats.compute_ms = ibr_now_ms() - start;
	return 0;
}

int ibr_route_once(const struct ibr_fabric *f, const struct ibr_engine *e,
		   const struct ibr_root_choice *root,
		   const struct ibr_options *options, struct ibr_result *r,
		   struct ibr_error *err)
{
	return ibr_route_once_with(f, e, root, options, IBR_PORT_BALANCED, r,
				   err);
}

int ibr_route_once_with(const struct ibr_fabric *f, const struct ibr_engine *e,
			const struct ibr_root_choice *root,
			const struct ibr_options *options,
			enum ibr_port_choice pc, struct ibr_result *r,
			struct ibr_error *err)
{
	struct ibr_route_ctx ctx;
	int rc;

	memset(r, 0, sizeof(*r));
	if (ibr_ctx_init(&ctx, f, root, options, err))
		return -1;
	ctx.port_choice = pc;
	rc = ibr_route(&ctx, e, r, err);
	ibr_ctx_free(&ctx);
	return rc;
}
