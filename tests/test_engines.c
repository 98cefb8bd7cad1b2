/*
 * test_engines.c - every registered engine x every fabric family, as a
 * table: one cmocka test per (engine, family), so one failure hides
 * nothing, and a new engine of ibr_engines[] is tested here without a
 * line changed.
 *
 * Generic properties, checked for every engine on every fabric:
 *   - the verifier finds nothing: delivery and no loop for every LID of
 *     every range from every switch, an acyclic channel dependency graph
 *     over all of them, every (source, destination) pair delivered along
 *     its designated DLID;
 *   - every walk is a legal up/down route under the run's orientation:
 *     no up link after a down link, checked here against the orientation,
 *     independently of the engine and of the verifier;
 *   - the designated walk of every pair ends at the destination and starts
 *     at the source's switch;
 *   - routing twice gives identical tables and designated DLIDs.
 * Engine-specific properties: FERa starts with a down link wherever an
 * all-down route exists (§2.3, against a plain DFS); PIRa never has more
 * explicit entries than FERa and gives every switch but the root a default
 * port; destination renaming keeps FERa's tables on every base and switch
 * LID, chooses legal paths as short as a BFS over (switch, phase) finds,
 * and every designated walk is the path it chose (or FERa's route when
 * the path fell back), on 43 fabrics at LMC 1, 2 and 3 besides the table.
 * Walks on LIDs above a base start only where the entry is set.
 * Pairs owed no route (a Clos whose two spines, the auto roots, carry an
 * aggregation node each): every engine, with either port choice, and
 * colorl with each path scheme and unit kind, verify with the two pairs
 * between the aggregation nodes owed none.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "fixtures.h"
#include "legal_ref.h"
#include "ibrouting/colorl.h"
#include "ibrouting/dr.h"
#include "ibrouting/engine.h"
#include "ibrouting/ranges.h"
#include "ibrouting/generate.h"
#include "ibrouting/prior.h"
#include "ibrouting/verify.h"
#include "ibrouting/walk.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

struct family {
	const char *name;
	unsigned lmc;
	const char *const *specs;   /* NULL-terminated */
};

static const char *const random_specs[] = {
	"random:sw=8,ca=16,seed=1",     "random:sw=8,ca=16,seed=2",
	"random:sw=16,ca=128,seed=1",   "random:sw=16,ca=128,seed=2",
	"random:sw=16,ca=128,seed=3",   "random:sw=24,ca=48,seed=4",
	"random:sw=32,ca=256,seed=1",   "random:sw=32,ca=256,seed=2",
	"random:sw=32,ca=256,seed=3",   "random:sw=32,ca=256,seed=4",
	"random:sw=32,ca=256,seed=5",   "random:sw=32,ca=256,seed=6",
	"random:sw=48,ca=96,deg=4,seed=7", "random:sw=48,ca=96,deg=6,seed=8",
	"random:sw=64,ca=512,seed=1",   "random:sw=64,ca=512,seed=2",
	"random:sw=64,ca=1024,seed=3",  "random:sw=64,ca=128,deg=3,seed=9",
	"random:sw=100,ca=300,seed=10", "random:sw=128,ca=1024,seed=11",
	"random:sw=200,ca=800,seed=12", "random:sw=40,ca=40,deg=8,seed=13",
	NULL,
};
static const char *const clos_specs[] = {
	"clos:leaf=4,spine=2,ca=32,seed=1",   "clos:leaf=8,spine=4,ca=128,seed=2",
	"clos:leaf=16,spine=8,ca=256,seed=3", "clos:leaf=12,spine=6,ca=100,seed=4",
	"clos:leaf=24,spine=12,ca=384,seed=5",
	/* 254 spines: port 254 is a real port, never a marker */
	"clos:leaf=2,spine=254,ca=0,seed=1",
	NULL,
};
static const char *const torus_specs[] = {
	"torus:dims=4x4,ca=1,broken=0,seed=1", "torus:dims=4x4,ca=2,broken=3,seed=2",
	"torus:dims=6x6,ca=1,broken=5,seed=3", "torus:dims=8x4,ca=2,broken=8,seed=4",
	"torus:dims=3x3x3,ca=1,broken=0,seed=5", "torus:dims=4x4x4,ca=1,broken=6,seed=6",
	"torus:dims=4x3x2,ca=2,broken=4,seed=7", "torus:dims=5x5x2,ca=1,broken=10,seed=8",
	"torus:dims=2x2x2,ca=3,broken=1,seed=9", "torus:dims=10x2,ca=1,broken=2,seed=10",
	"torus:dims=8x8,ca=1,broken=12,seed=11",
	NULL,
};
static const char *const edge_specs[] = {
	"random:sw=2,ca=4,deg=1,seed=1", "random:sw=1,ca=8,deg=0,seed=1",
	"random:sw=3,ca=0,deg=2,seed=2",
	NULL,
};
/* Every LID of every range: LMC 1..3 on a few fabrics of each kind. */
static const char *const lmc_specs[] = {
	"random:sw=16,ca=64,seed=21", "random:sw=32,ca=128,seed=22",
	"clos:leaf=8,spine=4,ca=64,seed=23", "torus:dims=4x4,ca=2,broken=3,seed=24",
	NULL,
};

static const struct family families[] = {
	{ "random", 0, random_specs },
	{ "clos", 0, clos_specs },
	{ "torus", 0, torus_specs },
	{ "edge", 0, edge_specs },
	{ "lmc1", 1, lmc_specs },
	{ "lmc2", 2, lmc_specs },
	{ "lmc3", 3, lmc_specs },
};

struct cell {
	const struct ibr_engine *engine;
	const struct family *family;
};

