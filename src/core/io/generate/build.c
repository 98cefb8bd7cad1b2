/*
 * build.c - blocks every kind builds with: switches, links on the next free
 * port, CAs spread over the switches, the GUID range check, and the two
 * ways of damaging a regular fabric without disconnecting it: links cut
 * (gen_break_links) and top-level switches taken down (gen_take_down),
 * and the CAs the tree kinds add after their hosts (spinehosts, agg).
 * Both draw only from the spec's RNG, so damage is a function of the spec.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"

int gen_oom(struct ibr_error *err)
{
	return ibr_error_set(err, "generate: out of memory");
}

/* Switches come first, so a switch's index is its node id. */
int gen_add_switch(struct gen *g, unsigned ports, const char *desc,
		   struct ibr_error *err)
{
	uint64_t guid = SW_GUID_BASE + g->f->num_nodes;

	return ibr_fabric_add_node(g->f, IBR_NODE_SWITCH, guid, ports, desc,
				   NULL, err) == IBR_NONE ? -1 : 0;
}

/* Links a and b on their next free ports. */
int gen_link_next(struct gen *g, uint32_t a, uint32_t b,
		  struct ibr_error *err)
{
	return ibr_fabric_connect(g->f, a, g->next_port[a]++, b,
				  g->next_port[b]++, err);
}

/* ibsim hands CA i the GUIDs 0x100000+i*(ports+1) onwards: keep them
 * below the switches' 0x200000. */
int gen_check_ca_guids(struct gen *g, uint64_t cas, struct ibr_error *err)
{
	uint64_t per = g->v[K_CAPORTS] + 1;

	if (cas * per > CA_GUID_BASE)
		return ibr_error_set(err, "generate: %s: %llu CAs of %llu ports "
				     "overflow the CA GUID range (at most %llu)",
				     g->kind->name, (unsigned long long)cas,
				     (unsigned long long)g->v[K_CAPORTS],
				     (unsigned long long)(CA_GUID_BASE / per));
	return 0;
}

/* CA ports go round-robin over order[0..n) (identity if NULL): the k-th
 * CA port this call places sits on order[k % n].  So per-switch counts
 * differ by at most one, the extra ones on the first switches of `order`,
 * and the two ports of a 2-port CA land on two switches whenever n >= 2.
 * CAs are numbered on from those made before (g->cas), so that a second
 * call's CAs take the GUIDs after the first's. */
int gen_attach_cas(struct gen *g, uint64_t cas, const uint32_t *order,
		   uint32_t n, struct ibr_error *err)
{
	unsigned k = (unsigned)g->v[K_CAPORTS];
	uint64_t slot = 0;
	char desc[32];

	for (uint64_t i = 0; i < cas; i++, g->cas++) {
		uint64_t guid = CA_GUID_BASE + g->cas * (k + 1);
		uint32_t id;
		snprintf(desc, sizeof(desc), "ca%llu", (unsigned long long)g->cas);
		id = ibr_fabric_add_node(g->f, IBR_NODE_CA, guid, k, desc, NULL,
					 err);
		if (id == IBR_NONE)
			return -1;
		for (unsigned p = 1; p <= k; p++, slot++) {
			uint32_t sw = (uint32_t)(slot % n);
			if (order)
				sw = order[sw];
			if (ibr_fabric_connect(g->f, sw, g->next_port[sw]++, id,
					       p, err))
				return -1;
		}
	}
	return 0;
}

/* CA ports that gen_attach_cas() puts on position pos of an n-long order. */
uint32_t gen_ca_ports_at(uint64_t total, uint32_t n, uint32_t pos)
{
	return (uint32_t)(total / n + (pos < total % n));
}

uint64_t gen_extra_cas(const struct gen *g, uint32_t switches)
{
	return g->v[K_SPINEHOSTS] + g->v[K_AGG] * switches;
}

unsigned gen_top_ports(const struct gen *g, uint32_t tops)
{
	return gen_ca_ports_at(g->v[K_SPINEHOSTS] * g->v[K_CAPORTS], tops, 0);
}

const char *gen_extras_text(const struct gen *g, char *buf, size_t len)
{
	int used = 0;

	buf[0] = '\0';
	if (g->v[K_SPINEHOSTS])
		used = snprintf(buf, len, " spinehosts=%llu",
				(unsigned long long)g->v[K_SPINEHOSTS]);
	if (g->v[K_AGG] && used >= 0 && (size_t)used < len)
		snprintf(buf + used, len - used, " agg=1");
	return buf;
}

/* Spine hosts and aggregation nodes come after the hosts, so the hosts
 * keep the node ids and GUIDs they have without them; an aggregation
 * node takes the GUIDs of a CA of caports ports (one used), so that
 * gen_check_ca_guids() counts it as any CA. */
int gen_attach_extras(struct gen *g, const uint32_t *tops, uint32_t ntop,
		      struct ibr_error *err)
{
	uint32_t sw = 0;

	if (g->v[K_SPINEHOSTS] &&
	    gen_attach_cas(g, g->v[K_SPINEHOSTS], tops, ntop, err))
		return -1;
	if (!g->v[K_AGG])
		return 0;
	while (sw < g->f->num_nodes && g->f->nodes[sw].type == IBR_NODE_SWITCH)
		sw++;
	for (uint32_t s = 0; s < sw; s++, g->cas++) {
		uint64_t guid = CA_GUID_BASE + g->cas * (g->v[K_CAPORTS] + 1);
		uint32_t id = ibr_fabric_add_node(g->f, IBR_NODE_CA, guid, 1,
						  GEN_AGG_DESC, NULL, err);
		if (id == IBR_NONE ||
		    ibr_fabric_connect(g->f, s, g->f->nodes[s].num_ports, id, 1,
				       err))
			return -1;
	}
	return 0;
}

