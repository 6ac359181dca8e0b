#!/usr/bin/env bash
# Self-test of the kernel-port harness (no kernel build, no real boot needed).
#  * parse-log on synthetic serial logs: clean log -> exit 0; failing test,
#    kernel WARN, "Bad page", BUG/Oops/panic, missing end marker -> non-zero;
#    baseline write/compare (regression -> non-zero, known failure -> 0).
#  * run-guest hung-guest detection with a fake QEMU on PATH (always), and with
#    the real QEMU + cached kernel/initramfs and a 5 s timeout (only when a
#    build is cached under $FOLIOSIM_KBUILD; skipped otherwise).
# Prints "N passed, M failed" at the end; exits non-zero on any failure.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
S="$REPO/kernel-port/scripts"
KB="${FOLIOSIM_KBUILD:-/var/tmp/foliosim-kbuild}"
TMP="$(mktemp -d /tmp/foliosim-harness.XXXXXX)"
trap 'rm -rf "$TMP"' EXIT

PASS=0
FAIL=0
SKIP=0
ok()   { PASS=$((PASS + 1)); echo "ok - $*"; }
bad()  { FAIL=$((FAIL + 1)); echo "not ok - $*"; }
skip() { SKIP=$((SKIP + 1)); echo "ok - # SKIP $*"; }

# expect_rc WANT(0|nonzero) NAME CMD... : run CMD, check its exit status.
expect_rc() {
    local want="$1" name="$2" rc=0
    shift 2
    "$@" > "$TMP/out.txt" 2>&1 || rc=$?
    if { [ "$want" = 0 ] && [ "$rc" -eq 0 ]; } || { [ "$want" = nonzero ] && [ "$rc" -ne 0 ]; }; then
        ok "$name (exit $rc)"
    else
        bad "$name: expected exit $want, got $rc"
        sed 's/^/    | /' "$TMP/out.txt"
    fi
}
# expect_out REGEX NAME : the output of the previous expect_rc matches REGEX
expect_out() {
    if grep -qE "$1" "$TMP/out.txt"; then ok "$2"; else bad "$2: output lacks /$1/"; sed 's/^/    | /' "$TMP/out.txt"; fi
}

# ---------------------------------------------------------- synthetic logs --
clean_log() {
    cat <<'EOF'
[    0.000000] Linux version 6.12.118 (root@vm) #1 SMP
[    1.200000] Run /init as init process
FOLIOSIM-KTEST-BEGIN kernel=6.12.118 mode=legacy selftests=all
TAP version 13
1..3
# selftest: cow
# command: ./cow
# TAP version 13
# ok 1 Basic COW after fork() with base page
# # Totals: pass:211 fail:0 xfail:0 xpass:0 skip:429 error:0
ok 1 cow # time=4s
# selftest: uffd-unit-tests
# Userfaults unit tests: pass=42, skip=24, fail=0 (total=66)
ok 2 uffd-unit-tests # time=38s
# selftest: migration
# # Totals: pass:0 fail:0 xfail:0 xpass:0 skip:6 error:0
ok 3 migration # SKIP exit code 4 (KSFT_SKIP) time=0s
# summary: 3 run, 0 failed
FOLIOSIM-KTEST-END status=pass failed=0 total=3
[   30.000000] reboot: Restarting system
EOF
}
clean_log > "$TMP/clean.log"
expect_rc 0 "clean log exits 0" "$S/parse-log" "$TMP/clean.log"

# The closing line for the clean log: cow + uffd pass, migration skip, plus
# [kernel-log] and [end-marker] checks = 4 passed, 0 failed, 1 skipped.
"$S/parse-log" "$TMP/clean.log" > "$TMP/out.txt" 2>&1 || true
expect_out '^4 passed, 0 failed, 1 skipped$' "clean log: closing line '4 passed, 0 failed, 1 skipped'"
expect_out '^cow +pass +211 +0 +0 +0 +429 +0' "clean log: Totals counts of cow in the table"
expect_out '^uffd-unit-tests +pass +42 +0 +0 +0 +24 +0' "clean log: uffd summary counts in the table"

sed 's/^ok 1 cow # time=4s$/not ok 1 cow # exit=1 time=4s/' "$TMP/clean.log" > "$TMP/failing.log"
expect_rc nonzero "failing selftest line exits non-zero" "$S/parse-log" "$TMP/failing.log"
expect_out '^[0-9]+ passed, 1 failed' "failing selftest: closing line reports 1 failed"

