#!/bin/sh
# doc_options.sh - the documentation says what the code does (issue 48
# point 5); each mismatch is one failed check naming the option, key or
# code:
#   - ibrouting(1): for every command, the long options its --help lists
#     (made from the same table as getopt_long's, src/cli/options.c) are
#     in the command's SYNOPSIS lines and described (in its COMMANDS
#     entry or under OPTIONS), a short letter beside its long option;
#     every --option the SYNOPSIS lines or the COMMANDS entry give the
#     command is in its --help (other commands' options, "route
#     --dump-dir", are passed over), every OPTIONS heading is an option
#     of some command; the top level's (main's argv[1] tests) too;
#   - libibrouting(8) and the shipped opensm-plugin.conf: every key of
#     the options file's key table (src/core/io/plugin_conf.c) is an
#     OPTIONS heading of the man page and a `#key value` line of the
#     sample, every ENGINE_OPTION key `ibrouting engines` lists is named
#     in full in both; every key the man page heads or names in full
#     (ENGINE_...) and every key line of the sample exists;
#   - every log code (ERR IBnn, WRN IBnn, the options file's "IBnn")
#     of src/ is in libibrouting(8), as ERR or WRN as the code says,
#     and every code the man page names is used;
#   - the README's quick start (the first fenced block after a heading
#     saying "quick start"): two commands, each an executable script of
#     the tree that parses, and the command CI runs (.ci/run's exec) is
#     one of them; every README command is reached by CI (.ci/run and
#     the scripts it runs: run-tests.sh runs quickstart.sh).
set -eu
. "$(dirname "$0")/lib.sh"
top=$(cd "$(dirname "$0")/.." && pwd)
man1=$top/man/ibrouting.1
man8=$top/man/libibrouting.8
conf=$top/opensm-plugin.conf

# roff to plain words: font changes dropped, \- as -, \(en as "..".
plain() {
	sed -e 's/\\f[BIRP]//g' -e 's/\\-/-/g' -e 's/\\(en/../g' \
	    -e 's/\\%//g' -e 's/\\&//g' "$@"
}

# in_list WORD LIST: WORD is one of the words of LIST
in_list() {
	case " $(echo $2) " in *" $1 "*) return 0 ;; esac
	return 1
}

# long options (without --) in text on stdin, one a line, sorted
longs() { grep -oE -- '--[a-z][a-z0-9-]*' | sed 's/^--//' | sort -u; }

# ---- ibrouting(1) ------------------------------------------------------

plain "$man1" > "$TMP/man1"
commands=$("$IBROUTING" --help | sed -n '/^Commands:/,/^$/s/^  \([a-z]*\) .*/\1/p')
if [ -n "$commands" ]; then
	pass "ibrouting --help lists the commands: $(echo $commands)"
else
	flunk "ibrouting --help lists no commands"
fi
for cmd in route verify transition generate lids engines; do
	in_list "$cmd" "$commands" || flunk "ibrouting --help does not list $cmd"
done

# The SYNOPSIS lines of command $1: from ".B ibrouting CMD" to ".br";
# with "", the top level's (".B ibrouting" before no command).
synopsis() {
	awk -v cmd="$1" -v all="$commands" '
		BEGIN { n = split(all, c, /[ \n]+/); for (i = 1; i <= n; i++) is[c[i]] = 1 }
		/^\.SH / { insyn = ($2 == "SYNOPSIS"); on = 0 }
		insyn && $1 == ".B" && $2 == "ibrouting" {
			on = (cmd == "" ? !($3 in is) : $3 == cmd) }
		insyn && on { print }
		/^\.br/ { on = 0 }' "$TMP/man1"
}

# The COMMANDS entry of command $1: from ".TP" ".B CMD" to the next
# command's, or the next .SH.
entry() {
	awk -v cmd="$1" -v all="$commands" '
		BEGIN { n = split(all, c, /[ \n]+/); for (i = 1; i <= n; i++) is[c[i]] = 1 }
		/^\.SH / { incmd = ($2 == "COMMANDS"); on = 0 }
		incmd && prev == ".TP" && $1 == ".B" && NF == 2 && ($2 in is) { on = ($2 == cmd) }
		incmd && on { print }
		{ prev = $1 }' "$TMP/man1"
}

