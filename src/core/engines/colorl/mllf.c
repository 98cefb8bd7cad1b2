/*
 * mllf.c - colorl's most-loaded-link-first (paths.c, at the top: path
 * selection): at the most loaded channel the groups with the most
 * candidates left that qualify there lose the candidates crossing it,
 * until every group has one; its heap of channels, and the selection in
 * parts over worker threads.
 *
 * Invariants: loads are exact integers in 1/SHARES of a flow; groups only
 * lose candidates and never lose the last; the selection depends on the
 * fabric and the options alone, never on the thread count.
 */
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "paths_work.h"
#include "util/parallel.h"

#define SHARES       720720u /* lcm(1..16): flows / candidates is integral */

#define GS_MANY UINT16_MAX
#define SCALE_ONE 65536
/* A group with candidates alive `alive` qualifies at a channel that
 * `crossing` of them cross: some, not all. */
static bool qualifies(uint16_t crossing, uint16_t alive)
{
	return crossing && crossing != alive;
}

/* Group g's entries, [*first, *end), from its state (one cache miss
 * less than c->first's). */
static void gs_entries(const struct crossings *c, const struct mllf *m,
		       uint32_t g, uint32_t *first, uint32_t *end)
{
	const struct gstate *b = &m->gs[g];

	if (b->count == GS_MANY) {
		group_entries(c, g, first, end);
		return;
	}
	*first = b->first;
	*end = b->first + b->count;
}

/* Inverted entries: a group and its entry's place among its entries, in
 * 32 bits, the group in the high bits (as few as the groups need).  A
 * place too large for the low bits is stored as their largest value, and
 * the entry is found from there (a group's entries are in no particular
 * channel order, but ch's is at that place or after it). */
#define MAX_GROUPS (UINT32_C(1) << 28)

static uint32_t inv_entry(const struct mllf *m, uint32_t g, uint32_t place)
{
	uint32_t most = (UINT32_C(1) << m->place_bits) - 1;

	return g << m->place_bits | (place < most ? place : most);
}

/* Where the ranks of inverted entry x are, or the entry to look for
 * its channel from (see inv_entry). */
static uint32_t inv_place(const struct mllf *m, uint32_t x)
{
	uint32_t most = (UINT32_C(1) << m->place_bits) - 1;

	return m->gs[x >> m->place_bits].first + (x & most);
}

/* The entry of group g for channel ch, from its inverted entry x. */
static uint32_t inv_lookup(const struct crossings *c, const struct mllf *m,
			   uint32_t x, uint32_t ch)
{
	uint32_t most = (UINT32_C(1) << m->place_bits) - 1;
	uint32_t e = inv_place(m, x);

	if ((x & most) == most)
		while (entry_chan(c, e) != ch)
			e++;
	return e;
}

#define SCAN_AHEAD 24   /* entries read: prefetch distance of a scan */
#define VERDICTS_AHEAD 32 /* entries judged before they are acted on */
#define READ_AHEAD (2 * SCAN_AHEAD + VERDICTS_AHEAD) /* found, not acted */
#define READ_RING 128   /* >= READ_AHEAD, a power of two */
_Static_assert(READ_AHEAD <= READ_RING &&
	       (READ_RING & (READ_RING - 1)) == 0, "the scan's ring");
#define DROP_LINES 4    /* cache lines of a group's entries fetched ahead,
			 * at most */

/* Bits set in x, by bytes: without a popcnt instruction (the build's
 * baseline x86-64 has none) __builtin_popcount is a library call, and a
 * count by shifts and masks costs more; this table stays in the
 * first-level cache. */
#define ONES2(n) n, n + 1, n + 1, n + 2
#define ONES4(n) ONES2(n), ONES2(n + 1), ONES2(n + 1), ONES2(n + 2)
#define ONES6(n) ONES4(n), ONES4(n + 1), ONES4(n + 1), ONES4(n + 2)
static const uint8_t ones_in_byte[256] = {
	ONES6(0), ONES6(1), ONES6(1), ONES6(2),
};

static unsigned ones(uint16_t x)
{
	return ones_in_byte[x & 0xff] + ones_in_byte[x >> 8];
}

