/*
 * cli.h - what the commands of ibrouting(1) share: messages and option
 * tables (options.c), numbers, loading and describing a fabric
 * (ibrouting.c).  Every helper that fails has printed one "ibrouting
 * COMMAND: ..." line on stderr.
 */
#ifndef IBROUTING_CLI_H
#define IBROUTING_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "ibrouting/engine.h"
#include "ibrouting/fabric.h"
#include "ibrouting/load.h"
#include "ibrouting/updown.h"

#define EXIT_FINDINGS 1
#define EXIT_USAGE 2

/* A noun's form for a count: PLURAL(n, "switch", "switches"). */
#define PLURAL(n, one, many) ((n) == 1 ? (one) : (many))

/* The command being run ("route", ...), set by main: every message of
 * the tool reads "ibrouting COMMAND: ...", a file's "ibrouting COMMAND:
 * FILE:LINE: ...", a warning's "ibrouting COMMAND: WRN: ..." (options.c). */
extern const char *cli_command;

/* Prints "ibrouting COMMAND: " and the message on stderr, one line;
 * returns EXIT_USAGE. */
int cli_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Prints "ibrouting COMMAND: msg" on stderr. */
void cli_error(const char *msg);
/* Prints "ibrouting COMMAND: WRN: " and the message on stderr. */
void cli_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The widest line the tool prints on stdout, in columns (options.c),
 * unless IBROUTING_WIDTH says otherwise. */
#define CLI_WIDTH 100
/* IBROUTING_WIDTH (40 or more; 0: lines never folded, for scripts that
 * read them line by line), else CLI_WIDTH. */
size_t cli_width(void);
/* text's lines onto out, each wider than cli_width() folded at spaces, the
 * continuation lines indented to where its text starts: after a label and
 * a gap of two or more spaces ("verify    ..."), else its own indent. */
void cli_fold(FILE *out, const char *text);
/* printf onto stdout, folded as cli_fold folds: a line may be made by
 * several calls, and goes out once its newline is given. */
void cli_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* One option of a command: what getopt_long takes and the line --help
 * prints for it, from one table (options.c). */
struct cli_option {
	const char *name;    /* long name, without "--" */
	char letter;         /* short option, or 0 */
	int val;             /* what cli_getopt returns for it */
	const char *arg;     /* its value's placeholder ("N"); NULL: none */
	const char *help;    /* one line */
};

/* A command: its name, its arguments after the options, what it does,
 * its options ({NULL}-terminated, "help" among them) and what its help
 * says after them (NULL: nothing). */
struct cli_command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *args;
	const char *what;
	const struct cli_option *options;
	void (*more)(FILE *out);
};

/* getopt_long over c's options: the option's val, -1 after the last;
 * '?' after one line on stderr for an unknown option, a missing value or
 * a value given to an option without one.  --help (or an abbreviation of
 * it) prints the help and exits 0. */
int cli_getopt(int argc, char **argv, const struct cli_command *c);
/* "Usage: ibrouting COMMAND ARGS", what it does, then every option in a
 * line: "  -e, --engine NAME   help", folded (cli_fold). */
void cli_print_help(FILE *out, const struct cli_command *c);
/* The line --help prints for every command: "  -h, --help  ..." */
#define CLI_HELP_OPTION { "help", 'h', 'h', NULL, "print this help and exit" }
/* The root chain's options, as route and transition take them
 * (cli_parse_roots and friends read them). */
#define CLI_ROOT_OPTIONS \
	{ "root", 0, 'r', "GUID[,GUID...]", "root switch by node GUID, several " \
	  "a root set; then the SM's switch (not with --root-strategy)" }, \
	{ "root-strategy", 0, 's', "HOW", "the roots without --root: auto " \
	  "(default), sm, lowest-lid or center" }, \
	{ "root-fallback", 0, 'f', "next|refuse", "an unusable --root: the next " \
	  "link of the chain (default), or an error" }
/* The engines' worker threads, as route and transition take them. */
#define CLI_THREADS_OPTION \
	{ "threads", 'j', 'j', "N", "worker threads for the engines, 1..256 " \
	  "(default: the CPUs this process may use); the tables do not " \
	  "depend on it" }
/* What FABRIC may be, for the help of the commands that take one. */
void cli_fabric_help(FILE *out);

/* A number min..max, or -1 after "OPT TEXT: expected a number min..max". */
int cli_parse_range(const char *opt, const char *text, unsigned min,
		    unsigned max, unsigned *out);
/* A number 0..max, as cli_parse_range. */
int cli_parse_uint(const char *opt, const char *text, unsigned max,
		   unsigned *out);
/* A non-zero GUID (0x... or decimal), or -1 after a message naming the
 * option. */
int cli_parse_guid(const char *opt, const char *text, uint64_t *guid);

#define IBR_CLI_MAX_ROOTS 1024
/* A finalized fabric (load.h); NULL after a message.  Each loopback cable
 * the fabric left out of routing is a "WRN" line on stderr, with the
 * file:line that declared it where known. */
struct ibr_fabric *cli_load_fabric(const char *source,
				   const struct ibr_load_options *o);
/* Root options as the route and transition commands take them. */
struct cli_roots {
	struct ibr_root_choice choice;
	uint64_t set[IBR_CLI_MAX_ROOTS];
	bool root_given, strategy_given;
	enum ibr_port_choice port_choice;
	unsigned threads;       /* --threads; 0: the CPUs we may use */
};
/* --threads N into r->threads, or -1 after a message. */
int cli_parse_threads(const char *text, struct cli_roots *r);
/* The options route and transition share (-r, -s, -f, -P, -j, -l, -m):
 * 1 when c is one of them and arg was taken into roots or load, 0 when c
 * is another option, -1 after a message on stderr for a bad value. */
int cli_routing_option(int c, const char *arg, struct cli_roots *roots,
		       struct ibr_load_options *load);
/* After the options: -1 after a message when they contradict (--root
 * and --root-strategy), else 0. */
int cli_roots_check(const struct cli_roots *roots);

/* --root GUID[,GUID...]: one GUID is the chain's `guid`, several a root
 * set; after them the chain goes on to the SM's switch, as the plugin's
 * goes on from root_guid_file. */
int cli_parse_roots(const char *text, struct cli_roots *r);
/* --roots LIST for tables read back: a file in root_guid_file form when
 * one exists by that name, else GUIDs separated by commas; *n set. */
int cli_parse_root_list(const char *text, uint64_t *guids, uint32_t cap,
			uint32_t *n);
/* A routing context from the core's root chain (roots.h), as the plugin's:
 * a GUID that names no switch is passed over with a "WRN" line on stderr
 * naming it and why, and so is a root set that leaves hosts apart; *how
 * (the summary's words for the roots) says so.  With --root-fallback
 * refuse an unusable GUID is an error: EXIT_USAGE after a message.  how
 * NULL: the roots are another run's, already said (a hybrid's final pass
 * routes from its provisional pass's roots), so no WRN line repeats. */
int cli_ctx_init(const struct ibr_fabric *f, const struct cli_roots *r,
		 const struct ibr_options *options, struct ibr_route_ctx *ctx,
		 const char **how);
/* The "fabric    SOURCE: N switches, ..." summary line. */
void cli_print_fabric(const char *source, const struct ibr_fabric *f);

/* ibrouting lids (lids.c). */
extern const struct cli_command cli_lids;
/* ibrouting transition (transition.c). */
extern const struct cli_command cli_transition;

#endif
