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
 * else their old columns mended with the base column as the fallback.
 *
 * Invariants: every column written is legal on its own under ud (a kept
 * walk that holds, a hop into one, or a walk of the fallback, itself
 * legal), so the tables are free of loops and of credit loops as prov
 * is; a walk that held is never changed.
 */
#include <stdlib.h>
#include <string.h>

#include "ibrouting/repair.h"
#include "ibrouting/transition.h"
#include "ibrouting/walk.h"

struct keep {
	const struct ibr_fabric *f;
	const struct ibr_result *old;
	struct ibr_result *prov;
	struct ibr_walker w;
	struct ibr_repair rp;
	uint32_t *from;          /* f's switch -> old's, IBR_NONE: new */
	uint32_t *sw_order, *ep_order;   /* ibr_repair_orders */
	uint32_t *weight;        /* per switch: its CAs, the flows it sends */
	uint64_t *load;          /* per sw_adj entry: base routes' flows */
	bool *mend;              /* per end port: its base has a broken walk */
	uint8_t *col;            /* scratch: a column being mended */
	uint32_t kept;
};

static bool has_old(const struct keep *k, ibr_lid_t lid)
{
	return lid < k->old->num_lids;
}

/* k->col = old's column of lid on f's switches (IBR_NO_PATH on a new
 * switch). */
static void map_column(struct keep *k, ibr_lid_t lid)
{
	const uint8_t *oc = ibr_column(k->old, lid);

	for (uint32_t s = 0; s < k->f->num_switches; s++)
		k->col[s] = k->from[s] == IBR_NONE ? IBR_NO_PATH : oc[k->from[s]];
}

/* prov's column of lid becomes col; counted kept when an entry of old's
 * survives in it. */
static void put(struct keep *k, ibr_lid_t lid, const uint8_t *col)
{
	const uint8_t *oc = ibr_column(k->old, lid);
	uint8_t *pc = ibr_column(k->prov, lid);

	if (pc != col)
		memcpy(pc, col, k->f->num_switches);
	for (uint32_t s = 0; s < k->f->num_switches; s++)
		if (k->from[s] != IBR_NONE && pc[s] != IBR_NO_PATH &&
		    pc[s] == oc[k->from[s]]) {
			k->kept++;
			return;
		}
}

/* The switch LIDs: base columns mended as the CAs' are (switch traffic
 * adds no load); an enhanced port 0's LIDs above its base mended with
 * prov's walks. */
static void keep_switch_lids(struct keep *k)
{
	const struct ibr_fabric *f = k->f;

	for (uint32_t s = 0; s < f->num_switches; s++) {
		ibr_lid_t lid = ibr_switch_lid(f, s);
		unsigned lids = ibr_port_lid_count(ibr_port(f, f->sw_node[s], 0));

		for (unsigned j = 0; lid && j < lids; j++) {
			if (!has_old(k, lid + j))
				continue;
			map_column(k, lid + j);
			if (j == 0)
				ibr_repair_column_balanced(&k->rp, k->col,
					ibr_column(k->prov, lid), lid, false,
					NULL, k->load);
			else
				ibr_repair_column(&k->rp, k->col,
					ibr_column(k->prov, lid + j), lid + j,
					true);
			put(k, lid + j, k->col);
		}
	}
}

/* Every CA port's base column: first the flows of every walk that holds
 * (a new port's: prov's), then, in order, each one with a walk that does
 * not hold mended against that load. */
static void keep_base_columns(struct keep *k)
{
	const struct ibr_fabric *f = k->f;

	for (uint32_t i = 0; i < f->num_end_ports; i++) {
		uint32_t e = k->ep_order[i];
		ibr_lid_t lid = ibr_end_port_lid(f, e);

		k->mend[e] = false;
		if (!has_old(k, lid)) {
			ibr_repair_load(&k->rp, ibr_column(k->prov, lid), lid,
					k->weight, k->load);
			continue;
		}
		map_column(k, lid);
		k->mend[e] = ibr_repair_load(&k->rp, k->col, lid, k->weight,
					     k->load) != 0;
		if (!k->mend[e])
			put(k, lid, k->col);
	}
	for (uint32_t i = 0; i < f->num_end_ports; i++) {
		uint32_t e = k->ep_order[i];
		ibr_lid_t lid = ibr_end_port_lid(f, e);

		if (!k->mend[e])
			continue;
		map_column(k, lid);
		ibr_repair_column_balanced(&k->rp, k->col, ibr_column(k->prov, lid),
					   lid, false, k->weight, k->load);
		put(k, lid, k->col);
	}
}