/* ---- the heap of channels ------------------------------------------- */

/* The heap orders channels by key, never below the channel's load now: a
 * load that rises above its key raises the key to the load and
 * 1/2^KEY_SLACK of it more, and moves up at once; one that falls, or
 * rises within its key, is left where it is until it comes to the top
 * (settle_top: its key set to its load, and moved down).  With the top
 * settled it is the heaviest channel, ties to the lower index: any
 * other's load is at most its key, which is at most the top's, and on
 * equal keys its index is higher.  So what the keys are above the loads
 * changes no choice, only how often channels move: most falling channels
 * never come back to the top, and are never moved, and the slack spares
 * the many small rises of a drop. */

#define TOLERANCE 64   /* loads within 1/64 of the heaviest count as it */
#define KEY_SLACK 8     /* a raised key: the load and 1/2^8 of it more */

static bool heavier(const struct mllf *m, uint32_t a, uint32_t b)
{
	uint64_t ka = m->cl[a].key, kb = m->cl[b].key;

	return ka != kb ? ka > kb : a < b;
}

static void heap_swap(struct mllf *m, uint32_t i, uint32_t j)
{
	uint32_t a = m->heap[i], b = m->heap[j];

	m->heap[i] = b;
	m->heap[j] = a;
	m->heap_pos[b] = i;
	m->heap_pos[a] = j;
}

/* The channel at heap place i moved down to its place below. */
static void heap_down(struct mllf *m, uint32_t i)
{
	for (;;) {
		uint32_t l = 2 * i + 1, r = l + 1, top = i;
		if (l < m->heap_len && heavier(m, m->heap[l], m->heap[top]))
			top = l;
		if (r < m->heap_len && heavier(m, m->heap[r], m->heap[top]))
			top = r;
		if (top == i)
			break;
		heap_swap(m, i, top);
		i = top;
	}
}

/* Channel ch's key changed: move it to its place. */
static void heap_fix(struct mllf *m, uint32_t ch)
{
	uint32_t i = m->heap_pos[ch];

	if (i == IBR_NONE)
		return;
	while (i > 0 && heavier(m, m->heap[i], m->heap[(i - 1) / 2])) {
		heap_swap(m, i, (i - 1) / 2);
		i = (i - 1) / 2;
	}
	heap_down(m, i);
}

/* The top's key its load, the top then the heaviest channel. */
static void settle_top(struct mllf *m)
{
	while (m->heap_len &&
	       m->cl[m->heap[0]].key != m->cl[m->heap[0]].load) {
		m->cl[m->heap[0]].key = m->cl[m->heap[0]].load;
		heap_fix(m, m->heap[0]);
	}
}

/* ch is the heaviest channel, or within 1/TOLERANCE of its load. */
static bool near_heaviest(struct mllf *m, uint32_t ch)
{
	uint64_t top;

	settle_top(m);
	top = m->cl[m->heap[0]].load;

	return m->heap[0] == ch ||
	       m->cl[ch].load >= top - top / TOLERANCE;
}

static void heap_remove_top(struct mllf *m)
{
	uint32_t ch = m->heap[0];

	heap_swap(m, 0, --m->heap_len);
	m->heap_pos[ch] = IBR_NONE;
	if (m->heap_len)
		heap_fix(m, m->heap[0]);
}

/* Group g's load on every channel of a candidate alive: its flows spread
 * evenly over its candidates alive. */
static uint64_t share(const struct mllf *m, const struct gstate *b)
{
	return b->flows * m->per_candidate[b->left];
}

/* Channel ch's load changes by add (mod 2^64: a drop subtracts); a load
 * that rises above its key moves up at once (a valid heap between two
 * changes, whatever their order).  A group names a channel in one entry
 * only (pack_walks), so a drop changes each load once. */
