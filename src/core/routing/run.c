/*
 * run.c - one routing run: the context engines share and the call that
 * drives an engine (see engine.h).
 *
 * The root is chosen once per context and the orientation built at most
 * once, so every engine routed with one context sees the same up/down
 * graph (the hybrid's deadlock-freedom rests on it).  The time reported
 * covers what ibr_route() did: the engine, plus the orientation when this
 * run was the one to build it.
 */
#include <string.h>

#include "ibrouting/engine.h"
#include "util/timer.h"

int ibr_ctx_init(struct ibr_route_ctx *ctx, const struct ibr_fabric *f,
		 const struct ibr_root_choice *root,
		 const struct ibr_options *options, struct ibr_error *err)
{
	memset(ctx, 0, sizeof(*ctx));
	ctx->f = f;
	ctx->options = options;
	if (!f->finalized)
		return ibr_error_set(err, "fabric not finalized");
	return ibr_choose_root(f, root, &ctx->root, err);
}

void ibr_ctx_free(struct ibr_route_ctx *ctx)
{
	if (ctx->have_updown)
		ibr_updown_free(&ctx->updown);
	memset(ctx, 0, sizeof(*ctx));
}

const struct ibr_updown *ibr_ctx_updown(struct ibr_route_ctx *ctx,
					struct ibr_error *err)
{
	if (!ctx->have_updown) {
		if (ibr_updown_build(ctx->f, ctx->root, &ctx->updown, err))
			return NULL;
		ctx->have_updown = true;
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
	r->root = ctx->root;
	r->stats.compute_ms = ibr_now_ms() - start;
	return 0;
}

int ibr_route_once(const struct ibr_fabric *f, const struct ibr_engine *e,
		   const struct ibr_root_choice *root,
		   const struct ibr_options *options, struct ibr_result *r,
		   struct ibr_error *err)
{
	struct ibr_route_ctx ctx;
	int rc;

	memset(r, 0, sizeof(*r));
	if (ibr_ctx_init(&ctx, f, root, options, err))
		return -1;
	rc = ibr_route(&ctx, e, r, err);
	ibr_ctx_free(&ctx);
	return rc;
}
