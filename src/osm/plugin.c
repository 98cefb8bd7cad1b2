/*
 * plugin.c - libibrouting.so, an OpenSM event plugin that registers the
 * ibrouting engines as external routing engines.
 *
 * OpenSM loads event plugins before it sets up its routing engines, so
 * create() can register every engine of the core's registry (ibr_engines[])
 * and `routing_engine pira,fera` in opensm.conf finds them.  For each routing run OpenSM calls, with its
 * lock held:
 *   build_lid_matrices     build the fabric model from the subnet, choose
 *                          the root, route, verify; fill the switch hop
 *                          tables with our routes (multicast and the dumps
 *                          read them); keep the result;
 *   ucast_build_fwd_tables copy the kept tables into every new_lft;
 *                          hand the designated DLIDs to the SA wrapper
 *                          (sa_dlids.c), which answers PathRecord Gets
 *                          with them while OpenSM routes with us.
 * Any failure in the first step returns -1 before a single new_lft byte
 * is written, and OpenSM falls back to the next engine of its list.
 * Nothing here may crash OpenSM: every allocation failure is an error.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <complib/cl_nodenamemap.h>
#include <opensm/osm_event_plugin.h>
#include <opensm/osm_file_ids.h>
#include <opensm/osm_version.h>

#include "ibrouting/check.h"
#include "ibrouting/dump.h"
#include "ibrouting/escape.h"
#include "ibrouting/metrics.h"
#include "ibrouting/verify.h"
#include "ibrouting/walk.h"
#include "plugin.h"
#include "util/parallel.h"
#include "util/timer.h"

/* One per engine of the registry, then one per hybrid, allocated by
 * create(). */
static struct engine_ctx *engine_ctxs;
static unsigned num_engine_ctxs;

/* The model (c->of) outlives the run: it is OpenSM's subnet until the
 * next heavy sweep (ibr_plugin_drop_model). */
void ibr_plugin_drop_run(struct engine_ctx *c)
{
	if (c->routed)
		ibr_result_free(&c->result);
	ibr_walker_free(&c->walker);
	free(c->root_guids);
	c->root_guids = NULL;
	c->num_root_guids = c->root_guids_cap = 0;
	c->routed = false;
	c->hops_pending = false;
}

/* The model and the prior may share one fabric: the model owns it then,
 * and hands it to the prior when it goes. */
void ibr_plugin_drop_model(struct engine_ctx *c)
{
	if (c->of.fabric && c->of.fabric == c->prior_fabric)
		c->of.fabric = NULL;
	ibr_osm_fabric_free(&c->of);
}

void ibr_plugin_drop_prior(struct engine_ctx *c)
{
	ibr_result_free(&c->prior_result);
	if (c->prior_fabric != c->of.fabric)
		ibr_fabric_free(c->prior_fabric);
	c->prior_fabric = NULL;
	memset(&c->prior, 0, sizeof(c->prior));
}

/* OpenSM configured the switches with c's run: its tables and fabric
 * become the prior (plugin.h), when one engine made them all.  A hybrid's
 * provisional tables or steps do not: its final engine's last tables stay
 * the prior, the routes its next final pass keeps.  The fabric is the
 * model's, shared until the next heavy sweep. */
static void remember_prior(struct engine_ctx *c)
{
	const struct ibr_engine *e = c->hybrid ? ibr_hybrid_tables_engine(c) :
				     c->engine;

	if (!e || !c->routed)
		return;
	ibr_plugin_drop_prior(c);
	if (!e->routes_from_prior)
		return;     /* pira: nothing would read it */
	c->prior_fabric = c->of.fabric;
	c->prior_result = c->result;
	memset(&c->result, 0, sizeof(c->result));
	c->routed = false;     /* the result is the prior's now */
	c->prior = (struct ibr_prior){ .f = c->prior_fabric,
				       .r = &c->prior_result,
				       .engine = e->name };
}

/* ---- root ------------------------------------------------------------ */

/* The root chain (libibrouting(8), roots.h), resolved by the core as the
 * tool resolves it:
 *   1. OpenSM's root_guid_file, read as updn reads it: every listed switch
 *      of the fabric is a root (a set);
 *   2. the plugin's `root` option: a GUID, or a strategy;
 *   3. the strategy, `auto` by default: the top level of a fat tree or a
 *      Clos network, else a switch of minimum eccentricity.
 * A link that names no usable switch (a dead root, a CA, a file that
 * cannot be read) is passed over with a WRN IB27 line naming the GUID and
 * why, or, with root_fallback refuse, refuses the run: OpenSM then routes
 * with the next engine of routing_engine.  Why not refuse by default:
 * OpenSM's fallbacks on an irregular fabric are updn, which needs a root
 * too, and minhop, whose tables have credit loops; our tables from
 * another root are still up*-down* and deadlock-free.  Here the plugin
 * only reads the file (OpenSM's parse_node_map) and logs. */

static int collect_guid(void *cxt, uint64_t guid, char *rest)
{
	struct engine_ctx *c = cxt;

	(void)rest;
	if (c->num_root_guids == c->root_guids_cap) {
		uint32_t cap = c->root_guids_cap ? 2 * c->root_guids_cap : 64;
		uint64_t *g = realloc(c->root_guids, cap * sizeof(*g));
		if (!g)
			return -1;
		c->root_guids = g;
		c->root_guids_cap = cap;
	}
	c->root_guids[c->num_root_guids++] = guid;
	return 0;
}

