/*
 * metrics.c - link load and path lengths under uniform all-to-all traffic
 * along designated DLIDs (lid-assignment-color-l §VI-D; see metrics.h and
 * flows.h).
 *
 * Per destination DLID the routes form an in-tree towards the owner, so
 * flows are summed, not walked: every switch starts with the number of
 * sources that send to this DLID from its CAs, and switches are settled
 * in reverse of the walk's order (each before the switch it forwards to),
 * each adding its flow to the channel it forwards on and to the next
 * switch.  O(S) per DLID, O(S * L) in all.
 */
#include <stdlib.h>
#include <string.h>

#include "flows.h"
#include "util/parallel.h"

/* Tiles of the transposition: each reads TILE lines of the map and
 * writes TILE of the columns. */
#define TILE 64u

int ibr_flows_columns(const struct ibr_result *r, uint8_t **columns,
		      struct ibr_error *err)
{
	const struct ibr_designated *d = &r->designated;
	uint8_t *t;

	*columns = NULL;
	if (!d->offset || !d->by_switch || !d->rows || !d->cols)
		return 0;
	t = malloc((size_t)d->rows * d->cols);
	if (!t)
		return ibr_error_set(err, "metrics: out of memory for the "
				     "designated DLIDs by destination (%u x %u)",
				     d->rows, d->cols);
	for (uint32_t r0 = 0; r0 < d->rows; r0 += TILE)
		for (uint32_t c0 = 0; c0 < d->cols; c0 += TILE)
			for (uint32_t s = r0; s < r0 + TILE && s < d->rows; s++)
				for (uint32_t c = c0; c < c0 + TILE &&
				     c < d->cols; c++)
					t[(size_t)c * d->rows + s] =
						d->offset[(size_t)s * d->cols + c];
	*columns = t;
	return 0;
}

int ibr_flows_init(struct ibr_flows *fl, const struct ibr_fabric *f,
		   const struct ibr_result *r, const uint8_t *columns,
		   struct ibr_metrics *m, struct ibr_error *err)
{
	uint32_t S = f->num_switches, links = f->sw_adj_start[S];
	size_t ranges = (size_t)S << IBR_MAX_LMC;

	memset(fl, 0, sizeof(*fl));
	memset(m, 0, sizeof(*m));
	fl->f = f;
	fl->r = r;
	fl->columns = columns;
	fl->m = m;
	fl->senders_port = IBR_NONE;
	fl->chan = calloc(links ? links : 1, sizeof(uint64_t));
	fl->eject = calloc(f->num_end_ports ? f->num_end_ports : 1,
			   sizeof(uint64_t));
	fl->flow = malloc(S * sizeof(uint64_t));
	fl->senders = malloc((r->designated.offset ? ranges : S) *
			     sizeof(uint32_t));
	fl->dlid_used = calloc(f->max_lid + 1u, 1);
	if (fl->chan && fl->eject && fl->flow && fl->senders && fl->dlid_used)
		return 0;
	ibr_flows_free(fl);
	return ibr_error_set(err, "metrics: out of memory (%u switches)", S);
}

void ibr_flows_free(struct ibr_flows *fl)
{
	free(fl->chan);
	free(fl->eject);
	free(fl->flow);
	free(fl->senders);
	free(fl->dlid_used);
	fl->chan = fl->eject = fl->flow = NULL;
	fl->senders = NULL;
	fl->dlid_used = NULL;
}

/* senders[k * S + s]: sources on switch s whose designated DLID to dst is
 * its base LID + k.  Without a map everything uses offset 0. */
