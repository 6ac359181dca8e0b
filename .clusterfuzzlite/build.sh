#!/bin/bash -eu
# ClusterFuzzLite build: the same three targets as the plain-CI regression
# drivers and the libFuzzer preset (fuzz_rmap, fuzz_scenario,
# fuzz_differential), with their seed corpora, .options and the scenario
# dictionary, built by tests/fuzz/oss-fuzz-build.sh with the
# $CC/$CFLAGS/$LIB_FUZZING_ENGINE the infrastructure sets.
# Checked locally by ctest fuzz-clusterfuzzlite-build (clang, libFuzzer).
"$SRC/foliosim/tests/fuzz/oss-fuzz-build.sh"