/* A LID above its range's base. */
static int is_renamed_lid(const struct ibr_fabric *f, ibr_lid_t lid)
{
	const struct ibr_lid_owner *o = &f->lid_owner[lid];

	return lid != ibr_port(f, o->node, o->port)->base_lid;
}

/* Walks every (switch, LID): every LID of every range (above the base
 * too: multi-LID engines' ranges are completed, ranges.h) and every
 * switch LID, but where the climb sets cl, when given, say the switch has
 * no legal route to the LID's (owed none), and checks it is a delivered,
 * legal up/down route. */
static void assert_legal_updown(const struct ibr_walker *w,
				const struct ibr_result *r,
				const struct ibr_updown *ud,
				const struct ibr_climb *cl, const char *what)
{
	const struct ibr_fabric *f = w->f;

	for (uint32_t lid = 1; lid <= f->max_lid; lid++) {
		if (f->lid_owner[lid].node == IBR_NONE)
			continue;
		for (uint32_t start = 0; start < f->num_switches; start++) {
			uint32_t s = start, next = 0, hops = 0;
			int went_down = 0;
			/* no legal route: IBR_NO_PATH or a management
			 * route (management.h), which no data walk takes */
			if (cl && !ibr_climb_meet(cl, start,
						  ibr_lid_switch(f, lid)))
				continue;
			while (ibr_walker_entry_step(w, r, s, lid, &next) ==
			       IBR_STEP_NEXT) {
				int up = ibr_link_is_up(f, ud, s, next);
				if (up && went_down)
					fail_msg("%s: LID %u from switch %u turns "
						 "down->up at switch %u", what, lid,
						 start, s);
				went_down |= !up;
				s = next;
				if (++hops > f->num_switches)
					fail_msg("%s: LID %u loops", what, lid);
			}
			if (ibr_walker_entry_step(w, r, s, lid, &next) !=
			    IBR_STEP_ARRIVED)
				fail_msg("%s: LID %u from switch %u is not "
					 "delivered", what, lid, start);
		}
	}
}

/* Every pair's designated DLID is one of the destination's LIDs, and its
 * walk from the source's switch hands the packet to the destination. */
static void assert_designated(const struct ibr_walker *w,
			      const struct ibr_result *r, const char *what)
{
	const struct ibr_fabric *f = w->f;

	for (uint32_t src = 0; src < f->num_end_ports; src++)
		for (uint32_t dst = 0; dst < f->num_end_ports; dst++) {
			const struct ibr_end_port *d = &f->end_ports[dst];
			ibr_lid_t dlid = ibr_designated_dlid(r, f, src, dst);
			uint32_t s = f->end_ports[src].sw, next = 0;
			unsigned steps = 0;
			if (src == dst)
				continue;
			assert_true(f->lid_owner[dlid].node == d->node &&
				    f->lid_owner[dlid].port == d->port);
			while (ibr_walker_entry_step(w, r, s, dlid, &next) ==
			       IBR_STEP_NEXT && steps++ <= f->num_switches)
				s = next;
			if (s != d->sw || ibr_entry(r, s, dlid) != d->sw_port)
				fail_msg("%s: end port %u -> %u on DLID %u does not "
					 "arrive", what, src, dst, dlid);
		}
}

/* Reference: can switch s reach switch d going down only?  Plain DFS. */
static int reaches_down(const struct ibr_fabric *f, const struct ibr_updown *ud,
			uint32_t s, uint32_t d, uint8_t *seen)
{
	if (s == d)
		return 1;
	seen[s] = 1;
	for (uint32_t i = f->sw_adj_start[s]; i < f->sw_adj_start[s + 1]; i++) {
		uint32_t t = f->sw_adj[i].peer;
		if (!seen[t] && !ibr_link_is_up(f, ud, s, t) &&
		    reaches_down(f, ud, t, d, seen))
			return 1;
	}
	return 0;
}

static void assert_fera_prefers_down(const struct ibr_walker *w,
				     const struct ibr_result *r,
				     const struct ibr_updown *ud, const char *what)
{
	const struct ibr_fabric *f = w->f;
	uint8_t *seen = malloc(f->num_switches);

	for (uint32_t d = 0; d < f->num_switches; d++) {
		ibr_lid_t lid = ibr_switch_lid(f, d);
		for (uint32_t s = 0; s < f->num_switches; s++) {
			uint32_t next = 0;
			if (s == d)
				continue;
			memset(seen, 0, f->num_switches);
			assert_int_equal(ibr_walker_entry_step(w, r, s, lid, &next),
					 IBR_STEP_NEXT);
			if (reaches_down(f, ud, s, d, seen) &&
			    ibr_link_is_up(f, ud, s, next))
				fail_msg("%s: fera goes up from switch %u to LID %u "
					 "though a down route exists", what, s, lid);
		}
	}
	free(seen);
}

/* Multi-LID engines keep FERa's tables on every base LID and switch LID. */
static void assert_base_is_fera(struct ibr_route_ctx *ctx,
				const struct ibr_result *r, const char *what)
{
	const struct ibr_fabric *f = ctx->f;
	struct ibr_error err = { "" };
	struct ibr_result fera;

	if (ibr_route(ctx, ibr_engine_find("fera"), &fera, &err))
		fail_msg("%s: fera: %s", what, err.msg);
	for (uint32_t lid = 1; lid <= f->max_lid; lid++)
		if (f->lid_owner[lid].node != IBR_NONE && !is_renamed_lid(f, lid))
			assert_memory_equal(ibr_column(r, lid), ibr_column(&fera, lid),
					    f->num_switches);
	ibr_result_free(&fera);
}

/* Destination renaming: the base LID of every range and every switch LID
 * carry exactly FERa's tables; every chosen path is legal and minimal
 * among legal paths; every designated walk of a CA on the path's source
 * switch is that path (on its offset) or, when it fell back, FERa's route
 * on the base LID; every pair has a path.  Returns the fallback paths. */