sed 's/^ok 2 uffd-unit-tests.*$/not ok 2 uffd-unit-tests # TIMEOUT after 300s (rc=143)/' "$TMP/clean.log" > "$TMP/timeout.log"
expect_rc nonzero "selftest timeout exits non-zero" "$S/parse-log" "$TMP/timeout.log"

inject() { # inject FILE TEXT... : put kernel lines after the cow result
    local f="$1"; shift
    awk -v txt="$(printf '%s\n' "$@")" '{print} /^ok 1 cow/{print txt}' "$TMP/clean.log" > "$f"
}
inject "$TMP/warn.log" \
    "[   12.345678] ------------[ cut here ]------------" \
    "[   12.345679] WARNING: CPU: 1 PID: 80 at mm/rmap.c:1234 folio_add_anon_rmap_ptes+0x1/0x2" \
    "[   12.345690] ---[ end trace 0000000000000000 ]---"
expect_rc nonzero "kernel WARNING exits non-zero" "$S/parse-log" "$TMP/warn.log"
expect_out 'WARNING: CPU: 1' "kernel WARNING: offending line is printed"

inject "$TMP/badpage.log" \
    "[   13.000000] BUG: Bad page state in process cow  pfn:12345" \
    "[   13.000001] page: refcount:0 mapcount:1 mapping:0000000000000000 index:0x0 pfn:0x12345"
expect_rc nonzero "Bad page exits non-zero" "$S/parse-log" "$TMP/badpage.log"
expect_out 'Bad page|BUG' "Bad page: offending line is printed"

inject "$TMP/badpage2.log" "[   13.000000] Bad page map in process cow  pte:8000000012345067"
expect_rc nonzero "'Bad page map' (without BUG:) exits non-zero" "$S/parse-log" "$TMP/badpage2.log"

inject "$TMP/oops.log" "[   14.000000] Oops: general protection fault, probably for non-canonical address 0xdead: 0000 [#1] SMP"
expect_rc nonzero "Oops / general protection fault exits non-zero" "$S/parse-log" "$TMP/oops.log"

inject "$TMP/kbug.log" "[   14.000000] kernel BUG at mm/huge_memory.c:3000!"
expect_rc nonzero "kernel BUG exits non-zero" "$S/parse-log" "$TMP/kbug.log"

# KCSAN: a race fails, unless --accept-races lists its pair (either order)
inject "$TMP/kcsan.log" \
    "[   15.000000] ==================================================================" \
    "[   15.000001] BUG: KCSAN: data-race in folio_pfn / folio_wait_bit_common" \
    "[   15.000002] read to 0xffff88807ec40000 of 8 bytes by task 1201 on cpu 1:"
expect_rc nonzero "KCSAN report exits non-zero" "$S/parse-log" "$TMP/kcsan.log"
printf '# why\nfolio_wait_bit_common / folio_pfn\n' > "$TMP/races.txt"
expect_rc 0 "KCSAN report of an accepted pair exits 0" \
    "$S/parse-log" --accept-races "$TMP/races.txt" "$TMP/kcsan.log"
expect_out 'accepted KCSAN races \(races.txt\): 1 report' "accepted KCSAN race is counted and printed"
printf 'folio_pfn / migration_entry_wait_on_locked\n' > "$TMP/races2.txt"
expect_rc nonzero "KCSAN report of another pair still exits non-zero" \
    "$S/parse-log" --accept-races "$TMP/races2.txt" "$TMP/kcsan.log"
printf 'folio_pfn\n' > "$TMP/races3.txt"
expect_rc nonzero "a malformed race list is an error" \
    "$S/parse-log" --accept-races "$TMP/races3.txt" "$TMP/kcsan.log"
expect_out "cannot read .*races3.txt: not 'A / B'" "a malformed race list names the file and the line"
expect_rc 0 "kernel-port/kcsan-accepted.txt parses" \
    "$S/parse-log" --accept-races "$S/../kcsan-accepted.txt" "$TMP/kcsan.log"

# Kernel message interleaved inside a test output line ("# " prefix).
inject "$TMP/interleaved.log" "# # [RUN] Basic COW[   15.000000] WARNING: CPU: 0 PID: 1 at mm/memory.c:1 x"
expect_rc nonzero "kernel WARNING interleaved in a test output line exits non-zero" "$S/parse-log" "$TMP/interleaved.log"

# A selftest printing the word WARNING in its own (prefixed) output is not a kernel WARN.
inject "$TMP/testwarn.log" "# # WARNING: test-side message, not a kernel warning"
expect_rc 0 "test-side 'WARNING:' in '# ' output is not a kernel problem" "$S/parse-log" "$TMP/testwarn.log"

