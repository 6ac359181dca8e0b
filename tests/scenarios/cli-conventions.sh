#!/bin/sh
# ctest cli-conventions: foliosim behaves as command-line tools are expected
# to (issue 17, item 3): per-command --help on stdout with exit 0; usage
# errors on stderr with exit 2; 0 pass, 1 a failed expectation, 2 usage or
# file errors in every command; an empty file or a directory is an error
# that says what it is; an option that does not apply is refused; repeat
# counts are capped unless --max-repeat says otherwise; a refused rmap call
# says which rule refused it, at FILE:LINE.
#   cli-conventions.sh FOLIOSIM
set -u
foliosim=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "cli-conventions: $*" >&2; failures=$((failures + 1)); }

# expect RC CMD...: the exit status; stdout and stderr kept in $work/out, err
expect() {
	want=$1
	shift
	"$foliosim" "$@" > "$work/out" 2> "$work/err"
	rc=$?
	[ "$rc" = "$want" ] || fail "foliosim $*: exit $rc, expected $want"
}

cat > "$work/pass.scn" <<'SCN'
scenario pass
mm A
folio F order=9 anon
new-anon F mm=A
expect F mapcount=1
SCN
sed 's/mapcount=1/mapcount=2/' "$work/pass.scn" > "$work/fail.scn"
printf '# nothing but a comment\n' > "$work/empty.scn"
printf 'scenario r\nmm A\nrepeat 20000000 mm B\n' > "$work/repeat.scn"
printf 'scenario m\nmm A\nfolio F order=9 anon\nnew-anon F mm=A\nremove F mm=A level=pmd page=0 nr=256\n' > "$work/misaligned.scn"

expect 2
[ -s "$work/err" ] && [ ! -s "$work/out" ] || fail "bare foliosim: usage must go to stderr only"
for cmd in check run diff report; do
	expect 0 "$cmd" --help
	grep -q "^usage: foliosim $cmd" "$work/out" || fail "$cmd --help: not the $cmd usage"
done
expect 0 --version
grep -q '^foliosim [0-9]' "$work/out" || fail "--version: no version"

for cmd in check report; do
	expect 0 "$cmd" "$work/pass.scn"
	expect 2 "$cmd" "$work/missing.scn"
	expect 2 "$cmd" "$work"
	grep -q "is a directory" "$work/err" || fail "$cmd DIR: does not say it is a directory"
	expect 2 "$cmd" "$work/empty.scn"
	grep -q "no scenario in the file" "$work/err" || fail "$cmd: empty file not named as such"
	expect 2 "$cmd" "$work/repeat.scn"
	grep -q "repeat.scn:3: repeat 20000000 is above the cap" "$work/err" ||
		fail "$cmd: repeat cap not reported at its line"
done
expect 1 check "$work/fail.scn"
expect 0 check --max-repeat 30000000 --no-invariants "$work/pass.scn"
for cmd in run diff; do
	expect 2 "$cmd" "$work/missing.scn"
	expect 2 "$cmd" "$work/empty.scn"
done
expect 1 run "$work/fail.scn"

# options that do not apply
expect 2 diff --mode rfc "$work/pass.scn"
grep -q "does not apply" "$work/err" || fail "diff --mode: no reason"
expect 2 report --mode rfc "$work/pass.scn"
expect 2 check --from legacy "$work/pass.scn"
expect 2 run --tap "$work/pass.scn"
expect 2 check --max-repeat 0 "$work/pass.scn"

# a refused call names its rule at FILE:LINE
expect 1 check "$work/misaligned.scn"
grep -q "misaligned.scn:5: the call was refused with EINVAL: the page range is not aligned" \
	"$work/out" || fail "a refused call does not say which rule refused it: $(cat "$work/out")"

[ "$failures" = 0 ] || exit 1
echo "cli-conventions: ok"
