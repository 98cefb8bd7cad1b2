/*
 * topology.c - recognising a fat tree, a Clos network or a Dragonfly+
 * (see topology.h for the classes, the tolerances and the invariants).
 *
 * Why the tolerances: a capture of a real cluster is never the textbook
 * graph.  NVIDIA's SuperPOD fabrics put an aggregation node on every
 * switch, so "the switches with CAs" is every switch; management leaves
 * hang off one spine; storage is cabled to a spine; a leaf whose hosts
 * are all down sits above a Clos like a top switch.  Each of these alone,
 * not tolerated, would turn `auto` into a single root, the worst choice
 * on a tree.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ibrouting/roots.h"
#include "ibrouting/topology.h"

static const char *const class_names[] = {
	[IBR_TOPO_FAT_TREE] = "fat tree",
	[IBR_TOPO_DRAGONFLY_PLUS] = "Dragonfly+",
	[IBR_TOPO_IRREGULAR] = "irregular",
};

const char *ibr_topology_class_name(enum ibr_topology_class kind)
{
	return class_names[kind];
}

/* strcasestr without _GNU_SOURCE: needle is lower case. */
static bool contains_lower(const char *hay, const char *needle)
{
	size_t n = strlen(needle);

	for (; *hay; hay++) {
		size_t i = 0;
		while (i < n && hay[i] && (hay[i] | 0x20) == needle[i])
			i++;
		if (i == n)
			return true;
	}
	return false;
}

bool ibr_is_aggregation_node(const struct ibr_node *n)
{
	return n->type == IBR_NODE_CA && contains_lower(n->desc,
							"aggregation node");
}

uint32_t ibr_switch_hosts(const struct ibr_fabric *f, uint32_t *hosts)
{
	uint32_t total = 0;

	for (uint32_t s = 0; s < f->num_switches; s++) {
		hosts[s] = 0;
		for (uint32_t i = f->sw_ca_start[s]; i < f->sw_ca_start[s + 1]; i++)
			if (!ibr_is_aggregation_node(
				    &f->nodes[f->end_ports[f->sw_cas[i]].node]))
				hosts[s]++;
		total += hosts[s];
	}
	return total;
}

/* Scratch of one recognition. */
struct recog {
	const struct ibr_fabric *f;
	struct ibr_topology *t;
	uint32_t S;
	uint32_t *hosts;        /* per switch */
	uint32_t total_hosts;
	uint8_t *core;          /* the structure tested: the main block */
	uint8_t *aside;         /* set aside above the top level */
	uint8_t *leaf;
	uint32_t *level;        /* distance to the nearest leaf, in the core */
	uint32_t *queue;
	uint32_t *list;         /* S entries of scratch */
};

