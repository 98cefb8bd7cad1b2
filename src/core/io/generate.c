/*
 * generate.c - synthetic fabrics from a one-line spec (see generate.h).
 *
 * Spec: kind[:key=value{,key=value}], numbers in decimal or 0x hex.
 *   random  sw (required, 1..65536)  ca=0 (total)  deg=8  ports=36
 *           caports=1  seed=1
 *   clos    leaf (required, 1..254)  spine (required, 1..254)  ca=0 (total)
 *           uplinks=1 (parallel links per leaf-spine pair)  caports=1  seed=1
 *   torus   dims=AxB or AxBxC (required, each 2..256)  ca=1 (per switch)
 *           broken=0  caports=1  seed=1
 * caports=2 makes 2-port HCAs whose ports hang off two different switches
 * (whenever there are two).  Anything else in a spec is an error naming
 * the offending key and value.
 *
 * Invariants of every fabric returned (not finalized):
 *   - node ids: switches first, so switch i is node i, then CA i is node
 *     S+i.  GUIDs are those ibsim gives when the nodes are written in that
 *     order: switch i 0x200000+i, CA i 0x100000+i*(caports+1), CA port p
 *     node GUID+p; so CA GUIDs stay below the switch range (checked).
 *   - every node has 1..254 ports and no port is used twice; CAs link only
 *     to switches; the switch graph is connected.
 *   - random: exactly ceil(deg*sw/2) switch links (>= sw-1), a random
 *     spanning tree plus random extras; parallel links only when no simple
 *     alternative was found (always needed once deg > sw-1).  Switch ports
 *     are filled from 1 in link creation order, CA ports after them.
 *     Degrees vary around deg (irregular), unless `ports` leaves no slack:
 *     ports = deg + CA ports per switch yields a deg-regular graph.
 *   - clos: leaf i linked `uplinks` times to every spine, leaves' uplinks
 *     on ports 1..spine*uplinks, spines' port (i*uplinks+u+1) to leaf i;
 *     radixes sized to fit exactly.
 *   - torus: fixed port per direction (2d+1 towards +d, 2d+2 towards -d,
 *     CAs from 2*dims+1), so a broken link leaves its two ports dark as a
 *     pulled cable would; a size-2 ring is one link, not two parallel.
 *   - random and clos spread CA ports round-robin over a random permutation
 *     of the switches (leaves): per-switch counts differ by at most one.
 *   - the fabric is a function of the spec alone: a private xorshift64*
 *     seeded from `seed`, no global state, no clock.
 *   - O(switches + CAs + links) time and memory.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ibrouting/generate.h"

#define SW_GUID_BASE 0x200000ull
#define CA_GUID_BASE 0x100000ull
#define MAX_SWITCHES 65536u
#define TRIES        64     /* random attempts before a costlier fallback */
#define SCAN_MAX     64     /* open switches few enough to try every pair */

/* ---- RNG: xorshift64*, private so that a spec is reproducible ------- */

struct rng {
	uint64_t s;
};

static void rng_seed(struct rng *r, uint64_t seed)
{
	/* splitmix64: neighbouring seeds give unrelated streams, never 0 */
	uint64_t z = seed + 0x9E3779B97F4A7C15ull;

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	z ^= z >> 31;
	r->s = z ? z : 1;
}

static uint64_t rng_next(struct rng *r)
{
	r->s ^= r->s >> 12;
	r->s ^= r->s << 25;
	r->s ^= r->s >> 27;
	return r->s * 0x2545F4914F6CDD1Dull;
}

/* In [0, n): n < 2^32, so the modulo bias is below 2^-32. */
static uint32_t rng_below(struct rng *r, uint32_t n)
{
	return (uint32_t)(rng_next(r) % n);
}

static void shuffle(uint32_t *a, uint32_t n, struct rng *r)
{
	for (uint32_t i = n; i > 1; i--) {
		uint32_t j = rng_below(r, i), t = a[i - 1];
		a[i - 1] = a[j];
		a[j] = t;
	}
}

