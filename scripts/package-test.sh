#!/usr/bin/env bash
# package-test.sh - the packages, end to end, as an SM host gets them:
#   1. build the Debian packages (debian/) with dpkg-buildpackage in a
#      clean copy of the tree (tracked and untracked-but-not-ignored files;
#      no build outputs), warnings as errors;
#   2. lintian on them: no error, no warning (overrides say why);
#   3. install them with apt-get, run the autopkgtest debian/tests/opensm-fig1
#      (the system's opensm routes ibsim's Fig. 1 fabric with the installed
#      plugin; as nobody when run as root: it needs no root), check
#      `man ibrouting` and `man libibrouting` render;
#   4. remove (the conffile stays), purge, and check nothing of ours is left:
#      no file, no conffile, no dpkg entry, no ld.so.cache entry;
#   5. rpmbuild on ibrouting.spec from the `make dist` tarball: the source
#      RPM and the binary RPMs (--nodeps: Debian's rpm has no database of
#      the BuildRequires, which are met by the Debian packages; --nocheck:
#      the unit tests ran in step 1).
# Prints what it does and ends with one summary line.  Needs root or sudo
# (apt-get).  Where every test must run (CI=true or
# IBROUTING_REQUIRE_ALL_TESTS=1) a missing tool fails; elsewhere it skips
# (exit 77).  KEEP=1 keeps the work directory.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
start=$(date +%s)
pkgs="opensm-ibrouting ibrouting"

strict() { [ "${CI:-}" = true ] || [ "${IBROUTING_REQUIRE_ALL_TESTS:-}" = 1 ]; }
skip() {
	if strict; then
		echo "package-test: FAIL: $* (every test must run here: CI / IBROUTING_REQUIRE_ALL_TESTS)"
		exit 1
	fi
	echo "package-test: SKIP: $*"
	exit 77
}
fail() { echo "package-test: FAIL: $*"; exit 1; }
step() { echo "== $*"; }
elapsed() { echo $(($(date +%s) - $1)); }

SUDO=""
if [ "$(id -u)" != 0 ]; then
	sudo -n true 2>/dev/null || skip "needs root or password-less sudo (apt-get install/purge)"
	SUDO=sudo
fi
for tool in dpkg-buildpackage dpkg-checkbuilddeps dh lintian rpmbuild rpmspec man apt-get; do
	command -v "$tool" >/dev/null 2>&1 ||
		skip "$tool is not installed (Debian debhelper, lintian, rpm, man-db: .ci/packages)"
done
for pkg in opensm ibsim-utils libumad2sim0 infiniband-diags; do
	dpkg-query -W -f '${Status}' "$pkg" 2>/dev/null | grep >/dev/null ' installed$' ||
		skip "$pkg is not installed (the autopkgtest's Depends)"
done
for pkg in $pkgs; do
	if dpkg-query -W -f '${Status}' "$pkg" 2>/dev/null | grep -v >/dev/null 'not-installed'; then
		fail "$pkg is already on this system ($(dpkg-query -W -f '${Status} ${Version}' "$pkg")): purge it first (apt-get purge $pkgs)"
	fi
done

W=$(mktemp -d "${TMPDIR:-/tmp}/ibrouting-pkg.XXXXXX")
chmod 755 "$W"   # apt's _apt user reads the .debs; nobody runs the autopkgtest
installed=0
cleanup() {
	if [ $installed = 1 ]; then
		echo "package-test: purging $pkgs after a failure"
		$SUDO env DEBIAN_FRONTEND=noninteractive apt-get purge -y -q \
			-o DPkg::Lock::Timeout=600 $pkgs > "$W/cleanup.log" 2>&1 || cat "$W/cleanup.log"
	fi
	if [ "${KEEP:-}" = 1 ]; then echo "package-test: work directory kept: $W"; else rm -rf "$W"; fi
}
trap cleanup EXIT
trap 'exit 1' HUP INT TERM
apt() {
	$SUDO env DEBIAN_FRONTEND=noninteractive apt-get -y -q -o DPkg::Lock::Timeout=600 "$@"
}

