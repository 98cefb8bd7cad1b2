/*
 * colorl.c - color/L routing: path computation separated from LID
 * assignment (lid-assignment-color-l, the "separate" scheme of §VI-D):
 * load-balanced legal paths first (paths.h), then per destination the
 * fewest configurations that realise them (lidassign.h), one LID each.
 *
 * Offsets (doc/design.md, Contracts):
 *   - offset 0 of every range, and every switch LID, is FERa's complete
 *     legal tree (FERa is run first): hosts that ignore designated DLIDs,
 *     and switches, are routed as `fera` routes them;
 *   - a colour class (configuration) whose paths all follow FERa's tree
 *     rides the base LID and costs no LID;
 *   - the other classes, most pairs first, take offsets 1 .. 2^LMC - 1:
 *     each offset's column holds the union of its class's paths and
 *     IBR_NO_PATH elsewhere (a class never splits, so the union is a
 *     forest of legal paths towards the destination);
 *   - a class that finds no offset left is "moved": each of its paths is
 *     designated the first offset whose column already routes its source
 *     switch (that walk is the suffix of another selected legal path), or
 *     the base LID; its pairs are counted as having lost their selected
 *     route.
 *
 * Pairs owed no route (a root set where two switches have no root above
 * both, such as a fat tree's top level with an aggregation node on each
 * root) are no units (paths.h): they are coloured into no class and keep
 * designated offset 0, the base LID, whose entry at their source FERa
 * leaves IBR_NO_PATH, as do the renamed LIDs, whose columns hold only
 * legal paths (none passes a switch owed no route to the destination: its
 * suffix would be one).  dr leaves them alike; the verifier counts them
 * apart (verify.h, pairs_owed_none).
 *
 * With switch units (the default) every CA of a destination switch has
 * the same paths but for the last port, which no path splits on: the
 * colouring is computed once per destination switch and used for each CA
 * there.  The designated map is by switch then; with per-CA units it is
 * per end port.
 *
 * Never worse than the base (`port_choice balanced`): path selection
 * chooses among at most k shortest legal paths per pair, the first k by
 * port sequence, and where pairs have many more (a fat tree's leaves: 64
 * per pair on an 8-ary 3-tree) those k crowd onto the low ports; FERa's
 * balanced base tree (fera.c) then carries less.  So the heaviest
 * channel along the designated DLIDs (metrics.h) is compared with the
 * base routes' (every CA pair on its base LID), and when it is not
 * lighter the base routes are kept: every pair designated offset 0, the
 * LIDs above a base copies of its tree (figure "selection kept the base",
 * 1).  Where the base tree's
 * heaviest link is already the least any routing gives (metrics.h's
 * bound: intact fat trees, non-blocking Clos networks), no selection can
 * be lighter, so none is made, or the one under way is abandoned (figure
 * "selection skipped at the load bound"): the same tables, without the
 * selection's time.
 *
 * Threads (ctx->threads, parallel.h): FERa's base tree and its load
 * beside the path selection, the candidate search, the LID assignment per
 * destination switch and the load measurements run on the workers, each
 * worker writing only its own (scratch, figures summed after) or what is
 * its destinations' alone (their columns and designated slots); the
 * tables are the same for every count.  Most-loaded-link-first is one
 * greedy sequence up to 512 switches with CAs; above it runs in two parts
 * side by side (option parts; mllf.c).  Above 1254 switches with CAs the
 * destination switches go in batches, one after the other, each over the
 * paths of those before, so that only one batch's candidates are held
 * (option batches; paths.c).
 *
 * Figures: CA LIDs needed without a limit (2^ceil(lg(1 + classes off the
 * base)) per CA, the base being FERa's), renamed LIDs (offsets above the
 * base carrying paths), pairs moved, classes on the base, destinations
 * whose colouring is proven minimal.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "engines/engines.h"
#include "ibrouting/colorl.h"
#include "ibrouting/configs.h"
#include "ibrouting/lidassign.h"
#include "ibrouting/pathset.h"
#include "ibrouting/metrics.h"
#include "ibrouting/paths.h"
#include "ibrouting/prior.h"
#include "util/parallel.h"
#include "util/timer.h"

static const char *const scheme_choices[] = {
	"path-selection", "shortest-widest", NULL,
};
static const char *const heuristic_choices[] = {
	"color/L", "color/S", "greedy", "split-merge/S", "split-merge/L", "ilp",
	NULL,
};
static const char *const pairs_choices[] = { "switch", "ca", NULL };

static const struct ibr_option_spec colorl_options[] = {
	{ "paths", "path-selection", 0, 0, "path computation (§VI)",
	  scheme_choices },
	{ "heuristic", "color/L", 0, 0, "LID assignment (§IV-§V)",
	  heuristic_choices },
	{ "k", "16", 1, 16, "path selection: candidate paths per pair", NULL },
	{ "parts", "0", 0, 8,
	  "path selection: most-loaded-link-first in this many parts side by "
	  "side, over the threads (0: 1 up to 512 switches with CAs, else 2; "
	  "1: the paper's one sequence)", NULL },
	{ "batches", "0", 0, 64,
	  "path selection: destination switches in this many batches, each "
	  "searched and selected over the paths of those before, so that "
	  "only one batch's candidates are held (0: 1 up to 1254 switches "
	  "with CAs, else one per 1.5 x 2^20 switch pairs; 1: all at once)",
	  NULL },
	{ "ilp_seconds", "10", 1, 3600,
	  "heuristic ilp: GLPK's time limit per destination, in seconds",
	  NULL },
	{ "pairs", "switch", 0, 0, "one path per switch pair or per CA pair",
	  pairs_choices },
	{ IBR_PRIOR_OPTION, IBR_PRIOR_OPTION_DEFAULT, 0, 100,
	  "after a change, keep the prior tables' routes and re-route the pairs "
	  "whose route broke, unless more than this percentage of CA pairs "
	  "did (0: path selection and colouring afresh every run)", NULL },
	{ NULL, NULL, 0, 0, NULL, NULL },
};

struct colorl {
	const struct ibr_fabric *f;
	struct ibr_result *r;
	struct ibr_paths paths;
	uint64_t *moved;         /* NULL, or colorl.h's bitmap */
	struct ibr_lid_assigner *assigner;
	struct ibr_lid_assign_options la;
	/* a worker's scratch (route_all; the run's own struct holds none):
	 * one destination's path set, path i is unit u0 + i */
	struct ibr_dest_set set;
	uint32_t u0;
	uint32_t *color;
	uint32_t k;              /* classes of the current colouring */
	/* per class: pairs served, the order they are placed in, offset */
	uint32_t *class_pairs, *class_order;
	uint8_t *class_offset;
	struct ibr_configs offsets;   /* columns of offsets 0..2^LMC-1 */
	/* figures */
	uint64_t lids_needed, renamed_lids, pairs_moved, classes_on_base,
		 exact_colourings, colourings;
};

