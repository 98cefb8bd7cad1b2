/*
 * verify.c - the independent check of forwarding tables (see verify.h).
 *
 * Per LID, one pass over the LID's column gives every switch's next hop
 * (next[]), and each faulty entry is counted once, where it is: a port with
 * no link, a port 0 off the owner, IBR_NO_PATH for an owned LID.  Walks
 * over next[] with memoisation (state per switch: unknown, on the current
 * walk, delivers, fails) find loops, counted once per LID and cycle; O(S)
 * per LID.
 *
 * While no finding has appeared, the same next[] feeds the channel
 * dependency graph.  A channel is one direction of an inter-switch link
 * (an sw_adj entry).
 * Walking from every source switch to every destination LID adds the
 * dependency (channel into s) -> (channel out of s); walks stop where an
 * earlier walk to the same LID already went, since the rest of the route
 * is shared.  Dependencies of a channel are a 256-bit set of the far
 * switch's output ports.  Channels to CAs cannot close a cycle (CAs do not
 * forward) and are left out.  A DFS then looks for a cycle.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ibrouting/verify.h"

enum { UNKNOWN, ON_WALK, DELIVERS, FAILS };

/* port_peer: the switch index behind a port, or PEER_CA | end port index,
 * or IBR_NONE: one load per hop instead of a walk through the model. */
#define PEER_CA 0x80000000u

/* next[s] for the LID at hand: a switch index, or one of these. */
#define NEXT_ARRIVED 0xFFFFFFFEu
#define NEXT_FAILED  0xFFFFFFFDu

struct verifier {
	const struct ibr_fabric *f;
	const struct ibr_result *r;
	const uint8_t *col;       /* the tables by destination (result.h) */
	struct ibr_verify_report *rep;
	uint8_t *state;           /* per switch, for the LID being checked */
	uint32_t *next;           /* per switch, for that LID: see NEXT_* */
	uint32_t *stack;
	uint32_t *port_chan;      /* per (switch, port): sw_adj index or NONE */
	uint32_t *port_peer;      /* per (switch, port): see PEER_CA */
	uint32_t *port_chan_start;
	uint32_t *lid_end_port;   /* per LID: owning end port, or NONE */
	uint64_t (*deps)[4];      /* per channel: bitset of far output ports */
	uint32_t *seen_stamp;     /* per switch: last LID whose walk passed */
};

