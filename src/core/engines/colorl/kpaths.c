/*
 * kpaths.c - colorl's candidate search (paths.c, at the top: path
 * selection): per destination switch, every state's best walks to it
 * (struct kbest), and for each source switch with CAs its k shortest
 * loop-free legal paths read off them, packed as a group of a struct
 * crossings; over worker threads in waves of destinations.
 *
 * Invariants: candidates in the order (length, sequence of output
 * ports); groups in order (destination, then source switch), one per
 * switch pair with CAs (none for a pair with no legal route); the same
 * candidates in the same order for any number of workers.
 */
#include <stdlib.h>
#include <string.h>

#include "paths_work.h"
#include "util/parallel.h"

#define KBEST_SLACK  8       /* walks kept beyond k, for those that loop */

/* One walk of a state's list: its length, first channel, and which walk
 * of the next state's list it goes on with.  chan IBR_NONE: arrived. */
struct kwalk {
	uint32_t chan;
	uint32_t len_j;         /* len << KWALK_J_BITS | j */
};

/* 8 bytes a walk, not 12: a worker's lists, 2 x switches x kmax walks,
 * stay in its core's cache the longer.  A
 * walk's length is below the states (2 x switches < 2^17 for a fabric
 * the LID space addresses, checked in init_work), and j below KBEST_CAP. */
_Static_assert(KBEST_CAP <= 1u << KWALK_J_BITS, "j fits its bits");

static struct kwalk kwalk_make(uint32_t len, uint32_t chan, uint32_t j)
{
	return (struct kwalk){ chan, len << KWALK_J_BITS | j };
}

static uint32_t kwalk_len(const struct kwalk *e)
{
	return e->len_j >> KWALK_J_BITS;
}

static uint32_t kwalk_j(const struct kwalk *e)
{
	return e->len_j & ((1u << KWALK_J_BITS) - 1);
}

struct kbest {
	uint32_t kmax;          /* walks per state in the lists now */
	size_t cap;             /* kwalks allocated */
	struct kwalk *e;        /* state st's list: e[st * kmax + n], */
	uint32_t *count;        /*   n < count[st] */
	/* per state st, its successors with walks: slots base(st) ..
	 * + nsucc[st] of via/to/cursor hold the channel, the state and how
	 * many of its walks st's list took (kept, so that a longer list
	 * resumes the merge); base(st): U states first, then D states, each
	 * by the switch's first channel */
	uint32_t *nsucc;
	uint32_t *via, *to, *cursor;
	uint32_t *head;         /* per channel: merge_state's scratch */
	uint32_t *mark, tag;    /* per switch: visited by the walk read off */
	uint32_t *walk;         /* its channels */
};
/* Appends an entry for channel ch, no rank crossing it yet. */
static void entry_append(struct crossings *x, uint32_t ch)
{
	if (x->wide) {
		x->ch32[x->num] = ch;
		x->ranks[x->num] = 0;
	} else {
		x->packed[x->num] = ch;
	}
	x->num++;
}

static void entry_add_rank(struct crossings *x, uint32_t e, unsigned r)
{
	if (x->wide)
		x->ranks[e] |= (uint16_t)(1u << r);
	else
		x->packed[e] |= UINT32_C(1) << (16 + r);
}

static int crossings_reserve(struct work *w, struct crossings *x, uint64_t n)
{
	uint64_t cap = x->cap ? x->cap : 4096;

	x->wide = w->C > UINT16_MAX + 1u;
	if (x->num + n <= x->cap)
		return 0;
	while (cap < x->num + n)
		cap *= 2;
	if (cap > UINT32_MAX)
		return ibr_error_set(w->err, "paths: more than 2^32 channels "
				     "crossed by the candidates of all pairs");
	if (x->wide) {
		uint32_t *ch = realloc(x->ch32, cap * sizeof(uint32_t));
		uint16_t *ranks;
		if (ch)
			x->ch32 = ch;
		ranks = ch ? realloc(x->ranks, cap * sizeof(uint16_t)) : NULL;
		if (!ranks)
			return paths_oom(w, "the candidates' channels");
		x->ranks = ranks;
	} else {
		uint32_t *packed = realloc(x->packed, cap * sizeof(uint32_t));
		if (!packed)
			return paths_oom(w, "the candidates' channels");
		x->packed = packed;
	}
	x->cap = (uint32_t)cap;
	return 0;
}

