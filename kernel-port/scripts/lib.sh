# shellcheck shell=bash
# shellcheck disable=SC2034  # variables set here are used by the scripts that source this file
# Common helpers for the foliosim kernel-port scripts. Sourced, not executed.
#
# Everything heavy (unpacked kernel tree, build outputs, selftest binaries,
# initramfs images, serial logs) lives under $KBUILD_ROOT, which is OUTSIDE
# the git repository:  ${FOLIOSIM_KBUILD:-/var/tmp/foliosim-kbuild}

KP_SCRIPTS="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
KP_DIR="$(cd "$KP_SCRIPTS/.." && pwd)"          # .../kernel-port
KP_REPO="$(cd "$KP_DIR/.." && pwd)"             # repository root
KBUILD_ROOT="${FOLIOSIM_KBUILD:-/var/tmp/foliosim-kbuild}"

KSRC_PKG="linux-source-6.12"
KSRC_TARBALL="/usr/src/linux-source-6.12.tar.xz"
KSRC_TOPDIR="linux-source-6.12"                 # top directory inside the tarball

KP_PROG="$(basename "$0")"

log()  { printf '[%s %s] %s\n' "$KP_PROG" "$(date +%H:%M:%S)" "$*" >&2; }
warn() { printf '[%s] WARNING: %s\n' "$KP_PROG" "$*" >&2; }
die()  { printf '[%s] ERROR: %s\n' "$KP_PROG" "$*" >&2; exit 1; }

# Background children (QEMU, make) are stopped when the script ends, on
# an error or on Ctrl-C: in a script without job control they ignore
# SIGINT and would otherwise run on.  kp_track PID registers one.
KP_CHILDREN=()
kp_track() { KP_CHILDREN+=("$1"); }
kp_stop_children() {
    local p
    for p in "${KP_CHILDREN[@]}"; do
        kill -TERM "$p" 2>/dev/null || true
    done
    KP_CHILDREN=()
}
KP_EXIT_HOOKS=()
kp_on_exit() { KP_EXIT_HOOKS+=("$1"); }   # another command for the EXIT trap
kp_exit() {
    local h
    kp_stop_children
    for h in "${KP_EXIT_HOOKS[@]}"; do eval "$h"; done
}
trap kp_exit EXIT
trap 'log "interrupted: stopping"; exit 130' INT
trap 'exit 143' TERM

# One kernel-port script at a time per build root: two runs would race on
# the rm -rf of a build directory and on fixed temporary names.  The first
# script takes an exclusive flock on $KBUILD_ROOT/.lock (waiting, and
# saying so, while another holds it); the scripts it runs inherit the lock
# through KP_ROOT_LOCKED.  Scripts that only read set KP_NO_ROOT_LOCK=1
# before sourcing this file.
kp_lock_build_root() {
    [ "${KP_ROOT_LOCKED:-}" = "$KBUILD_ROOT" ] && return 0
    command -v flock > /dev/null || { warn "flock not found: the build root is not locked"; return 0; }
    mkdir -p "$KBUILD_ROOT"
    exec 7> "$KBUILD_ROOT/.lock"
    if ! flock -n 7; then
        log "another kernel-port script is using $KBUILD_ROOT; waiting for it"
        flock 7
    fi
    export KP_ROOT_LOCKED="$KBUILD_ROOT"
    KP_LOCK_OWNER=$$
}
# --help reads nothing under the root: it must not wait for a build
# (sourced without arguments, this file sees the script's own).
KP_LOCK_WANTED=1
case " $* " in *" -h "*|*" --help "*) KP_LOCK_WANTED=0;; esac
[ "${KP_NO_ROOT_LOCK:-0}" != 1 ] || KP_LOCK_WANTED=0
# A script whose options decide whether it builds anything (build-kernel,
# run-guest) sets KP_LOCK_LATER=1 before sourcing this file and calls
# kp_lock_build_root_later once they are parsed: a bad option then fails at
# once, even while a build runs beside, and a run that builds nothing never
# waits.
if [ "$KP_LOCK_WANTED" = 1 ] && [ "${KP_LOCK_LATER:-0}" != 1 ]; then
    kp_lock_build_root
