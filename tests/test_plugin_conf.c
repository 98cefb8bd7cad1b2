/*
 * test_plugin_conf.c - the parser of opensm-plugin.conf (plugin_conf.h)
 * and the escaping of untrusted bytes (escape.h).
 *
 * Invariants checked:
 *   - `key value # comment` sets the value; a `#` inside a word stays;
 *   - lines of any length keep their numbers: a message after a line of
 *     20000 bytes names the right line, and a long value is quoted cut;
 *   - every byte that is not printable ASCII reaches a message escaped
 *     (\xHH), a backslash as \\, so every message is printable;
 *   - every key's bad value gives its ERR code and keeps the value before
 *     it, which the message names; unknown keys, engine options an engine
 *     does not have, NUL bytes and CRLF line ends are handled;
 *   - at most IBR_CONF_MAX_MESSAGES messages are kept, the rest counted;
 *   - ibr_plugin_conf_diff names exactly the options that changed.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ibrouting/escape.h"
#include "ibrouting/plugin_conf.h"

struct parsed {
	struct ibr_plugin_conf conf;
	struct ibr_conf_messages msgs;
};

static struct parsed *parse_len(const char *text, size_t len)
{
	struct parsed *p = calloc(1, sizeof(*p));

	assert_non_null(p);
	ibr_plugin_conf_defaults(&p->conf, ibr_engines);
	assert_int_equal(ibr_plugin_conf_parse(text, len, &p->conf, &p->msgs), 0);
	return p;
}

static struct parsed *parse(const char *text)
{
	return parse_len(text, strlen(text));
}

static void done(struct parsed *p)
{
	ibr_plugin_conf_free(&p->conf);
	free(p);
}

static bool printable(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s > 0x7e)
			return false;
	return true;
}

static void test_defaults_and_values(void **state)
{
	struct parsed *p = parse("");

	(void)state;
	assert_int_equal(p->msgs.count, 0);
	assert_int_equal(p->conf.root.strategy, IBR_ROOT_AUTO);
	assert_int_equal(p->conf.port_choice, IBR_PORT_BALANCED);
	assert_true(p->conf.verify_before_push);
	assert_int_equal(p->conf.verify_method, IBR_VERIFY_CERTIFICATE);
	assert_null(p->conf.dump_dir);
	assert_true(p->conf.sa_designated_dlids);
	assert_int_equal(p->conf.hybrid_final_delay_ms, 0);
	assert_false(p->conf.transition_double_scheme);
	assert_int_equal(p->conf.threads, 0); /* auto */
	done(p);

	p = parse("threads 12\n");
	assert_int_equal(p->msgs.count, 0);
	assert_int_equal(p->conf.threads, 12);
	done(p);

	p = parse("root 0x200003\nverify_before_push no\nverify_method full\n"
		  "dump_dir /var/log/ibr\nsa_designated_dlids false\n"
		  "hybrid_final_delay 250\ncolorl_k 8\n"
		  "transition double_scheme\n");
	assert_int_equal(p->msgs.count, 0);
	assert_int_equal(p->conf.root.guid, 0x200003);
	assert_false(p->conf.verify_before_push);
	assert_int_equal(p->conf.verify_method, IBR_VERIFY_FULL);
	assert_string_equal(p->conf.dump_dir, "/var/log/ibr");
	assert_false(p->conf.sa_designated_dlids);
	assert_int_equal(p->conf.hybrid_final_delay_ms, 250);
	assert_true(p->conf.transition_double_scheme);
	done(p);
}