static void add_load(struct mllf *m, uint32_t ch, uint64_t add)
{
	struct chan_load *l = &m->cl[ch];

	if (m->in_parts) {
		/* mod 2^64: add is the change's two's complement */
		int64_t seen = (int64_t)l->load +
			       (int64_t)add * l->scale / SCALE_ONE;
		l->own += add;
		l->load = seen > 0 ? (uint64_t)seen : 0;
	} else {
		l->load += add;
	}
	if (l->load > l->key || m->exhaustive) {
		l->key = m->exhaustive ? l->load :
			 l->load + (l->load >> KEY_SLACK);
		heap_fix(m, ch);
	}
}

/* Group g loses its candidates `crossing` the channel at hand (some are
 * left): their load goes, the survivors' shares grow; per entry, the
 * change of all the group's candidates on its channel at once. */
static void drop_crossing(const struct crossings *c, struct mllf *m,
			  uint32_t g, uint16_t crossing)
{
	struct gstate *b = &m->gs[g];
	uint16_t was = b->alive, now = (uint16_t)(was & ~crossing);
	unsigned to = b->left - ones(crossing);
	uint64_t before = share(m, b), after;
	/* the ranks up to the highest alive */
	uint16_t reach = (uint16_t)((2u << (31 - __builtin_clz(was))) - 1);
	uint32_t first, end;

	if (to == 1)
		m->multi--;
	b->left = (uint8_t)to;
	b->alive = now;
	after = share(m, b);
	gs_entries(c, m, g, &first, &end);
	/* entries come in order of the lowest rank crossing them
	 * (pack_walks): past the highest rank alive, none is alive */
	for (uint32_t e = first; e < end && (entry_ranks(c, e) & reach); e++) {
		uint16_t ranks = entry_ranks(c, e), alive = ranks & was;
		uint64_t gone, stay, add;
		uint32_t ch;
		if (!alive)
			continue;
		gone = ones(alive & crossing);
		stay = ones(alive & now);
		/* mod 2^64: the drops subtract */
		add = stay * (after - before) - gone * before;
		ch = entry_chan(c, e);
		if (add)
			add_load(m, ch, add);
	}
}

/* The first entry at j or after (end: none) of a list whose below is at
 * least `level`: one a scan at that level reads.  Sixteen at a time with
 * SSE2 (the x86-64 baseline): most entries are passed. */
static uint32_t next_read(const uint8_t *below, unsigned level, uint32_t j,
			  uint32_t end)
{
#ifdef __SSE2__
	const __m128i lv = _mm_set1_epi8((char)level), zero = _mm_setzero_si128();

	for (; end - j >= 16; j += 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)&below[j]);
		/* level - v saturates to 0 where v >= level */
		unsigned hit = (unsigned)_mm_movemask_epi8(
			_mm_cmpeq_epi8(_mm_subs_epu8(lv, v), zero));
		if (hit)
			return j + (uint32_t)__builtin_ctz(hit);
	}
#endif
	while (j < end && below[j] < level)
		j++;
	return j;
}

/* The group of ch's list entry j, alive, with its candidates alive that
 * cross ch (0: none; the entry is dead for good). */
static uint16_t entry_crossing(const struct crossings *c,
			       const struct mllf *m, uint32_t ch, uint32_t j)
{
	uint32_t x = m->inv[j];

	return entry_ranks(c, inv_lookup(c, m, x, ch)) &
	       m->gs[x >> m->place_bits].alive;
}

/* Group g's destination switch, as its rank among the switches with CAs
 * (groups go by destination, per_dest to a destination; a CA pair's
 * group is its switch pair's, pair[g]). */
static uint32_t dest_rank(const uint32_t *pair, uint32_t per_dest,
			  uint32_t g)
{
	return (pair ? pair[g] : g) / per_dest;
}

static uint32_t dest_of(const struct mllf *m, uint32_t g)
{
	return dest_rank(m->pair, m->per_dest, g);
}

/* What a visit does with an entry of its channel's list, in the high
 * half of scan_entry's value; its candidates crossing in the low half. */
enum scan_verdict {
	SCAN_GONE,      /* qualifies no more: leaves the list */
	SCAN_DROP,      /* qualifies at the visit's level: loses `crossing` */
	SCAN_KEEP,      /* qualifies, with fewer candidates left: stays */
};