static unsigned assert_dr_paths(struct ibr_route_ctx *ctx,
				const struct ibr_walker *w,
				const struct ibr_result *r,
				const struct ibr_updown *ud, const char *what)
{
	const struct ibr_fabric *f = ctx->f;
	uint32_t S = f->num_switches, E = f->num_end_ports;
	uint32_t *len = malloc((size_t)S * S * sizeof(uint32_t));
	struct ibr_error err = { "" };
	struct ibr_result again;
	struct ibr_dr_detail d;
	uint64_t expected = 0;
	unsigned fallbacks = 0;

	assert_base_is_fera(ctx, r, what);
	assert_int_equal(ibr_result_init(&again, f, &err), 0);
	if (ibr_dr_route_detail(ctx, &again, &d, &err))
		fail_msg("%s: dr detail: %s", what, err.msg);
	/* the engine's own tables, then the routing layer's completion of
	 * the ranges (ranges.h), as ibr_route does */
	if (ibr_ranges_complete(f, &ctx->updown, &again, ctx->threads, &err))
		fail_msg("%s: ranges: %s", what, err.msg);
	assert_memory_equal(again.col, r->col, (size_t)r->num_lids * S);

	for (uint32_t s = 0; s < S; s++)
		legal_lengths(f, ud, s, len + (size_t)s * S);
	for (uint32_t p = 0; p < d.paths.num_paths; p++) {
		const struct ibr_end_port *src = &f->end_ports[d.paths.src[p]];
		const struct ibr_end_port *dst = &f->end_ports[d.paths.dst[p]];
		const struct ibr_port *dp = ibr_port(f, dst->node, dst->port);
		uint32_t a = d.paths.first[p], n = ibr_path_len(&d.paths, p);
		uint8_t k = d.offset[p];
		int went_down = 0;

		for (uint32_t i = 0; i + 1 < n; i++) {
			uint32_t x = d.paths.hop_switch[a + i];
			uint32_t y = d.paths.hop_switch[a + i + 1];
			int up = ibr_link_is_up(f, ud, x, y);
			if (up && went_down)
				fail_msg("%s: path %u turns down->up", what, p);
			went_down |= !up;
		}
		if (n - 1 != len[(size_t)src->sw * S + dst->sw])
			fail_msg("%s: path %u has %u links, the shortest legal "
				 "route %u", what, p, n - 1,
				 len[(size_t)src->sw * S + dst->sw]);
		fallbacks += k == IBR_NOT_REALISED;
		for (uint32_t c = f->sw_ca_start[src->sw]; c < f->sw_ca_start[src->sw + 1]; c++) {
			uint32_t ca = f->sw_cas[c], x = src->sw, next = 0, i = 0;
			ibr_lid_t dlid = ibr_designated_dlid(r, f, ca, d.paths.dst[p]);
			assert_int_equal(dlid, dp->base_lid +
					 (k == IBR_NOT_REALISED ? 0 : k));
			if (k == IBR_NOT_REALISED)
				continue; /* FERa's route: checked above */
			for (;;) {
				assert_true(i < n);
				assert_int_equal(d.paths.hop_switch[a + i], x);
				assert_int_equal(d.paths.hop_port[a + i],
						 ibr_entry(r, x, dlid));
				i++;
				if (ibr_walker_entry_step(w, r, x, dlid, &next) !=
				    IBR_STEP_NEXT)
					break;
				x = next;
			}
			assert_int_equal(i, n);
		}
	}
	/* one path per (source switch with CAs, end port on another switch) */
	for (uint32_t s = 0; s < S; s++)
		if (f->sw_ca_start[s + 1] > f->sw_ca_start[s])
			for (uint32_t e = 0; e < E; e++)
				expected += f->end_ports[e].sw != s;
	assert_int_equal(d.paths.num_paths, expected);
	assert_int_equal(ibr_stat_get(r, "fallback pairs", 0) == 0, fallbacks == 0);
	ibr_dr_detail_free(&d);
	ibr_result_free(&again);
	free(len);
	return fallbacks;
}

/* color/L: base and switch LIDs are FERa's; every unit's selected path is
 * a legal chain of links from the source's switch to the destination's;
 * every pair on different switches whose DLID was not moved walks its
 * unit's path exactly, then to the destination CA; routing again with the
 * detail gives the same tables.  Returns the pairs moved. */