static void test_trailing_comments(void **state)
{
	struct parsed *p = parse("# a comment\n"
				 "root center   # the middle of the fabric\n"
				 "verify_method full# no blank before: a word\n"
				 "dump_dir /tmp/a#b  # kept: # inside a word\n"
				 "   # indented comment\n"
				 "hybrid_final_delay 10\t#tab before\n");

	(void)state;
	assert_int_equal(p->conf.root.strategy, IBR_ROOT_CENTER);
	assert_string_equal(p->conf.dump_dir, "/tmp/a#b");
	assert_int_equal(p->conf.hybrid_final_delay_ms, 10);
	/* `full#` is one word, not the value full */
	assert_int_equal(p->msgs.count, 1);
	assert_int_equal(p->msgs.item[0].line, 3);
	assert_string_equal(p->msgs.item[0].code, "IB07");
	assert_int_equal(p->conf.verify_method, IBR_VERIFY_CERTIFICATE);
	done(p);
}

static void test_long_lines_keep_numbers(void **state)
{
	size_t n = 20000;
	char *text = malloc(3 * n + 100);
	size_t o = 0;
	struct parsed *p;

	(void)state;
	/* line 1: a comment of n bytes; line 2: a bad key of n bytes;
	 * line 3: a bad value of n bytes; line 4: a bad value */
	o += (size_t)sprintf(text + o, "# ");
	memset(text + o, 'c', n);
	o += n;
	text[o++] = '\n';
	memset(text + o, 'k', n);
	o += n;
	o += (size_t)sprintf(text + o, " v\nroot ");
	memset(text + o, '9', n);
	o += n;
	o += (size_t)sprintf(text + o, "\nverify_before_push maybe");
	p = parse_len(text, o);
	assert_int_equal(p->msgs.count, 3);
	assert_int_equal(p->msgs.item[0].line, 2);
	assert_string_equal(p->msgs.item[0].code, "IB03");
	assert_non_null(strstr(p->msgs.item[0].text, "kkk...\""));
	assert_int_equal(p->msgs.item[1].line, 3);
	assert_string_equal(p->msgs.item[1].code, "IB01");
	assert_non_null(strstr(p->msgs.item[1].text, "999...\""));
	assert_int_equal(p->msgs.item[2].line, 4);
	assert_string_equal(p->msgs.item[2].code, "IB02");
	done(p);
	free(text);
}

static void test_non_printable_escaped(void **state)
{
	static const char text[] = "root \x01\x1b[31mred\xff\\\n"
				   "col\x7f" "our blue\n";
	struct parsed *p = parse_len(text, sizeof(text) - 1);

	(void)state;
	assert_int_equal(p->msgs.count, 2);
	assert_non_null(strstr(p->msgs.item[0].text,
			       "root \"\\x01\\x1b[31mred\\xff\\\\\""));
	assert_non_null(strstr(p->msgs.item[1].text,
			       "unknown key \"col\\x7four\" (value \"blue\")"));
	for (unsigned i = 0; i < p->msgs.count; i++)
		assert_true(printable(p->msgs.item[i].text));
	done(p);
}

/* Every key with a bad value: its code, the message names the key, the
 * value and what stays (here the value of the line before). */