static void count_senders(struct ibr_flows *fl, uint32_t dst, unsigned count)
{
	const struct ibr_fabric *f = fl->f;
	uint32_t S = f->num_switches;

	if (!fl->r->designated.offset) {
		for (uint32_t s = 0; s < S; s++)
			fl->senders[s] = f->sw_ca_start[s + 1] - f->sw_ca_start[s];
		fl->senders[f->end_ports[dst].sw]--;
	} else if (fl->r->designated.by_switch) {
		/* a row per source switch: its CAs send on the same offset,
		 * O(switches) rather than O(end ports) per destination */
		const struct ibr_designated *d = &fl->r->designated;
		const uint8_t *column = fl->columns ?
					&fl->columns[(size_t)dst * d->rows] : NULL;
		memset(fl->senders, 0, (size_t)count * S * sizeof(uint32_t));
		for (uint32_t s = 0; s < S; s++) {
			uint32_t n = f->sw_ca_start[s + 1] - f->sw_ca_start[s];
			uint8_t k = column ? column[s] :
				    d->offset[(size_t)s * d->cols + dst];
			if (s == f->end_ports[dst].sw)
				n--;
			if (n && k < count)
				fl->senders[(size_t)k * S + s] += n;
		}
	} else {
		memset(fl->senders, 0, (size_t)count * S * sizeof(uint32_t));
		for (uint32_t src = 0; src < f->num_end_ports; src++) {
			uint8_t k = ibr_designated_offset(fl->r, f, src, dst);
			if (src != dst && k < count)
				fl->senders[(size_t)k * S + f->end_ports[src].sw]++;
		}
	}
	fl->senders_port = dst;
}

/* Spreads the flows of one DLID down its in-tree: in reverse of the
 * walk's order every switch comes before the one it forwards to. */
static void spread(struct ibr_flows *fl, const struct ibr_walker *w,
		   const uint8_t *column, const uint32_t *senders, uint32_t dst)
{
	uint32_t S = fl->f->num_switches;
	struct ibr_metrics *m = fl->m;

	for (uint32_t s = 0; s < S; s++)
		fl->flow[s] = senders[s];
	for (uint32_t k = S; k-- > 0;) {
		uint32_t s = w->order[k], next = w->next[s];
		uint64_t flow = fl->flow[s];
		unsigned len;
		if (flow == 0)
			continue;
		if (w->hops[s] == IBR_HOPS_FAILED) {
			m->unrouted_flows += senders[s];
			continue;
		}
		len = w->hops[s] + 1u;
		m->path_len_hist[len < IBR_MAX_PATH_LEN ? len : IBR_MAX_PATH_LEN] +=
			senders[s];
		if (next < S) {
			fl->chan[ibr_walker_channel(w, s, column[s])] += flow;
			fl->flow[next] += flow;
		} else {
			fl->eject[dst] += flow;
		}
	}
}

/* The sources on each switch that send to lid (NULL: none; *n: how
 * many in all). */
static const uint32_t *lid_senders(struct ibr_flows *fl,
				   const struct ibr_walker *w, ibr_lid_t lid,
				   uint64_t *n)
{
	const struct ibr_fabric *f = fl->f;
	uint32_t dst = w->lid_end_port[lid], S = f->num_switches;
	const struct ibr_port *p;
	const uint32_t *senders;
	unsigned k;

	*n = 0;
	if (dst == IBR_NONE)
		return NULL; /* a switch LID: no CA sends to it */
	p = ibr_port(f, f->end_ports[dst].node, f->end_ports[dst].port);
	k = lid - p->base_lid;
	if (!fl->r->designated.offset && k > 0)
		return NULL; /* single-LID tables: every flow uses the base LID */
	if (fl->senders_port != dst)
		count_senders(fl, dst, ibr_port_lid_count(p));
	senders = fl->senders + (fl->r->designated.offset ? (size_t)k * S : 0);
	for (uint32_t s = 0; s < S; s++)
		*n += senders[s];
	return *n ? senders : NULL;
}

/* Adds lid's flows (senders from lid_senders, n of them) along its
 * walked column. */
static void add_flows(struct ibr_flows *fl, const struct ibr_walker *w,
		      const uint8_t *column, ibr_lid_t lid,
		      const uint32_t *senders, uint64_t n)
{
	fl->dlid_used[lid] = 1;
	fl->m->flows += n;
	spread(fl, w, column, senders, w->lid_end_port[lid]);
}

void ibr_flows_add_column(struct ibr_flows *fl, const struct ibr_walker *w,
			  const uint8_t *column, ibr_lid_t lid)
{
	uint64_t n;
	const uint32_t *senders = lid_senders(fl, w, lid, &n);

	if (senders)
		add_flows(fl, w, column, lid, senders, n);
}