fi
kp_lock_build_root_later() {
    if [ "$KP_LOCK_WANTED" = 1 ]; then kp_lock_build_root; fi
}

# kp_lock_build_dir DIR: an exclusive flock on DIR.lock (fd 9) for the rest
# of the script, waiting (and saying so) while another script builds into
# DIR.  build-kernel holds it for its compile and gives the root's lock up
# meanwhile (when it took that lock itself, not from a parent): a compile
# takes minutes and writes only DIR, so other scripts may use the root and
# find or build kernels of other keys beside it (prebuild-kernels builds
# the tests' kernels ahead while the tests boot theirs).
kp_lock_build_dir() {
    command -v flock > /dev/null || return 0
    mkdir -p "$(dirname "$1")"
    exec 9> "$1.lock"
    if ! flock -n 9; then
        log "another kernel-port script is building into $1; waiting for it"
        flock 9
    fi
}

# kp_unlock_build_root: give the lock up early (build-kernel, once it holds
# its build directory's lock, see kp_lock_build_dir).  Only the script that
# took the lock releases it; the scripts it runs afterwards do not inherit
# it.
kp_unlock_build_root() {
    [ "${KP_LOCK_OWNER:-}" = "$$" ] || return 0   # inherited: the parent's to give up
    flock -u 7 2>/dev/null || true
    exec 7>&-
    unset KP_ROOT_LOCKED
}

# ensure_pkgs PKG... : install the Debian packages that are not installed yet.
# Runs 'apt-get update' at most once per process, and only when something is
# actually missing.
KP_APT_UPDATED="${KP_APT_UPDATED:-0}"   # exported: child scripts do not update again
ensure_pkgs() {
    local missing=() p
    for p in "$@"; do
        if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
            missing+=("$p")
        fi
    done
    [ "${#missing[@]}" -eq 0 ] && return 0
    [ "$(id -u)" -eq 0 ] || die "missing packages (${missing[*]}) and not root: install them with apt-get install ${missing[*]}"
    # One kernel-port script at a time in apt (prebuild-kernels and a test
    # may both find a package missing on a fresh machine): wait for the
    # other, then look again.
    exec 8> /tmp/foliosim-apt.lock
    flock 8
    local still=()
    for p in "${missing[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || still+=("$p")
    done
    missing=("${still[@]+"${still[@]}"}")
    if [ "${#missing[@]}" -eq 0 ]; then exec 8>&-; return 0; fi
    if [ "$KP_APT_UPDATED" -eq 0 ]; then
        log "apt-get update (missing: ${missing[*]})"
        DEBIAN_FRONTEND=noninteractive apt-get update -qq > /tmp/foliosim-apt.log 2>&1 \
            || { tail -n 20 /tmp/foliosim-apt.log >&2; die "apt-get update failed (log /tmp/foliosim-apt.log)"; }
        export KP_APT_UPDATED=1
    fi
    log "apt-get install ${missing[*]}"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" \
        >> /tmp/foliosim-apt.log 2>&1 \
        || { tail -n 20 /tmp/foliosim-apt.log >&2; die "apt-get install ${missing[*]} failed (log /tmp/foliosim-apt.log)"; }
    exec 8>&-
}

# Architecture table: x86_64 and i386 (PAE, KUnit only: KP_KUNIT_ONLY).
# Another architecture is a case arm here (kernel ARCH, image path, qemu
# binary, selftest compiler flags) and a config/arch/ARCH.config.
arch_setup() {
    KP_ARCH="$1"
    case "$KP_ARCH" in
        x86_64)
            KARCH=x86_64                     # make ARCH=
            KIMAGE_REL=arch/x86/boot/bzImage # relative to the build (O=) dir
            KIMAGE_TARGET=bzImage
            QEMU_BIN=qemu-system-x86_64
            QEMU_PKG=qemu-system-x86
            SELFTEST_CFLAGS="-static"
            KP_KUNIT_ONLY=0
            ;;
        i386)
            # 32-bit x86: the KUnit suites built into the kernel run at boot;
            # no userspace beyond a freestanding /init (the selftests and the
            # guest runner are x86_64 binaries, and no 32-bit libc is needed).
            KARCH=i386
            KIMAGE_REL=arch/x86/boot/bzImage
            KIMAGE_TARGET=bzImage
            QEMU_BIN=qemu-system-i386
            QEMU_PKG=qemu-system-x86
            SELFTEST_CFLAGS=""
            KP_KUNIT_ONLY=1
            ;;
        *) die "unsupported --arch '$KP_ARCH' (supported: x86_64, i386)";;
    esac
}

