/*
 * transition.c - `ibrouting transition`: what a hybrid engine does inside
 * OpenSM after a topology change, offline (see ibrouting(1)).
 *
 *   ibrouting transition -e PROVISIONAL+FINAL [--lmc N] [--root GUID]
 *                        [--root-strategy S] [--root-fallback next|refuse]
 *                        [--sm GUID] FABRIC
 *
 * Routes FABRIC with the provisional engine, then with the final one from
 * the same root; checks the union of the two (ibr_verify_union: what the
 * switches may hold while OpenSM sends the final tables); then walks the
 * safe steps (transition.h) from one to the other, checking each step's
 * union with the tables before it and each step's tables on their own,
 * and prints per step the entries and LFT blocks (64 LIDs of one switch:
 * what OpenSM sends) that change.  Exit status 0 when the final tables
 * are reached with every check clean, 1 when a check fails or the way is
 * blocked, 2 on bad usage or input.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ibrouting/engine.h"
#include "ibrouting/transition.h"
#include "ibrouting/updown.h"
#include "ibrouting/verify.h"
#include "cli.h"

#define MAX_STEPS 64
#define LFT_BLOCK 64    /* LIDs per LinearForwardingTable block */

/* Entries and LFT blocks in which a and b differ. */
static void difference(const struct ibr_result *a, const struct ibr_result *b,
		       uint64_t *entries, uint64_t *blocks)
{
	*entries = *blocks = 0;
	for (uint32_t s = 0; s < a->num_switches; s++)
		for (uint32_t first = 0; first < a->num_lids; first += LFT_BLOCK) {
			uint64_t in_block = 0;
			for (uint32_t l = first; l < a->num_lids && l < first + LFT_BLOCK; l++)
				in_block += ibr_entry(a, s, l) != ibr_entry(b, s, l);
			*entries += in_block;
			*blocks += in_block > 0;
		}
}

static int split_hybrid(const char *name, const struct ibr_engine **prov,
			const struct ibr_engine **fin)
{
	char names[256];

	if (!strchr(name, '+'))
		return cli_fail("-e wants PROVISIONAL+FINAL, two of %s (e.g. "
				"pira+fera)", ibr_engine_names(names, sizeof(names)));
	if (ibr_hybrid_split(name, strlen(name), prov, fin))
		return cli_fail("unknown engine in \"%s\" (known: %s)", name,
				ibr_engine_names(names, sizeof(names)));
	return 0;
}

static void print_findings(const char *what, const struct ibr_verify_report *rep)
{
	printf("%s %" PRIu64 " %s, %" PRIu64 " %s%s%s\n", what, rep->loops,
	       PLURAL(rep->loops, "LID can loop", "LIDs can loop"), rep->cycles,
	       PLURAL(rep->cycles, "dependency cycle", "dependency cycles"),
	       rep->num_messages ? ": " : "",
	       rep->num_messages ? rep->messages[0] : "");
}