step "versions: configure.ac, debian/changelog, ibrouting.spec"
v_ac=$(sed -n 's/^AC_INIT(\[ibrouting\], \[\([^]]*\)\].*/\1/p' "$top/configure.ac")
v_deb=$(dpkg-parsechangelog -l "$top/debian/changelog" -S Version)
v_rpm=$(sed -n 's/^Version: *//p' "$top/ibrouting.spec")
[ -n "$v_ac" ] && [ "${v_deb%-*}" = "$v_ac" ] && [ "$v_rpm" = "$v_ac" ] ||
	fail "versions differ: configure.ac '$v_ac', debian/changelog '$v_deb', ibrouting.spec '$v_rpm'"
echo "upstream $v_ac, Debian $v_deb, RPM $v_rpm-$(sed -n 's/^Release: *\([0-9]*\).*/\1/p' "$top/ibrouting.spec")"

step "clean copy of the tree"
mkdir "$W/tree"
if git -C "$top" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	(cd "$top" && git ls-files -z --cached --others --exclude-standard |
		while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done |
		tar --null -T - -cf -) | tar -xf - -C "$W/tree"
	how="git ls-files"
else
	tar -C "$top" --exclude=./build --exclude='./build-*' -cf - . | tar -xf - -C "$W/tree"
	how="the tree without build/"
fi
chmod -R a+rX "$W/tree"
cp -a "$W/tree" "$W/src"   # built in; tree stays pristine for the autopkgtest
echo "$(find "$W/tree" -type f | wc -l) files ($how) in $W/tree"

step "dpkg-buildpackage -b -us -uc (DEB_BUILD_OPTIONS=werror: warnings are errors)"
(cd "$W/src" && dpkg-checkbuilddeps) > "$W/builddeps.log" 2>&1 ||
	skip "build dependencies missing: $(cat "$W/builddeps.log")"
t=$(date +%s)
(cd "$W/src" && DEB_BUILD_OPTIONS="werror${DEB_BUILD_OPTIONS:+ $DEB_BUILD_OPTIONS}" \
	dpkg-buildpackage -b -us -uc -Jauto) > "$W/build.log" 2>&1 ||
	{ tail -n 60 "$W/build.log"; fail "dpkg-buildpackage failed"; }
build_s=$(elapsed "$t")
grep -E '^# (TOTAL|PASS|FAIL|SKIP|ERROR):' "$W/build.log" | tr '\n' ' ' | sed 's/^/unit tests in the build: /; s/ $/\n/'
changes=$(ls "$W"/ibrouting_*.changes)
deb_plugin=$(ls "$W"/opensm-ibrouting_*.deb)
deb_tool=$(ls "$W"/ibrouting_*.deb)
echo "built in ${build_s}s: $(cd "$W" && ls -- *.deb | tr '\n' ' ')"
for deb in "$deb_plugin" "$deb_tool"; do
	echo "-- $(basename "$deb"): $(dpkg-deb -f "$deb" Section) / $(dpkg-deb -f "$deb" Description | head -n 1)"
	echo "   Depends: $(dpkg-deb -f "$deb" Depends)"
	dpkg-deb -c "$deb" | sed 's/^/   /'
done

# The plugin's opensm dependency is the OSM_VERSION it was compiled with.
osm=$(sed -n 's/^#define OSM_VERSION "OpenSM \([^"]*\)"$/\1/p' /usr/include/infiniband/opensm/osm_version.h)
dpkg-deb -f "$deb_plugin" Depends | grep -F >/dev/null "opensm (>= $osm), opensm (<< $osm.~)" ||
	fail "opensm-ibrouting does not depend on opensm $osm exactly: $(dpkg-deb -f "$deb_plugin" Depends)"
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
dpkg-deb -c "$deb_plugin" | grep >/dev/null " \./usr/lib/$multiarch/libibrouting\.so$" ||
	fail "opensm-ibrouting lacks /usr/lib/$multiarch/libibrouting.so"
dpkg-deb -I "$deb_plugin" conffiles 2>/dev/null | grep -x >/dev/null /etc/opensm/opensm-plugin.conf ||
	fail "/etc/opensm/opensm-plugin.conf is not a conffile of opensm-ibrouting"

step "lintian on the .changes (its .debs and .buildinfo): an E: or W: line fails; overridden tags shown as O:, with why (N:)"
# the verdict from the output: with --show-overrides, lintian's own
# --fail-on counts overridden tags too
lintian --fail-on none --show-overrides --display-info "$changes" > "$W/lintian.log" 2>&1 ||
	{ cat "$W/lintian.log"; fail "lintian did not run"; }
