/*
 * verify.c - the independent check of forwarding tables (see verify.h).
 *
 * Per LID, the shared column walk (walk.h) gives every switch's next hop
 * and reports each faulty entry once, where it is (a port with no link,
 * port 0 off the owner, IBR_NO_PATH for an owned LID), and each loop once
 * per cycle; O(S) per LID.  Every LID of a range is walked from every
 * switch, those above its base (a multi-LID engine's renamed LIDs) as
 * the base: hosts send to base+k without asking the SA (doc/design.md,
 * Contract 1, "Multi-LID engines"), so IBR_NO_PATH there is a finding
 * too.
 *
 * While no finding has appeared, the same next[] feeds the channel
 * dependency graph.  A channel is one direction of an inter-switch link
 * (an sw_adj entry).  Walking from every switch to every LID adds the
 * dependency (channel into s) -> (channel out of s); a walk stops where an
 * earlier walk to the same LID already went, since the rest of the route
 * is shared.  Dependencies of a channel are a 256-bit set of the far
 * switch's output ports.  Channels to CAs cannot close a cycle (CAs do not
 * forward) and are left out.  A DFS then looks for a cycle.
 *
 * Tables routed under a root set of several switches record it: there
 * some switch pairs have no legal route (updown.h, ibr_climb_meet: two
 * switches with no root above both; never a host's switch and
 * another's), and IBR_NO_PATH at such a switch is counted apart
 * (no_legal_path), not a finding; an entry elsewhere whose walk ends at
 * one is.
 *
 * Designated DLIDs: each offset must lie inside its destination's range,
 * and a DLID above the base must be delivered from the source's switch
 * (a bit per (renamed LID, switch) records where walks deliver; base LIDs
 * deliver from everywhere or are findings already); when measuring, the
 * flows of all pairs along them (flows.h, fed by the same walks)
 * cross-check that pair by pair and give the designated paths' lengths
 * and link load.
 *
 * Every allocation is checked and a failure makes ibr_verify() fail: a
 * verifier that cannot run must never look like one that found nothing.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ibrouting/management.h"
#include "ibrouting/updown.h"
#include "ibrouting/verify.h"
#include "ibrouting/walk.h"
#include "flows.h"

struct verifier {
	const struct ibr_fabric *f;
	const struct ibr_result *r;
	struct ibr_verify_report *rep;
	struct ibr_walker w;
	struct ibr_flows flows;   /* along designated DLIDs */
	uint64_t (*deps)[4];      /* per channel: bitset of far output ports */
	uint32_t *seen_stamp;     /* per switch: last LID whose walk passed */
	bool renamed_lid;         /* the LID walked is not its range's base */
	uint64_t column_faults;   /* faults the walk of this LID reported */
	/* Per (LID above a base, switch): the walk from there delivers.
	 * Only with a designated map; a bit per pair. */
	uint64_t *delivers;
	uint32_t words;           /* per LID, in delivers */
	struct ibr_climb climb;   /* r's root set: who may reach whom */
	bool sets;                /* climb is built */
	uint64_t column_exempt;   /* IBR_NO_PATH owed no route, this LID */
};

/* A LID above its range's base: where the walks deliver is recorded for
 * the designated pairs on it (check_renamed_column). */
static bool is_renamed_lid(const struct ibr_fabric *f, ibr_lid_t lid)
{
	const struct ibr_lid_owner *o = &f->lid_owner[lid];

	return lid != ibr_port(f, o->node, o->port)->base_lid;
}

