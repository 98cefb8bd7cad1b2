/*
 * test_lidassign.c - LID assignment for one destination
 * (lid-assignment-color-l §III-§V) against the paper's own examples and
 * against an independent check.
 *
 *  - Fig. 5 (§IV-§V): p1..p4 to m0.  Greedy needs 3 configurations
 *    C1 = {p1, p3}, C2 = {p2}, C3 = {p4} (Fig. 6's walk-through); color/L
 *    2, {p2, p3} and {p1, p4} (Fig. 9's walk-through, p2 chosen before
 *    p4); the ILP 2, proven; color/S and split-merge /S and /L 3, as their
 *    procedures give with ties to the lower path (worked out below).
 *  - Fig. 4 (§III): the reduction of a 4-node graph G (edges 0-1, 0-2,
 *    1-2, 1-3, 2-3) to paths p0..p3 in G'; two paths split exactly when
 *    their nodes are adjacent in G, and the ILP's k is G's chromatic
 *    number, 3.
 *  - Identical paths count once: every path given twice changes nothing.
 *  - 200 random instances of 4-14 paths over 8-12 switches: every
 *    colouring is proper (checked here hop by hop, not with the library's
 *    split graph), the ILP equals the chromatic number found by brute
 *    force, no heuristic beats it, `exact` is never a lie, two runs
 *    give the same colours, and greedy, color/S and color/L give the
 *    colours of Fig. 6 and Fig. 9 run as printed on the distinct paths
 *    (degrees recounted at every step, splits found hop by hop).
 *  - A timing print (no assertion) for 512 distinct paths over 64
 *    switches.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "ibrouting/lidassign.h"

#define MAXP 1100
#define MAXH 16

/* Paths built hop by hop; the port of a hop is named after the node it
 * leads to (1 + index), the same port for the same neighbour, as a real
 * switch has. */
struct inst {
	uint32_t n;
	uint32_t first[MAXP + 1];
	uint32_t sw[MAXP * MAXH];
	uint8_t port[MAXP * MAXH];
};

static void inst_init(struct inst *in)
{
	in->n = 0;
	in->first[0] = 0;
}

/* A path through nodes[0..len-1], leaving the last one for `dest`. */
static void add_path(struct inst *in, const uint32_t *nodes, uint32_t len,
		     uint32_t dest)
{
	uint32_t f = in->first[in->n];

	assert_true(in->n < MAXP && len <= MAXH);
	for (uint32_t j = 0; j < len; j++) {
		uint32_t next = j + 1 < len ? nodes[j + 1] : dest;
		in->sw[f + j] = nodes[j];
		in->port[f + j] = (uint8_t)(1 + next);
	}
	in->first[++in->n] = f + len;
}

static struct ibr_dest_paths view(const struct inst *in)
{
	struct ibr_dest_paths p = { in->n, in->first, in->sw, in->port };
	return p;
}

/* Definition 1, hop by hop: a common switch left by different ports. */
static bool split(const struct inst *in, uint32_t x, uint32_t y)
{
	for (uint32_t i = in->first[x]; i < in->first[x + 1]; i++)
		for (uint32_t j = in->first[y]; j < in->first[y + 1]; j++)
			if (in->sw[i] == in->sw[j] && in->port[i] != in->port[j])
				return true;
	return false;
}

/* color[] is a partition into k configurations: every colour below k and
 * used, no two paths of one colour split. */
static void assert_valid(const struct inst *in, const uint32_t *color,
			 uint32_t k)
{
	bool used[MAXP] = { false };

	for (uint32_t x = 0; x < in->n; x++) {
		assert_true(color[x] < k);
		used[color[x]] = true;
		for (uint32_t y = x + 1; y < in->n; y++)
			if (color[x] == color[y] && split(in, x, y))
				fail_msg("paths %u and %u split and share "
					 "colour %u", x, y, color[x]);
	}
	for (uint32_t c = 0; c < k; c++)
		if (!used[c])
			fail_msg("colour %u of %u unused", c, k);
}

struct answer {
	uint32_t k;
	bool exact;
	uint32_t color[MAXP];
};

static struct answer *assign(const struct inst *in, uint32_t num_switches,
			     enum ibr_lid_heuristic h)
{
	struct ibr_lid_assign_options o = { h, 20.0 };
	struct ibr_dest_paths p = view(in);
	struct ibr_error err = { "" };
	struct ibr_lid_assigner *a = NULL;
	struct answer *r = calloc(1, sizeof(*r));

