/*
 * generate.c - synthetic fabrics from a one-line spec (see generate.h).
 *
 * Spec: kind[:key=value{,key=value}], numbers in decimal or 0x hex.
 *   random  sw (required, 1..65536)  ca=0 (total)  deg=8  ports=36
 *           caports=1  seed=1
 *   clos    leaf (required, 1..254)  spine (required, 1..254)  ca=0 (total)
 *           uplinks=1 (parallel links per leaf-spine pair)  caports=1
 *           oversub (unset; 1..254: R*spine*uplinks CA ports per leaf, an
 *           R:1 leaf; excludes ca)  cut=0  down=0 (spines)  seed=1
 *   torus   dims=AxB or AxBxC (required, each 2..256)  ca=1 (per switch)
 *           broken=0  caports=1  seed=1
 *   fattree ports=8 (m, even)  levels=3 (n, 2..8)  broken=0  seed=1: an
 *           m-port n-tree, one machine per leaf down port
 *   kary    k (required, 2..127)  n (required, 2..6)  cut=0  down=0  seed=1:
 *           a k-ary n-tree, 2k-port switches, one CA per leaf down port
 *   dfplus  groups (required, 2..)  leaves, spines (required, per group)
 *           hosts=spines (per leaf)  global=1 (links per group pair)  cut=0
 *           down=0 (spines)  isolate=0 (group pairs)  agg=0  seed=1: a
 *           Dragonfly+, complete bipartite groups, spines linked across
 * cut=N removes N random switch links, never one that would disconnect
 * the switches (too many is an error; dfplus cuts global links only);
 * down=N removes N random top-level switches (kary level 0, clos and
 * dfplus spines) with their links, at least one left (in every dfplus
 * group) and the switches still connected; isolate=N (dfplus) removes all
 * the direct links of N random group pairs, the groups still connected.
 * clos, fattree and kary also take spinehosts=N (N more host CAs round
 * robin over the top-level switches, on ports after their links) and
 * agg=1 (one SHARP aggregation node per switch, "Mellanox Technologies
 * Aggregation Node", a 1-port CA on one more switch port, its last).
 * caports=2 makes 2-port HCAs whose ports hang off two different switches
 * (whenever there are two).  Anything else in a spec is an error naming
 * the offending key and value.
 *
 * Invariants of every fabric returned (not finalized):
 *   - node ids: switches first, so switch i is node i, then CA i is node
 *     S+i: the hosts, then the spine hosts, then the aggregation nodes (so
 *     the hosts are the same with or without those).  GUIDs are those
 *     ibsim gives when the nodes are written in that order: switch i
 *     0x200000+i, CA i 0x100000+i*(caports+1) (an aggregation node too,
 *     though it has one port), CA port p node GUID+p; so CA GUIDs stay
 *     below the switch range (checked).
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
 *   - fattree: see fattree.c for the labels and ports; broken links as
 *     the torus's (never disconnecting), machines round robin over leaves.
 *   - kary: see kary.c: levels top (0) to leaves, down ports 1..k, up
 *     ports k+1..2k, CAs round robin over the leaves; switches taken down
 *     leave no node, the others keep their "kary L<l> S<pos>" names.
 *   - clos: fixed ports as above, so cut links and spines taken down
 *     leave dark ports and renumber no port.
 *   - dfplus: see dfplus.c: leaves then spines, group by group, "dfplus
 *     g<g> leaf|spine <i>"; fixed ports (damage leaves them dark); every
 *     spine of a group carries the same number of global links, +-1.
 *   - random and clos spread CA ports round-robin over a random permutation
 *     of the switches (leaves): per-switch counts differ by at most one.
 *   - the fabric is a function of the spec alone: a private xorshift64*
 *     seeded from `seed`, no global state, no clock.
 *   - O(switches + CAs + links) time and memory.
 *
 * The work is split by concern in src/core/io/generate/: spec.c (parsing),
 * rng.c (the RNG), build.c (shared blocks, damage, extras), random.c,
 * clos.c, torus.c, fattree.c, kary.c, dfplus.c (one builder per kind);
 * this file is the entry point.
 */
#include <stdlib.h>

#include "gen.h"

struct ibr_fabric *ibr_generate(const char *spec, struct ibr_error *err)
{
	struct gen g = { .spec = spec };
	struct ibr_fabric *f = NULL;

	if (gen_parse_spec(&g, err))
		return NULL;
	gen_rng_seed(&g.rng, g.v[K_SEED]);
	g.f = ibr_fabric_new();
	if (!g.f)
		gen_oom(err);
	else if (g.kind->build(&g, err) == 0)
		f = g.f;
	else
		ibr_fabric_free(g.f);
	free(g.next_port);
	return f;
}