static uint64_t assert_colorl_paths(struct ibr_route_ctx *ctx,
				    const struct ibr_walker *w,
				    const struct ibr_result *r,
				    const struct ibr_updown *ud, const char *what)
{
	const struct ibr_fabric *f = ctx->f;
	uint32_t S = f->num_switches, E = f->num_end_ports;
	struct ibr_error err = { "" };
	struct ibr_colorl_detail d;
	struct ibr_result again;
	const struct ibr_paths *p;
	uint32_t *unit_of;
	uint64_t moved = 0, keys;

	assert_base_is_fera(ctx, r, what);
	assert_int_equal(ibr_result_init(&again, f, &err), 0);
	if (ibr_colorl_route_detail(ctx, &again, &d, &err))
		fail_msg("%s: colorl detail: %s", what, err.msg);
	/* the engine's own tables, then the routing layer's completion of
	 * the ranges (ranges.h), as ibr_route does */
	if (ibr_ranges_complete(f, &ctx->updown, &again, ctx->threads, &err))
		fail_msg("%s: ranges: %s", what, err.msg);
	assert_memory_equal(again.col, r->col, (size_t)r->num_lids * S);
	if (ibr_stat_get(r, "selection kept the base", 0)) {
		/* its selection was no lighter than the base: every pair
		 * rides its base LID (colorl.c) */
		for (size_t i = 0; i < (size_t)r->designated.rows * r->designated.cols; i++)
			assert_int_equal(r->designated.offset[i], 0);
		ibr_colorl_detail_free(&d);
		ibr_result_free(&again);
		return 0;
	}
	p = &d.paths;
	keys = p->per_ca ? (uint64_t)E * E : (uint64_t)S * S;
	unit_of = malloc(keys * sizeof(uint32_t));
	for (uint64_t i = 0; i < keys; i++)
		unit_of[i] = IBR_NONE;
	for (uint32_t u = 0; u < p->num_units; u++) {
		uint32_t n = p->first[u + 1] - p->first[u], x, went_down = 0;
		uint64_t key = (uint64_t)p->src[u] * (p->per_ca ? E : S) + p->dst[u];
		assert_int_equal(unit_of[key], IBR_NONE);
		unit_of[key] = u;
		x = ibr_unit_src_switch(f, p, u);
		for (uint32_t i = 0; i < n; i++) {
			uint32_t h = p->first[u] + i, next = 0;
			assert_int_equal(p->hop_sw[h], x);
			assert_int_equal(ibr_walker_step(w, x, 0, p->hop_port[h], &next),
					 IBR_STEP_NEXT);
			if (ibr_link_is_up(f, ud, x, next) && went_down)
				fail_msg("%s: unit %u turns down->up", what, u);
			went_down |= !ibr_link_is_up(f, ud, x, next);
			x = next;
		}
		assert_int_equal(x, ibr_unit_dst_switch(f, p, u));
	}
	for (uint32_t a = 0; a < E; a++)
		for (uint32_t b = 0; b < E; b++) {
			const struct ibr_end_port *ea = &f->end_ports[a], *eb = &f->end_ports[b];
			size_t slot = (size_t)ibr_designated_row(r, f, a) * r->designated.cols + b;
			ibr_lid_t dlid = ibr_designated_dlid(r, f, a, b);
			uint32_t u, x = ea->sw, next = 0, i;
			if (ea->sw == eb->sw)
				continue;
			u = unit_of[p->per_ca ? (uint64_t)a * E + b :
					       (uint64_t)ea->sw * S + eb->sw];
			assert_int_not_equal(u, IBR_NONE);
			if (ibr_colorl_moved(&d, slot)) {
				moved++;
				continue;
			}
			for (i = p->first[u]; i < p->first[u + 1]; i++) {
				assert_int_equal(x, p->hop_sw[i]);
				assert_int_equal(ibr_entry(r, x, dlid), p->hop_port[i]);
				assert_int_equal(ibr_walker_entry_step(w, r, x, dlid, &next),
						 IBR_STEP_NEXT);
				x = next;
			}
			assert_int_equal(x, eb->sw);
			assert_int_equal(ibr_entry(r, x, dlid), eb->sw_port);
		}
	assert_int_equal(ibr_stat_get(r, "pairs moved", 0) == 0, moved == 0);
	free(unit_of);
	ibr_colorl_detail_free(&d);
	ibr_result_free(&again);
	return moved;
}

static void route(struct ibr_route_ctx *ctx, const struct ibr_engine *e,
		  struct ibr_result *r, const char *what)
{
	struct ibr_error err = { "" };

	if (ibr_route(ctx, e, r, &err))
		fail_msg("%s: %s", what, err.msg);
}

static void check_engine_on(const struct ibr_engine *e, const char *spec,
			    unsigned lmc)
{
	struct ibr_fabric *f = generated_fabric(spec, lmc);
	struct ibr_root_choice root = { .guid = 0, .strategy = IBR_ROOT_SM };
	struct ibr_error err = { "" };
	struct ibr_verify_report rep;
	struct ibr_route_ctx ctx;
	struct ibr_result r, again;
	struct ibr_walker w;
	const struct ibr_updown *ud;
	char what[200];

	snprintf(what, sizeof(what), "%s on %s lmc %u", e->name, spec, lmc);
	assert_int_equal(ibr_ctx_init(&ctx, f, &root, NULL, &err), 0);
	route(&ctx, e, &r, what);
	ud = ibr_ctx_updown(&ctx, &err);
	assert_non_null(ud);
	assert_int_equal(ibr_walker_init(&w, f, &err), 0);

	if (ibr_verify(f, &r, NULL, &rep, &err))
		fail_msg("%s: verify: %s", what, err.msg);
	if (ibr_verify_findings(&rep))
		fail_msg("%s: %s", what, rep.messages[0]);
	assert_int_equal(rep.designated.flows, (uint64_t)f->num_end_ports *
			 (f->num_end_ports ? f->num_end_ports - 1 : 0));
	assert_legal_updown(&w, &r, ud, NULL, what);
	assert_designated(&w, &r, what);

	if (strcmp(e->name, "fera") == 0)
		assert_fera_prefers_down(&w, &r, ud, what);
	if (strcmp(e->name, "dr") == 0)
		assert_dr_paths(&ctx, &w, &r, ud, what);
	if (strcmp(e->name, "colorl") == 0)
		assert_colorl_paths(&ctx, &w, &r, ud, what);
	if (strcmp(e->name, "pira") == 0) {
		struct ibr_result fera;
		route(&ctx, ibr_engine_find("fera"), &fera, what);
		assert_true(ibr_stat_get(&r, "explicit entries", 0) <=
			    ibr_stat_get(&fera, "explicit entries", 0));
		assert_int_equal(ibr_stat_get(&r, "default ports", 0),
				 f->num_switches - 1);
		ibr_result_free(&fera);
	}

	/* determinism, in a context of its own */
	assert_int_equal(ibr_route_once(f, e, &root, NULL, &again, &err), 0);
	assert_int_equal(again.root, r.root);
	assert_memory_equal(again.col, r.col, (size_t)r.num_lids * r.num_switches);
	assert_int_equal(again.designated.offset == NULL,
			 r.designated.offset == NULL);
	if (r.designated.offset)
		assert_memory_equal(again.designated.offset, r.designated.offset,
				    (size_t)r.designated.rows * r.designated.cols);
	ibr_result_free(&again);

	ibr_walker_free(&w);
	ibr_ctx_free(&ctx);
	ibr_result_free(&r);
	ibr_fabric_free(f);
}

