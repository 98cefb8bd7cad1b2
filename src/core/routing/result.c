/*
 * result.c - tables by destination, designated DLIDs, engine figures
 * (see result.h).
 *
 * Invariant: col holds num_lids columns of num_switches entries; an entry
 * is a port number of its switch, 0 (the switch itself) or IBR_NO_PATH.
 * The designated map, when present, has one offset per (source row,
 * destination end port), each below the destination's 2^LMC LIDs.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ibrouting/result.h"

int ibr_result_init(struct ibr_result *r, const struct ibr_fabric *f,
		    struct ibr_error *err)
{
	size_t n;

	memset(r, 0, sizeof(*r));
	r->num_switches = f->num_switches;
	r->num_lids = f->max_lid + 1u;
	r->root = IBR_NONE;
	n = (size_t)r->num_switches * r->num_lids;
	r->col = malloc(n ? n : 1);
	if (!r->col)
		return ibr_error_set(err, "out of memory: %zu bytes of tables", n);
	memset(r->col, IBR_NO_PATH, n);
	return 0;
}

void ibr_result_free(struct ibr_result *r)
{
	free(r->col);
	free(r->designated.offset);
	free(r->roots);
	memset(r, 0, sizeof(*r));
}

int ibr_result_set_roots(struct ibr_result *r, const uint32_t *roots,
			 uint32_t n, struct ibr_error *err)
{
	uint32_t *copy = malloc((n ? n : 1) * sizeof(uint32_t));

	if (!copy)
		return ibr_error_set(err, "out of memory for %u roots", n);
	if (n)
		memcpy(copy, roots, n * sizeof(uint32_t));
	free(r->roots);
	r->roots = copy;
	r->num_roots = n;
	r->root = n ? roots[0] : IBR_NONE;
	return 0;
}

int ibr_updown_of_result(const struct ibr_fabric *f, const struct ibr_result *r,
			 struct ibr_updown *ud, struct ibr_error *err)
{
	if (r->roots && r->num_roots)
		return ibr_updown_build_set(f, r->roots, r->num_roots, ud, err);
	if (r->root >= f->num_switches)
		return ibr_error_set(err, "the tables name no root switch");
	return ibr_updown_build(f, r->root, ud, err);
}

int ibr_result_copy(struct ibr_result *dst, const struct ibr_result *src,
		    struct ibr_error *err)
{
	size_t n = (size_t)src->num_switches * src->num_lids;
	size_t d = (size_t)src->designated.rows * src->designated.cols;

	*dst = *src;
	dst->col = malloc(n ? n : 1);
	dst->designated.offset = src->designated.offset ? malloc(d ? d : 1) : NULL;
	dst->roots = src->roots ? malloc((src->num_roots ? src->num_roots : 1) *
					 sizeof(uint32_t)) : NULL;
	if (!dst->col || (src->designated.offset && !dst->designated.offset) ||
	    (src->roots && !dst->roots)) {
		free(dst->col);
		free(dst->designated.offset);
		free(dst->roots);
		memset(dst, 0, sizeof(*dst));
		return ibr_error_set(err, "out of memory: %zu bytes of tables", n + d);
	}
	memcpy(dst->col, src->col, n);
	if (d && src->designated.offset)
		memcpy(dst->designated.offset, src->designated.offset, d);
	if (src->roots && src->num_roots)
		memcpy(dst->roots, src->roots, src->num_roots * sizeof(uint32_t));
	return 0;
}

void ibr_result_rows(const struct ibr_result *r, uint8_t *const *rows,
		     const uint32_t *row_len)
{
	enum { B = 64 };
	uint32_t S = r->num_switches, L = r->num_lids;

	for (uint32_t s0 = 0; s0 < S; s0 += B) {
		uint32_t s1 = s0 + B < S ? s0 + B : S;
		for (uint32_t l0 = 0; l0 < L; l0 += B) {
			uint32_t l1 = l0 + B < L ? l0 + B : L;
			for (uint32_t s = s0; s < s1; s++) {
				uint32_t end = l1 < row_len[s] ? l1 : row_len[s];
				for (uint32_t lid = l0; lid < end; lid++)
					rows[s][lid] = r->col[(size_t)lid * S + s];
			}
		}
	}
}

int ibr_designated_init(struct ibr_result *r, const struct ibr_fabric *f,
			bool by_switch, struct ibr_error *err)
{
	struct ibr_designated *d = &r->designated;
	size_t n;

	free(d->offset);
	d->by_switch = by_switch;
	d->rows = by_switch ? f->num_switches : f->num_end_ports;
	d->cols = f->num_end_ports;
	n = (size_t)d->rows * d->cols;
	d->offset = calloc(n ? n : 1, 1);
	if (!d->offset)
		return ibr_error_set(err, "out of memory: %zu designated DLIDs", n);
	return 0;
}

void ibr_stat_count(struct ibr_result *r, const char *one, const char *name,
		    uint64_t value)
{
	struct ibr_stats *st = &r->stats;

	for (unsigned i = 0; i < st->count; i++)
		if (strcmp(st->item[i].name, name) == 0) {
			st->item[i].one = one;
			st->item[i].value = value;
			return;
		}
	if (st->count < IBR_MAX_STATS)
		st->item[st->count++] = (struct ibr_stat){ name, one, value };
}

void ibr_stat_set(struct ibr_result *r, const char *name, uint64_t value)
{
	ibr_stat_count(r, NULL, name, value);
}

uint64_t ibr_stat_get(const struct ibr_result *r, const char *name,
		      uint64_t missing)
{
	for (unsigned i = 0; i < r->stats.count; i++)
		if (strcmp(r->stats.item[i].name, name) == 0)
			return r->stats.item[i].value;
	return missing;
}

void ibr_phase_add(struct ibr_result *r, const char *name, double ms)
{
	struct ibr_stats *st = &r->stats;
	unsigned i = 0;

	while (i < st->phases && strcmp(st->phase[i].name, name) != 0)
		i++;
	if (i == IBR_MAX_PHASES)
		return;
	if (i == st->phases)
		st->phase[st->phases++] = (struct ibr_phase){ name, 0.0 };
	st->phase[i].ms += ms;
}

/* Appends printf(fmt, ...) to buf (len bytes, *used of them taken),
 * truncated at its end; false once it is full. */
