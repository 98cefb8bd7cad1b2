/*
 * paths.c - one legal path per unit (paths.h) by the two schemes of
 * lid-assignment-color-l §VI: shortest-widest and path selection
 * (k shortest legal paths, then most-loaded-link-first).
 *
 * This file: the work every algorithm shares (units, the result), the
 * selected paths written out, the batches and the entry points.  The
 * algorithms are beside it: shortest_widest.c, kpaths.c (the candidate
 * search) and mllf.c (most-loaded-link-first); what they share is in
 * paths_work.h.
 *
 * Channels and states.  A channel is one sw_adj entry (a direction of one
 * link; parallel links are distinct channels).  A legal path is a walk
 * over (switch, phase) states: U(x), still climbing at x, may take any
 * channel (an up one to U(y), a down one to D(y)); D(x), descending, only
 * down channels (to D(y)).  State U(x) is numbered x, D(x) is S + x.  Up
 * channels go to earlier switches of ud->order and down channels to later
 * ones, so the state graph is a DAG, and a walk meets a switch at most
 * twice: once climbing and once descending.  That is the only loop a
 * walk can make; a shortest walk never makes it (cutting it out leaves a
 * shorter legal walk).  The destination switch ends every walk.
 *
 * Shortest-widest.  Units one after the other, in their order (by
 * destination, then source).  Every channel has weight 1 + the flows of
 * the units placed on it so far.  A unit takes, among the legal paths of
 * minimal length from its source switch, one of least total weight (sum
 * over its channels); ties go to the smallest sequence of output ports
 * (the lowest port at the first switch where two such paths differ).
 * Then its flows are added to the weights of its channels.  Per unit the
 * search is confined to the states on minimal legal paths from the
 * source (a BFS along channels that bring the legal distance down by
 * one), weighed backwards: cost of the minimal sub-DAG, not of the fabric.
 *
 * Path selection.  Candidates of a unit: its k shortest loop-free legal
 * paths, ordered by length then by sequence of output ports (as above).
 * Per destination switch one backward pass over the DAG keeps, for every
 * state, its kmax best walks to the destination in that order (merging
 * the sorted lists of its successors); a source's walks are then read off
 * in order and those that visit a switch twice dropped.  The lists are
 * exact for walks, so the loop-free walks read off are exactly the best
 * loop-free paths; when fewer than k survive and the list was full,
 * kmax doubles for that destination (at most KBEST_CAP walks per state:
 * beyond that a unit keeps the fewer candidates found, never wrong ones);
 * the lists that were full grow, their merges resumed, and no walk is
 * merged twice.
 * Then most-loaded-link-first: load[c] = sum over units of
 * flows / (candidates left) for each candidate left crossing c, kept
 * exactly as integers in 1/SHARES of a flow.  Repeatedly, at the channel
 * of highest load (ties to the lower channel index; a max-heap), the
 * groups with candidates crossing it and another not crossing it, those
 * with the most candidates left, lose the crossing ones one group at a
 * time (by group index), the loads of their channels redone after each,
 * while the channel stays within 1/TOLERANCE of the heaviest load; then
 * the heaviest channel is looked for again, so the load a removal shifts
 * elsewhere is seen before the next (the tolerance saves rescanning a
 * channel for every group where loads are nearly level).  A channel
 * where no group qualifies is exhausted for good (groups only lose
 * candidates).  Two distinct
 * loop-free paths from s to d differ in their channel sets, so the loop
 * ends with one candidate per unit.  Each entry of a channel's list
 * remembers how many candidates its group had left when last read, and
 * a visit reads only the entries that may qualify at its level, found
 * from the channel's ceiling down (relieve_channel); a visit scans only
 * as far as its last drop.
 *
 * Memory: a pair's candidates are kept packed (struct crossings): each
 * channel they cross once, with the mask of the ranks crossing it, and
 * the inverted index lists a (pair, channel) once, where the pair
 * qualifies at the start.  Above 1.5 x 2^20 switch pairs (1254 switches
 * with CAs) the destination switches go in batches, each searched and
 * selected over the chosen paths of those before, so that one batch's
 * candidates are held at a time ("the selection in batches" below).
 *
 * Threads (o->threads): the candidate search runs destination switches in
 * waves over the workers, each into a segment of its own, appended in
 * destination order after the wave: the same candidates in the same
 * order as one thread finds; the selected paths are written out in two
 * passes over blocks of units (lengths, then hops at the places their
 * sums give).  Most-loaded-link-first is one sequence up
 * to 512 switches with CAs (the paper's, exactly); above, by default, it
 * runs in two parts side by side ("the selection in parts" below), which
 * the fabric, never the thread count, decides (o->parts).
 * o->workers_now, when set, says before each wave how many workers the
 * search may use (the caller's other work may be running beside it), and
 * 0 there or every STOP_EVERY visits of the selection stops it all.
 *
 * Units.  Path selection runs on groups: switch pairs (flows = the CA
 * pairs between them) or, with per_ca, the CA pairs themselves (flows 1),
 * each with its own copy of its switch pair's candidates (proto: their
 * channels are shared), so that CA pairs of one switch pair, cut one at
 * a time, part ways over the candidates as the paper's per-machine
 * selection does; candidates counts per unit.  Shortest-widest places
 * CA units one by one (weights move between two CAs of a switch).
 *
 * Pairs with no legal route (updown.h, ibr_climb_meet: no sink above
 * both switches, as between two roots of a fat tree's top level, whose
 * SHARP aggregation nodes are CAs) are no units: no path, no flows, no
 * load, as dr and fera leave them (IBR_NO_PATH at the source; the
 * verifier counts them as owed no route).  Path selection keeps a group
 * per switch pair with CAs all the same, with no candidate, so that
 * group_of, the batches and the parts stay the arithmetic they are; the
 * shortest-widest sequence and the selection among the other pairs are
 * those without them, and where every pair has a route nothing changes.
 *
 * Invariants of a result: units sorted by (dst, src), exactly the pairs
 * paths.h names; unit u's hops run from its source switch, each channel
 * a real link, up channels then down channels, no switch twice, ending
 * next to (and excluding) its destination switch; same input, same
 * output.
 */