	assert_non_null(r);
	if (ibr_lid_assigner_new(&a, num_switches, &err))
		fail_msg("%s", err.msg);
	if (ibr_lid_assign(a, &p, &o, r->color, &r->k, &r->exact, &err))
		fail_msg("%s: %s", ibr_lid_heuristic_name(h), err.msg);
	ibr_lid_assigner_free(a);
	assert_valid(in, r->color, r->k);
	return r;
}

static void skip_without_glpk(void)
{
	if (!ibr_lid_ilp_available()) {
		print_message("GLPK absent (configure found no glpk.h / "
			      "-lglpk): ILP not tested\n");
		skip();
	}
}

/* ------------------------------------------------------------- Fig. 5 */

/* s0..s5 are switches 0..5; m0 sits on s0, its port named 1 + 6. */
static void fig5(struct inst *in)
{
	static const uint32_t p1[] = { 4, 1, 0 }, p2[] = { 4, 3, 2, 0 };
	static const uint32_t p3[] = { 5, 2, 0 }, p4[] = { 5, 3, 1, 0 };

	inst_init(in);
	add_path(in, p1, 3, 6);
	add_path(in, p2, 4, 6);
	add_path(in, p3, 3, 6);
	add_path(in, p4, 4, 6);
}

static void expect(const struct inst *in, enum ibr_lid_heuristic h,
		   uint32_t k, const uint32_t *color, bool exact)
{
	struct answer *r = assign(in, 6, h);

	if (r->k != k)
		fail_msg("%s: k %u, expected %u", ibr_lid_heuristic_name(h),
			 r->k, k);
	for (uint32_t i = 0; i < in->n; i++)
		if (r->color[i] != color[i])
			fail_msg("%s: p%u has colour %u, expected %u",
				 ibr_lid_heuristic_name(h), i + 1,
				 r->color[i], color[i]);
	assert_int_equal(r->exact, exact);
	free(r);
}

static void test_fig5_splits(void **state)
{
	struct inst in;

	(void)state;
	fig5(&in);
	/* The split graph of Fig. 8: p1-p2 (s4), p2-p4 (s3), p3-p4 (s5). */
	assert_true(split(&in, 0, 1));
	assert_true(split(&in, 1, 3));
	assert_true(split(&in, 2, 3));
	assert_false(split(&in, 0, 2));
	assert_false(split(&in, 0, 3));
	assert_false(split(&in, 1, 2));
}

static void test_fig5_greedy(void **state)
{
	/* Fig. 6's walk-through: C1 = {p1, p3}, C2 = {p2}, C3 = {p4}; the
	 * largest clique is an edge, so 3 is not proven. */
	static const uint32_t c[] = { 0, 1, 0, 2 };
	struct inst in;

	(void)state;
	fig5(&in);
	expect(&in, IBR_LA_GREEDY, 3, c, false);
}

static void test_fig5_color_l(void **state)
{
	/* Fig. 9's walk-through: p2 (degree 2, before p4), then p3; then
	 * p1 and p4: {p2, p3} and {p1, p4}; 2 = the clique {p1, p2}. */
	static const uint32_t c[] = { 1, 0, 0, 1 };
	struct inst in;

	(void)state;
	fig5(&in);
	expect(&in, IBR_LA_COLOR_L, 2, c, true);
}

static void test_fig5_color_s(void **state)
{
	/* Smallest degree first: p1 (1, before p3) takes colour 0 and p2
	 * leaves; p3 (working degree 1, before p4) takes 0 too.  Then p2 and
	 * p4 split: 1 and 2.  3 configurations, as §V-C says color/S does
	 * worse. */
	static const uint32_t c[] = { 0, 1, 0, 2 };
	struct inst in;

	(void)state;
	fig5(&in);
	expect(&in, IBR_LA_COLOR_S, 3, c, false);
}

static void test_fig5_split_merge(void **state)
{
	/* /S: s1, s2 (one port each: no cut), s3 cuts p4 from {p1, p2, p3}
	 * (groups {p2} and {p4} tie; p2's keeps the item and p1, p3 which
	 * miss s3), s4 cuts p2 from {p1, p3}, s5 and s0 cut nothing: items
	 * {p1, p3}, {p2}, {p4}, which no merge joins.  /L takes s0 first
	 * (4 paths, one port) then the same order: the same 3. */
	static const uint32_t c[] = { 0, 1, 0, 2 };
	struct inst in;

	(void)state;
	fig5(&in);
	expect(&in, IBR_LA_SPLIT_MERGE_S, 3, c, false);
	expect(&in, IBR_LA_SPLIT_MERGE_L, 3, c, false);
}