/* The LIDs above every CA port's base (the base mended by now). */
static void keep_ranges(struct keep *k, bool ranges_as_base)
{
	const struct ibr_fabric *f = k->f;

	for (uint32_t i = 0; i < f->num_end_ports; i++) {
		uint32_t e = k->ep_order[i];
		const struct ibr_end_port *ep = &f->end_ports[e];
		const struct ibr_port *p = ibr_port(f, ep->node, ep->port);
		const uint8_t *base = ibr_column(k->prov, p->base_lid);

		for (unsigned j = 1; j < ibr_port_lid_count(p); j++) {
			ibr_lid_t lid = p->base_lid + j;
			if (ranges_as_base) {
				memcpy(ibr_column(k->prov, lid), base,
				       f->num_switches);
				if (has_old(k, lid))
					put(k, lid, ibr_column(k->prov, lid));
				continue;
			}
			if (!has_old(k, lid))
				continue;
			map_column(k, lid);
			ibr_repair_column_balanced(&k->rp, k->col, base, lid,
						   true, NULL, k->load);
			put(k, lid, k->col);
		}
	}
}

static void keep_free(struct keep *k)
{
	ibr_repair_free(&k->rp);
	ibr_walker_free(&k->w);
	free(k->from);
	free(k->sw_order);
	free(k->ep_order);
	free(k->weight);
	free(k->load);
	free(k->mend);
	free(k->col);
}

static int keep_init(struct keep *k, const struct ibr_updown *ud,
		     const uint64_t *old_guid, uint32_t old_switches,
		     struct ibr_error *err)
{
	const struct ibr_fabric *f = k->f;
	uint32_t S = f->num_switches ? f->num_switches : 1;
	uint32_t E = f->num_end_ports ? f->num_end_ports : 1;
	uint32_t links = f->sw_adj_start[f->num_switches];

	if (ibr_walker_init(&k->w, f, err) ||
	    ibr_repair_init(&k->rp, f, ud, &k->w, err))
		return -1;
	k->from = malloc(S * sizeof(uint32_t));
	k->sw_order = malloc(S * sizeof(uint32_t));
	k->ep_order = malloc(E * sizeof(uint32_t));
	k->weight = malloc(S * sizeof(uint32_t));
	k->load = calloc(links ? links : 1, sizeof(uint64_t));
	k->mend = malloc(E * sizeof(bool));
	k->col = malloc(S);
	if (!k->from || !k->sw_order || !k->ep_order || !k->weight ||
	    !k->load || !k->mend || !k->col)
		return ibr_error_set(err, "transition: out of memory for %u "
				     "switches", f->num_switches);
	ibr_repair_orders(f, &k->w, k->sw_order, k->ep_order);
	k->rp.order = k->sw_order;
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
			struct ibr_result *prov, uint32_t *kept,
			struct ibr_error *err)
{
	struct keep k = { .f = f, .old = old, .prov = prov };
	int rc = -1;

	*kept = 0;
	if (old->num_switches != old_switches)
		return ibr_error_set(err, "transition: %u switch GUIDs for "
				     "tables of %u switches", old_switches,
				     old->num_switches);
	if (keep_init(&k, ud, old_guid, old_switches, err) == 0) {
		keep_switch_lids(&k);
		keep_base_columns(&k);
		keep_ranges(&k, ranges_as_base);
		*kept = k.kept;
		rc = 0;
	}
	keep_free(&k);
	return rc;
}