#include <stdlib.h>
#include <string.h>

#include "paths_work.h"
#include "util/parallel.h"
#include "util/timer.h"

#define MAX_K        16

int paths_oom(struct work *w, const char *what)
{
	return ibr_error_set(w->err, "paths: out of memory for %s (%u switches, "
			     "%u units)", what, w->S, w->out->num_units);
}

/* The workers the paths may use now, at most `most` (o->workers_now); 0:
 * no longer wanted. */
unsigned paths_workers_now(const struct work *w, unsigned most)
{
	unsigned n;

	if (!w->o->workers_now)
		return most;
	n = w->o->workers_now(w->o->workers_arg);
	return n < most ? n : most;
}

/* IBR_PATHS_STOPPED when the caller no longer wants the paths, else 0. */
int paths_stopped(const struct work *w)
{
	return paths_workers_now(w, 1) ? 0 : IBR_PATHS_STOPPED;
}

/* ---- scheme names ------------------------------------------------------ */

const char *ibr_path_scheme_name(enum ibr_path_scheme s)
{
	return s == IBR_PATHS_SELECTION ? "path-selection" : "shortest-widest";
}

int ibr_path_scheme_parse(const char *name, enum ibr_path_scheme *s)
{
	if (!name)
		return -1;
	if (!strcmp(name, "shortest-widest") || !strcmp(name, "sw"))
		*s = IBR_PATHS_SHORTEST_WIDEST;
	else if (!strcmp(name, "path-selection") || !strcmp(name, "ps"))
		*s = IBR_PATHS_SELECTION;
	else
		return -1;
	return 0;
}

/* ---- units and the result ----------------------------------------------- */

/* Lists the units in their order: by destination, then source; the
 * pairs with no legal route left out. */