/* A pass over ch's list at level `level`: entry j's verdict, as
 * crossing | verdict << 16.  It reads only the entry, its group's
 * state and ranks; a visit's drops change only the state of the group
 * dropped, which a channel's list names once, so an entry's verdict is
 * the same before and after the drops of the entries before it.  For a
 * group to drop, its entries are fetched: the drop reads them all. */
static uint32_t scan_entry(const struct crossings *c, const struct mllf *m,
			   uint32_t ch, unsigned level, uint32_t j)
{
	uint32_t g = m->inv[j] >> m->place_bits;
	uint16_t crossing = entry_crossing(c, m, ch, j);
	const struct gstate *b = &m->gs[g];

	if (!qualifies(crossing, b->alive))
		return crossing | (uint32_t)SCAN_GONE << 16; /* nor ever */
	if (b->left != level)
		return crossing | (uint32_t)SCAN_KEEP << 16;
	/* The cache lines of the group's entries (their ranks), from the
	 * line its first entry is on, at most DROP_LINES: a group's entries
	 * span a few lines, and fetching fewer leaves the drop to miss on
	 * the rest.  (Above
	 * 65536 channels an entry's channel is in an array of its own, which
	 * is not fetched.)  Written here, not in a function of their own: GCC
	 * drops a call to a function of prefetches alone (it has no effect),
	 * silently. */
	{
		uint32_t n = b->count < 64 * DROP_LINES ? b->count :
			     64 * DROP_LINES; /* 2 or 4 bytes an entry */
		uintptr_t at = (uintptr_t)entry_ranks_at(c, b->first) &
			       ~(uintptr_t)63;
		uintptr_t to = (uintptr_t)entry_ranks_at(c, b->first + n);
		for (unsigned line = 0; line < DROP_LINES && at < to;
		     line++, at += 64)
			__builtin_prefetch((const void *)at);
	}
	return crossing | (uint32_t)SCAN_DROP << 16;
}

/* One pass of the visit of ch at `level` (below): returns the groups it
 * dropped, *stopped when it stopped short of the list's end.  Entries are
 * read only where their below is at least the level: a group read with
 * fewer candidates left is kept, its below lowered to them; one that
 * qualifies no more (all its candidates alive cross ch, or none; it
 * never will again) leaves the list, as does a group dropped: its below
 * becomes 0, under every level.  Lists are not compacted: the passes
 * skip 16 entries at a time (next_read), and moving the entries that
 * stay cost as much as that saved.  Entries are judged VERDICTS_AHEAD
 * reads before they are acted on (scan_entry: the same verdicts), so
 * that the entries of a group to drop are in the cache when its drop
 * reads them. */
static uint32_t relieve_at(const struct crossings *c, struct mllf *m,
			   uint32_t ch, unsigned level, bool *stopped)
{
	uint32_t end = m->inv_first[ch + 1], next;
	uint32_t dropped = 0, last_dest = 0;
	/* the entries read, in list order: found (their states fetched),
	 * fetched (their ranks too), judged and acted on, counted from the
	 * pass's start; the k-th at read[k % READ_RING] */
	uint32_t read[READ_RING], verdict[READ_RING];
	uint32_t found = 0, fetched = 0, judged = 0, acted = 0;

	*stopped = false;
	next = !m->exhaustive && m->resume_level[ch] == level ?
	       m->resume_pos[ch] : m->inv_first[ch];
	m->resume_level[ch] = 0;
	for (;;) {
		uint32_t at, s, lim;
		while (found - acted < READ_AHEAD &&
		       (next = next_read(m->below, level, next, end)) < end) {
			read[found++ % READ_RING] = next;
			__builtin_prefetch(&m->gs[m->inv[next++] >>
						  m->place_bits]);
		}
		lim = next >= end ? found : found - SCAN_AHEAD;
		for (; fetched < found && (int32_t)(lim - fetched) > 0;
		     fetched++)
			__builtin_prefetch(entry_ranks_at(c, inv_place(m,
					m->inv[read[fetched % READ_RING]])));
		lim = next >= end ? found : found - 2 * SCAN_AHEAD;
		for (; judged < fetched && (int32_t)(lim - judged) > 0;
		     judged++)
			verdict[judged % READ_RING] = scan_entry(c, m, ch,
					level, read[judged % READ_RING]);
		if (acted == judged)
			break;
		at = read[acted % READ_RING];
		s = verdict[acted++ % READ_RING];
		if (s >> 16 == SCAN_DROP) {
			uint32_t g = m->inv[at] >> m->place_bits;
			uint32_t d = m->whole_destinations ? dest_of(m, g) : 0;
			if (!(m->whole_destinations && dropped &&
			      d == last_dest) && !near_heaviest(m, ch)) {
				m->resume_level[ch] = level;
				m->resume_pos[ch] = at;
				*stopped = true;
				break;
			}
			drop_crossing(c, m, g, (uint16_t)s);
			last_dest = d;
			dropped++;
		}
		/* kept: read again at its group's level; else gone for good */
		m->below[at] = s >> 16 == SCAN_KEEP ?
			       m->gs[m->inv[at] >> m->place_bits].left : 0;
	}
	return dropped;
}

