#!/bin/sh
# e2e_options.sh - opensm-plugin.conf and OpenSM's own options, and the
# ways our engine must refuse so that OpenSM falls back, on the Fig. 1
# fabric served by ibsim:
#   - `root GUID` in opensm-plugin.conf moves the root; root_guid_file,
#     when set, wins over it; tables equal `ibrouting route --root`;
#   - unknown keys and bad values (also ENGINE_OPTION lines an engine
#     refuses): an ERR line naming file:line, key and value, the default
#     used, routing still done by our engine;
#   - verification: by default the certificate (INFO line), with
#     `verify_method full` the full check, each named in the INFO line;
#     a bad verify_method value is reported and the certificate used;
#     sound tables that fail the certificate (judged, by a test-only
#     variable, under another root's orientation) are pushed after the
#     full check, with a WRN line and the INFO line saying so;
#   - dump_dir: the plugin writes dumps that equal OpenSM's own;
#   - the root chain: root_guid_file, the root option, the SM's switch; a
#     link that cannot be used is passed over with a WRN IB27 line (the
#     GUIDs of root_guid_file that are no switch, too), and with
#     `root_fallback refuse` an impossible root is an ERR line and OpenSM
#     falls back to dfsssp (tests/e2e_root.sh: a root that dies);
#   - a plugin built for another OpenSM version is refused by OpenSM,
#     which says so, and falls back.
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/e2e_lib.sh"
e2e_requirements

net=$FABRICS_DIR/fig1.net
ibsim_start "$net"


tables_equal_offline() {
	name=$1
	shift
	switch_lfts > "$TMP/$name/switches.lft"
	"$IBROUTING" route --print-lfts "$@" "$net" | grep '^0x' | sort > "$TMP/$name/offline.lft"
	if cmp -s "$TMP/$name/switches.lft" "$TMP/$name/offline.lft"; then
		pass "$name: switch tables equal 'ibrouting route $*'"
	else
		flunk "$name: switch tables differ from 'ibrouting route $*'"
	fi
}

# The plugin's own root option.
printf 'root 0x200003\n' > "$TMP/root.conf"
IBROUTING_CONF=$TMP/root.conf opensm_run conf-root fera
log_has conf-root "build_lid_matrices: fera: .*root 0x0000000000200003" "root from opensm-plugin.conf"
tables_equal_offline conf-root -e fera --root 0x200003

# OpenSM's root_guid_file wins over the plugin's option and is read as
# updn reads it: every GUID that is a switch is a root (a CA GUID and an
# absent one are passed over).
printf '# roots\n0x100700\n0xdead0000\n0x200006\n0x200002\n' > "$TMP/roots"
IBROUTING_CONF=$TMP/root.conf opensm_run guid-file pira "root_guid_file $TMP/roots"
log_has guid-file "build_lid_matrices: pira: .*roots 2 \\(root_guid_file .*\\): 0x0000000000200002, 0x0000000000200006" "root_guid_file's switches are the root set"
log_has guid-file "WRN IB27: pira: root GUID 0x0000000000100700 of root_guid_file .* is a CA, not a switch; the roots are root_guid_file" "a CA GUID passed over"
log_has guid-file "WRN IB27: pira: root GUID 0x00000000dead0000 of root_guid_file .* is not in the fabric" "an absent GUID passed over"
tables_equal_offline guid-file -e pira --root 0x200006,0x200002

# Bad keys and values are reported, defaults kept, routing still ours.
printf '# a comment\nroot middle\nverify_before_push maybe\ncolour blue\n\npira_depth 3\nverify_method quick\nroot_fallback sometimes\n' > "$TMP/bad.conf"
IBROUTING_CONF=$TMP/bad.conf opensm_run bad-conf pira
log_has bad-conf "ERR IB01: .*bad.conf:2: root \"middle\".*using auto" "bad root value"
log_has bad-conf "ERR IB02: .*bad.conf:3: verify_before_push \"maybe\".*using yes" "bad boolean"
log_has bad-conf "ERR IB03: .*bad.conf:4: unknown key \"colour\" \\(value \"blue\"\\)" "unknown key"
log_has bad-conf "ERR IB06: .*bad.conf:6: pira_depth \"3\": engine pira has no option \"depth\"" "an engine option the engine does not have"
log_has bad-conf "pira tables configured on all switches" "defaults used, pira still routes"
log_has bad-conf "ERR IB07: .*bad.conf:7: verify_method \"quick\": expected certificate or full; using certificate" "bad verify_method"
log_has bad-conf "ERR IB29: .*bad.conf:8: root_fallback \"sometimes\": expected next or refuse; using next" "bad root_fallback"
log_has bad-conf "build_lid_matrices: pira: .*root 0x0000000000200006 \\(auto: irregular, a switch of minimum eccentricity \\(unmeasured: the engine does not balance\\)\\), verified: legal up\\*/down\\* \\(certificate\\)" "default root (auto: Fig. 1 is no fat tree) and verification (the certificate)"

# The full check on request, named as such.
printf 'verify_method full\n' > "$TMP/full.conf"
IBROUTING_CONF=$TMP/full.conf opensm_run verify-full fera
log_has verify-full "build_lid_matrices: fera: .*verified: no loop, all delivered, acyclic \\(full check\\)" "verify_method full"

