#!/usr/bin/env bash
# What a lent GPU machine's `run` carries is the working tree — tracked files, untracked files git does
# not ignore, and the ignored paths named in `carry` — at most 64 MiB. The tracked tree is over that
# with sample_data/'s two 23-MB word-level LMs, which no device step needs (gpu-check.sh skips the
# tests that read them when they are absent). This takes them out of what travels for the length of a
# device session, without committing anything, and puts them back exactly.
#
#   scripts/gpu/device-tree.sh slim      every tracked sample_data/*/model.safetensors over AW_SLIM_OVER
#                                    bytes (default 8 MiB) leaves the index (`git rm --cached`: the
#                                    files stay on disk, unchanged) and is ignored through marked lines
#                                    in .git/info/exclude. Idempotent.
#   scripts/gpu/device-tree.sh restore   undoes slim: `git reset` of those paths (the index takes HEAD's
#                                    entry back) and the marked lines removed; `git status` is as
#                                    before. Idempotent.
#   scripts/gpu/device-tree.sh size [PATH…]   the bytes that would travel — tracked (in the index) and
#                                    untracked-not-ignored files, shared/ if there is one, and each
#                                    PATH given (what `carry` names) — against 64 MiB; exit 1 if over.
#   scripts/gpu/device-tree.sh list      the paths slim took out, if any.
#
# Do not commit between slim and restore: a plain `git commit` would delete the weights from the
# branch. slim installs a pre-commit hook that refuses such a commit (where no other pre-commit hook
# is there; `git commit -m … -- PATHS` of other files still works), and restore removes it.
set -euo pipefail
cd "$(dirname "$0")/../.."
limit=$((64 * 1024 * 1024))
over=${AW_SLIM_OVER:-$((8 * 1024 * 1024))}
exclude=$(git rev-parse --git-path info/exclude)
begin="# >>> scripts/gpu/device-tree.sh slim: kept out of device runs; 'scripts/gpu/device-tree.sh restore' removes these lines"
end="# <<< scripts/gpu/device-tree.sh slim"
hook=$(git rev-parse --git-path hooks/pre-commit)
hook_mark="# installed by scripts/gpu/device-tree.sh slim; removed by its restore"

# The paths in the marked block of .git/info/exclude (without their leading /).
slimmed() {
  [ -f "$exclude" ] || return 0
  awk -v b="$begin" -v e="$end" '$0 == b { inside = 1; next } $0 == e { inside = 0; next } inside && /^\// { print substr($0, 2) }' "$exclude"
}

# in_index PATH: 0 if the index has an entry for PATH.
in_index() { [ -n "$(git ls-files --cached -- ":(literal)$1")" ]; }
# staged PATH: 0 if the index entry of PATH differs from HEAD's (a change staged for the next commit).
staged() { ! git diff --cached --quiet -- ":(literal)$1"; }