static void test_cell(void **state)
{
	const struct cell *c = *state;
	unsigned n = 0;

	for (const char *const *spec = c->family->specs; *spec; spec++, n++)
		check_engine_on(c->engine, *spec, c->family->lmc);
	print_message("%s: %u %s fabrics verified\n", c->engine->name, n,
		      c->family->name);
}

/* Every multi-LID engine (designates_dlids: dr, colorl) on every generated
 * fabric above (43) at LMC 1, 2 and 3: the generic checks and the
 * engine's own (assert_dr_paths, assert_colorl_paths). */
static void test_multi_lid_with_lmc(void **state)
{
	const char *const *lists[] = { random_specs, clos_specs, torus_specs,
				       lmc_specs };
	unsigned engines = 0;

	(void)state;
	for (unsigned e = 0; ibr_engines[e]; e++) {
		unsigned fabrics = 0;
		if (!ibr_engines[e]->designates_dlids)
			continue;
		engines++;
		for (unsigned l = 0; l < N(lists); l++)
			for (const char *const *spec = lists[l]; *spec; spec++, fabrics++)
				for (unsigned lmc = 1; lmc <= 3; lmc++)
					check_engine_on(ibr_engines[e], *spec, lmc);
		assert_true(fabrics >= 40);
		print_message("%s: %u fabrics verified at LMC 1, 2 and 3\n",
			      ibr_engines[e]->name, fabrics);
	}
	assert_true(engines >= 1);
}

/* Every root strategy yields verified tables; center differs from sm
 * on at least one fabric (else the option would mean nothing). */
static void test_root_strategies(void **state)
{
	static const enum ibr_root_strategy strategies[] = {
		IBR_ROOT_SM, IBR_ROOT_LOWEST_LID, IBR_ROOT_CENTER,
	};
	unsigned center_differs = 0;

	(void)state;
	for (unsigned i = 0; i < 12; i++) {
		struct ibr_fabric *f = generated_fabric(random_specs[i], 0);
		uint32_t roots[3];
		for (unsigned k = 0; k < N(strategies); k++) {
			struct ibr_root_choice root = { .strategy = strategies[k] };
			struct ibr_verify_report rep;
			struct ibr_error err = { "" };
			struct ibr_result r;
			assert_int_equal(ibr_route_once(f, ibr_engine_find("pira"),
							&root, NULL, &r, &err), 0);
			assert_int_equal(ibr_verify(f, &r, NULL, &rep, &err), 0);
			assert_int_equal(ibr_verify_findings(&rep), 0);
			roots[k] = r.root;
			ibr_result_free(&r);
		}
		assert_int_equal(roots[0], roots[1]); /* no SM known offline */
		center_differs += roots[2] != roots[1];
		ibr_fabric_free(f);
	}
	assert_true(center_differs > 0);
}

static void test_explicit_root_guid(void **state)
{
	struct ibr_fabric *f = generated_fabric("random:sw=16,ca=32,seed=3", 0);
	const struct ibr_engine *fera = ibr_engine_find("fera");
	struct ibr_root_choice root = { .guid = ibr_switch(f, 7)->guid, .strategy = IBR_ROOT_SM };
	/* refuse: under `next` an unusable GUID passes to the strategy */
	struct ibr_root_choice ca = { .guid = 0, .strategy = IBR_ROOT_SM,
				      .fallback = IBR_ROOT_FALLBACK_REFUSE };
	struct ibr_error err = { "" };
	struct ibr_result r;

	(void)state;
	assert_int_equal(ibr_route_once(f, fera, &root, NULL, &r, &err), 0);
	assert_int_equal(r.root, 7);
	assert_int_equal(ibr_entry(&r, 7, ibr_switch_lid(f, 7)), 0);
	ibr_result_free(&r);

	ca.guid = f->nodes[f->end_ports[0].node].guid;
	assert_int_equal(ibr_route_once(f, fera, &ca, NULL, &r, &err), -1);
	assert_non_null(strstr(err.msg, "not a switch"));

	memset(&err, 0, sizeof(err));
	ca.guid = 0xdeadbeef;
	assert_int_equal(ibr_route_once(f, fera, &ca, NULL, &r, &err), -1);
	assert_non_null(strstr(err.msg, "not in the fabric"));
	ibr_fabric_free(f);
}

/* colorl and dr route from the prior tables only under the same root
 * set (prior.h): on the same fabric from the same root every pair is
 * kept and not an entry changes; from another root the engine routes
 * afresh (no "pairs kept" figure) and its tables equal a run
 * with no prior tables. */
