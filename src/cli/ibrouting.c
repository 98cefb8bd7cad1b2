/*
 * ibrouting.c - the offline tool: route, verify and generate fabrics
 * without an SM (see ibrouting(1)).
 *
 *   ibrouting route -e ENGINE [options] FABRIC     route, verify, summarise
 *   ibrouting verify [--certificate [--root GUID]] DIR
 *                                                  judge OpenSM-format dumps
 *   ibrouting verify --lfts DUMP_FTS-FILE FABRIC   judge a live fabric's LFTs
 *   ibrouting verify --half H ...                  one LID half of the Double
 *                                                  Scheme's tables (verify_half)
 *   ibrouting generate SPEC [-o FILE]              write a synthetic fabric
 *   ibrouting engines                              list the engines
 *   ibrouting lids FABRIC...                       the LID paper's study (lids.c)
 *   ibrouting transition -e A+B FABRIC             a hybrid's way, offline (transition.c)
 *
 *   ibrouting --version | [COMMAND] --help
 *
 * FABRIC is an ibnetdiscover or ibsim net file (- : standard input), a
 * directory of OpenSM dumps (opensm-subnet.lst and opensm-lfts.dump: the
 * fabric OpenSM discovered, with its LIDs), or gen:SPEC for a fabric made
 * by the generator.  A disconnected file is cut to the part OpenSM would
 * see, and what was left out is said on stderr.  Exit status: 0 success,
 * 1 the verifier found a problem, 2 bad usage or bad input: one line
 * "ibrouting COMMAND: [FILE[:LINE]: ]message" on stderr.  Each command's
 * options are one table (struct cli_command, options.c) that both
 * getopt_long and its --help are made from.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ibrouting/certify.h"
#include "ibrouting/check.h"
#include "ibrouting/double_scheme.h"
#include "ibrouting/dump.h"
#include "ibrouting/engine.h"
#include "ibrouting/ranges.h"
#include "ibrouting/generate.h"
#include "ibrouting/load.h"
#include "ibrouting/metrics.h"
#include "ibrouting/prior.h"
#include "ibrouting/topo_io.h"
#include "ibrouting/topology.h"
#include "ibrouting/verify.h"
#include "ibrouting/walk.h"
#include "cli.h"
#include "util/lines.h"
#include "util/parallel.h"
#include "util/timer.h"

static int cmd_route(int argc, char **argv);
static int cmd_verify(int argc, char **argv);
static int cmd_generate(int argc, char **argv);
static int cmd_engines(int argc, char **argv);

void cli_fabric_help(FILE *out)
{
	fputs("FABRIC: an ibnetdiscover or ibsim net file (- for standard "
	      "input), a directory of OpenSM's\ndumps (opensm-subnet.lst, "
	      "opensm-lfts.dump), or gen:SPEC for a generated fabric\n"
	      "(ibrouting generate --help gives the SPECs).\n", out);
}


static const struct cli_option route_options[] = {
	{ "engine", 'e', 'e', "NAME", "the routing engine (ibrouting engines "
	  "lists them); required" },
	{ "option", 'o', 'o', "KEY=VALUE", "an option of the engine, repeatable "
	  "(ibrouting engines: each engine's, with ranges and defaults)" },
	{ "lmc", 0, 'l', "N", "the subnet's LMC, 0..7 (default: the one the "
	  "file's CA ports give, else 0): 2^N LIDs per CA port; a file's LIDs "
	  "for another LMC move as OpenSM moves them" },
	CLI_ROOT_OPTIONS,
	{ "port-choice", 0, 'P', "balanced|lowest", "among the ports a rule "
	  "allows: the least loaded (default) or the lowest (the papers')" },
	CLI_THREADS_OPTION,
	{ "sm", 0, 'm', "GUID", "node or port GUID the SM runs on: its switch "
	  "for --root-strategy sm, its port's LID first" },
	{ "component", 0, 'c', "GUID", "of a disconnected file, route the part "
	  "of this node or port (default: the SM's, else the first switch's)" },
	{ "dump-dir", 0, 'd', "DIR", "also write OpenSM's dumps and "
	  "ibrouting-dlids.dump into DIR (created if missing)" },
	{ "prior", 0, 'i', "DIR", "the tables the switches held before a change: "
	  "dumps as --dump-dir writes them; fera, colorl and dr keep their routes "
	  "that still hold (option incremental), and the summary counts the "
	  "entries that change" },
	{ "before", 0, 'b', "FABRIC0", "as --prior, the prior tables "
	  "being ENGINE's on FABRIC0 (routed first, with the same options): "
	  "what a change from FABRIC0 to FABRIC does" },
	{ "repeat", 0, 'n', "N", "route N times (1..100000) and report the best "
	  "compute time" },
	{ "print-lfts", 0, 'p', NULL, "after the summary, every entry as "
	  "SWITCH-GUID LID PORT" },
	{ "verbose", 'v', 'v', NULL, "also the engine's own counters and the "
	  "time of each of its phases" },
	CLI_HELP_OPTION,
	{ NULL, 0, 0, NULL, NULL },
};

static const struct cli_option verify_options[] = {
	{ "lfts", 0, 'f', "FILE", "judge the tables dump_fts printed (- for "
	  "standard input) on FABRIC, not the dumps in DIR" },
	{ "lmc", 0, 'l', "N", "the LMC OpenSM ran with, 0..7: OpenSM's dumps do "
	  "not record it (default: ibrouting-dlids.dump's, else the LIDs named)" },
	{ "roots", 0, 'R', "FILE|GUID[,GUID...]", "the root set the tables were "
	  "routed under (root_guid_file form, or GUIDs)" },
	{ "certificate", 0, 'c', NULL, "check the certificate (the plugin's "
	  "default) instead of walking every entry" },
	{ "root", 0, 'r', "GUID", "with --certificate: the root of the "
	  "orientation (default: the SM's switch, else the lowest LID)" },
	{ "half", 0, 'H', "H", "walk only the CA LIDs of LID half H (0 or 1) "
	  "of a Double Scheme's tables; needs LMC >= 1; switch LIDs not walked" },
	CLI_HELP_OPTION,
	{ NULL, 0, 0, NULL, NULL },
};

static const struct cli_option generate_options[] = {
	{ "output", 'o', 'o', "FILE", "write the fabric to FILE (default, and "
	  "-: standard output)" },
	{ "lmc", 0, 'l', "N", "LMC of the LIDs written, 0..7 (default 0)" },
	CLI_HELP_OPTION,
	{ NULL, 0, 0, NULL, NULL },
};

static const struct cli_option engines_options[] = {
	{ "names", 0, 'n', NULL, "the engines' names alone, one a line (for "
	  "scripts)" },
	CLI_HELP_OPTION,
	{ NULL, 0, 0, NULL, NULL },
};

static const struct cli_command route_command = {
	"route", cmd_route, "-e ENGINE [options] FABRIC",
	"Routes FABRIC with ENGINE as the OpenSM plugin would, verifies the "
	"tables, prints a summary.\nExit status 0: verified; 1: the verifier "
	"found a problem; 2: bad usage or input.",
	route_options, cli_fabric_help,
};

static const struct cli_command verify_command = {
	"verify", cmd_verify, "[options] DIR\n       ibrouting verify --lfts "
	"FILE [options] FABRIC",
	"Judges routing tables: OpenSM-format dumps in DIR, or a live fabric's "
	"as dump_fts prints them.\nDIR: written by route --dump-dir or by "
	"OpenSM -D 0x40.  The checks: delivery, loops, credit\nloops, "
	"designated DLIDs.  Exit status 0: sound; 1: a finding; 2: bad usage "
	"or input.",
	verify_options, cli_fabric_help,
};

static const struct cli_command generate_command = {
	"generate", cmd_generate, "[options] SPEC",
	"Writes a synthetic fabric: an ibnetdiscover file with GUIDs and LIDs, "
	"which ibsim serves as is.",
	generate_options, ibr_generate_help,  /* the grammar, from the parser */
};

static const struct cli_command engines_command = {
	"engines", cmd_engines, "[options]",
	"Lists the engines with their -o options (ranges, defaults) and the "
	"hybrids.\nThe OpenSM plugin registers the same engines and hybrids.",
	engines_options, NULL,
};