write_block() {  # write_block PATH…: the marked block holds exactly these paths (none: no block)
  mkdir -p "$(dirname "$exclude")"
  local rest
  rest=$(mktemp)
  if [ -f "$exclude" ]; then
    awk -v b="$begin" -v e="$end" '$0 == b { inside = 1; next } $0 == e { inside = 0; next } !inside' "$exclude" >"$rest"
  fi
  if [ $# -gt 0 ]; then
    { echo "$begin"; printf '/%s\n' "$@"; echo "$end"; } >>"$rest"
  fi
  cat "$rest" >"$exclude"
  rm -f "$rest"
}

# A pre-commit hook that refuses a commit deleting a slimmed path (it sees the index the commit would
# write: with `git commit -- PATHS`, HEAD's tree and those paths alone).
install_hook() {
  if [ -e "$hook" ] && ! grep -qxF "$hook_mark" "$hook"; then
    echo "device-tree: $hook is someone else's, so no guard was installed: commit nothing until restore" >&2
    return 0
  fi
  mkdir -p "$(dirname "$hook")"
  {
    echo '#!/bin/sh'
    echo "$hook_mark"
    echo '# While sample weights are out of the index for a device run, a plain commit would delete them.'
    printf 'paths="%s"\n' "$(slimmed | sed 's/^/:(literal)/' | tr '\n' ' ')"
    cat <<'HOOK'
[ -n "$paths" ] || exit 0
# shellcheck disable=SC2086  # the paths have no spaces (sample_data/NAME/model.safetensors)
gone=$(git diff --cached --name-only --diff-filter=D -- $paths)
if [ -n "$gone" ]; then
  echo "pre-commit: this commit would delete $gone (taken out of the index by scripts/gpu/device-tree.sh slim)." >&2
  echo "  Run scripts/gpu/device-tree.sh restore first, or commit only your own paths: git commit -m ... -- PATHS" >&2
  exit 1
fi
HOOK
  } >"$hook"
  chmod +x "$hook"
}

slim() {
  local path size candidates=() already=()
  mapfile -t already < <(slimmed)
  # Every tracked sample model file over the threshold (computed, so a new big sample is caught too).
  while IFS= read -r -d '' path; do
    [ -f "$path" ] || continue
    size=$(stat -c %s -- "$path")
    [ "$size" -gt "$over" ] && candidates+=("$path")
  done < <(git ls-files -z --cached -- 'sample_data/*/model.safetensors')
  if [ ${#candidates[@]} -eq 0 ]; then
    if [ ${#already[@]} -gt 0 ]; then echo "device-tree: already slim (${already[*]})"; else echo "device-tree: nothing over $over bytes to take out"; fi
    return 0
  fi
  for path in "${candidates[@]}"; do
    if staged "$path"; then
      echo "device-tree: $path has a staged change (git diff --cached -- $path): commit or unstage it first; nothing done" >&2
      exit 1
    fi
  done
  write_block "${already[@]}" "${candidates[@]}"
  git rm --cached -q -- "${candidates[@]}"
  install_hook
  for path in "${candidates[@]}"; do echo "device-tree: $path ($(stat -c %s -- "$path") bytes) out of the index, ignored"; done
  echo "device-tree: slim; commit nothing until 'scripts/gpu/device-tree.sh restore'"
}

restore() {
  local path paths back=()
  mapfile -t paths < <(slimmed)
  if [ ${#paths[@]} -eq 0 ]; then echo "device-tree: nothing to restore"; return 0; fi
  for path in "${paths[@]}"; do
    if ! git cat-file -e "HEAD:$path" 2>/dev/null; then
      echo "device-tree: HEAD has no $path any more (was its deletion committed while slim?); get it back with" >&2
      echo "  git log --diff-filter=D -- $path   and   git checkout <that commit>^ -- $path; nothing done" >&2
      exit 1
    fi
    if in_index "$path"; then
      if staged "$path"; then
        echo "device-tree: $path is in the index again with a change staged; left as it is (unstage it to restore HEAD's)" >&2
        exit 1
      fi
    else
      back+=("$path")
    fi
  done
  [ ${#back[@]} -eq 0 ] || git reset -q -- "${back[@]}"
  write_block
  if [ -f "$hook" ] && grep -qxF "$hook_mark" "$hook"; then rm -f "$hook"; rmdir "$(dirname "$hook")" 2>/dev/null || true; fi
  # Empty: it was not there before slim (or was as good as absent); nor, then, was its folder.
  if [ ! -s "$exclude" ]; then rm -f "$exclude"; rmdir "$(dirname "$exclude")" 2>/dev/null || true; fi
  echo "device-tree: restored ${paths[*]}"
}

# sum_sizes: the bytes of the files and links named on stdin (NUL-separated); a name that is gone
# from disk (deleted, not yet staged) or a folder (a submodule: it travels without its files) counts 0.
sum_sizes() {
  { xargs -0 -r stat -c '%F|%s' -- 2>/dev/null || true; } |
    awk -F'|' '$1 == "regular file" || $1 == "regular empty file" || $1 == "symbolic link" { s += $2 } END { print s + 0 }'
}

size() {
  local tree extra=0 path
  tree=$({
    git ls-files -z --cached
    git ls-files -z --others --exclude-standard
    # shared/ travels whether ignored or not; carried paths replace theirs there.
    if [ -d shared ]; then find shared -type f -print0; fi
  } | sort -zu | sum_sizes)
  printf '%-40s %11d bytes  %6.1f MiB\n' "tree (tracked + untracked, not ignored)" "$tree" "$(echo "$tree" | awk '{ print $1 / 1048576 }')"
  for path in "$@"; do
    if [ ! -e "$path" ]; then echo "device-tree: $path does not exist" >&2; exit 2; fi
    local bytes
    bytes=$(find "$path" \( -type f -o -type l \) -print0 | sum_sizes)
    extra=$((extra + bytes))
    printf '%-40s %11d bytes  %6.1f MiB\n' "carry $path" "$bytes" "$(echo "$bytes" | awk '{ print $1 / 1048576 }')"
  done
  local total=$((tree + extra))
  local verdict="fits"
  [ "$total" -le "$limit" ] || verdict="OVER"
  printf '%-40s %11d bytes  %6.1f MiB of 64 MiB: %s (%d bytes to spare)\n' "total" "$total" "$(echo "$total" | awk '{ print $1 / 1048576 }')" "$verdict" $((limit - total))
  [ "$verdict" = fits ]
}

case "${1:-}" in
  slim) slim ;;
  restore) restore ;;
  size) shift; size "$@" ;;
  list) slimmed ;;
  *) echo "usage: scripts/gpu/device-tree.sh slim|restore|size [CARRIED PATH…]|list" >&2; exit 2 ;;
esac