grep -v 'running with root privileges is not recommended' "$W/lintian.log" || true
! grep -E '^[EW]: ' "$W/lintian.log" >/dev/null ||
	fail "lintian: $(grep -c '^E: ' "$W/lintian.log") errors, $(grep -c '^W: ' "$W/lintian.log") warnings"
overridden=$(grep -c '^O: ' "$W/lintian.log" || true)

step "apt-get install the .debs"
installed=1
apt install --no-install-recommends "$deb_plugin" "$deb_tool" > "$W/install.log" 2>&1 ||
	{ cat "$W/install.log"; fail "apt-get install failed"; }
dpkg -L $pkgs | sort -u > "$W/files.list"
echo "$(dpkg-query -W -f '${Package} ${Version} ${Status}\n' $pkgs | tr '\n' ';') $(wc -l < "$W/files.list") paths"
# No test hook and no benchmark engine in what ships: the tests and the
# benchmarks get theirs from builds of their own (Makefile.am).
for f in $(grep -E '/(libibrouting\.so|ibrouting)$' "$W/files.list"); do
	hooks=$(strings "$f" | grep -E 'IBROUTING_TEST_|IBROUTING_BENCH_|zero-cost|ibr_fera_probe' | head -n 3 | tr '\n' ' ' || true)
	[ -z "$hooks" ] || fail "$f carries a test hook or benchmark engine: $hooks"
done

step "autopkgtest debian/tests/opensm-fig1 against the installed packages"
# from the pristine tree, as autopkgtest runs it; as nobody when root
runas=""
[ "$(id -u)" = 0 ] && command -v runuser >/dev/null 2>&1 && runas="runuser -u nobody --"
(cd "$W/tree" && $runas env TMPDIR=/tmp debian/tests/opensm-fig1) > "$W/autopkgtest.log" 2>&1 ||
	{ cat "$W/autopkgtest.log"; fail "debian/tests/opensm-fig1 failed"; }
cat "$W/autopkgtest.log"

step "man ibrouting, man libibrouting"
for page in "1 ibrouting" "8 libibrouting"; do
	set -- $page
	where=$(man -w "$1" "$2" 2>&1) || fail "man -w $1 $2: $where"
	[ "$where" = "/usr/share/man/man$1/$2.$1.gz" ] || fail "man $1 $2 is $where, not the installed page"
	MANWIDTH=80 LC_ALL=C.UTF-8 MANPAGER=cat man --warnings "$1" "$2" > "$W/man.out" 2> "$W/man.err" ||
		{ cat "$W/man.err"; fail "man $1 $2 did not render"; }
	[ ! -s "$W/man.err" ] || { cat "$W/man.err"; fail "man $1 $2: warnings"; }
	name=$(sed -n '/^NAME/{n;p;q}' "$W/man.out" | sed 's/^ *//')
	[ -n "$name" ] || fail "man $1 $2: no NAME section"
	echo "$where: $(wc -l < "$W/man.out") lines, NAME: $name"
done

step "apt-get remove (the conffile stays), apt-get purge (nothing stays)"
apt remove $pkgs > "$W/remove.log" 2>&1 || { cat "$W/remove.log"; fail "apt-get remove failed"; }
[ ! -e "/usr/lib/$multiarch/libibrouting.so" ] || fail "libibrouting.so is left after apt-get remove"
[ -f /etc/opensm/opensm-plugin.conf ] || fail "apt-get remove took the conffile /etc/opensm/opensm-plugin.conf"
dpkg-query -W -f '${Status}' opensm-ibrouting | grep >/dev/null 'config-files' ||
	fail "opensm-ibrouting is not in config-files state after remove: $(dpkg-query -W -f '${Status}' opensm-ibrouting)"
echo "removed: opensm-ibrouting $(dpkg-query -W -f '${Status}' opensm-ibrouting), /etc/opensm/opensm-plugin.conf kept"
apt purge $pkgs > "$W/purge.log" 2>&1 || { cat "$W/purge.log"; fail "apt-get purge failed"; }
installed=0
left=0
while read -r path; do
	[ "$path" = /. ] && continue
	if [ -d "$path" ] && [ ! -L "$path" ]; then
		# a directory may stay only as another package's
		dpkg -S "$path" >/dev/null 2>&1 || { echo "left: directory $path (no other package owns it)"; left=$((left + 1)); }
	elif [ -e "$path" ] || [ -L "$path" ]; then
		echo "left: $path"; left=$((left + 1))
	fi