void paths_crossings_free(struct crossings *x)
{
	free(x->ncand);
	free(x->flows);
	if (!x->pair) {
		free(x->first);
		free(x->packed);
		free(x->ch32);
		free(x->ranks);
	}
	free(x->pair);
	memset(x, 0, sizeof(*x));
}

static struct kwalk *kwalks(struct kbest *k, uint32_t st)
{
	return &k->e[(size_t)st * k->kmax];
}

/* State st's walks n0 .. kmax - 1 (all of them from n0 = 0), from its
 * successors' lists: shorter first, then by the channel taken (sw_adj
 * order: lower port), then in the successor's order; i.e. by (length,
 * sequence of output ports).  From n0 > 0 the merge goes on where it
 * stopped at n0 (the successors' lists are longer now too): the walks
 * are those a merge from 0 gives, which never took a successor's walk
 * beyond the room it had.  The successors' next walks are kept as the
 * lengths they give (head; UINT32_MAX once none is left), and the merge
 * goes by length: a successor's walks of one length are consecutive in
 * its list, so each length costs two scans of the heads, not each walk
 * one. */
static void merge_state(struct work *w, struct kbest *k, uint32_t st,
			uint32_t n0)
{
	uint32_t x = state_switch(w, st), n, succ;
	uint32_t lo = w->f->sw_adj_start[x], hi = w->f->sw_adj_start[x + 1];
	uint32_t b = (st < w->S ? 0 : w->C) + lo;
	uint32_t *via = k->via + b, *to = k->to + b, *cursor = k->cursor + b,
		 *head = k->head + lo;
	struct kwalk *out = kwalks(k, st);

	if (n0 == 0) {
		succ = 0;
		for (uint32_t c = lo; c < hi; c++) {
			uint32_t t = next_state(w, st, c);
			if (t == IBR_NONE || k->count[t] == 0)
				continue;
			via[succ] = c;
			to[succ] = t;
			cursor[succ++] = 0;
		}
		k->nsucc[st] = succ;
	}
	succ = k->nsucc[st];
	for (uint32_t i = 0; i < succ; i++)
		head[i] = cursor[i] < k->count[to[i]] ?
			  kwalk_len(&kwalks(k, to[i])[cursor[i]]) + 1 :
			  UINT32_MAX;
	/* a round: the shortest length left, then the successors in channel
	 * order, each its walks of that length in its own order; the order
	 * a walk by walk merge gives (the least head, ties to the lowest
	 * channel, stays at a successor until its walks of that length run
	 * out) */
	for (n = n0; n < k->kmax;) {
		uint32_t len = UINT32_MAX;
		for (uint32_t i = 0; i < succ; i++)
			if (head[i] < len)
				len = head[i];
		if (len == UINT32_MAX)
			break;
		for (uint32_t i = 0; i < succ && n < k->kmax; i++) {
			uint32_t t = to[i];
			while (head[i] == len && n < k->kmax) {
				out[n++] = kwalk_make(len, via[i],
						      cursor[i]++);
				head[i] = cursor[i] < k->count[t] ?
					  kwalk_len(&kwalks(k, t)[cursor[i]]) + 1 :
					  UINT32_MAX;
			}
		}
	}
	k->count[st] = n;
}

/* State st's list (kbest_to's step). */
static void kbest_state(struct work *w, struct kbest *k, uint32_t d,
			uint32_t st, uint32_t n0)
{
	if (n0 > 0) {
		if (k->count[st] == n0)
			merge_state(w, k, st, n0);
	} else if (state_switch(w, st) == d) {
		kwalks(k, st)[0] = kwalk_make(0, IBR_NONE, 0);
		k->count[st] = 1;
	} else {
		merge_state(w, k, st, 0);
	}
}

/* Every state's list of walks to switch d, successors first: D states
 * by decreasing position (down channels go to later switches), then U
 * states by increasing position (up channels go to earlier ones).  From
 * n0 > 0 (the room was n0, now kmax) only the lists that were full grow:
 * the others hold every walk there is. */
