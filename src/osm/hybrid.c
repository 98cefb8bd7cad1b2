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
 * Invariants: `held` is a copy of the last tables of ours OpenSM took
 * (have_held), made for the fabric of `fingerprint`; `final` (have_final)
 * is the final engine's tables for that fabric and root; the designated
 * DLIDs reach the SA only with the final tables themselves (steps carry
 * none, so the SA answers base LIDs until then).
 */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <complib/cl_timer.h>

#include "ibrouting/transition.h"
#include "ibrouting/updown.h"
#include "plugin.h"

/* Steps beyond this many are refused: the fabrics we know need at most
 * nine (bench/, tests/test_transition.c). */
#define MAX_STEPS 64

struct ibr_hybrid {
	const struct ibr_engine *prov, *fin;
	struct engine_ctx *ctx;         /* set by the first run */

	struct ibr_result held;         /* tables in place (ours) */
	bool have_held;
	uint64_t *held_guid;            /* their switches' GUIDs, by index */
	uint64_t fingerprint;           /* the fabric they were made for */
	uint64_t *root_guids;           /* the orientation's root set */
	uint32_t num_roots;
	struct ibr_result final;
	bool have_final;
	struct ibr_verify_report final_rep;
	unsigned step;                  /* steps pushed towards final */

	bool want_pass;                 /* a pass is still to come */
	cl_timer_t timer;
	bool timer_ready;
};

struct ibr_hybrid *ibr_hybrid_new(const struct ibr_engine *provisional,
				  const struct ibr_engine *final)
{
	struct ibr_hybrid *h = calloc(1, sizeof(*h));

	if (h) {
		h->prov = provisional;
		h->fin = final;
	}
	return h;
}

static void forget_final(struct ibr_hybrid *h)
{
	if (h->have_final)
		ibr_result_free(&h->final);
	h->have_final = false;
	h->step = 0;
}

static void drop_held(struct ibr_hybrid *h)
{
	if (h->have_held)
		ibr_result_free(&h->held);
	h->have_held = false;
	free(h->held_guid);
	h->held_guid = NULL;
}

static void forget(struct ibr_hybrid *h)
{
	free(h->root_guids);
	h->root_guids = NULL;
	h->num_roots = 0;
	drop_held(h);
	h->want_pass = false;
	forget_final(h);
}