/* Per-destination buffers, sized for the largest destination. */
static int alloc_buffers(struct colorl *w, struct ibr_error *err)
{
	uint32_t most = 1;

	for (uint32_t u0 = 0, u1; u0 < w->paths.num_units; u0 = u1) {
		u1 = ibr_paths_dest_end(&w->paths, u0);
		if (u1 - u0 > most)
			most = u1 - u0;
	}
	if (ibr_dest_set_init(&w->set, &w->paths, err))
		return -1;
	w->color = malloc(most * sizeof(uint32_t));
	w->class_pairs = malloc(most * sizeof(uint32_t));
	w->class_order = malloc(most * sizeof(uint32_t));
	w->class_offset = malloc(most);
	if (!w->color || !w->class_pairs || !w->class_order || !w->class_offset)
		return ibr_error_set(err, "colorl: out of memory for %u paths",
				     most);
	return 0;
}

static uint64_t unit_pairs(const struct colorl *w, uint32_t u)
{
	const struct ibr_fabric *f = w->f;
	uint32_t s;

	if (w->paths.per_ca)
		return 1;
	s = w->paths.src[u];
	return f->sw_ca_start[s + 1] - f->sw_ca_start[s];
}

static const uint32_t *path_sw(const struct colorl *w, uint32_t i)
{
	return w->set.sw + w->set.first[i];
}

static const uint8_t *path_port(const struct colorl *w, uint32_t i)
{
	return w->set.port + w->set.first[i];
}

static uint32_t path_len(const struct colorl *w, uint32_t i)
{
	return w->set.first[i + 1] - w->set.first[i];
}

/* The colour classes by pairs served, most first (ties by class index),
 * into class_order: once per colouring, for every CA that uses it. */
