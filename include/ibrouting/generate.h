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
 *       2-level Clos: every leaf linked to every spine; CAs on the leaves.
 *   torus:dims=4x4x4,ca=1,broken=3,seed=1
 *       2D or 3D torus with `broken` random links removed (never one that
 *       would disconnect the switches); `ca` CAs per switch.
 *   fattree:ports=8,levels=3,broken=0,seed=1
 *       m-port n-tree (the fat tree of lid-assignment-color-l §VI-C: 8-port
 *       3-tree, 80 switches, 128 machines), broken links as the torus's.
 * The same spec always yields the same fabric (a private xorshift RNG).
 * The fabric is returned not finalized, GUIDs and descriptions set as
 * ibsim would number them, LIDs left for ibr_fabric_finalize().
 */
#ifndef IBROUTING_GENERATE_H
#define IBROUTING_GENERATE_H

#include "ibrouting/fabric.h"

struct ibr_fabric *ibr_generate(const char *spec, struct ibr_error *err);

#endif