# Make sure the source tarball is there (apt-get install linux-source-6.12).
ensure_kernel_source() {
    if [ ! -f "$KSRC_TARBALL" ]; then
        ensure_pkgs "$KSRC_PKG"
    fi
    [ -f "$KSRC_TARBALL" ] || die "$KSRC_TARBALL still missing after installing $KSRC_PKG"
    KSRC_DPKG_VERSION="$(dpkg-query -W -f='${Version}' "$KSRC_PKG" 2>/dev/null || echo unknown)"
}

# The series files: kernel-port/series, then KP_SERIES_EXTRA if set (a file
# of measurement-only parts that run-bench appends, kernel-port/series.bench;
# never part of the series itself).
series_files() {
    [ -f "$KP_DIR/series" ] && echo "$KP_DIR/series"
    if [ -n "${KP_SERIES_EXTRA:-}" ]; then
        [ -f "$KP_SERIES_EXTRA" ] || die "KP_SERIES_EXTRA: no file $KP_SERIES_EXTRA"
        echo "$KP_SERIES_EXTRA"
    fi
    return 0
}

# The patches of the series files, in order. A line "# part: NAME" opens a
# part; with KP_SERIES_UNTIL=NAME only the patches up to the end of that part
# are listed, with KP_SERIES_UNTIL=PART/NNNN those up to that patch (a
# one-patch prefix of PART/NNNN-subject.patch), with KP_SERIES_UNTIL=none
# none (the pristine tree).
# series_entries --parts: the part of each of those patches instead ("" for a
# patch before the first part line).
series_entries() {
    local files
    mapfile -t files < <(series_files)
    [ "${#files[@]}" -gt 0 ] || return 0
    awk -v until="${KP_SERIES_UNTIL:-}" -v with_part="${1:-}" '
        /^[[:space:]]*#[[:space:]]*part:/ {
            p = $0; sub(/^[[:space:]]*#[[:space:]]*part:[[:space:]]*/, "", p); sub(/[[:space:]].*$/, "", p)
            if (until != "" && reached && p != until) exit
            if (p == until) reached = 1
            next
        }
        {
            sub(/#.*$/, ""); gsub(/^[[:space:]]+|[[:space:]]+$/, "")
            if ($0 == "" || until == "none") next
            print (with_part == "--parts" ? p : $0)
            if (index(until, "/") && index($0, until "-") == 1) exit
        }' "${files[@]}"
}

# The part names of the series files, in order.
series_parts() {
    local files
    mapfile -t files < <(series_files)
    [ "${#files[@]}" -gt 0 ] || return 0
    sed -n 's/^[[:space:]]*#[[:space:]]*part:[[:space:]]*\([^[:space:]]*\).*/\1/p' "${files[@]}"
}

# The parts of the series that KP_SERIES_UNTIL applies, in order, a part
# cut by PART/NNNN included: they decide the kernel's mode (kernel_mode) and
# what the guest runner replays.
series_applied_parts() {
    local p until="${KP_SERIES_UNTIL:-}"
    [ "$until" = none ] && return 0
    until="${until%%/*}"
    for p in $(series_parts); do
        echo "$p"
        [ "$p" = "$until" ] && return 0
    done
    return 0
}

# fragment_options_added FRAGMENT PART: every option FRAGMENT sets is added
# ("+config SYM") by a patch of PART that KP_SERIES_UNTIL applies, so that
# the fragment can be merged without asking for an option the tree lacks.
fragment_options_added() {
    local sym found entry
    local -a own=()   # PART's applied patches, listed once for every option
    mapfile -t own < <(paste -d' ' <(series_entries --parts) <(series_entries) |
                       awk -v p="$2" '$1 == p { print $2 }')
    for sym in $(sed -n 's/^\(# \)\{0,1\}CONFIG_\([A-Za-z0-9_]*\)[= ].*/\2/p' "$1"); do
        found=0
        for entry in "${own[@]}"; do
            if grep -qE "^\+[[:space:]]*(menu)?config ${sym}[[:space:]]*$" "$KP_DIR/patches/$entry"; then
                found=1; break
            fi
        done
        [ "$found" -eq 1 ] || return 1
    done
    return 0
}

# The parts whose config fragment (config/parts/PART.config) and KUnit
# suites the kernel gets: the applied parts, but a part cut by PART/NNNN
# only once its patches up to NNNN add every option of its fragment (from
# fixes/0003 on for part fixes, say: its fragment enables the test that
# patch adds).
series_fragment_parts() {
    local p f until="${KP_SERIES_UNTIL:-}"
    for p in $(series_applied_parts); do
        f="$KP_DIR/config/parts/$p.config"
        case "$until" in "$p"/*)   # the part cut by PART/NNNN
            if [ -f "$f" ] && ! fragment_options_added "$f" "$p"; then continue; fi;;
        esac
        echo "$p"
    done
    return 0
}

# KUnit suites the applied parts add: "# kunit-suites: A B" lines in
# config/parts/PART.config. Printed comma-separated.
expected_kunit_suites() {
    local p f
    for p in $(series_fragment_parts); do
        f="$KP_DIR/config/parts/$p.config"
        if [ -f "$f" ]; then
            sed -n 's/^#[[:space:]]*kunit-suites:[[:space:]]*//p' "$f"
        fi
    done | tr -s ' \n' ',' | sed 's/^,//; s/,$//'
    return 0
}

# The accounting mode of the kernel that KP_SERIES_UNTIL and config variant $1
# build, as libfoliosim names it: pristine 6.12 = legacy, the prep part =
# base (the RFC's base tree, CONFIG_PAGE_MAPCOUNT=y), any config with
# CONFIG_NO_PAGE_MAPCOUNT=y or any tree with the rfc part = rfc.
kernel_mode() {
    # grep -x > /dev/null, not grep -q: under pipefail, grep -q exiting at
    # the first match can kill the writer with SIGPIPE and fail the test
    # (seen: an i386 run took its tree for pristine 6.12, mode legacy).
    local variant="${1:-}"
    if [ -n "$variant" ] &&
       grep -q '^CONFIG_NO_PAGE_MAPCOUNT=y' "$KP_DIR/config/variants/$variant.config" 2>/dev/null; then
        echo rfc
    elif series_applied_parts | grep -x rfc > /dev/null; then
        echo rfc
    elif series_applied_parts | grep -x prep > /dev/null; then
        echo base
    else
        echo legacy
    fi
}

# Check a --series-until value and export it for the scripts we call.
set_series_until() {
    local want="$1"
    case "$want" in
    */*)
        local n
        case "$want" in *[!A-Za-z0-9/_.-]*|*/*/*|/*|*/) die "--series-until: bad patch '$want' (PART/NNNN, e.g. rfc/0003)";; esac
        n=$(KP_SERIES_UNTIL="" series_entries | awk -v w="$want-" 'index($0, w) == 1' | wc -l)
        [ "$n" = 1 ] || die "--series-until: '$want' names $n patches of kernel-port/series, not 1 (PART/NNNN, e.g. rfc/0003)"
        ;;
    *)
        if [ "$want" != none ] && ! series_parts | grep -x -- "$want" > /dev/null; then
            die "--series-until: no part '$want' in kernel-port/series (parts: $(series_parts | tr '\n' ' ')none)"
        fi
        ;;
    esac
    export KP_SERIES_UNTIL="$want"
}