/* Visits the most loaded channel ch.  The groups qualify that have
 * candidates crossing ch and another not crossing it; of those, the ones
 * with the most candidates left (the most alternatives: the level) lose
 * the crossing candidates, one after the other by group index, while ch
 * stays the most loaded channel or within 1/TOLERANCE of its load: pairs
 * alike (the CA pairs of one switch pair) part ways, and one visit serves
 * many steps.  The level is found by passes down from ch's ceiling: a
 * pass that drops none has read every group of its level and lowered
 * their below, and lowers the ceiling.  A group never comes to qualify
 * and its candidates left only fall, so no group qualifies above the
 * ceiling.  Returns 0 when no group qualifies: ch is exhausted (groups
 * only lose candidates, so it stays so); 1 after dropping; -1 when a pass
 * stopped before its first drop (a bug: ch is the heaviest channel, and
 * going a level down would change the selection silently).
 *
 * A visit that stops resumes there at the next visit of ch if the level
 * is the same (the ceiling stays there): the groups qualifying at that
 * level are those after the resume position (those before it at the
 * level were dropped, fell below it or left the list).  Else a pass
 * starts at the list's first entry.
 *
 * In parts (m->whole_destinations), a visit past its tolerance still drops
 * the groups of the destination it last dropped for that follow in the
 * list (its groups are consecutive there): see "the selection in parts". */
static int relieve_channel(const struct crossings *c, struct mllf *m,
			   uint32_t ch)
{
	for (unsigned level = m->ceiling[ch]; level > 1; level--) {
		bool stopped;
		if (relieve_at(c, m, ch, level, &stopped)) {
			m->ceiling[ch] = (uint8_t)(stopped ? level : level - 1);
			return 1;
		}
		if (stopped)
			return -1;
	}
	m->ceiling[ch] = 1;
	return 0;
}

static void free_mllf(struct mllf *m)
{
	free(m->heap);
	free(m->heap_pos);
	free(m->ceiling);
	free(m->cl);
	free(m->inv_first);
	free(m->inv);
	free(m->below);
	free(m->resume_pos);
	free(m->resume_level);
}

/* The entries of all groups (counting those shared, per CA, once per
 * group). */
static uint64_t count_entries(const struct crossings *c, uint32_t g0,
			      uint32_t g1)
{
	uint64_t n = 0;
	uint32_t first, end;

	for (uint32_t g = g0; g < g1; g++) {
		group_entries(c, g, &first, &end);
		n += end - first;
	}
	return n;
}

/* Bits enough for 0 .. n - 1 (at least 1). */
static unsigned bits_for(uint32_t n)
{
	unsigned b = 1;

	if (n <= 1)
		return 1;
	while (b < 32 && (n - 1) >> b)
		b++;
	return b;
}

/* ---- the selection in parts ------------------------------------------ */