void ibr_hybrid_free(struct ibr_hybrid *h)
{
	if (!h)
		return;
	if (h->timer_ready)
		cl_timer_destroy(&h->timer);
	forget(h);
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

/* The tables in place become c->result's (and their switches' GUIDs,
 * for keep_columns after a change). */
static int hold(struct engine_ctx *c)
{
	struct ibr_hybrid *h = c->hybrid;
	struct ibr_error err = { "" };
	const struct ibr_fabric *f = c->of.fabric;
	uint64_t *guid = malloc((f->num_switches ? f->num_switches : 1) *
				sizeof(*guid));

	drop_held(h);
	if (!guid || ibr_result_copy(&h->held, &c->result, &err)) {
		free(guid);
		OSM_LOG(&c->plugin->osm->log, OSM_LOG_ERROR, "ERR IB13: %s: "
			"%s\n", c->name, guid ? err.msg : "out of memory");
		return -1;
	}
	for (uint32_t s = 0; s < f->num_switches; s++)
		guid[s] = ibr_switch(f, s)->guid;
	h->held_guid = guid;
	h->have_held = true;
	return 0;
}

/* After a change, the columns of the tables in place that still hold on
 * the new fabric replace the provisional engine's (transition.h): after a
 * small change OpenSM then sends few blocks.  The result is verified
 * again; on any failure the provisional engine's own tables stay. */
static void keep_columns(struct engine_ctx *c, uint32_t *kept)
{
	struct ibr_hybrid *h = c->hybrid;
	const struct ibr_fabric *f = c->of.fabric;
	const struct ibr_verify_options only = { .check_only = true };
	struct ibr_error err = { "" };
	struct ibr_verify_report rep;
	struct ibr_result mixed;
	struct ibr_updown ud;

	*kept = 0;
	if (!h->have_held || ibr_result_copy(&mixed, &c->result, &err))
		return;
	if (ibr_updown_of_result(f, &c->result, &ud, &err) == 0) {
		if (ibr_transition_keep(f, &ud, &h->held, h->held_guid,
					h->held.num_switches, &mixed, kept,
					&err) == 0 &&
		    ibr_verify(f, &mixed, &only, &rep, &err) == 0 &&
		    ibr_verify_findings(&rep) == 0) {
			ibr_result_free(&c->result);
			c->result = mixed;
			ibr_updown_free(&ud);
			return;
		}
		ibr_updown_free(&ud);
	}
	*kept = 0;
	ibr_result_free(&mixed);
}

/* The provisional pass's root set, by GUID, for the final pass. */
static int remember_roots(struct ibr_hybrid *h, const struct ibr_fabric *f,
			  const struct ibr_result *r)
{
	uint64_t *g = malloc((r->num_roots ? r->num_roots : 1) * sizeof(*g));

	if (!g) {
		OSM_LOG(&h->ctx->plugin->osm->log, OSM_LOG_ERROR, "ERR IB13: %s: "
			"out of memory for %u roots\n", h->ctx->name, r->num_roots);
		return -1;
	}
	for (uint32_t i = 0; i < r->num_roots; i++)
		g[i] = ibr_switch(f, r->roots[i])->guid;
	free(h->root_guids);
	h->root_guids = g;
	h->num_roots = r->num_roots;
	return 0;
}

static int provisional_pass(struct engine_ctx *c, struct ibr_root_choice *root,
			    uint64_t fingerprint)
{
	struct ibr_hybrid *h = c->hybrid;
	osm_log_t *log = &c->plugin->osm->log;
	struct ibr_error err = { "" };
	struct ibr_verify_report rep;
	char label[192];
	uint32_t kept;

	forget_final(h);
	snprintf(label, sizeof(label), "%s: provisional pass (%s)", c->name,
		 h->prov->name);
	h->want_pass = false;
	ibr_plugin_warn_lmc(log, h->prov, c->plugin->osm->subn.opt.lmc);
	if (ibr_plugin_route(c, h->prov, root, &rep, &err)) {
		OSM_LOG(log, OSM_LOG_ERROR, "ERR IB12: %s cannot route: %s\n",
			label, err.msg);
		return -1;
	}
	if (ibr_verify_findings(&rep)) {
		ibr_plugin_log_findings(c, &rep);
		return -1;
	}
	keep_columns(c, &kept);
	if (kept)
		snprintf(label, sizeof(label), "%s: provisional pass (%s, %u LIDs "
			 "kept from the tables in place)", c->name,
			 h->prov->name, kept);
	if (ibr_plugin_finish(c, label, &rep, NULL) || hold(c))
		return -1;
	h->fingerprint = fingerprint;
	if (remember_roots(h, c->of.fabric, &c->result))
		return -1;
	h->want_pass = true;
	return 0;
}

/* The final engine's tables for the fabric in place, once per fabric. */
static int route_final(struct engine_ctx *c, const struct ibr_root_choice *root,
		       const char *label)
{
	struct ibr_hybrid *h = c->hybrid;
	osm_log_t *log = &c->plugin->osm->log;
	struct ibr_error err = { "" };

	if (h->have_final)
		return 0;
	ibr_plugin_warn_lmc(log, h->fin, c->plugin->osm->subn.opt.lmc);
	if (ibr_plugin_route(c, h->fin, root, &h->final_rep, &err)) {
		OSM_LOG(log, OSM_LOG_ERROR, "ERR IB12: %s cannot route: %s; "
			"the tables in place stay\n", label, err.msg);
		return -1;
	}
	if (ibr_verify_findings(&h->final_rep)) {
		ibr_plugin_log_findings(c, &h->final_rep);
		OSM_LOG(log, OSM_LOG_ERROR, "ERR IB25: %s: final tables refused "
			"by the verifier; the tables in place stay\n", label);
		return -1;
	}
	/* c->result moves into final */
	h->final = c->result;
	h->have_final = true;
	c->routed = false;
	memset(&c->result, 0, sizeof(c->result));
	return 0;
}

/* The tables in place stay: pushed again, OpenSM sends no block. */
static int keep_held(struct engine_ctx *c, const char *label, const char *why)
{
	struct ibr_hybrid *h = c->hybrid;
	char text[600];

	h->want_pass = false;
	if (take_copy(c, &h->held))
		return -1;
	snprintf(text, sizeof(text), "tables in place kept: %s", why);
	return ibr_plugin_finish(c, label, NULL, text);
}

static int final_pass(struct engine_ctx *c, struct ibr_root_choice *root)
{
	struct ibr_hybrid *h = c->hybrid;
	const struct ibr_fabric *f = c->of.fabric;
	osm_log_t *log = &c->plugin->osm->log;
	struct ibr_error err = { "" };
	struct ibr_verify_report rep;
	struct ibr_updown ud;
	struct ibr_result next;
	uint64_t moved, left;
	char label[128], text[512];
	size_t bytes;

	/* one orientation for both passes: the provisional pass's roots, on
	 * the same fabric (equal fingerprints) */
	root->set = h->root_guids;
	root->set_len = h->num_roots;
	root->set_source = "the provisional pass's roots";
	root->set_unreadable = false;
	root->guid = 0;
	snprintf(label, sizeof(label), "%s: final pass (%s)", c->name,
		 h->fin->name);
	if (route_final(c, root, label))
		return keep_held(c, label, "the final engine failed");
	bytes = (size_t)h->final.num_switches * h->final.num_lids;
	if (memcmp(h->held.col, h->final.col, bytes) == 0) {
		/* in place already (a sweep after the last step, or a final
		 * engine that agrees): the final tables, designated DLIDs
		 * and all */
		h->want_pass = false;
		if (take_copy(c, &h->final) || hold(c))
			return -1;
		return ibr_plugin_finish(c, label, &h->final_rep, NULL);
	}
	if (ibr_verify_union(f, &h->held, &h->final, &rep, &err))
		goto error;
	if (ibr_verify_findings(&rep) == 0) {
		snprintf(text, sizeof(text), "verified, and so is its union with "
			 "the tables in place (%" PRIu64 " entries change): no "
			 "loop, acyclic", rep.changed);
		h->want_pass = false;
		if (take_copy(c, &h->final) || hold(c))
			return -1;
		return ibr_plugin_finish(c, label, &h->final_rep, text);
	}
	OSM_LOG(log, OSM_LOG_INFO, "%s: the switches may mix the tables in "
		"place and the final ones while OpenSM sends them: %s; going "
		"in safe steps\n", label, rep.messages[0]);

	/* one safe step */
	if (h->step >= MAX_STEPS)
		return keep_held(c, label, "too many steps");
	if (ibr_updown_of_result(f, &h->final, &ud, &err))
		goto error;
	if (ibr_result_init(&next, f, &err)) {
		ibr_updown_free(&ud);
		goto error;
	}
	if (ibr_transition_step(f, &ud, &h->held, &h->final, &next, &moved,
				&left, &err) ||
	    ibr_verify_union(f, &h->held, &next, &rep, &err)) {
		ibr_result_free(&next);
		ibr_updown_free(&ud);
		goto error;
	}
	ibr_updown_free(&ud);
	if (moved == 0 || ibr_verify_findings(&rep)) {
		snprintf(text, sizeof(text), "no safe step towards the final "
			 "tables (%" PRIu64 " entries left%s%s)", left,
			 rep.num_messages ? ": " : "",
			 rep.num_messages ? rep.messages[0] : "");
		ibr_result_free(&next);
		OSM_LOG(log, OSM_LOG_INFO, "WRN IB26: %s: %s\n", label, text);
		return keep_held(c, label, "no safe step left");
	}
	h->step++;
	if (left == 0) {
		/* the last step is the final tables: with their DLIDs */
		ibr_result_free(&next);
		h->want_pass = false;
		if (take_copy(c, &h->final) || hold(c))
			return -1;
		snprintf(label, sizeof(label), "%s: final pass (%s), step %u, "
			 "the last", c->name, h->fin->name, h->step);
		snprintf(text, sizeof(text), "verified, and so is its union with "
			 "the tables in place (%" PRIu64 " entries change): no "
			 "loop, acyclic", moved);
		return ibr_plugin_finish(c, label, &h->final_rep, text);
	}
	next.stats = h->final.stats;
	if (c->routed)
		ibr_result_free(&c->result);
	c->result = next;
	c->routed = true;
	if (hold(c))
		return -1;
	h->want_pass = true;
	snprintf(label, sizeof(label), "%s: final pass (%s), step %u", c->name,
		 h->fin->name, h->step);
	snprintf(text, sizeof(text), "%" PRIu64 " entries moved to the final "
		 "tables, %" PRIu64 " left; union with the tables in place "
		 "verified: no loop, acyclic", moved, left);
	return ibr_plugin_finish(c, label, NULL, text);
error:
	OSM_LOG(log, OSM_LOG_ERROR, "ERR IB13: %s: %s\n", label, err.msg);
	return keep_held(c, label, "a check could not run");
}

int ibr_hybrid_build(struct engine_ctx *c)
{
	struct ibr_hybrid *h = c->hybrid;
	osm_log_t *log = &c->plugin->osm->log;
	struct ibr_error err = { "" };
	struct ibr_root_choice root;
	uint64_t fingerprint;
	int rc;

	h->ctx = c;
	ibr_plugin_drop_run(c);
	rc = ibr_plugin_model(c, &root, &err);
	ibr_plugin_log_lidless(log, c->name, &c->of);
	if (rc) {
		OSM_LOG(log, OSM_LOG_ERROR, "ERR IB12: %s cannot route: %s\n",
			c->name, err.msg);
		goto fail;
	}
	fingerprint = ibr_fabric_fingerprint(c->of.fabric);
	if (!h->have_held || fingerprint != h->fingerprint)
		rc = provisional_pass(c, &root, fingerprint);
	else
		rc = final_pass(c, &root);
	if (rc == 0)
		return 0;
fail:
	/* OpenSM falls back to the next engine: nothing of ours in place */
	forget(h);
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

	if (!h->want_pass)
		return;
	h->want_pass = false;
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