static void note(struct verifier *v, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void note(struct verifier *v, const char *fmt, ...)
{
	va_list ap;

	if (v->rep->num_messages >= IBR_VERIFY_MAX_MESSAGES)
		return;
	va_start(ap, fmt);
	vsnprintf(v->rep->messages[v->rep->num_messages++], 256, fmt, ap);
	va_end(ap);
}

static unsigned long long sw_guid(const struct verifier *v, uint32_t s)
{
	return (unsigned long long)ibr_switch(v->f, s)->guid;
}

/* ---- pass 1: delivery and loops ---------------------------------------- */

/* The entry of switch s for lid, read from the column copy. */
static uint8_t entry(const struct verifier *v, uint32_t s, ibr_lid_t lid)
{
	return v->col[(size_t)lid * v->f->num_switches + s];
}

static enum ibr_step step(const struct verifier *v, uint32_t s, ibr_lid_t lid,
			  uint32_t *next)
{
	const struct ibr_fabric *f = v->f;
	uint8_t port = entry(v, s, lid);
	uint32_t peer;

	if (port == IBR_NO_PATH)
		return IBR_STEP_NO_PATH;
	if (port == 0)
		return f->lid_owner[lid].node == f->sw_node[s] ?
		       IBR_STEP_ARRIVED : IBR_STEP_WRONG_END;
	if (port > ibr_switch(f, s)->num_ports)
		return IBR_STEP_BAD_PORT;
	peer = v->port_peer[v->port_chan_start[s] + port];
	if (peer == IBR_NONE)
		return IBR_STEP_BAD_PORT;
	if (peer & PEER_CA)
		return (peer & ~PEER_CA) == v->lid_end_port[lid] ?
		       IBR_STEP_ARRIVED : IBR_STEP_WRONG_END;
	*next = peer;
	return IBR_STEP_NEXT;
}

static void report_step_failure(struct verifier *v, uint32_t s, ibr_lid_t lid,
				enum ibr_step st)
{
	uint8_t port = entry(v, s, lid);

	if (st == IBR_STEP_NO_PATH) {
		v->rep->unreachable++;
		note(v, "switch 0x%016llx has no route to LID %u", sw_guid(v, s),
		     lid);
	} else if (st == IBR_STEP_BAD_PORT) {
		v->rep->bad_port++;
		note(v, "switch 0x%016llx routes LID %u to port %u, which has "
		     "no link", sw_guid(v, s), lid, port);
	} else {
		v->rep->bad_port++;
		note(v, "switch 0x%016llx delivers LID %u on port %u, but LID %u "
		     "is not there", sw_guid(v, s), lid, port, lid);
	}
}

static void report_loop(struct verifier *v, ibr_lid_t lid, uint32_t *stack,
			uint32_t depth, uint32_t again)
{
	char buf[200];
	int len = 0;
	uint32_t from = depth;

	while (from > 0 && stack[from - 1] != again)
		from--;
	for (uint32_t i = from ? from - 1 : 0; i < depth && len < 150; i++)
		len += snprintf(buf + len, sizeof(buf) - len, "0x%016llx -> ",
				sw_guid(v, stack[i]));
	snprintf(buf + len, sizeof(buf) - len, "0x%016llx", sw_guid(v, again));
	v->rep->loops++;
	note(v, "LID %u loops: %s", lid, buf);
}

/* One step of every switch towards lid, in one pass over its column. */
static void compute_next(struct verifier *v, ibr_lid_t lid)
{
	for (uint32_t s = 0; s < v->f->num_switches; s++) {
		uint32_t n = 0;
		enum ibr_step st = step(v, s, lid, &n);
		if (st == IBR_STEP_NEXT) {
			v->next[s] = n;
		} else if (st == IBR_STEP_ARRIVED) {
			v->next[s] = NEXT_ARRIVED;
		} else {
			report_step_failure(v, s, lid, st);
			v->next[s] = NEXT_FAILED;
		}
	}
	v->rep->walks += v->f->num_switches;
}

/* Loops: follow next[] with memoisation, O(S) per LID. */
static void check_lid(struct verifier *v, ibr_lid_t lid)
{
	uint32_t S = v->f->num_switches;

	compute_next(v, lid);
	memset(v->state, UNKNOWN, S);
	for (uint32_t start = 0; start < S; start++) {
		uint32_t depth = 0, s = start;
		uint8_t outcome;

		while (v->state[s] == UNKNOWN) {
			if (v->next[s] == NEXT_ARRIVED) {
				v->state[s] = DELIVERS;
				break;
			}
			if (v->next[s] == NEXT_FAILED) {
				v->state[s] = FAILS;
				break;
			}
			v->state[s] = ON_WALK;
			v->stack[depth++] = s;
			s = v->next[s];
		}
		if (v->state[s] == ON_WALK) {
			report_loop(v, lid, v->stack, depth, s);
			outcome = FAILS;
		} else {
			outcome = v->state[s];
		}
		while (depth > 0)
			v->state[v->stack[--depth]] = outcome;
	}
}

static void check_unowned_lid(struct verifier *v, ibr_lid_t lid)
{
	for (uint32_t s = 0; s < v->f->num_switches; s++) {
		uint8_t port = entry(v, s, lid);
		if (port != IBR_NO_PATH) {
			v->rep->bad_port++;
			note(v, "switch 0x%016llx routes LID %u to port %u, but no "
			     "port owns LID %u", sw_guid(v, s), lid, port, lid);
		}
	}
}

/* ---- pass 2: channel dependency graph --------------------------------- */

static uint32_t channel_of(const struct verifier *v, uint32_t s, uint8_t port)
{
	return v->port_chan[v->port_chan_start[s] + port];
}

static int index_channels(struct verifier *v)
{
	const struct ibr_fabric *f = v->f;
	uint32_t S = f->num_switches, total = 0;

	v->port_chan_start = malloc((S + 1) * sizeof(uint32_t));
	if (!v->port_chan_start)
		return -1;
	for (uint32_t s = 0; s < S; s++) {
		v->port_chan_start[s] = total;
		total += ibr_switch(f, s)->num_ports + 1u;
	}
	v->port_chan_start[S] = total;
	v->port_chan = malloc(total * sizeof(uint32_t));
	v->port_peer = malloc(total * sizeof(uint32_t));
	v->lid_end_port = malloc((f->max_lid + 1u) * sizeof(uint32_t));
	v->deps = calloc(f->sw_adj_start[S] ? f->sw_adj_start[S] : 1,
			 sizeof(*v->deps));
	v->seen_stamp = calloc(S, sizeof(uint32_t));
	if (!v->port_chan || !v->port_peer || !v->lid_end_port || !v->deps ||
	    !v->seen_stamp)
		return -1;
	for (uint32_t i = 0; i < total; i++)
		v->port_chan[i] = v->port_peer[i] = IBR_NONE;
	for (uint32_t s = 0; s < S; s++)
		for (uint32_t i = f->sw_adj_start[s]; i < f->sw_adj_start[s + 1]; i++) {
			v->port_chan[v->port_chan_start[s] + f->sw_adj[i].port] = i;
			v->port_peer[v->port_chan_start[s] + f->sw_adj[i].port] =
				f->sw_adj[i].peer;
		}
	for (uint32_t l = 0; l <= f->max_lid; l++)
		v->lid_end_port[l] = IBR_NONE;
	for (uint32_t e = 0; e < f->num_end_ports; e++) {
		const struct ibr_end_port *ep = &f->end_ports[e];
		const struct ibr_port *p = ibr_port(f, ep->node, ep->port);
		v->port_peer[v->port_chan_start[ep->sw] + ep->sw_port] = PEER_CA | e;
		for (unsigned k = 0; k < ibr_port_lid_count(p); k++)
			v->lid_end_port[p->base_lid + k] = e;
	}
	return 0;
}

static void add_dependency(struct verifier *v, uint32_t in, uint8_t out_port)
{
	uint64_t *set = v->deps[in];
	uint64_t bit = 1ull << (out_port & 63);

	if (!(set[out_port >> 6] & bit)) {
		set[out_port >> 6] |= bit;
		v->rep->dependencies++;
	}
}

/* Dependencies of the walk from src to the current LID (next[] holds
 * its steps and is loop-free), stopping where an earlier walk to the same
 * LID went on. */
static void add_walk_dependencies(struct verifier *v, uint32_t src,
				  ibr_lid_t lid, uint32_t stamp)
{
	uint32_t s = src, in = IBR_NONE;

	for (;;) {
		bool merged = v->seen_stamp[s] == stamp;
		uint8_t port;

		v->seen_stamp[s] = stamp;
		if (v->next[s] >= NEXT_FAILED)
			return; /* delivered: the last channel goes to a CA */
		port = entry(v, s, lid);
		if (in != IBR_NONE)
			add_dependency(v, in, port);
		if (merged)
			return;
		in = channel_of(v, s, port);
		s = v->next[s];
	}
}

static bool is_source(const struct verifier *v, uint32_t s,
		      const struct ibr_verify_options *opts)
{
	return opts->all_sources ||
	       v->f->sw_ca_start[s + 1] > v->f->sw_ca_start[s];
}

/* The dependencies of every walk from a source switch to lid. */
static void add_lid_dependencies(struct verifier *v, ibr_lid_t lid,
				 const struct ibr_verify_options *opts)
{
	const struct ibr_fabric *f = v->f;
	const struct ibr_lid_owner *o = &f->lid_owner[lid];

	if (f->nodes[o->node].type == IBR_NODE_SWITCH && !opts->switch_lids)
		return;
	for (uint32_t s = 0; s < f->num_switches; s++)
		if (is_source(v, s, opts))
			add_walk_dependencies(v, s, lid, lid);
}

/* Iterative DFS over channels: 0 white, 1 grey (on path), 2 black. */
static void find_cycle(struct verifier *v)
{
	const struct ibr_fabric *f = v->f;
	uint32_t C = f->sw_adj_start[f->num_switches];
	uint8_t *color = calloc(C ? C : 1, 1);
	uint32_t *path = malloc((C ? C : 1) * sizeof(uint32_t));
	uint16_t *next_port = malloc((C ? C : 1) * sizeof(uint16_t));
	uint32_t *chan_switch = malloc((C ? C : 1) * sizeof(uint32_t));

	if (!color || !path || !next_port || !chan_switch)
		goto out;
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
			uint32_t c = path[depth - 1];
			uint32_t t = f->sw_adj[c].peer;
			uint16_t q = next_port[c];
			while (q < 256 && !(v->deps[c][q >> 6] >> (q & 63) & 1))
				q++;
			if (q >= 256) {
				color[c] = 2;
				depth--;
				continue;
			}
			next_port[c] = q + 1;
			uint32_t d = channel_of(v, t, (uint8_t)q);
			if (d == IBR_NONE || color[d] == 2)
				continue;
			if (color[d] == 1) {
				char buf[200];
				int len = 0;
				uint32_t k = depth;
				while (k > 0 && path[k - 1] != d)
					k--;
				for (uint32_t i = k - 1; i < depth && len < 160; i++)
					len += snprintf(buf + len, sizeof(buf) - len,
							"0x%016llx[%u] -> ",
							sw_guid(v, chan_switch[path[i]]),
							f->sw_adj[path[i]].port);
				snprintf(buf + len, sizeof(buf) - len, "0x%016llx[%u]",
					 sw_guid(v, chan_switch[d]), f->sw_adj[d].port);
				v->rep->cycles = 1;
				note(v, "credit loop: channel dependency cycle %s", buf);
				break;
			}
			color[d] = 1;
			next_port[d] = 0;
			path[depth++] = d;
		}
	}
