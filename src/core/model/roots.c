/*
 * roots.c - the root chain and the automatic root choice (see roots.h).
 *
 * Why the top level of a fat tree: with one root, by default the SM's
 * switch (which hangs off a leaf in a real cluster), every other top
 * switch lies below the middle level, so every up*-down* route climbs to
 * that one corner and a fat tree loses most of its bisection bandwidth.
 * With the whole top level as roots the ranks are the tree's levels and
 * every up link of the tree points up: routes may climb through any top
 * switch, as OpenSM's updn does with the roots its own detection finds.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ibrouting/roots.h"
#include "ibrouting/topology.h"

static void pass_over(struct ibr_roots *out, uint64_t guid, const char *why,
		      const char *source)
{
	if (out->num_passed < IBR_ROOT_NOTES)
		out->passed[out->num_passed] = (struct ibr_root_note){
			.guid = guid, .why = why, .source = source };
	out->num_passed++;
}

static int set_single(struct ibr_roots *out, uint32_t s, struct ibr_error *err)
{
	out->sw = malloc(sizeof(uint32_t));
	if (!out->sw)
		return ibr_error_set(err, "out of memory");
	out->sw[0] = s;
	out->count = 1;
	return 0;
}

static int by_key(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* One packed key a switch: LID in the high half, index in the low; no
 * comparator state, so callers may run side by side. */
int ibr_switches_by_lid(const struct ibr_fabric *f, uint32_t *sw, uint32_t n,
			struct ibr_error *err)
{
	uint64_t *keys = malloc((n ? n : 1) * sizeof(uint64_t));

	if (!keys)
		return ibr_error_set(err, "out of memory for %u switches", n);
	for (uint32_t i = 0; i < n; i++)
		keys[i] = (uint64_t)ibr_switch_lid(f, sw[i]) << 32 | sw[i];
	qsort(keys, n, sizeof(uint64_t), by_key);
	for (uint32_t i = 0; i < n; i++)
		sw[i] = (uint32_t)keys[i];
	free(keys);
	return 0;
}

/* Link 1: the GUIDs of the set that are switches, no repeats, by LID. */
static int from_set(const struct ibr_fabric *f, const struct ibr_root_choice *c,
		    struct ibr_roots *out, struct ibr_error *err)
{
	uint8_t *taken = calloc(f->num_switches, 1);

	out->sw = malloc((c->set_len ? c->set_len : 1) * sizeof(uint32_t));
	if (!taken || !out->sw) {
		free(taken);
		return ibr_error_set(err, "out of memory for %u root GUIDs",
				     c->set_len);
	}
	for (uint32_t i = 0; i < c->set_len; i++) {
		const char *why = ibr_root_guid_unusable(f, c->set[i]);
		uint32_t s;
		if (why) {
			pass_over(out, c->set[i], why, c->set_source);
			continue;
		}
		s = f->nodes[ibr_fabric_find_guid(f, c->set[i])].sw_index;
		if (!taken[s])
			out->sw[out->count++] = s;
		taken[s] = 1;
	}
	free(taken);
	if (ibr_switches_by_lid(f, out->sw, out->count, err))
		return -1;
	if (out->count)
		snprintf(out->how, sizeof(out->how), "%s", c->set_source ?
			 c->set_source : "root set");
	return 0;
}

/* *kept: the prior root (c->prior_roots, one switch) when it still is a
 * switch of f whose eccentricity is at most one more than `root`'s (the
 * least), else IBR_NONE; *ecc, *least: the two eccentricities. */
static int prior_root(const struct ibr_fabric *f,
			 const struct ibr_root_choice *c, uint32_t root,
			 uint32_t *kept, uint32_t *ecc, uint32_t *least,
			 struct ibr_error *err)
{
	uint32_t n, s, *rank, *queue;

	*kept = IBR_NONE;
	if (c->prior_roots_len != 1 ||
	    ibr_root_guid_unusable(f, c->prior_roots[0]))
		return 0;
	n = ibr_fabric_find_guid(f, c->prior_roots[0]);
	s = f->nodes[n].sw_index;
	rank = malloc(f->num_switches * sizeof(uint32_t));
	queue = malloc(f->num_switches * sizeof(uint32_t));
	if (!rank || !queue) {
		free(rank);
		free(queue);
		return ibr_error_set(err, "out of memory for the prior root");
	}
	*ecc = ibr_bfs_from(f, &s, 1, rank, queue);
	*least = ibr_bfs_from(f, &root, 1, rank, queue);
	free(rank);
	free(queue);
	if (*ecc <= *least + 1)
		*kept = s;
	return 0;
}

static int from_strategy(const struct ibr_fabric *f,
			 const struct ibr_root_choice *c,
			 struct ibr_roots *out, struct ibr_error *err)
{
	enum ibr_root_strategy st = c->strategy;
	struct ibr_root_choice one = { .strategy = st };
	uint32_t root;
	struct ibr_root_load measured = { 0 };
	uint32_t kept = IBR_NONE, ecc = 0, least = 0;

