#!/bin/bash
# ctest kernel-scripts-locking: the kernel-port scripts' lock on the build
# root and their exit traps (issue 17, item 6), without building anything:
#  1. a second script on the same build root waits for the first, and says so;
#  2. a script run by a locked one (KP_ROOT_LOCKED) does not wait for its parent;
#  3. on SIGTERM a script stops the background children it tracks (QEMU,
#     make); Ctrl-C (SIGINT) takes the same path, but a background job here
#     ignores SIGINT by POSIX rules, so the test sends SIGTERM;
#  4. kp_unlock_build_root gives the lock up (build-kernel for its compile);
#  5. a script run by a locked one cannot give its parent's lock up;
#  6. --help does not wait for the lock;
#  7. KP_LOCK_LATER defers the lock to kp_lock_build_root_later (build-kernel,
#     run-guest), which takes it unless --help or KP_NO_ROOT_LOCK=1 said no;
#  8. a compile (build-kernel: its directory's lock, the root's given up)
#     lets another script use the root at once, and holds up a script that
#     builds into the same directory, which says so.
set -u
lib=$(cd "$(dirname "$0")/../../kernel-port/scripts" && pwd)/lib.sh
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
export FOLIOSIM_KBUILD=$root
unset KP_ROOT_LOCKED
failures=0
fail() { echo "kernel-scripts-locking: $*" >&2; failures=$((failures + 1)); }
# hold MARKER SCRIPT: run SCRIPT in the background (pid in $first) and
# wait until it has created MARKER
hold() {
	bash -c "$2" &
	first=$!
	for _ in $(seq 50); do [ -e "$1" ] && break; sleep 0.1; done
}
# timed CMD...: run CMD, its wall time in seconds in $waited
timed() {
	local t0
	t0=$(date +%s)
	"$@"
	waited=$(( $(date +%s) - t0 ))
}

# 1. two scripts on one root
hold "$root/first-has-it" ". '$lib'; touch '$root/first-has-it'; sleep 3"
timed bash -c ". '$lib'; echo second-ran" > "$root/second.out" 2> "$root/second.err"
wait "$first"
grep -q "waiting for it" "$root/second.err" || fail "the second script did not say it waits"
[ "$waited" -ge 2 ] || fail "the second script did not wait for the first (${waited}s)"
grep -q second-ran "$root/second.out" || fail "the second script did not run after the first"

# 2. a child of a locked script
timeout 10 bash -c ". '$lib'; bash -c \". '$lib'; echo nested-ran\"" > "$root/nested.out" 2>&1 ||
	fail "a script run by a locked script blocked on its parent's lock"
grep -q nested-ran "$root/nested.out" || fail "the nested script did not run"

# 3. a terminated script stops the tracked children
bash -c ". '$lib'; sleep 300 & kp_track \$!; echo \$! > '$root/child.pid'; while :; do sleep 1; done" &
script=$!
for _ in $(seq 50); do [ -s "$root/child.pid" ] && break; sleep 0.1; done
child=$(cat "$root/child.pid")
kill -0 "$child" 2> /dev/null || fail "the tracked child did not start"
kill -TERM "$script"
wait "$script"
rc=$?
sleep 0.5
[ "$rc" = 143 ] || fail "a terminated script exited $rc, expected 143"
# (a killed child whose parent has exited may linger as a zombie where
# nothing reaps orphans: that counts as stopped)
state=$(ps -o stat= -p "$child" 2> /dev/null || true)
if [ -n "$state" ] && [ "${state#Z}" = "$state" ]; then
	fail "the tracked child (pid $child) still runs after the script was terminated"
	kill "$child"
fi

# 4. kp_unlock_build_root (build-kernel, for its compile) lets another
#    script in while the first goes on
hold "$root/unlocked" ". '$lib'; kp_unlock_build_root; touch '$root/unlocked'; sleep 3"
timed timeout 10 bash -c ". '$lib'; echo after-unlock" > "$root/unlock.out" 2>&1
grep -q after-unlock "$root/unlock.out" || fail "no script ran after the first gave the lock up"
[ "$waited" -le 2 ] || fail "a script waited ${waited}s for a lock given up"
wait "$first"

