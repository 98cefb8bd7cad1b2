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
 *     option cannot be accepted without being described;
 *   - no line the tool writes on stdout through cli_printf or the help is
 *     wider than CLI_WIDTH columns (IBROUTING_WIDTH: another width, 0
 *     none, for scripts): a longer one is folded at spaces, its
 *     continuation lines indented to the column its text starts at
 *     (cli_fold).  Lines on stderr are not folded (each starts
 *     "ibrouting COMMAND: ").
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

/* ---- folding --------------------------------------------------------- */

size_t cli_width(void)
{
	const char *env = getenv("IBROUTING_WIDTH");
	char *end;
	unsigned long w;

	if (!env || !*env)
		return CLI_WIDTH;
	w = strtoul(env, &end, 10);
	if (*end)
		return CLI_WIDTH;
	/* 0: never folded; a width too narrow for a label and a word is 40 */
	return w == 0 ? 0 : w < 40 ? 40 : w;
}

/* The column a folded line's continuation starts at: after a label and
 * the gap of two or more spaces that follows it ("verify    OK: ...",
 * "  -e, --engine NAME   the routing engine ..."), else the line's own
 * indent; a gap far to the right does not count. */
static size_t hang_column(const char *s, size_t n)
{
	size_t lead = strspn(s, " "), p = lead;

	while (p + 1 < n && !(s[p] == ' ' && s[p + 1] == ' '))
		p++;
	if (p + 1 < n && p > lead) {
		p += strspn(s + p, " ");
		if (p <= 50)
			return p;
	}
	return lead;
}

/* One line of n bytes (no newline) onto out, folded (options.c's
 * invariants). */
static void fold_line(FILE *out, const char *s, size_t n)
{
	size_t width = cli_width(), hang = hang_column(s, n), start = 0;
	size_t col = 0;

	for (;;) {
		/* the bytes s[start..] go from column col */
		size_t room = width - col, cut, next;
		if (width == 0 || n - start <= room) {
			fwrite(s + start, 1, n - start, out);
			fputc('\n', out);
			return;
		}
		/* the last space that leaves the part within the width, else
		 * the first one after it (a word wider than the room) */
		cut = start + room;
		while (cut > start && s[cut] != ' ')
			cut--;
		if (cut == start) {
			cut = start + room;
			while (cut < n && s[cut] != ' ')
				cut++;
		}
		next = cut + strspn(s + cut, " ");
		while (cut > start && s[cut - 1] == ' ')
			cut--;
		fwrite(s + start, 1, cut - start, out);
		fputc('\n', out);
		if (next >= n)
			return;
		fprintf(out, "%*s", (int)hang, "");
		start = next;
		col = hang;
	}
}

void cli_fold(FILE *out, const char *text)
{
	while (*text) {
		size_t n = strcspn(text, "\n");
		fold_line(out, text, n);
		text += n;
		if (*text == '\n')
			text++;
	}
}

void cli_printf(const char *fmt, ...)
{
	static char *pending;
	static size_t used, cap;
	va_list ap;
	char *nl;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (used + (size_t)n + 1 > cap) {
		size_t want = (used + (size_t)n + 1) * 2;
		char *grown = realloc(pending, want);
		if (!grown)
			abort();  /* a line of the summary: nothing to go on with */
		pending = grown;
		cap = want;
	}
	va_start(ap, fmt);
	vsnprintf(pending + used, cap - used, fmt, ap);
	va_end(ap);
	used += (size_t)n;
	/* the complete lines out, a partial one kept for the next call */
	while ((nl = memchr(pending, '\n', used)) != NULL) {
		size_t len = (size_t)(nl - pending);
		fold_line(stdout, pending, len);
		memmove(pending, nl + 1, used - len - 1);
		used -= len + 1;
	}
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

void cli_print_help(FILE *to, const struct cli_command *c)
{
	int width = 0;
	char words[96], *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	if (!out)
		abort();  /* no memory for a page of help */
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
	/* folded as a whole: the engine's and the generator's lines too */
	if (fclose(out) != 0)
		abort();
	cli_fold(to, text);
	free(text);
}