static void test_fig5_ilp(void **state)
{
	struct inst in;
	struct answer *r;

	(void)state;
	skip_without_glpk();
	fig5(&in);
	r = assign(&in, 6, IBR_LA_ILP);
	assert_int_equal(r->k, 2);
	assert_true(r->exact);
	/* §IV's solution: {p1, p4} and {p2, p3}. */
	assert_int_equal(r->color[0], r->color[3]);
	assert_int_equal(r->color[1], r->color[2]);
	assert_int_not_equal(r->color[0], r->color[1]);
	free(r);
}

/* ------------------------------------------------------------- Fig. 4 */

/* G' of Fig. 4 (b): n_0..n_3 are 0..3, n_{0,1} 4, n_{0,2} 5, n_{1,2} 6,
 * n_{1,3} 7, n_{2,3} 8, n_0'..n_3' 9..12, d 13. */
static void fig4(struct inst *in)
{
	static const uint32_t p0[] = { 0, 4, 5, 9 };
	static const uint32_t p1[] = { 1, 4, 6, 7, 10 };
	static const uint32_t p2[] = { 2, 5, 6, 8, 11 };
	static const uint32_t p3[] = { 3, 7, 8, 12 };

	inst_init(in);
	add_path(in, p0, 4, 13);
	add_path(in, p1, 5, 13);
	add_path(in, p2, 5, 13);
	add_path(in, p3, 4, 13);
}

static void test_fig4_reduction(void **state)
{
	static const bool edge[4][4] = {
		{ 0, 1, 1, 0 }, { 1, 0, 1, 1 }, { 1, 1, 0, 1 }, { 0, 1, 1, 0 },
	};
	struct inst in, pair;

	(void)state;
	fig4(&in);
	/* The split graph is G, by the test's own check and by the
	 * library's: two paths alone need 2 LIDs exactly when they split. */
	for (uint32_t u = 0; u < 4; u++)
		for (uint32_t v = u + 1; v < 4; v++) {
			struct answer *r;
			uint32_t lens[2] = { in.first[u + 1] - in.first[u],
					     in.first[v + 1] - in.first[v] };

			assert_int_equal(split(&in, u, v), edge[u][v]);
			inst_init(&pair);
			add_path(&pair, in.sw + in.first[u], lens[0], 13);
			add_path(&pair, in.sw + in.first[v], lens[1], 13);
			r = assign(&pair, 13, IBR_LA_GREEDY);
			assert_int_equal(r->k, edge[u][v] ? 2 : 1);
			assert_true(r->exact);
			free(r);
		}
	/* Every heuristic colours it properly (checked in assign()); the
	 * triangle 0-1-2 makes 3 the least. */
	for (int h = 0; h < IBR_LA_ILP; h++) {
		struct answer *r = assign(&in, 13, (enum ibr_lid_heuristic)h);
		assert_true(r->k >= 3);
		free(r);
	}
}

static void test_fig4_ilp_is_chromatic_number(void **state)
{
	struct inst in;
	struct answer *r;

	(void)state;
	skip_without_glpk();
	fig4(&in);
	r = assign(&in, 13, IBR_LA_ILP);
	assert_int_equal(r->k, 3);
	assert_true(r->exact);
	free(r);
}

/* ------------------------------------------------- identical paths */

static void test_identical_paths_merged(void **state)
{
	struct inst in, twice, mixed;

	(void)state;
	for (int which = 0; which < 2; which++) {
		if (which == 0)
			fig5(&in);
		else
			fig4(&in);
		/* Appended copies, and every path followed by its copy. */
		inst_init(&twice);
		inst_init(&mixed);
		for (int rep = 0; rep < 2; rep++)
			for (uint32_t i = 0; i < in.n; i++)
				add_path(&twice, in.sw + in.first[i],
					 in.first[i + 1] - in.first[i],
					 which ? 13 : 6);
		for (uint32_t i = 0; i < in.n; i++)
			for (int rep = 0; rep < 2; rep++)
				add_path(&mixed, in.sw + in.first[i],
					 in.first[i + 1] - in.first[i],
					 which ? 13 : 6);
		for (int h = 0; h < IBR_LA_COUNT; h++) {
			struct answer *a, *b, *c;

			if (h == IBR_LA_ILP && !ibr_lid_ilp_available())
				continue;
			a = assign(&in, 14, (enum ibr_lid_heuristic)h);
			b = assign(&twice, 14, (enum ibr_lid_heuristic)h);
			c = assign(&mixed, 14, (enum ibr_lid_heuristic)h);
			assert_int_equal(a->k, b->k);
			assert_int_equal(a->k, c->k);
			assert_int_equal(a->exact, b->exact);
			for (uint32_t i = 0; i < in.n; i++) {
				assert_int_equal(b->color[i], a->color[i]);
				assert_int_equal(b->color[i + in.n], a->color[i]);
				assert_int_equal(c->color[2 * i], a->color[i]);
				assert_int_equal(c->color[2 * i + 1], a->color[i]);
			}
			free(a);
			free(b);
			free(c);
		}
	}
}

