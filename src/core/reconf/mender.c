/*
 * mender.c - the prior tables kept and mended on a changed fabric
 * (mender.h says what the tables become and why they stay
 * deadlock-free).
 *
 * Passes over the destinations, switch LIDs first:
 *   1. bases: each prior column mapped onto the new switches (a new
 *      port's: the fallback's) and the flows of its walks that hold
 *      counted, ports shared by the workers; then, in order, each with a
 *      walk that does not hold mended against that load (repair.h:
 *      O(S) per judgement);
 *   2. ranges: the bases copied onto their ranges, or each prior column
 *      above a base mended with its port's base column as the fallback
 *      (ports shared by the workers);
 *   3. with a designated map: pairs whose prior offset still routes them
 *      keep it, the others are set aside (`pending`); the load of every
 *      designated route, each counted once, its source switch's CAs
 *      added to each channel it crosses (the pairs kept on their base
 *      LID summed over that column's tree as soon as the column is
 *      final: load_kept_on_base, O(S) a column; the others walked); then
 *      the pending pairs, in order, each on the best offset that reaches
 *      its source switch, its load added at once.
 * The fallback is read by the workers only once it is there (routed on
 * demand in the calling thread before a pass that reads it): base
 * columns are only judged by the workers, and a column above a base
 * never falls back on anything but its base.
 *
 * Invariants: prior's columns are read only through the identities (a
 * row by switch GUID, a column by port and offset), never by number on
 * the new fabric; after pass 2 an entry of a column above a base is set
 * only if its walk delivers by a legal route; offsets are only ever
 * designated where the column routes the source switch (offset 0: a
 * complete tree, the prior base column mended or the fallback's).
 */
#include <stdlib.h>
#include <string.h>

#include "ibrouting/configs.h"
#include "ibrouting/mender.h"
#include "ibrouting/repair.h"
#include "ibrouting/walk.h"
#include "util/parallel.h"
#include "util/timer.h"

int ibr_table_ids_of(const struct ibr_fabric *f, struct ibr_table_ids *ids,
		     struct ibr_error *err)
{
	uint32_t S = f->num_switches;

	*ids = (struct ibr_table_ids){ .num_switches = S,
				       .num_lids = f->max_lid + 1u };
	ids->switch_guid = malloc((S ? S : 1) * sizeof(uint64_t));
	ids->first_ca = malloc((S ? S : 1) * sizeof(uint32_t));
	ids->lid = calloc(ids->num_lids, sizeof(struct ibr_lid_id));
	if (!ids->switch_guid || !ids->first_ca || !ids->lid) {
		ibr_table_ids_free(ids);
		return ibr_error_set(err, "out of memory for the identities "
				     "of %u switches' tables", S);
	}
	for (uint32_t s = 0; s < S; s++) {
		ids->switch_guid[s] = ibr_switch(f, s)->guid;
		ids->first_ca[s] = f->sw_ca_start[s] < f->sw_ca_start[s + 1] ?
				   f->sw_cas[f->sw_ca_start[s]] : IBR_NONE;
	}
	for (uint32_t l = 1; l <= f->max_lid; l++) {
		const struct ibr_lid_owner *o = &f->lid_owner[l];
		const struct ibr_port *p;

		ids->lid[l].end_port = IBR_NONE;
		if (o->node == IBR_NONE)
			continue;
		p = ibr_port(f, o->node, o->port);
		ids->lid[l].guid = f->nodes[o->node].guid;
		ids->lid[l].port = o->port;
		ids->lid[l].offset = (uint8_t)(l - p->base_lid);
		ids->lid[l].lids = (uint8_t)ibr_port_lid_count(p);
	}
	for (uint32_t e = 0; e < f->num_end_ports; e++) {
		const struct ibr_end_port *ep = &f->end_ports[e];
		const struct ibr_port *p = ibr_port(f, ep->node, ep->port);

		for (unsigned j = 0; p->base_lid && j < ibr_port_lid_count(p); j++)
			ids->lid[p->base_lid + j].end_port = e;
	}
	return 0;
}

void ibr_table_ids_free(struct ibr_table_ids *ids)
{
	free(ids->switch_guid);
	free(ids->first_ca);
	free(ids->lid);
	*ids = (struct ibr_table_ids){ 0 };
}

struct pair {
	uint32_t e, s;   /* destination end port, source switch */
};

