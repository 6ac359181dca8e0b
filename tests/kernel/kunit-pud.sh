#!/bin/sh
# ctest kernel-6.12-rfc-kunit-6G: the series' KUnit suites in a 6G guest, in
# which the executor can allocate order-18 (PUD-sized) folios with the
# contiguous allocator (kunit/0002). Fails if the run fails, if any scenario
# is still skipped for want of an order-18 folio, or if no scenario with an
# order-18 folio passed.
#   kunit-pud.sh RUN-GUEST SERIAL-LOG
set -eu
run_guest=$1 log=$2
bash "$run_guest" --mode rfc --selftests none --no-scenarios --memory 6G --timeout 900 \
	--log "$log"
# KUnit case lines: "ok N NAME" / "ok N NAME # SKIP reason" / "not ok N NAME"
unallocated=$(grep -Ec 'SKIP .*(order-18 folio|MAX_PAGE_ORDER)' "$log" || true)
pud_passed=$(grep -E '^\[ *[0-9.]+\] +ok [0-9]+ [a-z0-9-]*pud' "$log" | grep -vc 'SKIP' || true)
echo "kunit-pud: scenarios passed whose name has 'pud': $pud_passed; skipped for want of an order-18 folio: $unallocated"
grep -E '^\[ *[0-9.]+\] +ok [0-9]+ [a-z0-9-]*pud' "$log" | sed 's/^\[[^]]*\] */  /' || true
[ "$unallocated" -eq 0 ] || { echo "kunit-pud: FAIL: order-18 folios could not be allocated"; exit 1; }
[ "$pud_passed" -gt 0 ] || { echo "kunit-pud: FAIL: no PUD scenario passed"; exit 1; }
echo "kunit-pud: ok"