/* The chain's request for this run into *root. */
static int root_request(struct engine_ctx *c, struct ibr_root_choice *root,
			struct ibr_error *err)
{
	osm_opensm_t *osm = c->plugin->osm;
	const char *file = osm->subn.opt.root_guid_file;
	const struct ibr_plugin_conf *conf = &c->plugin->opts.conf;

	c->num_root_guids = 0;
	memset(root, 0, sizeof(*root));
	root->guid = conf->root.guid;
	root->strategy = conf->root.guid ? IBR_ROOT_SM : conf->root.strategy;
	root->fallback = conf->root_fallback;
	snprintf(c->guid_source, sizeof(c->guid_source), "%s",
		 c->plugin->opts.path_text);
	root->guid_source = c->guid_source;
	/* auto measures its root for an engine that balances; a hybrid's
	 * engine here is its final one, whose orientation both passes share */
	root->unmeasured = !c->engine->measures_root;
	root->threads = ibr_plugin_threads(c->plugin);
	/* auto and center keep the root the prior tables were routed
	 * from while it serves (roots.h): a far switch lost must not turn
	 * every route */
	if (c->prior_fabric && c->prior_result.num_roots == 1) {
		c->prior_root = ibr_switch(c->prior_fabric,
					      c->prior_result.roots[0])->guid;
		root->prior_roots = &c->prior_root;
		root->prior_roots_len = 1;
	}
	if (!file || !*file)
		return 0;
	snprintf(c->root_source, sizeof(c->root_source), "root_guid_file %s",
		 file);
	root->set_source = c->root_source;
	errno = 0;
	if (parse_node_map(file, collect_guid, c)) {
		if (errno == ENOMEM || (c->num_root_guids &&
					c->num_root_guids == c->root_guids_cap))
			return ibr_error_set(err, "out of memory reading %s",
					     file);
		root->set_unreadable = true;
		return 0;
	}
	root->set = c->root_guids;
	root->set_len = c->num_root_guids;
	return 0;
}

/* The whole root set, 8 GUIDs a line, whenever it differs from the set
 * this engine logged last: what an administrator compares with updn's
 * roots, and what `ibrouting verify --roots` takes to judge the tables
 * OpenSM dumps (tests/e2e_lib.sh reads the last set logged). */
#define ROOTS_PER_LINE 8

static void log_root_set(struct engine_ctx *c, const char *name,
			 const struct ibr_roots *roots)
{
	const struct ibr_fabric *f = c->of.fabric;
	uint64_t digest = 14695981039346656037ull;

	for (uint32_t i = 0; i < roots->count; i++)
		digest = (digest ^ ibr_switch(f, roots->sw[i])->guid) *
			 1099511628211ull;
	if (digest == c->roots_digest)
		return;
	c->roots_digest = digest;
	for (uint32_t i = 0; i < roots->count; i += ROOTS_PER_LINE) {
		char list[ROOTS_PER_LINE * 20 + 1];
		size_t used = 0;
		for (uint32_t k = i; k < roots->count && k < i + ROOTS_PER_LINE; k++)
			used += snprintf(list + used, sizeof(list) - used,
					 " 0x%016" PRIx64,
					 ibr_switch(f, roots->sw[k])->guid);
		OSM_LOG(&c->plugin->osm->log, OSM_LOG_INFO, "%s: root set %u-%u "
			"of %u:%s\n", name, i + 1, i + ROOTS_PER_LINE < roots->count ?
			i + ROOTS_PER_LINE : roots->count, roots->count, list);
	}
}

/* WRN lines for what the chain passed over, and the roots for the run's
 * INFO line. */
static void log_roots(struct engine_ctx *c, const char *name,
		      const struct ibr_roots *roots)
{
	osm_log_t *log = &c->plugin->osm->log;
	const struct ibr_fabric *f = c->of.fabric;
	char list[200];

	for (uint32_t i = 0; i < roots->num_passed && i < IBR_ROOT_NOTES; i++) {
		const struct ibr_root_note *n = &roots->passed[i];
		if (n->guid)
			OSM_LOG(log, OSM_LOG_INFO, "WRN IB27: %s: root GUID 0x%016"
				PRIx64 " of %s %s; the root%s %s\n", name,
				n->guid, n->source, n->why,
				roots->count > 1 ? "s are" : " is", roots->how);
		else
			OSM_LOG(log, OSM_LOG_INFO, "WRN IB27: %s: %s %s; the "
				"root%s %s\n", name, n->source, n->why,
				roots->count > 1 ? "s are" : " is", roots->how);
	}
	if (roots->num_passed > IBR_ROOT_NOTES)
		OSM_LOG(log, OSM_LOG_INFO, "WRN IB27: %s: %u more root GUIDs "
			"passed over\n", name, roots->num_passed - IBR_ROOT_NOTES);
	if (roots->recognised) {
		OSM_LOG(log, OSM_LOG_INFO, "%s: topology: %s\n", name,
			roots->topology.summary);
		for (uint32_t i = 0; i < roots->topology.num_notes; i++)
			OSM_LOG(log, OSM_LOG_INFO, "%s: topology: %s\n", name,
				roots->topology.notes[i]);
	}
	if (roots->replaced[0])
		OSM_LOG(log, OSM_LOG_INFO, "WRN IB35: %s: %s\n", name,
			roots->replaced);
	if (roots->unreached)
		OSM_LOG(log, OSM_LOG_INFO, "WRN IB37: %s: %u roots cannot reach "
			"%" PRIu64 " (root, host switch) pairs going down (links "
			"below them are gone): management routes carry those "
			"switches' own traffic to those hosts; hosts reach every "
			"host and every switch reaches the SM\n", name,
			roots->roots_unreaching, roots->unreached);
	log_root_set(c, name, roots);
	if (roots->count > 1)
		snprintf(c->roots_text, sizeof(c->roots_text), "roots %u (%s): %s",
			 roots->count, roots->how, ibr_roots_format(f, roots->sw,
			 roots->count, 4, list, sizeof(list)));
	else
		snprintf(c->roots_text, sizeof(c->roots_text), "root 0x%016"
			 PRIx64 " (%s)", ibr_switch(f, roots->sw[0])->guid,
			 roots->how);
}