/* What one worker mends with: its scratch, and the flows and pairs it
 * counts, summed into worker 0's after each parallel pass (integer sums:
 * the same whichever worker counted what).  Worker 0's loads are the
 * mender's own, and only worker 0 mends a column whose fallback is the
 * fallback's. */
struct worker {
	struct ibr_repair rp;    /* over the mender's walker */
	uint32_t *on_base;       /* per switch: its flows kept on a base LID
				  * (load_kept_on_base's scratch) */
	uint64_t *base_load, *load;
	uint64_t pairs, pairs_kept;
};

struct mender {
	const struct ibr_fabric *f;        /* the new fabric */
	const struct ibr_updown *ud;
	const struct ibr_result *prior;
	const struct ibr_table_ids *ids;   /* prior's rows and columns */
	const struct ibr_mend_fallback *fb;
	const struct ibr_mend_options *o;
	struct ibr_result *out;
	struct ibr_walker w;
	struct worker *wk;       /* per worker; wk[0] also every pass in order */
	unsigned workers;
	uint32_t *from;          /* new switch -> prior row, IBR_NONE: new */
	/* new LID -> prior LID of the same port and offset, 0: none (a new
	 * switch or port, a range of another size, a LID above an enhanced
	 * port 0's base) */
	ibr_lid_t *prior_lid;
	uint32_t *prior_ep;        /* new end port -> prior end port, IBR_NONE */
	/* the fallback's tables when routed on demand */
	struct ibr_result routed;
	bool fb_routed, failed;
	struct ibr_error fb_err;
	double fb_ms;            /* its time, kept out of the other phases */
	/* [end port][offset - 1][switch]: the walk of that column above the
	 * base held before mending (its pairs keep it); with a map only */
	uint8_t *held;
	unsigned range;          /* the most LIDs a CA port has */
	uint32_t *weight;        /* per switch: its CAs, the flows it sends */
	bool *mend;              /* per end port: its base column has a walk
				  * that does not hold */
	uint64_t *base_load;     /* per sw_adj entry: base routes' flows */
	uint64_t *load;          /* per sw_adj entry: designated routes' */
	/* switches by LID, CA ports by base LID: every pass goes in these
	 * orders, so the tables do not depend on the order the model lists
	 * nodes in (OpenSM's, or a dump's) */
	uint32_t *sw_order, *ep_order;
	struct pair *pending;
	size_t num_pending, pending_cap;
	/* CA pairs re-routed by placement; those in all and those kept are
	 * wk[0]'s, where gather() sums the workers' */
	uint64_t pairs_rerouted;
};

static uint32_t cas_on(const struct ibr_fabric *f, uint32_t s)
{
	return f->sw_ca_start[s + 1] - f->sw_ca_start[s];
}

static bool has_map(const struct mender *k)
{
	return k->o->map != IBR_MEND_MAP_NONE;
}

/* The prior offset of the pair (new source switch s, new end port e): the
 * prior map's, by switch or by the first CA of the prior switch; IBR_NONE
 * when the prior tables had no such pair. */
static uint32_t prior_offset(const struct mender *k, uint32_t s, uint32_t e)
{
	const struct ibr_result *o = k->prior;
	uint32_t os = k->from[s], oe = k->prior_ep[e], row;

	if (os == IBR_NONE || oe == IBR_NONE ||
	    k->ids->first_ca[os] == IBR_NONE)
		return IBR_NONE;
	if (!o->designated.offset)
		return 0;
	row = o->designated.by_switch ? os : k->ids->first_ca[os];
	return o->designated.offset[(size_t)row * o->designated.cols + oe];
}

/* col[s] = prior's entry of s's prior row in the column of new LID lid's
 * port and offset (IBR_NO_PATH on a new switch). */
static void map_column(const struct mender *k, uint8_t *col, ibr_lid_t lid)
{
	const uint8_t *oc = ibr_column(k->prior, k->prior_lid[lid]);

	for (uint32_t s = 0; s < k->f->num_switches; s++)
		col[s] = k->from[s] == IBR_NONE ? IBR_NO_PATH : oc[k->from[s]];
}

/* The fallback's column of lid (repair.h's fallback_of), routed the
 * first time one is asked for when it is routed on demand; NULL when it
 * cannot be (k->failed, k->fb_err say why). */
