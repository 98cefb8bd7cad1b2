/*
 * result.c - forwarding tables and the walks over them (see result.h).
 *
 * Invariant: lft has num_switches rows of lft_size entries; an entry is a
 * port number of that switch, 0 (the switch itself) or IBR_NO_PATH.
 * Nothing here trusts the tables: a walk reports what it meets.
 */
#include <stdlib.h>
#include <string.h>

#include "ibrouting/result.h"

int ibr_result_init(struct ibr_result *r, const struct ibr_fabric *f,
		    struct ibr_error *err)
{
	size_t n;

	memset(r, 0, sizeof(*r));
	r->num_switches = f->num_switches;
	r->lft_size = f->max_lid + 1u;
	n = (size_t)r->num_switches * r->lft_size;
	r->lft = malloc(n);
	if (!r->lft)
		return ibr_error_set(err, "out of memory: %zu bytes of LFTs", n);
	memset(r->lft, IBR_NO_PATH, n);
	r->root = IBR_NONE;
	return 0;
}

int ibr_result_alloc_defaults(struct ibr_result *r, struct ibr_error *err)
{
	size_t bits = (size_t)r->num_switches * ibr_explicit_stride(r);

	r->default_port = malloc(r->num_switches);
	r->explicit_bits = calloc((bits + 7) / 8, 1);
	if (!r->default_port || !r->explicit_bits)
		return ibr_error_set(err, "out of memory");
	memset(r->default_port, IBR_NO_PATH, r->num_switches);
	return 0;
}

int ibr_result_alloc_offsets(struct ibr_result *r, const struct ibr_fabric *f,
			     bool by_switch, struct ibr_error *err)
{
	size_t sources = by_switch ? f->num_switches : f->num_end_ports;

	r->offsets_by_switch = by_switch;
	r->dlid_offset = calloc(sources * f->num_end_ports, 1);
	if (!r->dlid_offset)
		return ibr_error_set(err, "out of memory: %zu DLID offsets",
				     sources * f->num_end_ports);
	return 0;
}

void ibr_result_free(struct ibr_result *r)
{
	free(r->lft);
	free(r->default_port);
	free(r->explicit_bits);
	free(r->dlid_offset);
	memset(r, 0, sizeof(*r));
}

ibr_lid_t ibr_result_designated_dlid(const struct ibr_result *r,
				     const struct ibr_fabric *f,
				     uint32_t src, uint32_t dst)
{
	ibr_lid_t base = ibr_end_port_lid(f, dst);
	size_t row;

	if (!r->dlid_offset)
		return base;
	row = r->offsets_by_switch ? f->end_ports[src].sw : src;
	return base + r->dlid_offset[row * f->num_end_ports + dst];
}

enum ibr_step ibr_lft_step(const struct ibr_fabric *f,
			   const struct ibr_result *r, uint32_t s,
			   ibr_lid_t lid, uint32_t *next)
{
	return ibr_port_step(f, s, lid, ibr_lft_row(r, s)[lid], next);
}

uint8_t *ibr_result_columns(const struct ibr_result *r)
{
	enum { B = 64 };
	uint32_t S = r->num_switches, L = r->lft_size;
	uint8_t *col = malloc((size_t)S * L);

	if (!col)
		return NULL;
	for (uint32_t s0 = 0; s0 < S; s0 += B)
		for (uint32_t l0 = 0; l0 < L; l0 += B) {
			uint32_t s1 = s0 + B < S ? s0 + B : S;
			uint32_t l1 = l0 + B < L ? l0 + B : L;
			for (uint32_t s = s0; s < s1; s++) {
				const uint8_t *row = ibr_lft_row(r, s);
				for (uint32_t lid = l0; lid < l1; lid++)
					col[(size_t)lid * S + s] = row[lid];
			}
		}
	return col;
}