/* 0..n-1 in random order; NULL when out of memory. */
static uint32_t *permutation(uint32_t n, struct rng *r)
{
	uint32_t *a = malloc((n ? n : 1) * sizeof(*a));

	if (!a)
		return NULL;
	for (uint32_t i = 0; i < n; i++)
		a[i] = i;
	shuffle(a, n, r);
	return a;
}

/* ---- the spec ------------------------------------------------------- */

enum key {
	K_SW, K_CA, K_DEG, K_PORTS, K_LEAF, K_SPINE, K_UPLINKS, K_DIMS,
	K_BROKEN, K_CAPORTS, K_SEED, K_COUNT
};

static const char *const key_name[K_COUNT] = {
	"sw", "ca", "deg", "ports", "leaf", "spine", "uplinks", "dims",
	"broken", "caports", "seed"
};

/* One key a kind accepts; min/max do not apply to dims. */
struct param {
	enum key key;
	bool required;
	uint64_t def, min, max;
};

struct gen;

struct kind {
	const char *name;
	const struct param *params; /* ends with key == K_COUNT */
	int (*build)(struct gen *g, struct ibr_error *err);
};

struct gen {
	const char *spec;
	const struct kind *kind;
	uint64_t v[K_COUNT];
	bool given[K_COUNT];
	unsigned dims[3], ndims;
	struct rng rng;
	struct ibr_fabric *f;
	uint8_t *next_port;       /* per switch: the next port to fill */
};

/* CA GUIDs must stay below the switch range: ca * (caports+1) <= 2^20. */
#define MAX_CAS (CA_GUID_BASE / 2)
#define END_PARAMS { K_COUNT, false, 0, 0, 0 }

static const struct param random_params[] = {
	{ K_SW, true, 0, 1, MAX_SWITCHES },
	{ K_CA, false, 0, 0, MAX_CAS },
	{ K_DEG, false, 8, 0, IBR_MAX_PORTS - 1 },
	{ K_PORTS, false, 36, 1, IBR_MAX_PORTS },
	{ K_CAPORTS, false, 1, 1, 2 },
	{ K_SEED, false, 1, 0, UINT64_MAX },
	END_PARAMS
};

static const struct param clos_params[] = {
	{ K_LEAF, true, 0, 1, IBR_MAX_PORTS },
	{ K_SPINE, true, 0, 1, IBR_MAX_PORTS },
	{ K_CA, false, 0, 0, MAX_CAS },
	{ K_UPLINKS, false, 1, 1, IBR_MAX_PORTS },
	{ K_CAPORTS, false, 1, 1, 2 },
	{ K_SEED, false, 1, 0, UINT64_MAX },
	END_PARAMS
};

static const struct param torus_params[] = {
	{ K_DIMS, true, 0, 0, 0 },
	{ K_CA, false, 1, 0, IBR_MAX_PORTS - 6 },
	{ K_BROKEN, false, 0, 0, UINT32_MAX },
	{ K_CAPORTS, false, 1, 1, 2 },
	{ K_SEED, false, 1, 0, UINT64_MAX },
	END_PARAMS
};

static int random_build(struct gen *g, struct ibr_error *err);
static int clos_build(struct gen *g, struct ibr_error *err);
static int torus_build(struct gen *g, struct ibr_error *err);

static const struct kind kinds[] = {
	{ "random", random_params, random_build },
	{ "clos", clos_params, clos_build },
	{ "torus", torus_params, torus_build },
};

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

