/*
 * generate.h - synthetic fabrics for tests and benchmarks.
 *
 * A spec is one line, `kind:key=value,...`:
 *   random:sw=256,ca=4096,deg=8,ports=36,seed=1
 *       irregular switch graph: a random spanning tree plus random extra
 *       links until the average switch degree reaches `deg`; CAs spread
 *       round-robin over a random permutation of the switches (uniform,
 *       as the X/Y configurations of lid-assignment-color-l §VI).
 *   clos:leaf=16,spine=8,ca=256,seed=1
 *   clos:leaf=16,spine=8,oversub=2,cut=3,down=1,seed=1
 *       2-level Clos: every leaf linked to every spine; CAs on the leaves,
 *       `ca` in all or `oversub`=R: R CA ports per uplink on every leaf.
 *       `down` random spines removed, `cut` random links removed (neither
 *       ever disconnecting the switches).
 *   torus:dims=4x4x4,ca=1,broken=3,seed=1
 *       2D or 3D torus with `broken` random links removed (never one that
 *       would disconnect the switches); `ca` CAs per switch.
 *   fattree:ports=8,levels=3,broken=0,seed=1
 *       m-port n-tree (the fat tree of lid-assignment-color-l §VI-C: 8-port
 *       3-tree, 80 switches, 128 machines), broken links as the torus's.
 *   kary:k=8,n=3,cut=0,down=0,seed=1
 *       k-ary n-tree (Petrini and Vanneschi): n levels of k^(n-1) switches
 *       of 2k ports, k^n single-port CAs, k on each leaf; `down` random
 *       top-level switches and `cut` random links removed as for clos.
 *   dfplus:groups=9,leaves=4,spines=4,global=2,isolate=0,seed=1
 *       Dragonfly+ (Shpiner et al.): groups of leaves and spines, every leaf
 *       linked to every spine of its group, `global` links per group pair
 *       between spines, spread evenly; `hosts` CAs per leaf (default: one
 *       per spine); `cut` random global links, `down` random spines and
 *       `isolate` random group pairs' direct links removed, as for clos.
 * clos, fattree and kary also take `spinehosts` (more CAs on the top
 * switches) and, with dfplus, `agg=1` (a SHARP aggregation node on every
 * switch's last port, as NVIDIA Quantum switches report theirs).
 * The same spec always yields the same fabric (a private xorshift RNG).
 * The fabric is returned not finalized, GUIDs and descriptions set as
 * ibsim would number them, LIDs left for ibr_fabric_finalize().
 */
#ifndef IBROUTING_GENERATE_H
#define IBROUTING_GENERATE_H

#include <stdio.h>

#include "ibrouting/fabric.h"

struct ibr_fabric *ibr_generate(const char *spec, struct ibr_error *err);

/* The spec grammar, written from the parser's own tables: every kind with
 * every key, its default (or "required") and its range, one key a line. */
void ibr_generate_help(FILE *out);

#endif