done < "$W/files.list"
for f in /etc/opensm/opensm-plugin.conf /etc/opensm/opensm-plugin.conf.dpkg-old /etc/opensm/opensm-plugin.conf.dpkg-dist; do
	[ ! -e "$f" ] || { echo "left: $f"; left=$((left + 1)); }
done
if dpkg -l $pkgs 2>/dev/null | grep -E '^[a-z][a-zA-Z]{1,2} ' | grep -vE '^[up]n '; then
	echo "left: dpkg entries above"; left=$((left + 1))
fi
if ldconfig -p | grep >/dev/null libibrouting; then
	echo "left: ld.so.cache entry: $(ldconfig -p | grep libibrouting)"; left=$((left + 1))
fi
[ $left = 0 ] || fail "$left things of ours left after apt-get purge"
echo "purged: none of the $(wc -l < "$W/files.list") paths left (directories only as other packages'), no conffile, no dpkg entry, no ld.so.cache entry"

step "rpmbuild on ibrouting.spec from the make dist tarball"
t=$(date +%s)
# dpkg-buildpackage left $W/src configured (Debian's paths): make dist there
(cd "$W/src" && make dist) > "$W/dist.log" 2>&1 || { tail -n 30 "$W/dist.log"; fail "make dist failed"; }
tarball=$(ls "$W/src/ibrouting-$v_ac.tar.gz")
# the tarball must carry what builds the packages
missing=$( (cd "$W/tree" && find debian -type f; echo ibrouting.spec) | sort > "$W/pkgfiles"
	tar -tzf "$tarball" | sed "s|^ibrouting-$v_ac/||" | sort | comm -23 "$W/pkgfiles" -)
[ -z "$missing" ] || fail "make dist's tarball lacks: $(echo $missing) (EXTRA_DIST in Makefile.am)"
rpmspec -P "$W/tree/ibrouting.spec" > "$W/spec.parsed" 2>&1 || { cat "$W/spec.parsed"; fail "rpmspec -P failed"; }
mkdir -p "$W/rpm"
rpmbuild --define "_topdir $W/rpm" --nodeps --nocheck -ta "$tarball" > "$W/rpmbuild.log" 2>&1 ||
	{ tail -n 40 "$W/rpmbuild.log"; fail "rpmbuild -ta failed"; }
rpm_s=$(elapsed "$t")
rpms=$(cd "$W/rpm" && find SRPMS RPMS -name '*.rpm' | sort)
[ -n "$rpms" ] || fail "rpmbuild built no package"
for r in $rpms; do
	echo "-- $r"
	case $r in SRPMS/*) continue ;; esac
	rpm -qp --requires "$W/rpm/$r" 2>/dev/null | grep -v '^rpmlib(' | sed 's/^/   Requires: /'
	rpm -qp --list "$W/rpm/$r" 2>/dev/null | sed 's/^/   /'
done
plugin_rpm=$(cd "$W/rpm" && ls RPMS/*/opensm-ibrouting-*.rpm)
rpm -qp --requires "$W/rpm/$plugin_rpm" 2>/dev/null | grep -E >/dev/null "^opensm(\(x86-64\))? = $osm$" ||
	fail "$plugin_rpm does not require opensm = $osm"
rpm -qp --configfiles "$W/rpm/$plugin_rpm" 2>/dev/null | grep -x >/dev/null /etc/opensm/opensm-plugin.conf ||
	fail "$plugin_rpm: /etc/opensm/opensm-plugin.conf is not %config"

echo "package-test: OK in $(elapsed "$start")s: $(basename "$deb_plugin") and $(basename "$deb_tool") built (${build_s}s, unit tests included), lintian clean ($overridden overridden), installed, autopkgtest opensm-fig1 passed${runas:+ (as nobody)}, man pages render, removed and purged leaving nothing; rpmbuild (${rpm_s}s, --nodeps --nocheck): $(echo $rpms | sed 's|[A-Z]*RPMS/[^ ]*/||g; s|SRPMS/||g')"