static void kbest_to(struct work *w, struct kbest *k, uint32_t d,
		     uint32_t n0)
{
	const uint32_t *order = w->ud->order;

	for (uint32_t i = w->S; i-- > 0;)
		kbest_state(w, k, d, w->S + order[i], n0);
	for (uint32_t i = 0; i < w->S; i++)
		kbest_state(w, k, d, order[i], n0);
}

/* Sets kmax, growing the lists' room; at most KBEST_CAP.  With `keep`
 * the lists' walks stay, each at its place in the new layout. */
static int kbest_size(struct work *w, struct kbest *k, uint32_t kmax,
		      bool keep)
{
	uint32_t was = k->kmax;
	size_t need;

	kmax = kmax < KBEST_CAP ? kmax : KBEST_CAP;
	need = (size_t)2 * w->S * kmax;
	if (need > k->cap) {
		struct kwalk *e = realloc(k->e, need * sizeof(*e));
		if (!e)
			return paths_oom(w, "candidate walks");
		k->e = e;
		k->cap = need;
	}
	k->kmax = kmax;
	/* from the last state down: a list moves to a place at or after
	 * its own, past the lists still to move */
	for (uint32_t st = 2 * w->S; keep && kmax > was && st-- > 0;)
		memmove(&k->e[(size_t)st * kmax], &k->e[(size_t)st * was],
			k->count[st] * sizeof(*k->e));
	return 0;
}

/* Reads walk n of switch s's list (U(s)) into k->walk; returns its
 * length, 0 when it visits a switch twice. */
static uint32_t read_walk(struct work *w, struct kbest *k, uint32_t s,
			  uint32_t n)
{
	uint32_t st = s, len = 0;

	if (++k->tag == 0) {
		memset(k->mark, 0, w->S * sizeof(uint32_t));
		k->tag = 1;
	}
	k->mark[s] = k->tag;
	for (;;) {
		const struct kwalk *e = &kwalks(k, st)[n];
		uint32_t y;
		if (e->chan == IBR_NONE)
			return len;
		y = w->f->sw_adj[e->chan].peer;
		if (k->mark[y] == k->tag)
			return 0;
		k->mark[y] = k->tag;
		k->walk[len++] = e->chan;
		st = next_state(w, st, e->chan);
		n = kwalk_j(e);
	}
}


/* Packs the k best loop-free walks of s's list, as they are read off,
 * as the next group of x: each channel they cross once, in order of first
 * crossing (by rank, then hop), with the ranks crossing it (slot: per
 * channel IBR_NONE, and so again on return).  *more: the list was full
 * and gave fewer than k, so a longer list may give more; then nothing is
 * packed, and the caller asks again with a longer one.  On failure (no
 * memory) nothing is packed either, and slot is clean: the worker's next
 * task reads it.  Packed as read, with no list of the candidates'
 * channels in between. */
static int pack_walks(struct work *w, struct kbest *k, struct crossings *x,
		      uint32_t *slot, uint32_t s, bool *more)
{
	uint32_t found = 0, n, e0 = x->num, g = x->groups;
	int rc = 0;

	for (n = 0; n < k->count[s] && found < w->o->k; n++) {
		uint32_t len = read_walk(w, k, s, n);
		if (len == 0)
			continue; /* loops (s is not the destination) */
		if (crossings_reserve(w, x, len)) {
			rc = -1;        /* slot cleared, nothing packed */
			break;
		}
		for (uint32_t h = 0; h < len; h++) {
			uint32_t ch = k->walk[h];
			if (slot[ch] == IBR_NONE) {
				slot[ch] = x->num;
				entry_append(x, ch);
			}
			entry_add_rank(x, slot[ch], found);
		}
		found++;
	}
	for (uint32_t e = e0; e < x->num; e++)
		slot[entry_chan(x, e)] = IBR_NONE;
	*more = rc == 0 && found < w->o->k && k->count[s] == k->kmax &&
		k->kmax < KBEST_CAP;
	if (rc || *more) {
		x->num = e0;
		return rc;
	}
	x->ncand[g] = (uint8_t)found;
	x->first[g + 1] = x->num;
	x->groups++;
	return 0;
}

