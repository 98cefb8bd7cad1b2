/*
 * keep.c - a hybrid's provisional tables kept from the tables in place
 * (transition.h, ibr_transition_keep): every column of the tables in
 * place mapped onto the changed fabric and mended where its walks no
 * longer hold, as the final engine mends the same tables when it routes
 * from them (prior.c), the provisional engine's walks the fallback.
 *
 * Why the final engine's way: after a change the final pass routes from
 * the final engine's last tables, which are the tables in place, and
 * mends them balanced (repair.h, ibr_repair_column_balanced).  When the
 * provisional pass mends them the same way, in the same order against
 * the same load, the final pass finds its own tables in place and OpenSM
 * sends no block after the provisional pass; mended another way (the
 * provisional engine's walks, entry by entry) the final pass re-routes
 * every mended walk a second time (a top switch of the 8-ary 3-tree
 * down: 261 blocks more than the final engine alone sends).
 *
 * Passes, as prior.c's: the switch LIDs (no load of their own); every CA
 * port's base column mapped and the flows of its walks that hold counted
 * (each switch sends its CAs' flows); then, end ports by base LID, each
 * base column with a walk that does not hold mended against that load,
 * its new walks' flows added; then the LIDs above a base: copies of the
 * mended base for an engine with one route per destination (fera, pira),
 * else their old columns mended with the base column as the fallback,
 * and what that leaves without an entry (no walk that holds reached, a
 * switch new to the fabric) completed as ibr_route completes the final
 * engine's (ranges.h), so every LID of a range is routed from every
 * switch and the provisional tables verify.
 *
 * Threads: the first pass over the base columns and the pass over the
 * LIDs above the bases are shared by the workers, ports in slices of 32
 * (each column is its port's own; the flows are summed per worker and
 * added up after, integer sums); the mending in order is one thread's, so
 * the tables do not depend on the thread count.
 *
 * Invariants: every column written is legal on its own under ud (a kept
 * walk that holds, a hop into one, or a walk of the fallback, itself
 * legal), so the tables are free of loops and of credit loops as prov
 * is; a walk that held is never changed.
 */
#include <stdlib.h>
#include <string.h>

#include "ibrouting/management.h"
#include "ibrouting/ranges.h"
#include "ibrouting/repair.h"
#include "ibrouting/transition.h"
#include "ibrouting/walk.h"
#include "util/parallel.h"

/* What one worker mends with; worker 0's load is the keep's own. */
struct keep_worker {
	struct ibr_repair rp;    /* over the keep's walker */
	uint8_t *col;            /* a column being mended */
	uint64_t *load;          /* per sw_adj entry: flows it counted */
	uint32_t kept;           /* columns it wrote keeping an old entry */
};

struct keep {
	const struct ibr_fabric *f;
	const struct ibr_result *old;
	struct ibr_result *prov;
	bool ranges_as_base;
	struct ibr_walker w;
	struct keep_worker *kw;  /* per worker */
	unsigned workers;
	uint32_t *from;          /* f's switch -> old's, IBR_NONE: new */
	uint32_t *sw_order, *ep_order;   /* ibr_repair_orders */
	uint32_t *weight;        /* per switch: its CAs, the flows it sends */
	uint64_t *load;          /* per sw_adj entry: base routes' flows */
	bool *mend;              /* per end port: its base has a broken walk */
};

/* End ports per task of the passes the workers share. */
#define PORTS_PER_TASK 32u

static unsigned port_tasks(const struct ibr_fabric *f)
{
	return ibr_slice_count(f->num_end_ports, PORTS_PER_TASK);
}

static bool has_old(const struct keep *k, ibr_lid_t lid)
{
	return lid < k->old->num_lids;
}

/* col = old's column of lid on f's switches (IBR_NO_PATH on a new
 * switch). */
static void map_column(const struct keep *k, uint8_t *col, ibr_lid_t lid)
{
	const uint8_t *oc = ibr_column(k->old, lid);

	for (uint32_t s = 0; s < k->f->num_switches; s++)
		col[s] = k->from[s] == IBR_NONE ? IBR_NO_PATH : oc[k->from[s]];
}

/* prov's column of lid becomes col; counted kept (by worker kw) when an
 * entry of old's survives in it. */
static void put(const struct keep *k, struct keep_worker *kw, ibr_lid_t lid,
		const uint8_t *col)
{
	const uint8_t *oc = ibr_column(k->old, lid);
	uint8_t *pc = ibr_column(k->prov, lid);

	if (pc != col)
		memcpy(pc, col, k->f->num_switches);
	for (uint32_t s = 0; s < k->f->num_switches; s++)
		if (k->from[s] != IBR_NONE && pc[s] != IBR_NO_PATH &&
		    pc[s] == oc[k->from[s]]) {
			kw->kept++;
			return;
		}
}