static const struct cli_command *const commands[] = {
	&route_command, &verify_command, &generate_command, &engines_command,
	&cli_lids, &cli_transition,
};
#define NUM_COMMANDS (sizeof(commands) / sizeof(commands[0]))

int cli_parse_range(const char *opt, const char *text, unsigned min,
		    unsigned max, unsigned *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(text, &end, 0);
	if (errno || *text == '\0' || *end != '\0' || *text == '-' ||
	    v < min || v > max) {
		cli_fail("%s %s: expected a number %u..%u", opt, text, min, max);
		return -1;
	}
	*out = v;
	return 0;
}

int cli_parse_uint(const char *opt, const char *text, unsigned max,
		   unsigned *out)
{
	return cli_parse_range(opt, text, 0, max, out);
}

int cli_parse_guid(const char *opt, const char *text, uint64_t *guid)
{
	char *end;

	errno = 0;
	*guid = strtoull(text, &end, 0);
	if (errno || *text == '\0' || *end != '\0' || *guid == 0) {
		cli_fail("%s %s: expected a non-zero GUID such as "
			 "0x0002c90300001234", opt, text);
		return -1;
	}
	return 0;
}

/* What a disconnected topology lost, on stderr: the tool routes the part
 * OpenSM would see (load.h) and says so, rather than refuse the file. */
static void report_left_out(const char *source, const struct ibr_left_out *l)
{
	char first[3 * 24] = "";
	size_t len = 0;

	if (l->switches + l->cas == 0)
		return;
	for (uint32_t i = 0; i < l->shown; i++)
		len += snprintf(first + len, sizeof(first) - len, "%s0x%016" PRIx64,
				i ? ", " : "", l->first[i]);
	cli_fail("%s: disconnected fabric: routing the part of node "
		"0x%016" PRIx64 "; left out %u switch%s and %u CA%s (%s%s)",
		strcmp(source, "-") ? source : "<stdin>", l->seed_guid,
		l->switches, l->switches == 1 ? "" : "es", l->cas,
		l->cas == 1 ? "" : "s", first,
		l->switches + l->cas > l->shown ? ", ..." : "");
}

/* LIDs a file gave for another LMC than --lmc: moved as OpenSM would move
 * them (lids.h), and said in one line. */
static void report_lid_moves(const char *source, const struct ibr_lid_moves *m,
			     const struct ibr_fabric *f)
{
	char ranges[64] = "one LID per port", fresh[64] = "";

	if (!m->relid)
		return;
	if (f->lmc)
		snprintf(ranges, sizeof(ranges), "CA ports: aligned ranges of %u "
			 "LIDs", 1u << f->lmc);
	if (m->fresh)
		snprintf(fresh, sizeof(fresh), ", %u without one got %s", m->fresh,
			 m->fresh == 1 ? "its own" : "theirs");
	cli_warn("%s: its LIDs are for another LMC than %u; assigned as OpenSM "
		 "assigns them with lmc %u (%s): %u port%s kept the file's LID, "
		 "%u got a new one%s", strcmp(source, "-") ? source : "<stdin>",
		 f->lmc, f->lmc, ranges, m->kept, m->kept == 1 ? "" : "s",
		 m->moved, fresh);
}

struct ibr_fabric *cli_load_fabric(const char *source,
				   const struct ibr_load_options *o)
{
	struct ibr_load_options opts = *o;
	struct ibr_error err = { "" };
	struct ibr_left_out left;
	struct ibr_lid_moves moves;
	struct ibr_fabric *f;

	opts.left_out = &left;
	opts.lid_moves = &moves;
	if (ibr_load(source, &opts, &f, NULL, &err) == 0) {
		for (uint32_t i = 0; i < f->num_notes; i++)
			cli_warn("%s", f->notes[i]);
		report_left_out(source, &left);
		report_lid_moves(source, &moves, f);
		for (uint32_t i = 0; i < f->num_loopbacks; i++) {
			const struct ibr_loopback *l = &f->loopbacks[i];
			const struct ibr_node *n = &f->nodes[l->node];
			cli_warn("%s%sswitch 0x%016" PRIx64 " \"%s\": port %u is "
				 "cabled to its own port %u (a loopback); left out "
				 "of routing", l->origin ? l->origin : "",
				 l->origin ? ": " : "", n->guid, n->desc, l->port,
				 l->peer_port);
		}
		return f;
	}
	cli_error(err.msg[0] ? err.msg : "cannot load fabric");
	return NULL;
}

/* GUID[,GUID...] of option opt into guids (room for cap) */
static int parse_guid_list(const char *opt, const char *text, uint64_t *guids,
			   uint32_t cap, uint32_t *n)
{
	char buf[IBR_OPTION_VALUE_LEN * 64];

	*n = 0;
	if (strlen(text) >= sizeof(buf))
		return cli_fail("%s: the list is too long", opt);
	strcpy(buf, text);
	for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
		if (*n == cap)
			return cli_fail("%s: more than %u GUIDs", opt, cap);
		if (cli_parse_guid(opt, tok, &guids[*n]))
			return EXIT_USAGE;
		(*n)++;
	}
	if (*n == 0)
		return cli_fail("%s %s: expected GUID[,GUID...]", opt, text);
	return 0;
}

int cli_parse_roots(const char *text, struct cli_roots *r)
{
	uint32_t n;

	if (parse_guid_list("--root", text, r->set, IBR_CLI_MAX_ROOTS, &n))
		return EXIT_USAGE;
	r->choice.guid = n == 1 ? r->set[0] : 0;
	r->choice.guid_source = "--root";
	r->choice.set = n > 1 ? r->set : NULL;
	r->choice.set_len = n > 1 ? n : 0;
	r->choice.set_source = n > 1 ? "--root" : NULL;
	/* the chain's next link, as before root sets: the SM's switch */
	r->choice.strategy = IBR_ROOT_SM;
	r->root_given = true;
	return 0;
}

int cli_parse_root_list(const char *text, uint64_t *guids, uint32_t cap,
			uint32_t *n)
{
	FILE *in = fopen(text, "r");

	*n = 0;
	/* a value that cannot be a GUID list names a file: say why it did
	 * not open rather than judge the path as a GUID */
	if (!in && text[strspn(text, "0123456789abcdefABCDEFxX,")] != '\0')
		return cli_fail("--roots %s: cannot open: %s (nor is it "
				"GUID[,GUID...])", text, strerror(errno));
	if (!in)
		return parse_guid_list("--roots", text, guids, cap, n) ?
		       EXIT_USAGE : 0;
	/* root_guid_file: a GUID a line, '#' comments, as OpenSM reads it;
	 * through the readers' line reader (lines.h: its limits, file:line) */
	{
		struct ibr_lines l;
		struct ibr_error err = { "" };
		int rc = 0, got;
		ibr_lines_init(&l, in, text);
		while (rc == 0 && (got = ibr_lines_next(&l, &err)) > 0) {
			char *p = l.line + strspn(l.line, " \t"), *end;
			p[strcspn(p, " \t#")] = '\0';
			if (!*p)
				continue;
			if (*n == cap) {
				rc = cli_fail("--roots %s: more than 1024 GUIDs",
					      text);
				break;
			}
			errno = 0;
			guids[*n] = strtoull(p, &end, 0);
			if (errno || *end || guids[*n] == 0) {
				rc = cli_fail("%s:%u: expected a GUID, found "
					      "\"%s\"", text, l.lineno, p);
				break;
			}
			(*n)++;
		}
		if (rc == 0 && got < 0) {
			cli_error(err.msg);
			rc = EXIT_USAGE;
		}
		ibr_lines_free(&l);
		fclose(in);
		return rc;
	}
}

int cli_parse_threads(const char *text, struct cli_roots *r)
{
	return cli_parse_range("--threads", text, 1, IBR_MAX_THREADS,
			       &r->threads);
}

/* "OPT ARG: expected WANT" on stderr; -1. */
static int bad_value(const char *opt, const char *arg, const char *want)
{
	cli_fail("%s %s: expected %s", opt, arg, want);
	return -1;
}

