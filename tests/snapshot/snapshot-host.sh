#!/bin/sh
# The snapshot's self-check on this machine's own kernel: real processes
# (a PMD-mapped THP, fork, the child unmaps half of it), then
# `foliosim snapshot PARENT CHILD` must find a mode whose smaps figures
# (Rss, Pss, Private, Shared, AnonHugePages) equal the kernel's in the
# workload's THP regions: legacy or base on a kernel with per-page
# mapcounts, rfc on one without.  Exit 77 (skipped, with the reason) without root or THP.
#
#   snapshot-host.sh FOLIOSIM THP_FORK
set -u
foliosim=$1
thp_fork=$2
[ "$(id -u)" = 0 ] || { echo "SKIP: not root (pagemap PFNs and /proc/kpageflags need it)"; exit 77; }
[ -r /proc/kpageflags ] || { echo "SKIP: no /proc/kpageflags"; exit 77; }
tmp=$(mktemp -d)
trap 'exec 3>&-; rm -rf "$tmp"' EXIT
mkfifo "$tmp/hold"
"$thp_fork" < "$tmp/hold" > "$tmp/pids" &
exec 3> "$tmp/hold"		# keeps the workload alive until the end
for _ in $(seq 50); do
	[ -s "$tmp/pids" ] && break
	sleep 0.2
done
read -r parent child thp < "$tmp/pids" || { echo "FAIL: the workload did not start"; exit 1; }
[ "$thp" = 1 ] || { echo "SKIP: the kernel gave no PMD-mapped THP (transparent_hugepage/enabled: $(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null))"; exit 77; }
"$foliosim" snapshot "$parent" "$child" > "$tmp/out" 2> "$tmp/err" || {
	echo "FAIL: foliosim snapshot failed:"; cat "$tmp/err" "$tmp/out"; exit 1; }
grep -E '^(snapshot|self-check)' "$tmp/out"
# the THP region must be in the output, with the kernel's and each mode's row
grep -q '^  .* \[anon\]$' "$tmp/out" || { echo "FAIL: no anonymous region in the snapshot"; exit 1; }
# the JSON form: valid, with the THP region, the kernel and every mode
"$foliosim" snapshot --format json "$parent" "$child" > "$tmp/json" 2>> "$tmp/err" || {
	echo "FAIL: foliosim snapshot --format json failed"; cat "$tmp/err"; exit 1; }
python3 - "$tmp/json" <<'PY' || { echo "FAIL: the JSON snapshot"; exit 1; }
import json, sys
d = json.load(open(sys.argv[1]))
thp = [r for p in d["processes"] for r in p["regions"] if r["kernel"]["anon_huge_kb"] == 2048]
assert len(d["processes"]) == 2 and thp, "no PMD-mapped THP region"
assert set(thp[0]["modes"]) == {"legacy", "base", "rfc"}, thp[0]["modes"].keys()
assert thp[0]["start"].startswith("0x")
print("ok: JSON with %d regions" % sum(len(p["regions"]) for p in d["processes"]))
# The judgement: the workload's regions (the parent's THP and what the
# child kept of it), whose
# mappers nothing else on the machine changes.  A shared library's region
# is counted with every process of the machine that maps it, so on a busy
# machine (a parallel build starting and ending compilers) its Pss moves
# while it is read; those regions are printed above, not judged.
span = lambda r: (int(r["start"], 16), int(r["end"], 16))
thp_spans = [span(r) for r in thp]
work = [r for p in d["processes"] for r in p["regions"]
        if any(span(r)[0] < e and s < span(r)[1] for s, e in thp_spans)]
fields = ("rss_kb", "pss_kb", "private_kb", "shared_kb", "anon_huge_kb")
ok = [m for m in ("legacy", "base", "rfc")
      if all(r["modes"][m][k] == r["kernel"][k] for r in work for k in fields)]
if not ok:
    for r in work:
        print(r["start"], "kernel", [r["kernel"][k] for k in fields],
              {m: [r["modes"][m][k] for k in fields] for m in r["modes"]})
    sys.exit("no mode predicts this kernel's smaps of the THP regions")
print("ok: this kernel's smaps of the workload's %d regions equal the prediction of: %s"
      % (len(work), " ".join(ok)))
PY