void ibr_flows_finish(struct ibr_flows *fl)
{
	const struct ibr_fabric *f = fl->f;
	struct ibr_metrics *m = fl->m;
	uint64_t len_sum = 0, routed = 0;

	for (uint32_t i = 0; i < f->sw_adj_start[f->num_switches]; i++)
		if (fl->chan[i] > m->max_link_load)
			m->max_link_load = fl->chan[i];
	for (uint32_t e = 0; e < f->num_end_ports; e++)
		if (fl->eject[e] > m->max_link_load)
			m->max_link_load = fl->eject[e];
	for (unsigned len = 0; len <= IBR_MAX_PATH_LEN; len++) {
		len_sum += (uint64_t)len * m->path_len_hist[len];
		routed += m->path_len_hist[len];
	}
	m->mean_path_len = routed ? (double)len_sum / routed : 0.0;
	for (uint32_t l = 1; l <= f->max_lid; l++) {
		uint32_t owner = f->lid_owner[l].node;
		m->ca_lids += owner != IBR_NONE &&
			      f->nodes[owner].type != IBR_NODE_SWITCH;
		m->lids_used += fl->dlid_used[l];
	}
}

/* ---- over worker threads ------------------------------------------- */

/* LIDs per task: a task recounts its first port's senders, O(end ports),
 * so a task covers many ports. */
#define METRICS_TASK_LIDS 512u

/* Each worker walks and spreads its tasks' LIDs into flows of its own;
 * the sums are merged at the end (integers: exact in any order). */
struct metrics_team {
	const struct ibr_fabric *f;
	const struct ibr_result *r;
	struct ibr_walker *w;   /* per worker */
	struct ibr_flows *fl;   /* per worker */
	struct ibr_metrics *m;  /* per worker */
};

static int metrics_task(void *arg, unsigned t, unsigned worker)
{
	struct metrics_team *team = arg;
	struct ibr_walker *w = &team->w[worker];
	uint32_t first = 1 + t * METRICS_TASK_LIDS;
	uint32_t last = first + METRICS_TASK_LIDS - 1;

	if (last > team->f->max_lid)
		last = team->f->max_lid;
	for (uint32_t lid = first; lid <= last; lid++) {
		const uint8_t *column = ibr_column(team->r, lid);
		uint64_t n;
		const uint32_t *senders = lid_senders(&team->fl[worker], w,
						      (ibr_lid_t)lid, &n);
		/* a column no source uses is not walked (those above the base
		 * without a designated map, a DLID no pair was given) */
		if (!senders)
			continue;
		ibr_walk_column(w, column, (ibr_lid_t)lid, NULL);
		add_flows(&team->fl[worker], w, column, (ibr_lid_t)lid, senders,
			  n);
	}
	return 0;
}

/* Worker i's sums into worker 0's. */
static void metrics_merge(struct metrics_team *team, unsigned i)
{
	const struct ibr_fabric *f = team->f;
	struct ibr_flows *to = &team->fl[0], *from = &team->fl[i];

	for (uint32_t c = 0; c < f->sw_adj_start[f->num_switches]; c++)
		to->chan[c] += from->chan[c];
	for (uint32_t e = 0; e < f->num_end_ports; e++)
		to->eject[e] += from->eject[e];
	for (uint32_t l = 0; l <= f->max_lid; l++)
		to->dlid_used[l] |= from->dlid_used[l];
	team->m[0].flows += team->m[i].flows;
	team->m[0].unrouted_flows += team->m[i].unrouted_flows;
	for (unsigned len = 0; len <= IBR_MAX_PATH_LEN; len++)
		team->m[0].path_len_hist[len] += team->m[i].path_len_hist[len];
}

/* by_destination: the map transposed (ibr_flows_columns) */
static int metrics_compute(const struct ibr_fabric *f,
			   const struct ibr_result *r, unsigned threads,
			   bool by_destination, struct ibr_metrics *m,
			   struct ibr_error *err)
{
	unsigned tasks = (f->max_lid + METRICS_TASK_LIDS - 1) / METRICS_TASK_LIDS;
	unsigned n = ibr_parallel_workers(threads, tasks), ready = 0;
	struct metrics_team team = { .f = f, .r = r };
	uint8_t *columns = NULL;
	int rc = -1;