static int make_units(struct work *w)
{
	const struct ibr_fabric *f = w->f;
	struct ibr_paths *p = w->out;
	uint64_t n = 0;
	uint32_t u = 0;

	/* by switch pair: CA pairs count the CAs of their two switches */
	for (uint32_t d = 0; d < w->S; d++)
		for (uint32_t s = 0; s < w->S; s++)
			if (s != d && cas_on(f, s) && cas_on(f, d) &&
			    routed(w, s, d))
				n += p->per_ca ? switch_flows(w, s, d) : 1;
	if (n >= UINT32_MAX)
		return ibr_error_set(w->err, "paths: %llu pairs, more than a "
				     "32-bit index holds",
				     (unsigned long long)n);
	p->num_units = (uint32_t)n;
	p->src = malloc((n ? n : 1) * sizeof(uint32_t));
	p->dst = malloc((n ? n : 1) * sizeof(uint32_t));
	p->first = malloc((n + 1) * sizeof(uint32_t));
	if (!p->src || !p->dst || !p->first)
		return paths_oom(w, "units");
	if (p->per_ca) {
		for (uint32_t d = 0; d < f->num_end_ports; d++)
			for (uint32_t s = 0; s < f->num_end_ports; s++)
				if (f->end_ports[s].sw != f->end_ports[d].sw &&
				    routed(w, f->end_ports[s].sw,
					   f->end_ports[d].sw)) {
					p->src[u] = s;
					p->dst[u++] = d;
				}
	} else {
		for (uint32_t d = 0; d < w->S; d++)
			for (uint32_t s = 0; s < w->S; s++)
				if (s != d && cas_on(f, s) && cas_on(f, d) &&
				    routed(w, s, d)) {
					p->src[u] = s;
					p->dst[u++] = d;
				}
	}
	return 0;
}

/* Room for n more hops in the result. */
int paths_reserve_hops(struct work *w, uint32_t n)
{
	struct ibr_paths *p = w->out;
	uint64_t cap = w->hop_cap ? w->hop_cap : 1024;
	uint32_t *sw;
	uint8_t *port;

	if ((uint64_t)w->hops + n <= w->hop_cap)
		return 0;
	while (cap < (uint64_t)w->hops + n)
		cap *= 2;
	if (cap > UINT32_MAX)
		return ibr_error_set(w->err, "paths: more than 2^32 hops");
	sw = realloc(p->hop_sw, cap * sizeof(uint32_t));
	if (!sw)
		return paths_oom(w, "hops");
	p->hop_sw = sw;
	port = realloc(p->hop_port, cap);
	if (!port)
		return paths_oom(w, "hops");
	p->hop_port = port;
	w->hop_cap = (uint32_t)cap;
	return 0;
}

/* Distances of every switch to switch d (updown.h), unless they are. */
void paths_distances_to(struct work *w, uint32_t d)
{
	if (w->dist_of == d)
		return;
	ibr_down_distances(&w->up, w->S, d, w->down_dist, w->queue);
	ibr_legal_distances(&w->up, w->ud, w->down_dist, w->legal_dist);
	w->dist_of = d;
}

int paths_no_path(struct work *w, uint32_t s, uint32_t d)
{
	return ibr_error_set(w->err, "paths: no legal path from switch "
			     "0x%016llx to switch 0x%016llx",
			     (unsigned long long)ibr_switch(w->f, s)->guid,
			     (unsigned long long)ibr_switch(w->f, d)->guid);
}

/* ---- writing the selection ------------------------------------------ */

/* Group of the switch pair (s, d), both with CAs, s != d. */
static uint32_t group_of(const struct work *w, uint32_t s, uint32_t d)
{
	uint32_t rs = w->ca_rank[s], rd = w->ca_rank[d];

	return rd * (w->hosts - 1) + rs - (rs > rd);
}

/* Every unit takes the candidate its group kept (with per-CA groups the
 * group is the unit): its entries with its bit, walked from the source
 * switch.  In two passes over blocks of units on the workers: each unit's
 * length, then (the units' places summed in order) its hops at its
 * place, so the result is the same for any number of workers. */
#define WRITE_BLOCK 4096u       /* units a task of write_selected */

struct writer {
	struct work *w;
	const struct crossings *c;
	const struct gstate *gs;
	uint32_t u0, u1;        /* the units written */
	uint32_t **path;        /* per worker: a path's channels, S */
	uint64_t *candidates;   /* per task */
	bool place;             /* second pass: hops written, else lengths */
};