	if (st == IBR_ROOT_AUTO) {
		struct ibr_topology *t = &out->topology;
		if (ibr_topology_recognise(f, t, err))
			return -1;
		out->recognised = true;
		if (t->num_roots) {
			out->sw = t->roots;
			out->count = t->num_roots;
			t->roots = NULL;
			t->num_roots = 0;
			if (t->kind == IBR_TOPO_FAT_TREE)
				snprintf(out->how, sizeof(out->how), "auto: the "
					 "top level of a %u-level fat tree",
					 t->levels);
			else
				snprintf(out->how, sizeof(out->how), "auto: the "
					 "spines of a Dragonfly+ of %u groups",
					 t->groups);
			return 0;
		}
	}
	/* the prior root first, against the least eccentricity (the
	 * centre's): kept, it needs no measure, so a re-route after a change
	 * does not pay for one */
	if (ibr_choose_root(f, &one, &root, err))
		return -1;
	if ((st == IBR_ROOT_AUTO || st == IBR_ROOT_CENTER) &&
	    prior_root(f, c, root, &kept, &ecc, &least, err))
		return -1;
	if (kept == IBR_NONE && st == IBR_ROOT_AUTO && f->num_switches > 2 &&
	    !c->unmeasured) {
		if (ibr_roots_least_loaded(f, IBR_ROOT_CANDIDATES, c->threads,
					   &measured, err))
			return -1;
		if (measured.tried)
			root = measured.root;
	}
	if (kept != IBR_NONE) {
		snprintf(out->how, sizeof(out->how), "%s: the prior root "
			 "(eccentricity %u, the least %u)", st == IBR_ROOT_AUTO ?
			 "auto: irregular" : "center", ecc, least);
		return set_single(out, kept, err);
	}
	if (st == IBR_ROOT_AUTO && measured.tried)
		snprintf(out->how, sizeof(out->how), "auto: irregular, of the "
			 "%u most central switches the one whose routes load a "
			 "link least (%" PRIu64 " flows, %" PRIu64 " at the "
			 "centre)", measured.tried, measured.load,
			 measured.centre_load);
	else if (st == IBR_ROOT_AUTO && c->unmeasured)
		snprintf(out->how, sizeof(out->how), "auto: irregular, a "
			 "switch of minimum eccentricity (unmeasured: the engine "
			 "does not balance)");
	else if (st == IBR_ROOT_AUTO && f->num_switches > 2)
		snprintf(out->how, sizeof(out->how), "auto: irregular, a "
			 "switch of minimum eccentricity (too large a fabric to "
			 "measure candidates)");
	else if (st == IBR_ROOT_AUTO)
		snprintf(out->how, sizeof(out->how), "auto: irregular, a "
			 "switch of minimum eccentricity");
	else if (st == IBR_ROOT_SM)
		snprintf(out->how, sizeof(out->how), "the SM's switch, else "
			 "the lowest LID");
	else
		snprintf(out->how, sizeof(out->how), "%s",
			 ibr_root_strategy_name(st));
	return set_single(out, root, err);
}

int ibr_roots_resolve(const struct ibr_fabric *f,
		      const struct ibr_root_choice *c, struct ibr_roots *out,
		      struct ibr_error *err)
{
	static const struct ibr_root_choice none = { .strategy = IBR_ROOT_AUTO };
	bool refuse;

	memset(out, 0, sizeof(*out));
	if (!c)
		c = &none;
	refuse = c->fallback == IBR_ROOT_FALLBACK_REFUSE;
	if (c->set_unreadable) {
		if (refuse)
			return ibr_error_set(err, "cannot read %s (root_fallback "
					     "refuse)", c->set_source);
		pass_over(out, 0, "cannot be read", c->set_source);
	} else if (c->set_source || c->set_len) {
		if (from_set(f, c, out, err))
			return -1;
		if (out->count)
			return 0;
		free(out->sw);
		out->sw = NULL;
		if (refuse && out->num_passed)
			return ibr_error_set(err, "root GUID 0x%016" PRIx64 " of %s "
					     "%s (root_fallback refuse)",
					     out->passed[0].guid, c->set_source,
					     out->passed[0].why);
		if (refuse)
			return ibr_error_set(err, "%s lists no GUID (root_fallback "
					     "refuse)", c->set_source);
		if (!out->num_passed)
			pass_over(out, 0, "lists no GUID", c->set_source);
	}
	if (c->guid) {
		const char *why = ibr_root_guid_unusable(f, c->guid);
		const char *source = c->guid_source ? c->guid_source : "root";
		if (!why) {
			snprintf(out->how, sizeof(out->how), "%s", source);
			return set_single(out, f->nodes[ibr_fabric_find_guid(
					  f, c->guid)].sw_index, err);
		}
		if (refuse)
			return ibr_error_set(err, "root GUID 0x%016" PRIx64 " of %s "
					     "%s (root_fallback refuse)", c->guid,
					     source, why);
		pass_over(out, c->guid, why, source);
	}
	return from_strategy(f, c, out, err);
}

void ibr_roots_free(struct ibr_roots *r)
{
	ibr_topology_free(&r->topology);
	free(r->sw);
	r->sw = NULL;
	r->count = 0;
}