/* ---- hop tables --------------------------------------------------------- */

/* OpenSM reads the hop counts of a switch (osm_switch_get_hop_count,
 * osm_switch_get_least_hops) in two places only (OpenSM 3.3.23):
 *   - its multicast manager, for switch LIDs: the spanning tree's root
 *     and each branch's port (osm_mcast_mgr.c, and
 *     osm_switch_recommend_mcast_path, which looks up the hops to the
 *     base LID of the switch a member port hangs off);
 *   - its routing dumps (osm_dump.c: opensm.fdbs, opensm-lid-matrix.dump),
 *     written only when its log has OSM_LOG_ROUTING for osm_dump.c, which
 *     read CA LIDs too.
 * (Its own engines' helper osm_switch_recommend_path reads them for their
 * routing; the unicast cache only moves them around.)  OpenSM's own
 * engines keep hops for switch LIDs only, and so do we, for the port our
 * tables use; and only when the dumps will be written, every LID of a CA
 * port's range too, wherever its port differs from the port to the CA's
 * switch (the dump derives the others from the switch's row) and there is
 * a route (a multi-LID engine's renamed LIDs off their paths are not even
 * walked).  A log level raised between runs only makes the next dumps say
 * "HOPS UNKNOWN" where a CA LID's port is not its switch's.
 *
 * When: both readers run after OpenSM has configured every switch's LFT
 * and reported OSM_EVENT_ID_UCAST_ROUTING_DONE (osm_state_mgr.c), so the
 * plugin walks its routes and writes the hop tables from that event, not
 * inside the routing window: each hop table entry is an allocation of
 * OpenSM's, a malloc per (switch, LID), which on a fresh fabric costs more
 * than routing, and after the LFTs it delays no packet.  Every allocation
 * of ours (the walker) is made with the run in build_lid_matrices, where
 * a failure still refuses the tables; the event allocates nothing of ours
 * and cannot fail.  A sweep that reports no UCAST_ROUTING_DONE after our
 * push (OpenSM exiting, a re-route whose subnet had errors) gets them at
 * the next OSM_EVENT_ID_HEAVY_SWEEP_START, reported before discovery can
 * drop a switch.  O(S) per LID walked. */
static int prepare_hops(struct engine_ctx *c, struct ibr_error *err)
{
	return ibr_walker_init(&c->walker, c->of.fabric, err);
}

/* OpenSM's lock held. */
static void fill_hops(struct engine_ctx *c, bool ca_lids)
{
	const struct ibr_fabric *f = c->of.fabric;
	const struct ibr_result *r = &c->result;
	struct ibr_walker *w = &c->walker;
	uint32_t S = f->num_switches;

	for (uint32_t d = 0; d < S; d++) {
		ibr_lid_t lid = ibr_switch_lid(f, d);
		const uint8_t *sw_col = ibr_column(r, lid);
		ibr_walk_column(w, sw_col, lid, NULL);
		for (uint32_t s = 0; s < S; s++)
			osm_switch_set_hops(c->of.switches[s], lid, sw_col[s],
					    w->hops[s]);
		for (uint32_t i = f->sw_ca_start[d];
		     ca_lids && i < f->sw_ca_start[d + 1]; i++) {
			const struct ibr_end_port *e = &f->end_ports[f->sw_cas[i]];
			const struct ibr_port *p = ibr_port(f, e->node, e->port);
			/* every LID of the CA port's range, not just the base */
			for (unsigned ca = p->base_lid;
			     ca < p->base_lid + ibr_port_lid_count(p); ca++) {
				const uint8_t *ca_col = ibr_column(r, ca);
				bool walked = false;
				for (uint32_t s = 0; s < S; s++) {
					if (s == d || ca_col[s] == sw_col[s] ||
					    ca_col[s] == IBR_NO_PATH)
						continue;
					if (!walked)
						ibr_walk_column(w, ca_col, ca, NULL);
					walked = true;
					osm_switch_set_hops(c->of.switches[s], ca,
							    ca_col[s], w->hops[s]);
				}
			}
		}
	}
}

/* The event callback's part: the engine whose tables OpenSM configured
 * last gets its hop tables written; any other run still kept is only
 * freed.  Switches are those of that routing run: called before OpenSM's
 * next discovery. */