int cli_routing_option(int c, const char *arg, struct cli_roots *roots,
		       struct ibr_load_options *load)
{
	switch (c) {
	case 'r':
		return cli_parse_roots(arg, roots) ? -1 : 1;
	case 's':
		if (ibr_root_strategy_parse(arg, &roots->choice.strategy))
			return bad_value("--root-strategy", arg,
					 "auto, sm, lowest-lid or center");
		roots->strategy_given = true;
		return 1;
	case 'f':
		if (ibr_root_fallback_parse(arg, &roots->choice.fallback))
			return bad_value("--root-fallback", arg,
					 "next or refuse");
		return 1;
	case 'P':
		if (ibr_port_choice_parse(arg, &roots->port_choice))
			return bad_value("--port-choice", arg,
					 "balanced or lowest");
		return 1;
	case 'j':
		return cli_parse_threads(arg, roots) ? -1 : 1;
	case 'l':
		if (cli_parse_uint("--lmc", arg, IBR_MAX_LMC, &load->lmc))
			return -1;
		load->lmc_given = true;
		return 1;
	case 'm':
		return cli_parse_guid("--sm", arg, &load->sm_guid) ? -1 : 1;
	default:
		return 0;
	}
}

int cli_roots_check(const struct cli_roots *roots)
{
	if (roots->root_given && roots->strategy_given) {
		cli_fail("--root and --root-strategy both choose the root: "
			 "give one");
		return -1;
	}
	return 0;
}

int cli_ctx_init(const struct ibr_fabric *f, const struct cli_roots *r,
		 const struct ibr_options *options, struct ibr_route_ctx *ctx,
		 const char **how)
{
	static char words[512];
	struct ibr_error err = { "" };
	const struct ibr_roots *roots = &ctx->roots;
	struct ibr_root_choice choice = r->choice;

	/* auto's measure (roots.h) on the workers the engines get */
	choice.threads = ibr_threads_or_available(r->threads);
	if (ibr_ctx_init(ctx, f, &choice, options, &err))
		return cli_fail("%s", err.msg);
	ctx->port_choice = r->port_choice;
	ctx->threads = ibr_threads_or_available(r->threads);
	if (!how)
		return 0;
	snprintf(words, sizeof(words), "%s", roots->how);
	for (uint32_t i = 0; i < roots->num_passed && i < IBR_ROOT_NOTES; i++) {
		const struct ibr_root_note *n = &roots->passed[i];
		size_t used = strlen(words);
		cli_warn("%s 0x%016" PRIx64 " %s; the root is the next of the "
			 "chain: %s", n->source, n->guid, n->why, roots->how);
		snprintf(words + used, sizeof(words) - used, "; %s 0x%016" PRIx64
			 " %s", n->source, n->guid, n->why);
	}
	if (roots->replaced[0])
		cli_warn("%s", roots->replaced);
	if (roots->unreached)
		cli_warn("%u %s cannot reach %" PRIu64 " (root, host switch) "
			 "%s going down (links below them are gone): management "
			 "routes carry those switches' own traffic to those hosts; "
			 "hosts reach every host%s", roots->roots_unreaching,
			 PLURAL(roots->roots_unreaching, "root", "roots"),
			 roots->unreached, PLURAL(roots->unreached, "pair", "pairs"),
			 f->sm_node != IBR_NONE ? " and every switch reaches "
			 "the SM" : "");
	*how = words;
	return 0;
}

static uint32_t count_links(const struct ibr_fabric *f)
{
	return f->sw_adj_start[f->num_switches] / 2;
}

/* "lmc 2", the LMC in use: the CA ports' (the file's, --lmc's, the
 * dump's), or "lmc 0-2" where a file gave its ports different ones. */
static const char *lmc_text(const struct ibr_fabric *f, char *buf, size_t len)
{
	struct ibr_lid_count c;

	ibr_fabric_count_lids(f, &c);
	if (c.ca && c.lmc_min != c.lmc_max)
		snprintf(buf, len, "lmc %u-%u", c.lmc_min, c.lmc_max);
	else
		snprintf(buf, len, "lmc %u", c.ca ? c.lmc_min : f->lmc);
	return buf;
}

/* "14592 entries: 48 switches x 304 LIDs (112 base + 192 above)": what
 * the tables hold, the one way the engine, verify and certify lines
 * count it (ibr_lid_count): every LID some end-point owns, its range's
 * base or above it, at every switch. */
static const char *entries_text(uint64_t switches, uint64_t lids,
				uint64_t above, char *buf, size_t len)
{
	int n = snprintf(buf, len, "%" PRIu64 " %s: %" PRIu64 " %s x %" PRIu64
			 " %s", switches * lids, PLURAL(switches * lids, "entry",
							"entries"),
			 switches, PLURAL(switches, "switch", "switches"), lids,
			 PLURAL(lids, "LID", "LIDs"));

	if (above && n > 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, " (%" PRIu64 " base + %"
			 PRIu64 " above)", lids - above, above);
	return buf;
}

/* The root set the tables were routed under, listed one way wherever a
 * line names it (roots, verify, certify): "16 roots: 0x..., 0x..., 0x...
 * and 13 more", the lowest GUIDs first; "root 0x..." for one; NULL when
 * r records none. */
static const char *roots_text(const struct ibr_fabric *f,
			      const struct ibr_result *r, char *buf, size_t len)
{
	uint32_t n = r->num_roots, *sorted;
	int used;

	if (n == 0)
		return NULL;
	if (n == 1) {
		snprintf(buf, len, "root 0x%016" PRIx64,
			 ibr_switch(f, r->roots[0])->guid);
		return buf;
	}
	sorted = malloc(n * sizeof(*sorted));
	used = snprintf(buf, len, "%u roots: ", n);
	if (!sorted || used < 0 || (size_t)used >= len) {
		free(sorted);
		snprintf(buf, len, "%u roots", n);
		return buf;
	}
	memcpy(sorted, r->roots, n * sizeof(*sorted));
	/* insertion sort by GUID: root sets are small */
	for (uint32_t i = 1; i < n; i++)
		for (uint32_t j = i; j > 0 && ibr_switch(f, sorted[j - 1])->guid >
					    ibr_switch(f, sorted[j])->guid; j--) {
			uint32_t t = sorted[j];
			sorted[j] = sorted[j - 1];
			sorted[j - 1] = t;
		}
	ibr_roots_format(f, sorted, n, 3, buf + used, len - (size_t)used);
	free(sorted);
	return buf;
}

void cli_print_fabric(const char *source, const struct ibr_fabric *f)
{
	uint32_t links = count_links(f);
	struct ibr_lid_count c;
	char lmc[32];

	/* every count the other lines use: entries are LIDs x switches,
	 * DLIDs are CA LIDs (route and verify alike) */
	ibr_fabric_count_lids(f, &c);
	cli_printf("fabric    %s: %u %s, %u %s, %u %s; %s\n",
		   strcmp(source, "-") ? source : "<stdin>",
		   f->num_switches, PLURAL(f->num_switches, "switch", "switches"),
		   f->num_end_ports, PLURAL(f->num_end_ports, "CA port", "CA ports"),
		   links, PLURAL(links, "inter-switch link", "inter-switch links"),
		   lmc_text(f, lmc, sizeof(lmc)));
	cli_printf("fabric    %u LIDs: %u of the CA ports", c.owned, c.ca);
	if (c.ca && c.lmc_min == c.lmc_max)
		cli_printf(" (%u each)", 1u << c.lmc_min);
	else if (c.ca)
		cli_printf(" (%u-%u each)", 1u << c.lmc_min, 1u << c.lmc_max);
	cli_printf(", %u of the switches; max LID %u", c.sw, f->max_lid);
	if (c.unowned)
		cli_printf(", %u owned by none", c.unowned);
	cli_printf("\n");
}

/* "paths     path lengths of the 42 flows (links: flows): 3:9 4:16 ..." */
static void print_path_lengths(const struct ibr_metrics *m, uint64_t flows)
{
	cli_printf("paths     path lengths of the %" PRIu64 " %s (links: flows):",
		   flows, PLURAL(flows, "flow", "flows"));
	for (unsigned len = 0; len <= IBR_MAX_PATH_LEN; len++)
		if (m->path_len_hist[len])
			cli_printf(" %u:%" PRIu64, len, m->path_len_hist[len]);
	cli_printf("\n");
}

