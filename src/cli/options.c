/*
 * options.c - the command line every command of ibrouting(1) shares:
 * messages, and the option tables that drive both getopt_long and --help.
 *
 * Invariants:
 *   - every line the tool writes on stderr starts "ibrouting COMMAND: "
 *     (errors, "ibrouting COMMAND: WRN: " warnings), "ibrouting: " only
 *     before a command is known; getopt_long's own messages are off
 *     (opterr = 0) and cli_getopt says what was wrong in those words;
 *   - a command's options exist once, in its struct cli_command: the
 *     long options and short letters getopt_long takes are built from the
 *     table, and so is the command's --help, one line per option, so an
 *     option cannot be accepted without being described.
 */
#include <getopt.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

const char *cli_command;

static void print_prefix(void)
{
	if (cli_command)
		fprintf(stderr, "ibrouting %s: ", cli_command);
	else
		fputs("ibrouting: ", stderr);
}

int cli_fail(const char *fmt, ...)
{
	va_list ap;

	print_prefix();
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return EXIT_USAGE;
}

void cli_error(const char *msg)
{
	cli_fail("%s", msg);
}

void cli_warn(const char *fmt, ...)
{
	va_list ap;

	print_prefix();
	fputs("WRN: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* ---- options ---------------------------------------------------------- */

#define MAX_OPTIONS 32

static const struct cli_option *by_val(const struct cli_command *c, int val)
{
	for (const struct cli_option *o = c->options; o->name; o++)
		if (o->val == val)
			return o;
	return NULL;
}

/* "-e, --engine NAME" or "    --lmc N" into buf. */
static int option_words(const struct cli_option *o, char *buf, size_t len)
{
	char letter[8] = "    ";

	if (o->letter)
		snprintf(letter, sizeof(letter), "-%c, ", o->letter);
	return snprintf(buf, len, "%s--%s%s%s", letter, o->name,
			o->arg ? " " : "", o->arg ? o->arg : "");
}

/* The long options whose names start with the `len` bytes of `given`
 * (getopt_long takes an unambiguous abbreviation), "--a, --b" into buf;
 * returns how many. */
static int matches(const struct cli_command *c, const char *given, size_t len,
		   char *buf, size_t cap)
{
	size_t used = 0;
	int n = 0;

	buf[0] = '\0';
	for (const struct cli_option *o = c->options; o->name; o++)
		if (strncmp(o->name, given, len) == 0 && used < cap) {
			used += (size_t)snprintf(buf + used, cap - used, "%s--%s",
						 n ? ", " : "", o->name);
			n++;
		}
	return n;
}

/* What getopt_long returned for an option it refused, in our words: an
 * unknown or ambiguous option, a value missing or one given to an option
 * without. */
static int bad_option(int code, char **argv, const struct cli_command *c)
{
	const char *given = argv[optind - 1];
	const struct cli_option *o = optopt ? by_val(c, optopt) : NULL;
	bool is_long = strncmp(given, "--", 2) == 0;
	size_t len = strcspn(given, "=");
	char words[96], typed[48], known[256];

	if (o && is_long)
		snprintf(typed, sizeof(typed), "--%s", o->name);
	else if (o)
		snprintf(typed, sizeof(typed), "-%c", o->letter);
	if (code == ':' && o) {
		option_words(o, words, sizeof(words));
		return cli_fail("option %s needs a value: %s (ibrouting %s "
				"--help)", typed, words + 4, c->name);
	}
	if (o && !o->arg && is_long)
		return cli_fail("option --%s takes no value, found \"%s\"",
				o->name, given);
	if (optopt && !o)
		return cli_fail("unknown option -%c (ibrouting %s --help lists "
				"the options)", optopt, c->name);
	if (is_long && matches(c, given + 2, len - 2, known, sizeof(known)) > 1)
		return cli_fail("ambiguous option \"%.*s\": %s", (int)len, given,
				known);
	return cli_fail("unknown option \"%.*s\" (ibrouting %s --help lists "
			"the options)", (int)len, given, c->name);
}

int cli_getopt(int argc, char **argv, const struct cli_command *c)
{
	static struct option longopts[MAX_OPTIONS + 1];
	static char shortopts[2 * MAX_OPTIONS + 2];
	size_t n = 0, s = 0;
	int code;

	/* ':' first: a missing value is ':', not '?' */
	shortopts[s++] = ':';
	for (const struct cli_option *o = c->options; o->name; o++) {
		if (n == MAX_OPTIONS)
			abort();  /* a table of ours too long: a bug, not input */
		longopts[n++] = (struct option){ o->name,
			o->arg ? required_argument : no_argument, NULL, o->val };
		if (o->letter) {
			shortopts[s++] = o->letter;
			if (o->arg)
				shortopts[s++] = ':';
		}
	}
	longopts[n] = (struct option){ NULL, 0, NULL, 0 };
	shortopts[s] = '\0';
	opterr = 0;
	code = getopt_long(argc, argv, shortopts, longopts, NULL);
	if (code == '?' || code == ':')
		return bad_option(code, argv, c), '?';
	if (code == 'h') {
		/* also an abbreviation such as --he, which main's look for
		 * "--help" does not see */
		cli_print_help(stdout, c);
		exit(0);
	}
	return code;
}

void cli_print_help(FILE *out, const struct cli_command *c)
{
	int width = 0;
	char words[96];

	fprintf(out, "Usage: ibrouting %s %s\n%s\n\nOptions:\n", c->name,
		c->args, c->what);
	for (const struct cli_option *o = c->options; o->name; o++) {
		int w = option_words(o, words, sizeof(words));
		if (w > width)
			width = w;
	}
	for (const struct cli_option *o = c->options; o->name; o++) {
		option_words(o, words, sizeof(words));
		fprintf(out, "  %-*s  %s\n", width, words, o->help);
	}
	if (c->more) {
		fputc('\n', out);
		c->more(out);
	}
}