static void order_classes(struct colorl *w, const struct ibr_dest_paths *dp)
{
	uint32_t k = w->k;

	for (uint32_t q = 0; q < k; q++)
		w->class_pairs[q] = 0;
	for (uint32_t i = 0; i < dp->num_paths; i++)
		w->class_pairs[w->color[i]] +=
			(uint32_t)unit_pairs(w, (w->u0 + i));
	for (uint32_t q = 0; q < k; q++) {
		uint32_t j = q;
		/* insertion sort by pairs, descending; ties by class index */
		while (j > 0 && w->class_pairs[w->class_order[j - 1]] <
				w->class_pairs[q]) {
			w->class_order[j] = w->class_order[j - 1];
			j--;
		}
		w->class_order[j] = q;
	}
}

/* Which offset each colour class takes (see the header): classes that
 * follow FERa's column ride offset 0; the others, most pairs first
 * (order_classes), take offsets 1.. while they last; the rest are
 * IBR_NOT_REALISED (moved). */
static void place_classes(struct colorl *w, const struct ibr_dest_paths *dp,
			  uint32_t lids, uint32_t *off_base)
{
	struct ibr_configs *c = &w->offsets;
	uint32_t k = w->k, next = 1;

	for (uint32_t q = 0; q < k; q++)
		w->class_offset[q] = 0;  /* on the base until a path says no */
	for (uint32_t i = 0; i < dp->num_paths; i++) {
		uint32_t q = w->color[i];
		if (w->class_offset[q] == 0 &&
		    !ibr_configs_fits(c, 0, path_sw(w, i), path_port(w, i),
				      path_len(w, i)))
			w->class_offset[q] = IBR_NOT_REALISED;
	}
	*off_base = 0;
	for (uint32_t q = 0; q < k; q++)
		*off_base += w->class_offset[q] != 0;
	for (uint32_t i = 0; i < k; i++) {
		uint32_t q = w->class_order[i];
		if (w->class_offset[q] != 0 && next < lids)
			w->class_offset[q] = (uint8_t)next++;
	}
}

/* The offset a path of a class that found none is designated: the first
 * whose column routes its source switch, else the base. */
static uint8_t reaching_offset(const struct colorl *w, uint32_t s,
			       uint32_t lids)
{
	for (uint32_t j = 1; j < lids; j++)
		if (ibr_configs_column(&w->offsets, j)[s] != IBR_NO_PATH)
			return (uint8_t)j;
	return 0;
}

/* Routes end port e with the colouring of its path set (color[], k). */
static void realise(struct colorl *w, const struct ibr_dest_paths *dp,
		    const struct ibr_end_port *e, uint32_t e_index)
{
	const struct ibr_fabric *f = w->f;
	const struct ibr_port *p = ibr_port(f, e->node, e->port);
	uint32_t S = f->num_switches, lids = ibr_port_lid_count(p), used = 1;
	struct ibr_designated *d = &w->r->designated;

	for (uint32_t j = 1; j < lids; j++)
		memset(ibr_configs_column(&w->offsets, j), IBR_NO_PATH, S);
	for (uint32_t i = 0; i < dp->num_paths; i++) {
		uint8_t j = w->class_offset[w->color[i]];
		if (j == IBR_NOT_REALISED || j == 0)
			continue;
		ibr_configs_add(&w->offsets, j, path_sw(w, i), path_port(w, i),
				path_len(w, i));
		if (j + 1u > used)
			used = j + 1u;
	}
	for (uint32_t i = 0; i < dp->num_paths; i++) {
		uint32_t u = (w->u0 + i), s = path_sw(w, i)[0];
		uint8_t j = w->class_offset[w->color[i]];
		size_t slot = (size_t)(w->paths.per_ca ? w->paths.src[u] : s) *
			      d->cols + e_index;
		if (j == IBR_NOT_REALISED) {
			j = reaching_offset(w, s, lids);
			w->pairs_moved += unit_pairs(w, u);
			/* atomic: destinations sharing a word may be routed
			 * by two workers at once */
			if (w->moved)
				__atomic_fetch_or(&w->moved[slot / 64],
						  1ull << (slot % 64),
						  __ATOMIC_RELAXED);
		}
		d->offset[slot] = j;
	}
	for (uint32_t j = 1; j < lids; j++)
		memcpy(ibr_column(w->r, p->base_lid + j),
		       ibr_configs_column(&w->offsets, j), S);
	w->renamed_lids += used - 1;
}