/* "bound": the load no routing of the fabric goes below (metrics.h), so
 * a max link load reads against what is possible, not only against
 * another engine's. */
static void print_bound(const struct ibr_fabric *f)
{
	struct ibr_topology t;
	struct ibr_error err;
	uint32_t worst, group = IBR_NONE;
	uint64_t bound = ibr_metrics_load_bound(f, &worst), cut = 0, links;

	/* a Dragonfly+'s groups send over their global links */
	if (ibr_topology_recognise(f, &t, &err) == 0 && t.group) {
		cut = ibr_metrics_group_bound(f, t.group, t.groups, &group,
					      &links);
		if (cut > bound) {
			uint64_t in = 0;
			for (uint32_t s = 0; s < f->num_switches; s++)
				if (t.group[s] == group)
					in += f->sw_ca_start[s + 1] -
					      f->sw_ca_start[s];
			cli_printf("bound     no routing loads a link under %" PRIu64
				   " flows: a group of the Dragonfly+ sends %" PRIu64
				   " CA ports' flows out over %" PRIu64 " global "
				   "links\n", cut, in, links);
		}
	}
	ibr_topology_free(&t);
	if (cut > bound)
		return;
	if (worst == IBR_NONE)
		cli_printf("bound     no routing loads a link under %" PRIu64
			   " flows: every host receives that many\n", bound);
	else
		cli_printf("bound     no routing loads a link under %" PRIu64
			   " flows: switch 0x%016" PRIx64 " sends %u hosts' flows "
			   "out over %u links\n", bound,
			   f->nodes[f->sw_node[worst]].guid,
			   f->sw_ca_start[worst + 1] - f->sw_ca_start[worst],
			   f->sw_adj_start[worst + 1] - f->sw_adj_start[worst]);
}

/* Link load and path lengths under uniform all-to-all CA traffic along
 * the designated DLIDs, as the verifier measured them.  Tables with
 * undelivered walks (another engine's, read back: updn leaves switches
 * without hosts unable to reach some hosts) are still measured: if every
 * CA pair is delivered the load is whole, said with why the verdict
 * fails; else it is over the pairs delivered, said as such, so engines
 * that give up on part of a fabric compare where they do route. */
static void print_load(const struct ibr_fabric *f, const struct ibr_result *r,
		       const struct ibr_verify_report *rep)
{
	const struct ibr_metrics *m = &rep->designated;
	struct ibr_metrics partial;
	struct ibr_error err;
	bool delivers = ibr_verify_delivers(rep);

	if (!delivers) {
		if (ibr_metrics_compute(f, r, &partial, &err)) {
			cli_printf("load      not measured: some walks are not "
				   "delivered (%s)\n", err.msg);
			return;
		}
		m = &partial;
	}
	if (m->unrouted_flows && m->unrouted_flows == rep->pairs_owed_none) {
		cli_printf("load      max link load %" PRIu64 " flows (of %" PRIu64
			   " CA-to-CA flows, one per ordered pair with a route)"
			   "\n", m->max_link_load, m->flows - m->unrouted_flows);
		cli_printf("load      mean path %.2f links; %" PRIu64 " CA pairs "
			   "owe no route: their switches have no root above both "
			   "(CAs on spines or roots, such as aggregation nodes)\n",
			   m->mean_path_len, m->unrouted_flows);
		print_path_lengths(m, m->flows - m->unrouted_flows);
	} else if (m->unrouted_flows) {
		cli_printf("load      over delivered pairs only: max link load %"
			   PRIu64 " flows, %" PRIu64 " of %" PRIu64 " CA pairs not "
			   "delivered\n", m->max_link_load, m->unrouted_flows,
			   m->flows);
	} else {
		cli_printf("load      max link load %" PRIu64 " flows (of %" PRIu64
			   " CA-to-CA flows, one per ordered pair)\n",
			   m->max_link_load, m->flows);
		cli_printf("load      mean path %.2f links, %u DLIDs used of %u CA "
			   "LIDs%s\n", m->mean_path_len, m->lids_used, m->ca_lids,
			   delivers ? "" : "; every CA pair delivered (walks from "
			   "some switches are not, which no CA pair's flow takes)");
		print_path_lengths(m, m->flows);
	}
	print_bound(f);
	/* not faults: a root set of several switches leaves some (switch,
	 * LID) pairs no up*-down* route (management.h) */
	if (rep->management)
		cli_printf("manage    %" PRIu64 " of %" PRIu64 " entries route "
			   "switches' management traffic only, outside "
			   "up*/down*: expected\n", rep->management, rep->walks);
	if (rep->no_legal_path)
		cli_printf("manage    %" PRIu64 " of %" PRIu64 " entries towards "
			   "CA ports left unset: no root above both, and data "
			   "would take them\n", rep->no_legal_path, rep->walks);
}

/* The verify and certify lines' common tail: the entries owed no route
 * (data would take them) and the LIDs nobody owns, when there are. */
static void print_owed_unowned(uint64_t owed, uint64_t unowned)
{
	if (owed)
		cli_printf(", %" PRIu64 " owe no route", owed);
	if (unowned)
		cli_printf("; %" PRIu64 " %s owned by none left unset",
			   unowned, PLURAL(unowned, "LID", "LIDs"));
}

/* "LABEL under 16 roots: ..." (roots_text), or that none is known. */
static void print_roots_under(const char *label, const struct ibr_fabric *f,
			      const struct ibr_result *r)
{
	char roots[160];

	if (roots_text(f, r, roots, sizeof(roots)))
		cli_printf("%-9s under %s\n", label, roots);
	else
		cli_printf("%-9s no root set known (none recorded, no --roots): "
			   "every switch owes every LID a route\n", label);
}

/* The verifier's verdict on r, in lines of at most 100 columns: what it
 * walked (entries_text, as the engine's line counts it), what became of
 * the walks, the dependency graph and the designated pairs, the root set
 * the walks were judged under; a failure's counts and first findings. */
static int print_verdict(const struct ibr_fabric *f, const struct ibr_result *r,
			 const struct ibr_verify_report *rep, double ms)
{
	uint64_t findings = ibr_verify_findings(rep);
	uint64_t S = rep->lids ? rep->walks / rep->lids : f->num_switches;
	char entries[160];

	entries_text(S, rep->lids, rep->lids_above, entries, sizeof(entries));
	if (findings == 0) {
		cli_printf("verify    OK: %s (%.3f ms)\n", entries, ms);
		cli_printf("verify    %" PRIu64 " delivered", rep->walks -
			   rep->no_legal_path);
		if (rep->management)
			cli_printf(" (%" PRIu64 " on management routes)",
				   rep->management);
		print_owed_unowned(rep->no_legal_path, rep->unowned_lids);
		cli_printf("; no loop\n");
		cli_printf("verify    %" PRIu64 " channel dependencies, acyclic; %"
			   PRIu64 " designated pairs delivered%s\n",
			   rep->dependencies, rep->designated.flows -
			   rep->pairs_owed_none, rep->pairs_owed_none ?
			   ", the others owe no route" : "");
		print_roots_under("verify", f, r);
		return 0;
	}
	cli_printf("verify    FAILED: %" PRIu64 " %s (%" PRIu64 " bad ports, %"
		   PRIu64 " loops, %" PRIu64 " unreachable, %" PRIu64
		   " dependency cycles,\n", findings,
		   PLURAL(findings, "finding", "findings"), rep->bad_port,
		   rep->loops, rep->unreachable, rep->cycles);
	cli_printf("verify    %" PRIu64 " bad designated DLIDs, %" PRIu64
		   " data entries off up*-down*)\n", rep->bad_designated,
		   rep->illegal_data);
	cli_printf("verify    of %s (%.3f ms)\n", entries, ms);
	print_roots_under("verify", f, r);
	for (unsigned i = 0; i < rep->num_messages; i++)
		cli_printf("  %s\n", rep->messages[i]);
	return EXIT_FINDINGS;
}

/* The certificate's verdict (certify.h): legal up/down routes under the
 * orientation from r's root set, which certifies delivery, no loop and an
 * acyclic channel dependency graph without building the graph.  Counted
 * and listed as the verifier's verdict is (print_verdict). */
