#!/bin/sh
# migration-repeat.sh: a guest program (run-guest --guest) that runs one
# test of the mm selftest "migration" N times in one boot and counts its
# outcomes, for the quiet-host comparison of kernels with and without
# upstream b85aa9b11b67 (docs/kernel-port.md, issue 14 item 9).
#   migration-repeat.sh [ignored run-guest arguments...]
# MIGRATION_TEST (default shared_anon_htlb) and MIGRATION_RUNS (default 20)
# may come from the environment; the guest init sets neither.  Each run
# starts as the init starts the selftest list's migration entry: caches
# dropped, memory compacted, THP "madvise", 8 hugetlb pages reserved.
# Prints one "# migration-run I: pass|fail ..." line per run and a summary
# "# migration-runs: P passed, F failed, S skipped of N"; exits 1 if a run
# failed or skipped.
test_name=${MIGRATION_TEST:-shared_anon_htlb}
runs=${MIGRATION_RUNS:-20}
bin=/selftests/mm/migration
[ -x "$bin" ] || { echo "migration-repeat: $bin not in the initramfs"; exit 2; }

echo madvise > /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null
i=1 pass=0 fail=0 skip=0
while [ "$i" -le "$runs" ]; do
	# The state each run of the selftest list starts from (init).
	echo 3 > /proc/sys/vm/drop_caches 2>/dev/null
	echo 1 > /proc/sys/vm/compact_memory 2>/dev/null
	echo 8 > /proc/sys/vm/nr_hugepages
	t0=$(date +%s)
	(cd /selftests/mm && ./migration -t "$test_name") > /tmp/migration.out 2>&1
	rc=$?
	dt=$(( $(date +%s) - t0 ))
	case "$rc" in
	0)	pass=$((pass + 1)); echo "# migration-run $i: pass ($dt s)";;
	4)	skip=$((skip + 1)); echo "# migration-run $i: skip ($dt s):" \
		     "$(grep -m1 -i "skip" /tmp/migration.out)";;
	*)	fail=$((fail + 1)); echo "# migration-run $i: fail, exit $rc ($dt s):" \
		     "$(grep -m1 -i "didn't\|fail\|error" /tmp/migration.out)";;
	esac
	echo 0 > /proc/sys/vm/nr_hugepages
	i=$((i + 1))
done
echo "# migration-runs: $pass passed, $fail failed, $skip skipped of $runs ($test_name)"
[ "$fail" = 0 ] && [ "$skip" = 0 ]
