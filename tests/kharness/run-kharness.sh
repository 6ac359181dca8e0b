#!/bin/bash
# ctest kharness-TREE: the rmap scenarios on one tree's own mm/rmap.c
# (kernel-port/kharness, docs/kharness.md), the model beside it.
#   run-kharness.sh TREE LIBFOLIOSIM.a INCLUDE-DIR OUT-DIR [--sanitize address|thread] [--arch i386]
# Builds (or finds cached) the tree's harness with build-kharness, runs
# kh-run on every tests/scenarios/rmap-*.scn (not under --sanitize
# address, where the rest runs with every folio's struct pages fenced by
# poisoned ones), kh-stress (four threads on one folio), then the
# differential fuzzer
# kh-fuzz on its regression corpus (tests/kharness/corpus) and a short
# campaign of mutations of it (a fixed seed: the same inputs every run; a
# failure leaves its reproducer scenario in OUT-DIR/TREE/kh-fuzz-repro.scn).
# Exit 77 (ctest: skipped)
# where the kernel source cannot be had: no linux-source-6.12 tarball and
# not root to install it.
set -euo pipefail
[ $# -ge 4 ] || { echo "usage: run-kharness.sh TREE LIB INCLUDE OUT [--sanitize KIND]" >&2; exit 2; }
tree=$1 lib=$2 inc=$3 out=$4
shift 4
top=$(cd "$(dirname "$0")/../.." && pwd)
if [ ! -f /usr/src/linux-source-6.12.tar.xz ] && [ "$(id -u)" != 0 ]; then
	echo "SKIP: no /usr/src/linux-source-6.12.tar.xz and not root to install linux-source-6.12"
	exit 77
fi
"$top/kernel-port/scripts/build-kharness" --lib "$lib" --include "$inc" --tree "$tree" \
	--out "$out" "$@"
case " $* " in *" i386 "*) tree=$tree-i386 ;; esac	# build-kharness's directory for it
# The i386 trees are built above (compiling and linking them is a check of
# its own); running them needs a host kernel that executes 32-bit
# programs, which some x86_64 hosts do not (seen: "Exec format error" under
# a sandboxing hypervisor with CONFIG_IA32_EMULATION=y).
case $tree in *-i386)
	rc=0
	why=$("$out/$tree/kh-run" --help 2>&1 > /dev/null) || rc=$?
	if [ "$rc" = 126 ]; then	# the shell's "cannot execute"; a crash is not skipped
		echo "SKIP: $tree built, but this host cannot execute 32-bit programs (${why%%$'\n'*})"
		exit 77
	fi ;;
esac
case " $* " in
*" thread "*)	# ThreadSanitizer, x86's atomics, bitops and barriers as __atomic
		# builtins (kernel/overlay-tsan/): the concurrent stress alone,
		# 2 and 4 threads; a report fails (the suppressions say why each
		# word they name is shared)
	export TSAN_OPTIONS="halt_on_error=1 exitcode=66 suppressions=$top/kernel-port/kharness/tsan.supp"
	for threads in 2 4; do
		"$out/$tree/kh-stress" --threads "$threads" --rounds 200 --ops 1024
	done
	exit 0 ;;
*" address "*)	# ASan+UBSan: the fuzz corpus; the scenarios (20 million calls
		# in rmap-perf.scn alone) run in the default build
	mutations=${KH_FUZZ_MUTATIONS:-500} ;;
*)	"$out/$tree/kh-run" --tap "$top"/tests/scenarios/rmap-*.scn
	mutations=${KH_FUZZ_MUTATIONS:-3000} ;;
esac
# four threads on one folio through the kernel code, compared with the
# model at every quiescent point
"$out/$tree/kh-stress" --threads 4 --rounds 50 --ops 1024
export KH_FUZZ_REPRO="$out/$tree/kh-fuzz-repro.scn" KH_FUZZ_STATS=1
"$out/$tree/kh-fuzz" "$top/tests/kharness/corpus" 2>&1 | sed '/^regression: /d'
"$out/$tree/kh-fuzz" --mutate "$mutations" --seed 20261207 \
	"$top/tests/kharness/corpus" 2>&1
