#!/usr/bin/env bash
# Time to first result on a fresh machine (issue 18, item 5): `bash scripts/quickstart.sh` timed in a
# fresh Debian 12 (bookworm) root that has none of the build packages, from a clean clone of this
# repository to the leaderboard print.
#
# Needs root (debootstrap, chroot, mount), debootstrap (apt-get install debootstrap) and a reachable
# Debian mirror. A minimal root (debootstrap --variant=minbase, as a CI container starts: no compiler, no
# package lists, an empty apt cache) is made once into $FRESH_ROOT/base and reused; each run copies it to
# $FRESH_ROOT/run and puts in it the host's /etc/resolv.conf and apt sources, /proc, /sys and /dev, a
# `git clone` of this repository's HEAD at /work/main with the working tree's uncommitted files copied
# over it (OVERLAY), and ../shared bind-mounted read-only at /work/shared. Untimed so far. The timed part,
# under `flock /tmp/build.lock` (no other build on the machine meanwhile), is scripts/quickstart.sh itself:
# apt-get update and install of what it needs, cmake configure, the build, the quickstart sweep. To split
# the time, /usr/local/sbin/apt-get and /usr/local/bin/cmake in the root are shims that log when the real
# command starts and ends.
#
# Prints per run the total and its split -- apt (apt-get update + install), configure, build (cmake
# --build), sweep (from the end of the build to the quickstart's exit, leaderboards printed), other (the
# rest: the setup script's package checks) -- and the quickstart's last lines (the leaderboard); at the
# end one line per run and the median. Keeps each run's output in $FRESH_ROOT/run-N.log (each line
# stamped with its arrival time, seconds since the epoch; the link of the binary is timed from it) and
# its results/quickstart in $FRESH_ROOT/run-N-results, and appends "run N: total apt configure build
# sweep other" (seconds) to $FRESH_ROOT/summary.txt.
#
#   sudo bash bench/fresh_quickstart.sh
#   RUNS=3 bash bench/fresh_quickstart.sh        # runs, each from a fresh copy of the base (default 1)
#   OVERLAY=none ...      HEAD only; OVERLAY="scripts bench" copies only those paths' uncommitted files;
#                         default "all": every modified or untracked (not ignored) file of the working tree
#   FRESH_ROOT=/work/fresh-root  MIRROR=http://deb.debian.org/debian  KEEP=1 (keep the last run's root)
set -euo pipefail

SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SHARED=${SHARED:-$SRC/../shared}
FRESH_ROOT=${FRESH_ROOT:-/work/fresh-root}
MIRROR=${MIRROR:-http://deb.debian.org/debian}
RUNS=${RUNS:-1}
OVERLAY=${OVERLAY:-all}
LOCK=${LOCK:-/tmp/build.lock}
base=$FRESH_ROOT/base
run=$FRESH_ROOT/run

die() { echo "fresh_quickstart: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "needs root (debootstrap, chroot and mount): sudo bash $0"
for tool in debootstrap chroot mount git flock perl; do
  command -v "$tool" >/dev/null || die "$tool is missing (apt-get install debootstrap util-linux git perl)"
done
[ -d "$SHARED" ] || die "$SHARED is missing (the project expects ../shared beside the repository)"
SHARED=$(cd "$SHARED" && pwd)
case "$FRESH_ROOT/" in "$SRC"/*) die "FRESH_ROOT must be outside the repository ($SRC)";; esac

# The base root, once.
if [ ! -f "$base/.complete" ]; then
  echo "fresh_quickstart: debootstrap --variant=minbase bookworm into $base (once; reused after)" >&2
  ! grep -q " ${base}[/ ]" /proc/mounts || die "something is mounted under $base (an interrupted debootstrap?)"
  rm -rf "$base"
  mkdir -p "$FRESH_ROOT"
  debootstrap --variant=minbase bookworm "$base" "$MIRROR" >"$FRESH_ROOT/debootstrap.log" 2>&1 ||
    die "debootstrap failed; see $FRESH_ROOT/debootstrap.log"
  # As a container image ships: no package lists, no downloaded packages, no service starts in dpkg.
  rm -rf "$base"/var/lib/apt/lists/* "$base"/var/cache/apt/archives/*.deb "$base"/var/cache/apt/*.bin
  mkdir -p "$base/var/lib/apt/lists/partial"
  printf '#!/bin/sh\nexit 101\n' >"$base/usr/sbin/policy-rc.d"
  chmod 755 "$base/usr/sbin/policy-rc.d"
  touch "$base/.complete"
fi

# Mounts of the run root, innermost last; unmounted in reverse. The root is deleted only when none is left.
mounts=()
cleanup() {  # cleanup [force]: force deletes the root even with KEEP=1 (before the next run)
  local i
  for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do
    umount "${mounts[i]}" 2>/dev/null || umount -l "${mounts[i]}" || true
  done
  mounts=()
  if grep -q " ${run}[/ ]" /proc/mounts; then
    echo "fresh_quickstart: something is still mounted under $run; not deleting it" >&2
  elif [ "${KEEP:-0}" != 1 ] || [ "${1:-}" = force ]; then
    rm -rf "$run"
  fi
}
trap cleanup EXIT
mount_in() {  # mount_in TARGET MOUNT-ARGS...
  local target=$1; shift
  mkdir -p "$target"
  mount "$@" "$target" || die "mount $* $target failed"
  mounts+=("$target")
}

# prepare: a fresh copy of the base with the clone and the mounts (untimed).
prepare() {
  cleanup force
  [ ! -e "$run" ] || die "$run is left over from an earlier run and could not be removed"
  cp -a "$base" "$run"
  cp /etc/resolv.conf "$run/etc/resolv.conf"
  local sources=(/etc/apt/sources.list.d/*.sources /etc/apt/sources.list.d/*.list)
  local copied=0 f
  for f in "${sources[@]}"; do
    if [ -f "$f" ]; then cp "$f" "$run/etc/apt/sources.list.d/"; copied=1; fi
  done
  if [ "$copied" = 1 ]; then rm -f "$run/etc/apt/sources.list"; fi
  # The shims that time apt-get and cmake (see the header).
  local tool dir
  for tool in apt-get cmake; do
    dir=$run/usr/local/bin; [ "$tool" = cmake ] || dir=$run/usr/local/sbin
    mkdir -p "$dir"
    cat >"$dir/$tool" <<EOF
#!/bin/sh
echo "\$(date +%s.%N) start $tool \$*" >>/var/log/fresh-timeline
rc=0; /usr/bin/$tool "\$@" || rc=\$?
echo "\$(date +%s.%N) end $tool \$rc" >>/var/log/fresh-timeline
exit \$rc
EOF
    chmod 755 "$dir/$tool"
  done
  mkdir -p "$run/work"
  git clone -q --no-hardlinks "$SRC" "$run/work/main"
  if [ "$OVERLAY" != none ]; then
    local paths=()
    [ "$OVERLAY" = all ] || read -r -a paths <<<"$OVERLAY"
    (cd "$SRC" && git ls-files -z -m -o --exclude-standard -- "${paths[@]}") |
      while IFS= read -r -d '' f; do
        if [ -e "$SRC/$f" ]; then (cd "$SRC" && cp -a --parents -- "$f" "$run/work/main/"); fi
      done
    (cd "$SRC" && git ls-files -z -d -- "${paths[@]}") |
      while IFS= read -r -d '' f; do rm -f -- "$run/work/main/$f"; done
  fi
  mount_in "$run/proc" -t proc proc
  mount_in "$run/sys" -t sysfs sysfs
  mount_in "$run/dev" --bind /dev
  mount_in "$run/dev/pts" --bind /dev/pts
  mount_in "$run/work/shared" --bind "$SHARED"
  mount -o remount,bind,ro "$run/work/shared" || die "could not make $run/work/shared read-only"
  cat >"$run/root/timed-quickstart.sh" <<'EOF'
#!/bin/bash
set -euo pipefail
cd /work/main
date +%s.%N >/var/log/fresh-t0
rc=0; bash scripts/quickstart.sh || rc=$?
date +%s.%N >/var/log/fresh-t1
exit $rc
EOF
}

# split: the timed run's phases from the shims' log, in seconds: total apt configure build sweep other.
split() {
  awk -v t0="$(cat "$run/var/log/fresh-t0")" -v t1="$(cat "$run/var/log/fresh-t1")" '
    $2 == "start" {
      start = $1
      what = $3 == "cmake" ? ($4 == "--build" ? "build" : "configure") : "apt"
    }
    $2 == "end"   { d[what] += $1 - start; if (what == "build") build_end = $1 }
    END {
      total = t1 - t0; sweep = build_end ? t1 - build_end : 0
      other = total - d["apt"] - d["configure"] - d["build"] - sweep
      printf "%.1f %.1f %.1f %.1f %.1f %.1f\n", total, d["apt"], d["configure"], d["build"], sweep, other
    }' "$run/var/log/fresh-timeline"
}
build_end() {  # when the build (cmake --build) ended, from the shims' log
  awk '$2 == "end" && $3 == "cmake" && prev ~ /--build/ { e = $1 } { prev = $0 } END { print e }' \
    "$run/var/log/fresh-timeline"
}
mmss() { awk -v s="$1" 'BEGIN { printf "%dm%04.1fs", int(s / 60), s - 60 * int(s / 60) }'; }

head=$(git -C "$SRC" rev-parse --short HEAD)
echo "fresh_quickstart: $RUNS run(s) of scripts/quickstart.sh in a fresh bookworm root; clone of $head," \
  "overlay: $OVERLAY; $(nproc) cores" >&2
totals=()
for ((i = 1; i <= RUNS; i++)); do
  prepare
  log=$FRESH_ROOT/run-$i.log
  echo "fresh_quickstart: run $i: waiting for $LOCK, then timing (output in $log)" >&2
  # Each output line is stamped with the time it arrived (seconds since the epoch) in the log.
  set +e
  flock "$LOCK" chroot "$run" /usr/bin/env -i HOME=/root LANG=C.UTF-8 TERM=dumb \
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    /bin/bash /root/timed-quickstart.sh 2>&1 |
    perl -MTime::HiRes=time -ne '$| = 1; printf "%.2f %s", time, $_' >"$log"
  rc=${PIPESTATUS[0]}
  set -e
  if [ "$rc" != 0 ] || [ ! -s "$run/work/main/results/quickstart/leaderboard.txt" ]; then
    tail -n 30 "$log" >&2
    die "run $i: scripts/quickstart.sh failed (exit status $rc) or wrote no leaderboard; output in $log"
  fi
  rm -rf "$FRESH_ROOT/run-$i-results"
  cp -a "$run/work/main/results/quickstart" "$FRESH_ROOT/run-$i-results"
  read -r total apt configure build sweep other < <(split)
  totals+=("$total")
  echo "--- run $i: the quickstart's last lines:"
  tail -n 12 "$log" | cut -d' ' -f2-
  link=$(awk '/Linking CXX executable .*noveltygrid$/ { print $1; exit }' "$log")
  if [ -n "$link" ]; then
    link=$(awk -v a="$link" -v b="$(build_end)" 'BEGIN { printf "%.1f", b - a }')
    echo "run $i: the link of noveltygrid took $link s"
  fi
  echo "run $i: total $(mmss "$total") = apt $(mmss "$apt") + configure $(mmss "$configure") +" \
    "build $(mmss "$build") + sweep $(mmss "$sweep") + other $(mmss "$other")"
  echo "run $i: $total $apt $configure $build $sweep $other" >>"$FRESH_ROOT/summary.txt"
done
median=$(printf '%s\n' "${totals[@]}" | sort -n |
  awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
echo "fresh_quickstart: $RUNS run(s), total per run: ${totals[*]} s; median $(mmss "$median") ($median s)"
