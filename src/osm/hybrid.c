/*
 * hybrid.c - PROVISIONAL+FINAL engines (pira+fera, pira+dr, pira+colorl,
 * and any pair of ours routing_engine names): fast provisional tables
 * right after a topology change, the final engine's tables after (PIRa
 * paper §3.4).
 *
 * A hybrid is a small state machine driven by OpenSM's routing runs:
 *  - a run on a fabric whose fingerprint (ibr_fabric_fingerprint) differs
 *    from that of the tables in place, or with no tables of ours in place,
 *    is the provisional pass: the provisional engine routes, its tables
 *    are verified and pushed, and the orientation's root is kept;
 *  - when OpenSM reports them pushed (SUBNET UP after a sweep, or a
 *    completed re-route), the plugin asks for a re-route (force_reroute
 *    and a sweep signal, what OpenSM's console `reroute` does), after
 *    hybrid_final_delay ms;
 *  - a run on the same fabric is the final pass: the final engine routes
 *    from the same root (one orientation for both passes), its tables are
 *    verified, then the union of the tables in place and the final ones
 *    is checked (ibr_verify_union: OpenSM sends blocks to all switches at
 *    once, so packets may mix both versions).  A clean union is pushed
 *    whole.  Otherwise the way goes in safe steps (transition.h), one
 *    re-route each, every step's union with the tables before it checked
 *    again, until the final tables are in place; when no safe step is
 *    left, or a check fails, the tables in place stay and the log says
 *    why.
 * A change of the fabric at any point starts over with a provisional
 * pass.  One INFO line per pass names the pass.
 *
 * The machine itself (which pass a run is, kept columns, one push or
 * safe steps, when the tables in place stay) is the core's (reconf.h),
 * shared with `ibrouting transition`; this file is its OpenSM adapter:
 * routing through the plugin, the log lines, the re-route request.
 *
 * Invariants: the tables OpenSM takes from a run of ours are a copy of
 * the machine's `held`; the designated DLIDs reach the SA only with the
 * final tables themselves (steps carry none, so the SA answers base LIDs
 * until then).
 */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <complib/cl_timer.h>

#include "ibrouting/reconf.h"
#include "plugin.h"

struct ibr_hybrid {
	struct ibr_reconf m;
	cl_timer_t timer;
	bool timer_ready;
};

struct ibr_hybrid *ibr_hybrid_new(const struct ibr_engine *provisional,
				  const struct ibr_engine *final)
{
	struct ibr_hybrid *h = calloc(1, sizeof(*h));

	if (h)
		ibr_reconf_init(&h->m, provisional, final);
	return h;
}

void ibr_hybrid_free(struct ibr_hybrid *h)
{
	if (!h)
		return;
	if (h->timer_ready)
		cl_timer_destroy(&h->timer);
	ibr_reconf_reset(&h->m);
	free(h);
}

/* c->result becomes a copy of src; -1 after an ERR line. */
static int take_copy(struct engine_ctx *c, const struct ibr_result *src)
{
	struct ibr_error err = { "" };

	if (c->routed)
		ibr_result_free(&c->result);
	c->routed = false;
	if (ibr_result_copy(&c->result, src, &err)) {
		OSM_LOG(&c->plugin->osm->log, OSM_LOG_ERROR, "ERR IB13: %s: "
			"%s\n", c->name, err.msg);
		return -1;
	}
	c->routed = true;
	return 0;
}