static uint32_t uf_find(uint32_t *parent, uint32_t x)
{
	while (parent[x] != x) {
		parent[x] = parent[parent[x]];
		x = parent[x];
	}
	return x;
}

/* Kruskal over a shuffled order picks the tree; links are then broken in
 * the reverse of that order, skipping tree links.  That is reverse-delete
 * on the same order: exactly "try candidates in random order, skip one
 * whose removal would disconnect", without a connectivity test per link. */
int gen_break_links(struct gen *g, enum key key, struct gen_link *l,
		    uint32_t n, uint32_t sw, struct ibr_error *err)
{
	uint32_t *order, *parent, left = (uint32_t)g->v[key];

	if (g->v[key] > n - (sw - 1))
		return ibr_error_set(err, "generate: %s: %s=%llu would "
				     "disconnect the switches: at most %u of its "
				     "%u links can go", g->kind->name,
				     gen_key_name(key),
				     (unsigned long long)g->v[key],
				     n - (sw - 1), n);
	order = gen_permutation(n, &g->rng);
	parent = malloc((sw ? sw : 1) * sizeof(*parent));
	if (!order || !parent) {
		free(order);
		free(parent);
		return gen_oom(err);
	}
	for (uint32_t s = 0; s < sw; s++)
		parent[s] = s;
	for (uint32_t i = 0; i < n; i++) {
		struct gen_link *k = &l[order[i]];
		uint32_t ra = uf_find(parent, k->a), rb = uf_find(parent, k->b);
		if (ra != rb) {
			parent[ra] = rb;
			k->tree = true;
		}
	}
	for (uint32_t i = n; i > 0 && left > 0; i--)
		if (!l[order[i - 1]].tree) {
			l[order[i - 1]].broken = true;
			left--;
		}
	free(order);
	free(parent);
	return 0;
}

/* Components of the switches 0..sw-1 still up (dead[s] false) under the
 * links l[0..n) between two of them. */
static uint32_t components(const struct gen_link *l, uint32_t n, uint32_t sw,
			   const bool *dead, uint32_t *parent)
{
	uint32_t comps = 0;

	for (uint32_t s = 0; s < sw; s++) {
		parent[s] = s;
		comps += !dead[s];
	}
	for (uint32_t i = 0; i < n; i++) {
		uint32_t ra, rb;
		if (dead[l[i].a] || dead[l[i].b])
			continue;
		ra = uf_find(parent, l[i].a);
		rb = uf_find(parent, l[i].b);
		if (ra != rb) {
			parent[ra] = rb;
			comps--;
		}
	}
	return comps;
}

/* Drops the links of the switches taken down and renumbers the rest. */
static uint32_t renumber(struct gen_link *l, uint32_t n, uint32_t sw,
			 const bool *dead, uint32_t *map)
{
	uint32_t left = 0, kept = 0;

	for (uint32_t s = 0; s < sw; s++)
		map[s] = dead[s] ? IBR_NONE : left++;
	for (uint32_t i = 0; i < n; i++) {
		if (dead[l[i].a] || dead[l[i].b])
			continue;
		l[kept] = l[i];
		l[kept].a = map[l[i].a];
		l[kept].b = map[l[i].b];
		kept++;
	}
	return kept;
}

/* Victims in the order of a random permutation of the candidates (one
 * draw of the RNG per candidate, whatever `down` is), each checked before
 * the next: a top switch's links go to switches never taken down, so when
 * no candidate is passed over the victims are the first `down` of the
 * permutation, as they were before the check, and the kinds whose tops
 * cannot disconnect anything (clos, kary) give the fabrics they gave. */
int gen_take_down(struct gen *g, uint32_t first, uint32_t count,
		  uint32_t per, const char *what, struct gen_link *l,
		  uint32_t *n, uint32_t sw, uint32_t *map,
		  struct ibr_error *err)
{
	uint64_t down = g->v[K_DOWN], most = (uint64_t)count / per * (per - 1);
	uint32_t *pick, *lost, *parent, taken = 0;
	bool *dead;
	int rc = 0;

	if (per == count && down >= count)
		return ibr_error_set(err, "generate: %s: down=%llu would remove "
				     "%s %u %s (at most %u can go)", g->kind->name,
				     (unsigned long long)down,
				     down == count ? "all" : "more than the", count,
				     what, count - 1);
	if (down > most)
		return ibr_error_set(err, "generate: %s: down=%llu would leave a "
				     "group without %s: at most %llu of the %u "
				     "can go", g->kind->name,
				     (unsigned long long)down, what,
				     (unsigned long long)most, count);
	pick = gen_permutation(count, &g->rng);
	lost = calloc(count / per, sizeof(*lost));
	parent = malloc(sw * sizeof(*parent));
	dead = calloc(sw, sizeof(*dead));
	if (!pick || !lost || !parent || !dead) {
		rc = gen_oom(err);
		goto out;
	}
	for (uint32_t i = 0; i < count && taken < down; i++) {
		uint32_t c = pick[i];
		if (lost[c / per] == per - 1)
			continue;
		dead[first + c] = true;
		if (components(l, *n, sw, dead, parent) != 1) {
			dead[first + c] = false;
			continue;
		}
		lost[c / per]++;
		taken++;
	}
	if (taken < down)
		rc = ibr_error_set(err, "generate: %s: down=%llu would disconnect "
				   "the switches (%u of the %u %s could go)",
				   g->kind->name, (unsigned long long)down, taken,
				   count, what);
	else
		*n = renumber(l, *n, sw, dead, map);
out:
	free(pick);
	free(lost);
	free(parent);
	free(dead);
	return rc;
}
