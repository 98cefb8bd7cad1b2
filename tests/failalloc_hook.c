/*
 * failalloc_hook.c - test only: the plugin's routing runs inside a real
 * OpenSM, with one allocation of ours refused per run.
 *
 * Linked into tests/libibrouting-failalloc.so (never installed; OpenSM
 * loads it with `event_plugin_name ibrouting-failalloc`): the plugin's own
 * sources and the core, plus tests/failing_alloc.c, linked with
 * -Wl,--wrap=malloc,calloc,realloc, so every allocation our code makes
 * goes through the counter and none of OpenSM's does.  The plugin itself
 * is untouched: the link also wraps osm_register_external_routing_engine,
 * and every engine registered through it gets its two routing callbacks
 * wrapped here.
 *
 * IBROUTING_TEST_FAIL_ALLOC selects what happens:
 *   count  every run counts its allocations and refuses none;
 *   sweep  routing run k (k = 0, 1, ...) refuses allocation k, counted
 *          from the start of build_lid_matrices to the end of
 *          ucast_build_fwd_tables, then asks OpenSM for the next re-route
 *          (force_reroute and a sweep signal, as hybrid.c does), until a
 *          run makes no more than k allocations: that one refused none,
 *          the sweep is complete and every later run is clean.
 * One INFO line per run, "failalloc: ENGINE run N: ...", says what was
 * refused (the caller's offset in this library, for addr2line), how many
 * allocations the run made and how it ended; tests/e2e_failalloc.sh reads
 * them.  An "ERR failalloc" line means a run that failed left OpenSM's
 * new_lft changed: tables of ours half-written.
 *
 * Invariants: the routing callbacks run on OpenSM's sweeper thread alone,
 * with its lock held, so the state below needs no lock; while a run is
 * open the counter is armed, and only then.  The counter counts any
 * thread's allocations of ours: the SA's PathRecord wrapper (sa_dlids.c)
 * allocates only when a client queries, which the test never does.
 */
#include "config.h"

#include <dlfcn.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "plugin.h"
#include "failing_alloc.h"

typedef int (*setup_fn)(osm_routing_engine_t *re, osm_opensm_t *osm);
typedef int (*route_fn)(void *context);

cl_status_t __real_osm_register_external_routing_engine(osm_opensm_t *osm,
	const external_routing_engine_module_t *module, void *context);
cl_status_t __wrap_osm_register_external_routing_engine(osm_opensm_t *osm,
	const external_routing_engine_module_t *module, void *context);

/* An engine as registered, and its callbacks once set up. */
struct hooked {
	void *context;
	char name[64];
	setup_fn setup;
	route_fn build, fwd;
	osm_opensm_t *osm;
};

#define MAX_HOOKED 64
static struct hooked hooked[MAX_HOOKED];
static unsigned num_hooked;

enum mode { OFF, COUNT, SWEEP };
static enum mode mode = OFF;
static long next_refused;      /* sweep: the allocation run k refuses */
static unsigned runs;          /* routing runs of ours so far */
static struct hooked *open_run; /* the run between its two callbacks */
static uint64_t lft_before;    /* hash of every new_lft when it began */

static struct hooked *find(void *context)
{
	for (unsigned i = 0; i < num_hooked; i++)
		if (hooked[i].context == context)
			return &hooked[i];
	return NULL;
}

/* FNV-1a over every switch's new_lft: OpenSM prepared them before the
 * run, and a run that fails must leave them as they were. */
static uint64_t hash_new_lfts(osm_opensm_t *osm)
{
	cl_qmap_t *tbl = &osm->subn.sw_guid_tbl;
	uint64_t h = 14695981039346656037ull;

	for (cl_map_item_t *i = cl_qmap_head(tbl); i != cl_qmap_end(tbl);
	     i = cl_qmap_next(i)) {
		const osm_switch_t *sw = (const osm_switch_t *)i;
		for (unsigned l = 0; sw->new_lft && l <= sw->max_lid_ho; l++)
			h = (h ^ sw->new_lft[l]) * 1099511628211ull;
	}
	return h;
}

/* Where the refused allocation was asked for: the caller's offset in
 * this library (tests/e2e_failalloc.sh names it with addr2line). */
static void refused_site(char *buf, size_t len)
{
	void *at = failing_alloc_refused_caller();
	Dl_info info;

	if (!at)
		snprintf(buf, len, "none");
	else if (dladdr(at, &info) && info.dli_fbase)
		snprintf(buf, len, "+0x%" PRIxPTR,
			 (uintptr_t)at - (uintptr_t)info.dli_fbase - 1);
	else
		snprintf(buf, len, "%p", at);
}