static bool append(char *buf, size_t len, size_t *used, const char *fmt,
		   ...)
{
	va_list ap;
	int n;

	if (*used >= len)
		return false;
	va_start(ap, fmt);
	n = vsnprintf(buf + *used, len - *used, fmt, ap);
	va_end(ap);
	if (n < 0)
		return false;
	*used += (size_t)n;
	return *used < len;
}

const char *ibr_phases_format(const struct ibr_result *r, char *buf,
			      size_t len)
{
	size_t used = 0;

	if (len)
		buf[0] = '\0';
	for (unsigned i = 0; i < r->stats.phases; i++)
		if (!append(buf, len, &used, "%s%s %.1f ms", i ? "; " : "",
			    r->stats.phase[i].name, r->stats.phase[i].ms))
			break;
	return buf;
}

const char *ibr_stats_format(const struct ibr_result *r, char *buf,
			     size_t len)
{
	size_t used = 0;

	if (len)
		buf[0] = '\0';
	for (unsigned i = 0; i < r->stats.count; i++) {
		const struct ibr_stat *s = &r->stats.item[i];
		if (!append(buf, len, &used, "%s%llu %s", i ? ", " : "",
			    (unsigned long long)s->value,
			    s->value == 1 && s->one ? s->one : s->name))
			break;
	}
	return buf;
}

void ibr_result_difference(const struct ibr_result *a,
			   const struct ibr_result *b, uint64_t *entries,
			   uint64_t *blocks)
{
	uint64_t n = 0, nb = 0;

	for (uint32_t s = 0; s < a->num_switches; s++)
		for (uint32_t first = 0; first < a->num_lids;
		     first += IBR_LFT_BLOCK) {
			uint64_t in_block = 0;
			for (uint32_t l = first; l < a->num_lids &&
			     l < first + IBR_LFT_BLOCK; l++)
				in_block += ibr_entry(a, s, l) != ibr_entry(b, s, l);
			n += in_block;
			nb += in_block > 0;
		}
	*entries = n;
	if (blocks)
		*blocks = nb;
}

int ibr_result_onto(const struct ibr_result *r, const uint64_t *guid,
		    const struct ibr_fabric *f, struct ibr_result *out,
		    struct ibr_error *err)
{
	uint32_t lids = r->num_lids < f->max_lid + 1u ? r->num_lids :
			f->max_lid + 1u, *roots, n = 0;
	int rc;

	if (ibr_result_init(out, f, err))
		return -1;
	for (uint32_t i = 0; i < r->num_switches; i++) {
		uint32_t node = ibr_fabric_find_guid(f, guid[i]), s;
		if (node == IBR_NONE || f->nodes[node].type != IBR_NODE_SWITCH)
			continue;
		s = f->nodes[node].sw_index;
		for (ibr_lid_t lid = 1; lid < lids; lid++)
			ibr_set_entry(out, s, lid, ibr_entry(r, i, lid));
	}
	roots = malloc((r->num_roots ? r->num_roots : 1) * sizeof(*roots));
	if (!roots) {
		ibr_result_free(out);
		return ibr_error_set(err, "out of memory for %u roots",
				     r->num_roots);
	}
	for (uint32_t k = 0; k < r->num_roots; k++) {
		uint32_t node = ibr_fabric_find_guid(f, guid[r->roots[k]]);
		if (node != IBR_NONE && f->nodes[node].type == IBR_NODE_SWITCH)
			roots[n++] = f->nodes[node].sw_index;
	}
	rc = ibr_result_set_roots(out, roots, n, err);
	free(roots);
	if (rc)
		ibr_result_free(out);
	return rc;
}