head -n 12 "$TMP/clean.log" > "$TMP/hung.log"
expect_rc nonzero "log without end marker (hung/dead guest) exits non-zero" "$S/parse-log" "$TMP/hung.log"
expect_out 'FOLIOSIM-KTEST-END' "missing end marker is named"

{ head -n 3 "$TMP/clean.log"; echo "[    2.000000] Kernel panic - not syncing: Attempted to kill init! exitcode=0x00000100"; } > "$TMP/panic.log"
expect_rc nonzero "Kernel panic before any test exits non-zero" "$S/parse-log" "$TMP/panic.log"

grep -v '^ok 3 migration' "$TMP/clean.log" > "$TMP/short.log"
expect_rc nonzero "fewer results than the TAP plan exits non-zero" "$S/parse-log" "$TMP/short.log"

# ---------------------------------------------------------------- baseline --
expect_rc 0 "write a baseline from the clean log" "$S/parse-log" "$TMP/clean.log" --write-baseline "$TMP/base.txt"
if grep -qE '^cow +pass +211 0 0 0 429 0$' "$TMP/base.txt"; then ok "baseline file has the cow row"; else bad "baseline file content"; cat "$TMP/base.txt"; fi
expect_rc 0 "clean log vs its own baseline exits 0" "$S/parse-log" "$TMP/clean.log" --baseline "$TMP/base.txt"
expect_rc nonzero "pass -> fail against the baseline is a regression" "$S/parse-log" "$TMP/failing.log" --baseline "$TMP/base.txt"
expect_out '^regression: cow' "regression is named"
sed 's/# # Totals: pass:211 fail:0 /# # Totals: pass:210 fail:1 /' "$TMP/clean.log" > "$TMP/morefail.log"
expect_rc nonzero "more failing cases in a binary is a regression" "$S/parse-log" "$TMP/morefail.log" --baseline "$TMP/base.txt"
"$S/parse-log" "$TMP/failing.log" --write-baseline "$TMP/base-fail.txt" > /dev/null 2>&1 || true
expect_rc 0 "a failure already in the baseline is 'known', not a failure" "$S/parse-log" "$TMP/failing.log" --baseline "$TMP/base-fail.txt"
expect_out 'known failures' "known failure is reported"
expect_rc nonzero "a kernel WARN fails even with a baseline" "$S/parse-log" "$TMP/warn.log" --baseline "$TMP/base.txt"

# ------------------------------------------------------- hung guest (fake) --
mkdir -p "$TMP/bin"
cat > "$TMP/bin/qemu-system-x86_64" <<'EOF'
#!/bin/sh
# fake QEMU: writes a boot line to the serial file, then hangs forever
for a in "$@"; do case "$a" in file:*) echo "[    0.000000] Linux version fake" > "${a#file:}";; esac; done
exec sleep 1000
EOF
chmod +x "$TMP/bin/qemu-system-x86_64"
echo fake > "$TMP/fake-bzImage"
echo fake > "$TMP/fake-initrd"
t0=$(date +%s)
expect_rc nonzero "run-guest with a hanging (fake) QEMU exits non-zero" \
    env PATH="$TMP/bin:$PATH" "$S/run-guest" --kernel "$TMP/fake-bzImage" --initramfs "$TMP/fake-initrd" \
        --timeout 3 --no-baseline --log "$TMP/fake-serial.log"
dt=$(( $(date +%s) - t0 ))
expect_out 'guest hung' "fake hang: 'guest hung' reported"
if [ "$dt" -lt 30 ]; then ok "fake hang: run-guest returned after ${dt}s (timeout 3s)"; else bad "fake hang took ${dt}s"; fi
if pgrep -f "$TMP/bin/qemu-system-x86_64" > /dev/null 2>&1; then bad "fake QEMU still running"; else ok "fake QEMU was killed"; fi

