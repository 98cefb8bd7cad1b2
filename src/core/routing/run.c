/*
 * run.c - one routing run: the context engines share and the call that
 * drives an engine (see engine.h).
 *
 * The root set is resolved once per context and the orientation built
 * once, at init, so every engine routed with one context sees the same
 * up/down graph (the hybrid's deadlock-freedom rests on it).  The time
 * reported covers what ibr_route() did: the engine.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ibrouting/engine.h"
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

/* The root set's service to the hosts (roots.h): roots that cannot reach
 * the SM's switch going down leave the set, named, the orientation built
 * again without them until every root does; a set that leaves two host
 * switches apart (or has no root left) is replaced by its first root
 * alone, which as the only sink reaches everything.  ctx->roots.replaced
 * says what was done, unreached what is left without a route down. */
static int serve_hosts(struct ibr_route_ctx *ctx, struct ibr_error *err)
{
	const struct ibr_fabric *f = ctx->f;
	struct ibr_roots *roots = &ctx->roots;
	struct ibr_roots_reach reach;
	uint32_t dropped = 0, first = roots->sw[0];
	char names[160] = "";
	bool *keep;
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
	if (reach.kept == 0 || reach.hosts_apart) {
		if (reach.hosts_apart)
			snprintf(roots->replaced, sizeof(roots->replaced),
				 "the %u roots (%s) leave switches 0x%016" PRIx64
				 " and 0x%016" PRIx64 " without a legal route "
				 "between their hosts; replaced by the first "
				 "root alone", roots->count, roots->how,
				 ibr_switch(f, reach.a)->guid,
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
		snprintf(roots->replaced, sizeof(roots->replaced), "%u roots of "
			 "%s cannot reach the SM's switch going down (a link "
			 "below them is gone) and are left out of the set: %s%s",
			 dropped, roots->how, names, dropped > 4 ? " ..." : "");
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
