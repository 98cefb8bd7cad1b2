/*
 * double_scheme.c - LID halves, placing a function on its half, and the
 * check before the new half is pushed (double_scheme.h has the contract).
 *
 * Why the two dependency graphs are checked apart.  The paper (§2.1)
 * allows "dependencies to exist from one set of resources to the other
 * but not from both at any given time".  On IBA (§3) the sets are VL
 * sets reached through SL-to-VL tables, and a packet keeps its SL and its
 * DLID from source to destination, so a packet stays on the VL set of its
 * SL set and in the function of its DLID's half: while both functions
 * carry traffic (after the SA switches to the new half, before the prior
 * function's VLs drain) no dependency joins the two sets.  The one-way dependencies
 * the paper allows appear only while SL-to-VL tables change, which they
 * do switch by switch: restricting the prior SLs moves packets of the prior function from
 * VL set B into set A (B -> A, prior function only, before any new packet
 * exists), restoring moves new packets onto every VL (new function only,
 * after the packets of the prior function are gone).  Each is one function over several
 * VLs: a cycle of its VL-tagged channels would project onto a cycle of
 * that function's own graph, acyclic by the check.  So the two graphs
 * below, each acyclic, are the whole proof; nothing is left to model
 * between them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ibrouting/double_scheme.h"

int ibr_ds_view(const struct ibr_fabric *f, unsigned half,
		struct ibr_fabric **view, struct ibr_error *err)
{
	struct ibr_fabric *v;

	*view = NULL;
	if (f->lmc < 1)
		return ibr_error_set(err, "the Double Scheme needs LMC >= 1 "
				     "(two halves of every port's LIDs); the "
				     "fabric has LMC 0");
	if (f->lmc_esp0)
		return ibr_error_set(err, "the Double Scheme does not split "
				     "switch LID ranges (lmc_esp0)");
	if (half > 1)
		return ibr_error_set(err, "no LID half %u (0 or 1)", half);
	v = ibr_fabric_new();
	if (!v || ibr_fabric_reserve(v, f->num_nodes, f->num_ports, err))
		goto fail;
	for (uint32_t i = 0; i < f->num_nodes; i++) {
		const struct ibr_node *n = &f->nodes[i];
		if (ibr_fabric_add_node(v, n->type, n->guid, n->num_ports,
					n->desc, n->origin, err) != i)
			goto fail;
	}
	for (uint32_t i = 0; i < f->num_nodes; i++)
		for (unsigned p = 0; p <= f->nodes[i].num_ports; p++) {
			const struct ibr_port *fp = ibr_port(f, i, p);
			struct ibr_port *vp = ibr_port(v, i, p);

			vp->guid = fp->guid;
			if (p > 0 && fp->remote_node != IBR_NONE &&
			    ibr_fabric_connect(v, i, p, fp->remote_node,
					       fp->remote_port, err))
				goto fail;
			if (!fp->base_lid)
				continue;
			if (f->nodes[i].type == IBR_NODE_SWITCH)
				ibr_fabric_set_lid(v, i, p, fp->base_lid, 0);
			else
				ibr_fabric_set_lid(v, i, p,
					ibr_ds_half_base(fp->base_lid, fp->lmc,
							 half),
					fp->lmc - 1u);
		}
	for (uint32_t i = 0; i < f->num_loopbacks; i++) {
		const struct ibr_loopback *l = &f->loopbacks[i];
		if (ibr_fabric_add_loopback(v, l->node, l->port, l->peer_port,
					    l->origin, err))
			goto fail;
	}
	v->sm_node = f->sm_node;
	v->sm_port = f->sm_port;
	v->lmc = f->lmc - 1u;
	if (ibr_fabric_index(v, err))
		goto fail;
	*view = v;
	return 0;
fail:
	if (!v)
		ibr_error_set(err, "out of memory for a LID half's view");
	ibr_fabric_free(v);
	return -1;
}

/* The two fabrics hold the same nodes, in the same order. */
static int same_nodes(const struct ibr_fabric *f, const struct ibr_fabric *view,
		      struct ibr_error *err)
{
	if (f->num_nodes != view->num_nodes ||
	    f->num_switches != view->num_switches ||
	    f->num_end_ports != view->num_end_ports)
		return ibr_error_set(err, "double scheme: the view has %u "
				     "nodes, %u switches, the fabric %u, %u",
				     view->num_nodes, view->num_switches,
				     f->num_nodes, f->num_switches);
	return 0;
}