# ------------------------------------------- differential fuzzer's report --
# A fake QEMU that "boots" to a prepared serial log: run-guest must repeat
# the fuzzer's closing line and fail on mismatches or a missing report.
cat > "$TMP/bin/qemu-system-x86_64" <<'EOF2'
#!/bin/sh
for a in "$@"; do case "$a" in file:*) cat "$FAKE_SERIAL" > "${a#file:}";; esac; done
exit 0
EOF2
chmod +x "$TMP/bin/qemu-system-x86_64"
gfuzz_log() { # gfuzz_log FILE CLOSING : the clean log with a fuzzer report
    sed '/^# summary:/q' "$TMP/clean.log" | sed '$d' > "$1"
    {
        echo "# selftest: foliosim-guest"
        echo "# # gfuzz: 10 steps, seed 1, legacy mode"
        [ -n "$2" ] && echo "# $2"
        echo "ok 4 foliosim-guest # time=1s"
        echo "# summary: 4 run, 0 failed"
        echo "FOLIOSIM-KTEST-END status=pass failed=0 total=4"
    } >> "$1"
    sed -i 's/^1\.\.3$/1..4/' "$1"
}
gfuzz_log "$TMP/gfuzz-ok.log" "gfuzz: 10 steps, 0 mismatches (legacy mode, seed 1; 99 page and 9 VMA comparisons)"
gfuzz_log "$TMP/gfuzz-bad.log" "gfuzz: 10 steps, 3 mismatches (legacy mode, seed 1; 99 page and 9 VMA comparisons)"
gfuzz_log "$TMP/gfuzz-none.log" ""
for c in ok:0 bad:nonzero none:nonzero; do
    expect_rc "${c#*:}" "run-guest --gfuzz: report '${c%%:*}' exits ${c#*:}" \
        env PATH="$TMP/bin:$PATH" FAKE_SERIAL="$TMP/gfuzz-${c%%:*}.log" "$S/run-guest" \
        --kernel "$TMP/fake-bzImage" --initramfs "$TMP/fake-initrd" --gfuzz 10 \
        --timeout 30 --no-baseline --log "$TMP/fake-gfuzz.log"
    case "${c%%:*}" in
        ok) expect_out '^gfuzz: 10 steps, 0 mismatches' "run-guest --gfuzz repeats the closing line";;
        bad) expect_out '^gfuzz: 10 steps, 3 mismatches' "run-guest --gfuzz repeats a failing closing line";;
        none) expect_out 'printed no closing line' "run-guest --gfuzz names a missing report";;
    esac
done
expect_rc nonzero "run-guest rejects --gfuzz without a number" "$S/run-guest" --gfuzz many
# --timeout-scale N reaches the guest's /init as foliosim.timeout_scale=N,
# which multiplies every selftest's timeout (sanitizer kernels).
expect_rc 0 "run-guest --timeout-scale 4 runs" \
    env PATH="$TMP/bin:$PATH" FAKE_SERIAL="$TMP/gfuzz-ok.log" "$S/run-guest" \
    --kernel "$TMP/fake-bzImage" --initramfs "$TMP/fake-initrd" --gfuzz 10 \
    --timeout 30 --timeout-scale 4 --no-baseline --log "$TMP/fake-scale.log"
if grep -q 'foliosim\.timeout_scale=4' "$TMP/fake-scale.log.cmd"; then
    ok "run-guest --timeout-scale 4 puts foliosim.timeout_scale=4 on the command line"
else
    bad "no foliosim.timeout_scale=4 in $(cat "$TMP/fake-scale.log.cmd")"
fi
if grep -q 'TIMEOUT_SCALE=.*foliosim.timeout_scale' "$S/../initramfs/init" &&
   grep -q 'to=$((to \* TIMEOUT_SCALE))' "$S/../initramfs/init"; then
    ok "the guest /init reads foliosim.timeout_scale and scales each selftest timeout"
else
    bad "the guest /init does not scale selftest timeouts by foliosim.timeout_scale"
fi
for v in 0 x; do
    expect_rc nonzero "run-guest rejects --timeout-scale $v" "$S/run-guest" --timeout-scale "$v"
done

# ------------------------------------------------------- hung guest (real) --
K="$(cat "$KB/last-kernel-x86_64" 2>/dev/null || true)"
I="$(cat "$KB/last-initramfs-base-x86_64" 2>/dev/null || true)"
if [ -n "$K" ] && [ -f "$K" ] && [ -n "$I" ] && [ -f "$I" ] && command -v qemu-system-x86_64 > /dev/null; then
    # Real kernel + initramfs, 6 s timeout: the guest boots (~3 s) and is
    # killed in the middle of the selftests -> must be reported as hung.
    t0=$(date +%s)
    expect_rc nonzero "real QEMU killed by a 6 s timeout is reported as a failure" \
        "$S/run-guest" --kernel "$K" --initramfs "$I" --timeout 6 --no-baseline --log "$TMP/real-serial.log"
    dt=$(( $(date +%s) - t0 ))
    expect_out 'guest hung' "real hang: 'guest hung' reported"
    expect_out '\[end-marker\] +fail' "real hang: [end-marker] check fails"
    if [ "$dt" -lt 40 ]; then ok "real hang: returned after ${dt}s"; else bad "real hang took ${dt}s"; fi