/* Routes end port e over units [u0, u1): colours its path set first, or
 * with `recolour` false reuses the colouring of the previous CA of the
 * same switch (same paths but for the last port, on which none split). */
static int route_destination(struct colorl *w, uint32_t u0, uint32_t u1,
			     uint32_t e_index, bool recolour,
			     struct ibr_error *err)
{
	const struct ibr_fabric *f = w->f;
	const struct ibr_end_port *e = &f->end_ports[e_index];
	const struct ibr_port *p = ibr_port(f, e->node, e->port);
	uint32_t lids = ibr_port_lid_count(p), off_base;
	struct ibr_dest_paths dp;
	bool exact = false;

	w->u0 = u0;
	ibr_dest_set_fill(&w->set, &w->paths, u0, u1, e->sw, e->sw_port, &dp);
	if (recolour) {
		w->k = 0;
		if (dp.num_paths &&
		    ibr_lid_assign(w->assigner, &dp, &w->la, w->color, &w->k,
				   &exact, err))
			return -1;
		w->colourings++;
		w->exact_colourings += exact || dp.num_paths == 0;
		order_classes(w, &dp);
	}
	memcpy(ibr_configs_column(&w->offsets, 0),
	       ibr_column(w->r, p->base_lid), f->num_switches);
	place_classes(w, &dp, lids, &off_base);
	realise(w, &dp, e, e_index);
	w->lids_needed += ibr_lids_for_configs(1 + off_base);
	w->classes_on_base += w->k - off_base;
	return 0;
}

static void free_work(struct colorl *w)
{
	ibr_lid_assigner_free(w->assigner);
	ibr_configs_free(&w->offsets);
	ibr_dest_set_free(&w->set);
	free(w->color);
	free(w->class_pairs);
	free(w->class_order);
	free(w->class_offset);
}

/* ---- every destination, over the workers ------------------------------ */

/* Where each destination's units are: start[key] .. end[key], key the
 * destination switch, or the end port with per-CA units. */
struct unit_index {
	uint32_t *start, *end;
};

/* The CAs of destination switch d: with switch units, d's units serve
 * each of its CAs, the first coloured, the others reusing its colouring;
 * with per-CA units, each CA has its own.  A destination with no unit (no
 * CA elsewhere) still gets its renamed LIDs cleared. */
static int route_switch(struct colorl *w, const struct unit_index *ix,
			uint32_t d, struct ibr_error *err)
{
	const struct ibr_fabric *f = w->f;
	bool per_ca = w->paths.per_ca;

	for (uint32_t i = f->sw_ca_start[d]; i < f->sw_ca_start[d + 1]; i++) {
		uint32_t e = f->sw_cas[i], key = per_ca ? e : d;
		if (route_destination(w, ix->start[key], ix->end[key], e,
				      per_ca || i == f->sw_ca_start[d], err))
			return -1;
	}
	return 0;
}

/* A worker's own scratch (path set, colouring, offsets' columns,
 * assigner) and figures; the rest is w's: the paths and options read,
 * the result's columns and designated slots of its destinations written
 * (no two destinations share one), the moved bitmap or-ed atomically. */
static int worker_init(struct colorl *ww, const struct colorl *w,
		       unsigned most_lids, struct ibr_error *err)
{
	*ww = (struct colorl){ .f = w->f, .r = w->r, .paths = w->paths,
			       .moved = w->moved, .la = w->la };
	ibr_configs_init(&ww->offsets, w->f->num_switches);
	for (unsigned j = 0; j < most_lids; j++)
		if (ibr_configs_open(&ww->offsets, err) == IBR_NONE)
			return -1;
	if (ibr_lid_assigner_new(&ww->assigner, w->f->num_switches, err) ||
	    alloc_buffers(ww, err))
		return -1;
	return 0;
}

struct route_team {
	struct colorl *workers;
	const struct unit_index *ix;
	struct ibr_error *errs;  /* per destination switch */
};

/* Destination switches a task routes, consecutive: their CAs' slots
 * of the designated map are neighbours in each source switch's row
 * (end ports go by switch), so that two workers seldom write one cache
 * line (with a switch a task, the workers would write every row's line
 * in turn). */
#define ROUTE_TASK_SWITCHES 8u