# The headings of OPTIONS: the line after each .TP.
awk '/^\.SH / { on = ($2 == "OPTIONS") }
     on && prev == ".TP" { print }
     { prev = $1 }' "$TMP/man1" > "$TMP/headings"
longs < "$TMP/headings" > "$TMP/heading_opts"

: > "$TMP/all_opts"
for cmd in $commands; do
	"$IBROUTING" "$cmd" --help > "$TMP/help"
	# the option lines: "  -e, --engine NAME  ..." or "      --lmc N  ..."
	sed -n '/^Options:/,/^$/p' "$TMP/help" |
		sed -n 's/^ *\(-[A-Za-z], \)\{0,1\}--\([a-z][a-z0-9-]*\).*/\2 \1/p' |
		sed 's/, $//' > "$TMP/help_opts"
	cut -d' ' -f1 "$TMP/help_opts" | sort -u > "$TMP/help_longs"
	cat "$TMP/help_longs" >> "$TMP/all_opts"
	if [ ! -s "$TMP/help_longs" ]; then
		flunk "$cmd --help lists no option"
		continue
	fi
	synopsis "$cmd" > "$TMP/syn"
	entry "$cmd" > "$TMP/entry"
	[ -s "$TMP/syn" ] || flunk "ibrouting.1 has no SYNOPSIS line for $cmd"
	[ -s "$TMP/entry" ] || flunk "ibrouting.1 has no COMMANDS entry for $cmd"
	longs < "$TMP/syn" > "$TMP/syn_opts"
	# another command's option: "route --dump-dir", as one word pair
	# (the entry in one line: such a pair may be cut by a line end)
	tr '\n' ' ' < "$TMP/entry" |
		sed -E "s/(^|[^a-z-])($(echo $commands | tr ' ' '|')) +--[a-z][a-z0-9-]*//g" |
		longs > "$TMP/entry_opts"
	bad=0
	while read -r opt letter; do
		[ "$opt" != help ] || continue   # the SYNOPSIS's [COMMAND] --help line
		# in the SYNOPSIS as --engine or as -e
		if ! grep -qx -- "$opt" "$TMP/syn_opts" && { [ -z "$letter" ] ||
		   ! grep -qE -- "(^|[^a-z-])$letter([^a-zA-Z-]|\$)" "$TMP/syn"; }; then
			flunk "$cmd --$opt: not in the SYNOPSIS of ibrouting.1"
			bad=1
		fi
		if ! grep -qx -- "$opt" "$TMP/entry_opts" &&
		   ! grep -qx -- "$opt" "$TMP/heading_opts"; then
			flunk "$cmd --$opt: described neither in the COMMANDS entry $cmd nor under OPTIONS of ibrouting.1"
			bad=1
		fi
		if [ -n "$letter" ] &&
		   ! grep -qE -- "(^|[^a-z-])$letter([^a-zA-Z-]|\$)" "$TMP/syn" &&
		   ! grep -E -- "--$opt([^a-z-]|\$)" "$TMP/headings" |
			grep -qE -- "(^|[^a-z-])$letter([^a-zA-Z-]|\$)"; then
			flunk "$cmd $letter (--$opt): the letter is neither in the SYNOPSIS nor in the OPTIONS heading of ibrouting.1"
			bad=1
		fi
	done < "$TMP/help_opts"
	for opt in $(cat "$TMP/syn_opts"); do
		grep -qx -- "$opt" "$TMP/help_longs" && continue
		[ "$opt" != help ] || continue
		flunk "ibrouting.1's SYNOPSIS gives $cmd --$opt, which $cmd --help does not list"
		bad=1
	done
	for opt in $(cat "$TMP/entry_opts"); do
		grep -qx -- "$opt" "$TMP/help_longs" && continue
		flunk "ibrouting.1's COMMANDS entry $cmd names --$opt, which $cmd --help does not list"
		bad=1
	done
	[ "$bad" = 1 ] || pass "$cmd: its $(wc -l < "$TMP/help_longs") options in ibrouting.1's SYNOPSIS and described, and no other"