/* Most-loaded-link-first is one greedy sequence: each drop reads the
 * loads the one before it left, so it stays on one core.  In parts it
 * spreads:
 *   - the groups of destination switches p, p + parts, p + 2 parts, ..
 *     (by rank among switches with CAs) form part p, with its own
 *     inverted lists, heap and loads;
 *   - each part runs the sequence above on its own groups for an epoch of
 *     EPOCH_VISITS visits; then the parts' own loads are summed, and every
 *     part sees them all again (share_loads);
 *   - within an epoch a part sees its own changes as they happen and takes
 *     the others to change alike (struct mllf, scale: a change of its own
 *     load on a channel moves the load it sees by the change times the
 *     channel's load over its own, at most times the parts), so that the
 *     parts together relieve a channel about as much as one sequence
 *     would, not once each;
 *   - a visit that drops a group of a destination switch drops the rest
 *     of that destination's groups qualifying at its level too, even past
 *     the tolerance: paths to one destination that avoid the channel
 *     together split less, and need fewer LIDs (BENCHMARKS.md).
 * The parts of an epoch share nothing they write (a group, its state and
 * its lists are its part's; the loads of the others are read only between
 * epochs), so they run on the workers, and the selection depends on the
 * fabric alone.  A channel leaves a part's heap when no group of that part
 * qualifies there: a part relieves the heaviest channel it can.  With one
 * part all of this is off and the sequence is exactly the paper's. */

/* Visits of most-loaded-link-first between two questions to
 * o->workers_now (is the selection still wanted?), with one part. */
#define STOP_EVERY 4096u

#define AUTO_PARTS_FROM (UINT64_C(1) << 18) /* switch pairs: 513 switches */
#define AUTO_PARTS   2u
#define MAX_PARTS    8u
#define EPOCH_VISITS 256u

/* part_epoch's failures (bugs), what ibr_parallel hands back */
enum part_failure {
	PART_LEFT_SEVERAL = 1,  /* no channel left, groups with several */
	PART_STOPPED_FIRST = 2, /* a visit stopped before its first drop */
};

/* o->parts, or by the switch pairs with CAs (with CA pairs too: the
 * fabric's size, not the units', decides). */
static unsigned part_count(const struct work *w)
{
	uint64_t pairs = (uint64_t)w->hosts * (w->hosts ? w->hosts - 1 : 0);
	unsigned n = w->o->parts;

	if (n == 0)
		n = pairs < AUTO_PARTS_FROM ? 1 : AUTO_PARTS;
	return n > MAX_PARTS ? MAX_PARTS : n;
}

/* Group g's part: its destination switch's rank, mod the parts. */
static unsigned part_of(const struct selection *s, uint32_t g)
{
	return s->parts == 1 ? 0 :
	       dest_rank(s->c->pair, s->per_dest, g) % s->parts;
}

/* Part p's own state: its groups' states, loads (into own, or load with
 * one part and no batch to come), inverted lists and their ceilings; its
 * heap waits for the loads of all parts (start_heap). */