# 5. a script run by a locked one cannot give its parent's lock up
hold "$root/child-done" ". '$lib'; bash -c \". '$lib'; kp_unlock_build_root\"; touch '$root/child-done'; sleep 3"
timed bash -c ". '$lib'; true" 2> /dev/null
[ "$waited" -ge 2 ] || fail "a child's kp_unlock_build_root released its parent's lock"
wait "$first"

# 6. --help does not wait for a build (the harness calls build-kernel --help)
hold "$root/held" ". '$lib'; touch '$root/held'; sleep 3"
timed bash -c ". '$lib'; echo help-ran" x --help > "$root/help.out" 2>&1
grep -q help-ran "$root/help.out" || fail "a --help run did not run"
[ "$waited" -le 1 ] || fail "a --help run waited ${waited}s for the lock"
wait "$first"

# 7. a deferred lock: none while the options are parsed, then the wait
hold "$root/held7" ". '$lib'; touch '$root/held7'; sleep 3"
bash -c "KP_LOCK_LATER=1; . '$lib'; touch '$root/parsed7'; kp_lock_build_root_later; echo built" > "$root/later.out" 2> "$root/later.err" &
later=$!
for _ in $(seq 15); do [ -e "$root/parsed7" ] && break; sleep 0.1; done
[ -e "$root/parsed7" ] && kill -0 "$first" 2> /dev/null ||
	fail "KP_LOCK_LATER: sourcing lib.sh waited for the lock"
wait "$later"
grep -q built "$root/later.out" || fail "KP_LOCK_LATER: the script did not go on after the lock"
grep -q "waiting for it" "$root/later.err" || fail "kp_lock_build_root_later did not wait for the holder"
kill -0 "$first" 2> /dev/null && fail "kp_lock_build_root_later did not wait for the holder"
wait "$first"
for case in "x --help" "KP_NO_ROOT_LOCK=1"; do
	hold "$root/held7b" ". '$lib'; touch '$root/held7b'; sleep 3"
	if [ "$case" = "x --help" ]; then set -- x --help; pre=""; else set --; pre="KP_NO_ROOT_LOCK=1"; fi
	timed timeout 10 bash -c "$pre KP_LOCK_LATER=1; . '$lib'; kp_lock_build_root_later; echo later-ran" "$@" > "$root/later-no.out" 2>&1
	grep -q later-ran "$root/later-no.out" || fail "KP_LOCK_LATER with $case did not run"
	[ "$waited" -le 1 ] || fail "kp_lock_build_root_later waited ${waited}s with $case"
	wait "$first"
	rm -f "$root/held7b"
done
set --

# 8. build-kernel's compile: the directory's lock held, the root's given up.
# "Did not wait" is "finished while the compile still held its lock", not a
# time: the machine may be busy.
hold "$root/compiling" ". '$lib'; kp_lock_build_dir '$root/build/kernel-x'; kp_unlock_build_root; touch '$root/compiling'; sleep 8"
[ -e "$root/compiling" ] || fail "kp_lock_build_dir: the compiling script did not start"
timeout 20 bash -c ". '$lib'; echo root-ran" > "$root/other.out" 2>&1
grep -q root-ran "$root/other.out" || fail "a script did not run beside a compile"
kill -0 "$first" 2> /dev/null || fail "a script waited for the root while another compiled"
timeout 20 bash -c ". '$lib'; kp_lock_build_dir '$root/build/kernel-y'; echo other-key" > "$root/other.out" 2>&1
grep -q other-key "$root/other.out" || fail "a build of another key did not run"
kill -0 "$first" 2> /dev/null || fail "a build of another key waited for a compile"
timeout 20 bash -c ". '$lib'; kp_lock_build_dir '$root/build/kernel-x'; echo same-key" > "$root/same.out" 2>&1
grep -q same-key "$root/same.out" || fail "a build of the same key did not go on after the compile"
grep -q "building into $root/build/kernel-x; waiting" "$root/same.out" ||
	fail "a build of the same key did not say it waits"
kill -0 "$first" 2> /dev/null && fail "a build of the same key did not wait for the compile"
wait "$first"

[ "$failures" = 0 ] || exit 1
echo "kernel-scripts-locking: ok"