/* The steps from cur (changed in place) to fin; returns the exit status. */
static int walk(const struct ibr_fabric *f, struct ibr_result *cur,
		const struct ibr_result *fin)
{
	struct ibr_error err = { "" };
	struct ibr_verify_report rep;
	struct ibr_updown ud;
	struct ibr_result next;
	uint64_t all_entries = 0, all_blocks = 0, left = 1;
	unsigned step = 0;
	int rc = 0;

	if (ibr_updown_of_result(f, fin, &ud, &err) ||
	    ibr_result_init(&next, f, &err)) {
		cli_error(err.msg);
		return EXIT_USAGE;
	}
	while (left > 0 && rc == 0) {
		uint64_t moved, entries, blocks;

		if (step == MAX_STEPS) {
			printf("steps     blocked: more than %u steps\n", MAX_STEPS);
			rc = EXIT_FINDINGS;
			break;
		}
		if (ibr_transition_step(f, &ud, cur, fin, &next, &moved, &left,
					&err) ||
		    ibr_verify_union(f, cur, &next, &rep, &err)) {
			cli_error(err.msg);
			rc = EXIT_USAGE;
			break;
		}
		if (moved == 0) {
			printf("steps     blocked after %u %s: %" PRIu64 " %s "
			       "left\n", step, PLURAL(step, "step", "steps"), left,
			       PLURAL(left, "entry", "entries"));
			rc = EXIT_FINDINGS;
			break;
		}
		difference(cur, &next, &entries, &blocks);
		step++;
		printf("step %-4u %" PRIu64 " %s in %" PRIu64 " LFT %s, %" PRIu64
		       " %s left; ", step, entries, PLURAL(entries, "entry",
		       "entries"), blocks, PLURAL(blocks, "block", "blocks"), left,
		       PLURAL(left, "entry", "entries"));
		if (ibr_verify_findings(&rep)) {
			print_findings("union with the tables before:", &rep);
			rc = EXIT_FINDINGS;
			break;
		}
		if (ibr_verify(f, &next, NULL, &rep, &err)) {
			cli_error(err.msg);
			rc = EXIT_USAGE;
			break;
		}
		if (ibr_verify_findings(&rep)) {
			printf("tables: %" PRIu64 " %s: %s\n",
			       ibr_verify_findings(&rep),
			       PLURAL(ibr_verify_findings(&rep), "finding",
				      "findings"), rep.messages[0]);
			rc = EXIT_FINDINGS;
			break;
		}
		printf("union verified, tables verified\n");
		all_entries += entries;
		all_blocks += blocks;
		memcpy(cur->col, next.col, (size_t)cur->num_switches * cur->num_lids);
	}
	if (rc == 0)
		printf("steps     %u to the final tables: %" PRIu64 " entries, %"
		       PRIu64 " LFT blocks sent in all\n", step, all_entries,
		       all_blocks);
	ibr_result_free(&next);
	ibr_updown_free(&ud);
	return rc;
}

static int cmd_transition(int argc, char **argv);

static const struct cli_option transition_options[] = {
	{ "engine", 'e', 'e', "PROVISIONAL+FINAL", "the hybrid: two engines "
	  "joined by + (ibrouting engines lists them); required" },
	{ "lmc", 0, 'l', "N", "the subnet's LMC, 0..7 (default 0), as route's" },
	{ "root", 0, 'r', "GUID[,GUID...]", "root switch by node GUID, several "
	  "a root set; then the SM's switch (not with --root-strategy)" },
	{ "root-strategy", 0, 's', "HOW", "the roots without --root: auto "
	  "(default), sm, lowest-lid or center" },
	{ "root-fallback", 0, 'f', "next|refuse", "an unusable --root: the next "
	  "link of the chain (default), or an error" },
	{ "port-choice", 0, 'P', "balanced|lowest", "among the ports a rule "
	  "allows: the least loaded (default) or the lowest" },
	{ "sm", 0, 'm', "GUID", "node or port GUID the SM runs on, as route's" },
	CLI_HELP_OPTION,
	{ NULL, 0, 0, NULL, NULL },
};

const struct cli_command cli_transition = {
	"transition", cmd_transition, "-e PROVISIONAL+FINAL [options] FABRIC",
	"A hybrid engine's way after a change, offline: both tables, their "
	"union, the safe steps.\nRoutes FABRIC with both engines from the "
	"same roots, checks their union, and walks the\nsafe steps from one to "
	"the other.\nExit status 0: the final tables reached, every check "
	"clean; 1: a check failed or no safe\nstep is left; 2: bad usage or "
	"input.",
	transition_options, cli_fabric_help,
};

