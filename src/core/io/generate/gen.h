/*
 * gen.h - what the generator's files share (internal to src/core/io/
 * generate/): the spec as parsed, the private RNG, the building blocks
 * every kind uses, and one builder per kind.  See generate.c for the
 * invariants of every fabric generated.
 */
#ifndef IBROUTING_CORE_GEN_H
#define IBROUTING_CORE_GEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ibrouting/generate.h"

#define SW_GUID_BASE 0x200000ull
#define CA_GUID_BASE 0x100000ull
#define MAX_SWITCHES 65536u
#define TRIES        64     /* random attempts before a costlier fallback */
#define SCAN_MAX     64     /* open switches few enough to try every pair */
/* CA GUIDs must stay below the switch range: ca * (caports+1) <= 2^20. */
#define MAX_CAS (CA_GUID_BASE / 2)

/* ---- rng.c: xorshift64*, private so that a spec is reproducible ---- */

struct rng {
	uint64_t s;
};

void gen_rng_seed(struct rng *r, uint64_t seed);
uint64_t gen_rng_next(struct rng *r);
uint32_t gen_rng_below(struct rng *r, uint32_t n);
void gen_shuffle(uint32_t *a, uint32_t n, struct rng *r);
uint32_t *gen_permutation(uint32_t n, struct rng *r);

/* ---- spec.c: the spec, parsed ------------------------------------- */

enum key {
	K_SW, K_CA, K_DEG, K_PORTS, K_LEAF, K_SPINE, K_UPLINKS, K_DIMS,
	K_BROKEN, K_CAPORTS, K_SEED, K_LEVELS, K_K, K_N, K_CUT, K_DOWN,
	K_OVERSUB, K_AGG, K_SPINEHOSTS, K_GROUPS, K_LEAVES, K_SPINES,
	K_HOSTS, K_GLOBAL, K_ISOLATE, K_COUNT
};


/* One key a kind accepts; min/max do not apply to dims.  help: what the
 * value means, for ibr_generate_help(). */
struct param {
	enum key key;
	bool required;
	uint64_t def, min, max;
	const char *help;
};

struct gen;

struct kind {
	const char *name;
	const struct param *params; /* ends with key == K_COUNT */
	int (*build)(struct gen *g, struct ibr_error *err);
	const char *what;           /* the fabric it makes, for the help */
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
	uint64_t cas;             /* CAs made so far: the next one's index */
};

int gen_parse_spec(struct gen *g, struct ibr_error *err);
/* "k", "cut", ...: a key as a spec spells it, for messages. */
const char *gen_key_name(enum key key);

/* ---- build.c: blocks shared by the kinds ----------------------------- */

int gen_oom(struct ibr_error *err);
int gen_add_switch(struct gen *g, unsigned ports, const char *desc,
		   struct ibr_error *err);
int gen_link_next(struct gen *g, uint32_t a, uint32_t b,
		  struct ibr_error *err);
int gen_check_ca_guids(struct gen *g, uint64_t cas, struct ibr_error *err);
int gen_attach_cas(struct gen *g, uint64_t cas, const uint32_t *order,
		   uint32_t n, struct ibr_error *err);
uint32_t gen_ca_ports_at(uint64_t total, uint32_t n, uint32_t pos);

/* The CAs a kind adds after its hosts (agg, spinehosts; 0 for a kind
 * without those keys): spinehosts=N host CAs round robin over the top
 * switches, then with agg=1 one aggregation node per switch, a 1-port CA
 * described "Mellanox Technologies Aggregation Node" on the switch's last
 * port, as an NVIDIA Quantum switch reports its SHARP node.
 * gen_extra_cas: how many for `switches` switches (for the GUID check);
 * gen_top_ports: the ports a top switch needs for the spine hosts among
 * `tops` top switches; gen_extras_text: " spinehosts=N agg=1" as given,
 * for messages about port counts.  gen_attach_extras takes the spine
 * hosts on the tops' next free ports, so the caller sets those first, and
 * sized every switch one port more with agg. */
#define GEN_AGG_DESC "Mellanox Technologies Aggregation Node"
uint64_t gen_extra_cas(const struct gen *g, uint32_t switches);
unsigned gen_top_ports(const struct gen *g, uint32_t tops);
const char *gen_extras_text(const struct gen *g, char *buf, size_t len);
int gen_attach_extras(struct gen *g, const uint32_t *tops, uint32_t ntop,
		      struct ibr_error *err);

/* A link of a regular fabric (torus, fat tree) before it is made: switch
 * a's port pa to switch b's port pb. */
struct gen_link {
	uint32_t a, b;
	uint8_t pa, pb;
	bool tree, broken;
};

/* Marks g->v[key] random links broken (key: broken or cut), none of a
 * random spanning tree of the sw switches, so the rest stays connected;
 * refuses, naming the key and its value, more than the links outside a
 * tree.  The links must connect switches 0..sw-1. */
int gen_break_links(struct gen *g, enum key key, struct gen_link *l,
		    uint32_t n, uint32_t sw, struct ibr_error *err);

/* Takes down g->v[K_DOWN] random switches of [first, first + count) (the
 * top level: `what` names them in messages) with all their links: drops
 * those links from l, renumbers the switches left densely in their old
 * order (map[old] = new id, IBR_NONE for one taken down; a and b of the
 * links kept are renumbered) and updates *n.  The candidates come in
 * groups of `per` consecutive switches (per = count: one group), of which
 * at most per - 1 go; a candidate whose loss would disconnect the sw
 * switches is passed over.  Refuses a `down` that cannot be met so. */
int gen_take_down(struct gen *g, uint32_t first, uint32_t count,
		  uint32_t per, const char *what, struct gen_link *l,
		  uint32_t *n, uint32_t sw, uint32_t *map,
		  struct ibr_error *err);

/* ---- one builder per kind: random.c, clos.c, torus.c, fattree.c,
 * kary.c, dfplus.c ------------------------------------------------------- */

int gen_random_build(struct gen *g, struct ibr_error *err);
int gen_clos_build(struct gen *g, struct ibr_error *err);
int gen_torus_build(struct gen *g, struct ibr_error *err);
int gen_fattree_build(struct gen *g, struct ibr_error *err);
int gen_kary_build(struct gen *g, struct ibr_error *err);
int gen_dfplus_build(struct gen *g, struct ibr_error *err);

#endif