static int print_certificate(const struct ibr_fabric *f,
			     const struct ibr_result *r,
			     const struct ibr_certify_report *rep, double ms)
{
	uint64_t findings = ibr_certify_findings(rep);
	uint32_t root = r->root;
	struct ibr_result one = { .num_roots = 1, .roots = &root };
	char entries[160];

	entries_text(f->num_switches, rep->lids, rep->lids_above, entries,
		     sizeof(entries));
	if (r->num_roots == 0) /* the root chosen for it (cmd_verify) */
		r = &one;
	if (findings == 0) {
		cli_printf("certify   OK: %s (%.3f ms)\n", entries, ms);
		cli_printf("certify   %" PRIu64 " legal up/down", rep->entries -
			   rep->no_legal_path - rep->management);
		if (rep->management)
			cli_printf(", %" PRIu64 " management routes",
				   rep->management);
		print_owed_unowned(rep->no_legal_path, rep->unowned_lids);
		cli_printf("\n");
		print_roots_under("certify", f, r);
		return 0;
	}
	cli_printf("certify   FAILED: %" PRIu64 " %s (%" PRIu64 " bad ports, %"
		   PRIu64 " unreachable, %" PRIu64 " down-up turns, %" PRIu64
		   " bad designated DLIDs,\n", findings,
		   PLURAL(findings, "finding", "findings"), rep->bad_port,
		   rep->unreachable, rep->down_up, rep->bad_designated);
	cli_printf("certify   %" PRIu64 " management loops, %" PRIu64 " data "
		   "entries off up*-down*)\n", rep->loops, rep->illegal_data);
	cli_printf("certify   of %s (%.3f ms)\n", entries, ms);
	print_roots_under("certify", f, r);
	for (unsigned i = 0; i < rep->num_messages; i++)
		cli_printf("  %s\n", rep->messages[i]);
	return EXIT_FINDINGS;
}

/* What the plugin's default check policy (check.h, verify_method
 * certificate) would say of these tables before OpenSM's push. */
static void print_policy(const struct ibr_fabric *f, const struct ibr_engine *e,
			 const struct ibr_result *r, unsigned threads)
{
	struct ibr_check check;
	struct ibr_error err = { "" };

	if (ibr_check_tables(f, r, e, IBR_CHECK_CERTIFICATE, threads, &check,
			     &err))
		cli_printf("check     could not run: %s\n", err.msg);
	else if (ibr_verify_findings(&check.rep))
		cli_printf("check     the plugin would refuse these tables (%" PRIu64
			   " %s)\n", ibr_verify_findings(&check.rep),
			   PLURAL(ibr_verify_findings(&check.rep), "finding",
				  "findings"));
	else
		cli_printf("check     the plugin would push them: %s\n",
			   ibr_check_verdict_text(check.verdict));
}

/* The fewest LIDs a CA port has: 2^LMC of the port with the lowest LMC
 * (every port has the subnet's LMC unless a file gives others). */
static unsigned fewest_ca_lids(const struct ibr_fabric *f)
{
	unsigned fewest = 1u << IBR_MAX_LMC;

	for (uint32_t e = 0; e < f->num_end_ports; e++) {
		const struct ibr_end_port *ep = &f->end_ports[e];
		unsigned n = ibr_port_lid_count(ibr_port(f, ep->node, ep->port));
		if (n < fewest)
			fewest = n;
	}
	return fewest;
}

/* The LIDs above the bases, completed by the routing layer (ranges.h)
 * and measured (ibr_ranges_measure): a second `lids` line. */
static void print_ranges(const struct ibr_fabric *f,
			 const struct ibr_range_figures *g)
{
	char lmc[32];

	if (!g->completed)
		return;
	cli_printf("lids      at %s: every LID of every range routed from "
		   "every switch", lmc_text(f, lmc, sizeof(lmc)));
	if (g->owed_none)
		cli_printf(" but %" PRIu64 " of %" PRIu64 " entries above a base, "
			   "where no legal route exists (no root above both)",
			   g->owed_none, g->entries);
	cli_printf(" (%" PRIu64 " entries set beside the designated paths)",
		   g->set);
	if (g->pairs)
		cli_printf("; the %u LIDs of a range take %.2f distinct routes on "
			   "average per (switch, CA port) pair, %.0f%% of the "
			   "pairs more than one", g->lids,
			   (double)g->routes / (double)g->pairs,
			   100.0 * (double)g->pairs_diverse / (double)g->pairs);
	if (g->held_changed)
		cli_printf("; %" PRIu64 " designated entries changed (no legal "
			   "route around them)", g->held_changed);
	cli_printf("\n");
}

/* A multi-LID engine's LIDs: those it would need without the LMC's limit
 * against the CA LIDs the LMC gives, and what became of the pairs whose
 * destination's range had none left (the engine's overflow figure), so
 * "CA LIDs needed" beside the LIDs assigned explains itself.  Below the
 * LMC it needs the engine still routes (dr as FERa) and says so. */
static void print_lid_budget(const struct ibr_fabric *f,
			     const struct ibr_engine *e,
			     const struct ibr_result *r)
{
	uint64_t needed, over;
	unsigned per_port;
	struct ibr_lid_count c;

	if (!e->overflow_stat || f->num_end_ports == 0)
		return;
	needed = ibr_stat_get(r, IBR_STAT_CA_LIDS_NEEDED, 0);
	over = ibr_stat_get(r, e->overflow_stat, 0);
	per_port = fewest_ca_lids(f);
	ibr_fabric_count_lids(f, &c);
	if (per_port < 1u << e->min_lmc) {
		cli_warn("%s needs lmc >= %u for several LIDs per destination; "
			 "with %u LID%s per CA port it is %s (without a limit it "
			 "would need %" PRIu64 " CA LIDs)", e->name, e->min_lmc,
			 per_port, per_port == 1 ? "" : "s",
			 e->below_min_lmc ? e->below_min_lmc :
			 "routing on base LIDs only", needed);
		return;
	}
	cli_printf("lids      %" PRIu64 " needed without the LMC's limit, %u CA "
		   "LIDs assigned (", needed, c.ca);
	if (c.ca == (uint64_t)per_port * f->num_end_ports)
		cli_printf("lmc %u: %u for each of %u CA %s); ", f->lmc, per_port,
			   f->num_end_ports, PLURAL(f->num_end_ports, "port", "ports"));
	else
		cli_printf("each CA port's range as the file gives it); ");
	if (over)
		cli_printf("%" PRIu64 " %s found no LID of their destination's range "
			   "and %s\n", over, PLURAL(over, "pair", "pairs"),
			   e->overflow_fate);
	else
		cli_printf("every pair found a LID of its destination's range\n");
	print_ranges(f, &r->ranges);
}

/* What `auto` recognised (topology.h) and each tolerance, a line each. */
static void print_topology(const struct ibr_roots *roots)
{
	const struct ibr_topology *t = &roots->topology;

	if (!roots->recognised)
		return;
	cli_printf("topology  %s\n", t->summary);
	for (uint32_t i = 0; i < t->num_notes; i++)
		cli_printf("topology  %s\n", t->notes[i]);
}

static void print_route_summary(const struct ibr_fabric *f,
				const struct ibr_engine *e,
				const struct ibr_result *r, const char *how,
				double best_ms, unsigned repeat, bool verbose)
{
	const struct ibr_node *root = ibr_switch(f, r->root);
	struct ibr_lid_count c;
	char stats[512], set[160], phases[512], entries[160];

	ibr_fabric_count_lids(f, &c);
	if (r->num_roots > 1) {
		/* listed as verify and certify list them (roots_text) */
		cli_printf("roots     %u switches (%s)\n", r->num_roots, how);
		cli_printf("roots     %s\n", roots_text(f, r, set, sizeof(set)));
	} else {
		cli_printf("root      switch 0x%016" PRIx64 " \"%s\" LID %u (%s)\n",
			   root->guid, root->desc, ibr_switch_lid(f, r->root), how);
	}
	/* the engine's own counters, in its words: -v */
	if (verbose && r->stats.count)
		cli_printf("engine    %s: %s\n", e->name,
			   ibr_stats_format(r, stats, sizeof(stats)));
	/* the tables it fills, counted as verify and certify count them */
	cli_printf("engine    %s: %s\n", e->name,
		   entries_text(f->num_switches, c.owned, c.above, entries,
				sizeof(entries)));
	print_lid_budget(f, e, r);
	if (repeat > 1)
		cli_printf("time      %.3f ms compute (best of %u runs)\n", best_ms,
			   repeat);
	else
		cli_printf("time      %.3f ms compute\n", best_ms);
	if (verbose && r->stats.phases)
		cli_printf("phases    %s%s\n", repeat > 1 ? "the last run's: " : "",
			   ibr_phases_format(r, phases, sizeof(phases)));
}

