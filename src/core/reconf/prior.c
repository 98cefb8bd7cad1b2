/*
 * prior.c - routing from the tables in place after a change (prior.h
 * says what the tables become and why they stay deadlock-free).
 *
 * Three passes over the destination ports (switch LIDs first, as in 1):
 *   1. map: each column of the old tables onto the new switches, mended
 *      where its walks do not hold (repair.h: O(S) per judgement), base
 *      columns first, each renamed one then with its port's base column
 *      as the fallback;
 *      pairs whose old offset still routes them keep it, the others are
 *      set aside (`pending`);
 *   2. load: every designated route counted once, its source switch's
 *      CAs added to each inter-switch channel it crosses: the pairs kept
 *      on their base LID summed over that column's tree as soon as the
 *      column is final (load_kept_on_base, O(S) a column), the others
 *      walked;
 *   3. place: the pending pairs, in order, each on the best offset that
 *      reaches its source switch, its load added at once.
 * fera (IBR_PRIOR_ONE_ROUTE) has one route per destination: pass 1's
 * switch LIDs and base columns, each base then copied onto its range;
 * no renamed column, no map, nothing to place.
 * FERa's tables on the new fabric are routed only if a column needs them
 * (fera_column): a new switch or port, or a column where mending leaves
 * switches that no walk of the tables in place reaches.  After a small
 * change most runs need none.
 * Cost: a few O(S) passes per column (judging, the flows), mending only
 * where a walk does not hold.
 * Invariants: after pass 1 an entry of a renamed column is set only if
 * its walk delivers by a legal route; offsets are only ever designated
 * where the column routes the source switch (offset 0: a complete tree,
 * the old base column mended or FERa's).
 */
#include <stdlib.h>
#include <string.h>

#include "ibrouting/configs.h"
#include "ibrouting/prior.h"
#include "ibrouting/repair.h"
#include "ibrouting/walk.h"
#include "util/parallel.h"
#include "util/timer.h"

struct pair {
	uint32_t e, s;   /* destination end port, source switch */
};

/* What one worker mends with: its scratch, and the flows and pairs it
 * counts, summed into worker 0's after each parallel pass (integer sums:
 * the same whichever worker counted what).  Worker 0's loads are the
 * keeper's own, and only worker 0 routes FERa on demand. */
struct mender {
	struct ibr_repair rp;    /* over the keeper's walker */
	uint32_t *on_base;       /* per switch: its flows kept on a base LID
				  * (load_kept_on_base's scratch) */
	uint64_t *base_load, *load;
	uint64_t pairs_all, pairs_kept;
};

struct keeper {
	struct ibr_route_ctx *ctx;
	const struct ibr_fabric *f, *of;   /* the new fabric, the old */
	const struct ibr_result *old;
	struct ibr_result *r;
	const struct ibr_updown *ud;
	enum ibr_prior_choice choice;
	struct ibr_walker w;
	struct mender *m;        /* per worker; m[0] also every sequential pass */
	unsigned workers;
	uint32_t *from;          /* new switch -> old switch, IBR_NONE: new */
	uint32_t *old_ep;        /* old base LID -> old end port, IBR_NONE */
	uint32_t *old_of;        /* new end port -> old end port (old_end_port) */
	/* FERa's tables on the new fabric, routed only when a column needs
	 * them: one no walk of the tables in place reaches after mending,
	 * a new switch's LID, a new port's range (fera_column) */
	struct ibr_result fera;
	bool fera_routed, failed;
	struct ibr_error fera_err;
	double fera_ms;          /* its time, kept out of the other phases */
	/* [end port][offset - 1][switch]: the walk of that renamed column
	 * held before mending (its pairs keep it) */
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
	/* CA pairs re-routed; those in all and those kept are m[0]'s, where
	 * gather() sums the workers' */
	uint64_t pairs_rerouted;
};

static uint32_t cas_on(const struct ibr_fabric *f, uint32_t s)
{
	return f->sw_ca_start[s + 1] - f->sw_ca_start[s];
}

/* The old end port of new end port e with as many LIDs, or IBR_NONE. */
static uint32_t old_end_port(const struct keeper *k, uint32_t e)
{
	const struct ibr_end_port *ep = &k->f->end_ports[e];
	const struct ibr_port *p = ibr_port(k->f, ep->node, ep->port);
	uint32_t n = ibr_fabric_find_guid(k->of, k->f->nodes[ep->node].guid);
	const struct ibr_port *op;

	if (n == IBR_NONE || k->of->nodes[n].type != IBR_NODE_CA ||
	    ep->port > k->of->nodes[n].num_ports)
		return IBR_NONE;
	op = ibr_port(k->of, n, ep->port);
	if (!op->base_lid || op->base_lid > k->of->max_lid ||
	    ibr_port_lid_count(op) != ibr_port_lid_count(p) ||
	    op->base_lid + ibr_port_lid_count(op) > k->old->num_lids)
		return IBR_NONE;
	return k->old_ep[op->base_lid];
}

