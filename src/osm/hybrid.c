/*
 * hybrid.c - PROVISIONAL+FINAL engines (pira+fera, pira+dr, pira+colorl,
 * and any pair of ours routing_engine names): fast provisional tables
 * right after a topology change, the final engine's tables after (PIRa
 * paper §3.4).
 *
 * A hybrid is a small state machine driven by OpenSM's routing runs:
 *  - a run on a fabric whose fingerprint (ibr_fabric_fingerprint) differs
 *    from that of the prior tables, or with no tables of ours in place,
 *    is the provisional pass: the provisional engine routes, its tables
 *    are verified and pushed, and the orientation's root is kept;
 *  - when OpenSM reports them pushed (SUBNET UP after a sweep, or a
 *    completed re-route), the plugin asks for a re-route (force_reroute
 *    and a sweep signal, what OpenSM's console `reroute` does), after
 *    hybrid_final_delay ms;
 *  - a run on the same fabric is the final pass: the final engine routes
 *    from the same root (one orientation for both passes), its tables are
 *    verified, then the union of the prior tables and the final ones
 *    is checked (ibr_verify_union: OpenSM sends blocks to all switches at
 *    once, so packets may mix both versions).  A clean union is pushed
 *    whole.  Otherwise the way goes in safe steps (transition.h), one
 *    re-route each, every step's union with the tables before it checked
 *    again, until the final tables are pushed; when no safe step is
 *    left, the entries that still differ are emptied first and the
 *    final tables follow whole; when a check cannot run, the final
 *    engine fails, or 64 steps do not reach the final tables, the
 *    change is refused: the prior tables stay and the log says why.
 * A change of the fabric at any point starts over with a provisional
 * pass.  One INFO line per pass names the pass.
 *
 * The machine itself (which pass a run is, kept columns, one push or
 * safe steps, when the change is refused) is the core's (reconf.h),
 * shared with `ibrouting transition`; this file is its OpenSM adapter:
 * routing through the plugin, the log lines, the re-route request.
 *
 * Invariants: the tables OpenSM takes from a run of ours are a copy of
 * the machine's `prior`; the designated DLIDs reach the SA only with the
 * final tables themselves (steps carry none, so the SA answers base LIDs
 * until then).
 */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <complib/cl_timer.h>

#include "ibrouting/check.h"
#include "ibrouting/reconf.h"
#include "plugin.h"
#include "util/timer.h"

struct ibr_hybrid {
	struct ibr_reconf m;
	cl_timer_t timer;
	bool timer_ready;
	/* Double Scheme (transition double_scheme): the drain gate
	 * (doc/double-scheme-plugin.md 4.3): no run advances past a drain
	 * sub-step before ready_at_ms (ibr_now_ms); gate_wait_ms: a run was
	 * held back, the timer re-armed for that long once it is pushed */
	double ready_at_ms;
	unsigned gate_wait_ms;
	/* R6: every port's SL-to-VL table, as OpenSM last read it back,
	 * restricted; until then ready_at_ms is HUGE_VAL: the drain of VL
	 * set B counts from the pass that restricted the last port */
	bool sl2vl_confirmed;
	double bound_s;                /* the drain bound of this transition */
};

/* The sub-steps' words, as `ibrouting transition`'s `ds N` lines. */
static const char *ds_words(enum ibr_ds_step s)
{
	switch (s) {
	case IBR_DS_RESTRICT_SL2VL:
		return "restrict SL-to-VL";
	case IBR_DS_PUSH_NEW:
		return "push the new half";
	case IBR_DS_DRAIN_NEW_VLS:
		return "wait until VL set B holds no packet of the prior function";
	case IBR_DS_SWITCH_SA:
		return "switch the SA to the new half and its SLs";
	case IBR_DS_DRAIN_PRIOR_VLS:
		return "wait until VL set A holds no packet of the prior function";
	case IBR_DS_RESTORE_SL2VL:
		return "restore SL-to-VL";
	default:
		return "?";
	}
}

/* The largest of OpenSM's per-hop packet lifetimes (4.3 of the design:
 * packet_life_time, head_of_queue_lifetime, leaf_head_of_queue_lifetime). */
static unsigned packet_life(const osm_opensm_t *osm)
{
	unsigned l = osm->subn.opt.packet_life_time;

	if (osm->subn.opt.head_of_queue_lifetime > l)
		l = osm->subn.opt.head_of_queue_lifetime;
	if (osm->subn.opt.leaf_head_of_queue_lifetime > l)
		l = osm->subn.opt.leaf_head_of_queue_lifetime;
	return l;
}

/* Ports our tables reach with fewer than 2 data VLs (OperVLs < 2): switch
 * ports not DOWN, linked CA and router ports; *first the first found,
 * *first_vls its OperVLs.  The OperVLs is the one OpenSM sets on the port
 * (osm_physp_calc_link_op_vls, as its LID and link managers do: the lower
 * VLCap of the link's ends, at most max_op_vls), not the one port_info
 * holds: in a sweep OpenSM routes before its link manager sets switch
 * ports, which until then hold what they had (another SM's max_op_vls). */