/* Closes the open run: one line says how it went; in a sweep, the next
 * run is asked for, or the sweep ends. */
static void close_run(struct hooked *h, const char *outcome, bool failed)
{
	osm_opensm_t *osm = h->osm;
	long made = failing_alloc_disarm();
	char site[64];

	open_run = NULL;
	refused_site(site, sizeof(site));
	if (failed && hash_new_lfts(osm) != lft_before)
		OSM_LOG(&osm->log, OSM_LOG_ERROR, "ERR failalloc: %s run %u: "
			"new_lft changed by a run that failed\n", h->name, runs);
	if (mode == COUNT) {
		OSM_LOG(&osm->log, OSM_LOG_INFO, "failalloc: %s run %u: %ld "
			"allocations, none refused: %s\n", h->name, runs, made,
			outcome);
		return;
	}
	if (made <= next_refused) {
		OSM_LOG(&osm->log, OSM_LOG_INFO, "failalloc: %s run %u: %ld "
			"allocations, none refused: %s; sweep complete: %ld "
			"allocation failures injected\n", h->name, runs, made,
			outcome, next_refused);
		mode = OFF;
		return;
	}
	OSM_LOG(&osm->log, OSM_LOG_INFO, "failalloc: %s run %u: %ld "
		"allocations, allocation %ld refused at %s: %s%s\n", h->name,
		runs, made, next_refused, site, outcome,
		failed ? ", new_lft untouched" : "");
	next_refused++;
	/* the next run: a re-route, as OpenSM's console `reroute` asks */
	osm->subn.force_reroute = TRUE;
	osm_sm_signal(&osm->sm, OSM_SIGNAL_SWEEP);
}

static int hook_build(void *context)
{
	struct hooked *h = find(context);
	int rc;

	if (open_run)   /* OpenSM never called the second callback */
		close_run(open_run, "no ucast_build_fwd_tables call", false);
	if (mode == OFF)
		return h->build(context);
	runs++;
	lft_before = hash_new_lfts(h->osm);
	open_run = h;
	OSM_LOG(&h->osm->log, OSM_LOG_INFO, "failalloc: %s run %u: begins, "
		"refusing allocation %ld\n", h->name, runs,
		mode == SWEEP ? next_refused : -1L);
	failing_alloc_arm(mode == SWEEP ? next_refused : -1);
	rc = h->build(context);
	if (rc < 0)
		close_run(h, "refused in build_lid_matrices", true);
	return rc;
}

static int hook_fwd(void *context)
{
	struct hooked *h = find(context);
	int rc = h->fwd(context);

	if (open_run == h)
		close_run(h, rc < 0 ? "refused in ucast_build_fwd_tables" :
			  "routed, tables pushed", rc < 0);
	return rc;
}

static int hook_setup(osm_routing_engine_t *re, osm_opensm_t *osm)
{
	struct hooked *h = find(re->context);
	int rc;

	if (!h)
		return -1;
	rc = h->setup(re, osm);
	if (rc)
		return rc;
	h->osm = osm;
	h->build = re->build_lid_matrices;
	h->fwd = re->ucast_build_fwd_tables;
	if (h->build)
		re->build_lid_matrices = hook_build;
	if (h->fwd)
		re->ucast_build_fwd_tables = hook_fwd;
	return 0;
}

cl_status_t __wrap_osm_register_external_routing_engine(osm_opensm_t *osm,
	const external_routing_engine_module_t *module, void *context)
{
	external_routing_engine_module_t m = *module;
	const char *how = getenv("IBROUTING_TEST_FAIL_ALLOC");

	if (num_hooked == 0 && how) {
		mode = strcmp(how, "sweep") == 0 ? SWEEP :
		       strcmp(how, "count") == 0 ? COUNT : OFF;
		OSM_LOG(&osm->log, OSM_LOG_INFO, "failalloc: mode %s\n",
			mode == SWEEP ? "sweep" : mode == COUNT ? "count" :
			"off (IBROUTING_TEST_FAIL_ALLOC is count or sweep)");
	}
	if (num_hooked < MAX_HOOKED && !find(context)) {
		struct hooked *h = &hooked[num_hooked++];
		h->context = context;
		h->setup = module->setup;
		snprintf(h->name, sizeof(h->name), "%s", module->name);
		m.setup = hook_setup;
	}
	return __real_osm_register_external_routing_engine(osm, &m, context);
}
