/*
 * lidassign.h - LID assignment for one destination (lid-assignment-color-l
 * §II-§V): the paths to one destination are split into configurations
 * (sets of paths no two of which split, Definition 2), one LID each; the
 * fewer, the better.
 *
 * Paths are given as the hops they make: path i leaves switch sw[j] by
 * port[j], j in [first[i], first[i + 1]).  Two paths split when they leave
 * a common switch by different ports (Definition 1).  Paths with the same
 * hops are one path to every heuristic (they never split and always share
 * a configuration); the caller need not merge them.
 *
 * Heuristics (§V): greedy (Fig. 6), split-merge/S and /L (Fig. 7: split
 * by switches used by the fewest / most paths first, then greedy merge),
 * color/S and color/L (Fig. 9: colour the split graph one colour at a
 * time, taking the path that splits with the fewest / most uncoloured
 * paths first, input paths with equal hops counted each), and the exact
 * 0-1 ILP of §IV solved with GLPK: starting from the best heuristic's k
 * (color/L first among equals) it solves SD(k-1), SD(k-2), ... until one
 * is infeasible or k meets a clique of the split graph; when the time
 * limit runs out, the best colouring found is kept and `exact` is false.
 * Split-merge keeps the paths that do not cross the split switch with the
 * largest port group there (otherwise it would always equal greedy).
 *
 * Invariants of a result: color[i] < k for every path; two paths with the
 * same colour never split; identical paths get the same colour; the same
 * input gives the same colours (ties go to the lower path index).
 */
#ifndef IBROUTING_LIDASSIGN_H
#define IBROUTING_LIDASSIGN_H

#include <stdbool.h>
#include <stdint.h>

#include "ibrouting/error.h"

enum ibr_lid_heuristic {
	IBR_LA_GREEDY,
	IBR_LA_SPLIT_MERGE_S,
	IBR_LA_SPLIT_MERGE_L,
	IBR_LA_COLOR_S,
	IBR_LA_COLOR_L,
	IBR_LA_ILP,
	IBR_LA_COUNT
};

/* "greedy", "split-merge/S", "split-merge/L", "color/S", "color/L",
 * "ilp"; parse also accepts them in lower case and "sm-s", "sm-l",
 * "color-s", "color-l", "colors", "colorl". */
const char *ibr_lid_heuristic_name(enum ibr_lid_heuristic h);
int ibr_lid_heuristic_parse(const char *name, enum ibr_lid_heuristic *h);

/* The paths to one destination (see above). */
struct ibr_dest_paths {
	uint32_t num_paths;
	const uint32_t *first;      /* num_paths + 1 entries */
	const uint32_t *sw;         /* switch index per hop */
	const uint8_t *port;        /* output port per hop */
};

struct ibr_lid_assign_options {
	enum ibr_lid_heuristic heuristic;
	double ilp_seconds;         /* IBR_LA_ILP: time limit per destination */
};

/* Scratch reused from one destination to the next (opaque). */
struct ibr_lid_assigner;

int ibr_lid_assigner_new(struct ibr_lid_assigner **a, uint32_t num_switches,
			 struct ibr_error *err);
void ibr_lid_assigner_free(struct ibr_lid_assigner *a);

/* Colours every path of p (color[i], 0-based) and sets *k to the number
 * of colours (configurations; 0 for no path); *exact (may be NULL) says
 * whether k is proven minimal (the ILP finished, or k <= 1, or k equals a
 * clique of the split graph).  Returns 0, or -1 after a message: no
 * memory, the ILP asked for in a build without GLPK, a switch index out
 * of range, a path visiting a switch twice, first[] decreasing. */
int ibr_lid_assign(struct ibr_lid_assigner *a, const struct ibr_dest_paths *p,
		   const struct ibr_lid_assign_options *o, uint32_t *color,
		   uint32_t *k, bool *exact, struct ibr_error *err);

/* True when this build can solve the ILP (configure found GLPK). */
bool ibr_lid_ilp_available(void);

#endif
