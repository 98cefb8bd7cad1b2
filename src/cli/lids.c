/*
 * lids.c - `ibrouting lids`: the LID paper's study on our fabrics
 * (lid-assignment-color-l §VI-A, -B, -D).  For each fabric and each path
 * computation scheme, one path per pair (paths.h), then every LID
 * assignment heuristic (lidassign.h) on every destination: the LIDs it
 * allocates, counted as the paper counts them (2^ceil(lg k) for a
 * destination whose paths need k configurations), and the max link load of
 * the paths.  Nothing is routed into tables here: this is LID assignment
 * alone, with no base tree (the engine colorl adds FERa's on offset 0).
 *
 * Output, per fabric:
 *   fabric    SOURCE: ...
 *   paths     SCHEME: N pairs, max link load F flows (L per machine's unit of traffic), T ms
 *   lids      SCHEME: greedy N, split-merge/S N, ..., ilp N (exact D of E destinations)
 *   time      SCHEME: greedy T ms, ...
 * The load is the flows on the busiest inter-switch channel under uniform
 * all-to-all traffic, and normalised as Table VI does (every machine sends
 * 1 in all, spread evenly over the others).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "ibrouting/configs.h"
#include "ibrouting/lidassign.h"
#include "ibrouting/paths.h"
#include "ibrouting/updown.h"
#include "ibrouting/walk.h"
#include "util/timer.h"

struct study {
	const struct ibr_fabric *f;
	const struct ibr_paths *p;
	struct ibr_lid_assigner *assigner;
	struct ibr_dest_set set;     /* one destination's path set */
	uint32_t *color;
};

static uint64_t unit_flows(const struct ibr_fabric *f, const struct ibr_paths *p,
			   uint32_t u)
{
	uint32_t s, d;

	if (p->per_ca)
		return 1;
	s = p->src[u];
	d = p->dst[u];
	return (uint64_t)(f->sw_ca_start[s + 1] - f->sw_ca_start[s]) *
	       (f->sw_ca_start[d + 1] - f->sw_ca_start[d]);
}

/* Flows on the busiest inter-switch channel. */
static int max_load(const struct ibr_fabric *f, const struct ibr_paths *p,
		    uint64_t *out, struct ibr_error *err)
{
	uint32_t C = f->sw_adj_start[f->num_switches];
	uint64_t *load = calloc(C ? C : 1, sizeof(uint64_t));
	struct ibr_walker w;

	if (!load)
		return ibr_error_set(err, "lids: out of memory for %u channels", C);
	if (ibr_walker_init(&w, f, err)) {
		free(load);
		return -1;
	}
	for (uint32_t u = 0; u < p->num_units; u++)
		for (uint32_t h = p->first[u]; h < p->first[u + 1]; h++)
			load[ibr_walker_channel(&w, p->hop_sw[h], p->hop_port[h])] +=
				unit_flows(f, p, u);
	*out = 0;
	for (uint32_t c = 0; c < C; c++)
		if (load[c] > *out)
			*out = load[c];
	ibr_walker_free(&w);
	free(load);
	return 0;
}

/* LIDs heuristic h allocates for all destinations; *exact counts the
 * destinations whose k is proven minimal. */
static int count_lids(struct study *st, const struct ibr_lid_assign_options *o,
		      uint64_t *lids, uint32_t *exact, struct ibr_error *err)
{
	const struct ibr_fabric *f = st->f;
	const struct ibr_paths *p = st->p;
	uint32_t u0 = 0;

	*lids = 0;
	*exact = 0;
	while (u0 < p->num_units) {
		uint32_t u1 = ibr_paths_dest_end(p, u0), d, k = 0, per_dst;
		const struct ibr_end_port *e;
		struct ibr_dest_paths dp;
		bool ex = false;
		d = ibr_unit_dst_switch(f, p, u0);
		/* the final hop: to the destination CA (any CA of d for
		 * switch units: none of the paths splits on it) */
		e = &f->end_ports[p->per_ca ? p->dst[u0] : f->sw_cas[f->sw_ca_start[d]]];
		ibr_dest_set_fill(&st->set, p, u0, u1, e->sw, e->sw_port, &dp);
		if (ibr_lid_assign(st->assigner, &dp, o, st->color, &k, &ex, err))
			return -1;
		per_dst = p->per_ca ? 1 : f->sw_ca_start[d + 1] - f->sw_ca_start[d];
		*lids += (uint64_t)ibr_lids_for_configs(k) * per_dst;
		*exact += ex ? per_dst : 0;
		u0 = u1;
	}
	/* CAs no unit goes to (every other CA on their switch) need 1 */
	for (uint32_t e = 0; e < f->num_end_ports; e++) {
		uint32_t s = f->end_ports[e].sw;
		bool alone = f->sw_ca_start[s + 1] - f->sw_ca_start[s] == f->num_end_ports;
		*lids += alone;
		*exact += alone;
	}
	return 0;
}