static int provisional_pass(struct engine_ctx *c, struct ibr_root_choice *root)
{
	struct ibr_reconf *m = &c->hybrid->m;
	osm_log_t *log = &c->plugin->osm->log;
	struct ibr_error err = { "" };
	struct ibr_verify_report rep;
	char label[192];
	uint32_t kept;

	snprintf(label, sizeof(label), "%s: provisional pass (%s)", c->name,
		 m->prov->name);
	ibr_plugin_warn_lmc(log, m->prov, c->plugin->osm->subn.opt.lmc);
	if (ibr_plugin_route(c, m->prov, root, &rep, &err)) {
		OSM_LOG(log, OSM_LOG_ERROR, "ERR IB12: %s cannot route: %s\n",
			label, err.msg);
		return -1;
	}
	if (ibr_verify_findings(&rep)) {
		ibr_plugin_log_findings(c, &rep);
		return -1;
	}
	if (ibr_reconf_provisional(m, c->of.fabric, &c->result, &kept, &err)) {
		OSM_LOG(log, OSM_LOG_ERROR, "ERR IB13: %s: %s\n", c->name,
			err.msg);
		return -1;
	}
	if (kept)
		snprintf(label, sizeof(label), "%s: provisional pass (%s, %u LIDs "
			 "kept from the tables in place)", c->name,
			 m->prov->name, kept);
	return ibr_plugin_finish(c, label, &rep, NULL);
}

/* The final engine's tables for the fabric in place, once per fabric;
 * -1 after the lines that say why. */
static int route_final(struct engine_ctx *c, const struct ibr_root_choice *root,
		       const char *label)
{
	struct ibr_reconf *m = &c->hybrid->m;
	osm_log_t *log = &c->plugin->osm->log;
	struct ibr_error err = { "" };
	struct ibr_verify_report rep;

	if (ibr_reconf_has_final(m))
		return 0;
	ibr_plugin_warn_lmc(log, m->fin, c->plugin->osm->subn.opt.lmc);
	if (ibr_plugin_route(c, m->fin, root, &rep, &err)) {
		OSM_LOG(log, OSM_LOG_ERROR, "ERR IB12: %s cannot route: %s; "
			"the tables in place stay\n", label, err.msg);
		return -1;
	}
	if (ibr_verify_findings(&rep)) {
		ibr_plugin_log_findings(c, &rep);
		OSM_LOG(log, OSM_LOG_ERROR, "ERR IB25: %s: final tables refused "
			"by the verifier; the tables in place stay\n", label);
		return -1;
	}
	/* c->result moves into the machine */
	ibr_reconf_set_final(m, &c->result, &rep);
	c->routed = false;
	return 0;
}

/* The tables in place stay: pushed again, OpenSM sends no block. */
static int keep_held(struct engine_ctx *c, const char *label)
{
	struct ibr_reconf *m = &c->hybrid->m;
	char text[600];

	if (take_copy(c, &m->held))
		return -1;
	snprintf(text, sizeof(text), "tables in place kept: %s", m->reason);
	return ibr_plugin_finish(c, label, NULL, text);
}

static int final_pass(struct engine_ctx *c, struct ibr_root_choice *root)
{
	struct ibr_reconf *m = &c->hybrid->m;
	osm_log_t *log = &c->plugin->osm->log;
	struct ibr_error err = { "" };
	struct ibr_reconf_move mv;
	char label[128], text[512];
	int rc;

	/* one orientation for both passes: the provisional pass's roots, on
	 * the same fabric (equal fingerprints) */
	ibr_reconf_final_root(m, root);
	snprintf(label, sizeof(label), "%s: final pass (%s)", c->name,
		 m->fin->name);
	if (route_final(c, root, label)) {
		ibr_reconf_keep(m, "the final engine failed");
		return keep_held(c, label);
	}
	rc = ibr_reconf_next(m, c->of.fabric, &mv, &err);
	if (mv.stepping)
		OSM_LOG(log, OSM_LOG_INFO, "%s: the switches may mix the tables "
			"in place and the final ones while OpenSM sends them: "
			"%s; going in safe steps\n", label,
			mv.union_rep.messages[0]);
	if (rc) {
		OSM_LOG(log, OSM_LOG_ERROR, "ERR IB13: %s: %s\n", label, err.msg);
		/* nothing of ours left to keep: the run fails */
		return m->state == IBR_RECONF_IDLE ? -1 : keep_held(c, label);
	}
	switch (m->state) {
	case IBR_RECONF_FINAL:
		if (take_copy(c, &m->held))
			return -1;
		if (mv.in_place)
			/* a sweep after the last step, or a final engine
			 * that agrees */
			return ibr_plugin_finish(c, label, &m->final_rep, NULL);
		if (m->step > 0)
			snprintf(label, sizeof(label), "%s: final pass (%s), "
				 "step %u, the last", c->name, m->fin->name,
				 m->step);
		snprintf(text, sizeof(text), "verified, and so is its union with "
			 "the tables in place (%" PRIu64 " entries change): no "
			 "loop, acyclic", mv.changed);
		return ibr_plugin_finish(c, label, &m->final_rep, text);
	case IBR_RECONF_SAFE_STEP:
		if (take_copy(c, &m->held))
			return -1;
		snprintf(label, sizeof(label), "%s: final pass (%s), step %u",
			 c->name, m->fin->name, m->step);
		snprintf(text, sizeof(text), "%" PRIu64 " entries moved to the "
			 "final tables, %" PRIu64 " left; union with the tables "
			 "in place verified: no loop, acyclic", mv.changed,
			 mv.left);
		return ibr_plugin_finish(c, label, NULL, text);
	default:
		if (mv.blocked)
			OSM_LOG(log, OSM_LOG_INFO, "WRN IB26: %s: no safe step "
				"towards the final tables (%" PRIu64 " entries "
				"left%s%s)\n", label, mv.left,
				mv.finding[0] ? ": " : "", mv.finding);
		return keep_held(c, label);
	}
}