static void test_prior_needs_the_same_roots(void **state)
{
	struct ibr_fabric *f = generated_fabric("random:sw=16,ca=32,seed=3", 2);
	const char *names[] = { "colorl", "dr" };
	struct ibr_root_choice r3 = { .guid = ibr_switch(f, 3)->guid,
				      .strategy = IBR_ROOT_SM };
	struct ibr_root_choice r7 = { .guid = ibr_switch(f, 7)->guid,
				      .strategy = IBR_ROOT_SM };
	struct ibr_error err = { "" };

	(void)state;
	for (unsigned i = 0; i < 2; i++) {
		const struct ibr_engine *e = ibr_engine_find(names[i]);
		struct ibr_result prior_tables, again, other, fresh;
		struct ibr_prior prior;
		struct ibr_prior_change c;
		struct ibr_route_ctx ctx;

		assert_int_equal(ibr_route_once(f, e, &r3, NULL, &prior_tables, &err), 0);
		prior = (struct ibr_prior){ .f = f, .r = &prior_tables, .engine = e->name };
		assert_int_equal(ibr_ctx_init(&ctx, f, &r3, NULL, &err), 0);
		ctx.prior = &prior;
		assert_int_equal(ibr_route(&ctx, e, &again, &err), 0);
		ibr_ctx_free(&ctx);
		assert_int_not_equal(ibr_stat_get(&again, "pairs kept",
						  UINT64_MAX), UINT64_MAX);
		assert_int_equal(ibr_prior_difference(&prior, f, NULL, &again,
						      &c), 0);
		assert_int_equal(c.entries, 0);

		assert_int_equal(ibr_ctx_init(&ctx, f, &r7, NULL, &err), 0);
		ctx.prior = &prior;
		assert_int_equal(ibr_route(&ctx, e, &other, &err), 0);
		ibr_ctx_free(&ctx);
		assert_int_equal(ibr_stat_get(&other, "pairs kept",
					      UINT64_MAX), UINT64_MAX);
		assert_int_equal(ibr_route_once(f, e, &r7, NULL, &fresh, &err), 0);
		assert_memory_equal(other.col, fresh.col,
				    (size_t)fresh.num_lids * fresh.num_switches);
		ibr_result_free(&prior_tables);
		ibr_result_free(&again);
		ibr_result_free(&other);
		ibr_result_free(&fresh);
	}
	ibr_fabric_free(f);
}

/* A ring of four 6-port switches, two hosts on each (ports 3, 4), and
 * ports 5 and 6 of every switch cabled to each other: loopbacks, which
 * the fabric leaves out (fabric.h).  Every engine routes it, at LMC 2 so
 * that the multi-LID engines rename, its tables verify, and no entry of
 * any LID names a loopback port. */
static void test_loopbacks_never_routed(void **state)
{
	struct ibr_fabric *f = ibr_fabric_new();
	struct ibr_error err = { "" };
	uint32_t sw[4], ca;

	(void)state;
	assert_non_null(f);
	for (unsigned i = 0; i < 4; i++) {
		sw[i] = ibr_fabric_add_node(f, IBR_NODE_SWITCH, 0x100 + i, 6,
					    NULL, NULL, &err);
		assert_int_not_equal(sw[i], IBR_NONE);
	}
	for (unsigned i = 0; i < 4; i++) {
		assert_int_equal(ibr_fabric_connect(f, sw[i], 1, sw[(i + 1) % 4],
						    2, &err), 0);
		assert_int_equal(ibr_fabric_connect(f, sw[i], 5, sw[i], 6, &err), 0);
		/* the far end's line: the same cable again */
		assert_int_equal(ibr_fabric_connect(f, sw[i], 6, sw[i], 5, &err), 0);
		for (unsigned p = 3; p <= 4; p++) {
			ca = ibr_fabric_add_node(f, IBR_NODE_CA, 0x1000 + 16 * i + p,
						 1, NULL, NULL, &err);
			assert_int_not_equal(ca, IBR_NONE);
			assert_int_equal(ibr_fabric_connect(f, sw[i], p, ca, 1, &err), 0);
		}
	}
	if (ibr_fabric_finalize(f, 2, &err))
		fail_msg("finalize: %s", err.msg);
	assert_int_equal(f->num_loopbacks, 4);
	for (unsigned e = 0; ibr_engines[e]; e++) {
		struct ibr_root_choice root = { .guid = 0, .strategy = IBR_ROOT_SM };
		struct ibr_verify_report rep;
		struct ibr_result r;
		if (ibr_route_once(f, ibr_engines[e], &root, NULL, &r, &err))
			fail_msg("%s: %s", ibr_engines[e]->name, err.msg);
		assert_int_equal(ibr_verify(f, &r, NULL, &rep, &err), 0);
		if (ibr_verify_findings(&rep))
			fail_msg("%s: %s", ibr_engines[e]->name, rep.messages[0]);
		for (uint32_t s = 0; s < f->num_switches; s++)
			for (uint32_t lid = 1; lid < r.num_lids; lid++)
				if (ibr_entry(&r, s, lid) == 5 ||
				    ibr_entry(&r, s, lid) == 6)
					fail_msg("%s: switch %u LID %u leaves by "
						 "loopback port %u",
						 ibr_engines[e]->name, s, lid,
						 ibr_entry(&r, s, lid));
		ibr_result_free(&r);
	}
	ibr_fabric_free(f);
}

/* The root chain's test of a GUID (the plugin and the tool move to
 * their next link on a reason): a switch can be the root, a CA or a GUID
 * not in the fabric cannot, each with its reason. */
static void test_root_guid_unusable(void **state)
{
	struct ibr_fabric *f = generated_fabric("random:sw=8,ca=8,seed=2", 0);
	enum ibr_root_fallback fb;

	(void)state;
	assert_null(ibr_root_guid_unusable(f, ibr_switch(f, 3)->guid));
	assert_string_equal(ibr_root_guid_unusable(f,
			    f->nodes[f->end_ports[0].node].guid),
			    "is a CA, not a switch");
	assert_string_equal(ibr_root_guid_unusable(f, 0xdeadbeef),
			    "is not in the fabric");
	assert_int_equal(ibr_root_fallback_parse("next", &fb), 0);
	assert_int_equal(fb, IBR_ROOT_FALLBACK_NEXT);
	assert_int_equal(ibr_root_fallback_parse("refuse", &fb), 0);
	assert_int_equal(fb, IBR_ROOT_FALLBACK_REFUSE);
	assert_int_equal(ibr_root_fallback_parse("minhop", &fb), -1);
	assert_string_equal(ibr_root_fallback_name(IBR_ROOT_FALLBACK_REFUSE),
			    "refuse");
	ibr_fabric_free(f);
}