static unsigned route_tasks(uint32_t switches)
{
	return (switches + ROUTE_TASK_SWITCHES - 1) / ROUTE_TASK_SWITCHES;
}

static int route_task(void *arg, unsigned t, unsigned worker)
{
	struct route_team *team = arg;
	uint32_t S = team->workers[worker].f->num_switches;
	uint32_t d0 = t * ROUTE_TASK_SWITCHES;

	for (uint32_t d = d0; d < S && d < d0 + ROUTE_TASK_SWITCHES; d++)
		if (route_switch(&team->workers[worker], team->ix, d,
				 &team->errs[d]))
			return -1;
	return 0;
}

/* The figures of a worker into w's. */
static void add_figures(struct colorl *w, const struct colorl *ww)
{
	w->lids_needed += ww->lids_needed;
	w->renamed_lids += ww->renamed_lids;
	w->pairs_moved += ww->pairs_moved;
	w->classes_on_base += ww->classes_on_base;
	w->exact_colourings += ww->exact_colourings;
	w->colourings += ww->colourings;
}

static int route_parallel(struct colorl *w, const struct unit_index *ix,
			  unsigned workers, unsigned most_lids,
			  struct ibr_error *err)
{
	uint32_t S = w->f->num_switches;
	struct route_team team = { .ix = ix };
	unsigned ready = 0;
	int rc = -1;

	team.workers = calloc(workers, sizeof(*team.workers));
	team.errs = calloc(S, sizeof(*team.errs));
	if (!team.workers || !team.errs) {
		ibr_error_set(err, "colorl: out of memory for %u workers",
			      workers);
		goto out;
	}
	for (; ready < workers; ready++)
		if (worker_init(&team.workers[ready], w, most_lids, err)) {
			ready++;
			goto out;
		}
	if (ibr_parallel(workers, route_tasks(S), route_task, &team)) {
		for (uint32_t d = 0; d < S; d++)
			if (team.errs[d].msg[0]) {
				ibr_error_set(err, "%s", team.errs[d].msg);
				break;
			}
		goto out;
	}
	for (unsigned i = 0; i < workers; i++)
		add_figures(w, &team.workers[i]);
	rc = 0;
out:
	for (unsigned i = 0; i < ready; i++)
		free_work(&team.workers[i]);
	free(team.workers);
	free(team.errs);
	return rc;
}

/* Every CA, destination switch by destination switch, over the workers,
 * each on scratch of its own (one worker, in this thread, with the ILP
 * heuristic: GLPK keeps global state); w itself holds none. */
static int route_all(struct colorl *w, unsigned threads, unsigned most_lids,
		     struct ibr_error *err)
{
	const struct ibr_fabric *f = w->f;
	const struct ibr_paths *p = &w->paths;
	uint32_t keys = p->per_ca ? f->num_end_ports : f->num_switches;
	unsigned workers = w->la.heuristic == IBR_LA_ILP ? 1 :
			   ibr_parallel_workers(threads,
						route_tasks(f->num_switches));
	struct unit_index ix;
	int rc = -1;

	ix.start = calloc(keys + 1, sizeof(uint32_t));
	ix.end = calloc(keys + 1, sizeof(uint32_t));
	if (!ix.start || !ix.end) {
		ibr_error_set(err, "colorl: out of memory for %u destinations",
			      keys);
		goto out;
	}
	for (uint32_t u0 = 0, u1; u0 < p->num_units; u0 = u1) {
		u1 = ibr_paths_dest_end(p, u0);
		ix.start[p->dst[u0]] = u0;
		ix.end[p->dst[u0]] = u1;
	}
	rc = route_parallel(w, &ix, workers, most_lids, err);
out:
	free(ix.start);
	free(ix.end);
	return rc;
}

/* The base routes back (see the top): every pair on offset 0, the LIDs
 * above each base without a designated path, so the routing layer
 * completes them as it completes dr's (ranges.h): other routes where the
 * fabric has them, for hosts that spread over the range themselves. */
static void keep_base(struct colorl *w)
{
	const struct ibr_fabric *f = w->f;
	struct ibr_designated *d = &w->r->designated;

	memset(d->offset, 0, (size_t)d->rows * d->cols);
	for (uint32_t e = 0; e < f->num_end_ports; e++) {
		const struct ibr_end_port *ep = &f->end_ports[e];
		const struct ibr_port *p = ibr_port(f, ep->node, ep->port);
		for (unsigned k = 1; k < ibr_port_lid_count(p); k++)
			memset(ibr_column(w->r, p->base_lid + k), IBR_NO_PATH,
			       f->num_switches);
	}
}