static void settle_hops(struct plugin *p)
{
	osm_opensm_t *osm = p->osm;
	const struct osm_routing_engine *used = osm->routing_engine_used;

	for (unsigned i = 0; i < num_engine_ctxs; i++) {
		struct engine_ctx *c = &engine_ctxs[i];
		double t0 = ibr_now_ms();
		if (!c->hops_pending)
			continue;
		if (used && used->context == c) {
			bool dumps = osm_log_is_active_v2(&osm->log,
							  OSM_LOG_ROUTING,
							  OSM_FILE_DUMP_C);
			cl_plock_excl_acquire(&osm->lock);
			fill_hops(c, dumps);
			cl_plock_release(&osm->lock);
			remember_prior(c);
			OSM_LOG(&osm->log, OSM_LOG_VERBOSE, "%s: hop tables %.3f ms "
				"(switch LIDs%s), after the switches' LFTs\n",
				c->name, ibr_now_ms() - t0,
				dumps ? " and CA LIDs, for OpenSM's dumps" : "");
		}
		ibr_plugin_drop_run(c);
	}
}

/* ---- the two callbacks ----------------------------------------------- */

static void log_findings(osm_log_t *log, const char *name,
			 const struct ibr_verify_report *rep)
{
	OSM_LOG(log, OSM_LOG_ERROR, "ERR IB10: %s: verifier rejects the tables: "
		"%" PRIu64 " bad ports, %" PRIu64 " loops, %" PRIu64
		" unreachable, %" PRIu64 " dependency cycles, %" PRIu64
		" bad designated DLIDs; not pushed\n", name, rep->bad_port,
		rep->loops, rep->unreachable, rep->cycles, rep->bad_designated);
	for (unsigned i = 0; i < rep->num_messages; i++)
		OSM_LOG(log, OSM_LOG_ERROR, "ERR IB11: %s: %s\n", name,
			rep->messages[i]);
}

/* One line for the switches and CA ports OpenSM gave no LID: routing
 * leaves them out, and says which. */
void ibr_plugin_log_lidless(osm_log_t *log, const char *name,
			const struct ibr_osm_fabric *of)
{
	char guids[IBR_OSM_LIDLESS_NAMED * 20 + 16] = "";
	size_t len = 0;
	uint32_t named = of->num_lidless < IBR_OSM_LIDLESS_NAMED ?
			 of->num_lidless : IBR_OSM_LIDLESS_NAMED;

	if (of->num_lidless == 0)
		return;
	for (uint32_t i = 0; i < named; i++)
		len += snprintf(guids + len, sizeof(guids) - len, " 0x%016" PRIx64,
				of->lidless_guid[i]);
	if (of->num_lidless > named)
		snprintf(guids + len, sizeof(guids) - len, " ...");
	OSM_LOG(log, OSM_LOG_INFO, "WRN IB16: %s: %u switches or CA ports have "
		"no LID from OpenSM and are left out of routing:%s\n", name,
		of->num_lidless, guids);
}

/* An engine below the LMC it needs still routes, on one LID per
 * destination (dr as FERa, engine.h); once per run, the log says so. */
void ibr_plugin_warn_lmc(osm_log_t *log, const struct ibr_engine *e, unsigned lmc)
{
	if (lmc >= e->min_lmc)
		return;
	OSM_LOG(log, OSM_LOG_INFO, "WRN IB22: %s: lmc %u: needs lmc >= %u for "
		"several LIDs per destination; %s\n", e->name, lmc, e->min_lmc,
		e->below_min_lmc ? e->below_min_lmc : "routing on base LIDs only");
}

unsigned ibr_plugin_threads(const struct plugin *p)
{
	return ibr_threads_or_available(p->opts.conf.threads);
}

/* The check policy (check.h, verify_method) on c->result; a failed
 * certificate that the full check overrules is a WRN line. */
static int check_tables(struct engine_ctx *c, const struct ibr_fabric *f,
			const struct ibr_engine *e,
			struct ibr_verify_report *rep,
			enum ibr_check_verdict *verdict, struct ibr_error *err)
{
	enum ibr_check_method method =
		c->plugin->opts.conf.verify_method == IBR_VERIFY_CERTIFICATE ?
		IBR_CHECK_CERTIFICATE : IBR_CHECK_FULL;
	struct ibr_check check;

	if (ibr_check_tables(f, &c->result, e, method,
			     ibr_plugin_threads(c->plugin), &check, err))
		return -1;
	if (check.verdict == IBR_FULL_AFTER_CERT)
		OSM_LOG(&c->plugin->osm->log, OSM_LOG_INFO, "WRN IB17: %s: the "
			"certificate fails (%" PRIu64 " bad ports, %" PRIu64
			" unreachable, %" PRIu64 " down-up turns, %" PRIu64 " bad "
			"designated DLIDs; first: %s); the full check decides\n",
			e->name, check.cert.bad_port, check.cert.unreachable,
			check.cert.down_up, check.cert.bad_designated,
			check.cert.messages[0]);
	*rep = check.rep;
	*verdict = check.verdict;
	return 0;
}

/* The engine's options from opensm-plugin.conf (ENGINE_KEY lines), which
 * follow the registry. */
static const struct ibr_options *engine_options(const struct plugin *p,
						const struct ibr_engine *e)
{
	for (unsigned i = 0; ibr_engines[i] && i < IBR_CONF_MAX_ENGINES; i++)
		if (ibr_engines[i] == e)
			return &p->opts.conf.engine[i];
	return NULL;
}

/* Loopback cables OpenSM found (fabric.h): our fabric left them out, and
 * the log says which, at most LOOPBACKS_NAMED lines per run. */