static void kbest_free(struct kbest *k)
{
	free(k->e);
	free(k->count);
	free(k->nsucc);
	free(k->via);
	free(k->to);
	free(k->head);
	free(k->cursor);
	free(k->mark);
	free(k->walk);
	memset(k, 0, sizeof(*k));
}

static int kbest_init(struct work *w, struct kbest *k)
{
	memset(k, 0, sizeof(*k));
	k->count = malloc(2 * (size_t)w->S * sizeof(uint32_t));
	k->nsucc = malloc(2 * (size_t)w->S * sizeof(uint32_t));
	k->via = malloc(2 * (size_t)(w->C ? w->C : 1) * sizeof(uint32_t));
	k->to = malloc(2 * (size_t)(w->C ? w->C : 1) * sizeof(uint32_t));
	k->cursor = malloc(2 * (size_t)(w->C ? w->C : 1) * sizeof(uint32_t));
	k->head = malloc((w->C ? w->C : 1) * sizeof(uint32_t));
	k->mark = calloc(w->S, sizeof(uint32_t));
	k->walk = malloc(w->S * sizeof(uint32_t));
	if (!k->count || !k->nsucc || !k->via || !k->to || !k->cursor ||
	    !k->head || !k->mark || !k->walk) {
		kbest_free(k);
		return paths_oom(w, "candidate search");
	}
	return 0;
}

/* Packs into x the groups of destination d, source switch by source
 * switch (slot as pack_walks').  A source with no legal route to d (no
 * unit) has a group with no candidate: the groups stay one per switch
 * pair with CAs, where group_of finds them, and carry no load. */
static int candidates_to(struct work *w, struct kbest *k, struct crossings *x,
			 uint32_t *slot, uint32_t d)
{
	if (kbest_size(w, k, w->o->k + KBEST_SLACK, false))
		return -1;
	kbest_to(w, k, d, 0);
	for (uint32_t s = 0; s < w->S; s++) {
		bool more;
		if (s == d || !cas_on(w->f, s))
			continue;
		if (k->count[s] == 0 && routed(w, s, d))
			return paths_no_path(w, s, d);        /* a bug */
		for (;;) {
			if (pack_walks(w, k, x, slot, s, &more))
				return -1;
			if (!more)
				break;
			/* again, with longer lists (same prefix) */
			uint32_t was = k->kmax;
			if (kbest_size(w, k, 2 * was, true))
				return -1;
			kbest_to(w, k, d, was);
		}
	}
	return 0;
}

/* ---- the candidate search, over worker threads ------------------------ */

/* Destinations are searched in waves of TASKS_PER_WORKER per worker, each
 * into a segment of its own (its groups packed with the worker's k-best
 * lists and slots, its own error), and the segments
 * appended to the set in destination order after the wave: the same set,
 * in the same order, whatever the number of workers. */
#define TASKS_PER_WORKER 4

struct searcher {               /* one per worker */
	struct kbest k;
	uint32_t *slot;         /* per channel, IBR_NONE between groups */
};

struct search_team {
	struct work *w;
	struct crossings *x;
	struct searcher *sr;    /* per worker */
	uint32_t *dests;        /* the wave's destination switches */
	struct crossings *seg;  /* per task of the wave: hosts - 1 groups */
	struct ibr_error *errs; /* per task */
};

static int search_task(void *arg, unsigned t, unsigned worker)
{
	struct search_team *team = arg;
	struct work tw = *team->w;      /* read only but for the error */
	struct searcher *sr = &team->sr[worker];
	struct crossings *seg = &team->seg[t];

	tw.err = &team->errs[t];
	seg->groups = 0;
	seg->num = 0;
	return candidates_to(&tw, &sr->k, seg, sr->slot, team->dests[t]);
}