/* Engines routed in one context share one orientation (the hybrid's
 * premise): the orientation is built once and both see the same root. */
static void test_context_shares_orientation(void **state)
{
	struct ibr_fabric *f = generated_fabric("random:sw=32,ca=64,seed=4", 0);
	struct ibr_root_choice root = { .strategy = IBR_ROOT_CENTER };
	struct ibr_error err = { "" };
	struct ibr_route_ctx ctx;
	struct ibr_result a, b;
	const struct ibr_updown *ud;

	(void)state;
	assert_int_equal(ibr_ctx_init(&ctx, f, &root, NULL, &err), 0);
	assert_true(ctx.have_updown);  /* built at init, from the roots */
	route(&ctx, ibr_engine_find("pira"), &a, "pira");
	ud = ibr_ctx_updown(&ctx, &err);
	route(&ctx, ibr_engine_find("fera"), &b, "fera");
	assert_ptr_equal(ibr_ctx_updown(&ctx, &err), ud);
	assert_int_equal(a.root, b.root);
	assert_int_equal(a.root, ud->root);
	ibr_result_free(&a);
	ibr_result_free(&b);
	ibr_ctx_free(&ctx);
	ibr_fabric_free(f);
}

/* Options: an engine refuses what it does not declare. */
static void test_options_are_checked(void **state)
{
	struct ibr_fabric *f = generated_fabric("random:sw=8,ca=16,seed=1", 0);
	struct ibr_root_choice root = { .guid = 0, .strategy = IBR_ROOT_SM };
	struct ibr_options o = { 0 };
	struct ibr_error err = { "" };
	struct ibr_result r;

	(void)state;
	assert_int_equal(ibr_options_add(&o, "k=4", NULL, &err), 0);
	assert_int_equal(ibr_route_once(f, ibr_engine_find("fera"), &root, &o,
					&r, &err), -1);
	assert_non_null(strstr(err.msg, "engine fera has no option \"k\""));
	memset(&err, 0, sizeof(err));
	assert_int_equal(ibr_options_add(&o, "novalue", NULL, &err), -1);
	assert_non_null(strstr(err.msg, "expected key=value"));
	ibr_fabric_free(f);
}

/* What an engine can do is a field of its struct (engine.h), and the
 * fields agree with what the engine declares and does: an engine routes
 * from the prior tables exactly when it takes the option bounding it;
 * one that designates DLIDs needs an LMC, has an overflow figure and
 * leaves a designated map (LMC 2), the others neither; the fallback
 * engine is registered, routes afresh and has one route per
 * destination. */
static void test_capabilities(void **state)
{
	struct ibr_fabric *f = generated_fabric("random:sw=8,ca=16,seed=1", 2);
	struct ibr_root_choice root = { .guid = 0, .strategy = IBR_ROOT_SM };
	bool fallback_listed = false;

	(void)state;
	for (unsigned i = 0; ibr_engines[i]; i++) {
		const struct ibr_engine *e = ibr_engines[i];
		bool has_option = false;
		struct ibr_error err = { "" };
		struct ibr_result r;
		for (const struct ibr_option_spec *o = e->options; o && o->key;
		     o++)
			has_option |= strcmp(o->key, IBR_PRIOR_OPTION) == 0;
		if (has_option != e->routes_from_prior)
			fail_msg("%s: option %s %s, routes_from_prior "
				 "%d", e->name, IBR_PRIOR_OPTION, has_option ?
				 "taken" : "not taken",
				 e->routes_from_prior);
		assert_int_equal(e->designates_dlids, e->min_lmc >= 1);
		assert_int_equal(e->designates_dlids, e->overflow_stat != NULL);
		if (ibr_route_once(f, e, &root, NULL, &r, &err))
			fail_msg("%s: %s", e->name, err.msg);
		if ((r.designated.offset != NULL) != e->designates_dlids)
			fail_msg("%s: designates_dlids %d, designated map %s",
				 e->name, e->designates_dlids,
				 r.designated.offset ? "made" : "none");
		ibr_result_free(&r);
		/* an engine that mends the prior tables names a fallback
		 * of the registry that routes afresh, one route a
		 * destination */
		if (e->routes_from_prior) {
			const struct ibr_engine *fb = e->fallback;
			bool listed = false;
			assert_non_null(fb);
			for (const struct ibr_engine *const *x = ibr_engines; *x; x++)
				listed |= *x == fb;
			assert_true(listed);
			assert_non_null(fb->route_afresh);
			assert_false(fb->designates_dlids);
			fallback_listed = true;
		}
	}
	assert_true(fallback_listed);
	ibr_fabric_free(f);
}

/* An engine's phases (result.h): a name met again adds to its time, the
 * first order stays, phases beyond IBR_MAX_PHASES are dropped, and the
 * line is cut at the buffer's end, never past it. */
static void test_phases(void **state)
{
	static const char *const names[IBR_MAX_PHASES + 1] = {
		"a", "b", "c", "d", "e", "f", "g", "h", "one too many",
	};
	struct ibr_result r = { 0 };
	char buf[64], small[12];

	(void)state;
	assert_string_equal(ibr_phases_format(&r, buf, sizeof(buf)), "");
	ibr_phase_add(&r, "first pass", 1.5);
	ibr_phase_add(&r, "re-route passes", 2.0);
	ibr_phase_add(&r, "re-route passes", 0.5);
	assert_int_equal(r.stats.phases, 2);
	assert_string_equal(ibr_phases_format(&r, buf, sizeof(buf)),
			    "first pass 1.5 ms; re-route passes 2.5 ms");
	memset(small, 'x', sizeof(small));
	ibr_phases_format(&r, small, sizeof(small));
	assert_string_equal(small, "first pass ");
	r.stats.phases = 0;
	for (unsigned i = 0; i <= IBR_MAX_PHASES; i++)
		ibr_phase_add(&r, names[i], i);
	assert_int_equal(r.stats.phases, IBR_MAX_PHASES);
	assert_string_equal(r.stats.phase[IBR_MAX_PHASES - 1].name, "h");
	ibr_phase_add(&r, "one too many", 1.0);
	assert_int_equal(r.stats.phases, IBR_MAX_PHASES);
}