else
    skip "real hung-guest check: no cached kernel/initramfs under $KB (run kernel-port/scripts/run-guest once)"
fi

# --------------------------------------------------------------- CLI checks --
expect_rc 0 "build-kernel --help" "$S/build-kernel" --help
expect_rc 0 "build-initramfs --help" "$S/build-initramfs" --help
expect_rc 0 "run-guest --help" "$S/run-guest" --help
expect_rc 0 "parse-log --help" "$S/parse-log" --help
expect_rc nonzero "run-guest rejects a bad --mode" "$S/run-guest" --mode bogus
expect_rc nonzero "run-guest rejects an unknown selftest" "$S/run-guest" --selftests no_such_test
expect_rc nonzero "build-kernel rejects a missing variant" "$S/build-kernel" --config-variant no-such-variant --print-key
expect_out "config variant 'no-such-variant' not found" "missing variant is named"

# ------------------------------------------- measurement-only series parts --
# run-bench appends kernel-port/series.bench (KP_SERIES_EXTRA) after the
# series: its parts can be booted, and the series' own kernels keep their
# patch lists (and so their cache keys).
series_of() { # series_of UNTIL [EXTRA] : the patch list, one per line
    ( . "$S/lib.sh"; KP_SERIES_UNTIL="$1"; KP_SERIES_EXTRA="${2:-}"; series_entries )
}
parts_of() { ( . "$S/lib.sh"; KP_SERIES_EXTRA="${1:-}"; series_parts | tr '\n' ' ' ) }
X="$REPO/kernel-port/series.bench"
if [ "$(series_of fixes)" = "$(series_of fixes "$X")" ] && [ "$(series_of detect)" = "$(series_of detect "$X")" ]; then
    ok "KP_SERIES_EXTRA leaves the series' own parts as they were"
else
    bad "KP_SERIES_EXTRA changes the patches of part fixes or detect"
fi
if [ "$(series_of ablate "$X" | head -n -1)" = "$(series_of detect)" ] &&
   series_of ablate "$X" | tail -1 | grep -q '^bench/'; then
    ok "part ablate = the whole series + its bench patch"
else
    bad "part ablate is not the whole series + one bench patch: $(series_of ablate "$X" | tail -2 | tr '\n' ' ')"
fi
case "$(parts_of "$X")" in *" detect ablate "*) ok "series_parts lists the extra parts after the series' own";;
    *) bad "series_parts with KP_SERIES_EXTRA: $(parts_of "$X")";; esac
case "$(parts_of)" in *ablate*) bad "series_parts lists ablate without KP_SERIES_EXTRA";;
    *) ok "without KP_SERIES_EXTRA, no measurement-only part";; esac
# --series-until PART/NNNN: the series up to one patch (review item 7's
# kpagecount test at rfc/0003), with its part's fragment, suites and mode
applied_of() { ( . "$S/lib.sh"; KP_SERIES_UNTIL="$1"; series_applied_parts | tr '\n' ' '; kernel_mode ) }
upto=$(series_of rfc/0003)
if [ "$(echo "$upto" | head -n -3)" = "$(series_of prep)" ] &&
   [ "$(echo "$upto" | tail -3 | cut -c1-8 | tr '\n' ' ')" = "rfc/0001 rfc/0002 rfc/0003 " ]; then
    ok "--series-until rfc/0003 = the series up to prep + rfc/0001-0003"
else
    bad "--series-until rfc/0003 lists: $(echo "$upto" | tail -4 | tr '\n' ' ')"
fi
case "$(applied_of rfc/0003)" in "stable prep rfc rfc") ok "rfc/0003 applies part rfc's fragment and suites, mode rfc";;
    *) bad "rfc/0003: applied parts and mode: $(applied_of rfc/0003)";; esac
# a cut part's fragment (and suites) only once its patches add its options:
# part fixes' fragment enables the test fixes/0003 adds
frag_of() { ( . "$S/lib.sh"; KP_SERIES_UNTIL="$1"; series_fragment_parts | tr '\n' ' '; expected_kunit_suites ) }
case "$(frag_of fixes/0002)" in "stable prep rfc proc_smaps,proc_kpagecount") ok "fixes/0002: no fragment or suite of part fixes yet";;
    *) bad "fixes/0002: fragment parts and suites: $(frag_of fixes/0002)";; esac
case "$(frag_of fixes/0003)" in "stable prep rfc fixes proc_smaps,proc_kpagecount,rmap_overflow") ok "fixes/0003: part fixes' fragment and rmap_overflow";;
    *) bad "fixes/0003: fragment parts and suites: $(frag_of fixes/0003)";; esac