/* The switch LIDs: base columns mended as the CAs' are (switch traffic
 * adds no load); an enhanced port 0's LIDs above its base mended with
 * prov's walks. */
static void keep_switch_lids(struct keep *k)
{
	const struct ibr_fabric *f = k->f;
	struct keep_worker *kw = &k->kw[0];

	for (uint32_t s = 0; s < f->num_switches; s++) {
		ibr_lid_t lid = ibr_switch_lid(f, s);
		unsigned lids = ibr_port_lid_count(ibr_port(f, f->sw_node[s], 0));

		for (unsigned j = 0; lid && j < lids; j++) {
			if (!has_old(k, lid + j))
				continue;
			map_column(k, kw->col, lid + j);
			if (j == 0)
				ibr_repair_column_balanced(&kw->rp, kw->col,
					ibr_column(k->prov, lid), lid, false,
					NULL, k->load);
			else
				ibr_repair_column(&kw->rp, kw->col,
					ibr_column(k->prov, lid + j), lid + j,
					true);
			put(k, kw, lid + j, kw->col);
		}
	}
}

/* The first pass over the base columns of task t's ports: each mapped
 * and the flows of its walks that hold counted (a new port's: prov's);
 * a column whose walks all hold is written. */
static int base_task(void *arg, unsigned t, unsigned worker)
{
	struct keep *k = arg;
	struct keep_worker *kw = &k->kw[worker];
	uint32_t first, end;

	ibr_slice(t, PORTS_PER_TASK, k->f->num_end_ports, &first, &end);
	for (uint32_t i = first; i < end; i++) {
		uint32_t e = k->ep_order[i];
		ibr_lid_t lid = ibr_end_port_lid(k->f, e);

		k->mend[e] = false;
		if (!has_old(k, lid)) {
			ibr_repair_load(&kw->rp, ibr_column(k->prov, lid), lid,
					k->weight, kw->load);
			continue;
		}
		map_column(k, kw->col, lid);
		k->mend[e] = ibr_repair_load(&kw->rp, kw->col, lid, k->weight,
					     kw->load) != 0;
		if (!k->mend[e])
			put(k, kw, lid, kw->col);
	}
	return 0;
}

/* The flows workers 1.. counted, added to the keep's. */
static void gather(struct keep *k)
{
	uint32_t links = k->f->sw_adj_start[k->f->num_switches];

	for (unsigned w = 1; w < k->workers; w++)
		for (uint32_t c = 0; c < links; c++)
			k->load[c] += k->kw[w].load[c];
}

/* Every CA port's base column: first the flows of every walk that holds
 * (base_task, the ports shared by the workers), then, in order, each
 * one with a walk that does not hold mended against that load. */
static void keep_base_columns(struct keep *k)
{
	const struct ibr_fabric *f = k->f;
	struct keep_worker *kw = &k->kw[0];

	ibr_parallel(k->workers, port_tasks(f), base_task, k);
	gather(k);
	for (uint32_t i = 0; i < f->num_end_ports; i++) {
		uint32_t e = k->ep_order[i];
		ibr_lid_t lid = ibr_end_port_lid(f, e);

		if (!k->mend[e])
			continue;
		map_column(k, kw->col, lid);
		ibr_repair_column_balanced(&kw->rp, kw->col,
					   ibr_column(k->prov, lid), lid, false,
					   k->weight, k->load);
		put(k, kw, lid, kw->col);
	}
}

/* The LIDs above the bases of task t's ports (the bases mended by now,
 * the load final: only read). */
static int range_task(void *arg, unsigned t, unsigned worker)
{
	struct keep *k = arg;
	struct keep_worker *kw = &k->kw[worker];
	const struct ibr_fabric *f = k->f;
	uint32_t first, end;

	ibr_slice(t, PORTS_PER_TASK, k->f->num_end_ports, &first, &end);
	for (uint32_t i = first; i < end; i++) {
		const struct ibr_end_port *ep = &f->end_ports[k->ep_order[i]];
		const struct ibr_port *p = ibr_port(f, ep->node, ep->port);
		const uint8_t *base = ibr_column(k->prov, p->base_lid);

		for (unsigned j = 1; j < ibr_port_lid_count(p); j++) {
			ibr_lid_t lid = p->base_lid + j;
			if (k->ranges_as_base) {
				memcpy(ibr_column(k->prov, lid), base,
				       f->num_switches);
				if (has_old(k, lid))
					put(k, kw, lid, ibr_column(k->prov, lid));
				continue;
			}
			if (!has_old(k, lid))
				continue;
			map_column(k, kw->col, lid);
			ibr_repair_column_balanced(&kw->rp, kw->col, base, lid,
						   true, NULL, k->load);
			put(k, kw, lid, kw->col);
		}
	}
	return 0;
}