static int read_options(struct ibr_route_ctx *ctx, struct ibr_path_options *po,
			struct ibr_lid_assign_options *la, struct ibr_error *err)
{
	unsigned k, seconds, parts, batches;

	if (ibr_option_uint(ctx, "k", &k, err) ||
	    ibr_option_uint(ctx, "parts", &parts, err) ||
	    ibr_option_uint(ctx, "batches", &batches, err) ||
	    ibr_option_uint(ctx, "ilp_seconds", &seconds, err) ||
	    ibr_path_scheme_parse(ibr_option_str(ctx, "paths"), &po->scheme) ||
	    ibr_lid_heuristic_parse(ibr_option_str(ctx, "heuristic"),
				    &la->heuristic))
		return ibr_error_set(err, "colorl: bad option value");
	po->k = k;
	po->parts = parts;
	po->batches = batches;
	po->per_ca = strcmp(ibr_option_str(ctx, "pairs"), "ca") == 0;
	po->threads = ctx->threads;
	la->ilp_seconds = seconds;
	if (la->heuristic == IBR_LA_ILP && !ibr_lid_ilp_available())
		return ibr_error_set(err, "colorl: heuristic=ilp, but this "
				     "build has no GLPK (configure found no "
				     "libglpk-dev)");
	return 0;
}


/* ---- the base tree beside the path selection ------------------------ */

/* The base routes' load (every pair on offset 0) as metrics.h measures
 * it: the heaviest channel and the flows left without a route. */
struct base_load {
	uint64_t heaviest, unrouted;
};

/* The base routes' heaviest link is the least any routing of f gives
 * (metrics.h: a host's own link, or a switch's hosts' flows over its
 * links), as on intact fat trees and non-blocking Clos networks: no
 * selection can be lighter, and the base would be kept after it. */
static bool base_at_bound(const struct ibr_fabric *f,
			  const struct base_load *base)
{
	uint32_t worst;

	return base->unrouted == 0 &&
	       base->heaviest <= ibr_metrics_load_bound(f, &worst);
}

/* FERa's tree (offset 0, with the base routes' load) and the selected
 * paths do not depend on each other: with several threads they are
 * computed at once, the tree and its load on one worker with half the
 * threads, the path selection on another, its candidate search over the
 * other half while the tree is under way and over all of them after (on
 * a machine of few cores the two would slow each other, the tree last,
 * which may make the selection unwanted).  Where the tree is at the load
 * bound the selection's worker is told so (paths.h's workers_now, 0,
 * under the lock) and gives up, and the run goes on as if it had never
 * started, whichever finished first.  One thread runs the tree first.
 * Task 0 writes only r, base and the state under the lock, task 1 only
 * paths, each its own error. */
struct base_and_paths {
	/* ctx with the base's share of the threads (fera reads it only) */
	struct ibr_route_ctx ctx;
	struct ibr_result *r;
	const struct ibr_updown *ud;
	struct ibr_path_options po;
	unsigned threads;           /* in all */
	bool by_switch;
	struct base_load *base;     /* NULL: not wanted */
	struct ibr_paths *paths;
	struct ibr_error err[2];
	double base_ms;             /* the tree and its load, wall-clock */
	pthread_mutex_t lock;
	bool base_done, at_bound;   /* under lock */
};

static unsigned selection_workers(void *arg)
{
	struct base_and_paths *b = arg;
	unsigned n;

	pthread_mutex_lock(&b->lock);
	if (b->at_bound)
		n = 0;
	else if (b->base_done || b->threads <= b->ctx.threads)
		n = b->threads;
	else
		n = b->threads - b->ctx.threads;
	pthread_mutex_unlock(&b->lock);
	return n;
}

/* The base routes' load: what fera kept on the links as it routed, where
 * every switch with hosts reached every other with hosts (engines.h),
 * else walked (metrics.h). */