/* The old offset of the pair (new source switch s, new end port e whose
 * old end port is oe): the old map's, by switch or by the first CA of the
 * old switch; IBR_NONE when the old tables had no such pair. */
static uint32_t old_offset(const struct keeper *k, uint32_t s, uint32_t oe)
{
	const struct ibr_result *o = k->old;
	uint32_t os = k->from[s], row;

	if (os == IBR_NONE || oe == IBR_NONE || cas_on(k->of, os) == 0)
		return IBR_NONE;
	if (!o->designated.offset)
		return 0;
	row = o->designated.by_switch ? os :
	      k->of->sw_cas[k->of->sw_ca_start[os]];
	return o->designated.offset[(size_t)row * o->designated.cols + oe];
}

/* col[s] = the old column oc's entry of s's old switch (IBR_NO_PATH on a
 * new switch). */
static void map_column(const struct keeper *k, uint8_t *col, const uint8_t *oc)
{
	for (uint32_t s = 0; s < k->f->num_switches; s++)
		col[s] = k->from[s] == IBR_NONE ? IBR_NO_PATH : oc[k->from[s]];
}

/* FERa's column of lid on the new fabric (repair.h's fallback_of): the
 * registry's fallback engine (ibr_fallback_engine) routed afresh the
 * first time one is asked for; NULL when it cannot be
 * (k->failed, k->fera_err say why).  Routing it afresh every time, as
 * before, was a fifth to a quarter of a run after a small change, and
 * most such runs never read it. */
static const uint8_t *fera_column(void *ctx, ibr_lid_t lid)
{
	struct keeper *k = ctx;

	if (!k->fera_routed) {
		double t0 = ibr_now_ms();
		k->fera_routed = true;
		if (ibr_result_init(&k->fera, k->f, &k->fera_err) ||
		    ibr_fallback_engine->route_afresh(k->ctx, &k->fera,
						      &k->fera_err))
			k->failed = true;
		k->fera_ms = ibr_now_ms() - t0;
		ibr_phase_add(k->r, "FERa's tables, where needed", k->fera_ms);
	}
	return k->failed ? NULL : ibr_column(&k->fera, lid);
}

/* r's column of lid becomes FERa's: a LID the tables in place do not
 * have. */
static void take_fera(struct keeper *k, ibr_lid_t lid)
{
	const uint8_t *col = fera_column(k, lid);

	if (col)
		memcpy(ibr_column(k->r, lid), col, k->f->num_switches);
}

/* A renamed column: the old one, mended as the base columns are (the
 * hop into a holding walk whose route is the least loaded) from every
 * switch with an entry whose walk does not hold, the port's base column
 * (mended already) the fallback; switches without an entry stay so.
 * The pairs designated on it then mostly keep it. */
static void keep_renamed(struct keeper *k, struct mender *m, uint8_t *col,
			 const uint8_t *oc, const uint8_t *base, ibr_lid_t lid,
			 uint8_t *held)
{
	map_column(k, col, oc);
	/* held[s]: the walk from s held before mending: its pairs keep it */
	ibr_repair_judge(&m->rp, col, lid);
	for (uint32_t s = 0; s < k->f->num_switches; s++)
		held[s] = ibr_repair_holds(&m->rp, s);
	/* no weight: base_load, final by now, is only read */
	ibr_repair_mend_judged(&m->rp, col, base, lid, true, NULL,
			       k->base_load);
}

/* held[] of end port e's offset j >= 1. */
static uint8_t *held_of(const struct keeper *k, uint32_t e, unsigned j)
{
	return k->held + ((size_t)e * (k->range - 1) + (j - 1)) *
			 k->f->num_switches;
}

/* A switch LID's column: the old one, mended as the CA ports' base
 * columns are (repair.h; switch traffic adds no load), FERa's walks
 * where no holding walk is reached. */
static void keep_base(struct keeper *k, uint8_t *col, const uint8_t *oc,
		      ibr_lid_t lid)
{
	map_column(k, col, oc);
	ibr_repair_column_balanced(&k->m[0].rp, col, NULL, lid, false, NULL,
				   k->base_load);
}

/* fera's pairs to end port e, its base column just judged (rp->verdict):
 * kept where the walk held, on a port that was there before. */