# Hash of the series file and every patch it names (order matters).
patches_hash() {
    {
        echo "series:"
        series_entries
        local p
        while IFS= read -r p; do
            [ -f "$KP_DIR/patches/$p" ] || die "series names '$p' but kernel-port/patches/$p does not exist"
            echo "patch:$p"
            sha256sum < "$KP_DIR/patches/$p"
        done < <(series_entries)
    } | sha256sum | cut -c1-16
}

# Identifier of the pristine tree: dpkg version + tarball size.
tree_id() {
    local size
    size="$(stat -c %s "$KSRC_TARBALL")"
    printf '%s-%s' "$KSRC_DPKG_VERSION" "$size" | tr -c 'A-Za-z0-9.+~\n-' '_'
}

# prepare_tree : sets KSRC_DIR to an unpacked tree with the series applied.
# Pristine tree: $KBUILD_ROOT/src/<tree-id>/pristine
# Patched tree : $KBUILD_ROOT/src/<tree-id>/patched-<patches-hash>  (only when
#                the series is non-empty; a copy of pristine + patches).
# prepare_pristine : sets KSRC_PRISTINE (unpacked once), KSRC_VERSION and
# TREE_ID, without applying anything.
prepare_pristine() {
    ensure_kernel_source
    local tid base pristine
    tid="$(tree_id)"
    base="$KBUILD_ROOT/src/$tid"
    pristine="$base/pristine"
    mkdir -p "$base"
    if [ ! -f "$pristine/.foliosim-unpacked" ]; then
        log "unpacking $KSRC_TARBALL into $pristine (about 15 s)"
        rm -rf "$pristine" "$base/.unpack-tmp"
        mkdir -p "$base/.unpack-tmp"
        tar -xJf "$KSRC_TARBALL" -C "$base/.unpack-tmp"
        mv "$base/.unpack-tmp/$KSRC_TOPDIR" "$pristine"
        rmdir "$base/.unpack-tmp"
        write_version_file "$pristine" "$pristine/.foliosim-version"
        touch "$pristine/.foliosim-unpacked"
    fi
    KSRC_PRISTINE="$pristine"
    KSRC_VERSION="$(kernel_version "$pristine")"
    TREE_ID="$tid"
}