out:
	free(color);
	free(path);
	free(next_port);
	free(chan_switch);
}

int ibr_verify(const struct ibr_fabric *f, const struct ibr_result *r,
	       const struct ibr_verify_options *opts,
	       struct ibr_verify_report *rep, struct ibr_error *err)
{
	static const struct ibr_verify_options defaults;
	struct verifier v = { .f = f, .r = r, .rep = rep };
	uint32_t S = f->num_switches;
	int rc = -1;

	memset(rep, 0, sizeof(*rep));
	if (!opts)
		opts = &defaults;
	if (r->num_switches != S || r->lft_size != f->max_lid + 1u)
		return ibr_error_set(err, "verify: tables are %u x %u, fabric "
				     "needs %u x %u", r->num_switches,
				     r->lft_size, S, f->max_lid + 1u);
	v.state = malloc(S);
	v.next = malloc(S * sizeof(uint32_t));
	v.stack = malloc(S * sizeof(uint32_t));
	v.col = ibr_result_columns(r);
	if (!v.state || !v.next || !v.stack || !v.col || index_channels(&v)) {
		ibr_error_set(err, "verify: out of memory");
		goto out;
	}
	/* Dependencies are gathered while the tables look sound; one bad
	 * entry makes the graph meaningless and stops the gathering. */
	for (uint32_t lid = 1; lid <= f->max_lid; lid++) {
		if (f->lid_owner[lid].node == IBR_NONE) {
			check_unowned_lid(&v, lid);
			continue;
		}
		check_lid(&v, lid);
		if (ibr_verify_findings(rep) == 0)
			add_lid_dependencies(&v, lid, opts);
	}
	if (ibr_verify_findings(rep) == 0)
		find_cycle(&v);
	rc = 0;
out:
	free((void *)v.col);
	free(v.state);
	free(v.next);
	free(v.stack);
	free(v.port_chan);
	free(v.port_peer);
	free(v.lid_end_port);
	free(v.port_chan_start);
	free(v.deps);
	free(v.seen_stamp);
	return rc;
}
