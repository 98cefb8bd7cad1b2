/*
 * spec.c - parsing a spec, `kind:key=value,...`: the kinds, the keys each
 * accepts with their defaults and ranges, and messages naming the
 * offending key and value.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"

#define END_PARAMS { K_COUNT, false, 0, 0, 0, NULL }
#define SEED { K_SEED, false, 1, 0, UINT64_MAX, "another draw of the random parts" }
#define AGG { K_AGG, false, 0, 0, 1, "1: a SHARP aggregation node on each " \
	      "switch, on one port more (its last)" }

static const char *const key_name[K_COUNT] = {
	"sw", "ca", "deg", "ports", "leaf", "spine", "uplinks", "dims",
	"broken", "caports", "seed", "levels", "k", "n", "cut", "down",
	"oversub", "agg", "spinehosts", "groups", "leaves", "spines", "hosts",
	"global", "isolate"
};

const char *gen_key_name(enum key key)
{
	return key_name[key];
}

static const struct param random_params[] = {
	{ K_SW, true, 0, 1, MAX_SWITCHES, "switches" },
	{ K_CA, false, 0, 0, MAX_CAS, "CAs in all, spread round robin over a "
	  "random order of the switches" },
	{ K_DEG, false, 8, 0, IBR_MAX_PORTS - 1, "average switch degree: "
	  "inter-switch links per switch" },
	{ K_PORTS, false, 36, 1, IBR_MAX_PORTS, "ports per switch" },
	{ K_CAPORTS, false, 1, 1, 2, "ports per CA; 2: on two different "
	  "switches" },
	{ K_CUT, false, 0, 0, UINT32_MAX, "random links removed afterwards, "
	  "never one that disconnects the fabric; ports, GUIDs and LIDs stay "
	  "those of the whole fabric" },
	SEED,
	END_PARAMS
};

static const struct param clos_params[] = {
	{ K_LEAF, true, 0, 1, IBR_MAX_PORTS, "leaf switches" },
	{ K_SPINE, true, 0, 1, IBR_MAX_PORTS, "spine switches" },
	{ K_CA, false, 0, 0, MAX_CAS, "CAs in all, on the leaves; not with "
	  "oversub" },
	{ K_UPLINKS, false, 1, 1, IBR_MAX_PORTS, "parallel links per leaf-spine "
	  "pair" },
	{ K_CAPORTS, false, 1, 1, 2, "ports per CA; 2: on two different "
	  "leaves" },
	{ K_OVERSUB, false, 0, 1, IBR_MAX_PORTS, "R*spine*uplinks CA ports on "
	  "every leaf, an R:1 leaf; not with ca; 1 is non-blocking" },
	{ K_CUT, false, 0, 0, UINT32_MAX, "random links removed, never one that "
	  "disconnects the fabric; more is an error" },
	{ K_DOWN, false, 0, 0, UINT32_MAX, "random spines removed, as for cut" },
	{ K_SPINEHOSTS, false, 0, 0, MAX_CAS, "storage CAs round robin over the "
	  "spines, on ports after the leaves'" },
	AGG,
	SEED,
	END_PARAMS
};

static const struct param torus_params[] = {
	{ K_DIMS, true, 0, 0, 0, "AxB or AxBxC, each size 2..256, at most "
	  "65536 switches" },
	{ K_CA, false, 1, 0, IBR_MAX_PORTS - 6, "CAs per switch" },
	{ K_BROKEN, false, 0, 0, UINT32_MAX, "random links removed, never one "
	  "that disconnects the fabric" },
	{ K_CAPORTS, false, 1, 1, 2, "ports per CA; 2: on two different "
	  "switches" },
	SEED,
	END_PARAMS
};

static const struct param fattree_params[] = {
	{ K_PORTS, false, 8, 4, IBR_MAX_PORTS, "m, ports per switch (even)" },
	{ K_LEVELS, false, 3, 2, 8, "n, levels" },
	{ K_BROKEN, false, 0, 0, UINT32_MAX, "random links removed, never one "
	  "that disconnects the fabric" },
	{ K_SPINEHOSTS, false, 0, 0, MAX_CAS, "storage CAs round robin over the "
	  "roots, on ports after the m" },
	AGG,
	SEED,
	END_PARAMS
};

/* A switch has 2k ports, so k <= 127; the size checks are kary.c's. */
static const struct param kary_params[] = {
	{ K_K, true, 0, 2, IBR_MAX_PORTS / 2, "k: switches of 2k ports, k CAs "
	  "on each leaf" },
	{ K_N, true, 0, 2, 6, "n: levels of k^(n-1) switches, k^n CAs" },
	{ K_CUT, false, 0, 0, UINT32_MAX, "random links removed, never one that "
	  "disconnects the fabric" },
	{ K_DOWN, false, 0, 0, UINT32_MAX, "random top-level switches removed, "
	  "as for cut" },
	{ K_SPINEHOSTS, false, 0, 0, MAX_CAS, "storage CAs round robin over the "
	  "top switches, dark up ports first" },
	AGG,
	SEED,
	END_PARAMS
};