static unsigned one_vl_ports(osm_opensm_t *osm, osm_physp_t **first,
			     unsigned *first_vls)
{
	cl_qmap_t *tbl = &osm->subn.node_guid_tbl;
	unsigned n = 0;

	*first = NULL;
	for (cl_map_item_t *i = cl_qmap_head(tbl); i != cl_qmap_end(tbl);
	     i = cl_qmap_next(i)) {
		osm_node_t *node = (osm_node_t *)i;
		unsigned np = osm_node_get_num_physp(node);
		bool sw = osm_node_get_type(node) == IB_NODE_TYPE_SWITCH;

		for (unsigned k = sw ? 1 : 0; k < np; k++) {
			osm_physp_t *p = osm_node_get_physp_ptr(node, k);
			if (!p || !osm_physp_is_valid(p) ||
			    osm_physp_get_port_state(p) == IB_LINK_DOWN ||
			    !osm_physp_get_remote(p))
				continue;
			unsigned vls = osm_physp_calc_link_op_vls(&osm->log,
					&osm->subn, p,
					ib_port_info_get_op_vls(&p->port_info));
			if (vls >= 2)
				continue;
			if (!*first) {
				*first = p;
				*first_vls = vls;
			}
			n++;
		}
	}
	return n;
}

/* transition double_scheme at a transition's start: the Double Scheme
 * when OpenSM allows it, else safe steps after one ERR line per missing
 * condition. */
static void choose_transition(struct engine_ctx *c)
{
	struct ibr_hybrid *h = c->hybrid;
	osm_opensm_t *osm = c->plugin->osm;
	osm_log_t *log = &osm->log;
	struct ibr_error err = { "" };
	osm_physp_t *first;
	unsigned bad, first_vls = 0, life = packet_life(osm);
	bool ok = true;

	h->m.double_scheme = false;
	h->ready_at_ms = 0;
	h->gate_wait_ms = 0;
	h->sl2vl_confirmed = false;
	if (!c->plugin->opts.conf.transition_double_scheme)
		return;
	if (ibr_reconf_double_scheme(&h->m, osm->subn.opt.lmc, &err)) {
		OSM_LOG(log, OSM_LOG_ERROR, "ERR IB39: %s: transition "
			"double_scheme: %s (opensm.conf has lmc %u); going in "
			"safe steps\n", c->name, err.msg, osm->subn.opt.lmc);
		ok = false;
	}
	if (!osm->subn.opt.qos) {
		OSM_LOG(log, OSM_LOG_ERROR, "ERR IB40: %s: transition "
			"double_scheme needs \"qos TRUE\" in opensm.conf "
			"(OpenSM programs SL-to-VL tables only with QoS on); "
			"going in safe steps\n", c->name);
		ok = false;
	}
	bad = one_vl_ports(osm, &first, &first_vls);
	if (bad) {
		osm_node_t *node = osm_physp_get_node_ptr(first);
		OSM_LOG(log, OSM_LOG_ERROR, "ERR IB41: %s: the Double Scheme "
			"needs 2 data VLs on every port; port %u of \"%s\" "
			"(GUID 0x%016" PRIx64 ") has OperVLs %u (and %u more "
			"ports too few); going in safe steps\n", c->name,
			osm_physp_get_port_num(first), node->print_desc,
			cl_ntoh64(osm_physp_get_port_guid(first)),
			first_vls, bad - 1);
		ok = false;
	}
	if (life > IBR_DS_PACKET_LIFE_MAX) {
		OSM_LOG(log, OSM_LOG_ERROR, "ERR IB42: %s: the Double Scheme "
			"needs a drain bound: packet_life_time and the "
			"head-of-queue lifetimes at most %u (%u turns the "
			"switches' limit off); going in safe steps\n", c->name,
			IBR_DS_PACKET_LIFE_MAX, life);
		ok = false;
	}
	h->m.double_scheme = ok;
	if (ok)
		OSM_LOG(log, OSM_LOG_INFO, "%s: transition by the Double "
			"Scheme: lmc %u, qos on, 2 or more data VLs on every "
			"port, packet life %u\n", c->name, osm->subn.opt.lmc,
			life);
}

/* c->result, routed on view (the run's half), becomes full tables of the
 * fabric; -1 after an ERR line. */
static int place(struct engine_ctx *c, const struct ibr_fabric *view,
		 bool provisional)
{
	struct ibr_error err = { "" };

	c->routed = false;   /* ibr_reconf_place frees it either way */
	if (ibr_reconf_place(&c->hybrid->m, c->of.fabric, view, provisional,
			     &c->result, &err)) {
		OSM_LOG(&c->plugin->osm->log, OSM_LOG_ERROR, "ERR IB13: %s: "
			"%s\n", c->name, err.msg);
		return -1;
	}
	c->routed = true;
	return 0;
}

/* The view of the run's half, or NULL without the Double Scheme; -1 after
 * an ERR line. */
static int half_view(struct engine_ctx *c, bool provisional,
		     struct ibr_fabric **view)
{
	struct ibr_reconf *m = &c->hybrid->m;
	struct ibr_error err = { "" };