/* ---------------------------------------------------------- random */

static uint64_t rng_state;

static uint32_t rnd(uint32_t n)
{
	rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)(rng_state >> 33) % n;
}

/* n paths to switch 0 over S switches: each a run of 1..5 distinct other
 * switches; the port names the next switch. */
static void random_inst(struct inst *in, uint32_t n, uint32_t S,
			uint32_t maxlen)
{
	inst_init(in);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t nodes[MAXH], len = 1 + rnd(maxlen);
		for (uint32_t j = 0; j < len; j++) {
			bool again;
			do {
				nodes[j] = 1 + rnd(S - 1);
				again = false;
				for (uint32_t q = 0; q < j; q++)
					again |= nodes[q] == nodes[j];
			} while (again);
		}
		add_path(in, nodes, len, 0);
	}
}

/* Colours v..n-1 with at most k colours given c[0..v-1]; a path takes a
 * colour already used or the next new one (colour names are arbitrary). */
static bool colour_from(const bool adj[][16], uint32_t n, uint32_t *c,
			uint32_t v, uint32_t k, uint32_t used)
{
	if (v == n)
		return true;
	for (uint32_t x = 0; x < k && x <= used; x++) {
		bool ok = true;
		for (uint32_t u = 0; u < v && ok; u++)
			ok = !(adj[u][v] && c[u] == x);
		if (!ok)
			continue;
		c[v] = x;
		if (colour_from(adj, n, c, v + 1, k, x == used ? used + 1 : used))
			return true;
	}
	return false;
}

/* The chromatic number of the split graph, by backtracking (n <= 16). */
static uint32_t chromatic(const struct inst *in)
{
	bool adj[16][16];
	uint32_t c[16];

	assert_true(in->n <= 16);
	if (in->n == 0)
		return 0;
	for (uint32_t x = 0; x < in->n; x++)
		for (uint32_t y = 0; y < in->n; y++)
			adj[x][y] = x != y && split(in, x, y);
	for (uint32_t k = 1;; k++)
		if (colour_from(adj, in->n, c, 0, k, 0))
			return k;
}

/* Appends a copy of path i: a twin, as hosts of one switch following the
 * same switch path are.  The library counts twins once but weighs them in
 * its degrees; the naive versions below see every copy. */
static void add_twin(struct inst *in, uint32_t i)
{
	uint32_t f = in->first[in->n], len = in->first[i + 1] - in->first[i];

	assert_true(in->n < MAXP);
	memcpy(in->sw + f, in->sw + in->first[i], len * sizeof(uint32_t));
	memcpy(in->port + f, in->port + in->first[i], len);
	in->first[++in->n] = f + len;
}

/* Definition 1 for every pair of in's paths, hop by hop (split()), into
 * one table the naive versions below read. */
static bool naive_split[MAXP][MAXP];

static void find_splits(const struct inst *in)
{
	for (uint32_t i = 0; i < in->n; i++)
		for (uint32_t j = 0; j < in->n; j++)
			naive_split[i][j] = split(in, i, j);
}

/* Fig. 6 as printed, on the raw paths, splits found hop by hop. */
static uint32_t naive_greedy(const struct inst *in, uint32_t *col)
{
	uint32_t k = 0, left = in->n;

	find_splits(in);
	for (uint32_t i = 0; i < in->n; i++)
		col[i] = UINT32_MAX;
	while (left > 0) {
		for (uint32_t i = 0; i < in->n; i++) {
			bool fits = col[i] == UINT32_MAX;
			for (uint32_t j = 0; fits && j < in->n; j++)
				fits = col[j] != k || !naive_split[i][j];
			if (fits) {
				col[i] = k;
				left--;
			}
		}
		k++;
	}
	return k;
}

