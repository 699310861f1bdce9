#!/usr/bin/env bash
# Link launcher for the noveltygrid binary (RULE_LAUNCH_LINK, see cli/CMakeLists.txt): runs the link
# command it is given with Abseil, gRPC (and what it carries: gpr, upb, address_sorting, re2, c-ares) and
# protobuf taken from their static archives instead of their shared objects.
#
# Why: a dynamically linked noveltygrid loads ~90 shared objects, and resolving their symbols takes the
# loader ~11 ms at every start (BENCHMARKS.md, the reference workload).
#
# All or nothing: if one of those libraries has no archive beside its shared object, the command runs
# unchanged (a binary with Abseil both linked in and loaded through libgrpc.so would break at run time),
# with a warning. Configure with -DNOVELTYGRID_STATIC_DEPS=OFF to skip this launcher altogether.
set -euo pipefail

pattern='^(.*)/lib(absl_[A-Za-z0-9_]+|grpc\+\+|grpc|gpr|upb|address_sorting|protobuf|cares|re2)\.so(\.[0-9.]+)?$'
warn() { echo "link_static_deps.sh: $*; linking the shared objects (-DNOVELTYGRID_STATIC_DEPS=OFF skips this)" >&2; }

absl_dir=""  # where Abseil's archives are (each of its archives goes into the group, see below)
re2_dir=""
static_args=()
args=()
for arg in "$@"; do
  if [[ "$arg" =~ $pattern ]]; then
    dir=${BASH_REMATCH[1]} name=${BASH_REMATCH[2]}
    if [[ ! -f "$dir/lib$name.a" ]]; then
      warn "no $dir/lib$name.a"
      exec "$@"
    fi
    [[ "$name" == absl_* ]] && absl_dir=$dir
    [[ "$name" == grpc ]] && re2_dir=$dir
    static_args+=("$dir/lib$name.a")
  elif [[ "$arg" == -lre2 ]]; then
    static_args+=(RE2)  # resolved below, once gRPC's folder is known
  else
    args+=("$arg")
  fi
done
if [[ -z "$absl_dir" ]]; then
  warn "no Abseil shared object on the link line"
  exec "$@"
fi
for i in "${!static_args[@]}"; do
  if [[ "${static_args[$i]}" == RE2 ]]; then
    if [[ ! -f "${re2_dir:-$absl_dir}/libre2.a" ]]; then
      warn "no ${re2_dir:-$absl_dir}/libre2.a"
      exec "$@"
    fi
    static_args[i]="${re2_dir:-$absl_dir}/libre2.a"
  fi
done
# The archives' own dependencies are not on the command line (the shared objects name them), so every
# Abseil archive goes into the group too; the linker takes only the objects something needs.
shopt -s nullglob
if ! "${args[@]}" -Wl,--start-group "${static_args[@]}" "$absl_dir"/libabsl_*.a -Wl,--end-group -lssl -lcrypto -lz; then
  echo "link_static_deps.sh: the link with the static archives failed (above); configure with" \
    "-DNOVELTYGRID_STATIC_DEPS=OFF to link the shared objects" >&2
  exit 1
fi