static const uint8_t *fallback_column(void *ctx, ibr_lid_t lid)
{
	struct mender *k = ctx;

	if (k->fb->tables)
		return ibr_column(k->fb->tables, lid);
	if (!k->fb_routed) {
		double t0 = ibr_now_ms();
		k->fb_routed = true;
		if (!k->fb->route)
			ibr_error_set(&k->fb_err, "no fallback to mend with");
		if (!k->fb->route ||
		    ibr_result_init(&k->routed, k->f, &k->fb_err) ||
		    k->fb->route(k->fb->ctx, &k->routed, &k->fb_err))
			k->failed = true;
		k->fb_ms = ibr_now_ms() - t0;
		if (k->o->phases && k->fb->phase)
			ibr_phase_add(k->out, k->fb->phase, k->fb_ms);
	}
	return k->failed ? NULL : ibr_column(&k->routed, lid);
}

/* out's column of lid becomes the fallback's. */
static void take_fallback(struct mender *k, ibr_lid_t lid)
{
	const uint8_t *col = fallback_column(k, lid);

	if (col)
		memcpy(ibr_column(k->out, lid), col, k->f->num_switches);
}

/* Every switch LID's column: the prior one mended as the CA ports' base
 * columns are (switch traffic adds no load), the fallback's walks where
 * no holding walk is reached; a new switch's, and the LIDs above an
 * enhanced port 0's base, the fallback's. */
static void mend_switch_lids(struct mender *k)
{
	const struct ibr_fabric *f = k->f;

	for (uint32_t s = 0; s < f->num_switches; s++) {
		ibr_lid_t lid = ibr_switch_lid(f, s);
		unsigned lids = ibr_port_lid_count(ibr_port(f, f->sw_node[s], 0));

		if (!lid)
			continue;
		if (k->prior_lid[lid]) {
			map_column(k, ibr_column(k->out, lid), lid);
			ibr_repair_column_balanced(&k->wk[0].rp,
						   ibr_column(k->out, lid), NULL,
						   lid, false, NULL,
						   k->base_load);
		} else {
			take_fallback(k, lid);
		}
		for (unsigned j = 1; j < lids; j++)
			take_fallback(k, lid + j);
	}
}

/* The pairs to end port e on its base column, just judged (rp->verdict,
 * `broken` walks that do not hold): kept where the walk held, on a port
 * that was there before.  O(1) for a column whose walks all hold. */
static void count_base_pairs(const struct mender *k, struct worker *m,
			     uint32_t e, bool was_there, uint32_t broken)
{
	const struct ibr_fabric *f = k->f;
	uint32_t d = f->end_ports[e].sw;
	uint64_t all = f->sw_ca_start[f->num_switches] - cas_on(f, d);

	m->pairs += all;
	if (!was_there)
		return;
	if (!broken) {
		m->pairs_kept += all;
		return;
	}
	for (uint32_t s = 0; s < f->num_switches; s++)
		if (s != d && ibr_repair_holds(&m->rp, s))
			m->pairs_kept += cas_on(f, s);
}

/* Pass 3's load of the pairs to end port e that keep its base LID (their
 * prior offset was 0: map_destination keeps them there), its base column
 * final and judged: summed over the column's tree, and any pair whose
 * walk does not hold walked alone, as load_designated walks the others. */
static void load_kept_on_base(const struct mender *k, struct worker *m,
			      uint32_t e)
{
	const struct ibr_fabric *f = k->f;
	ibr_lid_t lid = ibr_end_port_lid(f, e);
	const uint8_t *col = ibr_column(k->out, lid);
	uint32_t *w = m->on_base, n = 0;

	if (!has_map(k) || k->prior_ep[e] == IBR_NONE)
		return;
	for (uint32_t s = 0; s < f->num_switches; s++) {
		w[s] = s != f->end_ports[e].sw && cas_on(f, s) &&
		       prior_offset(k, s, e) == 0 ? cas_on(f, s) : 0;
		n += w[s] != 0;
	}
	if (!n)
		return;
	ibr_repair_add_flows(&m->rp, col, lid, w, m->load);
	for (uint32_t s = 0; s < f->num_switches; s++)
		if (w[s] && !ibr_repair_holds(&m->rp, s))
			ibr_repair_walk(&m->rp, col, lid, s, w[s], m->load,
					NULL);
}

/* End ports per task of the passes over ports that workers share. */
#define PORTS_PER_TASK 32u

static unsigned port_tasks(const struct mender *k)
{
	return ibr_slice_count(k->f->num_end_ports, PORTS_PER_TASK);
}