static int alloc_study(struct study *st, struct ibr_error *err)
{
	const struct ibr_paths *p = st->p;
	uint32_t most = 1;

	for (uint32_t u0 = 0, u1; u0 < p->num_units; u0 = u1) {
		u1 = ibr_paths_dest_end(p, u0);
		if (u1 - u0 > most)
			most = u1 - u0;
	}
	st->color = malloc(most * sizeof(uint32_t));
	if (!st->color)
		return ibr_error_set(err, "lids: out of memory for %u paths", most);
	if (ibr_dest_set_init(&st->set, p, err))
		return -1;
	return ibr_lid_assigner_new(&st->assigner, st->f->num_switches, err);
}

static void free_study(struct study *st)
{
	ibr_dest_set_free(&st->set);
	free(st->color);
	ibr_lid_assigner_free(st->assigner);
	memset(st, 0, sizeof(*st));
}

struct lids_options {
	bool scheme[2];                       /* by enum ibr_path_scheme */
	bool heuristic[IBR_LA_COUNT];
	struct ibr_path_options paths;
	unsigned ilp_seconds;
	struct ibr_root_choice root;
};

/* The study of one scheme on fabric f. */
static int study_scheme(const struct ibr_fabric *f, const struct ibr_updown *ud,
			const struct lids_options *o, enum ibr_path_scheme scheme,
			struct ibr_error *err)
{
	struct ibr_path_options po = o->paths;
	struct ibr_paths p = { 0 };
	struct study st = { .f = f, .p = &p };
	const char *name = ibr_path_scheme_name(scheme);
	char times[512] = "";
	size_t used = 0;
	uint64_t load = 0;
	double t0;
	int rc = -1;

	po.scheme = scheme;
	t0 = ibr_now_ms();
	if (ibr_paths_compute(f, ud, &po, &p, err) || max_load(f, &p, &load, err))
		goto out;
	printf("paths     %s: %u pairs%s, max link load %" PRIu64 " flows "
	       "(%.2f per machine's unit of traffic), %.1f ms\n", name,
	       p.num_units, p.per_ca ? "" : " of switches", load,
	       f->num_end_ports > 1 ? (double)load / (f->num_end_ports - 1) : 0.0,
	       ibr_now_ms() - t0);
	if (alloc_study(&st, err))
		goto out;
	printf("lids      %s:", name);
	for (unsigned h = 0; h < IBR_LA_COUNT; h++) {
		struct ibr_lid_assign_options la = { h, o->ilp_seconds };
		uint64_t lids;
		uint32_t exact;
		if (!o->heuristic[h])
			continue;
		t0 = ibr_now_ms();
		if (count_lids(&st, &la, &lids, &exact, err))
			goto out;
		printf("%s %s %" PRIu64, used ? "," : "", ibr_lid_heuristic_name(h),
		       lids);
		if (h == IBR_LA_ILP)
			printf(" (exact %u of %u destinations)", exact,
			       f->num_end_ports);
		used += snprintf(times + used, sizeof(times) - used, "%s %s %.1f ms",
				 used ? "," : "", ibr_lid_heuristic_name(h),
				 ibr_now_ms() - t0);
		fflush(stdout);
	}
	printf("\ntime      %s:%s\n", name, times);
	rc = 0;
out:
	free_study(&st);
	ibr_paths_free(&p);
	return rc;
}

static int parse_heuristics(const char *text, bool *on)
{
	char buf[256], *save = NULL;

	if (strcmp(text, "all") == 0) {
		for (unsigned h = 0; h < IBR_LA_COUNT; h++)
			on[h] = h != IBR_LA_ILP || ibr_lid_ilp_available();
		return 0;
	}
	snprintf(buf, sizeof(buf), "%s", text);
	for (unsigned h = 0; h < IBR_LA_COUNT; h++)
		on[h] = false;
	for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		enum ibr_lid_heuristic h;
		if (ibr_lid_heuristic_parse(t, &h))
			return -1;
		on[h] = true;
	}
	return 0;
}

static int cmd_lids(int argc, char **argv);