case "$(frag_of fixes)" in *"rfc fixes proc_smaps"*) ok "a whole part keeps its fragment";;
    *) bad "part fixes: $(frag_of fixes)";; esac
expect_rc nonzero "build-kernel rejects a patch not in the series" "$S/build-kernel" --series-until rfc/9999 --print-key
expect_out "'rfc/9999' names 0 patches" "the missing patch is named"
expect_rc nonzero "build-kernel rejects a partial patch number" "$S/build-kernel" --series-until rfc/00 --print-key
expect_rc nonzero "build-kernel rejects a malformed patch" "$S/build-kernel" --series-until rfc/0003/x --print-key
expect_out "bad patch 'rfc/0003/x'" "the malformed patch is named"
expect_rc nonzero "run-bench rejects an unknown kernel" "$S/run-bench" --kernels none,no-such-part
expect_out "no part 'no-such-part'" "run-bench names the unknown kernel"
expect_rc nonzero "run-bench rejects a kernel named twice" "$S/run-bench" --kernels none,prep,none
expect_rc nonzero "run-bench rejects a bad --only" "$S/run-bench" --only 'fork thp'
if cc -O2 -Wall -Wextra -Werror -o "$TMP/kbench" "$REPO/kernel-port/guest/kbench.c" 2> "$TMP/kbench.err"; then
    ok "kbench builds with -Wall -Wextra -Werror"
    expect_rc 0 "kbench --help" "$TMP/kbench" --help
    expect_rc nonzero "kbench refuses to write THP knobs outside the guest" "$TMP/kbench" --reps 1
else
    bad "kbench does not build"; cat "$TMP/kbench.err"
fi
expect_rc 0 "run-bench --help" "$S/run-bench" --help
expect_out 'ablate' "run-bench --help names the ablate kernel"

# ------------------------------------------ build keys: source_hash() --
# build-kernel and build-initramfs key their caches by the source the series
# builds: a patch whose message alone changes keeps the key, a changed file
# or a patch touching one more file changes it.  A two-patch series over a
# small fake tree (source_hash() reads the patched tree, not the patches).
mkdir -p "$TMP/sh/kp/patches/t" "$TMP/sh/tree"
cp "$S/lib.sh" "$TMP/sh/kp/lib.sh"
printf -- 'From: x\nSubject: one\n\nA message.\n---\n--- a/mm/a.c\n+++ b/mm/a.c\n@@ -1 +1 @@\n-a\n+b\n' > "$TMP/sh/kp/patches/t/1.patch"
printf -- 'From: x\nSubject: two\n\n---\n--- a/mm/b.c\n+++ b/mm/b.c\n@@ -1 +1 @@\n-c\n+d\n' > "$TMP/sh/kp/patches/t/2.patch"
printf 't/1.patch\nt/2.patch\n' > "$TMP/sh/tree/.foliosim-series"
mkdir -p "$TMP/sh/tree/mm"; echo b > "$TMP/sh/tree/mm/a.c"; echo d > "$TMP/sh/tree/mm/b.c"
shash() { rm -f "$TMP/sh/tree/.foliosim-source-hash"
          ( set -e -o pipefail; KP_NO_ROOT_LOCK=1; . "$TMP/sh/kp/lib.sh"; KP_DIR="$TMP/sh/kp"; KSRC_DIR="$TMP/sh/tree"; KSRC_PRISTINE=/nonexistent
            source_hash; echo "$SOURCE_HASH" ); }
h0=$(shash)
sed -i 's/A message./Another message, longer./' "$TMP/sh/kp/patches/t/1.patch"
h1=$(shash)
echo e > "$TMP/sh/tree/mm/b.c"; h2=$(shash)
printf -- '--- a/mm/c.c\n+++ b/mm/c.c\n' >> "$TMP/sh/kp/patches/t/2.patch"; h3=$(shash)
if [ -n "$h0" ] && [ -n "$h2" ] && [ -n "$h3" ] && [ "$h0" = "$h1" ] && [ "$h1" != "$h2" ] &&
   [ "$h2" != "$h3" ]; then
    ok "source_hash: a message keeps the key; a changed file or one more touched path changes it"
else
    bad "source_hash: $h0 / $h1 / $h2 / $h3"
fi
[ "$(cat "$TMP/sh/tree/.foliosim-source-hash" 2>/dev/null)" = "$h3" ] &&
    ok "source_hash remembers the hash in the patched tree" || bad "source_hash memo missing"