/* The ports of task t: ep_order[*first, *end). */
static void task_ports(const struct mender *k, unsigned t, uint32_t *first,
		       uint32_t *end)
{
	ibr_slice(t, PORTS_PER_TASK, k->f->num_end_ports, first, end);
}

/* The flows and pairs workers 1.. counted, added to worker 0's (the
 * mender's) and cleared. */
static void gather(struct mender *k)
{
	uint32_t links = k->f->sw_adj_start[k->f->num_switches];

	for (unsigned w = 1; w < k->workers; w++) {
		struct worker *m = &k->wk[w];
		for (uint32_t c = 0; c < links; c++) {
			k->base_load[c] += m->base_load[c];
			k->load[c] += m->load[c];
		}
		memset(m->base_load, 0, links * sizeof(uint64_t));
		memset(m->load, 0, links * sizeof(uint64_t));
		k->wk[0].pairs += m->pairs;
		k->wk[0].pairs_kept += m->pairs_kept;
		m->pairs = m->pairs_kept = 0;
	}
}

/* mend_base_columns' first pass over the ports of task t: each column
 * mapped (a new port's the fallback's, there by now), the flows of its
 * walks that hold counted, and where all hold the load of its kept
 * pairs. */
static int base_task(void *arg, unsigned t, unsigned worker)
{
	struct mender *k = arg;
	struct worker *m = &k->wk[worker];
	const struct ibr_fabric *f = k->f;
	uint32_t first, end;

	task_ports(k, t, &first, &end);
	for (uint32_t i = first; i < end; i++) {
		uint32_t e = k->ep_order[i];
		ibr_lid_t lid = ibr_end_port_lid(f, e);
		uint8_t *col = ibr_column(k->out, lid);
		bool was_there = k->prior_lid[lid] != 0;
		uint32_t broken;

		if (was_there)
			map_column(k, col, lid);
		else
			take_fallback(k, lid);
		broken = ibr_repair_load(&m->rp, col, lid, k->weight,
					 m->base_load);
		k->mend[e] = broken && was_there;
		if (!has_map(k))
			count_base_pairs(k, m, e, was_there, broken);
		if (!k->mend[e])
			load_kept_on_base(k, m, e);
	}
	return 0;
}

/* Every CA port's base column, in two passes so that mending sees the
 * load of every route kept: the prior column mapped and the flows of its
 * walks that hold counted (ports shared by the workers); then, in
 * order, each mended with regard to that load (repair.h,
 * ibr_repair_column_balanced), the fallback's walks where no holding
 * walk is reached.  A new port keeps the fallback's.  Only a column with
 * a walk that does not hold is judged again: most columns after a small
 * change hold whole. */
static void mend_base_columns(struct mender *k)
{
	const struct ibr_fabric *f = k->f;

	/* routed here, if a new port needs it, not on a worker */
	for (uint32_t e = 0; e < f->num_end_ports; e++)
		if (!k->prior_lid[ibr_end_port_lid(f, e)]) {
			fallback_column(k, 0);
			break;
		}
	ibr_parallel(k->workers, port_tasks(k), base_task, k);
	gather(k);
	for (uint32_t i = 0; i < f->num_end_ports; i++) {
		uint32_t e = k->ep_order[i];
		ibr_lid_t lid = ibr_end_port_lid(f, e);
		if (!k->mend[e])
			continue;
		ibr_repair_column_balanced(&k->wk[0].rp, ibr_column(k->out, lid),
					   NULL, lid, false, k->weight,
					   k->base_load);
		load_kept_on_base(k, &k->wk[0], e);
	}
}

/* held[] of end port e's offset j >= 1. */
static uint8_t *held_of(const struct mender *k, uint32_t e, unsigned j)
{
	return k->held + ((size_t)e * (k->range - 1) + (j - 1)) *
			 k->f->num_switches;
}

/* The columns above the base of the ports of task t that were there
 * before: each the prior one, mended as the base columns are (the hop into
 * a holding walk whose route is the least loaded) from every switch with
 * an entry whose walk does not hold, the port's base column (final by
 * now) the fallback; switches without an entry stay so.  With a map,
 * held[] first: the pairs designated on a walk that held keep it. */