static const struct cli_option lids_options[] = {
	{ "paths", 0, 'p', "SCHEME", "the path computation to study: "
	  "shortest-widest, path-selection or both (default)" },
	{ "heuristics", 0, 'H', "all|LIST", "LID assignment heuristics, a "
	  "comma-separated list of greedy, split-merge/S, split-merge/L, "
	  "color/S, color/L, ilp (default all; ilp with GLPK)" },
	{ "ilp-seconds", 0, 't', "N", "the ILP's time limit per destination, "
	  "1..86400 seconds (default 2)" },
	{ "k", 0, 'k', "N", "path selection: candidate paths per pair, 1..16 "
	  "(default 16)" },
	{ "pairs", 0, 'P', "ca|switch", "one path per CA pair (default) or per "
	  "switch pair" },
	{ "parts", 0, 'R', "N", "path selection: most-loaded-link-first in N "
	  "parts, 0..8 (default 0: 1 up to 512 switches with CAs, else 2; 1: the "
	  "paper's one sequence)" },
	{ "batches", 0, 'B', "N", "path selection: destination switches in N "
	  "batches, each over the paths of those before, 0..64 (default 0: 1 "
	  "up to 1254 switches with CAs, else one per 1.5 x 2^20 switch pairs; "
	  "1: all at once)" },
	CLI_HELP_OPTION,
	{ NULL, 0, 0, NULL, NULL },
};

const struct cli_command cli_lids = {
	"lids", cmd_lids, "[options] FABRIC...",
	"The LID assignment paper's study: paths' load and every heuristic's "
	"LIDs on each FABRIC.\nPer path scheme the paths' max link load, then "
	"the LIDs every heuristic (and the ILP)\nallocates for them; no tables "
	"are routed.",
	lids_options, cli_fabric_help,
};

static int cmd_lids(int argc, char **argv)
{
	struct lids_options o = {
		.scheme = { true, true }, .paths = { .k = 16, .per_ca = true },
		.ilp_seconds = 2, .root = { .strategy = IBR_ROOT_SM },
	};
	struct ibr_load_options load = { 0 };
	int opt, rc = 0;

	parse_heuristics("all", o.heuristic);
	while ((opt = cli_getopt(argc, argv, &cli_lids)) != -1) {
		switch (opt) {
		case 'p':
			if (strcmp(optarg, "both") == 0) {
				o.scheme[0] = o.scheme[1] = true;
			} else {
				enum ibr_path_scheme s;
				if (ibr_path_scheme_parse(optarg, &s))
					return cli_fail("--paths %s: expected "
							"shortest-widest, path-selection "
							"or both", optarg);
				o.scheme[0] = o.scheme[1] = false;
				o.scheme[s] = true;
			}
			break;
		case 'H':
			if (parse_heuristics(optarg, o.heuristic))
				return cli_fail("--heuristics %s: expected all "
						"or a list of greedy, split-merge/S, "
						"split-merge/L, color/S, color/L, ilp",
						optarg);
			if (o.heuristic[IBR_LA_ILP] && !ibr_lid_ilp_available())
				return cli_fail("--heuristics %s: this build "
						"has no GLPK for the ILP", optarg);
			break;
		case 't':
			if (cli_parse_range("--ilp-seconds", optarg, 1, 86400,
					    &o.ilp_seconds))
				return EXIT_USAGE;
			break;
		case 'k':
			if (cli_parse_range("--k", optarg, 1, 16, &o.paths.k))
				return EXIT_USAGE;
			break;
		case 'R':
			if (cli_parse_range("--parts", optarg, 0, 8,
					    &o.paths.parts))
				return EXIT_USAGE;
			break;
		case 'B':
			if (cli_parse_range("--batches", optarg, 0, 64,
					    &o.paths.batches))
				return EXIT_USAGE;
			break;
		case 'P':
			if (strcmp(optarg, "ca") && strcmp(optarg, "switch"))
				return cli_fail("--pairs %s: expected ca or "
						"switch", optarg);
			o.paths.per_ca = strcmp(optarg, "ca") == 0;
			break;
		default:
			return EXIT_USAGE;
		}
	}
	if (optind == argc)
		return cli_fail("expected one or more FABRIC arguments");
	for (int i = optind; i < argc; i++) {
		struct ibr_fabric *f = cli_load_fabric(argv[i], &load);
		struct ibr_error err = { "" };
		struct ibr_updown ud;
		uint32_t root;
		if (!f)
			return EXIT_USAGE;
		cli_print_fabric(argv[i], f);
		if (ibr_choose_root(f, &o.root, &root, &err) ||
		    ibr_updown_build(f, root, &ud, &err)) {
			cli_error(err.msg);
			ibr_fabric_free(f);
			return EXIT_USAGE;
		}
		for (unsigned s = 0; s < 2 && rc == 0; s++)
			if (o.scheme[s] && study_scheme(f, &ud, &o, s, &err)) {
				cli_error(err.msg);
				rc = EXIT_USAGE;
			}
		ibr_updown_free(&ud);
		ibr_fabric_free(f);
		if (rc)
			break;
	}
	return rc;
}