/* Fig. 9 on every input path (twins included, as the paper's split graph
 * has them), a path's degree counted afresh at every selection as the
 * uncoloured paths it splits with; ties to the lower path. */
static uint32_t naive_color(const struct inst *in, bool largest, uint32_t *col)
{
	bool work[MAXP];
	uint32_t k = 0, left = in->n;

	find_splits(in);
	for (uint32_t i = 0; i < in->n; i++)
		col[i] = UINT32_MAX;
	while (left > 0) {
		for (uint32_t i = 0; i < in->n; i++)
			work[i] = col[i] == UINT32_MAX;
		for (;;) {
			uint32_t v = UINT32_MAX, dv = 0;
			for (uint32_t i = 0; i < in->n; i++) {
				uint32_t d = 0;
				if (!work[i])
					continue;
				for (uint32_t j = 0; j < in->n; j++)
					d += col[j] == UINT32_MAX && j != i &&
					     naive_split[i][j];
				if (v == UINT32_MAX ||
				    (largest ? d > dv : d < dv)) {
					v = i;
					dv = d;
				}
			}
			if (v == UINT32_MAX)
				break;
			col[v] = k;
			left--;
			for (uint32_t j = 0; j < in->n; j++)
				if (work[j] && (j == v || naive_split[v][j]))
					work[j] = false;
		}
		k++;
	}
	return k;
}

static void test_random_against_ilp(void **state)
{
	static const char *const short_name[] = {
		"greedy", "s-m/S", "s-m/L", "color/S", "color/L", "ilp",
	};
	unsigned equal[IBR_LA_COUNT] = { 0 }, exact_claims[IBR_LA_COUNT] = { 0 };
	double gap[IBR_LA_COUNT] = { 0 };
	unsigned solved = 0;
	bool ilp = ibr_lid_ilp_available();

	(void)state;
	for (unsigned t = 0; t < 200; t++) {
		struct inst in;
		uint32_t S = 8 + t % 5, n = 4 + t % 11, chi;
		struct answer *r[IBR_LA_COUNT] = { NULL };

		rng_state = 0x1D5EEDull + t;
		random_inst(&in, n, S, 5);
		/* every other instance gets twins of its first paths, up
		 * to 16 paths (the chromatic number's limit) */
		for (uint32_t i = 0; t % 2 == 1 && in.n < 16 && i < 3; i++)
			add_twin(&in, i * (n / 3));
		chi = chromatic(&in);
		for (int h = 0; h < IBR_LA_COUNT; h++) {
			struct answer *again;

			if (h == IBR_LA_ILP && !ilp)
				continue;
			r[h] = assign(&in, S, (enum ibr_lid_heuristic)h);
			if (r[h]->k < chi)
				fail_msg("instance %u: %s found %u < chromatic "
					 "number %u", t, short_name[h],
					 r[h]->k, chi);
			if (r[h]->exact && r[h]->k != chi)
				fail_msg("instance %u: %s claims %u exact, "
					 "chromatic number %u", t,
					 short_name[h], r[h]->k, chi);
			exact_claims[h] += r[h]->exact;
			if (h == IBR_LA_GREEDY || h == IBR_LA_COLOR_S ||
			    h == IBR_LA_COLOR_L) {
				uint32_t col[16], k = h == IBR_LA_GREEDY ?
					naive_greedy(&in, col) :
					naive_color(&in, h == IBR_LA_COLOR_L, col);
				assert_int_equal(r[h]->k, k);
				for (uint32_t i = 0; i < in.n; i++)
					assert_int_equal(r[h]->color[i], col[i]);
			}
			/* the same input, the same colours */
			again = assign(&in, S, (enum ibr_lid_heuristic)h);
			assert_int_equal(again->k, r[h]->k);
			assert_memory_equal(again->color, r[h]->color,
					    in.n * sizeof(uint32_t));
			free(again);
		}
		if (ilp) {
			assert_true(r[IBR_LA_ILP]->exact);
			assert_int_equal(r[IBR_LA_ILP]->k, chi);
			solved++;
			for (int h = 0; h < IBR_LA_COUNT; h++) {
				assert_true(r[h]->k >= r[IBR_LA_ILP]->k);
				equal[h] += r[h]->k == r[IBR_LA_ILP]->k;
				gap[h] += (double)(r[h]->k - r[IBR_LA_ILP]->k) /
					  r[IBR_LA_ILP]->k;
			}
		} else {
			solved++;
			for (int h = 0; h < IBR_LA_ILP; h++) {
				equal[h] += r[h]->k == chi;
				gap[h] += (double)(r[h]->k - chi) / chi;
			}
		}
		for (int h = 0; h < IBR_LA_COUNT; h++)
			free(r[h]);
	}
	print_message("%u random instances (4-14 paths, 8-12 switches), "
		      "against the %s:\n", solved,
		      ilp ? "ILP" : "brute-force chromatic number");
	for (int h = 0; h < IBR_LA_COUNT; h++)
		if (h != IBR_LA_ILP || ilp)
			print_message("  %-8s optimal %3u/%u, mean gap %5.2f%%, "
				      "exact claimed %3u\n", short_name[h],
				      equal[h], solved, 100 * gap[h] / solved,
				      exact_claims[h]);
}