static int range_task(void *arg, unsigned t, unsigned worker)
{
	struct mender *k = arg;
	struct worker *m = &k->wk[worker];
	const struct ibr_fabric *f = k->f;
	uint32_t first, end;

	task_ports(k, t, &first, &end);
	for (uint32_t i = first; i < end; i++) {
		uint32_t e = k->ep_order[i];
		const struct ibr_end_port *ep = &f->end_ports[e];
		const struct ibr_port *p = ibr_port(f, ep->node, ep->port);
		const uint8_t *base = ibr_column(k->out, p->base_lid);

		for (unsigned j = 1; j < ibr_port_lid_count(p); j++) {
			ibr_lid_t lid = p->base_lid + j;
			uint8_t *col = ibr_column(k->out, lid);
			uint8_t *held = has_map(k) ? held_of(k, e, j) : NULL;
			if (!k->prior_lid[lid])
				continue;
			map_column(k, col, lid);
			ibr_repair_judge(&m->rp, col, lid);
			for (uint32_t s = 0; held && s < f->num_switches; s++)
				held[s] = ibr_repair_holds(&m->rp, s);
			/* no weight: base_load, final by now, is only read */
			ibr_repair_mend_judged(&m->rp, col, base, lid, true,
					       NULL, k->base_load);
		}
	}
	return 0;
}

/* The LIDs above the bases that no prior column maps to (a new port's):
 * the fallback's, as its own tables have them. */
static void take_new_ranges(struct mender *k)
{
	const struct ibr_fabric *f = k->f;

	for (uint32_t i = 0; i < f->num_end_ports; i++) {
		const struct ibr_end_port *ep = &f->end_ports[k->ep_order[i]];
		const struct ibr_port *p = ibr_port(f, ep->node, ep->port);

		for (unsigned j = 1; j < ibr_port_lid_count(p); j++)
			if (!k->prior_lid[p->base_lid + j])
				take_fallback(k, p->base_lid + j);
	}
}

/* ranges_as_base: every LID above a base takes the base's column
 * (mended), as an engine with one route per destination has it. */
static void copy_ranges(struct mender *k)
{
	const struct ibr_fabric *f = k->f;

	for (ibr_lid_t l = 1; l <= f->max_lid; l++) {
		const struct ibr_lid_owner *o = &f->lid_owner[l];
		const struct ibr_port *p;
		if (o->node == IBR_NONE)
			continue;
		p = ibr_port(f, o->node, o->port);
		if (l != p->base_lid && l < k->out->num_lids &&
		    p->base_lid < k->out->num_lids)
			memcpy(ibr_column(k->out, l),
			       ibr_column(k->out, p->base_lid), f->num_switches);
	}
}

static int set_aside(struct mender *k, uint32_t e, uint32_t s,
		     struct ibr_error *err)
{
	if (k->num_pending == k->pending_cap) {
		size_t cap = k->pending_cap ? 2 * k->pending_cap : 1024;
		struct pair *p = realloc(k->pending, cap * sizeof(*p));
		if (!p)
			return ibr_error_set(err, "out of memory for %zu pairs "
					     "to route again", cap);
		k->pending = p;
		k->pending_cap = cap;
	}
	k->pending[k->num_pending++] = (struct pair){ e, s };
	return 0;
}

/* The pairs to end port e: a pair whose route held keeps it; one whose
 * route was mended, or new, is set aside to be placed again, onto the
 * mended LID or another. */
static int map_destination(struct mender *k, uint32_t e, struct ibr_error *err)
{
	const struct ibr_fabric *f = k->f;
	const struct ibr_end_port *ep = &f->end_ports[e];
	const struct ibr_port *p = ibr_port(f, ep->node, ep->port);
	unsigned lids = ibr_port_lid_count(p);
	uint8_t *offsets = k->out->designated.offset;

	for (uint32_t i = 0; i < f->num_switches; i++) {
		uint32_t s = k->sw_order[i], o;

		if (s == ep->sw || cas_on(f, s) == 0)
			continue;
		k->wk[0].pairs += cas_on(f, s);
		o = prior_offset(k, s, e);
		if (o == 0 || (o != IBR_NONE && o < lids &&
			       held_of(k, e, o)[s])) {
			offsets[(size_t)s * k->out->designated.cols + e] =
				(uint8_t)o;
			k->wk[0].pairs_kept += cas_on(f, s);
		} else if (set_aside(k, e, s, err)) {
			return -1;
		}
	}
	return 0;
}

/* The load of every route designated so far (pending pairs still hold
 * offset 0 in the map but are not counted: they are placed after), but
 * for the pairs kept on their base LID, counted already
 * (load_kept_on_base). */
