#!/usr/bin/env bash
# Checks that every C++ file in the repository is formatted as .clang-format says (Google style, 120
# columns); exits 1 naming the files that are not. With --fix, formats them in place instead.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v clang-format >/dev/null; then
  echo "format: clang-format is not installed (apt-get install clang-format; scripts/setup.sh does)" >&2
  exit 1
fi
mapfile -t files < <(git ls-files '*.cc' '*.h')
if [ "${1:-}" = --fix ]; then
  clang-format -i "${files[@]}"
  exit 0
fi
# One clang-format for every file; its warnings start with the file's name.
mapfile -t bad < <(clang-format --dry-run "${files[@]}" 2>&1 | sed -n 's/^\([^:]*\):[0-9]*:[0-9]*: warning: .*/\1/p' | sort -u)
if ((${#bad[@]})); then
  echo "format: ${#bad[@]} file(s) not formatted as .clang-format says:" >&2
  printf '  %s\n' "${bad[@]}" >&2
  echo "format: fix with: bash scripts/format.sh --fix   (or clang-format -i FILE...)" >&2
  exit 1
fi
echo "format: ${#files[@]} C++ files formatted ($(clang-format --version | head -1))" >&2