static void count_base_pairs(const struct keeper *k, struct mender *m,
			     uint32_t e, bool was_there)
{
	const struct ibr_fabric *f = k->f;

	for (uint32_t s = 0; s < f->num_switches; s++) {
		if (s == f->end_ports[e].sw || cas_on(f, s) == 0)
			continue;
		m->pairs_all += cas_on(f, s);
		if (was_there && ibr_repair_holds(&m->rp, s))
			m->pairs_kept += cas_on(f, s);
	}
}

/* fera's ranges: every LID above a base takes the base's column (mended),
 * as fera's own tables do. */
static void copy_ranges(struct keeper *k)
{
	const struct ibr_fabric *f = k->f;

	for (ibr_lid_t l = 1; l <= f->max_lid; l++) {
		const struct ibr_lid_owner *o = &f->lid_owner[l];
		const struct ibr_port *p;
		if (o->node == IBR_NONE)
			continue;
		p = ibr_port(f, o->node, o->port);
		if (l != p->base_lid && l < k->r->num_lids &&
		    p->base_lid < k->r->num_lids)
			memcpy(ibr_column(k->r, l), ibr_column(k->r, p->base_lid),
			       f->num_switches);
	}
}

/* Pass 2's load of the pairs to end port e that keep its base LID (their
 * old offset was 0: map_destination keeps them there), its base column
 * final and judged: summed over the column's tree, and any pair whose
 * walk does not hold walked alone, as load_designated walks the others. */