static void load_designated(struct mender *k)
{
	const struct ibr_fabric *f = k->f;
	const struct ibr_designated *d = &k->out->designated;
	size_t next = 0;

	for (uint32_t ei = 0; ei < f->num_end_ports; ei++) {
		uint32_t e = k->ep_order[ei];
		ibr_lid_t base = ibr_end_port_lid(f, e);
		for (uint32_t si = 0; si < f->num_switches; si++) {
			uint32_t s = k->sw_order[si];
			uint8_t j = d->offset[(size_t)s * d->cols + e];

			if (s == f->end_ports[e].sw || cas_on(f, s) == 0)
				continue;
			if (next < k->num_pending && k->pending[next].e == e &&
			    k->pending[next].s == s) {
				next++;
				continue;
			}
			if (j == 0)
				continue;
			ibr_repair_walk(&k->wk[0].rp, ibr_column(k->out, base + j),
					base + j, s, cas_on(f, s), k->load, NULL);
		}
	}
}

/* Is (len, neck) better than the best so far, by the map's measure? */
static bool better(const struct mender *k, uint32_t len, uint64_t neck,
		   uint32_t best_len, uint64_t best_neck)
{
	if (k->o->map == IBR_MEND_MAP_SHORTEST && len != best_len)
		return len < best_len;
	if (neck != best_neck)
		return neck < best_neck;
	return len < best_len;
}

static void place_pending(struct mender *k)
{
	const struct ibr_fabric *f = k->f;
	struct ibr_designated *d = &k->out->designated;

	for (size_t i = 0; i < k->num_pending; i++) {
		uint32_t e = k->pending[i].e, s = k->pending[i].s;
		const struct ibr_end_port *ep = &f->end_ports[e];
		const struct ibr_port *p = ibr_port(f, ep->node, ep->port);
		uint32_t best = 0, best_len = UINT32_MAX, len;
		uint64_t best_neck = UINT64_MAX, neck;

		for (unsigned j = 0; j < ibr_port_lid_count(p); j++) {
			const uint8_t *col = ibr_column(k->out, p->base_lid + j);
			if (col[s] == IBR_NO_PATH)
				continue;
			neck = ibr_repair_walk(&k->wk[0].rp, col,
					       p->base_lid + j, s, 0, k->load,
					       &len);
			if (better(k, len, neck, best_len, best_neck)) {
				best = j;
				best_len = len;
				best_neck = neck;
			}
		}
		d->offset[(size_t)s * d->cols + e] = (uint8_t)best;
		ibr_repair_walk(&k->wk[0].rp,
				ibr_column(k->out, p->base_lid + best),
				p->base_lid + best, s, cas_on(f, s), k->load,
				NULL);
		k->pairs_rerouted += cas_on(f, s);
	}
}

/* The map's figures: offsets above the base some pair is designated,
 * and the CA LIDs that takes. */
static void count_lids(const struct mender *k, struct ibr_mend_counts *c)
{
	const struct ibr_fabric *f = k->f;
	const struct ibr_designated *d = &k->out->designated;

	for (uint32_t e = 0; e < f->num_end_ports; e++) {
		bool used[1u << IBR_MAX_LMC] = { false };
		uint32_t top = 0;
		for (uint32_t s = 0; s < f->num_switches; s++)
			used[d->offset[(size_t)s * d->cols + e]] = true;
		for (uint32_t j = 1; j < (1u << IBR_MAX_LMC); j++)
			if (used[j]) {
				c->renamed++;
				top = j;
			}
		c->lids_needed += ibr_lids_for_configs(top + 1);
	}
}

/* The columns of out in which an entry of prior's survives. */
static uint32_t count_kept(const struct mender *k)
{
	const struct ibr_fabric *f = k->f;
	uint32_t kept = 0;

	for (ibr_lid_t l = 1; l <= f->max_lid && l < k->out->num_lids; l++) {
		const uint8_t *oc, *pc;
		if (!k->prior_lid[l])
			continue;
		oc = ibr_column(k->prior, k->prior_lid[l]);
		pc = ibr_column(k->out, l);
		for (uint32_t s = 0; s < f->num_switches; s++)
			if (k->from[s] != IBR_NONE && pc[s] != IBR_NO_PATH &&
			    pc[s] == oc[k->from[s]]) {
				kept++;
				break;
			}
	}
	return kept;
}

/* Adds phase `name` (with o->phases): the time since *t0 but the
 * fallback's, routed meanwhile (its own phase); *t0 and *fb_before move
 * on. */