/* The prior tables: read from --prior DIR, or routed on --before
 * FABRIC0 with the run's engine, options and roots.  0, or the exit
 * status after a message. */
static int load_prior(const char *dir, const char *before,
		      const struct ibr_load_options *load,
		      const struct cli_roots *roots,
		      const struct ibr_options *opts, const struct ibr_engine *e,
		      struct ibr_fabric **pf, struct ibr_result *pr)
{
	struct ibr_error err = { "" };
	struct ibr_route_ctx ctx;
	const char *how;
	int rc;

	if (dir) {
		if (ibr_dump_read_lmc(dir, load->lmc_given ? (int)load->lmc : -1,
				      pf, pr, &err) == 0)
			return 0;
		cli_error(err.msg);
		return cli_fail("--prior %s: cannot read the prior tables", dir);
	}
	*pf = cli_load_fabric(before, load);
	if (!*pf)
		return EXIT_USAGE;
	if (cli_ctx_init(*pf, roots, opts, &ctx, &how))
		return EXIT_USAGE;
	rc = ibr_route(&ctx, e, pr, &err);
	ibr_ctx_free(&ctx);
	if (rc)
		return cli_fail("--before %s: %s", before, err.msg);
	return 0;
}

/* --prior: what the switches there before would be sent. */
static void print_prior_change(const struct ibr_prior *p,
			       const struct ibr_fabric *f,
			       const struct ibr_updown *ud,
			       const struct ibr_result *r)
{
	struct ibr_prior_change c;
	int rc = ibr_prior_difference(p, f, ud, r, &c);
	double whole = c.compared ? 100.0 / c.compared : 0.0;

	cli_printf("prior     %" PRIu64 " of %" PRIu64 " entries changed (%.3f%%), "
		   "in %" PRIu64 " LFT blocks, on the switches there before; %"
		   PRIu64 " of them had to (%.3f%%): their port leads to a link or "
		   "switch gone", c.entries, c.compared, whole * c.entries,
		   c.blocks, c.forced, whole * c.forced);
	if (rc == 0)
		cli_printf("; %" PRIu64 " (%.3f%%) change in any legal tables under "
			   "this orientation: also the LIDs gone and the down hops "
			   "into switches left without a route down", c.required,
			   whole * c.required);
	cli_printf("\n");
}

/* --print-lfts: "SWITCH-GUID LID PORT" per routed entry, the form the
 * end-to-end tests compare with what switches report. */
static void print_tables(const struct ibr_fabric *f, const struct ibr_result *r)
{
	for (uint32_t s = 0; s < f->num_switches; s++)
		for (uint32_t lid = 1; lid < r->num_lids; lid++)
			if (ibr_entry(r, s, lid) != IBR_NO_PATH)
				cli_printf("0x%016" PRIx64 " %u %u\n",
					   ibr_switch(f, s)->guid, lid,
					   ibr_entry(r, s, lid));
}

static int cmd_route(int argc, char **argv)
{
	static struct cli_roots roots = { .choice.strategy = IBR_ROOT_AUTO };
	struct ibr_options engine_opts = { 0 };
	const struct ibr_engine *e = NULL, *prov, *fin;
	const char *dump_dir = NULL, *prior_dir = NULL, *before = NULL, *how = "";
	struct ibr_load_options load = { 0 };
	struct ibr_route_ctx ctx;
	struct ibr_prior prior = { 0 };
	uint64_t prior_root = 0;
	struct ibr_fabric *prior_f = NULL;
	struct ibr_result prior_r = { 0 };
	unsigned repeat = 1;
	bool print_lfts = false, verbose = false;
	struct ibr_fabric *f;
	struct ibr_result r;
	struct ibr_error err = { "" };
	struct ibr_verify_report rep;
	struct ibr_certify_report cert;
	char names[256];
	double best = 0, verify_ms, certify_ms = 0;
	int c, taken, rc;

	while ((c = cli_getopt(argc, argv, &route_command)) != -1) {
		taken = cli_routing_option(c, optarg, &roots, &load);
		if (taken < 0)
			return EXIT_USAGE;
		if (taken > 0)
			continue;
		switch (c) {
		case 'e':
			e = ibr_engine_find(optarg);
			if (!e && ibr_hybrid_split(optarg, strlen(optarg),
						   &prov, &fin) == 0)
				return cli_fail("%s is a hybrid: try `ibrouting "
						"transition -e %s`", optarg, optarg);
			if (!e)
				return cli_fail("unknown engine \"%s\" (known: %s%s)",
						optarg, ibr_engine_names(names,
									 sizeof(names)),
						strchr(optarg, '+') ? "; a hybrid "
						"PROVISIONAL+FINAL of two of them runs "
						"with ibrouting transition" : "");
			break;
		case 'o':
			if (ibr_options_add(&engine_opts, optarg, NULL, &err))
				return cli_fail("-o: %s", err.msg);
			break;
		case 'd':
			dump_dir = optarg;
			break;
		case 'i':
			prior_dir = optarg;
			break;
		case 'b':
			before = optarg;
			break;
		case 'n':
			if (cli_parse_range("--repeat", optarg, 1, 100000, &repeat))
				return EXIT_USAGE;
			break;
		case 'c':
			if (cli_parse_guid("--component", optarg,
					   &load.component_guid))
				return EXIT_USAGE;
			break;
		case 'p':
			print_lfts = true;
			break;
		case 'v':
			verbose = true;
			break;
		default:
			return EXIT_USAGE;
		}
	}
	if (cli_roots_check(&roots))
		return EXIT_USAGE;
	if (!e)
		return cli_fail("choose an engine with -e (%s)",
				ibr_engine_names(names, sizeof(names)));
	if (optind != argc - 1)
		return cli_fail("expected one FABRIC argument");
	if (prior_dir && before)
		return cli_fail("--prior and --before both give the prior tables: "
				"give one");
	if (ibr_options_check(&engine_opts, e, &err))
		return cli_fail("%s", err.msg);
	/* auto measures its root for an engine that balances (roots.h) */
	roots.choice.unmeasured = !e->measures_root;
	f = cli_load_fabric(argv[optind], &load);
	if (!f)
		return EXIT_USAGE;
	if ((prior_dir || before) &&
	    (rc = load_prior(prior_dir, before, &load, &roots, &engine_opts, e,
			     &prior_f, &prior_r)) != 0) {
		ibr_result_free(&prior_r);
		ibr_fabric_free(prior_f);
		ibr_fabric_free(f);
		return rc;
	}
	prior = (struct ibr_prior){ .f = prior_f, .r = &prior_r };
	if (prior_f && prior_r.num_roots == 1) {
		/* the prior root, as the plugin keeps it (roots.h) */
		prior_root = ibr_switch(prior_f, prior_r.roots[0])->guid;
		roots.choice.prior_roots = &prior_root;
		roots.choice.prior_roots_len = 1;
	}
	if (cli_ctx_init(f, &roots, &engine_opts, &ctx, &how)) {
		ibr_result_free(&prior_r);
		ibr_fabric_free(prior_f);
		ibr_fabric_free(f);
		return EXIT_USAGE;
	}
	if (prior_f)
		ctx.prior = &prior;
	cli_print_fabric(argv[optind], f);
	print_topology(&ctx.roots);
	for (unsigned i = 0; i < repeat; i++) {
		if (i > 0)
			ibr_result_free(&r);
		if (ibr_route(&ctx, e, &r, &err)) {
			cli_error(err.msg);
			ibr_ctx_free(&ctx);
			ibr_result_free(&prior_r);
			ibr_fabric_free(prior_f);
			ibr_fabric_free(f);
			return EXIT_USAGE;
		}
		if (i == 0 || r.stats.compute_ms < best)
			best = r.stats.compute_ms;
	}
	/* measured after the routing, outside its time */
	if (r.ranges.completed &&
	    ibr_ranges_measure(f, &ctx.updown, &r,
			       ibr_threads_or_available(roots.threads), &err))
		cli_error(err.msg);
	print_route_summary(f, e, &r, how, best, repeat, verbose);
	if (prior_f)
		print_prior_change(&prior, f, &ctx.updown, &r);
	ibr_ctx_free(&ctx);
	verify_ms = ibr_now_ms();
	rc = ibr_verify(f, &r, NULL, &rep, &err);
	verify_ms = ibr_now_ms() - verify_ms;
	if (rc == 0) {
		certify_ms = ibr_now_ms();
		rc = ibr_certify(f, &r, &cert, &err);
		certify_ms = ibr_now_ms() - certify_ms;
	}
	if (rc == 0 && dump_dir && mkdir(dump_dir, 0777) != 0 && errno != EEXIST)
		rc = ibr_error_set(&err, "--dump-dir %s: %s", dump_dir,
				   strerror(errno));
	if (rc == 0 && dump_dir)
		rc = ibr_dump_write(dump_dir, f, &r, &err);
	if (rc) {
		cli_error(err.msg);
		rc = EXIT_USAGE;
	} else {
		print_load(f, &r, &rep);
		rc = print_verdict(f, &r, &rep, verify_ms);
		/* informational: the verifier's verdict is the exit status */
		print_certificate(f, &r, &cert, certify_ms);
		print_policy(f, e, &r, ibr_threads_or_available(roots.threads));
		if (print_lfts)
			print_tables(f, &r);
		if (dump_dir)
			cli_printf("dumps     %s/opensm-subnet.lst, opensm-lfts.dump, "
				   "opensm.fdbs, ibrouting-dlids.dump\n", dump_dir);
	}
	ibr_result_free(&r);
	ibr_result_free(&prior_r);
	ibr_fabric_free(prior_f);
	ibr_fabric_free(f);
	return rc;
}