/* Segment t of the wave (destination d) after the groups in x. */
static int append_segment(struct search_team *team, unsigned t)
{
	struct work *w = team->w;
	struct crossings *x = team->x, *seg = &team->seg[t];
	uint32_t d = team->dests[t], g = w->ca_rank[d] * (w->hosts - 1), j = 0;
	uint32_t base = x->num;

	if (seg->num) {
		if (crossings_reserve(w, x, seg->num))
			return -1;
		if (x->wide) {
			memcpy(x->ch32 + base, seg->ch32,
			       seg->num * sizeof(uint32_t));
			memcpy(x->ranks + base, seg->ranks,
			       seg->num * sizeof(uint16_t));
		} else {
			memcpy(x->packed + base, seg->packed,
			       seg->num * sizeof(uint32_t));
		}
		x->num += seg->num;
	}
	for (uint32_t s = 0; s < w->S; s++) {
		if (s == d || !cas_on(w->f, s))
			continue;
		x->flows[g] = (uint32_t)switch_flows(w, s, d);
		x->ncand[g] = seg->ncand[j];
		x->first[++g] = base + seg->first[++j];
	}
	return 0;
}

static void searcher_free(struct searcher *sr)
{
	kbest_free(&sr->k);
	free(sr->slot);
}

static int searcher_init(struct work *w, struct searcher *sr)
{
	if (kbest_init(w, &sr->k))
		return -1;
	sr->slot = malloc((w->C ? w->C : 1) * sizeof(uint32_t));
	if (!sr->slot)
		return paths_oom(w, "the candidate search");
	for (uint32_t c = 0; c < w->C; c++)
		sr->slot[c] = IBR_NONE;
	return 0;
}

/* The candidates of every switch pair with CAs whose destination's rank
 * among them is in [rank_lo, rank_hi), packed into x in group order
 * (destination, then source switch) after the entries x has; over worker
 * threads when there are several. */
int paths_find_candidates(struct work *w, struct crossings *x,
			  uint32_t rank_lo, uint32_t rank_hi)
{
	unsigned workers = ibr_parallel_workers(w->o->threads, w->hosts);
	unsigned slots = workers * TASKS_PER_WORKER;  /* the largest wave */
	unsigned now = paths_workers_now(w, workers), wave, n = 0;
	struct search_team team = { .w = w, .x = x };
	int rc = -1;

	if (now == 0)
		return IBR_PATHS_STOPPED;
	wave = now * TASKS_PER_WORKER;
	team.sr = calloc(workers, sizeof(*team.sr));
	team.dests = malloc(slots * sizeof(uint32_t));
	team.seg = calloc(slots, sizeof(*team.seg));
	team.errs = calloc(slots, sizeof(*team.errs));
	if (!team.sr || !team.dests || !team.seg || !team.errs) {
		paths_oom(w, "the candidate search's workers");
		goto out;
	}
	for (unsigned i = 0; i < workers; i++)
		if (searcher_init(w, &team.sr[i]))
			goto out;
	for (unsigned t = 0; t < slots; t++) {
		team.seg[t].ncand = malloc(w->hosts ? w->hosts : 1);
		team.seg[t].first = calloc(w->hosts ? w->hosts : 1,
					   sizeof(uint32_t));
		if (!team.seg[t].ncand || !team.seg[t].first) {
			paths_oom(w, "the candidate search's workers");
			goto out;
		}
	}
	for (uint32_t d = 0; d <= w->S; d++) {
		if (d < w->S && (!cas_on(w->f, d) || w->ca_rank[d] < rank_lo ||
				 w->ca_rank[d] >= rank_hi))
			continue;
		if (d < w->S)
			team.dests[n++] = d;
		if (n < wave && d < w->S)
			continue;
		if (n && ibr_parallel(now, n, search_task, &team)) {
			for (unsigned t = 0; t < n; t++)
				if (team.errs[t].msg[0]) {
					ibr_error_set(w->err, "%s",
						      team.errs[t].msg);
					goto out;
				}
			goto out;
		}
		for (unsigned t = 0; t < n; t++)
			if (append_segment(&team, t))
				goto out;
		n = 0;
		/* the next wave's workers (the caller's other work may have
		 * ended): the same segments in the same order for any */
		now = paths_workers_now(w, workers);
		if (now == 0) {
			rc = IBR_PATHS_STOPPED;
			goto out;
		}
		wave = now * TASKS_PER_WORKER;
	}
	rc = 0;
out:
	for (unsigned i = 0; team.sr && i < workers; i++)
		searcher_free(&team.sr[i]);
	for (unsigned t = 0; team.seg && t < slots; t++)
		paths_crossings_free(&team.seg[t]);
	free(team.sr);
	free(team.dests);
	free(team.seg);
	free(team.errs);
	return rc;
}
