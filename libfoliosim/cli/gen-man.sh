#!/bin/sh
# Regenerates libfoliosim/cli/foliosim.1 from `foliosim --help` and
# `--version` with help2man (the man page cmake --install installs):
#   libfoliosim/cli/gen-man.sh FOLIOSIM [OUT]
# The date is pinned (SOURCE_DATE_EPOCH) so that the page changes only
# where the help does; the test man-page-up-to-date compares.
set -eu
foliosim=$1
out=${2:-$(dirname "$0")/foliosim.1}
command -v help2man > /dev/null || { echo "gen-man: help2man not found (apt-get install help2man)" >&2; exit 2; }
SOURCE_DATE_EPOCH=1796515200 help2man --no-info --no-discard-stderr \
	--name "model the Linux folio rmap accounting of 6.12 and of the RFC 'mm/rmap: support arbitrary folio mappings'" \
	--section 1 --source "foliosim" \
	--include /dev/stdin "$foliosim" > "$out" <<'TXT'
[SEE ALSO]
docs/scenario-format.md (the scenario language), docs/json.md (the JSON
output), docs/model.md and docs/what-changes.md in the foliosim sources.
TXT