static int part_init(void *arg, unsigned p, unsigned worker)
{
	struct selection *s = arg;
	const struct crossings *c = s->c;
	struct mllf *m = &s->part[p];
	uint32_t C = s->w->C ? s->w->C : 1;
	uint64_t entries = 0;

	(void)worker;
	m->cl = aligned_alloc(64, ((size_t)C * sizeof(*m->cl) + 63) &
			      ~(size_t)63);
	m->in_parts = s->parts > 1;
	m->inv_first = malloc(((size_t)C + 1) * sizeof(uint32_t));
	m->ceiling = calloc(C, 1);
	m->heap = malloc(C * sizeof(uint32_t));
	m->heap_pos = malloc(C * sizeof(uint32_t));
	m->resume_pos = calloc(C, sizeof(uint32_t));
	m->resume_level = calloc(C, sizeof(uint32_t));
	if (!m->cl ||
	    !m->inv_first || !m->ceiling || !m->heap || !m->heap_pos ||
	    !m->resume_pos || !m->resume_level)
		return -1;
	memset(m->cl, 0, (size_t)C * sizeof(*m->cl));
	memset(m->inv_first, 0, ((size_t)C + 1) * sizeof(uint32_t));
	m->multi = 0;
	for (uint32_t g = s->g0; g < s->g1; g++) {
		uint32_t first, end;
		uint64_t sh;
		if (part_of(s, g) != p)
			continue;
		group_entries(c, g, &first, &end);
		m->gs[g] = (struct gstate){ first, c->flows[g],
			(uint16_t)((1u << c->ncand[g]) - 1), c->ncand[g],
			(uint16_t)(end - first < GS_MANY ? end - first :
				   GS_MANY) };
		m->multi += c->ncand[g] > 1;
		sh = share(m, &m->gs[g]);
		for (uint32_t e = first; e < end; e++) {
			uint16_t ranks = entry_ranks(c, e);
			uint32_t ch = entry_chan(c, e);
			*(m->in_parts ? &m->cl[ch].own : &m->cl[ch].load) +=
				ones(ranks) * sh;
			/* a group that does not qualify at ch now never
			 * will: not listed */
			if (!qualifies(ranks, m->gs[g].alive))
				continue;
			m->inv_first[ch + 1]++;
			entries++;
			if (m->ceiling[ch] < c->ncand[g])
				m->ceiling[ch] = c->ncand[g];
		}
	}
	/* channel -> this part's groups crossing it, in group order */
	m->inv = malloc((entries ? entries : 1) * sizeof(uint32_t));
	m->below = malloc(entries ? entries : 1);
	if (!m->inv || !m->below)
		return -1;
	if (!m->in_parts && s->fixed)
		for (uint32_t ch = 0; ch < s->w->C; ch++)
			m->cl[ch].load += s->fixed[ch];
	for (uint32_t ch = 0; ch < s->w->C; ch++)
		m->inv_first[ch + 1] += m->inv_first[ch];
	for (uint32_t g = s->g0; g < s->g1; g++) {
		uint32_t first, end;
		if (part_of(s, g) != p)
			continue;
		group_entries(c, g, &first, &end);
		for (uint32_t e = first; e < end; e++) {
			uint32_t at;
			if (!qualifies(entry_ranks(c, e), m->gs[g].alive))
				continue;
			at = m->inv_first[entry_chan(c, e)]++;
			m->inv[at] = inv_entry(m, g, e - first);
			m->below[at] = c->ncand[g];
		}
	}
	/* the fill moved every start to the next channel's */
	for (uint32_t ch = s->w->C; ch > 0; ch--)
		m->inv_first[ch] = m->inv_first[ch - 1];
	m->inv_first[0] = 0;
	return 0;
}

/* Every part sees the loads of all (the sum of their own), keys equal to
 * them, its heap in order again. */
static void share_loads(struct selection *s)
{
	uint32_t C = s->w->C;

	if (s->parts == 1)
		return;
	for (uint32_t ch = 0; ch < C; ch++) {
		uint64_t t = 0, fixed = s->fixed ? s->fixed[ch] : 0;
		for (unsigned p = 0; p < s->parts; p++)
			t += s->part[p].cl[ch].own;
		for (unsigned p = 0; p < s->parts; p++) {
			struct chan_load *l = &s->part[p].cl[ch];
			uint64_t own = l->own;
			l->load = l->key = t + fixed;
			l->scale = own == 0 || t / own >= s->parts ?
				       s->parts * SCALE_ONE :
				       (uint32_t)((unsigned __int128)t *
						  SCALE_ONE / own);
		}
	}
	for (unsigned p = 0; p < s->parts; p++) {
		struct mllf *m = &s->part[p];
		for (uint32_t i = m->heap_len / 2; i-- > 0;)
			heap_down(m, i);
	}
}

/* Part p's heap of every channel, once the loads are shared. */
static void start_heap(struct mllf *m, uint32_t C)
{
	for (uint32_t ch = 0; ch < C; ch++)
		m->cl[ch].key = m->cl[ch].load;
	m->heap_len = 0;
	for (uint32_t ch = 0; ch < C; ch++) {
		m->heap[m->heap_len] = ch;
		m->heap_pos[ch] = m->heap_len++;
		heap_fix(m, ch);
	}
}

