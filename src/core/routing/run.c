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

/* A root set must keep every pair of hosts connected; its first root
 * alone always does (one sink is above every switch). */
static int keep_hosts_connected(struct ibr_route_ctx *ctx,
				struct ibr_error *err)
{
	const struct ibr_fabric *f = ctx->f;
	bool connected;
	uint32_t a = 0, b = 0;

	if (ctx->roots.count < 2)
		return 0;
	if (ibr_roots_hosts_connected(f, &ctx->updown, &connected, &a, &b, err))
		return -1;
	if (connected)
		return 0;
	snprintf(ctx->roots.replaced, sizeof(ctx->roots.replaced),
		 "the %u roots (%s) leave switches 0x%016" PRIx64 " and "
		 "0x%016" PRIx64 " without a legal route between their hosts; "
		 "replaced by the first root alone", ctx->roots.count,
		 ctx->roots.how, ibr_switch(f, a)->guid, ibr_switch(f, b)->guid);
	ctx->roots.count = 1;
	ibr_updown_free(&ctx->updown);
	ctx->have_updown = false;
	if (ibr_updown_build_set(f, ctx->roots.sw, 1, &ctx->updown, err))
		return -1;
	ctx->have_updown = true;
	return 0;
}

int ibr_ctx_init(struct ibr_route_ctx *ctx, const struct ibr_fabric *f,
		 const struct ibr_root_choice *root,
		 const struct ibr_options *options, struct ibr_error *err)
{
	memset(ctx, 0, sizeof(*ctx));
	ctx->f = f;
	ctx->options = options;
	ctx->port_choice = IBR_PORT_BALANCED;
	if (!f->finalized)
		return ibr_error_set(err, "fabric not finalized");
	if (ibr_roots_resolve(f, root, &ctx->roots, err) ||
	    ibr_updown_build_set(f, ctx->roots.sw, ctx->roots.count,
				 &ctx->updown, err)) {
		ibr_roots_free(&ctx->roots);
		return -1;
	}
	ctx->have_updown = true;
	if (keep_hosts_connected(ctx, err)) {
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