/* ---- pairs owed no route ----------------------------------------------- */

/* Every engine routes the Clos with aggregation nodes on its spines under
 * auto roots at LMC 2, with either port choice (colorl's selection is kept
 * only with lowest ports there), and colorl with each of its path schemes
 * and unit kinds: no finding, the 2 CA pairs between the aggregation
 * nodes owed no route, every other pair delivered along its designated
 * DLID, every walk legal.  colorl failed on it ("paths: no legal path")
 * before its units left out the pairs with no legal route (paths.h). */
static void test_pairs_owed_no_route(void **state)
{
	static const char *const colorl_options[][2] = {
		{ NULL, NULL },
		{ "paths=shortest-widest", NULL },
		{ "pairs=ca", NULL },
		{ "pairs=ca", "paths=shortest-widest" },
	};
	static const enum ibr_port_choice choices[] = {
		IBR_PORT_BALANCED, IBR_PORT_LOWEST,
	};
	struct ibr_fabric *f = clos_with_aggregation_nodes(2);
	struct ibr_root_choice root = { .strategy = IBR_ROOT_AUTO };
	uint64_t E = f->num_end_ports;
	struct ibr_error err = { "" };
	struct ibr_walker w;
	unsigned runs = 0;

	(void)state;
	assert_int_equal(ibr_walker_init(&w, f, &err), 0);
	for (unsigned e = 0; ibr_engines[e]; e++)
		for (unsigned k = 0; k < N(colorl_options); k++)
			for (unsigned c = 0; c < N(choices); c++) {
				const struct ibr_engine *en = ibr_engines[e];
				struct ibr_options o = { 0 };
				struct ibr_verify_report rep;
				struct ibr_route_ctx ctx;
				const struct ibr_updown *ud;
				struct ibr_climb cl;
				struct ibr_result r;
				char what[160];

				if (k > 0 && strcmp(en->name, "colorl"))
					continue;
				for (unsigned i = 0; i < 2; i++)
					if (colorl_options[k][i])
						assert_int_equal(ibr_options_add(&o,
							colorl_options[k][i],
							NULL, &err), 0);
				snprintf(what, sizeof(what), "%s %s %s, %s ports",
					 en->name, colorl_options[k][0] ?
					 colorl_options[k][0] : "",
					 colorl_options[k][1] ?
					 colorl_options[k][1] : "",
					 c ? "lowest" : "balanced");
				assert_int_equal(ibr_ctx_init(&ctx, f, &root, &o,
							      &err), 0);
				ctx.port_choice = choices[c];
				if (ibr_route(&ctx, en, &r, &err))
					fail_msg("%s: %s", what, err.msg);
				assert_int_equal(r.num_roots, 2);
				if (ibr_verify(f, &r, NULL, &rep, &err))
					fail_msg("%s: verify: %s", what, err.msg);
				if (ibr_verify_findings(&rep))
					fail_msg("%s: %s", what, rep.messages[0]);
				assert_int_equal(rep.pairs_owed_none, 2);
				assert_true(rep.no_legal_path > 0);
				assert_int_equal(rep.designated.flows, E * (E - 1));
				assert_int_equal(rep.designated.unrouted_flows, 2);
				ud = ibr_ctx_updown(&ctx, &err);
				assert_non_null(ud);
				assert_int_equal(ibr_climb_build(f, ud, &cl, &err), 0);
				assert_legal_updown(&w, &r, ud, &cl, what);
				ibr_climb_free(&cl);
				ibr_result_free(&r);
				ibr_ctx_free(&ctx);
				runs++;
			}
	/* every engine with both port choices, colorl's variants besides */
	for (unsigned e = 0; ibr_engines[e]; e++)
		runs -= (unsigned)N(choices);
	assert_int_equal(runs, (N(colorl_options) - 1) * N(choices));
	ibr_walker_free(&w);
	ibr_fabric_free(f);
}

int main(void)
{
	unsigned engines = 0, n = 0, cells;
	struct CMUnitTest *tests;
	struct cell *cell;
	char (*names)[64];
	int rc;

	while (ibr_engines[engines])
		engines++;
	cells = engines * N(families);
	tests = calloc(cells + 11, sizeof(*tests));
	cell = calloc(cells, sizeof(*cell));
	names = calloc(cells, sizeof(*names));
	assert_true(tests && cell && names && engines >= 2);
	for (unsigned e = 0; e < engines; e++)
		for (unsigned k = 0; k < N(families); k++, n++) {
			cell[n] = (struct cell){ ibr_engines[e], &families[k] };
			snprintf(names[n], sizeof(names[n]), "%s/%s",
				 ibr_engines[e]->name, families[k].name);
			tests[n] = (struct CMUnitTest){
				.name = names[n], .test_func = test_cell,
				.initial_state = &cell[n],
			};
		}
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_root_strategies);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_explicit_root_guid);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_prior_needs_the_same_roots);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_context_shares_orientation);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_options_are_checked);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_capabilities);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_multi_lid_with_lmc);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_loopbacks_never_routed);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_root_guid_unusable);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_phases);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_pairs_owed_no_route);
	rc = _cmocka_run_group_tests("engines", tests, n, NULL, NULL);
	free(tests);
	free(cell);
	free(names);
	return rc;
}