/* The size checks (ports, switches, GUIDs) are dfplus.c's. */
static const struct param dfplus_params[] = {
	{ K_GROUPS, true, 0, 2, MAX_SWITCHES, "groups of leaves and spines, "
	  "each complete bipartite" },
	{ K_LEAVES, true, 0, 1, IBR_MAX_PORTS, "leaf switches per group, the "
	  "hosts on them" },
	{ K_SPINES, true, 0, 1, IBR_MAX_PORTS, "spine switches per group, the "
	  "global links on them" },
	{ K_HOSTS, false, 0, 0, IBR_MAX_PORTS - 1, "CAs per leaf; by default "
	  "spines, a non-blocking leaf" },
	{ K_GLOBAL, false, 1, 1, UINT32_MAX, "links per pair of groups, spread "
	  "over the groups' spines" },
	{ K_CUT, false, 0, 0, UINT32_MAX, "random global links removed, never "
	  "one that disconnects the fabric" },
	{ K_DOWN, false, 0, 0, UINT32_MAX, "random spines removed, never all "
	  "of a group, as for cut" },
	{ K_ISOLATE, false, 0, 0, UINT32_MAX, "random group pairs without any "
	  "direct link, as for cut" },
	AGG,
	SEED,
	END_PARAMS
};

static const struct kind kinds[] = {
	{ "random", random_params, gen_random_build, "an irregular switch "
	  "graph: a random spanning tree, then random links up to the degree" },
	{ "clos", clos_params, gen_clos_build, "a two-level Clos network: every "
	  "leaf linked to every spine, CAs on the leaves" },
	{ "torus", torus_params, gen_torus_build, "a 2D or 3D torus" },
	{ "fattree", fattree_params, gen_fattree_build, "an m-port n-tree, one "
	  "CA per leaf down port (8 and 3: the LID assignment paper's, 80 "
	  "switches, 128 CAs)" },
	{ "kary", kary_params, gen_kary_build, "a k-ary n-tree (Petrini and "
	  "Vanneschi); the 8-ary 3-tree has 192 switches, 512 CAs" },
	{ "dfplus", dfplus_params, gen_dfplus_build, "a Dragonfly+ (Shpiner et "
	  "al.): groups of leaves and spines, spines linked across" },
};