static int cmd_transition(int argc, char **argv)
{
	static struct cli_roots roots = { .choice.strategy = IBR_ROOT_AUTO };
	struct ibr_route_ctx ctx;
	const char *how = "";
	char set[160];
	struct ibr_load_options load = { 0 };
	const struct ibr_engine *prov = NULL, *fin = NULL;
	struct ibr_fabric *f;
	struct ibr_result a, b;
	struct ibr_verify_report rep;
	struct ibr_error err = { "" };
	uint64_t entries, blocks;
	int c, rc;

	while ((c = cli_getopt(argc, argv, &cli_transition)) != -1) {
		switch (c) {
		case 'e':
			if (split_hybrid(optarg, &prov, &fin))
				return EXIT_USAGE;
			break;
		case 'r':
			if (cli_parse_roots(optarg, &roots))
				return EXIT_USAGE;
			break;
		case 's':
			if (ibr_root_strategy_parse(optarg, &roots.choice.strategy))
				return cli_fail("--root-strategy %s: expected auto, "
						"sm, lowest-lid or center", optarg);
			roots.strategy_given = true;
			break;
		case 'f':
			if (ibr_root_fallback_parse(optarg, &roots.choice.fallback))
				return cli_fail("--root-fallback %s: expected next "
						"or refuse", optarg);
			break;
		case 'P':
			if (ibr_port_choice_parse(optarg, &roots.port_choice))
				return cli_fail("--port-choice %s: expected "
						"balanced or lowest", optarg);
			break;
		case 'l':
			if (cli_parse_uint("--lmc", optarg, IBR_MAX_LMC, &load.lmc))
				return EXIT_USAGE;
			load.lmc_given = true;
			break;
		case 'm':
			if (cli_parse_guid("--sm", optarg, &load.sm_guid))
				return EXIT_USAGE;
			break;
		default:
			return EXIT_USAGE;
		}
	}
	if (roots.root_given && roots.strategy_given)
		return cli_fail("--root and --root-strategy both choose the "
				"root: give one");
	if (!prov)
		return cli_fail("choose -e PROVISIONAL+FINAL (e.g. "
				"pira+fera)");
	if (optind != argc - 1)
		return cli_fail("expected one FABRIC argument");
	f = cli_load_fabric(argv[optind], &load);
	if (!f)
		return EXIT_USAGE;
	if (cli_ctx_init(f, &roots, NULL, &ctx, &how)) {
		ibr_fabric_free(f);
		return EXIT_USAGE;
	}
	cli_print_fabric(argv[optind], f);
	/* one context: the final pass routes under the provisional one's
	 * orientation, as the plugin's hybrid does */
	if (ibr_route(&ctx, prov, &a, &err)) {
		cli_error(err.msg);
		ibr_ctx_free(&ctx);
		ibr_fabric_free(f);
		return EXIT_USAGE;
	}
	if (ibr_route(&ctx, fin, &b, &err)) {
		cli_error(err.msg);
		ibr_result_free(&a);
		ibr_ctx_free(&ctx);
		ibr_fabric_free(f);
		return EXIT_USAGE;
	}
	ibr_ctx_free(&ctx);
	printf("passes    provisional %s %.3f ms, final %s %.3f ms, root%s "
	       "%s (%s)\n", prov->name, a.stats.compute_ms, fin->name,
	       b.stats.compute_ms, a.num_roots > 1 ? "s" : "",
	       ibr_roots_format(f, a.roots, a.num_roots, 4, set, sizeof(set)),
	       how);
	difference(&a, &b, &entries, &blocks);
	printf("change    %" PRIu64 " of %" PRIu64 " entries (%.2f%%) in %"
	       PRIu64 " LFT blocks\n", entries,
	       (uint64_t)a.num_switches * a.num_lids,
	       100.0 * (double)entries / (double)((uint64_t)a.num_switches * a.num_lids),
	       blocks);
	rc = ibr_verify_union(f, &a, &b, &rep, &err);
	if (rc) {
		cli_error(err.msg);
		rc = EXIT_USAGE;
	} else if (ibr_verify_findings(&rep) == 0) {
		printf("union     provisional and final mixed: no loop, acyclic: "
		       "one push\n");
	} else {
		print_findings("union     provisional and final mixed:", &rep);
		rc = walk(f, &a, &b);
	}
	ibr_result_free(&a);
	ibr_result_free(&b);
	ibr_fabric_free(f);
	return rc;
}