static void note(struct recog *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void note(struct recog *r, const char *fmt, ...)
{
	struct ibr_topology *t = r->t;
	va_list ap;

	if (t->num_notes == IBR_TOPO_NOTES)
		return;
	va_start(ap, fmt);
	vsnprintf(t->notes[t->num_notes++], sizeof(t->notes[0]), fmt, ap);
	va_end(ap);
}

/* "0x..., 0x... and N more": the first switches of list (LID order). */
static const char *name_switches(struct recog *r, uint32_t *list, uint32_t n,
				 char *buf, size_t len)
{
	struct ibr_error err;

	if (ibr_switches_by_lid(r->f, list, n, &err))
		n = n < 2 ? n : 2; /* out of memory: unsorted, fewer */
	return ibr_roots_format(r->f, list, n, 2, buf, len);
}

/* ---- the main block ------------------------------------------------------ */

struct frame {
	uint32_t v, parent, next;
};

/* Marks r->core: the biconnected block of the switch graph with the most
 * hosts (then the most switches, then the lowest LID), found by Tarjan's
 * depth-first search, iteratively: a fabric may have 65536 switches. */
static int main_block(struct recog *r, struct ibr_error *err)
{
	const struct ibr_fabric *f = r->f;
	uint32_t S = r->S, clock = 0, depth = 0, top = 0;
	uint32_t *disc = calloc(S, sizeof(uint32_t));
	uint32_t *low = malloc(S * sizeof(uint32_t));
	uint32_t *stack = malloc(S * sizeof(uint32_t));
	struct frame *fr = malloc(S * sizeof(struct frame));
	uint64_t best_hosts = 0;
	uint32_t best_size = 0, best_lid = 0;
	int rc = 0;

	if (!disc || !low || !stack || !fr) {
		rc = ibr_error_set(err, "out of memory for %u switches", S);
		goto out;
	}
	if (S == 1) {
		r->core[0] = 1;
		goto out;
	}
	disc[0] = low[0] = ++clock;
	stack[top++] = 0;
	fr[depth++] = (struct frame){ 0, IBR_NONE, f->sw_adj_start[0] };
	while (depth) {
		struct frame *x = &fr[depth - 1];
		uint32_t v = x->v;
		if (x->next < f->sw_adj_start[v + 1]) {
			uint32_t w = f->sw_adj[x->next++].peer;
			if (w == x->parent)
				continue;
			if (disc[w]) {
				if (disc[w] < low[v])
					low[v] = disc[w];
				continue;
			}
			disc[w] = low[w] = ++clock;
			stack[top++] = w;
			fr[depth++] = (struct frame){ w, v, f->sw_adj_start[w] };
			continue;
		}
		if (--depth == 0)
			break;
		{
			uint32_t p = fr[depth - 1].v, n = 0, lid, from = top;
			uint64_t h;
			if (low[v] < low[p])
				low[p] = low[v];
			if (low[v] < disc[p])
				continue;
			/* a block: the stack down to v, and p */
			while (stack[--from] != v)
				;
			h = r->hosts[p];
			lid = ibr_switch_lid(f, p);
			for (uint32_t i = from; i < top; i++) {
				h += r->hosts[stack[i]];
				if (ibr_switch_lid(f, stack[i]) < lid)
					lid = ibr_switch_lid(f, stack[i]);
			}
			n = top - from + 1;
			if (h > best_hosts || (h == best_hosts &&
			    (n > best_size || (n == best_size && lid < best_lid)))) {
				best_hosts = h;
				best_size = n;
				best_lid = lid;
				memset(r->core, 0, S);
				r->core[p] = 1;
				for (uint32_t i = from; i < top; i++)
					r->core[stack[i]] = 1;
			}
			top = from;
		}
	}
out:
	free(disc);
	free(low);
	free(stack);
	free(fr);
	return rc;
}

/* Notes the switches outside the core that are not set aside above it:
 * they hang off the structure by one switch. */
static void note_hanging(struct recog *r)
{
	uint32_t n = 0, hosts = 0;
	char names[64];

	for (uint32_t s = 0; s < r->S; s++)
		if (!r->core[s] && !r->aside[s]) {
			r->list[n++] = s;
			hosts += r->hosts[s];
		}
	if (n)
		note(r, "%u switch%s with %u host port%s hang%s off the "
		     "structure by one switch (%s): routed, not part of the "
		     "levels", n, n == 1 ? "" : "es", hosts, hosts == 1 ? "" :
		     "s", n == 1 ? "s" : "", name_switches(r, r->list, n, names,
							   sizeof(names)));
}

/* ---- leaves -------------------------------------------------------------- */

/* Links from s to core switches marked in `set`. */
static uint32_t links_into(const struct recog *r, uint32_t s,
			   const uint8_t *set)
{
	const struct ibr_fabric *f = r->f;
	uint32_t n = 0;

	for (uint32_t i = f->sw_adj_start[s]; i < f->sw_adj_start[s + 1]; i++)
		n += r->core[f->sw_adj[i].peer] && set[f->sw_adj[i].peer];
	return n;
}

static int by_count(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* The fewest hosts a leaf is taken to have at first: a quarter of the
 * median over the core switches with hosts (at least one), so that a
 * few storage ports on a top switch do not make it a leaf. */
static uint32_t leaf_threshold(struct recog *r)
{
	uint32_t n = 0, median;

	for (uint32_t s = 0; s < r->S; s++)
		if (r->core[s] && r->hosts[s])
			r->list[n++] = r->hosts[s];
	if (n == 0)
		return 1;
	qsort(r->list, n, sizeof(uint32_t), by_count);
	median = r->list[n / 2];
	return median / 2 > 1 ? median / 2 : 1;
}

/* r->leaf, first: the core switches with at least leaf_threshold()
 * hosts, less those above the leaves (see topology.h).  False when those
 * would hold over a quarter of the hosts (or more than 256 switches):
 * the hosts are not on leaves. */
static bool choose_leaves(struct recog *r)
{
	const struct ibr_fabric *f = r->f;
	uint32_t moved = 0, moved_hosts = 0, core_hosts = 0;
	uint32_t least = leaf_threshold(r);

	for (uint32_t s = 0; s < r->S; s++) {
		r->leaf[s] = r->core[s] && r->hosts[s] >= least;
		core_hosts += r->leaf[s] ? r->hosts[s] : 0;
	}
	for (;;) {
		uint32_t best = IBR_NONE, best_links = 0;
		for (uint32_t s = 0; s < r->S; s++) {
			uint32_t k;
			if (!r->leaf[s] || (k = links_into(r, s, r->leaf)) == 0)
				continue;
			if (best == IBR_NONE || k > best_links ||
			    (k == best_links && (r->hosts[s] < r->hosts[best] ||
			     (r->hosts[s] == r->hosts[best] &&
			      ibr_switch_lid(f, s) > ibr_switch_lid(f, best))))) {
				best = s;
				best_links = k;
			}
		}
		if (best == IBR_NONE)
			break;
		r->leaf[best] = 0;
		moved++;
		moved_hosts += r->hosts[best];
		if (moved_hosts * 4 > core_hosts || moved > 256)
			return false;
	}
	return true;
}

/* Notes the hosts on core switches that are not leaves. */
static void note_hosts_above(struct recog *r)
{
	uint32_t n = 0, hosts = 0;
	char names[64];

	for (uint32_t s = 0; s < r->S; s++)
		if (r->core[s] && !r->leaf[s] && r->hosts[s]) {
			r->list[n++] = s;
			hosts += r->hosts[s];
		}
	if (n)
		note(r, "%u host port%s on %u switch%s above the leaves (%s): "
		     "routed there, the switch%s keep%s %s level", hosts,
		     hosts == 1 ? "" : "s", n, n == 1 ? "" : "es",
		     name_switches(r, r->list, n, names, sizeof(names)),
		     n == 1 ? "" : "es", n == 1 ? "s" : "",
		     n == 1 ? "its" : "their");
}

/* Marks as leaves the other core switches that are linked as a leaf is:
 * at least three quarters of their neighbours are neighbours of one
 * leaf (a leaf whose hosts are down or not yet cabled, or with fewer
 * hosts than leaf_threshold(); a spine or a top switch shares no
 * neighbour, or few, with a leaf).  0, or -1 when out of memory. */
static int add_empty_leaves(struct recog *r, struct ibr_error *err)
{
	const struct ibr_fabric *f = r->f;
	uint32_t S = r->S, n = 0, stamp = 0;
	uint32_t *seen = calloc(S, sizeof(uint32_t));  /* e's neighbours */
	uint32_t *met = calloc(S, sizeof(uint32_t));   /* leaves met for e */
	uint32_t *via = malloc(S * sizeof(uint32_t));  /* a leaf's last x */
	uint32_t *common = malloc(S * sizeof(uint32_t));
	uint8_t *empty = calloc(S, 1);
	char names[64];

	if (!seen || !met || !via || !common || !empty) {
		free(seen);
		free(met);
		free(via);
		free(common);
		free(empty);
		return ibr_error_set(err, "out of memory for %u switches", S);
	}
	for (uint32_t e = 0; e < S; e++) {
		uint32_t degree = 0, best = 0;
		if (!r->core[e] || r->leaf[e])
			continue;
		stamp++;
		for (uint32_t i = f->sw_adj_start[e]; i < f->sw_adj_start[e + 1]; i++) {
			uint32_t x = f->sw_adj[i].peer;
			if (!r->core[x] || seen[x] == stamp)
				continue; /* a parallel link: x counted */
			seen[x] = stamp;
			degree++;
			for (uint32_t j = f->sw_adj_start[x]; j < f->sw_adj_start[x + 1]; j++) {
				uint32_t l = f->sw_adj[j].peer;
				if (!r->leaf[l])
					continue;
				if (met[l] != stamp) {
					met[l] = stamp;
					common[l] = 0;
					via[l] = IBR_NONE;
				}
				if (via[l] != x) { /* once per x */
					via[l] = x;
					if (++common[l] > best)
						best = common[l];
				}
			}
		}
		empty[e] = degree && best * 4 >= degree * 3;
	}
	for (uint32_t s = 0; s < S; s++)
		if (empty[s]) {
			r->leaf[s] = 1;
			if (!r->hosts[s])
				r->list[n++] = s;
		}
	if (n)
		note(r, "%u switch%s without hosts linked as leaves are (%s): "
		     "taken for leaves", n, n == 1 ? "" : "es",
		     name_switches(r, r->list, n, names, sizeof(names)));
	free(seen);
	free(met);
	free(via);
	free(common);
	free(empty);
	return 0;
}

/* ---- fat tree ------------------------------------------------------------ */

/* dist[s]: distance within the core from the marked switches (UINT32_MAX
 * if unreached); returns the largest distance reached. */
static uint32_t core_bfs(struct recog *r, const uint8_t *from, uint32_t *dist)
{
	const struct ibr_fabric *f = r->f;
	uint32_t head = 0, tail = 0, far = 0;

	for (uint32_t s = 0; s < r->S; s++) {
		dist[s] = UINT32_MAX;
		if (r->core[s] && from[s]) {
			dist[s] = 0;
			r->queue[tail++] = s;
		}
	}
	while (head < tail) {
		uint32_t s = r->queue[head++];
		for (uint32_t i = f->sw_adj_start[s]; i < f->sw_adj_start[s + 1]; i++) {
			uint32_t t = f->sw_adj[i].peer;
			if (!r->core[t] || dist[t] != UINT32_MAX)
				continue;
			dist[t] = dist[s] + 1;
			far = dist[t];
			r->queue[tail++] = t;
		}
	}
	return far;
}

/* Core links between level k and k + 1, each counted once. */
static uint64_t links_between(const struct recog *r, uint32_t k)
{
	const struct ibr_fabric *f = r->f;
	uint64_t n = 0;

	for (uint32_t s = 0; s < r->S; s++)
		if (r->core[s] && r->level[s] == k)
			for (uint32_t i = f->sw_adj_start[s];
			     i < f->sw_adj_start[s + 1]; i++)
				n += r->core[f->sw_adj[i].peer] &&
				     r->level[f->sw_adj[i].peer] == k + 1;
	return n;
}

static bool layered(const struct recog *r)
{
	const struct ibr_fabric *f = r->f;

	for (uint32_t s = 0; s < r->S; s++) {
		if (!r->core[s])
			continue;
		if (r->level[s] == UINT32_MAX)
			return false;
		for (uint32_t i = f->sw_adj_start[s]; i < f->sw_adj_start[s + 1]; i++) {
			uint32_t t = f->sw_adj[i].peer;
			if (r->core[t] && r->level[t] != r->level[s] + 1 &&
			    r->level[s] != r->level[t] + 1)
				return false;
		}
	}
	return true;
}

static int take_roots(struct recog *r, const uint8_t *is_root,
		      struct ibr_error *err)
{
	struct ibr_topology *t = r->t;
	uint32_t n = 0;

	for (uint32_t s = 0; s < r->S; s++)
		n += is_root[s];
	t->roots = malloc((n ? n : 1) * sizeof(uint32_t));
	if (!t->roots)
		return ibr_error_set(err, "out of memory for %u roots", n);
	for (uint32_t s = 0; s < r->S; s++)
		if (is_root[s])
			t->roots[t->num_roots++] = s;
	return ibr_switches_by_lid(r->f, t->roots, t->num_roots, err);
}

/* 1: a fat tree, its roots taken; 0: not one; -1: out of memory. */
static int fat_tree(struct recog *r, uint8_t *top, uint32_t *dist,
		    struct ibr_error *err)
{
	uint32_t H = core_bfs(r, r->leaf, r->level), aside = 0, per[8] = { 0 };
	uint64_t aside_links = 0;
	char names[64], levels[96] = "";

	if (H == 0 || !layered(r))
		return 0;
	/* a thin top level is set aside; the levels below keep their
	 * distances (a shortest path never climbs above its end) */
	while (H >= 2) {
		uint64_t up = links_between(r, H - 1), below = links_between(r, H - 2);
		if (up * 4 >= below)
			break;
		for (uint32_t s = 0; s < r->S; s++)
			if (r->core[s] && r->level[s] == H) {
				r->core[s] = 0;
				r->aside[s] = 1;
				r->list[aside++] = s;
			}
		aside_links += up;
		H--;
	}
	memset(top, 0, r->S);
	for (uint32_t s = 0; s < r->S; s++)
		top[s] = r->core[s] && r->level[s] == H;
	core_bfs(r, top, dist);
	for (uint32_t s = 0; s < r->S; s++)
		if (r->leaf[s] && r->core[s] && dist[s] != H) {
			/* a leaf nearer the top: no tree; the core as it was */
			for (uint32_t i = 0; i < aside; i++) {
				r->core[r->list[i]] = 1;
				r->aside[r->list[i]] = 0;
			}
			return 0;
		}
	if (take_roots(r, top, err))
		return -1;
	r->t->kind = IBR_TOPO_FAT_TREE;
	r->t->levels = H + 1;
	for (uint32_t s = 0; s < r->S; s++)
		if (r->core[s] && r->level[s] < 8)
			per[r->level[s]]++;
	for (uint32_t k = 0; k <= H && k < 8; k++) {
		size_t used = strlen(levels);
		snprintf(levels + used, sizeof(levels) - used, "%s%u", k ? ", " :
			 "", per[k]);
	}
	snprintf(r->t->summary, sizeof(r->t->summary), "%u-level fat tree, "
		 "switches by level from the leaves: %s; the roots are its top "
		 "level", H + 1, levels);
	if (aside)
		note(r, "%u switch%s above the top level with only %" PRIu64
		     " link%s to it (%s): set aside, not roots", aside,
		     aside == 1 ? "" : "es", aside_links, aside_links == 1 ?
		     "" : "s", name_switches(r, r->list, aside, names,
					     sizeof(names)));
	return 1;
}

/* ---- Dragonfly+ ---------------------------------------------------------- */

/* 1: a Dragonfly+, its spines the roots; 0: not one; -1: out of memory. */
static int dragonfly_plus(struct recog *r, uint8_t *spine, uint32_t *group,
			  struct ibr_error *err)
{
	const struct ibr_fabric *f = r->f;
	uint32_t groups = 0, leaves = 0, spines = 0, lonely = 0;
	uint64_t global = 0;
	uint8_t *linked = NULL;
	uint32_t pairs_unlinked = 0;
	int rc = 0;

	for (uint32_t s = 0; s < r->S; s++) {
		spine[s] = r->core[s] && !r->leaf[s];
		group[s] = IBR_NONE;
		leaves += r->core[s] && r->leaf[s];
		spines += spine[s];
	}
	if (!leaves || !spines)
		return 0;
	/* groups: the parts leaf-spine links make, numbered in LID order
	 * so that input order does not matter */
	{
		uint32_t n = 0;
		for (uint32_t s = 0; s < r->S; s++)
			if (r->core[s])
				r->list[n++] = s;
		if (ibr_switches_by_lid(f, r->list, n, err))
			return -1;
		for (uint32_t k = 0; k < n; k++) {
			uint32_t head = 0, tail = 0, s = r->list[k];
			if (group[s] != IBR_NONE)
				continue;
			group[s] = groups;
			r->queue[tail++] = s;
			while (head < tail) {
				uint32_t x = r->queue[head++];
				for (uint32_t i = f->sw_adj_start[x];
				     i < f->sw_adj_start[x + 1]; i++) {
					uint32_t y = f->sw_adj[i].peer;
					if (!r->core[y] || spine[x] == spine[y] ||
					    group[y] != IBR_NONE)
						continue;
					group[y] = groups;
					r->queue[tail++] = y;
				}
			}
			lonely += tail == 1;
			groups++;
		}
	}
	if (groups < 2 || lonely)
		return 0;
	for (uint32_t s = 0; s < r->S; s++)
		if (spine[s])
			for (uint32_t i = f->sw_adj_start[s];
			     i < f->sw_adj_start[s + 1]; i++) {
				uint32_t t = f->sw_adj[i].peer;
				if (!r->core[t] || !spine[t])
					continue;
				if (group[t] == group[s])
					return 0; /* spines joined inside a group */
				global++;
			}
	if (global == 0)
		return 0;
	if (take_roots(r, spine, err))
		return -1;
	r->t->group = malloc(r->S * sizeof(uint32_t));
	if (!r->t->group)
		return ibr_error_set(err, "out of memory for %u switches", r->S);
	for (uint32_t s = 0; s < r->S; s++)
		r->t->group[s] = r->core[s] ? group[s] : IBR_NONE;
	r->t->kind = IBR_TOPO_DRAGONFLY_PLUS;
	r->t->groups = groups;
	snprintf(r->t->summary, sizeof(r->t->summary), "Dragonfly+: %u groups, "
		 "%u leaves, %u spines, %" PRIu64 " global links; the roots are "
		 "the spines", groups, leaves, spines, global / 2);
	/* group pairs with no direct link: routed over two global hops */
	if ((uint64_t)groups * groups <= 1u << 24 &&
	    (linked = calloc((size_t)groups * groups, 1)) != NULL) {
		for (uint32_t s = 0; s < r->S; s++)
			if (spine[s])
				for (uint32_t i = f->sw_adj_start[s];
				     i < f->sw_adj_start[s + 1]; i++) {
					uint32_t t = f->sw_adj[i].peer;
					if (r->core[t] && spine[t])
						linked[(size_t)group[s] * groups +
						       group[t]] = 1;
				}
		for (uint32_t a = 0; a < groups; a++)
			for (uint32_t b = a + 1; b < groups; b++)
				pairs_unlinked += !linked[(size_t)a * groups + b];
		free(linked);
		if (pairs_unlinked)
			note(r, "%u group pair%s without a direct global link: "
			     "routed over two global hops", pairs_unlinked,
			     pairs_unlinked == 1 ? "" : "s");
	} else if (groups * (uint64_t)groups <= 1u << 24) {
		rc = ibr_error_set(err, "out of memory for %u groups", groups);
	}
	return rc ? rc : 1;
}

/* ---- the whole recognition ----------------------------------------------- */

int ibr_topology_recognise(const struct ibr_fabric *f, struct ibr_topology *t,
			   struct ibr_error *err)
{
	struct recog r = { .f = f, .t = t, .S = f->num_switches };
	uint32_t S = f->num_switches, aggregation = 0;
	uint8_t *mark;
	uint32_t *dist;
	int rc = -1, found;

	memset(t, 0, sizeof(*t));
	t->kind = IBR_TOPO_IRREGULAR;
	if (!f->finalized || S == 0)
		return ibr_error_set(err, "fabric not indexed");
	r.hosts = malloc(S * sizeof(uint32_t));
	r.core = calloc(S, 1);
	r.aside = calloc(S, 1);
	r.leaf = calloc(S, 1);
	r.level = malloc(S * sizeof(uint32_t));
	r.queue = malloc(S * sizeof(uint32_t));
	r.list = malloc(S * sizeof(uint32_t));
	mark = calloc(S, 1);
	dist = malloc(S * sizeof(uint32_t));
	if (!r.hosts || !r.core || !r.aside || !r.leaf || !r.level || !r.queue ||
	    !r.list || !mark || !dist) {
		ibr_error_set(err, "out of memory for %u switches", S);
		goto out;
	}
	r.total_hosts = ibr_switch_hosts(f, r.hosts);
	aggregation = f->num_end_ports - r.total_hosts;
	if (aggregation)
		note(&r, "%u CA port%s named \"Aggregation Node\" (SHARP, inside "
		     "the switches): routed, not counted as hosts", aggregation,
		     aggregation == 1 ? "" : "s");
	if (main_block(&r, err))
		goto out;
	found = 0;
	if (choose_leaves(&r)) {
		if (add_empty_leaves(&r, err))
			goto out;
		note_hosts_above(&r);
		found = fat_tree(&r, mark, dist, err);
		if (found == 0)
			found = dragonfly_plus(&r, mark, dist, err);
	}
	if (found < 0)
		goto out;
	if (found > 0)
		note_hanging(&r);
	else
		snprintf(t->summary, sizeof(t->summary), "irregular: no level "
			 "structure of a fat tree or Dragonfly+ among the %u "
			 "switches", S);
	rc = 0;
out:
	if (rc)
		ibr_topology_free(t);
	free(r.hosts);
	free(r.core);
	free(r.aside);
	free(r.leaf);
	free(r.level);
	free(r.queue);
	free(r.list);
	free(mark);
	free(dist);
	return rc;
}

void ibr_topology_free(struct ibr_topology *t)
{
	free(t->group);
	t->group = NULL;
	free(t->roots);
	t->roots = NULL;
	t->num_roots = 0;
}