static int parse_spec(struct gen *g, struct ibr_error *err)
{
	const char *s = g->spec, *colon;
	size_t klen;

	if (!s || !*s)
		return ibr_error_set(err, "generate: empty spec, expected "
				     "kind:key=value,... with kind random, clos "
				     "or torus");
	colon = strchr(s, ':');
	klen = colon ? (size_t)(colon - s) : strlen(s);
	g->kind = find_kind(s, klen);
	if (!g->kind)
		return ibr_error_set(err, "generate: unknown kind \"%.*s\" in \"%s\" "
				     "(expected random, clos or torus)",
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

/* ---- building blocks shared by the kinds ---------------------------- */

static int oom(struct ibr_error *err)
{
	return ibr_error_set(err, "generate: out of memory");
}

/* Switches come first, so a switch's index is its node id. */
static int add_switch(struct gen *g, unsigned ports, const char *desc,
		      struct ibr_error *err)
{
	uint64_t guid = SW_GUID_BASE + g->f->num_nodes;

	return ibr_fabric_add_node(g->f, IBR_NODE_SWITCH, guid, ports, desc,
				   NULL, err) == IBR_NONE ? -1 : 0;
}

/* Links a and b on their next free ports. */
static int link_next(struct gen *g, uint32_t a, uint32_t b,
		     struct ibr_error *err)
{
	return ibr_fabric_connect(g->f, a, g->next_port[a]++, b,
				  g->next_port[b]++, err);
}

/* ibsim hands CA i the GUIDs 0x100000+i*(ports+1) onwards: keep them
 * below the switches' 0x200000. */
static int check_ca_guids(struct gen *g, uint64_t cas, struct ibr_error *err)
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
 * CA port ever placed sits on order[k % n].  So per-switch counts differ
 * by at most one, the extra ones on the first switches of `order`, and
 * the two ports of a 2-port CA land on two switches whenever n >= 2. */
static int attach_cas(struct gen *g, uint64_t cas, const uint32_t *order,
		      uint32_t n, struct ibr_error *err)
{
	unsigned k = (unsigned)g->v[K_CAPORTS];
	uint64_t slot = 0;
	char desc[32];

	for (uint64_t i = 0; i < cas; i++) {
		uint64_t guid = CA_GUID_BASE + i * (k + 1);
		uint32_t id;
		snprintf(desc, sizeof(desc), "ca%llu", (unsigned long long)i);
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

/* CA ports that attach_cas() puts on position pos of an n-long order. */
static uint32_t ca_ports_at(uint64_t total, uint32_t n, uint32_t pos)
{
	return (uint32_t)(total / n + (pos < total % n));
}

/* ---- random: link list with an adjacency multiset ------------------- */

struct links {
	uint32_t (*e)[2];         /* e[i] = {a, b}, creation order */
	uint32_t n;
	uint64_t *hkey;           /* open addressing, UINT64_MAX = empty */
	uint32_t *hcnt;           /* links between the pair (0 after rewire) */
	uint32_t hmask;
};

static uint64_t pair_key(uint32_t a, uint32_t b)
{
	return a < b ? (uint64_t)a << 32 | b : (uint64_t)b << 32 | a;
}

/* The slot holding the pair, or the empty one where it would go. */
static uint32_t hslot(const struct links *ls, uint64_t key)
{
	uint32_t i = (uint32_t)((key * 0x9E3779B97F4A7C15ull) >> 32) & ls->hmask;

	while (ls->hkey[i] != key && ls->hkey[i] != UINT64_MAX)
		i = (i + 1) & ls->hmask;
	return i;
}

static uint32_t adjacent(const struct links *ls, uint32_t a, uint32_t b)
{
	uint32_t i = hslot(ls, pair_key(a, b));

	return ls->hkey[i] == UINT64_MAX ? 0 : ls->hcnt[i];
}

static void adj_change(struct links *ls, uint32_t a, uint32_t b, int delta)
{
	uint64_t key = pair_key(a, b);
	uint32_t i = hslot(ls, key);

	if (ls->hkey[i] == UINT64_MAX) {
		ls->hkey[i] = key;
		ls->hcnt[i] = 0;
	}
	ls->hcnt[i] += delta;
}

/* Room for `max` links; every link ever made (rewires included) adds at
 * most one key, and there are at most 2*max of those: load stays <= 1/2. */
static int links_init(struct links *ls, uint32_t max)
{
	uint32_t size = 16;

	while (size < 4 * (uint64_t)max)
		size *= 2;
	ls->n = 0;
	ls->hmask = size - 1;
	ls->e = malloc((max ? max : 1) * sizeof(*ls->e));
	ls->hkey = malloc(size * sizeof(*ls->hkey));
	ls->hcnt = malloc(size * sizeof(*ls->hcnt));
	if (!ls->e || !ls->hkey || !ls->hcnt)
		return -1;
	memset(ls->hkey, 0xFF, size * sizeof(*ls->hkey));
	return 0;
}

static void links_free(struct links *ls)
{
	free(ls->e);
	free(ls->hkey);
	free(ls->hcnt);
}

/* ---- random: the switch graph --------------------------------------- */

struct rnd {
	struct gen *g;
	uint32_t sw;              /* switches */
	uint32_t want;            /* links to make */
	struct links ls;
	uint32_t *cap;            /* free switch-link ports per switch */
	uint32_t *open, *pos;     /* switches with cap > 0, and their index */
	uint32_t nopen;
};

static void open_add(struct rnd *r, uint32_t s)
{
	r->pos[s] = r->nopen;
	r->open[r->nopen++] = s;
}

/* One port of s is taken; a full switch leaves the open set. */
static void use_port(struct rnd *r, uint32_t s)
{
	if (--r->cap[s] == 0) {
		uint32_t last = r->open[--r->nopen];
		r->open[r->pos[s]] = last;
		r->pos[last] = r->pos[s];
	}
}

static void add_link(struct rnd *r, uint32_t a, uint32_t b)
{
	r->ls.e[r->ls.n][0] = a;
	r->ls.e[r->ls.n][1] = b;
	r->ls.n++;
	adj_change(&r->ls, a, b, +1);
	use_port(r, a);
	use_port(r, b);
}

/* Link k becomes (a,u) and (b,v) is appended: u and v keep their degree,
 * a and b gain one.  Connectivity survives even if (u,v) was a bridge
 * because a and b are adjacent (or equal) and u-a, v-b now hold. */
static void rewire(struct rnd *r, uint32_t k, uint32_t a, uint32_t u,
		   uint32_t b, uint32_t v)
{
	adj_change(&r->ls, u, v, -1);
	r->ls.e[k][0] = a;
	r->ls.e[k][1] = u;
	adj_change(&r->ls, a, u, +1);
	use_port(r, a);
	r->ls.e[r->ls.n][0] = b;
	r->ls.e[r->ls.n][1] = v;
	r->ls.n++;
	adj_change(&r->ls, b, v, +1);
	use_port(r, b);
}

/* Random spanning tree: each switch, in random order, hangs off a random
 * earlier one with a free port.  Switches with a single free port go last
 * (they can only be leaves).  Then, as random_check() ensured that all
 * free ports add up to 2*(sw-1) at least, the earlier switches always
 * have a free port left for the next one. */
static int random_tree(struct rnd *r, struct ibr_error *err)
{
	uint32_t *perm = permutation(r->sw, &r->g->rng), *order, n = 0;

	order = malloc(r->sw * sizeof(*order));
	if (!perm || !order) {
		free(perm);
		free(order);
		return oom(err);
	}
	for (uint32_t i = 0; i < r->sw; i++)
		if (r->cap[perm[i]] >= 2)
			order[n++] = perm[i];
	for (uint32_t i = 0; i < r->sw; i++)
		if (r->cap[perm[i]] < 2)
			order[n++] = perm[i];
	free(perm);
	if (r->cap[order[0]] > 0)
		open_add(r, order[0]);
	for (uint32_t i = 1; i < r->sw; i++) {
		uint32_t s = order[i];
		if (r->nopen == 0) {
			free(order);
			return ibr_error_set(err, "generate: random: internal: no "
					     "free port left for the spanning tree");
		}
		open_add(r, s);
		add_link(r, r->open[rng_below(&r->g->rng, r->nopen - 1)], s);
	}
	free(order);
	return 0;
}

/* Two distinct open switches. */
static void open_pair(struct rnd *r, uint32_t *a, uint32_t *b)
{
	uint32_t i = rng_below(&r->g->rng, r->nopen);
	uint32_t j = rng_below(&r->g->rng, r->nopen - 1);

	*a = r->open[i];
	*b = r->open[j >= i ? j + 1 : j];
}

/* A new link between two open switches not linked yet. */
static bool try_simple_pair(struct rnd *r)
{
	uint32_t a, b;

	for (int t = 0; t < TRIES; t++) {
		open_pair(r, &a, &b);
		if (!adjacent(&r->ls, a, b)) {
			add_link(r, a, b);
			return true;
		}
	}
	if (r->nopen > SCAN_MAX)
		return false;
	for (uint32_t i = 0; i < r->nopen; i++)
		for (uint32_t j = i + 1; j < r->nopen; j++)
			if (!adjacent(&r->ls, r->open[i], r->open[j])) {
				add_link(r, r->open[i], r->open[j]);
				return true;
			}
	return false;
}

/* Open switches a, b are already linked: move a random link (u,v) to
 * (a,u) and add (b,v) when neither pair is linked yet. */
static bool try_rewire_pair(struct rnd *r)
{
	for (int t = 0; t < TRIES; t++) {
		uint32_t a, b, k = rng_below(&r->g->rng, r->ls.n);
		uint32_t flip = rng_below(&r->g->rng, 2);
		uint32_t u = r->ls.e[k][flip], v = r->ls.e[k][!flip];
		open_pair(r, &a, &b);
		if (u == a || u == b || v == a || v == b ||
		    adjacent(&r->ls, a, u) || adjacent(&r->ls, b, v))
			continue;
		rewire(r, k, a, u, b, v);
		return true;
	}
	return false;
}

static bool single_ok(struct rnd *r, uint32_t x, uint32_t k, bool simple)
{
	uint32_t u = r->ls.e[k][0], v = r->ls.e[k][1];

	return u != x && v != x && (!simple || (!adjacent(&r->ls, x, u) &&
						 !adjacent(&r->ls, x, v)));
}

/* A link for x to splice into: random tries for one whose ends x is not
 * linked to, then a scan for such a link, then any link not touching x. */
static bool find_splice(struct rnd *r, uint32_t x, uint32_t *k)
{
	for (int t = 0; t < TRIES; t++) {
		*k = rng_below(&r->g->rng, r->ls.n);
		if (single_ok(r, x, *k, true))
			return true;
	}
	for (int simple = 1; simple >= 0; simple--)
		for (*k = 0; *k < r->ls.n; ++*k)
			if (single_ok(r, x, *k, simple))
				return true;
	return false;
}

/* Only switch x has free ports (at least two, since every link takes two
 * ports): splice x into a link (u,v) not touching it.  Such a link exists
 * because the other switches are full and their capacities are within
 * one of x's, so they cannot all be spent on links to x. */
static int rewire_single(struct rnd *r, struct ibr_error *err)
{
	uint32_t x = r->open[0], k;

	if (r->cap[x] < 2 || !find_splice(r, x, &k))
		return ibr_error_set(err, "generate: random: internal: cannot "
				     "place the last links on sw%u", x);
	rewire(r, k, x, r->ls.e[k][0], x, r->ls.e[k][1]);
	return 0;
}

/* Extra links up to `want`: simple ones first, rewiring next, a parallel
 * link only when both failed (it is unavoidable once deg > sw-1). */
static int random_extra(struct rnd *r, struct ibr_error *err)
{
	while (r->ls.n < r->want) {
		uint32_t a, b;
		if (r->nopen == 0)
			return ibr_error_set(err, "generate: random: internal: "
					     "out of ports at link %u", r->ls.n);
		if (r->nopen == 1) {
			if (rewire_single(r, err))
				return -1;
			continue;
		}
		if (try_simple_pair(r) || try_rewire_pair(r))
			continue;
		open_pair(r, &a, &b);
		add_link(r, a, b);
	}
	return 0;
}

/* Ports must hold every CA port plus both ends of every link; CA counts
 * differ by one at most, so the total is the whole story. */
static int random_check(struct gen *g, uint32_t want, struct ibr_error *err)
{
	uint64_t sw = g->v[K_SW], deg = g->v[K_DEG];
	uint64_t ca_ports = g->v[K_CA] * g->v[K_CAPORTS];
	uint64_t need = (2 * (uint64_t)want + ca_ports + sw - 1) / sw;

	if (sw == 1 && deg > 0)
		return ibr_error_set(err, "generate: random: deg=%llu needs sw >= 2 "
				     "(one switch has no switch links; use deg=0)",
				     (unsigned long long)deg);
	if (deg * sw < 2 * (sw - 1))
		return ibr_error_set(err, "generate: random: deg=%llu cannot connect "
				     "sw=%llu switches: a spanning tree alone has "
				     "average degree %.2f", (unsigned long long)deg,
				     (unsigned long long)sw, 2.0 * (sw - 1) / sw);
	if (g->v[K_PORTS] < need)
		return ibr_error_set(err, "generate: random: deg=%llu needs ports >= "
				     "%llu with sw=%llu ca=%llu caports=%llu, got "
				     "ports=%llu", (unsigned long long)deg,
				     (unsigned long long)need, (unsigned long long)sw,
				     (unsigned long long)g->v[K_CA],
				     (unsigned long long)g->v[K_CAPORTS],
				     (unsigned long long)g->v[K_PORTS]);
	return check_ca_guids(g, g->v[K_CA], err);
}

/* Nodes and ports from the link list: links first, in creation order. */
static int random_emit(struct rnd *r, const uint32_t *ca_order,
		       struct ibr_error *err)
{
	struct gen *g = r->g;
	char desc[32];

	for (uint32_t s = 0; s < r->sw; s++) {
		snprintf(desc, sizeof(desc), "sw%u", s);
		if (add_switch(g, (unsigned)g->v[K_PORTS], desc, err))
			return -1;
		g->next_port[s] = 1;
	}
	for (uint32_t i = 0; i < r->ls.n; i++)
		if (link_next(g, r->ls.e[i][0], r->ls.e[i][1], err))
			return -1;
	return attach_cas(g, g->v[K_CA], ca_order, r->sw, err);
}

static int random_build(struct gen *g, struct ibr_error *err)
{
	struct rnd r = { .g = g, .sw = (uint32_t)g->v[K_SW] };
	uint64_t ca_ports = g->v[K_CA] * g->v[K_CAPORTS];
	uint32_t *ca_order = NULL;
	int rc = -1;

	/* ceil: the average degree reaches deg; never below the tree's
	 * sw-1 links, as random_check() rejects such a deg */
	r.want = (uint32_t)((g->v[K_DEG] * r.sw + 1) / 2);
	if (random_check(g, r.want, err))
		return -1;
	r.cap = malloc(r.sw * sizeof(*r.cap));
	r.open = malloc(r.sw * sizeof(*r.open));
	r.pos = malloc(r.sw * sizeof(*r.pos));
	g->next_port = malloc(r.sw);
	ca_order = permutation(r.sw, &g->rng);
	if (links_init(&r.ls, r.want) || !r.cap || !r.open || !r.pos ||
	    !g->next_port || !ca_order) {
		oom(err);
		goto out;
	}
	for (uint32_t i = 0; i < r.sw; i++)
		r.cap[ca_order[i]] = (uint32_t)g->v[K_PORTS] -
				     ca_ports_at(ca_ports, r.sw, i);
	if (random_tree(&r, err) == 0 && random_extra(&r, err) == 0)
		rc = random_emit(&r, ca_order, err);
out:
	links_free(&r.ls);
	free(r.cap);
	free(r.open);
	free(r.pos);
	free(ca_order);
	return rc;
}

/* ---- clos ----------------------------------------------------------- */

static int clos_check(struct gen *g, unsigned leaf_ports, unsigned spine_ports,
		      struct ibr_error *err)
{
	unsigned long long leaf = g->v[K_LEAF], spine = g->v[K_SPINE];
	unsigned long long up = g->v[K_UPLINKS];

	if (spine_ports > IBR_MAX_PORTS)
		return ibr_error_set(err, "generate: clos: leaf=%llu uplinks=%llu "
				     "needs %u ports per spine, more than %u",
				     leaf, up, spine_ports, IBR_MAX_PORTS);
	if (leaf_ports > IBR_MAX_PORTS)
		return ibr_error_set(err, "generate: clos: spine=%llu uplinks=%llu "
				     "ca=%llu needs %u ports per leaf, more than %u",
				     spine, up, (unsigned long long)g->v[K_CA],
				     leaf_ports, IBR_MAX_PORTS);
	return check_ca_guids(g, g->v[K_CA], err);
}

static int clos_emit(struct gen *g, unsigned leaf_ports, unsigned spine_ports,
		     struct ibr_error *err)
{
	uint32_t leaves = (uint32_t)g->v[K_LEAF], spines = (uint32_t)g->v[K_SPINE];
	char desc[32];

	for (uint32_t i = 0; i < leaves + spines; i++) {
		if (i < leaves)
			snprintf(desc, sizeof(desc), "leaf%u", i);
		else
			snprintf(desc, sizeof(desc), "spine%u", i - leaves);
		if (add_switch(g, i < leaves ? leaf_ports : spine_ports, desc,
			       err))
			return -1;
		g->next_port[i] = 1;
	}
	for (uint32_t i = 0; i < leaves; i++)
		for (uint32_t j = 0; j < spines; j++)
			for (uint64_t u = 0; u < g->v[K_UPLINKS]; u++)
				if (link_next(g, i, leaves + j, err))
					return -1;
	return 0;
}

static int clos_build(struct gen *g, struct ibr_error *err)
{
	uint32_t leaves = (uint32_t)g->v[K_LEAF], spines = (uint32_t)g->v[K_SPINE];
	uint64_t ca_ports = g->v[K_CA] * g->v[K_CAPORTS];
	uint64_t up = g->v[K_UPLINKS] * spines;
	uint64_t leaf_ports = up + ca_ports_at(ca_ports, leaves, 0);
	uint64_t spine_ports = g->v[K_UPLINKS] * leaves;
	uint32_t *order;
	int rc;

	if (clos_check(g, (unsigned)leaf_ports, (unsigned)spine_ports, err))
		return -1;
	g->next_port = malloc(leaves + spines);
	order = permutation(leaves, &g->rng);
	if (!g->next_port || !order) {
		free(order);
		return oom(err);
	}
	rc = clos_emit(g, (unsigned)leaf_ports, (unsigned)spine_ports, err);
	if (rc == 0)
		rc = attach_cas(g, g->v[K_CA], order, leaves, err);
	free(order);
	return rc;
}

/* ---- torus ---------------------------------------------------------- */

struct tlink {
	uint32_t a, b;            /* a's +d neighbour is b */
	uint8_t pa, pb;
	bool tree, broken;
};

static uint32_t uf_find(uint32_t *parent, uint32_t x)
{
	while (parent[x] != x) {
		parent[x] = parent[parent[x]];
		x = parent[x];
	}
	return x;
}

/* Every ring link, switch by switch and dimension by dimension; a ring of
 * two is a single link. */
static uint32_t torus_links(const struct gen *g, uint32_t sw, struct tlink *l)
{
	uint32_t n = 0;

	for (uint32_t s = 0; s < sw; s++) {
		uint32_t stride = 1;
		for (unsigned d = 0; d < g->ndims; d++) {
			uint32_t size = g->dims[d], c = s / stride % size;
			if (size > 2 || c == 0) {
				uint32_t t = s - c * stride + (c + 1) % size * stride;
				l[n++] = (struct tlink){ s, t, 2 * d + 1, 2 * d + 2,
							 false, false };
			}
			stride *= size;
		}
	}
	return n;
}

/* Breaks `broken` random links, none of a random spanning tree: Kruskal
 * over a shuffled order picks the tree, links are then broken in the
 * reverse of that order, skipping tree links. */
static int torus_break(struct gen *g, struct tlink *l, uint32_t n, uint32_t sw,
		       struct ibr_error *err)
{
	uint32_t *order = permutation(n, &g->rng);
	uint32_t *parent = malloc(sw * sizeof(*parent)), left;

	if (!order || !parent) {
		free(order);
		free(parent);
		return oom(err);
	}
	for (uint32_t s = 0; s < sw; s++)
		parent[s] = s;
	for (uint32_t i = 0; i < n; i++) {
		struct tlink *k = &l[order[i]];
		uint32_t ra = uf_find(parent, k->a), rb = uf_find(parent, k->b);
		if (ra != rb) {
			parent[ra] = rb;
			k->tree = true;
		}
	}
	left = (uint32_t)g->v[K_BROKEN];
	for (uint32_t i = n; i > 0 && left > 0; i--)
		if (!l[order[i - 1]].tree) {
			l[order[i - 1]].broken = true;
			left--;
		}
	free(order);
	free(parent);
	return 0;
}

static int torus_emit(struct gen *g, const struct tlink *l, uint32_t n,
		      uint32_t sw, unsigned ports, struct ibr_error *err)
{
	char desc[48];

	for (uint32_t s = 0; s < sw; s++) {
		uint32_t x = s % g->dims[0], y = s / g->dims[0] % g->dims[1];
		if (g->ndims == 3)
			snprintf(desc, sizeof(desc), "sw(%u,%u,%u)", x, y,
				 s / (g->dims[0] * g->dims[1]));
		else
			snprintf(desc, sizeof(desc), "sw(%u,%u)", x, y);
		if (add_switch(g, ports, desc, err))
			return -1;
		g->next_port[s] = (uint8_t)(2 * g->ndims + 1);
	}
	for (uint32_t i = 0; i < n; i++)
		if (!l[i].broken &&
		    ibr_fabric_connect(g->f, l[i].a, l[i].pa, l[i].b, l[i].pb, err))
			return -1;
	return attach_cas(g, g->v[K_CA] * sw, NULL, sw, err);
}

static int torus_build(struct gen *g, struct ibr_error *err)
{
	uint32_t sw = 1, n;
	uint64_t ports = 2 * g->ndims + g->v[K_CA] * g->v[K_CAPORTS];
	struct tlink *l;
	int rc = -1;

	for (unsigned d = 0; d < g->ndims; d++)
		sw *= g->dims[d];
	if (ports > IBR_MAX_PORTS)
		return ibr_error_set(err, "generate: torus: ca=%llu caports=%llu "
				     "needs %llu ports per switch, more than %u",
				     (unsigned long long)g->v[K_CA],
				     (unsigned long long)g->v[K_CAPORTS],
				     (unsigned long long)ports, IBR_MAX_PORTS);
	if (check_ca_guids(g, g->v[K_CA] * sw, err))
		return -1;
	l = malloc(g->ndims * sw * sizeof(*l));
	g->next_port = malloc(sw);
	if (!l || !g->next_port) {
		free(l);
		return oom(err);
	}
	n = torus_links(g, sw, l);
	if (g->v[K_BROKEN] > n - (sw - 1))
		ibr_error_set(err, "generate: torus: broken=%llu would disconnect "
			      "the switches: at most %u of its %u links can break",
			      (unsigned long long)g->v[K_BROKEN], n - (sw - 1), n);
	else if (torus_break(g, l, n, sw, err) == 0)
		rc = torus_emit(g, l, n, sw, (unsigned)ports, err);
	free(l);
	return rc;
}

/* ---- entry point ---------------------------------------------------- */

struct ibr_fabric *ibr_generate(const char *spec, struct ibr_error *err)
{
	struct gen g = { .spec = spec };
	struct ibr_fabric *f = NULL;

	if (parse_spec(&g, err))
		return NULL;
	rng_seed(&g.rng, g.v[K_SEED]);
	g.f = ibr_fabric_new();
	if (!g.f)
		oom(err);
	else if (g.kind->build(&g, err) == 0)
		f = g.f;
	else
		ibr_fabric_free(g.f);
	free(g.next_port);
	return f;
}
