#!/bin/sh
# ctest cli-formats: what programs read from foliosim: check --tap (TAP 13),
# --format json of check, run, diff and report (valid JSON whatever the
# input, the fields docs/json.md promises), and "-" for standard input.
#   cli-formats.sh FOLIOSIM SCENARIO-DIR
set -eu
foliosim=$1 dir=$2
command -v python3 > /dev/null || { echo "SKIP: python3 (which parses the JSON) is not installed"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "cli-formats: $*" >&2; exit 1; }
json() { python3 -c "import json,sys; d=json.load(sys.stdin); $1"; }

# A child unmapping the upper half of an mTHP: drift at pages 8-15 only.
cat > "$work/drift.scn" <<'SCN'
scenario drift
process P
P mmap A size=64K order=4
P touch A
P fork C
C munmap A off=32K len=32K
expect P A kpagecount@32K=1
SCN

# TAP: a plan, one line per scenario, FILE:LINE of a failure, SKIP reasons.
"$foliosim" check --tap --mode legacy "$work/drift.scn" "$dir/proc-cow.scn" > "$work/tap" ||
	fail "check --tap failed in legacy mode"
head -2 "$work/tap" | tr '\n' ' ' | grep -qx "TAP version 13 1..7 " || fail "no TAP plan: $(head -2 "$work/tap")"
[ "$(grep -c '^ok ' "$work/tap")" = 7 ] || fail "TAP: not 7 ok lines"
set +e
"$foliosim" check --tap --mode rfc "$work/drift.scn" > "$work/tap"
rc=$?
set -e
[ "$rc" = 1 ] || fail "check --tap of a failing scenario: exit $rc, expected 1"
grep -q "^not ok 1 - drift$" "$work/tap" || fail "TAP: no 'not ok 1 - drift'"
grep -q "message: .*drift.scn:7: expected kpagecount@32K=1, got 2" "$work/tap" ||
	fail "TAP: no FILE:LINE reason"

# check --format json: outcomes and totals agree with the text output.
"$foliosim" check --format json --mode legacy "$dir/proc-cow.scn" "$work/drift.scn" |
	json 'assert d["passed"] == 7 and d["failed"] == 0, d; assert d["scenarios"][6]["name"] == "drift"; assert d["scenarios"][6]["line"] == 1'

# diff --format json, from standard input: the page range, both modes.
"$foliosim" diff --format json - < "$work/drift.scn" | json '
v = [x for s in d["scenarios"] for st in s["steps"] if st["line"] == 6 for x in st["values"]]
k = [x for x in v if x["key"] == "P A kpagecount pages 8-15"]
assert d["modes"] == ["legacy", "rfc"], d["modes"]
assert d["scenarios"][0]["file"] == "<stdin>"
assert k and k[0]["legacy"] == 1 and k[0]["rfc"] == 2 and k[0]["pages"] == [8, 15], v
assert k[0]["difference"] == 1 and k[0]["relative"] == 1.0, k
assert d["scenarios"][0]["status"] == "complete"'

# 1030 forks, then a child unmaps half of the mTHP: the answer is complete
# (the earlier diff stopped at 8192 values and said nothing differs).
{
	printf 'scenario forks\nprocess P\nP mmap A size=64K order=4\nP touch A\n'
	i=1
	while [ $i -le 1030 ]; do echo "P fork C$i"; i=$((i + 1)); done
	echo "C1 munmap A off=32K len=32K"
} > "$work/forks.scn"
"$foliosim" diff --format json "$work/forks.scn" | json '
st = [x for x in d["scenarios"][0]["steps"] if x["line"] == 1035]
keys = set(v["key"] for v in st[0]["values"]) if st else set()
assert "P A kpagecount pages 8-15" in keys and "C1030 A kpagecount pages 8-15" in keys, sorted(keys)[:5]
v = [x for x in st[0]["values"] if x["key"] == "P A kpagecount pages 8-15"][0]
assert v["legacy"] == 1030 and v["rfc"] == 1031, v'

# Valid JSON whatever the input: quotes, backslashes, control bytes and
# non-UTF-8 bytes in a message (an unknown statement quotes them).
printf 'scenario bad\nmm M\n"\\\001\377 x\n' > "$work/bad.scn"
"$foliosim" check --format json "$work/bad.scn" | json 'assert d["failed"] == 1; assert "bad.scn:3" in d["scenarios"][0]["message"]' ||
	fail "check --format json of a broken file is not valid JSON"
"$foliosim" run --format json "$work/bad.scn" | json 'assert d["scenarios"][0]["outcome"] == "fail"' ||
	fail "run --format json of a broken file is not valid JSON"
"$foliosim" diff --format json "$work/bad.scn" | json 'assert d["scenarios"][0]["status"] == "stopped"' ||
	fail "diff --format json of a broken file is not valid JSON"

# run --format json: the trace as lines; report --format json: the summary.
"$foliosim" run --format json --mode legacy "$work/drift.scn" |
	json 'assert d["scenarios"][0]["outcome"] == "pass"; assert len(d["scenarios"][0]["trace"]) > 5'
"$foliosim" report --format json "$work/drift.scn" | json '
r = {x["reader"]: x for x in d["summary"]["readers"]}
k = r["/proc/kpagecount"]
assert d["modes"] == ["legacy", "base", "rfc"]
assert k["largest_change"] == 1 and k["scenarios_higher"] == 1, k
assert "drift.scn:6" in k["where"], k'

# Standard input in text mode; messages name it <stdin>.
"$foliosim" check --mode legacy - < "$work/drift.scn" | grep -qx "1 passed, 0 failed" ||
	fail "check - did not read standard input"
set +e
"$foliosim" check --mode rfc - < "$work/drift.scn" > "$work/out"
set -e
grep -q "<stdin>:7: expected kpagecount@32K=1, got 2" "$work/out" || fail "no <stdin>:LINE"

# Usage errors: exit 2 and a message.
for bad in "diff --tap $work/drift.scn" "check --format xml $work/drift.scn" "check --format"; do
	set +e
	"$foliosim" $bad > /dev/null 2> "$work/err"
	rc=$?
	set -e
	[ "$rc" = 2 ] && [ -s "$work/err" ] || fail "'foliosim $bad': exit $rc, no message"
done
echo "cli-formats: ok"
