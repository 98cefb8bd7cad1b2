/*
 * repair.c - a column kept where it holds, mended where it does not
 * (repair.h says what holding means and why mending ends).
 *
 * Judging is one memoised pass: each switch's walk is followed until it
 * ends (delivered, or a hole) or meets a switch already judged, then the
 * chain is judged backwards from there; a walk that meets its own chain
 * loops and is broken.  A switch entered by a down hop must go on down:
 * a hop x -> t holds when t's walk holds and the hop climbs, or descends
 * into a walk that only descends.
 */
#include <stdlib.h>
#include <string.h>

#include "ibrouting/repair.h"

int ibr_repair_init(struct ibr_repair *rp, const struct ibr_fabric *f,
		    const struct ibr_updown *ud, const struct ibr_walker *w,
		    struct ibr_error *err)
{
	uint32_t S = f->num_switches ? f->num_switches : 1;

	*rp = (struct ibr_repair){ .f = f, .ud = ud, .w = w };
	rp->verdict = malloc(S);
	rp->chain = malloc(S * sizeof(uint32_t));
	rp->chain_next = malloc(S * sizeof(uint32_t));
	if (!rp->verdict || !rp->chain || !rp->chain_next) {
		ibr_repair_free(rp);
		return ibr_error_set(err, "out of memory to mend columns of %u "
				     "switches", f->num_switches);
	}
	return 0;
}

void ibr_repair_free(struct ibr_repair *rp)
{
	free(rp->verdict);
	free(rp->chain);
	free(rp->chain_next);
	rp->verdict = NULL;
	rp->chain = rp->chain_next = NULL;
}

/* The verdict of x, whose hop leads to t judged `after`. */
static uint8_t combine(const struct ibr_repair *rp, uint32_t x, uint32_t t,
		       uint8_t after)
{
	if (after != IBR_WALK_DOWN && after != IBR_WALK_UP)
		return IBR_WALK_BROKEN;
	if (ibr_link_is_up(rp->f, rp->ud, x, t))
		return IBR_WALK_UP;
	/* down, then up: illegal */
	return after == IBR_WALK_DOWN ? IBR_WALK_DOWN : IBR_WALK_BROKEN;
}

void ibr_repair_judge(struct ibr_repair *rp, const uint8_t *col, ibr_lid_t lid)
{
	uint32_t S = rp->f->num_switches;
	uint8_t *v = rp->verdict;

	memset(v, IBR_WALK_UNKNOWN, S);
	for (uint32_t s = 0; s < S; s++) {
		uint32_t n = 0, x = s, t = IBR_NONE;
		uint8_t tail = IBR_WALK_BROKEN;

		if (v[s] != IBR_WALK_UNKNOWN)
			continue;
		for (;;) {
			enum ibr_step st = ibr_walker_step(rp->w, x, lid, col[x],
							   &t);
			rp->chain[n++] = x;
			v[x] = IBR_WALK_VISITING;
			if (st != IBR_STEP_NEXT) {
				tail = st == IBR_STEP_ARRIVED ? IBR_WALK_DOWN :
				       IBR_WALK_BROKEN;
				t = IBR_NONE;
				break;
			}
			rp->chain_next[n - 1] = t;
			if (v[t] != IBR_WALK_UNKNOWN)
				break;  /* judged, or a loop (VISITING) */
			x = t;
		}
		/* the last of the chain ends the walk or joins a known one */
		x = rp->chain[n - 1];
		v[x] = t == IBR_NONE ? tail : combine(rp, x, t, v[t]);
		for (uint32_t i = n - 1; i-- > 0;) {
			x = rp->chain[i];
			v[x] = combine(rp, x, rp->chain_next[i],
				       v[rp->chain_next[i]]);
		}
	}
}

void ibr_repair_prune(struct ibr_repair *rp, uint8_t *col, ibr_lid_t lid)
{
	ibr_repair_judge(rp, col, lid);
	for (uint32_t s = 0; s < rp->f->num_switches; s++)
		if (rp->verdict[s] == IBR_WALK_BROKEN)
			col[s] = IBR_NO_PATH;
}

uint32_t ibr_repair_column(struct ibr_repair *rp, uint8_t *col,
			   const uint8_t *fallback, ibr_lid_t lid,
			   bool renamed)
{
	uint32_t S = rp->f->num_switches, changed = 0;
	bool again = true;

	while (again) {
		again = false;
		ibr_repair_judge(rp, col, lid);
		for (uint32_t s = 0; s < S; s++) {
			uint32_t x = s, t, n = 0;
			if (rp->verdict[s] != IBR_WALK_BROKEN ||
			    (renamed && col[s] == IBR_NO_PATH))
				continue;
			/* s takes fallback's walk, as far as it differs */
			while (n++ <= S) {
				if (col[x] != fallback[x]) {
					col[x] = fallback[x];
					changed++;
					again = true;
				}
				if (ibr_walker_step(rp->w, x, lid, col[x], &t) !=
				    IBR_STEP_NEXT)
					break;
				x = t;
			}
		}
	}
	return changed;
}