#define LOOPBACKS_NAMED 8

static void log_loopbacks(struct engine_ctx *c)
{
	const struct ibr_fabric *f = c->of.fabric;
	osm_log_t *log = &c->plugin->osm->log;

	for (uint32_t i = 0; i < f->num_loopbacks && i < LOOPBACKS_NAMED; i++) {
		const struct ibr_loopback *l = &f->loopbacks[i];
		const struct ibr_node *n = &f->nodes[l->node];
		OSM_LOG(log, OSM_LOG_INFO, "WRN IB28: %s: switch 0x%016" PRIx64
			" \"%s\": port %u is cabled to its own port %u (a "
			"loopback); left out of routing\n", c->name, n->guid,
			n->desc, l->port, l->peer_port);
	}
	if (f->num_loopbacks > LOOPBACKS_NAMED)
		OSM_LOG(log, OSM_LOG_INFO, "WRN IB28: %s: %u more loopback "
			"cables left out of routing\n", c->name,
			f->num_loopbacks - LOOPBACKS_NAMED);
}

/* Where OpenSM writes its routing dumps (opensm-lfts.dump, ... in
 * dump_files_dir, when its log has OSM_LOG_ROUTING), ibrouting-dlids.dump
 * goes beside them: the root set, the LMC and the designated DLIDs that
 * `ibrouting verify DIR` needs to judge those tables as they are.  A
 * failure is logged, never fatal: the tables are pushed all the same. */
static void write_beside_osm_dumps(struct engine_ctx *c)
{
	osm_opensm_t *osm = c->plugin->osm;
	const char *dir = osm->subn.opt.dump_files_dir;
	struct ibr_error err = { "" };
	char why[2 * sizeof(err.msg)];

	if (!dir || !*dir || !osm_log_is_active(&osm->log, OSM_LOG_ROUTING))
		return;
	if (ibr_dlids_write(dir, c->of.fabric, &c->result, &err))
		OSM_LOG(&osm->log, OSM_LOG_ERROR, "ERR IB45: %s: cannot write "
			"ibrouting-dlids.dump beside OpenSM's dumps: %s\n",
			c->name, ibr_escape_str(err.msg, why, sizeof(why)));
}

int ibr_plugin_model(struct engine_ctx *c, struct ibr_root_choice *root,
		     struct ibr_error *err)
{
	double t0 = ibr_now_ms();

	/* kept from an earlier run since the last heavy sweep (a re-route,
	 * a hybrid's next pass): OpenSM's subnet has not changed */
	c->model_reused = c->of.fabric != NULL;
	if (!c->model_reused &&
	    ibr_osm_fabric_build(c->plugin->osm, &c->of, err)) {
		ibr_plugin_drop_model(c);
		return -1;
	}
	log_loopbacks(c);
	if (root_request(c, root, err))
		return -1;
	c->model_ms = ibr_now_ms() - t0;
	return 0;
}

int ibr_plugin_route(struct engine_ctx *c, const struct ibr_fabric *rf,
		     const struct ibr_engine *e,
		     const struct ibr_root_choice *root,
		     struct ibr_verify_report *rep, struct ibr_error *err)
{
	enum ibr_check_verdict checked = IBR_NOT_CHECKED;
	struct ibr_route_ctx ctx;
	double t1;
	int rc;

	memset(rep, 0, sizeof(*rep));
	c->check_kind = IBR_NOT_CHECKED;
	if (!rf)
		rf = c->of.fabric;
	if (ibr_ctx_init(&ctx, rf, root, engine_options(c->plugin, e), err))
		return -1;
	log_roots(c, c->name, &ctx.roots);
	ctx.port_choice = c->plugin->opts.conf.port_choice;
	/* the workers see only our fabric model and result, never OpenSM's
	 * structures (parallel.h); OpenSM's lock stays with this thread */
	ctx.threads = ibr_plugin_threads(c->plugin);
	/* the prior tables, for an engine that routes from them; not on a
	 * Double Scheme's view of one LID half */
	if (c->prior_fabric && rf == c->of.fabric)
		ctx.prior = &c->prior;
	rc = ibr_route(&ctx, e, &c->result, err);
	ibr_ctx_free(&ctx);
	if (rc)
		return -1;
	c->routed = true;
	t1 = ibr_now_ms();
	if (c->plugin->opts.conf.verify_before_push &&
	    check_tables(c, rf, e, rep, &checked, err))
		return -1;
	c->check_kind = checked;
	c->verify_ms = ibr_now_ms() - t1;
	return 0;
}

/* The hop tables' walker (written after the push, "hop tables"); what
 * the INFO line will say (label: the engine, or the hybrid's pass). */
int ibr_plugin_finish(struct engine_ctx *c, const char *label,
		      const struct ibr_verify_report *rep, const char *checked)
{
	struct ibr_error err = { "" };
	double t0 = ibr_now_ms();

	if (prepare_hops(c, &err)) {
		OSM_LOG(&c->plugin->osm->log, OSM_LOG_ERROR, "ERR IB13: %s: %s\n",
			label, err.msg);
		return -1;
	}
	c->hops_ms = ibr_now_ms() - t0;
	snprintf(c->label, sizeof(c->label), "%s", label);
	snprintf(c->checked, sizeof(c->checked), "%s", checked ? checked :
		 ibr_check_verdict_text((enum ibr_check_verdict)c->check_kind));
	c->designated_flows = rep ? rep->designated.flows : 0;
	c->designated_load = rep ? rep->designated.max_link_load : 0;
	return 0;
}