static int measure_base(struct base_and_paths *b,
			const struct ibr_fera_load *kept)
{
	const struct ibr_fabric *f = b->ctx.f;
	uint64_t own = f->num_end_ports ? f->num_end_ports - 1 : 0;
	struct ibr_metrics m;

	if (kept->known) {
		/* every CA port receives a flow from every other */
		b->base->heaviest = kept->heaviest > own ? kept->heaviest : own;
		b->base->unrouted = 0;
		return 0;
	}
	if (ibr_metrics_compute_threads(f, b->r, b->ctx.threads, &m,
					&b->err[0]))
		return -1;
	b->base->heaviest = m.max_link_load;
	b->base->unrouted = m.unrouted_flows;
	return 0;
}

static int base_tree(struct base_and_paths *b)
{
	const struct ibr_fabric *f = b->ctx.f;
	struct ibr_fera_load kept;
	double t0 = ibr_now_ms();
	int rc;

	/* Offset 0 of every range, and every switch LID, is FERa's. */
	if (ibr_fera_route_afresh_load(&b->ctx, b->r, &kept, &b->err[0]))
		return -1;
	b->r->stats.count = 0;
	b->r->stats.phases = 0;     /* colorl's phases, not FERa's */
	if (ibr_designated_init(b->r, f, b->by_switch, &b->err[0]))
		return -1;
	/* the base routes' heaviest channel, every pair on offset 0 */
	rc = b->base ? measure_base(b, &kept) : 0;
	b->base_ms = ibr_now_ms() - t0;
	return rc;
}

static int base_or_paths(void *arg, unsigned t, unsigned worker)
{
	struct base_and_paths *b = arg;
	int rc;

	(void)worker;
	if (t == 1) {
		rc = ibr_paths_compute(b->ctx.f, b->ud, &b->po, b->paths,
				       &b->err[1]);
		return rc == IBR_PATHS_STOPPED ? 0 : rc;
	}
	rc = base_tree(b);
	pthread_mutex_lock(&b->lock);
	b->base_done = true;
	b->at_bound = rc == 0 && b->base && base_at_bound(b->ctx.f, b->base);
	pthread_mutex_unlock(&b->lock);
	return rc;
}

int ibr_colorl_route_detail(struct ibr_route_ctx *ctx, struct ibr_result *r,
			    struct ibr_colorl_detail *detail,
			    struct ibr_error *err)
{
	const struct ibr_fabric *f = ctx->f;
	struct colorl w = { .f = f, .r = r };
	struct ibr_path_options po = { 0 };
	struct ibr_metrics chosen;
	struct base_load base;
	bool balanced = ctx->port_choice == IBR_PORT_BALANCED, skipped, failed;
	struct base_and_paths bp;
	const struct ibr_updown *ud;
	uint64_t kept_base = 0;
	uint32_t batches = 0;       /* of the path selection (paths.c) */
	uint8_t most_lids = 1;
	double t0;
	int rc = -1;

