/*
 * topology.h - what kind of fabric this is, recognised from its switch
 * graph and its hosts, and the roots that kind calls for (the `auto`
 * root strategy, roots.h).
 *
 * Hosts are the CA ports that are not aggregation nodes: a SHARP
 * aggregation node is a CA inside a switch (NVIDIA Quantum switches put
 * one on the port above their physical ports), recognised by its node
 * description ("... Aggregation Node").  Its traffic is routed as any CA
 * port's; it only does not make its switch a leaf.
 *
 * The classes, tried in this order:
 *   fat tree (or Clos network): the switches with hosts are the leaves
 *     (level 0), a switch's level is its distance to the nearest leaf,
 *     every link joins adjacent levels and every leaf is as far from the
 *     top level as the top is high.  The roots are the top level.
 *   Dragonfly+: no links between leaves; the groups (the parts the
 *     leaf-spine links make) are two or more, every link between two
 *     spines joins two groups.  The roots are the spines: every minimal
 *     route (leaf, spine, global link, spine, leaf) is then legal.
 *   irregular: neither; no root set is recognised.
 *
 * What real fabrics carry is tolerated, and each tolerance is a note:
 *   - switches that hang off the rest by one switch (a management leaf on
 *     a spine, a leaf with one uplink left) are left out of the test: the
 *     structure is the biconnected block of the switch graph holding the
 *     most hosts;
 *   - hosts on switches above the leaves (storage cabled to a spine):
 *     while two switches with hosts are linked, the one with more such
 *     links (then fewer hosts, then the higher LID) stops being a leaf,
 *     as long as those switches hold at most a quarter of the hosts;
 *   - a top level much thinner than the level below it (fewer than a
 *     quarter of its links: management spines above the cores, a leaf
 *     with no host left above a Clos) is set aside, not made the roots.
 *
 * Invariants: the result depends on the fabric, not on the order a file
 * lists it in (every tie goes to LIDs); roots are sorted by LID; a
 * class other than irregular has at least one root.
 */
#ifndef IBROUTING_TOPOLOGY_H
#define IBROUTING_TOPOLOGY_H

#include <stdbool.h>
#include <stdint.h>

#include "ibrouting/fabric.h"

enum ibr_topology_class {
	IBR_TOPO_FAT_TREE,
	IBR_TOPO_DRAGONFLY_PLUS,
	IBR_TOPO_IRREGULAR,
};

#define IBR_TOPO_NOTES 6

struct ibr_topology {
	enum ibr_topology_class kind;
	uint32_t *roots;            /* switch indexes by LID; NULL if irregular */
	uint32_t num_roots;
	uint32_t levels;            /* fat tree: switch levels */
	uint32_t groups;            /* Dragonfly+: groups */
	uint32_t *group;            /* Dragonfly+: per switch, IBR_NONE if none */
	char summary[200];          /* "3-level fat tree: 200 leaves, ..." */
	char notes[IBR_TOPO_NOTES][240]; /* each tolerance, a sentence */
	uint32_t num_notes;
};

/* Recognises f (indexed).  t is freed with ibr_topology_free(), also
 * after a failure (out of memory, the only error). */
int ibr_topology_recognise(const struct ibr_fabric *f, struct ibr_topology *t,
			   struct ibr_error *err);
void ibr_topology_free(struct ibr_topology *t);

const char *ibr_topology_class_name(enum ibr_topology_class kind);

/* A CA whose node description names a SHARP aggregation node. */
bool ibr_is_aggregation_node(const struct ibr_node *n);

/* hosts[s]: the CA ports at switch s that are hosts, for every switch;
 * returns the total. */
uint32_t ibr_switch_hosts(const struct ibr_fabric *f, uint32_t *hosts);

#endif