# tree_is_prepared: does the tree prepare_tree would make exist already?
# Reads only the stamps prepare_pristine and prepare_tree write last (the
# patched tree after its atomic mv), so it needs no lock: a script that
# only reads a ready tree can skip the build root's lock (build-kharness).
tree_is_prepared() {
    local base
    [ -f "$KSRC_TARBALL" ] || return 1
    ensure_kernel_source   # (installs nothing: the tarball is there)
    base="$KBUILD_ROOT/src/$(tree_id)"
    [ -f "$base/pristine/.foliosim-unpacked" ] || return 1
    [ "$(series_entries | wc -l)" -ne 0 ] || return 0
    [ -f "$base/patched-$(patches_hash)/.foliosim-patched" ]
}

prepare_tree() {
    prepare_pristine
    local phash base
    phash="$(patches_hash)"
    base="$KBUILD_ROOT/src/$TREE_ID"
    PATCHES_HASH="$phash"
    local n
    n="$(series_entries | wc -l)"
    if [ "$n" -eq 0 ]; then
        KSRC_DIR="$KSRC_PRISTINE"
        return 0
    fi
    local patched="$base/patched-$phash"
    if [ -f "$patched/.foliosim-patched" ]; then
        KSRC_DIR="$patched"
        return 0
    fi
    local tmp="$base/.patch-tmp-$phash"
    rm -rf "$tmp"
    log "copying pristine tree to apply $n patch(es)"
    cp -a "$KSRC_PRISTINE" "$tmp"
    rm -f "$tmp/.foliosim-unpacked"
    local p i=0
    while IFS= read -r p; do
        i=$((i + 1))
        local pf="$KP_DIR/patches/$p"
        # Dry run first, so a failing patch never touches the tree; the whole
        # temporary tree is thrown away on failure, so earlier patches of the
        # series are not left half-applied either.
        if ! patch -p1 -d "$tmp" --dry-run --batch --forward --quiet < "$pf" > "$base/.patch-dry-run.log" 2>&1; then
            cat "$base/.patch-dry-run.log" >&2
            rm -rf "$tmp"
            die "patch $i/$n '$p' (kernel-port/patches/$p) does not apply to $KSRC_VERSION; tree left untouched"
        fi
        patch -p1 -d "$tmp" --batch --forward --quiet --no-backup-if-mismatch < "$pf" >&2 \
            || { rm -rf "$tmp"; die "patch '$p' failed after a clean dry run"; }
        log "applied patch $i/$n: $p"
    done < <(series_entries)
    series_entries > "$tmp/.foliosim-series"
    touch "$tmp/.foliosim-patched"
    mv "$tmp" "$patched"
    KSRC_DIR="$patched"
}