static void note(struct ibr_verify_report *rep, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void note(struct ibr_verify_report *rep, const char *fmt, ...)
{
	va_list ap;

	if (rep->num_messages >= IBR_VERIFY_MAX_MESSAGES)
		return;
	va_start(ap, fmt);
	vsnprintf(rep->messages[rep->num_messages++], 256, fmt, ap);
	va_end(ap);
}

static unsigned long long sw_guid(const struct ibr_fabric *f, uint32_t s)
{
	return (unsigned long long)ibr_switch(f, s)->guid;
}

/* Under r's root set switch s has no legal route to lid (no root above
 * both): its entry, if any, is a management route (management.h). */
static bool no_legal_route(const struct verifier *v, uint32_t s, ibr_lid_t lid)
{
	return v->sets &&
	       !ibr_climb_meet(&v->climb, s, ibr_lid_switch(v->f, lid));
}

/* ---- pass 1: delivery and loops ---------------------------------------- */

static void on_bad_step(void *ctx, uint32_t s, ibr_lid_t lid, uint8_t port,
			enum ibr_step st)
{
	struct verifier *v = ctx;

	if (st == IBR_STEP_NO_PATH && no_legal_route(v, s, lid) &&
	    ibr_management_carries_data(v->f, s, lid)) {
		v->rep->no_legal_path++;
		v->column_exempt++;
		return; /* owed none; an entry leading here is caught later */
	}
	v->column_faults++;
	if (st == IBR_STEP_NO_PATH && no_legal_route(v, s, lid)) {
		v->rep->unreachable++;
		note(v->rep, "switch 0x%016llx has no route to LID %u: none is "
		     "legal, and management traffic is owed one",
		     sw_guid(v->f, s), lid);
	} else if (st == IBR_STEP_NO_PATH) {
		v->rep->unreachable++;
		if (v->renamed_lid)
			note(v->rep, "switch 0x%016llx has no route to LID %u "
			     "(above its range's base)", sw_guid(v->f, s), lid);
		else
			note(v->rep, "switch 0x%016llx has no route to LID %u",
			     sw_guid(v->f, s), lid);
	} else if (st == IBR_STEP_BAD_PORT) {
		v->rep->bad_port++;
		note(v->rep, "switch 0x%016llx routes LID %u to port %u, which "
		     "has no link", sw_guid(v->f, s), lid, port);
	} else {
		v->rep->bad_port++;
		note(v->rep, "switch 0x%016llx delivers LID %u on port %u, but "
		     "LID %u is not there", sw_guid(v->f, s), lid, port, lid);
	}
}

static void on_loop(void *ctx, ibr_lid_t lid, const uint32_t *cycle,
		    uint32_t len)
{
	struct verifier *v = ctx;
	char buf[200];
	int used = 0;

	for (uint32_t i = 0; i < len && used < 150; i++)
		used += snprintf(buf + used, sizeof(buf) - used, "0x%016llx -> ",
				 sw_guid(v->f, cycle[i]));
	snprintf(buf + used, sizeof(buf) - used, "0x%016llx",
		 sw_guid(v->f, cycle[0]));
	v->rep->loops++;
	v->column_faults++;
	note(v->rep, "LID %u loops: %s", lid, buf);
}

/* The entries of lid where no legal route exists: management routes,
 * or, at a CA port's switch towards a CA port's LID, data off
 * up*-down*. */
static void check_management(struct verifier *v, ibr_lid_t lid)
{
	const uint8_t *col = ibr_column(v->r, lid);

	for (uint32_t s = 0; s < v->f->num_switches; s++) {
		if (col[s] == IBR_NO_PATH || !no_legal_route(v, s, lid))
			continue;
		if (!ibr_management_carries_data(v->f, s, lid)) {
			v->rep->management++;
			continue;
		}
		v->rep->illegal_data++;
		note(v->rep, "switch 0x%016llx routes LID %u to port %u, but "
		     "no legal route exists: its CA ports' data would leave "
		     "up*-down*", sw_guid(v->f, s), lid, col[s]);
	}
}

static void check_unowned_lid(struct verifier *v, ibr_lid_t lid)
{
	const uint8_t *col = ibr_column(v->r, lid);

	for (uint32_t s = 0; s < v->f->num_switches; s++)
		if (col[s] != IBR_NO_PATH) {
			v->rep->bad_port++;
			note(v->rep, "switch 0x%016llx routes LID %u to port %u, "
			     "but no port owns LID %u", sw_guid(v->f, s), lid,
			     col[s], lid);
		}
}

/* On a LID above its base, an entry that is not IBR_NO_PATH must still
 * deliver: its walk may not end at a switch without a route.  Records
 * where the walks deliver, for the designated pairs. */
static void check_renamed_column(struct verifier *v, ibr_lid_t lid)
{
	const uint8_t *col = ibr_column(v->r, lid);
	uint64_t *bits = v->delivers ? v->delivers + (size_t)lid * v->words : NULL;

	for (uint32_t s = 0; s < v->f->num_switches; s++) {
		bool delivered = v->w.hops[s] != IBR_HOPS_FAILED;
		if (bits && delivered)
			bits[s / 64] |= 1ull << (s % 64);
		if (delivered || col[s] == IBR_NO_PATH || v->column_faults)
			continue;
		v->rep->unreachable++;
		note(v->rep, "switch 0x%016llx routes LID %u to port %u, but "
		     "the walk from there ends at a switch with no route",
		     sw_guid(v->f, s), lid, col[s]);
	}
}

/* ---- pass 2: channel dependency graph --------------------------------- */

static void add_dependency(struct verifier *v, uint32_t in, uint8_t out_port)
{
	uint64_t *set = v->deps[in];
	uint64_t bit = 1ull << (out_port & 63);

	if (!(set[out_port >> 6] & bit)) {
		set[out_port >> 6] |= bit;
		v->rep->dependencies++;
	}
}

/* Dependencies of the walk from src to lid (next[] holds its steps and is
 * loop-free), stopping where an earlier walk to the same LID went on. */
static void add_walk_dependencies(struct verifier *v, const uint8_t *col,
				  uint32_t src, ibr_lid_t lid)
{
	uint32_t s = src, in = IBR_NONE;

	for (;;) {
		bool merged = v->seen_stamp[s] == lid;

		v->seen_stamp[s] = lid;
		if (v->w.next[s] >= IBR_WALK_FAILED)
			return; /* delivered: the last channel goes to a CA */
		if (in != IBR_NONE)
			add_dependency(v, in, col[s]);
		if (merged)
			return;
		/* a channel a management route leaves by carries no data
		 * (management.h): what waits on it is not in the graph */
		in = no_legal_route(v, s, lid) ? IBR_NONE :
		     ibr_walker_channel(&v->w, s, col[s]);
		s = v->w.next[s];
	}
}

static void add_lid_dependencies(struct verifier *v, ibr_lid_t lid)
{
	const uint8_t *col = ibr_column(v->r, lid);

	for (uint32_t s = 0; s < v->f->num_switches; s++)
		add_walk_dependencies(v, col, s, lid);
}

static void report_cycle(struct verifier *v, const uint32_t *path,
			 uint32_t depth, uint32_t d, const uint32_t *chan_switch)
{
	const struct ibr_fabric *f = v->f;
	char buf[200];
	int used = 0;
	uint32_t k = depth;

	while (k > 0 && path[k - 1] != d)
		k--;
	for (uint32_t i = k - 1; i < depth && used < 160; i++)
		used += snprintf(buf + used, sizeof(buf) - used, "0x%016llx[%u] -> ",
				 sw_guid(f, chan_switch[path[i]]),
				 f->sw_adj[path[i]].port);
	snprintf(buf + used, sizeof(buf) - used, "0x%016llx[%u]",
		 sw_guid(f, chan_switch[d]), f->sw_adj[d].port);
	v->rep->cycles = 1;
	note(v->rep, "credit loop: channel dependency cycle %s", buf);
}

/* Iterative DFS over channels: 0 white, 1 grey (on path), 2 black.
 * Without a cycle the same search gives the longest dependency chain:
 * chain[c], the channels on the longest chain starting at c, is final
 * when c turns black (every successor is black by then), so one pass
 * does both; the Double Scheme's drain bound rests on it. */
static int find_cycle(struct verifier *v, struct ibr_error *err)
{
	const struct ibr_fabric *f = v->f;
	uint32_t C = f->sw_adj_start[f->num_switches], n = C ? C : 1;
	uint8_t *color = calloc(n, 1);
	uint32_t *path = malloc(n * sizeof(uint32_t));
	uint16_t *next_port = malloc(n * sizeof(uint16_t));
	uint32_t *chan_switch = malloc(n * sizeof(uint32_t));
	uint32_t *chain = calloc(n, sizeof(uint32_t));
	int rc = -1;

	if (!color || !path || !next_port || !chan_switch || !chain) {
		ibr_error_set(err, "verify: out of memory for the dependency "
			      "graph search (%u channels)", C);
		goto out;
	}
	for (uint32_t s = 0; s < f->num_switches; s++)
		for (uint32_t i = f->sw_adj_start[s]; i < f->sw_adj_start[s + 1]; i++)
			chan_switch[i] = s;
	for (uint32_t root = 0; root < C && !v->rep->cycles; root++) {
		uint32_t depth = 0;
		if (color[root])
			continue;
		path[depth++] = root;
		color[root] = 1;
		next_port[root] = 0;
		while (depth > 0 && !v->rep->cycles) {
			uint32_t c = path[depth - 1], d;
			uint16_t q = next_port[c];
			while (q < 256 && !(v->deps[c][q >> 6] >> (q & 63) & 1))
				q++;
			if (q >= 256) {
				color[c] = 2;
				chain[c]++;     /* c itself */
				if (chain[c] > v->rep->longest_chain)
					v->rep->longest_chain = chain[c];
				depth--;
				if (depth > 0 && chain[path[depth - 1]] < chain[c])
					chain[path[depth - 1]] = chain[c];
				continue;
			}
			next_port[c] = q + 1;
			d = ibr_walker_channel(&v->w, f->sw_adj[c].peer, (uint8_t)q);
			if (d != IBR_NONE && color[d] == 2 && chain[c] < chain[d])
				chain[c] = chain[d];
			if (d == IBR_NONE || color[d] == 2)
				continue;
			if (color[d] == 1) {
				report_cycle(v, path, depth, d, chan_switch);
				break;
			}
			color[d] = 1;
			next_port[d] = 0;
			path[depth++] = d;
		}
	}
	if (v->rep->cycles)
		v->rep->longest_chain = 0;
	rc = 0;
out:
	free(color);
	free(path);
	free(next_port);
	free(chan_switch);
	free(chain);
	return rc;
}

/* ---- pass 3: designated DLIDs ----------------------------------------- */

static void check_offsets(struct verifier *v)
{
	const struct ibr_fabric *f = v->f;
	const struct ibr_designated *d = &v->r->designated;

	if (!d->offset)
		return;
	for (uint32_t row = 0; row < d->rows; row++)
		for (uint32_t dst = 0; dst < d->cols; dst++) {
			const struct ibr_end_port *e = &f->end_ports[dst];
			const struct ibr_port *p = ibr_port(f, e->node, e->port);
			uint8_t k = d->offset[(size_t)row * d->cols + dst];
			uint32_t sw = d->by_switch ? row : f->end_ports[row].sw;
			const uint64_t *bits;
			if (k >= ibr_port_lid_count(p))
				goto outside;
			if (k == 0 || (!d->by_switch && row == dst))
				continue; /* base LIDs deliver from everywhere */
			bits = v->delivers + (size_t)(p->base_lid + k) * v->words;
			if (bits[sw / 64] >> (sw % 64) & 1)
				continue;
			v->rep->bad_designated++;
			note(v->rep, "designated DLID %u of %s %u to CA 0x%016llx "
			     "port %u is not delivered from switch 0x%016llx",
			     p->base_lid + k, d->by_switch ? "switch" : "end port",
			     row, (unsigned long long)f->nodes[e->node].guid,
			     e->port, sw_guid(f, sw));
			continue;
outside:
			v->rep->bad_designated++;
			note(v->rep, "designated DLID %u of %s %u to CA 0x%016llx "
			     "port %u is outside its LIDs %u..%u",
			     p->base_lid + k, d->by_switch ? "switch" : "end port",
			     row, (unsigned long long)f->nodes[e->node].guid,
			     e->port, p->base_lid,
			     p->base_lid + ibr_port_lid_count(p) - 1);
		}
}

/* End-port pairs whose switches have no root above both: owed no route
 * (only where a CA hangs off a root or off a switch some roots do not
 * descend to, such as an aggregation node on a spine: the root repair
 * keeps every pair of hosts meeting, roots.h).  Switches with CA ports
 * that climb alike meet alike, so only distinct climb sets are
 * compared; -1 when out of memory. */
static int64_t pairs_owed_none(const struct verifier *v)
{
	const struct ibr_fabric *f = v->f;
	const struct ibr_climb *cl = &v->climb;
	uint32_t S = f->num_switches, n = 0, distinct = 0;
	uint32_t *sw = malloc((S ? S : 1) * 2 * sizeof(uint32_t));
	uint64_t owed = 0;

	if (!sw)
		return -1;
	for (uint32_t s = 0; s < S; s++)
		if (f->sw_ca_start[s + 1] > f->sw_ca_start[s])
			sw[n++] = s;
	/* group by climb set: sw[0 .. distinct) one switch a set, the CA
	 * ports of each set in sw[S + k] */
	for (uint32_t i = 0; i < n; i++) {
		uint32_t k = 0, cas = f->sw_ca_start[sw[i] + 1] -
				      f->sw_ca_start[sw[i]];
		while (k < distinct && memcmp(cl->bits + (size_t)sw[k] * cl->words,
					      cl->bits + (size_t)sw[i] * cl->words,
					      cl->words * sizeof(uint64_t)))
			k++;
		if (k == distinct) {
			sw[distinct] = sw[i];
			sw[S + distinct++] = 0;
		}
		sw[S + k] += cas;
	}
	for (uint32_t i = 0; i < distinct; i++)
		for (uint32_t j = i + 1; j < distinct; j++)
			if (!ibr_climb_meet(cl, sw[i], sw[j]))
				owed += 2 * (uint64_t)sw[S + i] * sw[S + j];
	free(sw);
	return (int64_t)owed;
}

static int check_designated(struct verifier *v, bool measured,
			    struct ibr_error *err)
{
	const struct ibr_metrics *m = &v->rep->designated;
	uint64_t E = v->f->num_end_ports, pairs = E * (E ? E - 1 : 0);
	uint64_t delivered = m->flows - m->unrouted_flows;

	check_offsets(v);
	if (measured && v->sets && delivered != pairs) {
		int64_t owed = pairs_owed_none(v);
		if (owed < 0)
			return ibr_error_set(err, "out of memory");
		v->rep->pairs_owed_none = (uint64_t)owed;
	}
	/* Measured, the flows cross-check delivery pair by pair. */
	if (measured && v->rep->bad_designated == 0 &&
	    delivered + v->rep->pairs_owed_none < pairs) {
		uint64_t lost = pairs - delivered - v->rep->pairs_owed_none;
		v->rep->bad_designated += lost;
		note(v->rep, "%llu of %llu end-port pairs are not delivered "
		     "along their designated DLIDs",
		     (unsigned long long)lost, (unsigned long long)pairs);
	}
	return 0;
}

/* ---- the check ---------------------------------------------------------- */

int ibr_verify(const struct ibr_fabric *f, const struct ibr_result *r,
	       const struct ibr_verify_options *opts,
	       struct ibr_verify_report *rep, struct ibr_error *err)
{
	struct verifier v = { .f = f, .r = r, .rep = rep };
	bool measure = !opts || !opts->check_only;
	struct ibr_walk_observer obs = { &v, on_bad_step, on_loop };
	uint32_t S = f->num_switches, C = f->sw_adj_start[S];
	int rc = -1;

	memset(rep, 0, sizeof(*rep));
	if (r->num_switches != S || r->num_lids != f->max_lid + 1u)
		return ibr_error_set(err, "verify: tables are %u switches x %u "
				     "LIDs, the fabric has %u x %u",
				     r->num_switches, r->num_lids, S,
				     f->max_lid + 1u);
	if (r->roots && r->num_roots > 1) {
		struct ibr_updown ud;
		if (ibr_updown_of_result(f, r, &ud, err))
			return -1;
		if (ibr_climb_build(f, &ud, &v.climb, err)) {
			ibr_updown_free(&ud);
			return -1;
		}
		ibr_updown_free(&ud);
		v.sets = true;
	}
	if (ibr_walker_init(&v.w, f, err)) {
		ibr_climb_free(&v.climb);
		return -1;
	}
	/* the map read by rows (columns NULL): a transposed copy would
	 * cost the verifier as much memory again as the map, and it runs
	 * inside OpenSM's window */
	if (measure && ibr_flows_init(&v.flows, f, r, NULL, &rep->designated,
				      err)) {
		ibr_walker_free(&v.w);
		ibr_climb_free(&v.climb);
		return -1;
	}
	v.deps = calloc(C ? C : 1, sizeof(*v.deps));
	v.seen_stamp = calloc(S, sizeof(uint32_t));
	v.words = (S + 63) / 64;
	if (r->designated.offset)
		v.delivers = calloc((size_t)r->num_lids * v.words, sizeof(uint64_t));
	if (!v.deps || !v.seen_stamp || (r->designated.offset && !v.delivers)) {
		ibr_error_set(err, "verify: out of memory for %u channels", C);
		goto out;
	}
	/* Dependencies are gathered while the tables look sound; one bad
	 * entry makes the graph meaningless and stops the gathering. */
	for (uint32_t lid = 1; lid <= f->max_lid; lid++) {
		if (f->lid_owner[lid].node == IBR_NONE) {
			check_unowned_lid(&v, lid);
			rep->unowned_lids++;
			continue;
		}
		if (opts && opts->ca_lids_only &&
		    f->nodes[f->lid_owner[lid].node].type == IBR_NODE_SWITCH)
			continue;
		v.renamed_lid = is_renamed_lid(f, lid);
		rep->lids++;
		rep->lids_above += v.renamed_lid;
		v.column_faults = 0;
		v.column_exempt = 0;
		ibr_walk_column(&v.w, ibr_column(r, lid), lid, &obs);
		if (v.renamed_lid || v.column_exempt)
			check_renamed_column(&v, lid);
		if (v.sets)
			check_management(&v, lid);
		rep->walks += S;
		if (ibr_verify_findings(rep) == 0) {
			add_lid_dependencies(&v, lid);
			if (measure)
				ibr_flows_add_column(&v.flows, &v.w,
						     ibr_column(r, lid), lid);
		}
	}
	if (ibr_verify_findings(rep) == 0 && find_cycle(&v, err))
		goto out;
	/* A dependency cycle does not stop packets: the designated paths
	 * are still measured, so OpenSM's engines can be compared. */
	if (ibr_verify_delivers(rep)) {
		if (measure)
			ibr_flows_finish(&v.flows);
		if (check_designated(&v, measure, err))
			goto out;
	}
	rc = 0;
out:
	if (measure)
		ibr_flows_free(&v.flows);
	ibr_walker_free(&v.w);
	ibr_climb_free(&v.climb);
	free(v.deps);
	free(v.seen_stamp);
	free(v.delivers);
	return rc;
}

/* ---- the union of two sets of tables ------------------------------------ */

/* While OpenSM replaces tables a by tables b block by block, a switch holds
 * either version of each entry, so a packet for a LID may take a's entry
 * at one switch and b's at the next.  Per owned LID, the union graph has
 * an edge s -> t for each version's entry of s that leads to switch t (at
 * most two).  A cycle in it is a walk that can loop; every pair of
 * consecutive union edges is a channel dependency some mixed walk can
 * create, and the dependency graph of all of them must be acyclic, but
 * for those whose first edge is a management route of its version (no
 * legal route there under that version's root set, management.h): no
 * data waits on it.  Both sets are taken as verified on their own
 * (delivery is theirs to prove). */

struct union_graph {
	uint32_t (*next)[2];  /* per switch: up to two successors, IBR_NONE */
	uint8_t (*port)[2];   /* ... and the ports they leave by */
	bool (*legal)[2];     /* ... and whether a legal route exists there */
	struct ibr_climb climb[2]; /* a's and b's root sets, when several */
	bool sets[2];
	uint64_t *looping;    /* per LID a bit: its union graph loops */
	uint8_t *color;       /* DFS: 0 white, 1 grey, 2 black */
	uint32_t *stack;      /* DFS: switches */
	uint8_t *edge;        /* DFS: next successor to try, per stack slot */
};

/* A cycle of the union graph of lid, if any, is reported once. */
static bool union_loop(struct verifier *v, struct union_graph *u,
		       ibr_lid_t lid)
{
	uint32_t S = v->f->num_switches;

	memset(u->color, 0, S);
	for (uint32_t root = 0; root < S; root++) {
		uint32_t depth = 0;

		if (u->color[root])
			continue;
		u->stack[depth] = root;
		u->edge[depth++] = 0;
		u->color[root] = 1;
		while (depth > 0) {
			uint32_t s = u->stack[depth - 1], t;
			uint8_t k = u->edge[depth - 1]++;

			if (k >= 2) {
				u->color[s] = 2;
				depth--;
				continue;
			}
			t = u->next[s][k];
			if (t == IBR_NONE || u->color[t] == 2)
				continue;
			if (u->color[t] == 1) {
				char buf[200];
				int used = 0;
				uint32_t i = depth;
				while (i > 0 && u->stack[i - 1] != t)
					i--;
				for (i = i ? i - 1 : 0; i < depth && used < 150; i++)
					used += snprintf(buf + used, sizeof(buf) - used,
							 "0x%016llx -> ",
							 sw_guid(v->f, u->stack[i]));
				snprintf(buf + used, sizeof(buf) - used, "0x%016llx",
					 sw_guid(v->f, t));
				v->rep->loops++;
				note(v->rep, "LID %u can loop when the switches "
				     "hold both versions: %s", lid, buf);
				return true;
			}
			u->color[t] = 1;
			u->stack[depth] = t;
			u->edge[depth++] = 0;
		}
	}
	return false;
}

static void union_column(struct verifier *v, struct union_graph *u,
			 const struct ibr_result *a, const struct ibr_result *b,
			 ibr_lid_t lid)
{
	const uint8_t *ca = ibr_column(a, lid), *cb = ibr_column(b, lid);
	uint32_t S = v->f->num_switches;

	uint32_t dsw = ibr_lid_switch(v->f, lid);

	for (uint32_t s = 0; s < S; s++) {
		uint8_t e[2] = { ca[s], cb[s] };

		v->rep->changed += e[0] != e[1];
		for (unsigned k = 0; k < 2; k++) {
			uint32_t t = IBR_NONE;
			u->next[s][k] = IBR_NONE;
			u->port[s][k] = e[k];
			u->legal[s][k] = !u->sets[k] ||
					 ibr_climb_meet(&u->climb[k], s, dsw);
			if (k == 1 && e[1] == e[0])
				continue;
			if (ibr_walker_step(&v->w, s, lid, e[k], &t) ==
			    IBR_STEP_NEXT)
				u->next[s][k] = t;
		}
	}
	v->rep->walks += S;
	v->rep->lids++;
	v->rep->lids_above += is_renamed_lid(v->f, lid);
	if (union_loop(v, u, lid)) {
		if (u->looping)
			u->looping[lid / 64] |= 1ull << (lid % 64);
		return;
	}
	for (uint32_t s = 0; s < S; s++)
		for (unsigned k = 0; k < 2; k++) {
			uint32_t t = u->next[s][k], in;
			if (t == IBR_NONE || !u->legal[s][k])
				continue;
			in = ibr_walker_channel(&v->w, s, u->port[s][k]);
			for (unsigned j = 0; j < 2; j++)
				if (u->next[t][j] != IBR_NONE)
					add_dependency(v, in, u->port[t][j]);
		}
}

int ibr_verify_union(const struct ibr_fabric *f, const struct ibr_result *a,
		     const struct ibr_result *b, struct ibr_verify_report *rep,
		     struct ibr_error *err)
{
	return ibr_verify_union_lids(f, a, b, rep, NULL, err);
}

int ibr_verify_union_lids(const struct ibr_fabric *f,
			  const struct ibr_result *a,
			  const struct ibr_result *b,
			  struct ibr_verify_report *rep, uint64_t *looping,
			  struct ibr_error *err)
{
	struct verifier v = { .f = f, .r = a, .rep = rep };
	struct union_graph u = { .looping = looping };
	uint32_t S = f->num_switches, C = f->sw_adj_start[S];
	int rc = -1;

	memset(rep, 0, sizeof(*rep));
	for (unsigned i = 0; i < 2; i++) {
		const struct ibr_result *r = i ? b : a;
		if (r->num_switches != S || r->num_lids != f->max_lid + 1u)
			return ibr_error_set(err, "verify union: tables are %u "
					     "switches x %u LIDs, the fabric "
					     "has %u x %u", r->num_switches,
					     r->num_lids, S, f->max_lid + 1u);
	}
	for (unsigned i = 0; i < 2; i++) {
		const struct ibr_result *r = i ? b : a;
		struct ibr_updown ud;
		if (!r->roots || r->num_roots < 2)
			continue;
		if (ibr_updown_of_result(f, r, &ud, err))
			goto out;
		u.sets[i] = !ibr_climb_build(f, &ud, &u.climb[i], err);
		ibr_updown_free(&ud);
		if (!u.sets[i])
			goto out;
	}
	if (ibr_walker_init(&v.w, f, err))
		goto out;
	v.deps = calloc(C ? C : 1, sizeof(*v.deps));
	u.next = malloc((S ? S : 1) * sizeof(*u.next));
	u.legal = malloc((S ? S : 1) * sizeof(*u.legal));
	u.port = malloc((S ? S : 1) * sizeof(*u.port));
	u.color = malloc(S ? S : 1);
	u.stack = malloc((S ? S : 1) * sizeof(*u.stack));
	u.edge = malloc(S ? S : 1);
	if (!v.deps || !u.next || !u.port || !u.legal || !u.color || !u.stack ||
	    !u.edge) {
		ibr_error_set(err, "verify union: out of memory for %u "
			      "switches", S);
		goto out;
	}
	for (uint32_t lid = 1; lid <= f->max_lid; lid++)
		if (f->lid_owner[lid].node != IBR_NONE)
			union_column(&v, &u, a, b, lid);
	if (rep->loops == 0 && find_cycle(&v, err))
		goto out;
	rc = 0;
out:
	ibr_walker_free(&v.w);
	for (unsigned i = 0; i < 2; i++)
		if (u.sets[i])
			ibr_climb_free(&u.climb[i]);
	free(v.deps);
	free(u.next);
	free(u.legal);
	free(u.port);
	free(u.color);
	free(u.stack);
	free(u.edge);
	return rc;
}