static void phase_done(struct mender *k, const char *name, double *t0,
		       double *fb_before)
{
	double now = ibr_now_ms();

	if (k->o->phases)
		ibr_phase_add(k->out, name, now - *t0 - (k->fb_ms - *fb_before));
	*t0 = now;
	*fb_before = k->fb_ms;
}

/* from[], prior_lid[] and prior_ep[]: the new fabric's switches and ports
 * found among prior's by identity. */
static void match_identities(struct mender *k)
{
	const struct ibr_fabric *f = k->f;
	const struct ibr_table_ids *ids = k->ids;

	for (uint32_t s = 0; s < f->num_switches; s++)
		k->from[s] = IBR_NONE;
	for (uint32_t i = 0; i < ids->num_switches; i++) {
		uint32_t n = ibr_fabric_find_guid(f, ids->switch_guid[i]);
		if (n != IBR_NONE && f->nodes[n].type == IBR_NODE_SWITCH)
			k->from[f->nodes[n].sw_index] = i;
	}
	memset(k->prior_lid, 0, (f->max_lid + 1u) * sizeof(ibr_lid_t));
	for (uint32_t e = 0; e < f->num_end_ports; e++)
		k->prior_ep[e] = IBR_NONE;
	for (uint32_t l = 1; l < ids->num_lids && l < k->prior->num_lids; l++) {
		const struct ibr_lid_id *id = &ids->lid[l];
		const struct ibr_port *p;
		uint32_t n, e;

		if (!id->guid || id->offset ||
		    (n = ibr_fabric_find_guid(f, id->guid)) == IBR_NONE)
			continue;
		if (id->port == 0) {
			if (f->nodes[n].type == IBR_NODE_SWITCH &&
			    ibr_switch_lid(f, f->nodes[n].sw_index))
				k->prior_lid[ibr_switch_lid(f,
					f->nodes[n].sw_index)] = (ibr_lid_t)l;
			continue;
		}
		if (f->nodes[n].type != IBR_NODE_CA ||
		    id->port > f->nodes[n].num_ports ||
		    id->end_port == IBR_NONE)
			continue;
		p = ibr_port(f, n, id->port);
		if (!p->base_lid || ibr_port_lid_count(p) != id->lids ||
		    l + id->lids > k->prior->num_lids ||
		    (e = k->w.lid_end_port[p->base_lid]) == IBR_NONE)
			continue;
		k->prior_ep[e] = id->end_port;
		for (unsigned j = 0; j < id->lids; j++)
			k->prior_lid[p->base_lid + j] = (ibr_lid_t)(l + j);
	}
}

static void mender_free(struct mender *k)
{
	for (unsigned w = 0; k->wk && w < k->workers; w++) {
		ibr_repair_free(&k->wk[w].rp);
		free(k->wk[w].on_base);
		if (w) {
			free(k->wk[w].base_load);
			free(k->wk[w].load);
		}
	}
	free(k->wk);
	ibr_walker_free(&k->w);
	free(k->from);
	free(k->prior_lid);
	free(k->prior_ep);
	ibr_result_free(&k->routed);
	free(k->held);
	free(k->weight);
	free(k->mend);
	free(k->sw_order);
	free(k->ep_order);
	free(k->base_load);
	free(k->load);
	free(k->pending);
}

