#!/usr/bin/env bash
# Link launcher for the noveltygrid binary (RULE_LAUNCH_LINK, see cli/CMakeLists.txt): runs the link
# command it is given with Abseil, gRPC (and what it carries: gpr, upb, address_sorting, re2, c-ares) and
# protobuf taken from their static archives instead of their shared objects.
#
# Why: a dynamically linked noveltygrid loads ~90 shared objects, and resolving their symbols takes the
# loader ~13 ms at every start -- more than half of the time before the first request (BENCHMARKS.md,
# the reference workload). Archives that are missing are left as they were (the shared object is linked).
set -euo pipefail

pattern='^(.*)/lib(absl_[A-Za-z0-9_]+|grpc\+\+|grpc|gpr|upb|address_sorting|protobuf|cares|re2)\.so(\.[0-9.]+)?$'
libdir=""  # where the shared objects are, and so the archives
for arg in "$@"; do
  if [[ "$arg" =~ $pattern ]]; then libdir=${BASH_REMATCH[1]}; fi
done
static_args=()
args=()
for arg in "$@"; do
  if [[ "$arg" =~ $pattern ]] && [[ -f "${BASH_REMATCH[1]}/lib${BASH_REMATCH[2]}.a" ]]; then
    static_args+=("${BASH_REMATCH[1]}/lib${BASH_REMATCH[2]}.a")
  elif [[ "$arg" == -lre2 && -n "$libdir" && -f "$libdir/libre2.a" ]]; then
    static_args+=("$libdir/libre2.a")
  else
    args+=("$arg")
  fi
done
if [[ ${#static_args[@]} -eq 0 ]]; then exec "${args[@]}"; fi
# The archives' own dependencies are not on the command line (the shared objects name them), so every
# Abseil archive goes into the group too; the linker takes only the objects something needs.
shopt -s nullglob
exec "${args[@]}" -Wl,--start-group "${static_args[@]}" "$libdir"/libabsl_*.a -Wl,--end-group -lssl -lcrypto -lz