/* How far the view's ranges sit above the fabric's: half * 2^(L-1). */
static unsigned half_shift(const struct ibr_fabric *f,
			   const struct ibr_fabric *view)
{
	for (uint32_t e = 0; e < f->num_end_ports; e++)
		return ibr_end_port_lid(view, e) - ibr_end_port_lid(f, e);
	return 0;
}

static bool owned_by_ca(const struct ibr_fabric *view, ibr_lid_t lid)
{
	uint32_t n = view->lid_owner[lid].node;

	return n != IBR_NONE && view->nodes[n].type == IBR_NODE_CA;
}

/* dst's designated map becomes src's, every offset + delta (mod 256: an
 * offset below the half's base wraps far outside it). */
static int shift_designated(struct ibr_result *dst, const struct ibr_fabric *f,
			    const struct ibr_result *src, int delta,
			    struct ibr_error *err)
{
	const struct ibr_designated *s = &src->designated;
	size_t n;

	if (!s->offset && delta == 0) {
		free(dst->designated.offset);
		memset(&dst->designated, 0, sizeof(dst->designated));
		return 0;
	}
	if (ibr_designated_init(dst, f, s->offset ? s->by_switch : false, err))
		return -1;
	n = (size_t)dst->designated.rows * dst->designated.cols;
	for (size_t i = 0; i < n; i++)
		dst->designated.offset[i] =
			(uint8_t)((s->offset ? s->offset[i] : 0) + delta);
	return 0;
}

int ibr_ds_place(const struct ibr_fabric *f, const struct ibr_fabric *view,
		 const struct ibr_result *hr, bool switch_lids,
		 struct ibr_result *out, struct ibr_error *err)
{
	uint32_t S = f->num_switches;

	if (same_nodes(f, view, err))
		return -1;
	if (out->num_switches != S || out->num_lids != f->max_lid + 1u ||
	    hr->num_switches != S || hr->num_lids != view->max_lid + 1u)
		return ibr_error_set(err, "double scheme: tables do not fit "
				     "the fabric and its view");
	for (uint32_t lid = 1; lid <= view->max_lid; lid++)
		if (owned_by_ca(view, (ibr_lid_t)lid) ||
		    (switch_lids && view->lid_owner[lid].node != IBR_NONE))
			memcpy(ibr_column(out, (ibr_lid_t)lid),
			       ibr_column(hr, (ibr_lid_t)lid), S);
	if (shift_designated(out, f, hr, (int)half_shift(f, view), err) ||
	    ibr_result_set_roots(out, hr->roots, hr->num_roots, err))
		return -1;
	out->stats = hr->stats;
	return 0;
}

void ibr_ds_mirror(const struct ibr_fabric *f, unsigned half,
		   struct ibr_result *full)
{
	unsigned n = f->lmc ? 1u << (f->lmc - 1) : 0;

	for (uint32_t e = 0; e < f->num_end_ports; e++) {
		ibr_lid_t base = ibr_end_port_lid(f, e);

		if (!base)
			continue;
		for (unsigned i = 0; i < n; i++) {
			ibr_lid_t from = ibr_ds_half_base(base, f->lmc, half) + i,
				  to = ibr_ds_half_base(base, f->lmc, 1 - half) + i;
			if (from < full->num_lids && to < full->num_lids)
				memcpy(ibr_column(full, to),
				       ibr_column(full, from),
				       full->num_switches);
		}
	}
}

int ibr_ds_extract(const struct ibr_fabric *f, const struct ibr_fabric *view,
		   const struct ibr_result *full, struct ibr_result *hr,
		   struct ibr_error *err)
{
	uint32_t S = f->num_switches;