void ibr_plugin_log_findings(struct engine_ctx *c,
			     const struct ibr_verify_report *rep)
{
	c->refused_by_verifier = true;
	log_findings(&c->plugin->osm->log, c->name, rep);
}

/* OpenSM's first callback: route (a pass of the engine's machine), then
 * one INFO line for the run, named after this function in OpenSM's log
 * as administrators and our scripts know it. */
static int build_lid_matrices(void *context)
{
	struct engine_ctx *c = context;
	osm_log_t *log = &c->plugin->osm->log;
	const struct ibr_fabric *f;
	uint32_t lids = 0;
	char stats[256], load[80] = "", phases[400] = "", mgmt[80] = "";
	double t0 = ibr_now_ms();

	/* the options file, read again if it changed since */
	ibr_plugin_options_refresh(&c->plugin->opts, log);
	/* a run whose hop tables were never written (no event came) is
	 * dropped unwritten, its model too: its switches may be gone by now */
	for (unsigned i = 0; i < num_engine_ctxs; i++)
		if (engine_ctxs[i].hops_pending) {
			ibr_plugin_drop_run(&engine_ctxs[i]);
			ibr_plugin_drop_model(&engine_ctxs[i]);
		}
	c->refused_by_verifier = false;
	if (ibr_hybrid_build(c)) {
		ibr_status_run(c->plugin, c->name, false,
			       c->refused_by_verifier, ibr_now_ms() - t0);
		return -1;
	}
	f = c->of.fabric;
	for (uint32_t l = 1; l <= f->max_lid; l++)
		lids += f->lid_owner[l].node != IBR_NONE;
	if (c->designated_flows)
		snprintf(load, sizeof(load), ", max link load %" PRIu64
			 " flows along designated DLIDs", c->designated_load);
	if (c->result.management.set)
		snprintf(mgmt, sizeof(mgmt), ", %" PRIu64 " management routes "
			 "(no legal route under the roots)",
			 c->result.management.set);
	OSM_LOG(log, OSM_LOG_INFO, "%s: %u switches, %u CA ports, %u LIDs, "
		"%s%s%s, %.3f ms, %s, %s\n", c->label,
		f->num_switches, f->num_end_ports, lids,
		ibr_stats_format(&c->result, stats, sizeof(stats)), mgmt, load,
		c->result.stats.compute_ms, c->roots_text, c->checked);
	if (c->result.stats.phases) {
		char engine[360];
		snprintf(phases, sizeof(phases), " (%s)",
			 ibr_phases_format(&c->result, engine, sizeof(engine)));
	}
	OSM_LOG(log, OSM_LOG_VERBOSE, "%s: phases: fabric model %.3f ms%s, "
		"routing %.3f ms%s, verification %.3f ms, hop table walker "
		"%.3f ms, in all %.3f ms\n",
		c->label, c->model_ms, c->model_reused ? " (kept: no heavy "
		"sweep since it was built)" : "", c->result.stats.compute_ms,
		phases, c->verify_ms, c->hops_ms, ibr_now_ms() - t0);
	ibr_status_run(c->plugin, c->name, true, false, ibr_now_ms() - t0);
	return 0;
}

/* Every switch's row of our tables into its new_lft, up to the LIDs
 * OpenSM sized it for. */
static int copy_rows(struct engine_ctx *c, struct ibr_error *err)
{
	uint32_t S = c->of.fabric->num_switches;
	uint8_t **rows = malloc(S * sizeof(*rows));
	uint32_t *len = malloc(S * sizeof(*len));

	if (!rows || !len) {
		free(rows);
		free(len);
		return ibr_error_set(err, "out of memory for %u rows", S);
	}
	for (uint32_t s = 0; s < S; s++) {
		rows[s] = c->of.switches[s]->new_lft;
		len[s] = c->of.switches[s]->max_lid_ho + 1u;
	}
	ibr_result_rows(&c->result, rows, len);
	free(rows);
	free(len);
	return 0;
}

static int build_fwd_tables(void *context)
{
	struct engine_ctx *c = context;
	osm_log_t *log = &c->plugin->osm->log;
	struct ibr_error err = { "" };
	double t0 = ibr_now_ms(), t1;

	if (!c->routed) {
		OSM_LOG(log, OSM_LOG_ERROR, "ERR IB14: %s: no routes to push\n",
			c->name);
		ibr_sa_dlids_clear(c->plugin->sa);
		return -1;
	}
	if (copy_rows(c, &err)) {
		OSM_LOG(log, OSM_LOG_ERROR, "ERR IB14: %s: %s\n", c->name,
			err.msg);
		ibr_sa_dlids_clear(c->plugin->sa);
		ibr_plugin_drop_run(c);
		return -1;
	}
	t1 = ibr_now_ms();
	/* the SA's copy, before drop_run frees the fabric and the result;
	 * not while a Double Scheme keeps the SA on the prior half */
	if (!c->sa_hold)
		ibr_sa_dlids_publish(c->plugin->sa, c, c->name, c->of.fabric,
				     &c->result);
	OSM_LOG(log, OSM_LOG_VERBOSE, "%s: tables into OpenSM's new_lft %.3f "
		"ms, SA's designated DLIDs %.3f ms\n", c->label, t1 - t0,
		ibr_now_ms() - t1);
	if (c->plugin->opts.conf.dump_dir) {
		bool dumped = ibr_dump_write(c->plugin->opts.conf.dump_dir,
					     c->of.fabric, &c->result, &err) == 0;
		char why[2 * sizeof(err.msg)];
		/* the path comes from the options file: escaped */
		if (!dumped)
			OSM_LOG(log, OSM_LOG_ERROR, "ERR IB15: %s: dump failed: "
				"%s\n", c->name,
				ibr_escape_str(err.msg, why, sizeof(why)));
		ibr_status_dumps_written(c->plugin, dumped);
	}
	write_beside_osm_dumps(c);
	/* kept for the hop tables, written once the LFTs are configured */
	c->hops_pending = true;
	return 0;
}