done

# The top level: main's tests of argv[1] ("--help", "-h", "--version", "-V").
grep -oE 'strcmp\(argv\[1\], "-[^"]*"\)' "$top/src/cli/ibrouting.c" |
	sed 's/.*"\(.*\)").*/\1/' | sort -u > "$TMP/top_opts"
if [ ! -s "$TMP/top_opts" ]; then
	flunk "no top-level option found in src/cli/ibrouting.c's main"
fi
synopsis "" > "$TMP/syn"
bad=0
for opt in $(cat "$TMP/top_opts"); do
	# the long ones in the SYNOPSIS, every one under OPTIONS
	case $opt in
	--*) echo "${opt#--}" >> "$TMP/all_opts"
	     grep -qE -- "(^|[^a-z-])$opt([^a-zA-Z-]|\$)" "$TMP/syn" ||
		{ flunk "ibrouting $opt: not in the SYNOPSIS of ibrouting.1"; bad=1; } ;;
	esac
	grep -qE -- "(^|[^a-z-])$opt([^a-zA-Z-]|\$)" "$TMP/headings" ||
		{ flunk "ibrouting $opt: no OPTIONS heading of ibrouting.1 has it"; bad=1; }
done
[ "$bad" = 1 ] || pass "top level: $(tr '\n' ' ' < "$TMP/top_opts") in ibrouting.1"

sort -u "$TMP/all_opts" > "$TMP/all_sorted"
bad=0
for opt in $(cat "$TMP/heading_opts"); do
	grep -qx -- "$opt" "$TMP/all_sorted" && continue
	flunk "ibrouting.1's OPTIONS heads --$opt, which no command's --help lists"
	bad=1
done
[ "$bad" = 1 ] || pass "ibrouting.1's $(wc -l < "$TMP/heading_opts") OPTIONS headings are options of the code"

# ---- libibrouting(8) and opensm-plugin.conf: the keys ------------------