/* --lfts: the fabric from FABRIC (its GUIDs and LIDs: ibnetdiscover's
 * output, or OpenSM's dumps), the tables from dump_fts's output. */
static int read_live_tables(const char *lfts, const char *source,
			    struct ibr_fabric **fp, struct ibr_result *r)
{
	static const struct ibr_load_options none;
	struct ibr_error err = { "" };
	bool from_stdin = strcmp(lfts, "-") == 0;
	FILE *in;

	if (from_stdin && strcmp(source, "-") == 0)
		return cli_fail("--lfts - and FABRIC - cannot both be standard "
				"input");
	*fp = cli_load_fabric(source, &none);
	if (!*fp)
		return -1;
	in = from_stdin ? stdin : fopen(lfts, "r");
	if (!in) {
		ibr_fabric_free(*fp);
		*fp = NULL;
		return cli_fail("%s: cannot open: %s", lfts, strerror(errno));
	}
	if (ibr_fts_read(in, from_stdin ? "<stdin>" : lfts, *fp, r, &err)) {
		cli_error(err.msg);
		ibr_fabric_free(*fp);
		*fp = NULL;
	}
	if (!from_stdin)
		fclose(in);
	return *fp ? 0 : -1;
}

/* --roots: the root set the tables read back were routed under, so the
 * checks know which switch-LID pairs owe no route (verify.h). */
static int set_read_roots(const struct ibr_fabric *f, struct ibr_result *r,
			  const uint64_t *guids, uint32_t n)
{
	struct ibr_root_choice c = { .set = guids, .set_len = n,
				     .set_source = "--roots",
				     .fallback = IBR_ROOT_FALLBACK_REFUSE };
	struct ibr_roots roots;
	struct ibr_error err = { "" };

	if (ibr_roots_resolve(f, &c, &roots, &err) ||
	    ibr_result_set_roots(r, roots.sw, roots.count, &err)) {
		ibr_roots_free(&roots);
		cli_error(err.msg);
		return -1;
	}
	ibr_roots_free(&roots);
	return 0;
}

/* --half H: the walks to the CA LIDs of LID half H alone, on the half's
 * view (double_scheme.h: the core's, as the plugin's check makes it) with
 * the half's columns extracted from the full tables.  Switch LIDs are not
 * walked: they carry the function in force, which the tables alone do not
 * name (during the Double Scheme the other half's function may be it).
 * Nor are designated DLIDs checked: ibrouting-dlids.dump holds the SA's,
 * of the half in force only, and leaves out the pairs on base LIDs and
 * each port's pair with itself, so the file cannot say which half it
 * is; the walks of a renamed LID are checked without them. */
static int verify_half(const struct ibr_fabric *f, const struct ibr_result *r,
		       unsigned half)
{
	const struct ibr_verify_options opts = { .ca_lids_only = true };
	struct ibr_error err = { "" };
	struct ibr_verify_report rep;
	struct ibr_fabric *view = NULL;
	struct ibr_result hr;
	unsigned n = 1u << (f->lmc - 1);   /* LMC >= 1: cmd_verify's check */
	double ms;
	int rc;

	if (ibr_ds_view(f, half, &view, &err) ||
	    ibr_ds_extract(f, view, r, &hr, &err)) {
		ibr_fabric_free(view);
		cli_error(err.msg);
		return EXIT_USAGE;
	}
	free(hr.designated.offset);
	memset(&hr.designated, 0, sizeof(hr.designated));
	cli_printf("half      %u of LMC %u: base+%u..%u of every CA port (%u %s "
		   "per port); switch LIDs and designated DLIDs not checked: "
		   "they are the function in force's\n", half, f->lmc, half * n,
		   half * n + n - 1, n, PLURAL(n, "LID", "LIDs"));
	ms = ibr_now_ms();
	if (ibr_verify(view, &hr, &opts, &rep, &err)) {
		cli_error(err.msg);
		rc = EXIT_USAGE;
	} else {
		print_load(view, &hr, &rep);
		rep.unowned_lids = 0; /* the view's are the other half's */
		rc = print_verdict(view, &hr, &rep, ibr_now_ms() - ms);
	}
	ibr_result_free(&hr);
	ibr_fabric_free(view);
	return rc;
}