/* The group whose candidate unit u takes, and that candidate's bit. */
static uint32_t unit_group(const struct writer *wr, uint32_t u,
			   uint16_t *bit)
{
	const struct work *w = wr->w;
	uint32_t g = wr->c->pair ? u :
		     group_of(w, ibr_unit_src_switch(w->f, w->out, u),
			      ibr_unit_dst_switch(w->f, w->out, u));

	*bit = (uint16_t)(wr->gs[g].alive & -wr->gs[g].alive);
	return g;
}

static int write_block(void *arg, unsigned t, unsigned worker)
{
	const struct writer *wr = arg;
	struct work *w = wr->w;
	struct ibr_paths *p = w->out;
	uint32_t u0 = wr->u0 + t * WRITE_BLOCK;
	uint32_t u1 = wr->u1 - u0 > WRITE_BLOCK ? u0 + WRITE_BLOCK : wr->u1;
	uint32_t *path = wr->path[worker];

	for (uint32_t u = u0; u < u1; u++) {
		uint32_t s = ibr_unit_src_switch(w->f, p, u), len = 0, at;
		uint32_t first, end;
		uint16_t bit;
		uint32_t g = unit_group(wr, u, &bit);
		group_entries(wr->c, g, &first, &end);
		if (!wr->place) {
			for (uint32_t e = first; e < end; e++)
				len += (entry_ranks(wr->c, e) & bit) != 0;
			p->first[u + 1] = len; /* summed into places after */
			wr->candidates[t] += wr->c->ncand[g];
			continue;
		}
		for (uint32_t e = first; e < end; e++)
			if (entry_ranks(wr->c, e) & bit)
				path[len++] = entry_chan(wr->c, e);
		at = p->first[u];
		for (uint32_t h = 0; h < len; h++) {
			/* the channel leaving s comes next */
			uint32_t i = h, ch;
			while (w->chan_sw[path[i]] != s)
				i++;
			ch = path[i];
			path[i] = path[h];
			set_hop(w, at + h, ch);
			s = w->f->sw_adj[ch].peer;
		}
	}
	return 0;
}

/* One pass of write_block over every block, on the workers there are
 * now (IBR_PATHS_STOPPED: none). */
static int write_pass(struct work *w, struct writer *wr, unsigned workers,
		      unsigned tasks, bool place)
{
	unsigned now = paths_workers_now(w, workers);

	if (now == 0)
		return IBR_PATHS_STOPPED;
	wr->place = place;
	return ibr_parallel(now, tasks, write_block, wr);
}

/* Units [u0, u1) take their groups' paths, after the hops of the units
 * before them. */
static int write_selected(struct work *w, const struct crossings *c,
			  const struct gstate *gs, uint32_t u0, uint32_t u1)
{
	struct ibr_paths *p = w->out;
	unsigned tasks = (u1 - u0 + WRITE_BLOCK - 1) / WRITE_BLOCK;
	unsigned workers = ibr_parallel_workers(w->o->threads, tasks);
	struct writer wr = { .w = w, .c = c, .gs = gs, .u0 = u0, .u1 = u1 };
	uint64_t hops = w->hops;
	int rc = -1;

	wr.path = calloc(workers, sizeof(*wr.path));
	wr.candidates = calloc(tasks ? tasks : 1, sizeof(uint64_t));
	if (!wr.path || !wr.candidates) {
		paths_oom(w, "the selected paths");
		goto out;
	}
	for (unsigned i = 0; i < workers; i++)
		if (!(wr.path[i] = malloc((w->S ? w->S : 1) *
					  sizeof(uint32_t)))) {
			paths_oom(w, "the selected paths");
			goto out;
		}
	p->first[u0] = w->hops;
	if ((rc = write_pass(w, &wr, workers, tasks, false)) != 0)
		goto out;
	rc = -1;
	/* the lengths, summed in unit order: the places */
	for (uint32_t u = u0; u < u1; u++) {
		hops += p->first[u + 1];
		if (hops > UINT32_MAX) {
			ibr_error_set(w->err, "paths: more than 2^32 hops");
			goto out;
		}
		p->first[u + 1] = (uint32_t)hops;
	}
	for (unsigned t = 0; t < tasks; t++)
		p->candidates += wr.candidates[t];
	if (paths_reserve_hops(w, (uint32_t)(hops - w->hops)))
		goto out;
	w->hops = (uint32_t)hops;
	rc = write_pass(w, &wr, workers, tasks, true);
out:
	for (unsigned i = 0; wr.path && i < workers; i++)
		free(wr.path[i]);
	free(wr.path);
	free(wr.candidates);
	return rc;
}