/* Part p's visits of one epoch (all of them, with one part). */
static int part_epoch(void *arg, unsigned p, unsigned worker)
{
	struct selection *s = arg;
	struct mllf *m = &s->part[p];
	uint32_t visits = s->parts == 1 ? STOP_EVERY : EPOCH_VISITS;

	(void)worker;
	for (uint32_t v = 0; v < visits && m->multi > 0; v++) {
		if (m->heap_len == 0) /* distinct paths differ in a channel */
			return PART_LEFT_SEVERAL;
		int visit;
		settle_top(m);
		visit = relieve_channel(s->c, m, m->heap[0]);
		if (visit < 0)
			return PART_STOPPED_FIRST;
		if (!visit)
			heap_remove_top(m);
	}
	return 0;
}

static uint32_t groups_with_several(const struct selection *s)
{
	uint32_t n = 0;

	for (unsigned p = 0; p < s->parts; p++)
		n += s->part[p].multi;
	return n;
}

void paths_free_selection(struct selection *s)
{
	for (unsigned p = 0; s->part && p < s->parts; p++)
		free_mllf(&s->part[p]);
	free(s->part);
	free(s->gs);
}

/* Leaves alive exactly one candidate per group of [g0, g1), in s->gs (or
 * IBR_PATHS_STOPPED), over the load `fixed` (NULL: none) of the groups
 * whose paths are chosen. */
int paths_most_loaded_link_first(struct work *w, const struct crossings *c,
				 struct selection *s, uint32_t g0,
				 uint32_t g1, const uint64_t *fixed)
{
	uint32_t G = c->groups;
	uint64_t entries = count_entries(c, g0, g1);
	unsigned threads = w->o->threads ? w->o->threads : 1, now;

	if (G >= MAX_GROUPS)
		return ibr_error_set(w->err, "paths: %u pairs to select paths "
				     "for, at most %u", G, MAX_GROUPS - 1);
	if (entries > UINT32_MAX)
		return ibr_error_set(w->err, "paths: %llu channels crossed by "
				     "the candidates of all pairs, more than "
				     "a 32-bit index holds (use switch pairs)",
				     (unsigned long long)entries);
	for (uint32_t g = g0; g < g1; g++)
		if (c->ncand[g] > MAX_GROUP_CANDS)
			return ibr_error_set(w->err, "paths: a pair with %u "
					     "candidates, at most %u (a bug)",
					     c->ncand[g], MAX_GROUP_CANDS);
	s->w = w;
	s->c = c;
	s->g0 = g0;
	s->g1 = g1;
	s->fixed = fixed;
	s->parts = part_count(w);
	s->per_dest = w->hosts > 1 ? w->hosts - 1 : 1;
	s->part = calloc(s->parts, sizeof(*s->part));
	s->gs = malloc((G ? G : 1) * sizeof(*s->gs));
	if (!s->part || !s->gs)
		return paths_oom(w, "path selection");
	for (unsigned p = 0; p < s->parts; p++) {
		struct mllf *m = &s->part[p];
		m->gs = s->gs;
		m->whole_destinations = s->parts > 1;
		m->pair = c->pair;
		m->per_dest = s->per_dest;
		m->place_bits = 32 - bits_for(G);
		m->exhaustive = w->o->exhaustive;
		for (uint32_t n = 1; n <= MAX_GROUP_CANDS; n++)
			m->per_candidate[n] = SHARES / n;
	}
	if ((now = paths_workers_now(w, threads)) == 0)
		return IBR_PATHS_STOPPED;
	if (ibr_parallel(now, s->parts, part_init, s))
		return paths_oom(w, "path selection");
	share_loads(s);
	for (unsigned p = 0; p < s->parts; p++)
		start_heap(&s->part[p], w->C);
	while (groups_with_several(s) > 0) {
		int rc;
		if ((now = paths_workers_now(w, threads)) == 0)
			return IBR_PATHS_STOPPED;
		rc = ibr_parallel(now, s->parts, part_epoch, s);
		if (rc == PART_LEFT_SEVERAL)
			return ibr_error_set(w->err, "paths: selection left %u "
					     "pairs with several candidates "
					     "(a bug)", groups_with_several(s));
		if (rc)
			return ibr_error_set(w->err, "paths: a visit of the "
					     "heaviest channel stopped before "
					     "its first drop (a bug)");
		share_loads(s);
	}
	return 0;
}