	*view = NULL;
	if (!m->double_scheme)
		return 0;
	if (ibr_ds_view(c->of.fabric, ibr_reconf_half(m, provisional), view,
			&err)) {
		OSM_LOG(&c->plugin->osm->log, OSM_LOG_ERROR, "ERR IB13: %s: "
			"%s\n", c->name, err.msg);
		return -1;
	}
	return 0;
}

struct ibr_hybrid *ibr_hybrid_new(const struct ibr_engine *provisional,
				  const struct ibr_engine *final)
{
	struct ibr_hybrid *h = calloc(1, sizeof(*h));

	if (h)
		ibr_reconf_init(&h->m, provisional, final);
	return h;
}

bool ibr_hybrid_is_pair(const struct ibr_hybrid *h)
{
	return h->m.prov != NULL;
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

static int push_prior_again(struct engine_ctx *c, const char *label);

/* The run's tables (verified, rep) into the machine after a change
 * (ibr_reconf_change); -1 after an ERR line. */
static int change(struct engine_ctx *c, const struct ibr_verify_report *rep,
		  uint32_t *kept, struct ibr_reconf_move *mv)
{
	struct ibr_reconf *m = &c->hybrid->m;
	struct ibr_error err = { "" };

	m->threads = ibr_plugin_threads(c->plugin);
	if (ibr_reconf_change(m, c->of.fabric, &c->result, rep, kept, mv,
			      &err) == 0)
		return 0;
	OSM_LOG(&c->plugin->osm->log, OSM_LOG_ERROR, "ERR IB13: %s: %s\n",
		c->name, err.msg);
	return -1;
}

/* " , step N..." after the label in buf (len bytes in all). */
static void append(char *buf, size_t len, const char *fmt, unsigned n)
	__attribute__((format(printf, 3, 0)));

static void append(char *buf, size_t len, const char *fmt, unsigned n)
{
	size_t used = strlen(buf);

	if (used < len)
		snprintf(buf + used, len - used, fmt, n);
}

/* The run's tables are the prior tables: the INFO line says
 * how they were checked, and that nothing changes. */
static int finish_unchanged(struct engine_ctx *c, const char *label,
			   const struct ibr_verify_report *rep)
{
	char text[300];

	snprintf(text, sizeof(text), "%s; the same as the prior tables, nothing to send",
		 ibr_check_verdict_text((enum ibr_check_verdict)c->check_kind));
	return ibr_plugin_finish(c, label, rep, text);
}

/* After ibr_reconf_change or a step of the way to a hybrid's provisional
 * tables: the tables to push are the machine's prior; the INFO line says
 * which push of the way this is and what was checked (rep: the target's
 * report, when the target goes in now). */
static int pushed_way(struct engine_ctx *c, const char *label,
		      const struct ibr_verify_report *rep,
		      const struct ibr_reconf_move *mv)
{
	struct ibr_reconf *m = &c->hybrid->m;
	osm_log_t *log = &c->plugin->osm->log;
	char text[600], step_label[256];

	if (mv->stepping)
		OSM_LOG(log, OSM_LOG_INFO, "%s: the switches may mix the prior "
			"tables and the new ones while OpenSM sends them: %s; "
			"going in safe steps\n", label,
			mv->union_rep.messages[0]);
	if (take_copy(c, &m->prior))
		return -1;
	if (m->state == IBR_RECONF_SAFE_STEP) {
		snprintf(step_label, sizeof(step_label), "%s, step %u", label,
			 m->step);
		if (mv->emptied)
			snprintf(text, sizeof(text), "no safe step left (%s): "
				 "%" PRIu64 " entries emptied first, their prior "
				 "and new routes never mixed; the new tables "
				 "follow whole in the next pass", mv->finding[0] ?
				 mv->finding : "none moves", mv->emptied);
		else
			snprintf(text, sizeof(text), "%" PRIu64 " entries "
				 "moved to the new tables, %" PRIu64 " left; "
				 "union with the prior tables verified: no "
				 "loop, acyclic", mv->changed, mv->left);
		return ibr_plugin_finish(c, step_label, NULL, text);
	}
	if (m->state == IBR_RECONF_REFUSED) {
		OSM_LOG(log, OSM_LOG_INFO, "WRN IB26: %s: %s towards the new "
			"tables after %u steps (%" PRIu64 " entries left%s%s)\n",
			label, m->reason, m->step, mv->left,
			mv->finding[0] ? ": " : "", mv->finding);
		return push_prior_again(c, label);
	}
	if (mv->first)
		return ibr_plugin_finish(c, label, rep, NULL);
	if (m->step > 0)
		snprintf(step_label, sizeof(step_label), "%s, step %u, the last",
			 label, m->step);
	else
		snprintf(step_label, sizeof(step_label), "%s", label);
	if (mv->unchanged)
		return finish_unchanged(c, step_label, rep);
	else
		snprintf(text, sizeof(text), "verified, and so is its union "
			 "with the prior tables (%" PRIu64 " entries "
			 "change): no loop, acyclic", mv->changed);
	return ibr_plugin_finish(c, step_label, rep, text);
}

static int provisional_pass(struct engine_ctx *c, struct ibr_root_choice *root)
{
	struct ibr_reconf *m = &c->hybrid->m;
	osm_log_t *log = &c->plugin->osm->log;
	struct ibr_error err = { "" };
	struct ibr_verify_report rep;
	char label[192];
	struct ibr_reconf_move mv;
	uint32_t kept;

	struct ibr_fabric *view;

	choose_transition(c);
	c->sa_hold = false;
	if (m->double_scheme)
		snprintf(label, sizeof(label), "%s: provisional pass (%s, "
			 "LID half %u)", c->name, m->prov->name,
			 ibr_reconf_half(m, true));
	else
		snprintf(label, sizeof(label), "%s: provisional pass (%s)",
			 c->name, m->prov->name);
	ibr_plugin_warn_lmc(log, m->prov, c->plugin->osm->subn.opt.lmc);
	if (half_view(c, true, &view))
		return -1;
	if (ibr_plugin_route(c, view, m->prov, root, &rep, &err)) {
		OSM_LOG(log, OSM_LOG_ERROR, "ERR IB12: %s cannot route: %s\n",
			label, err.msg);
		ibr_fabric_free(view);
		return -1;
	}
	if (ibr_verify_findings(&rep)) {
		ibr_plugin_log_findings(c, &rep);
		ibr_fabric_free(view);
		return -1;
	}
	if (view && place(c, view, true)) {
		ibr_fabric_free(view);
		return -1;
	}
	ibr_fabric_free(view);
	if (change(c, &rep, &kept, &mv))
		return -1;
	if (kept)
		snprintf(label, sizeof(label), "%s: provisional pass (%s, %u LIDs "
			 "kept from the prior tables)", c->name,
			 m->prov->name, kept);
	return pushed_way(c, label, &rep, &mv);
}

/* A single engine's run on a changed fabric: the engine's own tables,
 * routed from the prior tables where it can (prior.h), go the
 * machine's way from them (reconf.h, ibr_reconf_change). */
static int change_pass(struct engine_ctx *c, struct ibr_root_choice *root)
{
	struct ibr_reconf *m = &c->hybrid->m;
	osm_log_t *log = &c->plugin->osm->log;
	struct ibr_error err = { "" };
	struct ibr_verify_report rep;
	struct ibr_reconf_move mv;
	uint32_t kept;

	ibr_plugin_warn_lmc(log, m->fin, c->plugin->osm->subn.opt.lmc);
	if (ibr_plugin_route(c, NULL, m->fin, root, &rep, &err)) {
		OSM_LOG(log, OSM_LOG_ERROR, "ERR IB12: %s cannot route: %s\n",
			c->name, err.msg);
		return -1;
	}
	if (ibr_verify_findings(&rep)) {
		ibr_plugin_log_findings(c, &rep);
		return -1;
	}
	if (change(c, &rep, &kept, &mv))
		return -1;
	return pushed_way(c, c->name, &rep, &mv);
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

	struct ibr_fabric *view;

	if (ibr_reconf_has_final(m))
		return 0;
	ibr_plugin_warn_lmc(log, m->fin, c->plugin->osm->subn.opt.lmc);
	if (half_view(c, false, &view))
		return -1;
	if (ibr_plugin_route(c, view, m->fin, root, &rep, &err)) {
		OSM_LOG(log, OSM_LOG_ERROR, "ERR IB12: %s cannot route: %s; "
			"the prior tables stay\n", label, err.msg);
		ibr_fabric_free(view);
		return -1;
	}
	if (ibr_verify_findings(&rep)) {
		ibr_plugin_log_findings(c, &rep);
		OSM_LOG(log, OSM_LOG_ERROR, "ERR IB25: %s: final tables refused "
			"by the verifier; the prior tables stay\n", label);
		ibr_fabric_free(view);
		return -1;
	}
	if (view && place(c, view, false)) {
		ibr_fabric_free(view);
		return -1;
	}
	ibr_fabric_free(view);
	/* c->result moves into the machine */
	ibr_reconf_set_final(m, &c->result, &rep);
	c->routed = false;
	return 0;
}

/* The prior tables stay: pushed again, OpenSM sends no block. */
static int push_prior_again(struct engine_ctx *c, const char *label)
{
	struct ibr_reconf *m = &c->hybrid->m;
	char text[600];

	if (take_copy(c, &m->prior))
		return -1;
	snprintf(text, sizeof(text), "change refused, the prior tables "
		 "stay: %s", m->reason);
	return ibr_plugin_finish(c, label, NULL, text);
}

/* The drain gate (design 4.3): a run before the drain bound has passed
 * does not advance the machine; true after the INFO line, the timer to
 * be re-armed for the rest once the prior tables are pushed again. */
static bool gated(struct engine_ctx *c, const char *label)
{
	struct ibr_hybrid *h = c->hybrid;
	struct ibr_reconf *m = &h->m;
	double now = ibr_now_ms();
	unsigned left;

	if (!m->double_scheme || m->state != IBR_RECONF_DOUBLE_SCHEME ||
	    (m->ds_step != IBR_DS_PUSH_NEW && m->ds_step != IBR_DS_SWITCH_SA) ||
	    now >= h->ready_at_ms)
		return false;
	/* not restricted everywhere yet (R6): a second, then look again */
	left = isinf(h->ready_at_ms) ? 1000 :
	       (unsigned)(h->ready_at_ms - now) + 1;
	h->gate_wait_ms = left;
	c->sa_hold = m->ds_step < IBR_DS_SWITCH_SA;
	OSM_LOG(&c->plugin->osm->log, OSM_LOG_INFO, "%s: double scheme: "
		"step %u/6 (%s) waits %u ms more for %s\n", label,
		m->ds_step + 1, ds_words(m->ds_step + 1), left,
		isinf(h->ready_at_ms) ? "SL-to-VL tables to restrict" :
		"the drain bound");
	m->reason = "the drain bound has not passed";
	return true;
}

/* The drain bound of this transition in ms (the prior function's longest
 * chain, OpenSM's lifetimes), and its words. */
static double drain_ms(struct engine_ctx *c, char *text, size_t len)
{
	struct ibr_reconf *m = &c->hybrid->m;
	unsigned life = packet_life(c->plugin->osm);
	uint64_t chain = m->ds.prior_rep.longest_chain;
	double bound = ibr_ds_drain_bound(chain, life);

	if (text)
		snprintf(text, len, "bound %" PRIu64 " switches x %.3f s = "
			 "%.3f s (longest chain %" PRIu64 " of %s, packet life "
			 "%u)", chain + 1, ibr_ds_drain_bound(0, life), bound,
			 chain, m->prov->name, life);
	return bound < 0 ? 0 : bound * 1000.0;
}

/* A Double Scheme sub-step done by this run: one INFO line, with the
 * words of `ibrouting transition`'s `ds N` lines, and the tables. */
static int ds_step(struct engine_ctx *c, const struct ibr_reconf_move *mv)
{
	struct ibr_reconf *m = &c->hybrid->m;
	unsigned ph = m->ds.prior_half, nw = 1 - ph;
	char label[192], what[400], wait[200];

	drain_ms(c, wait, sizeof(wait));
	switch (m->ds_step) {
	case IBR_DS_RESTRICT_SL2VL:
		snprintf(what, sizeof(what), "restrict SL-to-VL: the SLs of "
			 "half %u -> VL set A only; VL set B takes no new "
			 "packet", ph);
		break;
	case IBR_DS_PUSH_NEW:
		snprintf(what, sizeof(what), "push %s on half %u: %" PRIu64
			 " entries (switch LIDs stay with %s; the SA stays on "
			 "half %u)", m->fin->name, nw, mv->changed,
			 m->prov->name, ph);
		break;
	case IBR_DS_DRAIN_NEW_VLS:
		snprintf(what, sizeof(what), "wait until VL set B holds no "
			 "old packet: %s", wait);
		break;
	case IBR_DS_SWITCH_SA:
		snprintf(what, sizeof(what), "switch the SA to half %u and its "
			 "SLs; switch LIDs take %s: %" PRIu64 " entries", nw,
			 m->fin->name, mv->changed);
		break;
	case IBR_DS_DRAIN_PRIOR_VLS:
		snprintf(what, sizeof(what), "wait until VL set A holds no "
			 "old packet: %s", wait);
		break;
	case IBR_DS_RESTORE_SL2VL:
		snprintf(what, sizeof(what), "restore SL-to-VL: the SLs of "
			 "half %u -> every data VL; final", nw);
		break;
	default:
		snprintf(what, sizeof(what), "?");
	}
	OSM_LOG(&c->plugin->osm->log, OSM_LOG_INFO, "%s: double scheme step "
		"%u/6: %s\n", c->name, m->ds_step, what);
	if (take_copy(c, &m->prior))
		return -1;
	snprintf(label, sizeof(label), "%s: final pass (%s), double scheme "
		 "step %u/6", c->name, m->fin->name, m->ds_step);
	return ibr_plugin_finish(c, label, m->ds_step == IBR_DS_RESTORE_SL2VL ?
				 &m->final_rep : NULL, "each half verified on "
				 "its own view and VL set: no loop, acyclic");
}

static int final_pass(struct engine_ctx *c, struct ibr_root_choice *root)
{
	struct ibr_reconf *m = &c->hybrid->m;
	osm_log_t *log = &c->plugin->osm->log;
	struct ibr_error err = { "" };
	struct ibr_reconf_move mv;
	char label[192], text[512];
	int rc;

	if (ibr_reconf_leg_provisional(m)) {
		/* the way to the provisional tables goes on first */
		snprintf(label, sizeof(label), "%s: provisional pass (%s)",
			 c->name, m->prov->name);
		rc = ibr_reconf_next(m, c->of.fabric, &mv, &err);
		if (rc) {
			OSM_LOG(log, OSM_LOG_ERROR, "ERR IB13: %s: %s\n", label,
				err.msg);
			return m->state == IBR_RECONF_IDLE ? -1 :
			       push_prior_again(c, label);
		}
		return pushed_way(c, label, NULL, &mv);
	}
	/* one orientation for both passes: the provisional pass's roots, on
	 * the same fabric (equal fingerprints); a single engine's own */
	if (m->prov) {
		ibr_reconf_final_root(m, root);
		snprintf(label, sizeof(label), "%s: final pass (%s)", c->name,
			 m->fin->name);
	} else {
		snprintf(label, sizeof(label), "%s", c->name);
	}
	if (!m->prov)
		/* a single engine routes every run (its options may have
		 * changed); the same tables are in place already */
		ibr_reconf_route_again(m);
	if (route_final(c, root, label)) {
		if (!m->prov)
			/* as every engine of OpenSM's: OpenSM falls back */
			return -1;
		ibr_reconf_refuse(m, "the final engine failed");
		return push_prior_again(c, label);
	}
	if (gated(c, label))
		return push_prior_again(c, label);
	rc = ibr_reconf_next(m, c->of.fabric, &mv, &err);
	c->sa_hold = m->double_scheme &&
		     m->state == IBR_RECONF_DOUBLE_SCHEME &&
		     m->ds_step < IBR_DS_SWITCH_SA;
	if (mv.stepping)
		OSM_LOG(log, OSM_LOG_INFO, "%s: the switches may mix the prior "
			"tables and the final ones while OpenSM sends them: "
			"%s; going in safe steps\n", label,
			mv.union_rep.messages[0]);
	if (rc) {
		OSM_LOG(log, OSM_LOG_ERROR, "ERR IB13: %s: %s\n", label, err.msg);
		/* nothing of ours left to keep: the run fails */
		return m->state == IBR_RECONF_IDLE ? -1 : push_prior_again(c, label);
	}
	switch (m->state) {
	case IBR_RECONF_DOUBLE_SCHEME:
		return ds_step(c, &mv);
	case IBR_RECONF_FINAL:
		if (m->double_scheme && !mv.unchanged &&
		    m->ds_step == IBR_DS_RESTORE_SL2VL)
			return ds_step(c, &mv);
		if (take_copy(c, &m->prior))
			return -1;
		if (mv.unchanged)
			/* a sweep after the last step, or a final engine
			 * that agrees */
			return finish_unchanged(c, label, &m->final_rep);
		if (m->step > 0)
			append(label, sizeof(label), ", step %u, the last",
			       m->step);
		snprintf(text, sizeof(text), "verified, and so is its union with "
			 "the prior tables (%" PRIu64 " entries change): no "
			 "loop, acyclic", mv.changed);
		return ibr_plugin_finish(c, label, &m->final_rep, text);
	case IBR_RECONF_SAFE_STEP:
		if (take_copy(c, &m->prior))
			return -1;
		append(label, sizeof(label), ", step %u", m->step);
		snprintf(text, sizeof(text), "%" PRIu64 " entries moved to the "
			 "final tables, %" PRIu64 " left; union with the prior "
			 "tables verified: no loop, acyclic", mv.changed,
			 mv.left);
		return ibr_plugin_finish(c, label, NULL, text);
	default:
		if (mv.blocked && m->double_scheme)
			OSM_LOG(log, OSM_LOG_INFO, "WRN IB26: %s: the Double "
				"Scheme's check per VL set refused the new "
				"half: %s\n", label, mv.finding);
		else if (mv.blocked)
			OSM_LOG(log, OSM_LOG_INFO, "WRN IB26: %s: %s towards "
				"the final tables after %u steps (%" PRIu64
				" entries left%s%s)\n", label, m->reason,
				m->step, mv.left, mv.finding[0] ? ": " : "",
				mv.finding);
		return push_prior_again(c, label);
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
	if (!ibr_reconf_changed(m, c->of.fabric))
		rc = final_pass(c, &root);
	else if (m->prov)
		rc = provisional_pass(c, &root);
	else
		rc = change_pass(c, &root);
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

/* A port's data VLs from PortInfo:OperVLs (1: VL0, 2: VL0-1, 3: VL0-3,
 * 4: VL0-7, 5: VL0-14). */
static unsigned data_vls(const osm_physp_t *p)
{
	static const unsigned by_op_vls[] = { 0, 1, 2, 4, 8, 15 };
	unsigned op = ib_port_info_get_op_vls(&p->port_info);

	return by_op_vls[op > 5 ? 5 : op];
}

/* Whether OpenSM's copy of SL-to-VL table (port p, input port in) is
 * restricted for prior_half; a miss counted in *bad, the first kept. */
static void check_sl2vl(osm_physp_t *p, uint8_t in, unsigned prior_half,
			unsigned *bad, osm_physp_t **first, uint8_t *first_in)
{
	const ib_slvl_table_t *t = osm_physp_get_slvl_tbl(p, in);
	uint8_t vl[16];

	for (unsigned sl = 0; sl < 16; sl++)
		vl[sl] = ib_slvl_table_get(t, (uint8_t)sl);
	if (ibr_ds_sl2vl_restricted(vl, data_vls(p), prior_half))
		return;
	if (!*bad) {
		*first = p;
		*first_in = in;
	}
	(*bad)++;
}

/* R6 (doc/double-scheme-plugin.md): the SL-to-VL tables OpenSM holds for
 * the ports it programs (osm_qos_setup: every switch output port from 1,
 * port 0 with enhanced port 0, by every input port, of switches with an
 * SL map; every end port with one) that are not restricted for prior_half.
 * OpenSM zeroes its copy when it sends a Set and refills it only from the
 * answer, so after wait_for_pending_transactions a table that is not
 * restricted was not set: the drain may not count from this pass.
 * *tables: the tables looked at.  Under OpenSM's lock, shared. */
static unsigned unrestricted_sl2vl(osm_opensm_t *osm, unsigned prior_half,
				   unsigned *tables, osm_physp_t **first,
				   uint8_t *first_in)
{
	cl_qmap_t *tbl = &osm->subn.port_guid_tbl;
	unsigned bad = 0;

	*tables = 0;
	*first = NULL;
	*first_in = 0;
	CL_PLOCK_ACQUIRE(&osm->lock);
	for (cl_map_item_t *i = cl_qmap_head(tbl); i != cl_qmap_end(tbl);
	     i = cl_qmap_next(i)) {
		osm_node_t *node = ((osm_port_t *)i)->p_node;
		osm_physp_t *p0 = osm_node_get_physp_ptr(node, 0);
		unsigned np = osm_node_get_num_physp(node);

		if (!node->sw) {
			osm_physp_t *p = ((osm_port_t *)i)->p_physp;
			if (p->port_info.capability_mask &
			    IB_PORT_CAP_HAS_SL_MAP) {
				check_sl2vl(p, 0, prior_half, &bad, first,
					    first_in);
				(*tables)++;
			}
			continue;
		}
		if (!p0 || !(p0->port_info.capability_mask &
			     IB_PORT_CAP_HAS_SL_MAP))
			continue;
		for (unsigned out = ib_switch_info_is_enhanced_port0(
			     &node->sw->switch_info) ? 0 : 1; out < np; out++) {
			osm_physp_t *p = osm_node_get_physp_ptr(node, out);
			if (!p || ib_port_info_get_port_state(&p->port_info) ==
			    IB_LINK_DOWN)
				continue;
			for (unsigned in = 0; in < np; in++) {
				check_sl2vl(p, (uint8_t)in, prior_half, &bad,
					    first, first_in);
				(*tables)++;
			}
		}
	}
	CL_PLOCK_RELEASE(&osm->lock);
	return bad;
}

/* After a pass of the restricted Double Scheme: once every port's table
 * reads restricted, the drain of VL set B starts counting (INFO); until
 * then WRN IB43 each pass and the gate holds the next sub-step. */
static void confirm_sl2vl(struct engine_ctx *c, double now)
{
	struct ibr_hybrid *h = c->hybrid;
	osm_opensm_t *osm = c->plugin->osm;
	osm_physp_t *first;
	uint8_t first_in;
	unsigned tables,
		 bad = unrestricted_sl2vl(osm, h->m.ds.prior_half, &tables,
					  &first, &first_in);

	if (bad) {
		osm_node_t *node = osm_physp_get_node_ptr(first);
		h->ready_at_ms = HUGE_VAL;
		OSM_LOG(&osm->log, OSM_LOG_INFO, "WRN IB43: %s: double scheme: "
			"%u of %u SL-to-VL tables not restricted yet (the "
			"first: port %u of \"%s\" (GUID 0x%016" PRIx64 "), "
			"input port %u; its Set got no answer); the drain "
			"waits for the next pass\n", c->name, bad, tables,
			osm_physp_get_port_num(first), node->print_desc,
			cl_ntoh64(osm_physp_get_port_guid(first)), first_in);
		return;
	}
	h->sl2vl_confirmed = true;
	h->ready_at_ms = now + drain_ms(c, NULL, 0);
	OSM_LOG(&osm->log, OSM_LOG_INFO, "%s: double scheme: %u SL-to-VL "
		"tables read back restricted; the drain of VL set B counts "
		"from now\n", c->name, tables);
}

const struct ibr_engine *ibr_hybrid_tables_engine(const struct engine_ctx *c)
{
	const struct ibr_reconf *m = &c->hybrid->m;

	return m->state == IBR_RECONF_FINAL && !m->double_scheme ? m->fin :
	       NULL;
}

/* OpenSM flags the switches whose ports changed state in a heavy sweep
 * (need_update 1: "probably reset") and sends them every LFT block in
 * each routing run until its next heavy sweep, re-routes included.  A
 * hybrid's later passes are re-routes, so each would send those switches
 * whole again.  Once a pass is pushed, a flagged switch
 * whose every block was acknowledged (OpenSM's copy `lft`, written from
 * the switches' responses, equals `new_lft`; a block whose Set failed
 * stays zeroed there) holds known tables: the flag is dropped and the
 * next pass sends it only the blocks that change, as OpenSM does for every
 * other switch.  A new switch (need_update 2, which OpenSM's unicast
 * cache reads) keeps its flag, and the next heavy sweep sets the flags
 * afresh.  Returns the switches whose flag was dropped. */
static unsigned settle_full_updates(osm_opensm_t *osm)
{
	cl_qmap_t *tbl = &osm->subn.sw_guid_tbl;
	size_t bytes = ((size_t)osm->sm.ucast_mgr.max_lid / IB_SMP_DATA_SIZE +
			1) * IB_SMP_DATA_SIZE;
	unsigned n = 0;

	cl_plock_excl_acquire(&osm->lock);
	for (cl_map_item_t *i = cl_qmap_head(tbl); i != cl_qmap_end(tbl);
	     i = cl_qmap_next(i)) {
		osm_switch_t *sw = (osm_switch_t *)i;
		size_t len = bytes < sw->lft_size ? bytes : sw->lft_size;
		if (sw->need_update != 1 || !sw->lft || !sw->new_lft ||
		    memcmp(sw->lft, sw->new_lft, len))
			continue;
		sw->need_update = 0;
		n++;
	}
	cl_plock_release(&osm->lock);
	return n;
}

void ibr_hybrid_pushed(struct engine_ctx *c)
{
	struct ibr_hybrid *h = c->hybrid;
	struct ibr_reconf *m = &h->m;
	unsigned delay = c->plugin->opts.conf.hybrid_final_delay_ms;
	const char *why = "hybrid_final_delay";
	double now = ibr_now_ms();
	unsigned full;

	if (h->gate_wait_ms) {
		/* a run held back by the drain gate: the rest of the wait */
		if (h->gate_wait_ms > delay)
			delay = h->gate_wait_ms;
		h->gate_wait_ms = 0;
		why = "the drain bound";
		ibr_reconf_take_reroute(m);
	} else if (!ibr_reconf_take_reroute(m)) {
		return;
	}
	full = settle_full_updates(c->plugin->osm);
	if (full)
		OSM_LOG(&c->plugin->osm->log, OSM_LOG_VERBOSE, "%s: %u switch%s "
			"OpenSM marked for a full LFT update acknowledged every "
			"block of this pass: the next pass sends %s only the "
			"blocks that change\n", c->name, full, full == 1 ? "" :
			"es", full == 1 ? "it" : "them");
	if (m->double_scheme && m->state == IBR_RECONF_DOUBLE_SCHEME) {
		/* the drains count from the event that says the MADs of the
		 * restricting (or switching) pass completed: the restriction
		 * once every port reads it back (below) */
		if (m->ds_step == IBR_DS_RESTRICT_SL2VL)
			h->sl2vl_confirmed = false;
		if (m->ds_step == IBR_DS_SWITCH_SA)
			h->ready_at_ms = now + drain_ms(c, NULL, 0);
	}
	if (m->double_scheme && m->state == IBR_RECONF_DOUBLE_SCHEME &&
	    !h->sl2vl_confirmed && m->ds_step < IBR_DS_SWITCH_SA)
		confirm_sl2vl(c, now);
	if (m->double_scheme && m->state == IBR_RECONF_DOUBLE_SCHEME &&
	    (m->ds_step == IBR_DS_PUSH_NEW || m->ds_step == IBR_DS_SWITCH_SA) &&
	    h->ready_at_ms > now && h->ready_at_ms - now + 1 > delay) {
		/* unconfirmed: another pass after the usual delay, at least
		 * a second, for OpenSM to send the Sets again */
		delay = isinf(h->ready_at_ms) ? (delay > 1000 ? delay : 1000) :
			(unsigned)(h->ready_at_ms - now) + 1;
		why = isinf(h->ready_at_ms) ? "SL-to-VL tables to restrict" :
			"the drain bound";
	}
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
		"(%s)\n", c->name, delay, why);
	cl_timer_start(&h->timer, delay);
}

/* ---- the Double Scheme's SL-to-VL tables and SLs ------------------- */

void ibr_hybrid_update_sl2vl(struct engine_ctx *c, osm_physp_t *port,
			     ib_slvl_table_t *t)
{
	struct ibr_reconf *m = &c->hybrid->m;
	uint8_t in[16], out[16];

	/* restricted from RESTRICT_SL2VL to DRAIN_PRIOR_VLS; after RESTORE
	 * (FINAL) every SL on every VL again, as the paper does (see the
	 * design's R1 for the stale-QP risk) */
	if (!m->double_scheme || m->state != IBR_RECONF_DOUBLE_SCHEME)
		return;
	for (unsigned sl = 0; sl < 16; sl++)
		in[sl] = ib_slvl_table_get(t, (uint8_t)sl);
	ibr_ds_sl2vl(in, data_vls(port), true, m->ds.prior_half, out);
	for (unsigned sl = 0; sl < 16; sl++)
		ib_slvl_table_set(t, (uint8_t)sl, out[sl]);
}

uint8_t ibr_hybrid_path_sl(struct engine_ctx *c, uint8_t hint, uint16_t dlid)
{
	struct ibr_reconf *m = &c->hybrid->m;
	osm_opensm_t *osm = c->plugin->osm;
	osm_port_t *port;

	/* SA threads hold OpenSM's lock shared, our runs exclusive: m is
	 * not changing under us */
	if (!m->double_scheme || m->state == IBR_RECONF_IDLE)
		return hint;
	port = osm_get_port_by_lid_ho(&osm->subn, dlid);
	if (!port)
		return hint;
	if (osm_node_get_type(port->p_node) == IB_NODE_TYPE_SWITCH)
		/* switch LIDs carry the function in force */
		return ibr_ds_path_sl(hint, m->half);
	return ibr_ds_path_sl(hint, ibr_ds_lid_half(dlid, osm->subn.opt.lmc));
}