static void test_every_bad_value(void **state)
{
	static const struct {
		const char *good, *bad, *code, *says;
	} cases[] = {
		{ "root 0x10", "root middle", "IB01",
		  "root \"middle\": expected a switch GUID or auto, sm, "
		  "lowest-lid, center; using 0x0000000000000010" },
		{ "port_choice lowest", "port_choice spread", "IB36",
		  "port_choice \"spread\": expected balanced or lowest; using "
		  "lowest" },
		{ "root lowest-lid", "root 0", "IB01", "using lowest-lid" },
		{ "root sm", "root -5", "IB01", "root \"-5\"" },
		{ "verify_before_push no", "verify_before_push maybe", "IB02",
		  "verify_before_push \"maybe\": expected yes or no; using no" },
		{ "verify_method full", "verify_method quick", "IB07",
		  "verify_method \"quick\": expected certificate or full; "
		  "using full" },
		{ "sa_designated_dlids no", "sa_designated_dlids 2", "IB05",
		  "expected yes or no; using no" },
		{ "hybrid_final_delay 7", "hybrid_final_delay 600001", "IB08",
		  "hybrid_final_delay \"600001\": expected milliseconds, 0 to "
		  "600000; using 7" },
		{ "hybrid_final_delay 7", "hybrid_final_delay -1", "IB08",
		  "using 7" },
		{ "hybrid_final_delay 7", "hybrid_final_delay 5ms", "IB08",
		  "using 7" },
		{ "hybrid_final_delay 7", "hybrid_final_delay", "IB08",
		  "hybrid_final_delay \"\"" },
		{ "colorl_k 8", "colorl_k 17", "IB06",
		  "colorl_k \"17\": option k=17: expected a number 1..16; using "
		  "the default" },
		{ "colorl_paths shortest-widest", "colorl_paths longest", "IB06",
		  "expected one of path-selection, shortest-widest" },
		{ "", "pira_depth 3", "IB06",
		  "pira_depth \"3\": engine pira has no option \"depth\"" },
		{ "", "colour blue", "IB03",
		  "unknown key \"colour\" (value \"blue\") ignored; known keys: "
		  "root, root_fallback, port_choice, verify_before_push, "
		  "verify_method, "
		  "dump_dir, sa_designated_dlids, hybrid_final_delay, "
		  "transition, threads, and "
		  "ENGINE_OPTION" },
		{ "threads 4", "threads 0", "IB44",
		  "threads \"0\": expected auto or a number of threads, 1 to "
		  "256; using 4" },
		{ "threads auto", "threads 257", "IB44",
		  "threads \"257\": expected auto or a number of threads, 1 to "
		  "256; using auto" },
		{ "threads 2", "threads two", "IB44", "using 2" },
		{ "transition double_scheme", "transition double", "IB38",
		  "transition \"double\": expected double_scheme or "
		  "safe_steps; using double_scheme" },
		{ "root_fallback refuse", "root_fallback sometimes", "IB29",
		  "root_fallback \"sometimes\": expected next or refuse; using "
		  "refuse" },
	};
	static const char long_dir[] = "dump_dir /";

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char text[512];
		struct parsed *p;
		snprintf(text, sizeof(text), "%s\n%s\n", cases[i].good,
			 cases[i].bad);
		p = parse(text);
		if (p->msgs.count != 1 || strcmp(p->msgs.item[0].code,
						   cases[i].code) ||
		    p->msgs.item[0].line != 2 ||
		    !strstr(p->msgs.item[0].text, cases[i].says))
			fail_msg("%s: got %u messages, first %s line %u: %s",
				 cases[i].bad, p->msgs.count,
				 p->msgs.count ? p->msgs.item[0].code : "-",
				 p->msgs.count ? p->msgs.item[0].line : 0,
				 p->msgs.count ? p->msgs.item[0].text : "");
		done(p);
	}
	/* the value before a bad one stays */
	{
		struct parsed *p = parse("colorl_k 8\ncolorl_k 99\n");
		assert_int_equal(p->conf.engine[0].count +
				 p->conf.engine[1].count +
				 p->conf.engine[2].count +
				 p->conf.engine[3].count, 1);
		done(p);
	}
	/* dump_dir: any path below 4096 bytes; empty: none */
	{
		size_t n = sizeof(long_dir) - 1 + 5000;
		char *text = malloc(n + 1);
		struct parsed *p;
		memcpy(text, long_dir, sizeof(long_dir) - 1);
		memset(text + sizeof(long_dir) - 1, 'd', 5000);
		p = parse_len(text, n);
		assert_int_equal(p->msgs.count, 1);
		assert_string_equal(p->msgs.item[0].code, "IB31");
		assert_null(p->conf.dump_dir);
		done(p);
		free(text);
		p = parse("dump_dir /x\ndump_dir\n");
		assert_int_equal(p->msgs.count, 0);
		assert_null(p->conf.dump_dir);
		done(p);
	}
}