void ibr_result_set_columns(struct ibr_result *r, const uint8_t *col)
{
	enum { B = 64 };
	uint32_t S = r->num_switches, L = r->lft_size;

	for (uint32_t l0 = 0; l0 < L; l0 += B)
		for (uint32_t s0 = 0; s0 < S; s0 += B) {
			uint32_t s1 = s0 + B < S ? s0 + B : S;
			uint32_t l1 = l0 + B < L ? l0 + B : L;
			for (uint32_t s = s0; s < s1; s++) {
				uint8_t *row = ibr_lft_row(r, s);
				for (uint32_t lid = l0; lid < l1; lid++)
					row[lid] = col[(size_t)lid * S + s];
			}
		}
}

enum ibr_step ibr_port_step(const struct ibr_fabric *f, uint32_t s,
			    ibr_lid_t lid, uint8_t port, uint32_t *next)
{
	const struct ibr_lid_owner *owner = &f->lid_owner[lid];
	uint32_t node = f->sw_node[s];
	const struct ibr_port *p;

	if (port == IBR_NO_PATH)
		return IBR_STEP_NO_PATH;
	if (port == 0)
		return owner->node == node ? IBR_STEP_ARRIVED : IBR_STEP_WRONG_END;
	if (port > f->nodes[node].num_ports)
		return IBR_STEP_BAD_PORT;
	p = ibr_port(f, node, port);
	if (p->remote_node == IBR_NONE)
		return IBR_STEP_BAD_PORT;
	if (f->nodes[p->remote_node].type == IBR_NODE_SWITCH) {
		*next = f->nodes[p->remote_node].sw_index;
		return IBR_STEP_NEXT;
	}
	return owner->node == p->remote_node && owner->port == p->remote_port ?
	       IBR_STEP_ARRIVED : IBR_STEP_WRONG_END;
}

#define HOPS_UNKNOWN 0xFE
#define HOPS_ON_STACK 0xFD

void ibr_result_hops_to(const struct ibr_result *r, const struct ibr_fabric *f,
			ibr_lid_t lid, uint8_t *hops)
{
	uint8_t *column = malloc(r->num_switches);

	if (!column) {
		memset(hops, UINT8_MAX, r->num_switches);
		return;
	}
	for (uint32_t s = 0; s < r->num_switches; s++)
		column[s] = lid < r->lft_size ? ibr_lft_row(r, s)[lid] : IBR_NO_PATH;
	ibr_hops_along(f, column, lid, hops);
	free(column);
}

void ibr_hops_along(const struct ibr_fabric *f, const uint8_t *column,
		    ibr_lid_t lid, uint8_t *hops)
{
	uint32_t S = f->num_switches;
	uint32_t *stack = malloc(S * sizeof(uint32_t));

	memset(hops, HOPS_UNKNOWN, S);
	if (!stack || lid > f->max_lid || f->lid_owner[lid].node == IBR_NONE) {
		memset(hops, UINT8_MAX, S);
		free(stack);
		return;
	}
	for (uint32_t start = 0; start < S; start++) {
		uint32_t depth = 0, s = start, next = 0;
		uint8_t tail;

		/* Walk until a switch whose count is known, then unwind. */
		while (hops[s] == HOPS_UNKNOWN) {
			enum ibr_step st = ibr_port_step(f, s, lid, column[s], &next);
			hops[s] = HOPS_ON_STACK;
			stack[depth++] = s;
			if (st != IBR_STEP_NEXT) {
				hops[s] = HOPS_UNKNOWN;
				depth--;
				break;
			}
			s = next;
		}
		if (hops[s] == HOPS_UNKNOWN) {
			/* the walk ended at s: delivered, or failed there */
			enum ibr_step st = ibr_port_step(f, s, lid, column[s], &next);
			bool at_switch = f->lid_owner[lid].node == f->sw_node[s];
			hops[s] = st != IBR_STEP_ARRIVED ? UINT8_MAX : at_switch ? 0 : 1;
		}
		/* HOPS_ON_STACK here means a loop: everything on it fails. */
		tail = hops[s] == HOPS_ON_STACK ? UINT8_MAX : hops[s];
		while (depth > 0) {
			uint32_t t = stack[--depth];
			if (tail != UINT8_MAX && tail < UINT8_MAX - 1)
				tail++;
			else
				tail = UINT8_MAX;
			hops[t] = tail;
		}
	}
	free(stack);
}