static void load_kept_on_base(const struct keeper *k, struct mender *m,
			      uint32_t e)
{
	const struct ibr_fabric *f = k->f;
	ibr_lid_t lid = ibr_end_port_lid(f, e);
	const uint8_t *col = ibr_column(k->r, lid);
	uint32_t *w = m->on_base, oe = k->old_of[e], n = 0;

	if (k->choice == IBR_PRIOR_ONE_ROUTE || oe == IBR_NONE)
		return;
	for (uint32_t s = 0; s < f->num_switches; s++) {
		w[s] = s != f->end_ports[e].sw && cas_on(f, s) &&
		       old_offset(k, s, oe) == 0 ? cas_on(f, s) : 0;
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

static unsigned port_tasks(const struct keeper *k)
{
	return ibr_slice_count(k->f->num_end_ports, PORTS_PER_TASK);
}

/* The ports of task t: ep_order[*first, *end). */
static void task_ports(const struct keeper *k, unsigned t, uint32_t *first,
		       uint32_t *end)
{
	ibr_slice(t, PORTS_PER_TASK, k->f->num_end_ports, first, end);
}

/* The flows and pairs workers 1.. counted, added to worker 0's (the
 * keeper's) and cleared. */
static void gather(struct keeper *k)
{
	uint32_t links = k->f->sw_adj_start[k->f->num_switches];

	for (unsigned w = 1; w < k->workers; w++) {
		struct mender *m = &k->m[w];
		for (uint32_t c = 0; c < links; c++) {
			k->base_load[c] += m->base_load[c];
			k->load[c] += m->load[c];
		}
		memset(m->base_load, 0, links * sizeof(uint64_t));
		memset(m->load, 0, links * sizeof(uint64_t));
		k->m[0].pairs_all += m->pairs_all;
		k->m[0].pairs_kept += m->pairs_kept;
		m->pairs_all = m->pairs_kept = 0;
	}
}

/* keep_base_columns' first pass over the ports of task t: each column
 * mapped (a new port's FERa's, routed before), the flows of its walks
 * that hold counted, and where all hold the load of its kept pairs. */
static int base_task(void *arg, unsigned t, unsigned worker)
{
	struct keeper *k = arg;
	struct mender *m = &k->m[worker];
	const struct ibr_fabric *f = k->f;
	uint32_t first, end;

	task_ports(k, t, &first, &end);
	for (uint32_t i = first; i < end; i++) {
		uint32_t e = k->ep_order[i], oe = k->old_of[e];
		ibr_lid_t lid = ibr_end_port_lid(f, e);
		uint8_t *col = ibr_column(k->r, lid);

		if (oe != IBR_NONE)
			map_column(k, col,
				   ibr_column(k->old, ibr_end_port_lid(k->of, oe)));
		else
			take_fera(k, lid);
		k->mend[e] = ibr_repair_load(&m->rp, col, lid, k->weight,
					     m->base_load) && oe != IBR_NONE;
		if (k->choice == IBR_PRIOR_ONE_ROUTE)
			count_base_pairs(k, m, e, oe != IBR_NONE);
		if (!k->mend[e])
			load_kept_on_base(k, m, e);
	}
	return 0;
}

/* Every CA port's base column, in two passes so that mending sees the
 * load of every route kept: the old column mapped and the flows of its
 * walks that hold counted (ports shared by the workers); then, in
 * order, each mended with regard to that load (repair.h,
 * ibr_repair_column_balanced), FERa's walks where no holding walk is
 * reached.  A new port keeps FERa's.  Only a column with a walk that
 * does not hold is judged again: most columns after a small change hold
 * whole. */
static void keep_base_columns(struct keeper *k)
{
	const struct ibr_fabric *f = k->f;

	/* FERa routed here, if a new port needs it, not on a worker */
	for (uint32_t e = 0; e < f->num_end_ports; e++)
		if (k->old_of[e] == IBR_NONE) {
			fera_column(k, 0);
			break;
		}
	ibr_parallel(k->workers, port_tasks(k), base_task, k);
	gather(k);
	for (uint32_t i = 0; i < f->num_end_ports; i++) {
		uint32_t e = k->ep_order[i];
		ibr_lid_t lid = ibr_end_port_lid(f, e);
		if (!k->mend[e])
			continue;
		ibr_repair_column_balanced(&k->m[0].rp, ibr_column(k->r, lid),
					   NULL, lid, false, k->weight,
					   k->base_load);
		load_kept_on_base(k, &k->m[0], e);
	}
	if (k->choice == IBR_PRIOR_ONE_ROUTE)
		k->pairs_rerouted = k->m[0].pairs_all - k->m[0].pairs_kept;
}

/* The renamed columns (offsets 1.. of every port that was there before)
 * of the ports of task t, kept and mended (keep_renamed): each reads
 * only its port's base column, final by now, and base_load. */
static int renamed_task(void *arg, unsigned t, unsigned worker)
{
	struct keeper *k = arg;
	const struct ibr_fabric *f = k->f;
	uint32_t first, end;

	task_ports(k, t, &first, &end);
	for (uint32_t i = first; i < end; i++) {
		uint32_t e = k->ep_order[i], oe = k->old_of[e];
		const struct ibr_end_port *ep = &f->end_ports[e];
		const struct ibr_port *p = ibr_port(f, ep->node, ep->port);
		ibr_lid_t ob;

		if (oe == IBR_NONE)
			continue;
		ob = ibr_end_port_lid(k->of, oe);
		for (unsigned j = 1; j < ibr_port_lid_count(p); j++)
			keep_renamed(k, &k->m[worker],
				     ibr_column(k->r, p->base_lid + j),
				     ibr_column(k->old, ob + j),
				     ibr_column(k->r, p->base_lid),
				     p->base_lid + j, held_of(k, e, j));
	}
	return 0;
}

/* Every switch LID's column: the old one where it holds, FERa's where it
 * does not (keep_base). */
static void keep_switch_lids(struct keeper *k)
{
	const struct ibr_fabric *f = k->f;

	for (uint32_t s = 0; s < f->num_switches; s++) {
		ibr_lid_t lid = ibr_switch_lid(f, s), ol;
		unsigned lids = ibr_port_lid_count(ibr_port(f, f->sw_node[s], 0));

		if (!lid)
			continue;
		ol = k->from[s] == IBR_NONE ? 0 :
		     ibr_switch_lid(k->of, k->from[s]);
		if (ol && ol < k->old->num_lids)
			keep_base(k, ibr_column(k->r, lid), ibr_column(k->old, ol),
				  lid);
		else
			take_fera(k, lid);
		/* the LIDs above an enhanced port 0's base, FERa's copies */
		for (unsigned j = 1; j < lids; j++)
			take_fera(k, lid + j);
	}
}

static int set_aside(struct keeper *k, uint32_t e, uint32_t s,
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

/* Pass 1 for end port e. */
static int map_destination(struct keeper *k, uint32_t e, struct ibr_error *err)
{
	const struct ibr_fabric *f = k->f;
	const struct ibr_end_port *ep = &f->end_ports[e];
	const struct ibr_port *p = ibr_port(f, ep->node, ep->port);
	uint32_t S = f->num_switches, oe = k->old_of[e];
	unsigned lids = ibr_port_lid_count(p);
	uint8_t *offsets = k->r->designated.offset;

	/* a port that was there before had its renamed columns kept
	 * (renamed_task); a new one takes FERa's */
	for (unsigned j = 1; oe == IBR_NONE && j < lids; j++)
		take_fera(k, p->base_lid + j);
	for (uint32_t i = 0; i < S; i++) {
		uint32_t s = k->sw_order[i], o;

		if (s == ep->sw || cas_on(f, s) == 0)
			continue;
		k->m[0].pairs_all += cas_on(f, s);
		o = old_offset(k, s, oe);
		/* a pair whose route held keeps it; one whose route was mended
		 * is placed again (pass 3), onto the mended LID or another */
		if (o == 0 || (o != IBR_NONE && o < lids &&
			       held_of(k, e, o)[s])) {
			offsets[(size_t)s * k->r->designated.cols + e] = (uint8_t)o;
			k->m[0].pairs_kept += cas_on(f, s);
		} else if (set_aside(k, e, s, err)) {
			return -1;
		}
	}
	return 0;
}


/* Pass 2: the load of every route designated so far (pending pairs
 * still hold offset 0 in the map but are not counted: they are placed in
 * pass 3), but for the pairs kept on their base LID, counted already
 * (load_kept_on_base). */
static void load_designated(struct keeper *k)
{
	const struct ibr_fabric *f = k->f;
	const struct ibr_designated *d = &k->r->designated;
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
			ibr_repair_walk(&k->m[0].rp, ibr_column(k->r, base + j),
					base + j, s, cas_on(f, s), k->load, NULL);
		}
	}
}

/* Is (len, neck) better than the best so far, by the run's measure? */
static bool better(const struct keeper *k, uint32_t len, uint64_t neck,
		   uint32_t best_len, uint64_t best_neck)
{
	if (k->choice == IBR_PRIOR_SHORTEST && len != best_len)
		return len < best_len;
	if (neck != best_neck)
		return neck < best_neck;
	return len < best_len;
}

/* Pass 3. */
static void place_pending(struct keeper *k)
{
	const struct ibr_fabric *f = k->f;
	struct ibr_designated *d = &k->r->designated;

	for (size_t i = 0; i < k->num_pending; i++) {
		uint32_t e = k->pending[i].e, s = k->pending[i].s;
		const struct ibr_end_port *ep = &f->end_ports[e];
		const struct ibr_port *p = ibr_port(f, ep->node, ep->port);
		uint32_t best = 0, best_len = UINT32_MAX, len;
		uint64_t best_neck = UINT64_MAX, neck;

		for (unsigned j = 0; j < ibr_port_lid_count(p); j++) {
			const uint8_t *col = ibr_column(k->r, p->base_lid + j);
			if (col[s] == IBR_NO_PATH)
				continue;
			neck = ibr_repair_walk(&k->m[0].rp, col, p->base_lid + j, s,
					       0, k->load, &len);
			if (better(k, len, neck, best_len, best_neck)) {
				best = j;
				best_len = len;
				best_neck = neck;
			}
		}
		d->offset[(size_t)s * d->cols + e] = (uint8_t)best;
		ibr_repair_walk(&k->m[0].rp, ibr_column(k->r, p->base_lid + best),
				p->base_lid + best, s, cas_on(f, s), k->load, NULL);
		k->pairs_rerouted += cas_on(f, s);
	}
}

/* The figures every multi-LID run gives: renamed LIDs (offsets above the
 * base some pair is designated) and the CA LIDs that takes. */
static void count_lids(struct keeper *k)
{
	const struct ibr_fabric *f = k->f;
	const struct ibr_designated *d = &k->r->designated;
	uint64_t renamed = 0, needed = 0;

	for (uint32_t e = 0; e < f->num_end_ports; e++) {
		bool used[1u << IBR_MAX_LMC] = { false };
		uint32_t top = 0;
		for (uint32_t s = 0; s < f->num_switches; s++)
			used[d->offset[(size_t)s * d->cols + e]] = true;
		for (uint32_t j = 1; j < (1u << IBR_MAX_LMC); j++)
			if (used[j]) {
				renamed++;
				top = j;
			}
		needed += ibr_lids_for_configs(top + 1);
	}
	ibr_stat_count(k->r, "CA LID needed", IBR_STAT_CA_LIDS_NEEDED, needed);
	ibr_stat_count(k->r, "renamed LID", "renamed LIDs", renamed);
}

/* Is switch GUID g among the n switches of roots (indexes of f)? */
static bool among(const struct ibr_fabric *f, const uint32_t *roots,
		  uint32_t n, uint64_t g)
{
	for (uint32_t i = 0; i < n; i++)
		if (ibr_switch(f, roots[i])->guid == g)
			return true;
	return false;
}

/* The run's root set is the prior's, less the roots gone from the
 * fabric: the same orientation but for what the change took.  Another
 * root (an administrator's choice, or a strategy that now picks another
 * switch) orients every route anew, and keeping routes then keeps
 * little: the engine routes afresh.  Tables that record no root set (read
 * from a dump) are taken as routed from this one. */
static bool same_roots(const struct ibr_route_ctx *ctx,
		       const struct ibr_prior *p)
{
	const struct ibr_updown *ud = &ctx->updown;
	const struct ibr_fabric *f = ctx->f, *of = p->f;

	if (!p->r->num_roots)
		return true;
	for (uint32_t i = 0; i < ud->num_roots; i++)
		if (!among(of, p->r->roots, p->r->num_roots,
			   ibr_switch(f, ud->roots[i])->guid))
			return false;
	for (uint32_t i = 0; i < p->r->num_roots; i++) {
		uint64_t g = ibr_switch(of, p->r->roots[i])->guid;
		uint32_t n = ibr_fabric_find_guid(f, g);
		if (n != IBR_NONE && f->nodes[n].type == IBR_NODE_SWITCH &&
		    !among(f, ud->roots, ud->num_roots, g))
			return false;
	}
	return true;
}

static bool applies(const struct ibr_route_ctx *ctx, unsigned *limit,
		    struct ibr_error *err)
{
	const struct ibr_prior *p = ctx->prior;

	*limit = 0;
	if (!p || !p->f || !p->r || !p->r->col ||
	    p->r->num_switches != p->f->num_switches ||
	    (p->engine && strcmp(p->engine, ctx->engine->name) != 0) ||
	    p->f->lmc != ctx->f->lmc || !ctx->have_updown ||
	    !same_roots(ctx, p))
		return false;
	if (ibr_option_uint(ctx, IBR_PRIOR_OPTION, limit, err))
		return false;
	return *limit > 0;
}

static void free_keeper(struct keeper *k)
{
	for (unsigned w = 0; k->m && w < k->workers; w++) {
		ibr_repair_free(&k->m[w].rp);
		free(k->m[w].on_base);
		if (w) {
			free(k->m[w].base_load);
			free(k->m[w].load);
		}
	}
	free(k->m);
	ibr_walker_free(&k->w);
	free(k->from);
	free(k->old_ep);
	free(k->old_of);
	ibr_result_free(&k->fera);
	free(k->held);
	free(k->weight);
	free(k->mend);
	free(k->sw_order);
	free(k->ep_order);
	free(k->base_load);
	free(k->load);
	free(k->pending);
}

/* r back as it was given: every entry IBR_NO_PATH, no map, no figure,
 * no phase. */
static void give_back(struct ibr_result *r)
{
	memset(r->col, IBR_NO_PATH, (size_t)r->num_switches * r->num_lids);
	free(r->designated.offset);
	memset(&r->designated, 0, sizeof(r->designated));
	r->stats.count = 0;
	r->stats.phases = 0;
}

/* Adds phase `name`: the time since *t0 but FERa's, routed meanwhile
 * (its own phase); *t0 and *fera_before move on. */
static void phase_done(struct keeper *k, const char *name, double *t0,
		       double *fera_before)
{
	double now = ibr_now_ms();

	ibr_phase_add(k->r, name, now - *t0 - (k->fera_ms - *fera_before));
	*t0 = now;
	*fera_before = k->fera_ms;
}

static int keeper_init(struct keeper *k, struct ibr_error *err)
{
	const struct ibr_fabric *f = k->f, *of = k->of;
	uint32_t S = f->num_switches, links = f->sw_adj_start[S];

	if (ibr_walker_init(&k->w, f, err))
		return -1;
	k->from = malloc(S * sizeof(uint32_t));
	k->old_ep = malloc((of->max_lid + 1u) * sizeof(uint32_t));
	k->old_of = malloc((f->num_end_ports ? f->num_end_ports : 1) *
			   sizeof(uint32_t));
	k->weight = malloc(S * sizeof(uint32_t));
	for (uint32_t e = 0; e < f->num_end_ports; e++) {
		const struct ibr_end_port *ep = &f->end_ports[e];
		unsigned n = ibr_port_lid_count(ibr_port(f, ep->node, ep->port));
		if (n > k->range)
			k->range = n;
	}
	k->range = k->range ? k->range : 1;
	k->mend = malloc((f->num_end_ports ? f->num_end_ports : 1) *
			 sizeof(bool));
	k->held = malloc(k->range > 1 ? (size_t)f->num_end_ports *
				       (k->range - 1) * S : 1);
	k->sw_order = malloc(S * sizeof(uint32_t));
	k->ep_order = malloc((f->num_end_ports ? f->num_end_ports : 1) *
			     sizeof(uint32_t));
	k->base_load = calloc(links ? links : 1, sizeof(uint64_t));
	k->load = calloc(links ? links : 1, sizeof(uint64_t));
	if (!k->from || !k->old_ep || !k->old_of || !k->held || !k->weight ||
	    !k->mend || !k->sw_order || !k->ep_order || !k->base_load ||
	    !k->load)
		return ibr_error_set(err, "out of memory for the tables in "
				     "place (%u switches)", S);
	k->workers = ibr_parallel_workers(k->ctx->threads, port_tasks(k));
	k->m = calloc(k->workers, sizeof(*k->m));
	if (!k->m)
		return ibr_error_set(err, "out of memory for the tables in "
				     "place (%u switches)", S);
	for (unsigned w = 0; w < k->workers; w++) {
		struct mender *m = &k->m[w];
		if (ibr_repair_init(&m->rp, f, k->ud, &k->w, err))
			return -1;
		m->rp.order = k->sw_order;
		m->on_base = malloc(S * sizeof(uint32_t));
		m->base_load = w ? calloc(links ? links : 1, sizeof(uint64_t)) :
			       k->base_load;
		m->load = w ? calloc(links ? links : 1, sizeof(uint64_t)) :
			  k->load;
		if (!m->on_base || !m->base_load || !m->load)
			return ibr_error_set(err, "out of memory for the tables "
					     "in place (%u switches)", S);
	}
	/* only worker 0 mends a column whose fallback is FERa's */
	k->m[0].rp.fallback_of = fera_column;
	k->m[0].rp.fallback_ctx = k;
	for (uint32_t s = 0; s < S; s++)
		k->weight[s] = cas_on(f, s);
	ibr_repair_orders(f, &k->w, k->sw_order, k->ep_order);
	for (uint32_t s = 0; s < S; s++) {
		uint32_t n = ibr_fabric_find_guid(of, ibr_switch(f, s)->guid);
		k->from[s] = n != IBR_NONE && of->nodes[n].type ==
			     IBR_NODE_SWITCH ? of->nodes[n].sw_index : IBR_NONE;
	}
	for (uint32_t l = 0; l <= of->max_lid; l++)
		k->old_ep[l] = IBR_NONE;
	for (uint32_t e = 0; e < of->num_end_ports; e++)
		k->old_ep[ibr_end_port_lid(of, e)] = e;
	for (uint32_t e = 0; e < f->num_end_ports; e++)
		k->old_of[e] = old_end_port(k, e);
	return 0;
}

int ibr_prior_route(struct ibr_route_ctx *ctx, struct ibr_result *r,
		    enum ibr_prior_choice choice, struct ibr_error *err)
{
	struct keeper k = { .ctx = ctx, .f = ctx->f, .r = r, .choice = choice };
	unsigned limit;
	int rc = -1;
	double t0 = ibr_now_ms(), fera_before = 0;

	err->msg[0] = '\0';
	if (!applies(ctx, &limit, err))
		return err->msg[0] ? -1 : 0;
	k.of = ctx->prior->f;
	k.old = ctx->prior->r;
	k.ud = ibr_ctx_updown(ctx, err);
	if (!k.ud || keeper_init(&k, err))
		goto out;
	if (choice != IBR_PRIOR_ONE_ROUTE &&
	    ibr_designated_init(r, k.f, true, err))
		goto out;
	keep_switch_lids(&k);
	keep_base_columns(&k);
	phase_done(&k, "base LIDs in place", &t0, &fera_before);
	if (choice != IBR_PRIOR_ONE_ROUTE)
		ibr_parallel(k.workers, port_tasks(&k), renamed_task, &k);
	for (uint32_t i = 0; choice != IBR_PRIOR_ONE_ROUTE &&
			     i < k.f->num_end_ports; i++)
		if (map_destination(&k, k.ep_order[i], err))
			goto out;
	if (k.failed) {
		ibr_error_set(err, "%s", k.fera_err.msg);
		goto out;
	}
	if (k.m[0].pairs_all &&
	    (k.m[0].pairs_all - k.m[0].pairs_kept) * 100 >
	    (uint64_t)limit * k.m[0].pairs_all) {
		give_back(r);
		rc = 0;
		goto out;
	}
	if (choice == IBR_PRIOR_ONE_ROUTE) {
		copy_ranges(&k);
	} else {
		phase_done(&k, "LIDs above the base in place", &t0,
			   &fera_before);
		load_designated(&k);
		place_pending(&k);
		count_lids(&k);
		phase_done(&k, "pairs placed", &t0, &fera_before);
	}
	ibr_stat_count(r, "pair kept in place", "pairs kept in place",
		       k.m[0].pairs_kept);
	ibr_stat_count(r, "pair re-routed", "pairs re-routed",
		       k.pairs_rerouted);
	rc = 1;
out:
	if (rc < 0)
		give_back(r);
	free_keeper(&k);
	return rc;
}

/* The peer behind port `port` of node n of fabric f, by GUID; 0: none. */
static uint64_t peer_guid(const struct ibr_fabric *f, uint32_t n, unsigned port)
{
	const struct ibr_port *p;

	if (port == 0 || port > f->nodes[n].num_ports)
		return 0;
	p = ibr_port(f, n, port);
	return p->remote_node == IBR_NONE ? 0 : f->nodes[p->remote_node].guid;
}

/* down[d * S + t]: switch t has an all-down route to switch d under ud
 * (malloc'd bytes), NULL when out of memory. */
static uint8_t *down_routes(const struct ibr_fabric *f,
			    const struct ibr_updown *ud)
{
	uint32_t S = f->num_switches, links = f->sw_adj_start[S];
	uint8_t *down = calloc(S ? (size_t)S * S : 1, 1);
	uint8_t *link_up = malloc(links ? links : 1);
	uint32_t *dist = malloc((S ? S : 1) * sizeof(uint32_t));
	uint32_t *queue = malloc((S ? S : 1) * sizeof(uint32_t));
	struct ibr_up_links up = { 0 };
	bool ok = down && link_up && dist && queue;

	if (ok) {
		ibr_updown_link_flags(f, ud, link_up);
		ok = ibr_up_links_build(f, link_up, &up) == 0;
	}
	for (uint32_t d = 0; ok && d < S; d++) {
		uint32_t n = ibr_down_distances(&up, S, d, dist, queue);
		for (uint32_t i = 0; i < n; i++)
			down[(size_t)d * S + queue[i]] = 1;
	}
	ibr_up_links_free(&up);
	free(link_up);
	free(dist);
	free(queue);
	if (!ok) {
		free(down);
		return NULL;
	}
	return down;
}

/* Must the entry `was` (the prior's port) of switch s for lid change in
 * any legal tables of f under ud?  gone: s's ports whose peer went. */
static bool required(const struct ibr_fabric *f, const struct ibr_updown *ud,
		     const uint8_t *down, uint32_t s, ibr_lid_t lid,
		     uint8_t was, const bool *gone)
{
	const struct ibr_port *p;
	uint32_t d, t;

	if (was == IBR_NO_PATH)
		return false;
	if (gone[was] || lid > f->max_lid ||
	    (d = ibr_lid_switch(f, lid)) == IBR_NONE)
		return true;   /* the link, or the LID's owner, is gone */
	if (was == 0 || was > f->nodes[f->sw_node[s]].num_ports)
		return false;
	p = ibr_port(f, f->sw_node[s], was);
	if (p->remote_node == IBR_NONE ||
	    f->nodes[p->remote_node].type != IBR_NODE_SWITCH)
		return false;
	t = f->nodes[p->remote_node].sw_index;
	return !ibr_link_is_up(f, ud, s, t) && !down[(size_t)d * f->num_switches + t];
}

int ibr_prior_difference(const struct ibr_prior *p,
			 const struct ibr_fabric *f,
			 const struct ibr_updown *ud,
			 const struct ibr_result *r,
			 struct ibr_prior_change *c)
{
	const struct ibr_result *o = p->r;
	uint8_t *down = ud ? down_routes(f, ud) : NULL;
	bool gone[IBR_MAX_PORTS + 1];

	memset(c, 0, sizeof(*c));
	for (uint32_t s = 0; s < f->num_switches; s++) {
		uint32_t n = ibr_fabric_find_guid(p->f, ibr_switch(f, s)->guid);
		uint32_t os;

		if (n == IBR_NONE || p->f->nodes[n].type != IBR_NODE_SWITCH)
			continue;
		os = p->f->nodes[n].sw_index;
		gone[0] = false;
		for (unsigned q = 1; q <= IBR_MAX_PORTS; q++) {
			uint64_t was = q <= p->f->nodes[n].num_ports ?
				       peer_guid(p->f, n, q) : 0;
			gone[q] = was && was != peer_guid(f, f->sw_node[s], q);
		}
		for (uint32_t first = 0; first < r->num_lids;
		     first += IBR_LFT_BLOCK) {
			uint64_t in_block = 0;
			for (uint32_t l = first; l < r->num_lids &&
			     l < first + IBR_LFT_BLOCK; l++) {
				uint8_t was = l < o->num_lids ?
					      ibr_entry(o, os, l) : IBR_NO_PATH;
				if (ibr_entry(r, s, l) == was)
					continue;
				in_block++;
				c->forced += was != IBR_NO_PATH && gone[was];
				c->required += down &&
					required(f, ud, down, s, l, was, gone);
			}
			c->entries += in_block;
			c->blocks += in_block > 0;
		}
		c->compared += r->num_lids;
	}
	free(down);
	return ud && !down ? -1 : 0;
}