static void destroy_engine(void *context)
{
	ibr_plugin_drop_run(context);
	ibr_plugin_drop_prior(context);
	ibr_plugin_drop_model(context);
}

/* ---- registration ------------------------------------------------------ */

static void update_sl2vl(void *context, osm_physp_t *port, uint8_t in,
			 uint8_t out, ib_slvl_table_t *t)
{
	(void)in;
	(void)out;
	ibr_hybrid_update_sl2vl(context, port, t);
}

static uint8_t path_sl(void *context, uint8_t hint, ib_net16_t slid,
		       ib_net16_t dlid)
{
	(void)slid;
	return ibr_hybrid_path_sl(context, hint, cl_ntoh16(dlid));
}

static int setup(osm_routing_engine_t *re, osm_opensm_t *osm)
{
	struct engine_ctx *c = re->context;

	(void)osm;
	re->build_lid_matrices = build_lid_matrices;
	re->ucast_build_fwd_tables = build_fwd_tables;
	re->destroy = destroy_engine;
	/* the Double Scheme's SL-to-VL tables and SLs: hybrids only, and
	 * only with transition double_scheme at OpenSM's start (a change
	 * later waits for a restart) */
	if (c && c->hybrid && c->plugin->opts.conf.transition_double_scheme) {
		re->update_sl2vl = update_sl2vl;
		re->path_sl = path_sl;
	}
	return 0;
}

/* Adds hybrid NAME (len bytes) to ctxs[*n] unless it is there already. */
static void add_hybrid(struct engine_ctx *ctxs, unsigned *n, unsigned max,
		       const char *name, size_t len, osm_log_t *log)
{
	const struct ibr_engine *prov, *fin;

	if (ibr_hybrid_split(name, len, &prov, &fin) || *n >= max ||
	    len >= sizeof(ctxs[0].name))
		return;
	for (unsigned i = 0; i < *n; i++)
		if (strlen(ctxs[i].name) == len &&
		    memcmp(ctxs[i].name, name, len) == 0)
			return;
	memcpy(ctxs[*n].name, name, len);
	ctxs[*n].name[len] = '\0';
	ctxs[*n].engine = fin;
	ctxs[*n].hybrid = ibr_hybrid_new(prov, fin);
	if (!ctxs[*n].hybrid) {
		OSM_LOG(log, OSM_LOG_ERROR, "ERR IB20: ibrouting: out of "
			"memory for hybrid %s\n", ctxs[*n].name);
		return;
	}
	(*n)++;
}

static void *create(osm_opensm_t *osm)
{
	struct plugin *p = calloc(1, sizeof(*p));
	const char *conf = osm->subn.opt.routing_engine_names;
	char names[256];
	unsigned n = 0, max, hybrids = 0;

	while (ibr_engines[n])
		n++;
	while (ibr_default_hybrids[hybrids])
		hybrids++;
	/* room for the default hybrids (ibr_default_hybrids: always, so that
	 * `ibrouting engines` lists them) and one per name of routing_engine */
	max = n + hybrids + 1;
	for (const char *q = conf; q && *q; q++)
		max += *q == ',';
	engine_ctxs = calloc(max, sizeof(*engine_ctxs));
	if (!p || !engine_ctxs) {
		OSM_LOG(&osm->log, OSM_LOG_ERROR, "ERR IB20: ibrouting: out of "
			"memory\n");
		free(p);
		free(engine_ctxs);
		engine_ctxs = NULL;
		return NULL;
	}
	p->osm = osm;
	ibr_plugin_options_load(&p->opts, &osm->log);
	if (p->opts.conf.sa_designated_dlids)
		p->sa = ibr_sa_dlids_install(osm);
	for (unsigned i = 0; i < n; i++) {
		engine_ctxs[i].engine = ibr_engines[i];
		snprintf(engine_ctxs[i].name, sizeof(engine_ctxs[i].name), "%s",
			 ibr_engines[i]->name);
		/* a single engine is a hybrid of one: every push after a
		 * change goes the reconfiguration machine's way (reconf.h) */
		engine_ctxs[i].hybrid = ibr_hybrid_new(NULL, ibr_engines[i]);
		if (!engine_ctxs[i].hybrid) {
			OSM_LOG(&osm->log, OSM_LOG_ERROR, "ERR IB20: ibrouting: "
				"out of memory for %s\n", engine_ctxs[i].name);
			for (unsigned j = 0; j < i; j++)
				ibr_hybrid_free(engine_ctxs[j].hybrid);
			free(p);
			free(engine_ctxs);
			engine_ctxs = NULL;
			return NULL;
		}
	}
	for (unsigned i = 0; ibr_default_hybrids[i]; i++)
		add_hybrid(engine_ctxs, &n, max, ibr_default_hybrids[i],
			   strlen(ibr_default_hybrids[i]), &osm->log);
	while (conf && *conf) {
		size_t len = strcspn(conf, ",");
		add_hybrid(engine_ctxs, &n, max, conf, len, &osm->log);
		conf += len + (conf[len] == ',');
	}
	num_engine_ctxs = n;
	for (unsigned i = 0; i < n; i++) {
		external_routing_engine_module_t m = {
			.name = engine_ctxs[i].name, .setup = setup,
		};
		engine_ctxs[i].plugin = p;
		if (osm_register_external_routing_engine(osm, &m, &engine_ctxs[i]) !=
		    CL_SUCCESS)
			OSM_LOG(&osm->log, OSM_LOG_ERROR, "ERR IB21: ibrouting: "
				"cannot register routing engine %s\n",
				engine_ctxs[i].name);
	}
	{
		char hybrids[256] = "";
		size_t used = 0;
		for (unsigned i = 0; i < n && used < sizeof(hybrids) - 1; i++)
			if (ibr_hybrid_is_pair(engine_ctxs[i].hybrid))
				used += (size_t)snprintf(hybrids + used,
					sizeof(hybrids) - used, "%s%s",
					used ? ", " : "", engine_ctxs[i].name);
		OSM_LOG(&osm->log, OSM_LOG_INFO, "ibrouting %s loaded: routing "
			"engines %s; hybrids %s (built against %s)\n",
			PACKAGE_VERSION, ibr_engine_names(names, sizeof(names)),
			hybrids, OSM_VERSION);
	}
	return p;
}