void ibr_generate_help(FILE *out)
{
	fputs("SPEC: KIND[:KEY=VALUE[,KEY=VALUE]...], numbers in decimal or 0x "
	      "hex; the same SPEC always\ngives the same fabric.  Each KIND's "
	      "keys, as KEY=DEFAULT (range):\n", out);
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		const struct kind *k = &kinds[i];
		fprintf(out, "  %s: %s\n", k->name, k->what);
		for (const struct param *p = k->params; p->key != K_COUNT; p++) {
			char key[32], range[48] = "";
			if (p->required)
				snprintf(key, sizeof(key), "%s=N", key_name[p->key]);
			else
				snprintf(key, sizeof(key), "%s=%llu",
					 key_name[p->key],
					 (unsigned long long)p->def);
			if (p->key == K_DIMS)
				snprintf(key, sizeof(key), "dims=AxB[xC]");
			else if (p->key == K_OVERSUB)
				snprintf(key, sizeof(key), "oversub=R");
			else if (p->key == K_HOSTS)
				snprintf(key, sizeof(key), "hosts=spines");
			if (p->key == K_DIMS)
				range[0] = '\0';
			else if (p->max == UINT64_MAX)
				snprintf(range, sizeof(range), "any number");
			else if (p->max == UINT32_MAX)
				snprintf(range, sizeof(range), "%llu or more",
					 (unsigned long long)p->min);
			else
				snprintf(range, sizeof(range), "%llu..%llu",
					 (unsigned long long)p->min,
					 (unsigned long long)p->max);
			fprintf(out, "    %-14s %s (%s%s%s)\n", key, p->help,
				p->required ? "required" :
				p->key == K_OVERSUB ? "no default" : "",
				p->required || p->key == K_OVERSUB ? (range[0] ?
				"; " : "") : "", range);
		}
	}
}

static const struct kind *find_kind(const char *s, size_t len)
{
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (strlen(kinds[i].name) == len &&
		    memcmp(kinds[i].name, s, len) == 0)
			return &kinds[i];
	return NULL;
}

static const struct param *find_param(const struct kind *k, const char *s,
				      size_t len)
{
	for (const struct param *p = k->params; p->key != K_COUNT; p++)
		if (strlen(key_name[p->key]) == len &&
		    memcmp(key_name[p->key], s, len) == 0)
			return p;
	return NULL;
}

/* "sw, ca, deg, ..." for messages. */
static const char *key_list(const struct kind *k, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (const struct param *p = k->params; p->key != K_COUNT; p++) {
		if (used >= len)
			break;
		used += snprintf(buf + used, len - used, "%s%s",
				 p == k->params ? "" : ", ", key_name[p->key]);
	}
	return buf;
}

/* Decimal or 0x hex, digits only.  0: ok, -1: not a number, -2: too big. */
static int parse_number(const char *s, size_t len, uint64_t *out)
{
	unsigned base = 10;
	uint64_t v = 0;

	if (len > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
		len -= 2;
	}
	if (len == 0)
		return -1;
	for (size_t i = 0; i < len; i++) {
		unsigned d;
		if (s[i] >= '0' && s[i] <= '9')
			d = s[i] - '0';
		else if (base == 16 && s[i] >= 'a' && s[i] <= 'f')
			d = s[i] - 'a' + 10;
		else if (base == 16 && s[i] >= 'A' && s[i] <= 'F')
			d = s[i] - 'A' + 10;
		else
			return -1;
		if (v > (UINT64_MAX - d) / base)
			return -2;
		v = v * base + d;
	}
	*out = v;
	return 0;
}

/* dims=AxB or AxBxC, each 2..256, at most 65536 switches. */
static int parse_dims(struct gen *g, const char *s, size_t len,
		      struct ibr_error *err)
{
	const char *end = s + len, *p = s;
	uint64_t total = 1;

	g->ndims = 0;
	while (p <= end) {
		const char *x = memchr(p, 'x', end - p);
		size_t n = x ? (size_t)(x - p) : (size_t)(end - p);
		uint64_t v;
		if (g->ndims == 3 || parse_number(p, n, &v) || v < 2 || v > 256)
			return ibr_error_set(err, "generate: torus: dims=%.*s must be "
					     "AxB or AxBxC with each size 2..256",
					     (int)len, s);
		g->dims[g->ndims++] = (unsigned)v;
		total *= v;
		p += n + 1;
	}
	if (g->ndims < 2)
		return ibr_error_set(err, "generate: torus: dims=%.*s must be AxB "
				     "or AxBxC with each size 2..256", (int)len, s);
	if (total > MAX_SWITCHES)
		return ibr_error_set(err, "generate: torus: dims=%.*s makes %llu "
				     "switches, more than %u", (int)len, s,
				     (unsigned long long)total, MAX_SWITCHES);
	return 0;
}