static void test_nul_crlf_and_cap(void **state)
{
	static const char text[] = "root center\r\nbad\0line\r\n"
				   "verify_method full\r\n";
	struct parsed *p = parse_len(text, sizeof(text) - 1);
	char many[64 * 100 + 1] = "";

	(void)state;
	assert_int_equal(p->conf.root.strategy, IBR_ROOT_CENTER);
	assert_int_equal(p->conf.verify_method, IBR_VERIFY_FULL);
	assert_int_equal(p->msgs.count, 1);
	assert_int_equal(p->msgs.item[0].line, 2);
	assert_string_equal(p->msgs.item[0].code, "IB32");
	done(p);

	for (int i = 0; i < 100; i++)
		strcat(many, "nosuchkey 1\n");
	p = parse(many);
	assert_int_equal(p->msgs.count, IBR_CONF_MAX_MESSAGES);
	assert_int_equal(p->msgs.dropped, 100 - IBR_CONF_MAX_MESSAGES);
	assert_int_equal(p->msgs.item[IBR_CONF_MAX_MESSAGES - 1].line,
			 IBR_CONF_MAX_MESSAGES);
	done(p);
}

struct changes {
	char text[1024];
	unsigned n;
};

static void note(void *cxt, const char *key, const char *old_value,
		 const char *new_value)
{
	struct changes *ch = cxt;
	size_t used = strlen(ch->text);

	snprintf(ch->text + used, sizeof(ch->text) - used, "%s: %s -> %s; ",
		 key, old_value, new_value);
	ch->n++;
}

static void test_diff(void **state)
{
	struct parsed *a = parse("root sm\nverify_method full\ncolorl_k 8\n"
				 "colorl_pairs ca\n");
	struct parsed *b = parse("root 0x200003\nverify_method full\n"
				 "colorl_k 4\ndump_dir /d\ncolorl_heuristic greedy\n");
	struct changes ch = { "", 0 };

	(void)state;
	assert_int_equal(ibr_plugin_conf_diff(&a->conf, &b->conf, note, &ch), 5);
	assert_int_equal(ch.n, 5);
	assert_string_equal(ch.text, "root: sm -> 0x0000000000200003; "
			    "dump_dir: (none) -> /d; colorl_k: 8 -> 4; "
			    "colorl_pairs: ca -> (default); "
			    "colorl_heuristic: (default) -> greedy; ");
	ch.text[0] = '\0';
	assert_int_equal(ibr_plugin_conf_diff(&a->conf, &a->conf, note, &ch), 0);
	done(a);
	done(b);
}

static void test_escape(void **state)
{
	char buf[16];

	(void)state;
	assert_string_equal(ibr_escape_str("plain text", buf, sizeof(buf)),
			    "plain text");
	assert_string_equal(ibr_escape("a\0b\\", 4, buf, sizeof(buf)),
			    "a\\x00b\\\\");
	/* cut at a whole escape, marked */
	assert_string_equal(ibr_escape_str("\x01\x02\x03\x04", buf, sizeof(buf)),
			    "\\x01\\x02\\x03...");
	/* the last bytes may use the mark's room */
	assert_string_equal(ibr_escape_str("0123456789abcde", buf, sizeof(buf)),
			    "0123456789abcde");
	assert_string_equal(ibr_escape_str("0123456789abcdef", buf, sizeof(buf)),
			    "0123456789ab...");
	assert_string_equal(ibr_escape_str("abc", buf, 4), "abc");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults_and_values),
		cmocka_unit_test(test_trailing_comments),
		cmocka_unit_test(test_long_lines_keep_numbers),
		cmocka_unit_test(test_non_printable_escaped),
		cmocka_unit_test(test_every_bad_value),
		cmocka_unit_test(test_nul_crlf_and_cap),
		cmocka_unit_test(test_diff),
		cmocka_unit_test(test_escape),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