static int mender_init(struct mender *k, struct ibr_error *err)
{
	const struct ibr_fabric *f = k->f;
	uint32_t S = f->num_switches, links = f->sw_adj_start[S];
	uint32_t E = f->num_end_ports ? f->num_end_ports : 1;

	if (ibr_walker_init(&k->w, f, err))
		return -1;
	for (uint32_t e = 0; e < f->num_end_ports; e++) {
		const struct ibr_end_port *ep = &f->end_ports[e];
		unsigned n = ibr_port_lid_count(ibr_port(f, ep->node, ep->port));
		if (n > k->range)
			k->range = n;
	}
	k->range = k->range ? k->range : 1;
	k->from = malloc((S ? S : 1) * sizeof(uint32_t));
	k->prior_lid = malloc((f->max_lid + 1u) * sizeof(ibr_lid_t));
	k->prior_ep = malloc(E * sizeof(uint32_t));
	k->weight = malloc((S ? S : 1) * sizeof(uint32_t));
	k->mend = malloc(E * sizeof(bool));
	k->held = malloc(has_map(k) && k->range > 1 ?
			 (size_t)f->num_end_ports * (k->range - 1) * S : 1);
	k->sw_order = malloc((S ? S : 1) * sizeof(uint32_t));
	k->ep_order = malloc(E * sizeof(uint32_t));
	k->base_load = calloc(links ? links : 1, sizeof(uint64_t));
	k->load = calloc(links ? links : 1, sizeof(uint64_t));
	k->workers = ibr_parallel_workers(k->o->threads, port_tasks(k));
	k->wk = calloc(k->workers, sizeof(*k->wk));
	if (!k->from || !k->prior_lid || !k->prior_ep || !k->held || !k->weight ||
	    !k->mend || !k->sw_order || !k->ep_order || !k->base_load ||
	    !k->load || !k->wk)
		return ibr_error_set(err, "out of memory to mend the prior "
				     "tables (%u switches)", S);
	for (unsigned w = 0; w < k->workers; w++) {
		struct worker *m = &k->wk[w];
		if (ibr_repair_init(&m->rp, f, k->ud, &k->w, err))
			return -1;
		m->rp.order = k->sw_order;
		m->on_base = malloc((S ? S : 1) * sizeof(uint32_t));
		m->base_load = w ? calloc(links ? links : 1, sizeof(uint64_t)) :
			       k->base_load;
		m->load = w ? calloc(links ? links : 1, sizeof(uint64_t)) :
			  k->load;
		if (!m->on_base || !m->base_load || !m->load)
			return ibr_error_set(err, "out of memory to mend the "
					     "prior tables (%u switches)", S);
	}
	/* only worker 0 mends a column whose fallback is the fallback's */
	k->wk[0].rp.fallback_of = fallback_column;
	k->wk[0].rp.fallback_ctx = k;
	for (uint32_t s = 0; s < S; s++)
		k->weight[s] = cas_on(f, s);
	ibr_repair_orders(f, &k->w, k->sw_order, k->ep_order);
	match_identities(k);
	return 0;
}

int ibr_mend(const struct ibr_fabric *f, const struct ibr_updown *ud,
	     const struct ibr_result *prior, const struct ibr_table_ids *prior_ids,
	     const struct ibr_mend_fallback *fallback,
	     const struct ibr_mend_options *o, struct ibr_result *out,
	     struct ibr_mend_counts *c, struct ibr_error *err)
{
	struct mender k = { .f = f, .ud = ud, .prior = prior, .ids = prior_ids,
			    .fb = fallback, .o = o, .out = out };
	double t0 = ibr_now_ms(), fb_before = 0;
	int rc = -1;

	memset(c, 0, sizeof(*c));
	if (prior->num_switches != prior_ids->num_switches) {
		ibr_error_set(err, "prior tables of %u switches, their "
			      "identities of %u", prior->num_switches,
			      prior_ids->num_switches);
		goto out;
	}
	if (mender_init(&k, err) ||
	    (has_map(&k) && ibr_designated_init(out, f, true, err)))
		goto out;
	mend_switch_lids(&k);
	mend_base_columns(&k);
	phase_done(&k, "base LIDs kept", &t0, &fb_before);
	if (!o->ranges_as_base) {
		ibr_parallel(k.workers, port_tasks(&k), range_task, &k);
		take_new_ranges(&k);
	}
	for (uint32_t i = 0; has_map(&k) && i < f->num_end_ports; i++)
		if (map_destination(&k, k.ep_order[i], err))
			goto out;
	if (k.failed) {
		ibr_error_set(err, "%s", k.fb_err.msg);
		goto out;
	}
	c->pairs = k.wk[0].pairs;
	c->pairs_kept = k.wk[0].pairs_kept;
	if (c->pairs && (c->pairs - c->pairs_kept) * 100 >
			(uint64_t)o->max_broken * c->pairs) {
		rc = 0;
		goto out;
	}
	if (o->ranges_as_base)
		copy_ranges(&k);
	if (has_map(&k)) {
		phase_done(&k, "LIDs above the base kept", &t0, &fb_before);
		load_designated(&k);
		place_pending(&k);
		count_lids(&k, c);
		phase_done(&k, "pairs placed", &t0, &fb_before);
		c->pairs_rerouted = k.pairs_rerouted;
	} else {
		c->pairs_rerouted = c->pairs - c->pairs_kept;
	}
	c->columns_kept = count_kept(&k);
	rc = 1;
out:
	mender_free(&k);
	return rc;
}