# The selftests' key reads only what their userspace build reads: a series
# of mm/ changes keeps "pristine" (6.12's selftests build serves it); a
# patch under tools/ (or a uapi header) gives its own key, which follows
# the file's content.
sthash() { ( set -e -o pipefail; KP_NO_ROOT_LOCK=1; . "$TMP/sh/kp/lib.sh"; KP_DIR="$TMP/sh/kp"; KSRC_DIR="$TMP/sh/tree"; KSRC_PRISTINE=/nonexistent
             selftests_source_hash ); }
s0=$(sthash)
printf -- 'From: x\nSubject: three\n\n---\n--- a/tools/testing/selftests/mm/t.c\n+++ b/tools/testing/selftests/mm/t.c\n' > "$TMP/sh/kp/patches/t/3.patch"
printf 't/3.patch\n' >> "$TMP/sh/tree/.foliosim-series"
mkdir -p "$TMP/sh/tree/tools/testing/selftests/mm"; echo x > "$TMP/sh/tree/tools/testing/selftests/mm/t.c"
s1=$(sthash)
echo y > "$TMP/sh/tree/tools/testing/selftests/mm/t.c"; s2=$(sthash)
printf -- '--- a/include/uapi/linux/u.h\n+++ b/include/uapi/linux/u.h\n' >> "$TMP/sh/kp/patches/t/3.patch"; s3=$(sthash)
if [ "$s0" = pristine ] && [ -n "$s1" ] && [ "$s1" != pristine ] && [ "$s1" != "$s2" ] &&
   [ -n "$s3" ] && [ "$s3" != "$s2" ]; then
    ok "selftests_source_hash: mm/ changes keep 'pristine'; tools/ and uapi files key it by content"
else
    bad "selftests_source_hash: $s0 / $s1 / $s2 / $s3"
fi

# ------------------------------------------------------ prebuild-kernels --
# Builds the kernels one after the other, without waiting for the tests
# (a compile holds only its own directory's lock, see kernel-scripts-
# locking), and reads the run-guest commands from ctest's list, not
# kunit-pud.sh's argument.  A fake run-guest records its calls; the first
# call fails, which must not stop the next.
PB="$TMP/pb"
mkdir -p "$PB/scripts" "$PB/root" "$PB/bin"
cp "$S/lib.sh" "$S/prebuild-kernels" "$PB/scripts/"
cat > "$PB/scripts/run-guest" <<EOF
#!/bin/bash
echo "\$*" >> "$PB/calls"
[ "\$2" != a ] || exit 1
k="$PB/kernel-\$(echo "\$*" | md5sum | cut -c1-8)"; touch "\$k"; echo "\$k"
EOF
chmod +x "$PB/scripts/run-guest"
pbrc=0
FOLIOSIM_KBUILD="$PB/root" timeout 30 "$PB/scripts/prebuild-kernels" -- --mode a ';' --mode b ';' --mode c \
    > "$PB/out" 2> "$PB/err" || pbrc=$?
if [ "$pbrc" = 0 ] && [ "$(tr '\n' '|' < "$PB/calls")" = "--mode a --build-only|--mode b --build-only|--mode c --build-only|" ] &&
   grep -qx 'prebuild: 2 ready, 1 failed' "$PB/out" && grep -q 'FAILED (the test will build it itself' "$PB/err"; then
    ok "prebuild-kernels: builds every kernel in order, a failed one reported and skipped"
else
    bad "prebuild-kernels (rc $pbrc): $(tr '\n' '|' < "$PB/calls" 2>/dev/null); $(cat "$PB/out")"; tail -3 "$PB/err"
fi
# ctest's list: run-guest run by bash, run-guest itself, and kunit-pud.sh
# taking run-guest as an argument (which is not a build of its own)
cat > "$PB/bin/ctest" <<EOF
#!/bin/sh
cat <<'J'
{"tests": [
 {"name": "k1", "command": ["/bin/bash", "$PB/x/run-guest", "--mode", "legacy", "--append", "a b"]},
 {"name": "k2", "command": ["/bin/bash", "$PB/x/kunit-pud.sh", "$PB/x/run-guest", "/tmp/log"]},
 {"name": "k3", "command": ["$PB/x/run-guest", "--arch", "i386"]}]}
J
EOF
chmod +x "$PB/bin/ctest"
: > "$PB/calls"
PATH="$PB/bin:$PATH" FOLIOSIM_KBUILD="$PB/root" "$PB/scripts/prebuild-kernels" \
    --ctest-dir "$PB" > "$PB/out" 2> "$PB/err"
if [ "$(tr '\n' '|' < "$PB/calls")" = "--mode legacy --append a b --build-only|--arch i386 --build-only|" ]; then
    ok "prebuild-kernels --ctest-dir: the run-guest tests in order, arguments intact"