static void keep_free(struct keep *k)
{
	for (unsigned w = 0; k->kw && w < k->workers; w++) {
		ibr_repair_free(&k->kw[w].rp);
		free(k->kw[w].col);
		if (w)
			free(k->kw[w].load);
	}
	free(k->kw);
	ibr_walker_free(&k->w);
	free(k->from);
	free(k->sw_order);
	free(k->ep_order);
	free(k->weight);
	free(k->load);
	free(k->mend);
}

static int keep_init(struct keep *k, const struct ibr_updown *ud,
		     const uint64_t *old_guid, uint32_t old_switches,
		     unsigned threads, struct ibr_error *err)
{
	const struct ibr_fabric *f = k->f;
	uint32_t S = f->num_switches ? f->num_switches : 1;
	uint32_t E = f->num_end_ports ? f->num_end_ports : 1;
	uint32_t links = f->sw_adj_start[f->num_switches];

	if (ibr_walker_init(&k->w, f, err))
		return -1;
	k->from = malloc(S * sizeof(uint32_t));
	k->sw_order = malloc(S * sizeof(uint32_t));
	k->ep_order = malloc(E * sizeof(uint32_t));
	k->weight = malloc(S * sizeof(uint32_t));
	k->load = calloc(links ? links : 1, sizeof(uint64_t));
	k->mend = malloc(E * sizeof(bool));
	k->workers = ibr_parallel_workers(threads, port_tasks(f));
	k->kw = calloc(k->workers, sizeof(*k->kw));
	if (!k->from || !k->sw_order || !k->ep_order || !k->weight ||
	    !k->load || !k->mend || !k->kw)
		return ibr_error_set(err, "transition: out of memory for %u "
				     "switches", f->num_switches);
	ibr_repair_orders(f, &k->w, k->sw_order, k->ep_order);
	for (unsigned w = 0; w < k->workers; w++) {
		struct keep_worker *kw = &k->kw[w];
		if (ibr_repair_init(&kw->rp, f, ud, &k->w, err))
			return -1;
		kw->rp.order = k->sw_order;
		kw->col = malloc(S);
		kw->load = w ? calloc(links ? links : 1, sizeof(uint64_t)) :
			   k->load;
		if (!kw->col || !kw->load)
			return ibr_error_set(err, "transition: out of memory "
					     "for %u switches", f->num_switches);
	}
	for (uint32_t s = 0; s < f->num_switches; s++) {
		k->from[s] = IBR_NONE;
		k->weight[s] = f->sw_ca_start[s + 1] - f->sw_ca_start[s];
	}
	for (uint32_t i = 0; i < old_switches; i++) {
		uint32_t n = ibr_fabric_find_guid(f, old_guid[i]);
		if (n != IBR_NONE && f->nodes[n].type == IBR_NODE_SWITCH)
			k->from[f->nodes[n].sw_index] = i;
	}
	return 0;
}

int ibr_transition_keep(const struct ibr_fabric *f, const struct ibr_updown *ud,
			const struct ibr_result *old, const uint64_t *old_guid,
			uint32_t old_switches, bool ranges_as_base,
			unsigned threads, struct ibr_result *prov,
			uint32_t *kept, struct ibr_error *err)
{
	struct keep k = { .f = f, .old = old, .prov = prov,
			  .ranges_as_base = ranges_as_base };
	int rc = -1;

	*kept = 0;
	if (old->num_switches != old_switches)
		return ibr_error_set(err, "transition: %u switch GUIDs for "
				     "tables of %u switches", old_switches,
				     old->num_switches);
	/* prov's columns are the fallback of the mending: legal walks
	 * only, its management routes set again at the end */
	if (ibr_management_clear(f, ud, prov, err))
		return -1;
	if (keep_init(&k, ud, old_guid, old_switches, threads, err) == 0) {
		keep_switch_lids(&k);
		keep_base_columns(&k);
		ibr_parallel(k.workers, port_tasks(f), range_task, &k);
		for (unsigned w = 0; w < k.workers; w++)
			*kept += k.kw[w].kept;
		/* what mending left without an entry above a base (no walk
		 * that holds reached, a switch new to the fabric) routed as
		 * ibr_route completes the final engine's tables */
		rc = ranges_as_base ? 0 :
		     ibr_ranges_complete(f, ud, prov, threads, err);
		/* and the management routes of what was kept, as ibr_route
		 * sets them on the final engine's */
		if (rc == 0)
			rc = ibr_management_routes(f, ud, prov, err);
	}
	keep_free(&k);
	return rc;
}
