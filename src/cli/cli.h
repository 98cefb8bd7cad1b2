/*
 * cli.h - what the commands of ibrouting(1) share (ibrouting.c): messages,
 * numbers, loading and describing a fabric.  Every helper that fails has
 * printed one "ibrouting COMMAND: ..." line on stderr.
 */
#ifndef IBROUTING_CLI_H
#define IBROUTING_CLI_H

#include <stdbool.h>
#include <stdint.h>

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
 * FILE:LINE: ...". */
extern const char *cli_command;

/* Prints "ibrouting COMMAND: " and fmt (with a, b) on stderr; returns
 * EXIT_USAGE. */
int cli_fail(const char *fmt, const char *a, const char *b);
/* Prints "ibrouting COMMAND: msg" on stderr. */
void cli_error(const char *msg);
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
};

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
 * refuse an unusable GUID is an error: EXIT_USAGE after a message. */
int cli_ctx_init(const struct ibr_fabric *f, const struct cli_roots *r,
		 const struct ibr_options *options, struct ibr_route_ctx *ctx,
		 const char **how);
/* The "fabric    SOURCE: N switches, ..." summary line. */
void cli_print_fabric(const char *source, const struct ibr_fabric *f);

/* ibrouting lids (lids.c). */
int cmd_lids(int argc, char **argv);
/* ibrouting transition (transition.c). */
int cmd_transition(int argc, char **argv);

#endif
