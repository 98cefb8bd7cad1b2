/*
 * transition.c - one safe step from one set of tables to another (see
 * transition.h for the rules and why they keep every mixed walk legal).
 *
 * Per owned LID, O(S) per pass over the entries that differ: an entry is
 * an up hop, a down hop, a delivery or a hole (no route, or a port that
 * leads nowhere); down_in[] counts the down hops into each switch of cur
 * and of the step so far, next_in[] the hops of the step's tables into
 * it (a hole may open only where none leads), and the pass over the differing
 * entries repeats while one of them moved, so a switch whose way down
 * opened in this pass can follow in the same step.
 *
 * Invariants kept for every LID after every move: no switch is both the
 * head of a down hop of cur or next and the tail of an up hop of cur or
 * next; no hop of next leads into a hole of next.
 */
#include <stdlib.h>
#include <string.h>

#include "ibrouting/repair.h"
#include "ibrouting/transition.h"
#include "ibrouting/walk.h"

enum hop {
	HOP_END,   /* delivered here */
	HOP_HOLE,  /* IBR_NO_PATH, or a port that leads nowhere */
	HOP_UP,
	HOP_DOWN,
};

struct stepper {
	const struct ibr_fabric *f;
	const struct ibr_updown *ud;
	struct ibr_walker w;
	uint32_t *down_in;      /* per switch: down hops into it, cur or next */
	uint32_t *next_in;      /* per switch: hops of next into it */
	uint32_t *todo;         /* switches whose entry differs from fin's */
};

static enum hop classify(const struct stepper *st, uint32_t s, ibr_lid_t lid,
			 uint8_t port, uint32_t *to)
{
	switch (ibr_walker_step(&st->w, s, lid, port, to)) {
	case IBR_STEP_NEXT:
		return ibr_link_is_up(st->f, st->ud, s, *to) ? HOP_UP : HOP_DOWN;
	case IBR_STEP_ARRIVED:
		return HOP_END;
	default:
		return HOP_HOLE;
	}
}

/* May x take fin's entry now?  See transition.h; besides, next stays a
 * set of tables the verifier accepts on its own: no hop of next leads
 * into a hole (a LID above its range's base may have holes; a set entry
 * there must still deliver). */
static bool may_move(const struct stepper *st, const uint8_t *cur,
		     const uint8_t *fin, const uint8_t *next, ibr_lid_t lid,
		     uint32_t x, uint32_t *y)
{
	enum hop h = classify(st, x, lid, fin[x], y);
	uint32_t dummy;

	switch (h) {
	case HOP_END:
		return true;
	case HOP_HOLE:
		return st->next_in[x] == 0;
	case HOP_UP:
		if (st->down_in[x] > 0)
			return false;
		break;
	case HOP_DOWN:
		if (classify(st, *y, lid, cur[*y], &dummy) == HOP_UP ||
		    classify(st, *y, lid, next[*y], &dummy) == HOP_UP)
			return false;
		break;
	}
	return classify(st, *y, lid, next[*y], &dummy) != HOP_HOLE;
}

static uint64_t step_lid(struct stepper *st, const uint8_t *cur,
			 const uint8_t *fin, uint8_t *next, ibr_lid_t lid)
{
	uint32_t S = st->f->num_switches, ntodo = 0, to;
	uint64_t moved = 0;
	bool again = true;

	memset(st->down_in, 0, S * sizeof(*st->down_in));
	memset(st->next_in, 0, S * sizeof(*st->next_in));
	for (uint32_t s = 0; s < S; s++) {
		enum hop h = classify(st, s, lid, cur[s], &to);
		if (h == HOP_DOWN)
			st->down_in[to]++;
		if (h == HOP_UP || h == HOP_DOWN)
			st->next_in[to]++;
		if (cur[s] != fin[s])
			st->todo[ntodo++] = s;
	}
	while (again) {
		again = false;
		for (uint32_t i = 0; i < ntodo; i++) {
			uint32_t x = st->todo[i], y = IBR_NONE, was;
			enum hop h;

			if (next[x] == fin[x] ||
			    !may_move(st, cur, fin, next, lid, x, &y))
				continue;
			h = classify(st, x, lid, next[x], &was);
			if (h == HOP_UP || h == HOP_DOWN)
				st->next_in[was]--;
			h = classify(st, x, lid, fin[x], &y);
			if (h == HOP_UP || h == HOP_DOWN)
				st->next_in[y]++;
			if (h == HOP_DOWN)
				st->down_in[y]++;
			next[x] = fin[x];
			moved++;
			again = true;
		}
	}
	return moved;
}

int ibr_transition_step(const struct ibr_fabric *f,
			const struct ibr_updown *ud,
			const struct ibr_result *cur,
			const struct ibr_result *fin,
			struct ibr_result *next, uint64_t *moved,
			uint64_t *left, struct ibr_error *err)
{
	struct stepper st = { .f = f, .ud = ud };
	uint32_t S = f->num_switches;
	size_t bytes = (size_t)S * (f->max_lid + 1u);
	int rc = -1;

	*moved = *left = 0;
	for (unsigned i = 0; i < 3; i++) {
		const struct ibr_result *r = i == 0 ? cur : i == 1 ? fin : next;
		if (r->num_switches != S || r->num_lids != f->max_lid + 1u)
			return ibr_error_set(err, "transition: tables are %u "
					     "switches x %u LIDs, the fabric "
					     "has %u x %u", r->num_switches,
					     r->num_lids, S, f->max_lid + 1u);
	}
	if (ibr_walker_init(&st.w, f, err))
		return -1;
	st.down_in = malloc((S ? S : 1) * sizeof(*st.down_in));
	st.next_in = malloc((S ? S : 1) * sizeof(*st.next_in));
	st.todo = malloc((S ? S : 1) * sizeof(*st.todo));
	if (!st.down_in || !st.next_in || !st.todo) {
		ibr_error_set(err, "transition: out of memory for %u switches", S);
		goto out;
	}
	memcpy(next->col, cur->col, bytes);
	for (uint32_t lid = 1; lid <= f->max_lid; lid++) {
		const uint8_t *c = ibr_column(cur, lid), *t = ibr_column(fin, lid);
		uint8_t *n = ibr_column(next, lid);

		if (f->lid_owner[lid].node == IBR_NONE) {
			/* nobody's LID: fin's entries (IBR_NO_PATH) at once */
			for (uint32_t s = 0; s < S; s++)
				if (n[s] != t[s]) {
					n[s] = t[s];
					(*moved)++;
				}
			continue;
		}
		if (memcmp(c, t, S) == 0)
			continue;
		*moved += step_lid(&st, c, t, n, lid);
		for (uint32_t s = 0; s < S; s++)
			*left += n[s] != t[s];
	}
	if (ibr_result_set_roots(next, fin->roots, fin->num_roots, err))
		goto out;
	rc = 0;
out:
	ibr_walker_free(&st.w);
	free(st.down_in);
	free(st.next_in);
	free(st.todo);
	return rc;
}