# Sound tables the certificate refuses (pira's from 0x200006, judged
# under the orientation from 0x200001): the full check decides, pushes.
# The judging root is a test hook of the test plugin only
# (tests/certify_root_hook.c), which make check builds.
if [ -f "${FAILALLOC_DIR:-}/libibrouting-failalloc.so" ]; then
	IBROUTING_TEST_CERTIFY_ROOT=0x200001 OSM_PLUGINS=ibrouting-failalloc \
		PLUGIN_DIR=$FAILALLOC_DIR opensm_run cert-fails pira
	log_has cert-fails "WRN IB17: pira: the certificate fails \\(0 bad ports, 0 unreachable, [1-9][0-9]* down-up turns.*the full check decides" "a failed certificate is logged"
	log_has cert-fails "build_lid_matrices: pira: .*acyclic \\(full check; not legal up\\*/down\\* under the run's orientation\\)" "the full check accepts the tables"
	log_has cert-fails "pira tables configured on all switches" "and pira's tables are pushed"
else
	flunk "cert-fails: the test plugin was not built (${FAILALLOC_DIR:-FAILALLOC_DIR unset}/libibrouting-failalloc.so: make check builds it)"
fi

# dump_dir: our own dumps of every run, which our verifier accepts.
printf 'dump_dir %s/ourdumps\n' "$TMP" > "$TMP/dump.conf"
mkdir -p "$TMP/ourdumps"
IBROUTING_CONF=$TMP/dump.conf opensm_run dump-dir pira
if "$IBROUTING" verify "$TMP/ourdumps" > "$TMP/ourdumps.out" 2>&1 &&
   cmp -s "$TMP/ourdumps/opensm-lfts.dump" "$TMP/dump-dir/dump/opensm-lfts.dump"; then
	pass "dump-dir: the plugin's opensm-lfts.dump equals OpenSM's, and $(grep '^verify' "$TMP/ourdumps.out")"
else
	flunk "dump-dir: the plugin's dumps are missing, differ from OpenSM's or fail verification"
	sed 's/^/# /' "$TMP/ourdumps.out"
fi

# A missing configuration file named by IBROUTING_CONF.
IBROUTING_CONF=$TMP/nosuch.conf opensm_run no-conf fera
log_has no-conf "ERR IB04: cannot read .*nosuch.conf" "unreadable configuration"
log_has no-conf "fera tables configured on all switches" "defaults used"

# An impossible root in every configured link: the chain ends at the
# SM's switch, each link passed over named in a WRN line.
printf 'root 0xdeadbeef\n' > "$TMP/impossible.conf"
IBROUTING_CONF=$TMP/impossible.conf opensm_run chain "pira,dfsssp" "root_guid_file $TMP/no-such-file"
log_has chain "WRN IB27: pira: root_guid_file .*no-such-file cannot be read; the root is the SM's switch" "unreadable root_guid_file passed over"
log_has chain "WRN IB27: pira: root GUID 0x00000000deadbeef of .*impossible.conf is not in the fabric; the root is the SM's switch" "absent root option passed over"
log_has chain "build_lid_matrices: pira: .*root 0x0000000000200001" "the SM's switch is the root"
log_has chain "pira tables configured on all switches" "pira routes"

# The same with root_fallback refuse: the engine refuses, OpenSM falls
# back to dfsssp.
printf 'root 0xdeadbeef\nroot_fallback refuse\n' > "$TMP/refuse.conf"
IBROUTING_CONF=$TMP/refuse.conf opensm_run refuse "pira,dfsssp" "root_guid_file $TMP/no-such-file"
log_has refuse "ERR IB12: pira cannot route: cannot read root_guid_file .*root_fallback refuse" "refusal logged"
log_has refuse "building routing with 'dfsssp'" "OpenSM falls back to dfsssp"
log_has refuse "dfsssp tables configured on all switches" "dfsssp routes the fabric"
IBROUTING_CONF=$TMP/refuse.conf opensm_run refuse-root "fera,dfsssp"
log_has refuse-root "ERR IB12: fera cannot route: root GUID 0x00000000deadbeef of .*refuse.conf is not in the fabric \\(root_fallback refuse\\)" "refusal logged"
log_has refuse-root "dfsssp tables configured on all switches" "OpenSM falls back to dfsssp"

# A plugin built for another OpenSM: OpenSM refuses to load it.
mkdir -p "$TMP/otherversion"
sed 's/OpenSM 3\.3\.23/OpenSM 9.9.99/' "$PLUGIN_DIR/libibrouting.so" > "$TMP/otherversion/libibrouting.so"
if grep -q "OpenSM 9.9.99" "$TMP/otherversion/libibrouting.so"; then
	PLUGIN_DIR=$TMP/otherversion opensm_run other-version "pira,dfsssp"
	log_has other-version "OpenSM version mismatch" "OpenSM names the version mismatch"
	log_has other-version "cannot find or setup routing engine 'pira'" "pira unavailable"
	log_has other-version "dfsssp tables configured on all switches" "OpenSM falls back to dfsssp"
else
	flunk "could not make a plugin for another OpenSM version (is OSM_VERSION 'OpenSM 3.3.23'?)"
fi
finish