static int parse_value(struct gen *g, const struct param *p, const char *val,
		       size_t len, struct ibr_error *err)
{
	const char *kind = g->kind->name, *name = key_name[p->key];
	uint64_t v;
	int rc;

	if (p->key == K_DIMS)
		return parse_dims(g, val, len, err);
	rc = parse_number(val, len, &v);
	if (rc == -1)
		return ibr_error_set(err, "generate: %s: %s=%.*s is not a number",
				     kind, name, (int)len, val);
	if (rc == -2 || v < p->min || v > p->max)
		return ibr_error_set(err, "generate: %s: %s=%.*s out of range "
				     "%llu..%llu", kind, name, (int)len, val,
				     (unsigned long long)p->min,
				     (unsigned long long)p->max);
	g->v[p->key] = v;
	return 0;
}

static int parse_item(struct gen *g, const char *item, size_t len,
		      struct ibr_error *err)
{
	const char *eq = memchr(item, '=', len);
	size_t klen = eq ? (size_t)(eq - item) : len;
	const struct param *p;
	char keys[128];

	if (len == 0)
		return ibr_error_set(err, "generate: empty key=value item in "
				     "\"%s\"", g->spec);
	p = find_param(g->kind, item, klen);
	if (!p)
		return ibr_error_set(err, "generate: unknown key \"%.*s\" in \"%s\" "
				     "(%s takes %s)", (int)klen, item, g->spec,
				     g->kind->name,
				     key_list(g->kind, keys, sizeof(keys)));
	if (!eq || klen + 1 == len)
		return ibr_error_set(err, "generate: %s: key \"%s\" has no value in "
				     "\"%s\"", g->kind->name, key_name[p->key],
				     g->spec);
	if (g->given[p->key])
		return ibr_error_set(err, "generate: %s: key \"%s\" given twice in "
				     "\"%s\"", g->kind->name, key_name[p->key],
				     g->spec);
	g->given[p->key] = true;
	return parse_value(g, p, eq + 1, len - klen - 1, err);
}

/* Defaults for the keys not given; required ones must be there. */
static int finish_params(struct gen *g, struct ibr_error *err)
{
	for (const struct param *p = g->kind->params; p->key != K_COUNT; p++) {
		if (g->given[p->key])
			continue;
		if (p->required)
			return ibr_error_set(err, "generate: %s: missing key \"%s\" "
					     "in \"%s\"", g->kind->name,
					     key_name[p->key], g->spec);
		g->v[p->key] = p->def;
	}
	return 0;
}

int gen_parse_spec(struct gen *g, struct ibr_error *err)
{
	const char *s = g->spec, *colon;
	size_t klen;

	if (!s || !*s)
		return ibr_error_set(err, "generate: empty spec, expected "
				     "kind:key=value,... with kind random, clos, "
				     "torus, fattree, kary or dfplus");
	colon = strchr(s, ':');
	klen = colon ? (size_t)(colon - s) : strlen(s);
	g->kind = find_kind(s, klen);
	if (!g->kind)
		return ibr_error_set(err, "generate: unknown kind \"%.*s\" in \"%s\" "
				     "(expected random, clos, torus, fattree, "
				     "kary or dfplus)",
				     (int)klen, s, s);
	/* "kind" and "kind:" alike mean: all defaults */
	for (s = colon ? colon + 1 : ""; *s; ) {
		size_t len = strcspn(s, ",");
		if (parse_item(g, s, len, err))
			return -1;
		s += len;
		if (*s == ',' && *++s == '\0')
			return ibr_error_set(err, "generate: empty key=value item "
					     "in \"%s\"", g->spec);
	}
	return finish_params(g, err);
}
