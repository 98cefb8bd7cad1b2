/*
 * cli.h - what the commands of ibrouting(1) share (ibrouting.c): messages,
 * numbers, loading and describing a fabric.  Every helper that fails has
 * printed one "ibrouting COMMAND: ..." line on stderr.
 */
#ifndef IBROUTING_CLI_H
#define IBROUTING_CLI_H

#include <stdint.h>

#include "ibrouting/fabric.h"
#include "ibrouting/load.h"
#include "ibrouting/updown.h"

#define EXIT_FINDINGS 1
#define EXIT_USAGE 2

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
/* A finalized fabric (load.h); NULL after a message.  Each loopback cable
 * the fabric left out of routing is a "WRN" line on stderr, with the
 * file:line that declared it where known. */
struct ibr_fabric *cli_load_fabric(const char *source,
				   const struct ibr_load_options *o);
/* The tool's root chain, as the plugin's: --root GUID when it is a switch
 * of f, else root->strategy (--root-strategy; sm, the default, is the SM's
 * switch, else the lowest LID).  An unusable GUID is passed over with a
 * "WRN" line on stderr naming it and why, and *how (the summary's words for
 * the root) says so; with IBR_ROOT_FALLBACK_REFUSE it is an error instead:
 * EXIT_USAGE after a message. */
int cli_follow_root_chain(const struct ibr_fabric *f,
			  struct ibr_root_choice *root,
			  enum ibr_root_fallback fallback, const char **how);
/* The "fabric    SOURCE: N switches, ..." summary line. */
void cli_print_fabric(const char *source, const struct ibr_fabric *f);

/* ibrouting lids (lids.c). */
int cmd_lids(int argc, char **argv);
/* ibrouting transition (transition.c). */
int cmd_transition(int argc, char **argv);

#endif