/* CA-pair groups (per_ca): every unit a group of its own, flows 1, whose
 * candidates are those of its switch pair (shared entries: pair); those
 * of units [u0, u1) set, the batch's. */
static int expand_per_ca(struct work *w, const struct crossings *sw,
			 struct crossings *ca, uint32_t u0, uint32_t u1)
{
	const struct ibr_paths *p = w->out;
	uint32_t n = p->num_units;
	uint8_t *ncand = ca->ncand;
	uint32_t *flows = ca->flows, *pair = ca->pair;

	if (!pair) {
		ncand = malloc(n ? n : 1);
		flows = malloc((n ? n : 1) * sizeof(uint32_t));
		pair = malloc((n ? n : 1) * sizeof(uint32_t));
		if (!ncand || !flows || !pair) {
			free(ncand);
			free(flows);
			free(pair);
			return paths_oom(w, "CA pairs' candidates");
		}
	}
	*ca = *sw;      /* the entries, shared (sw's growth moves them: anew) */
	ca->groups = n;
	ca->ncand = ncand;
	ca->flows = flows;
	ca->pair = pair;
	for (uint32_t u = u0; u < u1; u++) {
		uint32_t g = group_of(w, ibr_unit_src_switch(w->f, p, u),
				      ibr_unit_dst_switch(w->f, p, u));
		ca->pair[u] = g;
		ca->ncand[u] = sw->ncand[g];
		ca->flows[u] = 1;
	}
	return 0;
}

/* ---- the selection in batches ---------------------------------------- */

/* The candidates of every pair are 8 bytes a (pair, channel) entry: on
 * large fabrics far more than the rest of colorl.  In batches:
 *   - the destination switches with CAs go in B consecutive runs of their
 *     ranks, batch b the ranks [b H / B, (b + 1) H / B); their groups,
 *     and their units, are consecutive (both go by destination);
 *   - batch by batch, the candidate search finds the batch's candidates
 *     alone, most-loaded-link-first (in its parts) selects among them
 *     over the load of the paths the batches before chose (`fixed`, exact:
 *     every group there has one path left), and the batch's units take
 *     their paths; then its candidates go;
 *   - so one batch's candidates are held, not all.  Each batch sees the
 *     whole load of those before it, but nothing of those after it, and
 *     cannot move their paths, so the selected paths may load a link
 *     more than in one batch.
 * B is o->batches, else one per BATCH_GROUPS switch pairs (1 up to 1254
 * switches with CAs: there the selection is the one without batches; 3
 * at 2048), at most one destination switch each.  The batches depend on the
 * fabric alone, so the paths are the same for any thread count. */


#define BATCH_GROUPS (UINT64_C(3) << 19) /* switch pairs a batch at most,
					  * by default: 1.5 x 2^20, 1254
					  * switches' in one */

/* Units up to the first whose destination switch's rank is r or more,
 * from u. */
static uint32_t units_before_rank(const struct work *w, uint32_t u,
				  uint32_t r)
{
	const struct ibr_paths *p = w->out;

	while (u < p->num_units &&
	       w->ca_rank[ibr_unit_dst_switch(w->f, p, u)] < r)
		u++;
	return u;
}

/* o->batches, or by the switch pairs with CAs; at most a destination
 * switch each. */
static uint32_t batch_count(const struct work *w)
{
	uint64_t pairs = (uint64_t)w->hosts * (w->hosts ? w->hosts - 1 : 0);
	uint64_t n = w->o->batches;

	if (n == 0)
		n = (pairs + BATCH_GROUPS - 1) / BATCH_GROUPS;
	if (n > w->hosts)
		n = w->hosts;
	return n ? (uint32_t)n : 1;
}

