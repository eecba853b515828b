/* test_quote.c: shell quoting and terminal-safe printing of machine strings (util/quote.c). */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "test.h"
#include "util/quote.h"
#include "util/strbuf.h"
#include "util/util.h"

static int shell_check(const char *word, const char *want)
{
	char *q = quote_shell(word);
	int ok = strcmp(q, want) == 0;

	if (!ok)
		printf("  quote_shell(\"%s\") = %s, wanted %s\n", word, q, want);
	free(q);
	return ok;
}

static void shell_safe_words_stay_bare(void)
{
	CHECK(shell_check("/usr/local/cuda-12.4/lib64", "/usr/local/cuda-12.4/lib64"));
	CHECK(shell_check("linux-headers-6.8.0-87-generic", "linux-headers-6.8.0-87-generic"));
	CHECK(shell_check("a_b@c%d+e=f:g,h.i", "a_b@c%d+e=f:g,h.i"));
	CHECK(shell_check("/a:/b", "/a:/b"));
}

static void shell_others_are_quoted(void)
{
	CHECK(shell_check("", "''"));
	CHECK(shell_check("a b", "'a b'"));
	CHECK(shell_check("$(touch x)", "'$(touch x)'"));
	CHECK(shell_check("/opt/$(id)/lib:/usr/lib", "'/opt/$(id)/lib:/usr/lib'"));
	CHECK(shell_check("`id`", "'`id`'"));
	CHECK(shell_check("~root", "'~root'"));
	CHECK(shell_check("*", "'*'"));
	CHECK(shell_check("a;b|c&d>e", "'a;b|c&d>e'"));
	CHECK(shell_check("it's", "'it'\\''s'"));
	CHECK(shell_check("'", "''\\'''"));
	CHECK(shell_check("a\nb", "'a\nb'"));
	CHECK(shell_check("caf\xc3\xa9", "'caf\xc3\xa9'"));
}

static void shell_appends(void)
{
	struct strbuf sb;

	sb_init(&sb);
	sb_adds(&sb, "export X=");
	quote_shell_add(&sb, "a b");
	sb_adds(&sb, " Y=");
	quote_shell_add(&sb, "c");
	CHECK_STR(sb.buf, "export X='a b' Y=c");
	sb_release(&sb);
}

/* What a real sh makes of the quoted word: the word itself, and nothing run. */
static void shell_round_trip(void)
{
	static const char *const words[] = {
	    "plain",
	    "two words",
	    "$(touch PWNED)",
	    "`touch PWNED`",
	    "it's; touch PWNED",
	    "'\"\\$HOME\"'",
	    "a\tb\nc",
	    "*",
	    "-n",
	    "!x",
	    "${PATH}",
	    "\xe2\x82\xac",
	};
	char dir[] = "/tmp/test_quote.XXXXXX";
	size_t i;

	CHECK(mkdtemp(dir));
	for (i = 0; i < ARRAY_SIZE(words); i++) {
		char *q = quote_shell(words[i]);
		char *cmd = xasprintf("cd %s && printf '%%s|' %s", dir, q);
		char out[256] = "";
		FILE *p = popen(cmd, "r");
		size_t n = p ? fread(out, 1, sizeof(out) - 1, p) : 0;
		char *want = xasprintf("%s|", words[i]);
		int same;

		if (p)
			pclose(p);
		out[n] = '\0';
		same = strcmp(out, want) == 0;
		if (!same)
			printf("  sh read %s back as \"%s\"\n", q, out);
		free(q);
		free(cmd);
		free(want);
		CHECK(same);
	}
	{
		char *pwned = xasprintf("%s/PWNED", dir);
		int ran = access(pwned, F_OK) == 0;

		unlink(pwned);
		free(pwned);
		rmdir(dir);
		CHECK(!ran);
	}
}

static int visible_check(const char *s, const char *want)
{
	char *v = quote_visible(s);
	int ok = strcmp(v, want) == 0;

	if (!ok)
		printf("  quote_visible gave \"%s\", wanted \"%s\"\n", v, want);
	free(v);
	return ok;
}

static void visible_controls_escaped(void)
{
	CHECK(visible_check("6.8.0\x1b[31mred", "6.8.0\\x1b[31mred"));
	CHECK(visible_check("\x1b]0;title\x07", "\\x1b]0;title\\x07"));
	CHECK(visible_check("a\nb\tc\rd", "a\\nb\\tc\\rd"));
	CHECK(visible_check("\x01\x1f\x7f", "\\x01\\x1f\\x7f"));
	CHECK(visible_check("\x08\x08\x08", "\\x08\\x08\\x08"));
}

static void visible_c1_and_bad_utf8_escaped(void)
{
	CHECK(visible_check("\xc2\x9b[31m", "\\xc2\\x9b[31m"));           /* U+009B: CSI */
	CHECK(visible_check("\xc2\x80", "\\xc2\\x80"));                   /* U+0080 */
	CHECK(visible_check("\x9b[31m", "\\x9b[31m"));                    /* a lone C1 byte */
	CHECK(visible_check("\xff\xfe", "\\xff\\xfe"));                   /* never in UTF-8 */
	CHECK(visible_check("\xc3", "\\xc3"));                            /* cut short */
	CHECK(visible_check("\xe2\x82", "\\xe2\\x82"));                   /* cut short */
	CHECK(visible_check("\xc0\xaf", "\\xc0\\xaf"));                   /* overlong '/' */
	CHECK(visible_check("\xed\xa0\x80", "\\xed\\xa0\\x80"));          /* a surrogate */
	CHECK(visible_check("\xf4\x90\x80\x80", "\\xf4\\x90\\x80\\x80")); /* past U+10FFFF */
}

static void visible_text_unchanged(void)
{
	CHECK(visible_check("", ""));
	CHECK(visible_check("NVIDIA H200 (driver 580.95.05)", "NVIDIA H200 (driver 580.95.05)"));
	CHECK(visible_check("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x9a\x80 \xc2\xa0",
			    "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x9a\x80 \xc2\xa0"));
	CHECK(visible_check("printf 'a\\nb'", "printf 'a\\nb'")); /* a backslash stays */
	CHECK(visible_check("'$(id)'", "'$(id)'"));
}

int main(void)
{
	RUN(shell_safe_words_stay_bare);
	RUN(shell_others_are_quoted);
	RUN(shell_appends);
	RUN(shell_round_trip);
	RUN(visible_controls_escaped);
	RUN(visible_c1_and_bad_utf8_escaped);
	RUN(visible_text_unchanged);
	return TEST_DONE();
}