else
    bad "prebuild-kernels --ctest-dir: $(tr '\n' '|' < "$PB/calls")"; tail -3 "$PB/err"
fi

# ----------------------------------------------- bisect-series source keys --
# A step's key names the source it builds: a patch whose message alone
# changes keeps every step's key; a changed line of code changes the keys
# from its step on and no earlier one.
if [ -f /usr/src/linux-source-6.12.tar.xz ]; then
    cp -a "$REPO/kernel-port" "$TMP/kp"
    keys() { "$TMP/kp/scripts/bisect-series" --print-keys 2> "$TMP/keys.err" | cut -d' ' -f1,2; }
    keys > "$TMP/keys.0"
    nsteps=$(wc -l < "$TMP/keys.0")
    first="$(sed -n 's/^prep\///p' "$TMP/kp/series" | head -1)"
    last="$(grep -v '^#' "$TMP/kp/series" | grep . | tail -1)"
    sed -i '0,/^Signed-off-by:/s//A line of message that changes nothing.\n\n&/' "$TMP/kp/patches/prep/$first"
    keys > "$TMP/keys.1"
    if [ "$nsteps" -gt 30 ] && cmp -s "$TMP/keys.0" "$TMP/keys.1" &&
       ! cmp -s "$TMP/kp/patches/prep/$first" "$REPO/kernel-port/patches/prep/$first"; then
        ok "bisect-series keys: a message-only change keeps all $nsteps keys"
    else
        bad "bisect-series keys: $nsteps steps, or a message-only change moved a key"; cat "$TMP/keys.err"
    fi
    # A part added to the series (its fragment's option comes with its
    # patches) keeps the steps before it cached: results seeded under the
    # step keys of today's series (a scratch build root) still count.
    mkdir -p "$TMP/kb/bisect/results" "$TMP/kb/src"
    ln -s "$KB/src/"* "$TMP/kb/src/" 2> /dev/null || true
    FOLIOSIM_KBUILD="$TMP/kb" "$TMP/kp/scripts/bisect-series" --print-keys 2> "$TMP/keys.err" |
        while read -r _ _ k _ _; do touch "$TMP/kb/bisect/results/$k.ok"; done
    printf '#\n# part: extra\nextra/0001-x.patch\n' >> "$TMP/kp/series"
    mkdir -p "$TMP/kp/patches/extra"
    printf -- 'Subject: x\n\n---\n--- a/mm/Kconfig\n+++ b/mm/Kconfig\n@@ -1,0 +1,2 @@\n+config FOLIOSIM_HARNESS_X\n+\tbool\n' > "$TMP/kp/patches/extra/0001-x.patch"
    echo "CONFIG_FOLIOSIM_HARNESS_X=y" > "$TMP/kp/config/parts/extra.config"
    FOLIOSIM_KBUILD="$TMP/kb" "$TMP/kp/scripts/bisect-series" --print-keys > "$TMP/keys.3" 2> "$TMP/keys.err"
    ncached=$(awk '$4 == "cached"' "$TMP/keys.3" | wc -l)
    if [ "$ncached" = "$nsteps" ] && [ "$(tail -1 "$TMP/keys.3" | cut -d' ' -f4)" = - ]; then
        ok "bisect-series: a new part's fragment keeps the $nsteps earlier steps cached, not its own"
    else
        bad "bisect-series: after a new part, $ncached of $nsteps steps cached"; tail -3 "$TMP/keys.3"; cat "$TMP/keys.err"
    fi
    cp "$REPO/kernel-port/series" "$TMP/kp/series"
    rm -f "$TMP/kp/config/parts/extra.config"
    sed -i '0,/^+[[:space:]]*\/\*/s//&x/' "$TMP/kp/patches/$last"
    keys > "$TMP/keys.2"
    if [ "$(diff "$TMP/keys.1" "$TMP/keys.2" | grep -c '^>')" = 1 ] &&
       [ "$(tail -1 "$TMP/keys.1")" != "$(tail -1 "$TMP/keys.2")" ]; then
        ok "bisect-series keys: a changed line of the last patch changes its key only"
    else
        bad "bisect-series keys: a changed line of $last"; diff "$TMP/keys.1" "$TMP/keys.2" | head
    fi
else
    skip "bisect-series keys: no /usr/src/linux-source-6.12.tar.xz (apt-get install linux-source-6.12)"
fi

echo
echo "$PASS passed, $FAIL failed, $SKIP skipped"
[ "$FAIL" -eq 0 ]