/* The switches are configured: with the tables of a run of ours pushed
 * in this sweep (still waiting for its hop tables), or with another
 * engine's, or from OpenSM's unicast cache, which calls no engine and
 * leaves routing_engine_used as it was. */
static void note_routing_done(struct plugin *p)
{
	const struct osm_routing_engine *used = p->osm->routing_engine_used;
	const char *by = used && used->name ? used->name : "-";

	for (unsigned i = 0; i < num_engine_ctxs; i++) {
		/* the switches hold another engine's tables now */
		if (used && used->context != &engine_ctxs[i])
			ibr_plugin_drop_prior(&engine_ctxs[i]);
		if (!used || used->context != &engine_ctxs[i])
			continue;
		if (engine_ctxs[i].hops_pending) {
			ibr_status_routing_done(p, true, engine_ctxs[i].name);
			return;
		}
		by = "unicast-cache";
	}
	ibr_status_routing_done(p, false, by);
}

/* OpenSM's events: the hop tables of the run OpenSM configured are
 * written once its LFTs are (UCAST_ROUTING_DONE); the hybrids ask for
 * their next pass when a sweep has brought the subnet up or a re-route
 * has completed. */
static void report(void *data, osm_epi_event_id_t id, void *event_data)
{
	struct plugin *p = data;
	osm_opensm_t *osm = p->osm;
	bool done = id == OSM_EVENT_ID_SUBNET_UP ||
		    (id == OSM_EVENT_ID_UCAST_ROUTING_DONE &&
		     (uintptr_t)event_data == UCAST_ROUTING_REROUTE);

	/* OpenSM re-reads opensm.conf at every heavy sweep (SIGHUP forces
	 * one): the plugin's file too, if it changed */
	if (id == OSM_EVENT_ID_HEAVY_SWEEP_START)
		ibr_plugin_options_refresh(&p->opts, &osm->log);
	if (id == OSM_EVENT_ID_UCAST_ROUTING_DONE)
		note_routing_done(p);
	/* the hop tables first: every LFT is configured */
	if (id == OSM_EVENT_ID_UCAST_ROUTING_DONE ||
	    id == OSM_EVENT_ID_HEAVY_SWEEP_START)
		settle_hops(p);
	/* discovery may drop or add switches: no model stays */
	if (id == OSM_EVENT_ID_HEAVY_SWEEP_START)
		for (unsigned i = 0; i < num_engine_ctxs; i++)
			ibr_plugin_drop_model(&engine_ctxs[i]);
	if (!done || !osm->routing_engine_used)
		return;
	for (unsigned i = 0; i < num_engine_ctxs; i++)
		if (engine_ctxs[i].hybrid &&
		    osm->routing_engine_used->context == &engine_ctxs[i])
			ibr_hybrid_pushed(&engine_ctxs[i]);
}

static void delete(void *data)
{
	struct plugin *p = data;

	/* after OpenSM's SA shutdown: no SA thread runs our wrapper now */
	ibr_sa_dlids_uninstall(p->sa);
	for (unsigned i = 0; i < num_engine_ctxs; i++)
		ibr_hybrid_free(engine_ctxs[i].hybrid);
	ibr_plugin_options_free(&p->opts);
	free(p);
	/* OpenSM destroys its routing engines (and our runs) first. */
	free(engine_ctxs);
	engine_ctxs = NULL;
	num_engine_ctxs = 0;
}

/* OpenSM compares osm_version with its own and skips the plugin on a
 * mismatch, logging "OpenSM version mismatch": rebuild against the
 * installed libopensm-dev then. */
osm_event_plugin_t osm_event_plugin = {
	.osm_version = OSM_VERSION,
	.create = create,
	.delete = delete,
	.report = report,
};