/* ---------------------------------------------------------- edges */

/* greedy, color/S and color/L against Fig. 6 and Fig. 9 as printed on
 * destinations of 65 to 285 paths (several 64-bit words a bitset row,
 * twins among them): the same colour for every path.  color/L and
 * color/S take a round's paths in an order sorted at its start, which
 * the naive version's search for the largest degree before every path
 * checks. */
static void test_large_against_naive(void **state)
{
	static struct inst in;
	static uint32_t col[MAXP];

	(void)state;
	for (unsigned t = 0; t < 12; t++) {
		uint32_t S = 16 + 2 * t, n = 65 + 20 * t;

		rng_state = 0x1A26Eull + t;
		random_inst(&in, n, S, 6);
		for (uint32_t i = 0; t % 2 == 1 && i < n / 4; i++)
			add_twin(&in, rnd(n));
		for (int h = IBR_LA_GREEDY; h < IBR_LA_ILP; h++) {
			struct answer *r;
			uint32_t k;

			if (h != IBR_LA_GREEDY && h != IBR_LA_COLOR_S &&
			    h != IBR_LA_COLOR_L)
				continue;
			r = assign(&in, S, (enum ibr_lid_heuristic)h);
			k = h == IBR_LA_GREEDY ? naive_greedy(&in, col) :
			    naive_color(&in, h == IBR_LA_COLOR_L, col);
			if (r->k != k)
				fail_msg("instance %u (%u paths): %s uses %u "
					 "colours, Fig. %s as printed %u", t,
					 in.n, ibr_lid_heuristic_name(
						 (enum ibr_lid_heuristic)h),
					 r->k, h == IBR_LA_GREEDY ? "6" : "9",
					 k);
			for (uint32_t i = 0; i < in.n; i++)
				if (r->color[i] != col[i])
					fail_msg("instance %u: %s gives path "
						 "%u colour %u, the naive "
						 "version %u", t,
						 ibr_lid_heuristic_name(
						 (enum ibr_lid_heuristic)h),
						 i, r->color[i], col[i]);
			free(r);
		}
	}
}

static void test_edge_cases(void **state)
{
	struct ibr_lid_assign_options o = { IBR_LA_COLOR_L, 1.0 };
	struct ibr_error err = { "" };
	struct ibr_lid_assigner *a = NULL;
	struct inst in;
	struct ibr_dest_paths p;
	uint32_t color[4], k = 99;
	bool exact = false;
	static const uint32_t loop[] = { 1, 2, 1 }, far[] = { 1, 7 };

	(void)state;
	assert_int_equal(ibr_lid_assigner_new(&a, 6, &err), 0);
	/* no path: no configuration */
	inst_init(&in);
	p = view(&in);
	assert_int_equal(ibr_lid_assign(a, &p, &o, color, &k, &exact, &err), 0);
	assert_int_equal(k, 0);
	assert_true(exact);
	/* paths with no hop (source on the destination's switch) */
	add_path(&in, NULL, 0, 0);
	add_path(&in, NULL, 0, 0);
	p = view(&in);
	assert_int_equal(ibr_lid_assign(a, &p, &o, color, &k, &exact, &err), 0);
	assert_int_equal(k, 1);
	assert_true(exact);
	assert_int_equal(color[0], 0);
	assert_int_equal(color[1], 0);
	/* a forwarding loop */
	inst_init(&in);
	add_path(&in, loop, 3, 0);
	p = view(&in);
	assert_int_equal(ibr_lid_assign(a, &p, &o, color, &k, NULL, &err), -1);
	assert_non_null(strstr(err.msg, "twice"));
	/* a switch out of range */
	err.msg[0] = '\0';
	inst_init(&in);
	add_path(&in, far, 2, 0);
	p = view(&in);
	assert_int_equal(ibr_lid_assign(a, &p, &o, color, &k, NULL, &err), -1);
	assert_non_null(strstr(err.msg, "switch 7"));
	/* the same assigner still works afterwards */
	err.msg[0] = '\0';
	fig5(&in);
	p = view(&in);
	assert_int_equal(ibr_lid_assign(a, &p, &o, color, &k, NULL, &err), 0);
	assert_int_equal(k, 2);
	if (!ibr_lid_ilp_available()) {
		o.heuristic = IBR_LA_ILP;
		assert_int_equal(ibr_lid_assign(a, &p, &o, color, &k, NULL,
						&err), -1);
		assert_non_null(strstr(err.msg, "GLPK"));
	}
	ibr_lid_assigner_free(a);
}