int ibr_hybrid_build(struct engine_ctx *c)
{
	struct ibr_reconf *m = &c->hybrid->m;
	osm_log_t *log = &c->plugin->osm->log;
	struct ibr_error err = { "" };
	struct ibr_root_choice root;
	int rc;

	ibr_plugin_drop_run(c);
	rc = ibr_plugin_model(c, &root, &err);
	ibr_plugin_log_lidless(log, c->name, &c->of);
	if (rc) {
		OSM_LOG(log, OSM_LOG_ERROR, "ERR IB12: %s cannot route: %s\n",
			c->name, err.msg);
		goto fail;
	}
	if (ibr_reconf_changed(m, c->of.fabric))
		rc = provisional_pass(c, &root);
	else
		rc = final_pass(c, &root);
	if (rc == 0)
		return 0;
fail:
	/* OpenSM falls back to the next engine: nothing of ours in place */
	ibr_reconf_reset(m);
	ibr_sa_dlids_clear(c->plugin->sa);
	ibr_plugin_drop_run(c);
	return -1;
}

/* The re-route request: what OpenSM's console `reroute` does. */
static void request_pass(void *context)
{
	struct engine_ctx *c = context;
	osm_opensm_t *osm = c->plugin->osm;

	OSM_LOG(&osm->log, OSM_LOG_INFO, "%s: asking OpenSM for a re-route "
		"(final pass)\n", c->name);
	osm->subn.force_reroute = TRUE;
	osm_sm_signal(&osm->sm, OSM_SIGNAL_SWEEP);
}

void ibr_hybrid_pushed(struct engine_ctx *c)
{
	struct ibr_hybrid *h = c->hybrid;
	unsigned delay = c->plugin->opts.conf.hybrid_final_delay_ms;

	if (!ibr_reconf_take_reroute(&h->m))
		return;
	if (delay == 0) {
		request_pass(c);
		return;
	}
	if (!h->timer_ready) {
		cl_timer_construct(&h->timer);
		if (cl_timer_init(&h->timer, request_pass, c) != CL_SUCCESS) {
			OSM_LOG(&c->plugin->osm->log, OSM_LOG_ERROR, "ERR IB13: "
				"%s: no timer for hybrid_final_delay; asking "
				"for the final pass now\n", c->name);
			request_pass(c);
			return;
		}
		h->timer_ready = true;
	}
	OSM_LOG(&c->plugin->osm->log, OSM_LOG_INFO, "%s: final pass in %u ms "
		"(hybrid_final_delay)\n", c->name, delay);
	cl_timer_start(&h->timer, delay);
}