# The files a patch touches (its ---/+++ paths), one per line, sorted.
patch_files() {
    sed -n 's#^\(---\|+++\) [ab]/\([^[:space:]]*\).*#\2#p' "$1" | LC_ALL=C sort -u
}

# source_hash: sets SOURCE_HASH, a hash of the source the series builds --
# every file its patches touch, as it is in $KSRC_DIR after them (and the
# paths, so that a deleted file counts) -- so that a patch whose message
# alone changes keeps every cache key (bisect-series keys its steps the
# same way).  "pristine" for an empty series.  Remembered in the patched
# tree (.foliosim-source-hash), so computed once per tree.
source_hash() {
    if [ "$KSRC_DIR" = "$KSRC_PRISTINE" ]; then
        SOURCE_HASH=pristine
        return 0
    fi
    local memo="$KSRC_DIR/.foliosim-source-hash"
    if [ -s "$memo" ]; then
        SOURCE_HASH="$(cat "$memo")"
        return 0
    fi
    SOURCE_HASH="$(series_touched_hash)"
    echo "$SOURCE_HASH" > "$memo"
}

# selftests_source_hash: source_hash restricted to what a userspace build
# of the selftests reads of the tree (tools/, the uapi headers that `make
# headers` installs, the build scripts and the top Makefile): "pristine"
# when the series touches none of it, so 6.12's kernel and the prep
# part's share one selftests build (the kernels differ, the selftests'
# inputs do not); detect/0005's new selftest gives the whole series its own.
selftests_source_hash() {
    local h
    if [ "$KSRC_DIR" = "$KSRC_PRISTINE" ]; then echo pristine; return 0; fi
    h="$(series_touched_hash '^(tools/|scripts/|usr/|Makefile$)|/uapi/')"
    echo "${h:-pristine}"
}

# series_touched_hash [REGEX]: the paths the series applied in $KSRC_DIR
# touches (those matching REGEX, if given) with their content there, as
# one hash; nothing when no path matches.
series_touched_hash() {
    local p touched
    touched="$(while IFS= read -r p; do patch_files "$KP_DIR/patches/$p"; done \
               < "$KSRC_DIR/.foliosim-series" |
               { grep -E "${1:-.}" || true; } | LC_ALL=C sort -u)"
    [ -n "$touched" ] || return 0
    { echo "$touched"
      while IFS= read -r p; do
          if [ -f "$KSRC_DIR/$p" ]; then (cd "$KSRC_DIR" && sha256sum "./$p"); fi
      done <<< "$touched"; } | sha256sum | cut -c1-64
}

# adopt_old_build NEW_DIR OLD_DIR WHAT [FILE]: a build made under the
# patch-file key of the scripts before 2026-12-06 (OLD_DIR, finished, with
# FILE in it if given) is this source's: link it as NEW_DIR, unless NEW_DIR
# exists or --force ($FORCE) asks for a rebuild.  A dangling NEW_DIR link
# is removed first.
adopt_old_build() {
    local new="$1" old="$2" what="$3" file="${4:-}"
    [ -L "$new" ] && [ ! -e "$new" ] && rm -f "$new"
    if [ "${FORCE:-0}" -eq 0 ] && [ ! -e "$new" ] && [ -f "$old/.foliosim-done" ] &&
       { [ -z "$file" ] || [ -f "$old/$file" ]; }; then
        ln -s "$(basename "$old")" "$new"
        log "$what built under the patch-file key $(basename "$old") is this source's: linked as $(basename "$new")"
    fi
    return 0
}

kernel_version() {
    local mk="$1/Makefile" v p s e
    v="$(sed -n 's/^VERSION = //p' "$mk" | head -1)"
    p="$(sed -n 's/^PATCHLEVEL = //p' "$mk" | head -1)"
    s="$(sed -n 's/^SUBLEVEL = //p' "$mk" | head -1)"
    e="$(sed -n 's/^EXTRAVERSION = *//p' "$mk" | head -1)"
    printf '%s.%s.%s%s' "$v" "$p" "$s" "$e"
}

