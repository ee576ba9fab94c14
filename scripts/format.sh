#!/usr/bin/env bash
# Formats the C and C++ sources with clang-format and the repository's .clang-format.
#   bash scripts/format.sh           rewrite the files in place
#   bash scripts/format.sh --check   change nothing; list the files that differ, exit 1 if any
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
mapfile -t files < <(git ls-files 'src/*.c' 'src/*.cc' 'src/*.h' 'include/*.h' 'test/*.c' \
  'test/*.cc' 'test/*.h' 'bench/*.c' 'bench/*.cc' 'bench/*.h' 'integrations/*.c' \
  'integrations/*.cc' 'integrations/*.h')
if [ "${1:-}" = --check ]; then
  status=0
  for f in "${files[@]}"; do
    if ! clang-format "$f" | cmp -s - "$f"; then
      echo "not formatted: $f"
      status=1
    fi
  done
  exit "$status"
fi
clang-format -i "${files[@]}"