	if (detail)
		memset(detail, 0, sizeof(*detail));
	ctx->engine = &ibr_engine_colorl;  /* its options, also when called here */
	if (read_options(ctx, &po, &w.la, err))
		return -1;
	ud = ibr_ctx_updown(ctx, err);
	if (!ud)
		return -1;
	bp = (struct base_and_paths){
		.ctx = *ctx, .r = r, .ud = ud, .po = po, .by_switch = !po.per_ca,
		.base = balanced ? &base : NULL, .paths = &w.paths,
		.threads = ctx->threads ? ctx->threads : 1,
	};
	bp.ctx.threads = bp.threads > 1 ? bp.threads / 2 : 1;
	bp.po.threads = bp.threads;
	bp.po.workers_now = selection_workers;
	bp.po.workers_arg = &bp;
	pthread_mutex_init(&bp.lock, NULL);
	failed = ibr_parallel(ctx->threads, 2, base_or_paths, &bp) != 0;
	pthread_mutex_destroy(&bp.lock);
	if (failed) {
		ibr_error_set(err, "%s", bp.err[0].msg[0] ? bp.err[0].msg :
			      bp.err[1].msg);
		goto out;
	}
	skipped = bp.at_bound;
	if (skipped) {          /* stopped, or finished first: not wanted */
		ibr_phase_add(r, "FERa's base tree and its load", bp.base_ms);
		ibr_paths_free(&w.paths);
	} else {
		ibr_phase_add(r, bp.threads > 1 ? "FERa's base tree and its "
			      "load, beside the paths" :
			      "FERa's base tree and its load", bp.base_ms);
		if (po.scheme == IBR_PATHS_SELECTION) {
			ibr_phase_add(r, "path search", w.paths.search_ms);
			ibr_phase_add(r, "path selection", w.paths.select_ms);
			batches = w.paths.batches;
		} else {
			ibr_phase_add(r, "shortest-widest paths",
				      w.paths.select_ms);
		}
	}
	if (detail) {
		size_t slots = (size_t)r->designated.rows * r->designated.cols;
		detail->moved = calloc(slots / 64 + 1, sizeof(uint64_t));
		if (!detail->moved) {
			ibr_error_set(err, "colorl: out of memory for %zu "
				      "pairs", slots);
			goto out;
		}
		w.moved = detail->moved;
	}
	ibr_configs_init(&w.offsets, f->num_switches);
	for (uint32_t e = 0; e < f->num_end_ports; e++) {
		const struct ibr_end_port *ep = &f->end_ports[e];
		uint8_t n = (uint8_t)ibr_port_lid_count(ibr_port(f, ep->node, ep->port));
		if (n > most_lids)
			most_lids = n;
	}
	t0 = ibr_now_ms();
	if (skipped) {
		/* what a selection would have come back to: one LID per CA */
		keep_base(&w);
		w.lids_needed = f->num_end_ports;
		kept_base = 1;
	} else if (route_all(&w, ctx->threads, most_lids, err)) {
		goto out;
	} else {
		ibr_phase_add(r, "LID assignment", ibr_now_ms() - t0);
	}
	if (balanced && !skipped) {
		t0 = ibr_now_ms();
		if (ibr_metrics_compute_threads(f, r, ctx->threads, &chosen,
						err))
			goto out;
		ibr_phase_add(r, "load of the chosen tables",
			      ibr_now_ms() - t0);
		if (chosen.max_link_load >= base.heaviest) {
			keep_base(&w);
			w.renamed_lids = 0;
			kept_base = 1;
		}
	}
	ibr_stat_count(r, "CA LID needed", IBR_STAT_CA_LIDS_NEEDED, w.lids_needed);
	ibr_stat_count(r, "renamed LID", "renamed LIDs", w.renamed_lids);
	ibr_stat_count(r, "pair moved", "pairs moved", w.pairs_moved);
	ibr_stat_count(r, "class on the base", "classes on the base",
		       w.classes_on_base);
	ibr_stat_count(r, "colouring proven minimal",
		       "colourings proven minimal", w.exact_colourings);
	ibr_stat_count(r, "colouring", "colourings", w.colourings);
	ibr_stat_set(r, "selection kept the base", kept_base);
	if (skipped)
		ibr_stat_set(r, "selection skipped at the load bound", 1);
	if (batches > 1)
		ibr_stat_count(r, "selection batch", "selection batches",
			       batches);
	rc = 0;
out:
	if (detail) {
		detail->paths = w.paths;
		memset(&w.paths, 0, sizeof(w.paths));
	}
	ibr_paths_free(&w.paths);
	free_work(&w);
	return rc;
}

void ibr_colorl_detail_free(struct ibr_colorl_detail *d)
{
	ibr_paths_free(&d->paths);
	free(d->moved);
	memset(d, 0, sizeof(*d));
}

/* From the prior tables after a change (prior.h), else afresh. */
static int colorl_route(struct ibr_route_ctx *ctx, struct ibr_result *r,
			struct ibr_error *err)
{
	int kept = ibr_prior_route(ctx, r, IBR_PRIOR_LEAST_LOADED, err);

	if (kept)
		return kept < 0 ? -1 : 0;
	return ibr_colorl_route_detail(ctx, r, NULL, err);
}

const struct ibr_engine ibr_engine_colorl = {
	.name = "colorl",
	.summary = "color/L: load-balanced legal paths (path selection), "
		   "then the fewest LIDs that realise them (needs lmc >= 1)",
	.options = colorl_options,
	.measures_root = true,
	.designates_dlids = true,
	.routes_from_prior = true,
	.fallback = &ibr_engine_fera,
	.route = colorl_route,
	.min_lmc = 1,
	/* one LID per destination: every pair on the base LID, FERa's tree */
	.below_min_lmc = "routing as fera",
	.overflow_stat = "pairs moved",
	.overflow_fate = "took a LID whose tree already reaches their source "
			 "switch",
};