static int cmd_verify(int argc, char **argv)
{
	static uint64_t root_set[IBR_CLI_MAX_ROOTS];
	uint32_t num_roots = 0;
	const char *lfts = NULL;
	struct ibr_root_choice root = { .guid = 0, .strategy = IBR_ROOT_SM };
	struct ibr_error err = { "" };
	struct ibr_verify_report rep;
	struct ibr_certify_report cert;
	struct ibr_fabric *f = NULL;
	struct ibr_result r;
	bool certificate = false, lmc_given = false, half_given = false;
	unsigned lmc = 0, half = 0;
	double ms;
	int c, rc;

	while ((c = cli_getopt(argc, argv, &verify_command)) != -1) {
		switch (c) {
		case 'c':
			certificate = true;
			break;
		case 'r':
			if (cli_parse_guid("--root", optarg, &root.guid))
				return EXIT_USAGE;
			break;
		case 'f':
			lfts = optarg;
			break;
		case 'R':
			if (cli_parse_root_list(optarg, root_set,
						IBR_CLI_MAX_ROOTS, &num_roots))
				return EXIT_USAGE;
			break;
		case 'l':
			if (cli_parse_uint("--lmc", optarg, IBR_MAX_LMC, &lmc))
				return EXIT_USAGE;
			lmc_given = true;
			break;
		case 'H':
			if (cli_parse_uint("--half", optarg, 1, &half))
				return EXIT_USAGE;
			half_given = true;
			break;
		default:
			return EXIT_USAGE;
		}
	}
	if (half_given && certificate)
		return cli_fail("--half walks one LID half; the certificate "
				"judges every entry: give one of them");
	if (optind != argc - 1)
		return cli_fail("%s", lfts ? "expected one FABRIC argument" :
				"expected one directory with opensm-subnet.lst "
				"and opensm-lfts.dump");
	if (root.guid && !certificate)
		return cli_fail("--root is the certificate's orientation; "
			    "add --certificate");
	if (lfts && lmc_given)
		return cli_fail("--lmc is for OpenSM's dumps: with --lfts the "
				"FABRIC file gives the LIDs and their LMC");
	if (lfts ? read_live_tables(lfts, argv[optind], &f, &r) :
	    ibr_dump_read_lmc(argv[optind], lmc_given ? (int)lmc : -1, &f, &r,
			      &err)) {
		if (!lfts)
			cli_error(err.msg);
		return EXIT_USAGE;
	}
	if (half_given && f->lmc < 1) {
		ibr_result_free(&r);
		ibr_fabric_free(f);
		return cli_fail("--half %u: %s has LMC 0, no LID halves (give "
				"--lmc, the LMC OpenSM ran with: 1 or more)",
				half, argv[optind]);
	}
	cli_print_fabric(argv[optind], f);
	if (num_roots && set_read_roots(f, &r, root_set, num_roots)) {
		ibr_result_free(&r);
		ibr_fabric_free(f);
		return EXIT_USAGE;
	}
	if (half_given) {
		rc = verify_half(f, &r, half);
		ibr_result_free(&r);
		ibr_fabric_free(f);
		return rc;
	}
	ms = ibr_now_ms();
	/* the certificate's orientation: --root, else the roots the dump
	 * records (ibrouting-dlids.dump), else the SM's switch the dump
	 * names, else the lowest LID (as route's default) */
	if (certificate &&
	    ((!num_roots && root.guid &&
	      ibr_result_set_roots(&r, NULL, 0, &err)) ||
	     (!num_roots && !r.num_roots &&
	      ibr_choose_root(f, &root, &r.root, &err)) ||
	     ibr_certify(f, &r, &cert, &err))) {
		cli_error(err.msg);
		rc = EXIT_USAGE;
	} else if (certificate) {
		rc = print_certificate(f, &r, &cert, ibr_now_ms() - ms);
	} else if (ibr_verify(f, &r, NULL, &rep, &err)) {
		cli_error(err.msg);
		rc = EXIT_USAGE;
	} else {
		print_load(f, &r, &rep);
		rc = print_verdict(f, &r, &rep, ibr_now_ms() - ms);
	}
	ibr_result_free(&r);
	ibr_fabric_free(f);
	return rc;
}

/* "-o KEY=N" and "(1..8; default 2)" or "(a, b or c; default a)". */
static void print_engine_option(const struct ibr_option_spec *o)
{
	char key[48], accepts[160] = "";
	size_t used = 0;

	if (o->max > o->min) {
		snprintf(key, sizeof(key), "-o %s=N", o->key);
		snprintf(accepts, sizeof(accepts), "%u..%u; ", o->min, o->max);
	} else {
		snprintf(key, sizeof(key), "-o %s=%s", o->key,
			 o->choices ? "WORD" : "VALUE");
		for (const char *const *c = o->choices; c && *c; c++)
			used += (size_t)snprintf(accepts + used, sizeof(accepts) - used,
						 "%s%s", *c, c[1] ? (c[2] ? ", " :
						 " or ") : "; ");
	}
	cli_printf("             %-22s %s (%sdefault %s)\n", key, o->help, accepts,
		   o->def);
}

/* The registry, with each engine's options (what -e and -o accept) and
 * the hybrids the plugin registers; --names: the engines' names alone. */
static int cmd_engines(int argc, char **argv)
{
	bool names_only = false;
	int c;

	while ((c = cli_getopt(argc, argv, &engines_command)) != -1)
		if (c == 'n')
			names_only = true;
		else
			return EXIT_USAGE;
	if (optind != argc)
		return cli_fail("expected no argument, found \"%s\"", argv[optind]);
	if (!names_only)
		cli_printf("Engines (ibrouting route -e NAME; opensm.conf: "
			   "routing_engine NAME):\n");
	for (unsigned i = 0; ibr_engines[i]; i++) {
		const struct ibr_engine *e = ibr_engines[i];
		if (names_only) {
			cli_printf("%s\n", e->name);
			continue;
		}
		cli_printf("  %-10s %s\n", e->name, e->summary);
		for (const struct ibr_option_spec *o = e->options; o && o->key; o++)
			print_engine_option(o);
	}
	if (names_only)
		return 0;
	cli_printf("Hybrids (ibrouting transition -e NAME; opensm.conf: "
		   "routing_engine NAME): the first\nengine's tables right after a "
		   "change, the second's a re-route later, in safe steps:\n");
	for (unsigned i = 0; ibr_default_hybrids[i]; i++) {
		const struct ibr_engine *p, *f;
		const char *h = ibr_default_hybrids[i];
		if (ibr_hybrid_split(h, strlen(h), &p, &f) == 0)
			cli_printf("  %-12s %s, then %s\n", h, p->name, f->name);
	}
	cli_printf("  and PROVISIONAL+FINAL of any two engines above that "
		   "routing_engine names\n"
		   "Options go to opensm-plugin.conf as ENGINE_KEY VALUE "
		   "(colorl_paths shortest-widest).\n");
	return 0;
}

static int cmd_generate(int argc, char **argv)
{
	const char *out_path = NULL;
	struct ibr_error err = { "" };
	struct ibr_fabric *f;
	struct ibr_load_options load = { .lmc_given = true };
	char source[4096];
	FILE *out = stdout;
	int c, rc;

	while ((c = cli_getopt(argc, argv, &generate_command)) != -1) {
		switch (c) {
		case 'o':
			out_path = optarg;
			break;
		case 'l':
			if (cli_parse_uint("--lmc", optarg, IBR_MAX_LMC, &load.lmc))
				return EXIT_USAGE;
			break;
		default:
			return EXIT_USAGE;
		}
	}
	if (optind != argc - 1)
		return cli_fail("expected one SPEC (ibrouting generate --help "
				"gives them)");
	if (out_path && strcmp(out_path, "-") == 0)
		out_path = NULL; /* -o -: standard output, as without -o */
	snprintf(source, sizeof(source), "gen:%s", argv[optind]);
	f = cli_load_fabric(source, &load);
	if (!f)
		return EXIT_USAGE;
	if (out_path && !(out = fopen(out_path, "w"))) {
		cli_fail("cannot write %s: %s", out_path, strerror(errno));
		ibr_fabric_free(f);
		return EXIT_USAGE;
	}
	rc = ibr_fabric_write_net(f, out, &err);
	if (out != stdout && fclose(out) != 0 && rc == 0)
		rc = ibr_error_set(&err, "cannot write %s: %s", out_path,
				   strerror(errno));
	if (rc)
		cli_error(err.msg);
	ibr_fabric_free(f);
	return rc ? EXIT_USAGE : 0;
}

/* --help or -h among a command's arguments (before a "--"). */
static bool wants_help(int argc, char **argv)
{
	for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
			return true;
	return false;
}

/* `ibrouting --help`: the commands, a line each. */
static void print_commands(FILE *out)
{
	fputs("Usage: ibrouting COMMAND [options] ARGUMENTS\n"
	      "Computes, verifies and compares up*/down* routing tables "
	      "offline, with the engines of the\nibrouting OpenSM plugin.\n\n"
	      "Commands:\n", out);
	for (size_t i = 0; i < NUM_COMMANDS; i++) {
		char line[512];
		snprintf(line, sizeof(line), "  %-11s %.*s", commands[i]->name,
			 (int)strcspn(commands[i]->what, "\n"),
			 commands[i]->what);
		cli_fold(out, line);
	}
	fputs("\nibrouting COMMAND --help describes a command and every option "
	      "it takes;\nibrouting --version prints the version.\n", out);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		print_commands(stderr);
		return EXIT_USAGE;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		print_commands(stdout);
		return 0;
	}
	if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0) {
		cli_printf("ibrouting %s\n", PACKAGE_VERSION);
		return 0;
	}
	for (size_t i = 0; i < NUM_COMMANDS; i++) {
		const struct cli_command *c = commands[i];
		if (strcmp(argv[1], c->name) != 0)
			continue;
		cli_command = c->name;
		if (wants_help(argc - 1, argv + 1)) {
			cli_print_help(stdout, c);
			return 0;
		}
		return c->run(argc - 1, argv + 1);
	}
	return cli_fail("unknown command \"%s\" (ibrouting --help lists "
			"them)", argv[1]);
}