plain "$man8" > "$TMP/man8"
awk '/keys\[\] = \{/ { on = 1; next }
     on && /^\};/ { exit }
     on && match($0, /\{ "[a-z_0-9]+", "IB[0-9][0-9]"/) {
	s = substr($0, RSTART + 3); sub(/".*/, "", s); print s }' \
	"$top/src/core/io/plugin_conf.c" > "$TMP/keys"
if [ -s "$TMP/keys" ]; then
	pass "the options file's key table: $(tr '\n' ' ' < "$TMP/keys")"
else
	flunk "no key found in src/core/io/plugin_conf.c's keys[]"
fi
engines=$("$IBROUTING" engines --names)
"$IBROUTING" engines | awk -v all="$engines" '
	BEGIN { n = split(all, e, /[ \n]+/); for (i = 1; i <= n; i++) is[e[i]] = 1 }
	/^  [a-z]/ { cur = ($1 in is) ? $1 : "" }
	cur != "" && match($0, /-o [a-z_0-9]+=/) {
		print cur "_" substr($0, RSTART + 3, RLENGTH - 4) }' > "$TMP/engine_keys"
if [ -s "$TMP/engine_keys" ]; then
	pass "ibrouting engines: the engines' keys: $(tr '\n' ' ' < "$TMP/engine_keys")"
else
	flunk "ibrouting engines lists no engine option"
fi
awk '/^\.SH / { on = ($2 == "OPTIONS") } on' "$TMP/man8" > "$TMP/man8_options"
# (".IB ENGINE _ OPTION" is ENGINE_OPTION)
awk 'prev == ".TP" { print ($3 == "_" ? $2 "_" $4 : $2) } { prev = $1 }' \
	"$TMP/man8_options" > "$TMP/man8_heads"

bad=0
for key in $(cat "$TMP/keys"); do
	grep -qx -- "$key" "$TMP/man8_heads" ||
		{ flunk "key $key: no OPTIONS heading of libibrouting.8"; bad=1; }
	grep -qE "^#?$key( |\$)" "$conf" ||
		{ flunk "key $key: no \"#$key value\" line in opensm-plugin.conf"; bad=1; }
done
for key in $(cat "$TMP/engine_keys"); do
	grep -qE -- "(^|[^a-z0-9_])$key([^a-z0-9_]|\$)" "$TMP/man8_options" ||
		{ flunk "engine key $key: not named under OPTIONS of libibrouting.8"; bad=1; }
	grep -qE "^#?$key( |\$)" "$conf" ||
		{ flunk "engine key $key: no \"#$key value\" line in opensm-plugin.conf"; bad=1; }
done
cat "$TMP/keys" "$TMP/engine_keys" > "$TMP/all_keys"
for key in $(cat "$TMP/man8_heads"); do
	grep -qx -- "$key" "$TMP/all_keys" && continue
	# ENGINE_OPTION: the engines' keys, named in full beside it
	[ "$key" = ENGINE_OPTION ] && [ -s "$TMP/engine_keys" ] && continue
	flunk "libibrouting.8's OPTIONS heads $key, which is no key of the code"
	bad=1
done
grep -oE "(^|[^a-z0-9_])($(echo $engines | tr ' ' '|'))_[a-z0-9_]+" "$TMP/man8" |
	sed 's/^[^a-z]//' | sort -u > "$TMP/man8_engine_keys"
for key in $(cat "$TMP/man8_engine_keys"); do
	grep -qx -- "$key" "$TMP/engine_keys" && continue
	flunk "libibrouting.8 names $key, which no engine has (ibrouting engines)"
	bad=1
done
for key in $(sed -n 's/^#\{0,1\}\([a-z][a-z0-9_]*\)\( .*\)\{0,1\}$/\1/p' "$conf"); do
	grep -qx -- "$key" "$TMP/all_keys" && continue
	flunk "opensm-plugin.conf has a line of key $key, which is no key of the code"
	bad=1
done
# a key line of the sample, uncommented, must give one value: a word,
# then at most a comment (# at the start of a word)
grep -nE '^#?[a-z][a-z0-9_]* ' "$conf" |
	grep -vE '^[0-9]+:#?[a-z][a-z0-9_]* +[^ #]+ *(#.*)?$' > "$TMP/conf_words" || true
while IFS= read -r line; do
	flunk "opensm-plugin.conf:${line%%:*}: more than one word after the key, uncommented a bad value: ${line#*:}"
	bad=1
done < "$TMP/conf_words"
[ "$bad" = 1 ] || pass "the $(wc -l < "$TMP/all_keys") keys in libibrouting.8 and opensm-plugin.conf, and no other"

# ---- log codes -----------------------------------------------------------

# src: "ERR IBnn"/"WRN IBnn", and the options file's codes, logged as ERR
# (src/osm/options.c)
{
	grep -rhoE '(ERR|WRN) IB[0-9]{2}' "$top/src"
	grep -rhoE '"IB[0-9]{2}"' "$top/src" | tr -d '"' | sed 's/^/ERR /'
} | sort -u > "$TMP/src_codes"
cut -d' ' -f2 "$TMP/src_codes" | sort -u > "$TMP/src_nums"
# the man page: every IBnn, "IBaa..IBbb" ranges whole
grep -oE 'IB[0-9]{2}(\.\.IB[0-9]{2})?' "$TMP/man8" |
	awk -F'[.]+' '{ a = substr($1, 3) + 0; b = NF > 1 ? substr($2, 3) + 0 : a
			for (i = a; i <= b; i++) printf "IB%02d\n", i }' |
	sort -u > "$TMP/man_nums"
grep -oE '(ERR|WRN) IB[0-9]{2}' "$TMP/man8" | sort -u > "$TMP/man_codes"
bad=0
for code in $(cat "$TMP/src_nums"); do
	grep -qx "$code" "$TMP/man_nums" ||
		{ flunk "$(grep " $code\$" "$TMP/src_codes" | head -n1) (src/): not in libibrouting.8"; bad=1; }
done
for code in $(cat "$TMP/man_nums"); do
	grep -qx "$code" "$TMP/src_nums" ||
		{ flunk "libibrouting.8 names $code, which src/ never logs"; bad=1; }
done
while read -r kind code; do
	grep -qx "$kind $code" "$TMP/src_codes" && continue
	grep -q " $code\$" "$TMP/src_codes" || continue   # reported above
	flunk "libibrouting.8 says $kind $code; src/ logs $(grep " $code\$" "$TMP/src_codes" | cut -d' ' -f1 | sort -u | tr '\n' ' ')"
	bad=1
done < "$TMP/man_codes"
[ "$bad" = 1 ] || pass "the $(wc -l < "$TMP/src_nums") log codes of src/ in libibrouting.8, as ERR or WRN, and no other"

# ---- the README's quick start -------------------------------------------

# (an ATX heading, "## Quick start", or a setext one, underlined)
awk 'tolower($0) ~ /^#+ .*quick.?start/ { head = 1; next }
     /^(==+|--+)[[:space:]]*$/ && tolower(prev) ~ /quick.?start/ { head = 1 }
     { prev = $0 }
     head && !on && /^(```|~~~)/ { on = 1; next }
     on && /^(```|~~~)/ { exit }
     on' "$top/README.md" |
	sed -e 's/[[:space:]]#.*//' -e 's/^[[:space:]]*\$[[:space:]]*//' \
	    -e 's/^[[:space:]]*//' -e 's/[[:space:]]*$//' -e 's/^sudo //' |
	grep -v '^$' | grep -v '^#' > "$TMP/quick" || true
n=$(wc -l < "$TMP/quick")
if [ "$n" = 2 ]; then
	pass "README's quick start: $(tr '\n' ';' < "$TMP/quick")"
else
	flunk "README's quick start: $n commands, expected 2: $(tr '\n' ';' < "$TMP/quick")"
fi
# the scripts .ci/run runs, and those they run, transitively (lines that
# are not comments, naming ./scripts/NAME or scripts/NAME)
scripts_run() {
	sed 's/#.*//' "$1" | grep -oE '(\./)?scripts/[a-z_-]+\.sh' |
		sed 's|^\./||' | sort -u
}
echo .ci/run > "$TMP/reached"
todo=.ci/run
while [ -n "$todo" ]; do
	next=
	for f in $todo; do
		for s in $(scripts_run "$top/$f"); do
			grep -qx "$s" "$TMP/reached" && continue
			echo "$s" >> "$TMP/reached"
			[ -f "$top/$s" ] && next="$next $s"
		done
	done
	todo=$next
done
ci_cmd=$(sed 's/#.*//' "$top/.ci/run" | sed -n 's/^[[:space:]]*exec[[:space:]]\{1,\}//p' | tail -n1)
ci_found=0
while read -r cmd; do
	prog=${cmd%% *}
	rel=${prog#./}
	if [ ! -x "$top/$rel" ]; then
		flunk "README's quick start runs $prog: not an executable file of the tree"
		continue
	fi
	if head -n1 "$top/$rel" | grep -q 'sh$' && ! bash -n "$top/$rel"; then
		flunk "README's quick start runs $prog: it does not parse (bash -n)"
		continue
	fi
	if [ "$cmd" = "$ci_cmd" ]; then
		ci_found=1
		pass "README's $cmd is what .ci/run runs"
	elif grep -qx "$rel" "$TMP/reached"; then
		pass "README's $cmd: CI runs $rel"
	else
		flunk "README's quick start command $cmd is not run by CI (.ci/run reaches: $(tr '\n' ' ' < "$TMP/reached"))"
	fi
done < "$TMP/quick"
[ "$ci_found" = 1 ] ||
	flunk "CI runs \"$ci_cmd\" (.ci/run), which is not a command of README's quick start"

finish