/* ---- do the roots serve the hosts? ------------------------------------- */

uint32_t ibr_sm_switch(const struct ibr_fabric *f)
{
	return f->sm_node == IBR_NONE ? IBR_NONE :
	       ibr_port_switch(f, f->sm_node, f->sm_port);
}

static int by_climb_set(const void *a, const void *b, void *cxt)
{
	const struct ibr_climb *cl = cxt;

	return memcmp(cl->bits + (size_t)*(const uint32_t *)a * cl->words,
		      cl->bits + (size_t)*(const uint32_t *)b * cl->words,
		      cl->words * sizeof(uint64_t));
}

/* Host switches with no legal route between them: the first such pair
 * and how many pairs.  Hosts with equal climb sets meet alike: only
 * distinct sets are compared, each pair weighted by the switches that
 * share each set. */
static void hosts_apart(const struct ibr_climb *cl, uint32_t *host,
			uint32_t n, struct ibr_roots_reach *out)
{
	uint32_t distinct = 0;
	uint32_t *weight = host + n; /* n more entries, the caller's */

	qsort_r(host, n, sizeof(uint32_t), by_climb_set, (void *)cl);
	for (uint32_t i = 0; i < n; i++) {
		if (i == 0 || by_climb_set(&host[i - 1], &host[i], (void *)cl)) {
			host[distinct] = host[i];
			weight[distinct++] = 0;
		}
		weight[distinct - 1]++;
	}
	for (uint32_t i = 0; i < distinct; i++)
		for (uint32_t j = i; j < distinct; j++)
			if (!ibr_climb_meet(cl, host[i], host[j])) {
				if (!out->hosts_apart) {
					out->hosts_apart = true;
					out->a = host[i];
					out->b = host[j];
				}
				out->apart_pairs += i == j ?
					(uint64_t)weight[i] * (weight[i] - 1) / 2 :
					(uint64_t)weight[i] * weight[j];
			}
}

int ibr_roots_check_reach(const struct ibr_fabric *f,
			  const struct ibr_updown *ud, bool *keep,
			  struct ibr_roots_reach *out, struct ibr_error *err)
{
	uint32_t S = f->num_switches, hosts = 0, sm = IBR_NONE;
	uint32_t *host = malloc((S ? S : 1) * 2 * sizeof(uint32_t));
	uint32_t *count = malloc((S ? S : 1) * sizeof(uint32_t));
	uint32_t *cover = NULL;
	struct ibr_climb cl;

	memset(out, 0, sizeof(*out));
	/* the SM on a host: the switches' traps go to its CA, below its
	 * switch (an SM on a switch's port 0, as ibsim runs it, is that
	 * switch: no root descends to another root) */
	if (f->sm_node != IBR_NONE && f->nodes[f->sm_node].type == IBR_NODE_CA)
		sm = ibr_sm_switch(f);
	if (!host || !count || ibr_climb_build(f, ud, &cl, err)) {
		bool oom = !host || !count;
		free(host);
		free(count);
		return oom ? ibr_error_set(err, "out of memory") : -1;
	}
	cover = calloc(cl.num_sinks ? cl.num_sinks : 1, sizeof(uint32_t));
	if (!cover) {
		free(host);
		free(count);
		ibr_climb_free(&cl);
		return ibr_error_set(err, "out of memory for %u sinks",
				     cl.num_sinks);
	}
	/* a sink reaches h going down exactly when h climbs to it;
	 * aggregation nodes do not make a switch a host switch
	 * (topology.h) */
	ibr_switch_hosts(f, count);
	for (uint32_t h = 0; h < S; h++) {
		const uint64_t *bits = cl.bits + (size_t)h * cl.words;
		if (count[h] == 0)
			continue;
		host[hosts++] = h;
		for (uint32_t b = 0; b < cl.num_sinks; b++)
			cover[b] += bits[b / 64] >> (b % 64) & 1;
	}
	for (uint32_t i = 0; i < ud->num_roots; i++) {
		uint32_t b = cl.sink_bit[ud->roots[i]];
		keep[i] = b == IBR_NONE || sm == IBR_NONE ||
			  (cl.bits[(size_t)sm * cl.words + b / 64] >> (b % 64) & 1);
		out->kept += keep[i];
		if (b != IBR_NONE && cover[b] < hosts) {
			out->unreached += hosts - cover[b];
			out->roots_unreaching++;
		}
	}
	hosts_apart(&cl, host, hosts, out);
	free(cover);
	free(host);
	free(count);
	ibr_climb_free(&cl);
	return 0;
}

const char *ibr_roots_format(const struct ibr_fabric *f, const uint32_t *sw,
			     uint32_t count, unsigned named, char *buf,
			     size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (uint32_t i = 0; i < count && i < named && used < len; i++)
		used += snprintf(buf + used, len - used, "%s0x%016" PRIx64,
				 i ? ", " : "", ibr_switch(f, sw[i])->guid);
	if (count > named && used < len)
		snprintf(buf + used, len - used, " and %u more", count - named);
	return buf;
}