static int path_selection(struct work *w)
{
	uint64_t groups = (uint64_t)w->hosts * (w->hosts ? w->hosts - 1 : 0);
	uint32_t batches = batch_count(w), u0 = 0;
	struct crossings c = { 0 }, ca = { 0 };
	uint64_t *fixed = NULL;
	int rc = -1;

	c.groups = (uint32_t)groups; /* <= the units, checked */
	c.ncand = malloc(groups ? groups : 1);
	c.flows = malloc((groups ? groups : 1) * sizeof(uint32_t));
	c.first = calloc(groups + 1, sizeof(uint32_t));
	if (batches > 1)
		fixed = calloc(w->C ? w->C : 1, sizeof(uint64_t));
	if (!c.ncand || !c.flows || !c.first || (batches > 1 && !fixed)) {
		paths_oom(w, "switch pairs");
		goto out;
	}
	w->out->batches = batches;
	for (uint32_t b = 0; b < batches; b++) {
		uint32_t r0 = (uint32_t)((uint64_t)b * w->hosts / batches);
		uint32_t r1 = (uint32_t)((uint64_t)(b + 1) * w->hosts / batches);
		uint32_t g0 = r0 * (w->hosts - 1), g1 = r1 * (w->hosts - 1);
		uint32_t u1 = units_before_rank(w, u0, r1);
		const struct crossings *sel;
		struct selection m = { 0 };
		double t0 = ibr_now_ms();
		/* the batch's entries only, from the start of the arrays */
		c.num = 0;
		c.first[g0] = 0;
		rc = paths_find_candidates(w, &c, r0, r1);
		w->out->search_ms += ibr_now_ms() - t0;
		t0 = ibr_now_ms();
		if (rc == 0) {
			rc = -1;
			if (w->o->per_ca && expand_per_ca(w, &c, &ca, u0, u1))
				goto out;
			/* the units' own groups: the CA pairs' copies, or
			 * the switch pairs (the units themselves) */
			sel = w->o->per_ca ? &ca : &c;
			rc = w->o->per_ca ?
			     paths_most_loaded_link_first(w, sel, &m, u0, u1,
							  fixed) :
			     paths_most_loaded_link_first(w, sel, &m, g0, g1,
							  fixed);
			if (rc == 0)
				rc = write_selected(w, sel, m.gs, u0, u1);
			/* every group of the batch has one path: the loads
			 * are exact, for the next batch to build on */
			if (rc == 0 && fixed)
				for (uint32_t ch = 0; ch < w->C; ch++)
					fixed[ch] = m.part[0].cl[ch].load;
		}
		paths_free_selection(&m);
		w->out->select_ms += ibr_now_ms() - t0;
		if (rc)
			goto out;
		u0 = u1;
	}
	rc = 0;
out:
	free(fixed);
	paths_crossings_free(&ca);
	paths_crossings_free(&c);
	return rc;
}

/* ---- entry -------------------------------------------------------------- */

static int init_work(struct work *w)
{
	const struct ibr_fabric *f = w->f;

	w->C = f->sw_adj_start[w->S];
	w->dist_of = IBR_NONE;
	if ((uint64_t)2 * w->S > KWALK_MAX_LEN)
		return ibr_error_set(w->err, "paths: %u switches, at most %u",
				     w->S, KWALK_MAX_LEN / 2);
	w->link_up = malloc(w->C ? w->C : 1);
	w->chan_sw = malloc((w->C ? w->C : 1) * sizeof(uint32_t));
	w->ca_rank = malloc(w->S * sizeof(uint32_t));
	w->down_dist = malloc(w->S * sizeof(uint32_t));
	w->legal_dist = malloc(w->S * sizeof(uint32_t));
	w->queue = malloc(w->S * sizeof(uint32_t));
	if (!w->link_up || !w->chan_sw || !w->ca_rank || !w->down_dist ||
	    !w->legal_dist || !w->queue)
		return paths_oom(w, "distances");
	ibr_updown_link_flags(f, w->ud, w->link_up);
	if (ibr_up_links_build(f, w->link_up, &w->up))
		return paths_oom(w, "distances");
	for (uint32_t s = 0; s < w->S; s++) {
		for (uint32_t c = f->sw_adj_start[s]; c < f->sw_adj_start[s + 1]; c++)
			w->chan_sw[c] = s;
		w->ca_rank[s] = cas_on(f, s) ? w->hosts++ : IBR_NONE;
	}
	return 0;
}