write_version_file() {
    local tree="$1" out="$2"
    {
        echo "kernel_version=$(kernel_version "$tree")"
        sed -n -e 's/^VERSION = /VERSION=/p' -e 's/^PATCHLEVEL = /PATCHLEVEL=/p' \
               -e 's/^SUBLEVEL = /SUBLEVEL=/p' -e 's/^EXTRAVERSION = */EXTRAVERSION=/p' "$tree/Makefile" | head -4
        echo "dpkg_package=$KSRC_PKG"
        echo "dpkg_version=$KSRC_DPKG_VERSION"
        echo "tarball=$KSRC_TARBALL"
        echo "tarball_size=$(stat -c %s "$KSRC_TARBALL")"
    } > "$out"
}

# Config fragments, in merge order: config/*.config (sorted), config/arch/<arch>.config,
# then config/variants/<variant>.config.
config_fragments() {
    local variant="$1" f p
    for f in "$KP_DIR"/config/*.config; do
        [ -f "$f" ] && echo "$f"
    done
    [ -f "$KP_DIR/config/arch/$KP_ARCH.config" ] && echo "$KP_DIR/config/arch/$KP_ARCH.config"
    # Options that only exist once a part of the series is applied (its
    # KUnit tests, say): config/parts/PART.config, for every applied part.
    for p in $(series_fragment_parts); do
        f="$KP_DIR/config/parts/$p.config"
        [ -f "$f" ] && echo "$f"
    done
    if [ -n "$variant" ]; then
        f="$KP_DIR/config/variants/$variant.config"
        [ -f "$f" ] || die "config variant '$variant' not found: $f (available: $(cd "$KP_DIR/config/variants" 2>/dev/null && ls ./*.config 2>/dev/null | sed 's|^\./||; s|\.config$||' | tr '\n' ' '))"
        echo "$f"
    fi
    return 0
}

# Seconds since a start timestamp, as "Ns".
elapsed() { echo "$(( $(date +%s) - $1 ))s"; }

# build_with_libfoliosim SUBDIR TARGET [static]
# Builds the CMake target TARGET of the project (the foliosim CLI, the guest
# runner foliosim-guest) with the project's own build system, -Werror and
# -O2, statically linked with "static", cached as $KBUILD_ROOT/SUBDIR/<hash>/
# TARGET, the hash covering the mode and every source, header and CMake file
# of libfoliosim/ and kernel-port/guest/.  Prints the program's path.
build_with_libfoliosim() {
    local subdir="$1" target="$2" link="${3:-}" key out bdir bin
    ensure_pkgs cmake make gcc
    key=$( { echo "$target $link"; cat "$KP_REPO/CMakeLists.txt";
             find "$KP_REPO/libfoliosim" "$KP_DIR/guest" -type f \( -name '*.[ch]' -o -name CMakeLists.txt \) |
             LC_ALL=C sort | xargs cat; } | sha256sum | cut -c1-16)
    out="$KBUILD_ROOT/$subdir/$key/$target"
    if [ -x "$out" ]; then
        log "cached: $out"
    else
        bdir="$KBUILD_ROOT/$subdir/$key/build"
        mkdir -p "$bdir"
        log "building $target (cmake, $bdir)"
        cmake -S "$KP_REPO" -B "$bdir" -DCMAKE_BUILD_TYPE=Release -DFOLIOSIM_WERROR=ON \
            -DFOLIOSIM_BUILD_TESTS=OFF -DFOLIOSIM_BUILD_FUZZ=OFF -DFOLIOSIM_BUILD_BENCH=OFF \
            ${link:+-DCMAKE_EXE_LINKER_FLAGS=-static} > "$bdir.log" 2>&1 &&
        cmake --build "$bdir" --target "$target" -j"$(nproc)" >> "$bdir.log" 2>&1 \
            || { tail -n 30 "$bdir.log" >&2; die "cannot build $target (log $bdir.log)"; }
        bin="$(find "$bdir" -type f -name "$target" -perm -u+x | head -n 1)"
        [ -n "$bin" ] || die "cmake built no $target in $bdir"
        cp "$bin" "$out.tmp"
        mv "$out.tmp" "$out"
    fi
    echo "$out"
}