static void test_names(void **state)
{
	static const struct {
		const char *name;
		enum ibr_lid_heuristic h;
	} ok[] = {
		{ "greedy", IBR_LA_GREEDY }, { "split-merge/S", IBR_LA_SPLIT_MERGE_S },
		{ "split-merge/l", IBR_LA_SPLIT_MERGE_L }, { "COLOR/S", IBR_LA_COLOR_S },
		{ "color/L", IBR_LA_COLOR_L }, { "ilp", IBR_LA_ILP },
		{ "sm-s", IBR_LA_SPLIT_MERGE_S }, { "sm-l", IBR_LA_SPLIT_MERGE_L },
		{ "color-s", IBR_LA_COLOR_S }, { "color-l", IBR_LA_COLOR_L },
		{ "colors", IBR_LA_COLOR_S }, { "colorl", IBR_LA_COLOR_L },
	};
	enum ibr_lid_heuristic h;

	(void)state;
	for (unsigned i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		assert_int_equal(ibr_lid_heuristic_parse(ok[i].name, &h), 0);
		assert_int_equal(h, ok[i].h);
	}
	assert_int_equal(ibr_lid_heuristic_parse("color", &h), -1);
	for (int x = 0; x < IBR_LA_COUNT; x++) {
		assert_int_equal(ibr_lid_heuristic_parse(
			ibr_lid_heuristic_name((enum ibr_lid_heuristic)x), &h), 0);
		assert_int_equal(h, x);
	}
	assert_string_equal(ibr_lid_heuristic_name(IBR_LA_COLOR_L), "color/L");
}

/* -------------------------------------------------------- performance */

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* 512 distinct paths of 5 hops to switch 0 that converge as real ones
 * do: 63 switches in levels 5..1 (13, 13, 13, 12, 12), each linked to 3
 * switches of the level below (level 1 to switch 0); a path starts at
 * level 5 and takes one of its 3 links down at every switch. */
static void converging_inst(struct inst *in)
{
	uint32_t lvl_first[7] = { 0, 1, 13, 25, 38, 51, 64 }, down[64][3];

	for (uint32_t s = 1; s < 64; s++) {
		uint32_t L = 1;
		while (s >= lvl_first[L + 1])
			L++;
		for (uint32_t j = 0; j < 3; j++)
			down[s][j] = L == 1 ? 0 : lvl_first[L - 1] +
				rnd(lvl_first[L] - lvl_first[L - 1]);
	}
	inst_init(in);
	for (unsigned tries = 0; in->n < 1024 && tries < 100000; tries++) {
		uint32_t nodes[5], dup = 0;
		nodes[0] = lvl_first[5] + rnd(13);
		for (uint32_t j = 1; j < 5; j++)
			nodes[j] = down[nodes[j - 1]][rnd(3)];
		for (uint32_t i = 0; i < in->n && !dup; i++)
			dup = memcmp(in->sw + in->first[i], nodes,
				     sizeof(nodes)) == 0;
		if (dup)
			continue;
		/* each distinct path twice: two CAs of its source switch */
		add_path(in, nodes, 5, 0);
		add_path(in, nodes, 5, 0);
	}
	assert_int_equal(in->n, 1024);
}

/* The same count over 5 random distinct switches each, ports named after
 * the next switch: a much denser split graph. */