	if (same_nodes(f, view, err))
		return -1;
	if (full->num_switches != S || full->num_lids != f->max_lid + 1u)
		return ibr_error_set(err, "double scheme: tables of %u x %u "
				     "for a fabric of %u x %u",
				     full->num_switches, full->num_lids, S,
				     f->max_lid + 1u);
	if (ibr_result_init(hr, view, err))
		return -1;
	for (uint32_t lid = 1; lid <= view->max_lid; lid++)
		if (view->lid_owner[lid].node != IBR_NONE)
			memcpy(ibr_column(hr, (ibr_lid_t)lid),
			       ibr_column(full, (ibr_lid_t)lid), S);
	if (shift_designated(hr, view, full, -(int)half_shift(f, view), err) ||
	    ibr_result_set_roots(hr, full->roots, full->num_roots, err)) {
		ibr_result_free(hr);
		return -1;
	}
	hr->stats = full->stats;
	return 0;
}

/* One function on its half's view: the verifier of every engine. */
static int check_half(const struct ibr_fabric *f, const struct ibr_result *r,
		      unsigned half, struct ibr_verify_report *rep,
		      struct ibr_error *err)
{
	const struct ibr_verify_options only = { .check_only = true };
	struct ibr_fabric *view;
	struct ibr_result hr;
	int rc;

	if (ibr_ds_view(f, half, &view, err))
		return -1;
	if (ibr_ds_extract(f, view, r, &hr, err)) {
		ibr_fabric_free(view);
		return -1;
	}
	rc = ibr_verify(view, &hr, &only, rep, err);
	ibr_result_free(&hr);
	ibr_fabric_free(view);
	return rc;
}

int ibr_ds_check(const struct ibr_fabric *prior_f, const struct ibr_result *prior_r,
		 unsigned prior_half, const struct ibr_fabric *new_f,
		 const struct ibr_result *new_r, struct ibr_ds_check *c,
		 struct ibr_error *err)
{
	memset(c, 0, sizeof(*c));
	c->prior_half = prior_half;
	if (prior_half > 1)
		return ibr_error_set(err, "no LID half %u (0 or 1)", prior_half);
	if (check_half(prior_f, prior_r, prior_half, &c->prior_rep, err) ||
	    check_half(new_f, new_r, 1 - prior_half, &c->new_rep, err))
		return -1;
	return 0;
}

const char *ibr_ds_check_finding(const struct ibr_ds_check *c, char *buf,
				 size_t len)
{
	const struct ibr_verify_report *rep = &c->prior_rep;
	bool prior = true;

	buf[0] = '\0';
	if (ibr_verify_findings(rep) == 0) {
		rep = &c->new_rep;
		prior = false;
	}
	if (ibr_verify_findings(rep) == 0)
		return buf;
	snprintf(buf, len, "the %s function (half %u, VL set %c): %s",
		 prior ? "prior" : "new", prior ? c->prior_half : 1 - c->prior_half,
		 prior ? 'A' : 'B',
		 rep->num_messages ? rep->messages[0] : "a finding");
	return buf;
}

double ibr_ds_drain_bound(uint64_t chain, unsigned packet_life)
{
	if (packet_life > IBR_DS_PACKET_LIFE_MAX)
		return -1.0;
	return (double)(chain + 1) * 4.096e-6 * (double)(1u << packet_life);
}

void ibr_ds_sl2vl(const uint8_t t[16], unsigned data_vls, bool restricted,
		  unsigned prior_half, uint8_t out[16])
{
	unsigned H = data_vls / 2;

	for (unsigned sl = 0; sl < 16; sl++) {
		uint8_t v = t[sl & 7];

		if (!restricted || H == 0) {
			out[sl] = t[sl];
			continue;
		}
		if (v == 15)
			out[sl] = 15;
		else
			out[sl] = (uint8_t)(v % H + ((sl >> 3) == prior_half ? 0 : H));
	}
}

bool ibr_ds_sl2vl_restricted(const uint8_t t[16], unsigned data_vls,
			     unsigned prior_half)
{
	unsigned H = data_vls / 2;

	if (H == 0)
		return false;
	for (unsigned sl = 0; sl < 16; sl++) {
		unsigned lo = (sl >> 3) == prior_half ? 0 : H;

		if (t[sl] != 15 && (t[sl] < lo || t[sl] >= lo + H))
			return false;
	}
	return true;
}