static void free_work(struct work *w)
{
	free(w->link_up);
	ibr_up_links_free(&w->up);
	free(w->chan_sw);
	free(w->ca_rank);
	free(w->down_dist);
	free(w->legal_dist);
	free(w->queue);
	ibr_climb_free(&w->climb);
}

int ibr_paths_compute(const struct ibr_fabric *f, const struct ibr_updown *ud,
		      const struct ibr_path_options *o, struct ibr_paths *out,
		      struct ibr_error *err)
{
	struct work w = { .f = f, .ud = ud, .o = o, .err = err, .out = out,
			  .S = f->num_switches };
	int rc = -1;

	memset(out, 0, sizeof(*out));
	out->per_ca = o->per_ca;
	if (o->scheme == IBR_PATHS_SELECTION && (o->k < 1 || o->k > MAX_K))
		return ibr_error_set(err, "paths: k=%u, path selection takes "
				     "1 to %u candidates per pair", o->k, MAX_K);
	if (init_work(&w) || ibr_climb_build(f, ud, &w.climb, err) ||
	    make_units(&w) || paths_reserve_hops(&w, 1))
		goto out;
	if (o->scheme == IBR_PATHS_SELECTION) {
		rc = path_selection(&w);
	} else {
		double t0 = ibr_now_ms();
		rc = paths_shortest_widest(&w);
		out->select_ms = ibr_now_ms() - t0;
	}
out:
	free_work(&w);
	if (rc)
		ibr_paths_free(out);
	return rc;
}

int ibr_dest_set_init(struct ibr_dest_set *d, const struct ibr_paths *p,
		      struct ibr_error *err)
{
	uint32_t most = 1, most_hops = 1;

	memset(d, 0, sizeof(*d));
	for (uint32_t u0 = 0, u1; u0 < p->num_units; u0 = u1) {
		u1 = ibr_paths_dest_end(p, u0);
		if (u1 - u0 > most)
			most = u1 - u0;
		if (p->first[u1] - p->first[u0] + (u1 - u0) > most_hops)
			most_hops = p->first[u1] - p->first[u0] + (u1 - u0);
	}
	d->first = malloc((most + 1) * sizeof(uint32_t));
	d->sw = malloc(most_hops * sizeof(uint32_t));
	d->port = malloc(most_hops);
	if (d->first && d->sw && d->port)
		return 0;
	ibr_dest_set_free(d);
	return ibr_error_set(err, "paths: out of memory for %u paths of %u "
			     "hops", most, most_hops);
}

void ibr_dest_set_free(struct ibr_dest_set *d)
{
	free(d->first);
	free(d->sw);
	free(d->port);
	memset(d, 0, sizeof(*d));
}

void ibr_dest_set_fill(struct ibr_dest_set *d, const struct ibr_paths *p,
		       uint32_t u0, uint32_t u1, uint32_t sw, uint8_t port,
		       struct ibr_dest_paths *dp)
{
	uint32_t n = u1 - u0;

	d->first[0] = 0;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t u = u0 + i, at = d->first[i];
		uint32_t len = p->first[u + 1] - p->first[u];
		memcpy(d->sw + at, p->hop_sw + p->first[u], len * sizeof(uint32_t));
		memcpy(d->port + at, p->hop_port + p->first[u], len);
		d->sw[at + len] = sw;
		d->port[at + len] = port;
		d->first[i + 1] = at + len + 1;
	}
	*dp = (struct ibr_dest_paths){ n, d->first, d->sw, d->port };
}

void ibr_paths_free(struct ibr_paths *p)
{
	free(p->src);
	free(p->dst);
	free(p->first);
	free(p->hop_sw);
	free(p->hop_port);
	memset(p, 0, sizeof(*p));
}