static void scattered_inst(struct inst *in)
{
	inst_init(in);
	while (in->n < 1024) {
		uint32_t nodes[5];
		for (uint32_t j = 0; j < 5; j++) {
			bool again;
			do {
				nodes[j] = 1 + rnd(63);
				again = false;
				for (uint32_t q = 0; q < j; q++)
					again |= nodes[q] == nodes[j];
			} while (again);
		}
		add_path(in, nodes, 5, 0);
		add_path(in, nodes, 5, 0);
	}
}

static void test_performance_print(void **state)
{
	struct ibr_lid_assign_options o = { IBR_LA_COLOR_L, 1.0 };
	struct ibr_error err = { "" };
	struct ibr_lid_assigner *a = NULL;
	struct inst *in = malloc(sizeof(*in));
	uint32_t *color = malloc(MAXP * sizeof(*color));
	struct ibr_dest_paths p;

	(void)state;
	assert_non_null(in);
	assert_non_null(color);
	assert_int_equal(ibr_lid_assigner_new(&a, 64, &err), 0);
	for (int kind = 0; kind < 2; kind++) {
		rng_state = 512;
		if (kind == 0)
			converging_inst(in);
		else
			scattered_inst(in);
		p = view(in);
		for (int h = 0; h < IBR_LA_ILP; h++) {
			uint32_t k;
			bool exact;
			double t0;

			o.heuristic = (enum ibr_lid_heuristic)h;
			/* a warm-up sizes the scratch, as earlier
			 * destinations do */
			assert_int_equal(ibr_lid_assign(a, &p, &o, color, &k,
							&exact, &err), 0);
			t0 = now_ms();
			assert_int_equal(ibr_lid_assign(a, &p, &o, color, &k,
							&exact, &err), 0);
			print_message("%s 1024 paths (512 distinct, 5 hops, "
				      "64 switches) %-13s k %2u%s, %.3f ms\n",
				      kind ? "scattered " : "converging",
				      ibr_lid_heuristic_name(o.heuristic), k,
				      exact ? " (exact)" : "        ",
				      now_ms() - t0);
		}
	}
	ibr_lid_assigner_free(a);
	free(color);
	free(in);
}

/* With next to no time the ILP keeps the best heuristic's colouring and
 * does not claim it minimal (unless the clique already proves it). */
static void test_ilp_time_limit(void **state)
{
	struct ibr_lid_assign_options o = { IBR_LA_ILP, 0.001 };
	struct ibr_error err = { "" };
	struct ibr_lid_assigner *a = NULL;
	struct ibr_dest_paths p;
	struct inst *in;
	uint32_t *color, k, best = UINT32_MAX;
	bool exact;
	double t0;

	skip_without_glpk();    /* before anything is allocated */
	in = malloc(sizeof(*in));
	color = malloc(MAXP * sizeof(*color));

	(void)state;
	assert_non_null(in);
	assert_non_null(color);
	rng_state = 77;
	scattered_inst(in);
	p = view(in);
	for (int h = 0; h < IBR_LA_ILP; h++) {
		struct answer *r = assign(in, 64, (enum ibr_lid_heuristic)h);
		if (r->k < best)
			best = r->k;
		free(r);
	}
	assert_int_equal(ibr_lid_assigner_new(&a, 64, &err), 0);
	t0 = now_ms();
	if (ibr_lid_assign(a, &p, &o, color, &k, &exact, &err))
		fail_msg("%s", err.msg);
	print_message("ILP with 1 ms on 512 scattered paths: k %u (best "
		      "heuristic %u), %s, %.1f ms\n", k, best,
		      exact ? "exact" : "not proven", now_ms() - t0);
	assert_valid(in, color, k);
	assert_true(k <= best);
	ibr_lid_assigner_free(a);
	free(color);
	free(in);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_fig5_splits),
		cmocka_unit_test(test_fig5_greedy),
		cmocka_unit_test(test_fig5_color_l),
		cmocka_unit_test(test_fig5_color_s),
		cmocka_unit_test(test_fig5_split_merge),
		cmocka_unit_test(test_fig5_ilp),
		cmocka_unit_test(test_fig4_reduction),
		cmocka_unit_test(test_fig4_ilp_is_chromatic_number),
		cmocka_unit_test(test_identical_paths_merged),
		cmocka_unit_test(test_random_against_ilp),
		cmocka_unit_test(test_large_against_naive),
		cmocka_unit_test(test_edge_cases),
		cmocka_unit_test(test_ilp_time_limit),
		cmocka_unit_test(test_performance_print),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