	if (by_destination && ibr_flows_columns(r, &columns, err))
		return -1;
	team.w = calloc(n, sizeof(*team.w));
	team.fl = calloc(n, sizeof(*team.fl));
	team.m = calloc(n, sizeof(*team.m));
	if (!team.w || !team.fl || !team.m) {
		ibr_error_set(err, "metrics: out of memory for %u workers", n);
		goto out;
	}
	for (; ready < n; ready++) {
		if (ibr_walker_init(&team.w[ready], f, err))
			goto out;
		if (ibr_flows_init(&team.fl[ready], f, r, columns,
				   &team.m[ready], err)) {
			ibr_walker_free(&team.w[ready]);
			goto out;
		}
	}
	ibr_parallel(n, tasks, metrics_task, &team);
	for (unsigned i = 1; i < n; i++)
		metrics_merge(&team, i);
	ibr_flows_finish(&team.fl[0]);
	*m = team.m[0];
	rc = 0;
out:
	for (unsigned i = 0; i < ready; i++) {
		ibr_flows_free(&team.fl[i]);
		ibr_walker_free(&team.w[i]);
	}
	free(columns);
	free(team.w);
	free(team.fl);
	free(team.m);
	return rc;
}

int ibr_metrics_compute_threads(const struct ibr_fabric *f,
				const struct ibr_result *r, unsigned threads,
				struct ibr_metrics *m, struct ibr_error *err)
{
	return metrics_compute(f, r, threads, true, m, err);
}

int ibr_metrics_compute(const struct ibr_fabric *f, const struct ibr_result *r,
			struct ibr_metrics *m, struct ibr_error *err)
{
	return metrics_compute(f, r, 1, false, m, err);
}

uint64_t ibr_metrics_switch_link_bound(const struct ibr_fabric *f,
				       uint32_t *worst)
{
	uint64_t hosts = f->num_end_ports, bound = 0;

	*worst = IBR_NONE;
	for (uint32_t s = 0; s < f->num_switches; s++) {
		uint64_t h = f->sw_ca_start[s + 1] - f->sw_ca_start[s];
		uint64_t links = f->sw_adj_start[s + 1] - f->sw_adj_start[s];
		uint64_t out = h * (hosts - h);
		if (links == 0 || out == 0)
			continue;
		if ((out + links - 1) / links > bound) {
			bound = (out + links - 1) / links;
			*worst = s;
		}
	}
	return bound;
}

uint64_t ibr_metrics_load_bound(const struct ibr_fabric *f, uint32_t *worst)
{
	uint64_t hosts = f->num_end_ports;
	uint64_t own = hosts ? hosts - 1 : 0;
	uint64_t links = ibr_metrics_switch_link_bound(f, worst);

	/* a tie goes to the hosts' own links, as before */
	if (links > own)
		return links;
	*worst = IBR_NONE;
	return own;
}

uint64_t ibr_metrics_group_bound(const struct ibr_fabric *f,
				 const uint32_t *group, uint32_t groups,
				 uint32_t *worst, uint64_t *links)
{
	uint64_t ports = f->num_end_ports, bound = 0;
	uint64_t *in = calloc(groups ? groups : 1, sizeof(uint64_t));
	uint64_t *out = calloc(groups ? groups : 1, sizeof(uint64_t));

	*worst = IBR_NONE;
	*links = 0;
	if (!in || !out) {
		free(in);
		free(out);
		return 0; /* no bound known: the caller keeps its own */
	}
	for (uint32_t s = 0; s < f->num_switches; s++) {
		uint32_t g = group[s];
		if (g == IBR_NONE)
			continue;
		in[g] += f->sw_ca_start[s + 1] - f->sw_ca_start[s];
		for (uint32_t i = f->sw_adj_start[s]; i < f->sw_adj_start[s + 1]; i++)
			out[g] += group[f->sw_adj[i].peer] != g;
	}
	for (uint32_t g = 0; g < groups; g++) {
		uint64_t flows = in[g] * (ports - in[g]);
		if (out[g] && flows && (flows + out[g] - 1) / out[g] > bound) {
			bound = (flows + out[g] - 1) / out[g];
			*worst = g;
			*links = out[g];
		}
	}
	free(in);
	free(out);
	return bound;
}
