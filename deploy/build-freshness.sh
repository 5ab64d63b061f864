#!/usr/bin/env bash
# Lets a clean clone reuse the workspace build in a kept target directory.
#
# Cargo judges a crate fresh by mtimes: a crate is rebuilt when one of its
# files is newer than its last build. Every file of a new clone is new, so a
# clone rebuilt every workspace crate, about 13 CPU-minutes here, even with
# the same commit's build in the target directory.
#
#   build-freshness.sh record   after `make test`'s builds: when the tree is
#                               a clean commit, notes that commit as what the
#                               target directory's debug build was made from
#   build-freshness.sh apply    in a new clone, before building: the files
#                               unchanged since the noted commit get an old
#                               mtime, so cargo rebuilds exactly the crates
#                               whose files changed
#
# `apply` does nothing (every crate rebuilds, as before) unless the note
# holds: anything built into the debug directory after it, or a commit this
# clone lacks, voids it. A build from a dirty tree writes no note, and its
# artifacts, newer than any earlier note, void that one.
set -euo pipefail
# shellcheck source=deploy/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

target="${CARGO_TARGET_DIR:-$REPO/target}"
note="$target/debug/.fleetdesk-built-from"

git_repo() { git -C "$REPO" "$@"; }

case "${1:-}" in
record)
    # STARTED_AT: the commit `make test` started at; a tree changed since
    # (or dirty then) may have mixed content into the build.
    started_at="${2:-}"
    if [ -n "$(git_repo status --porcelain)" ] || [ "$(git_repo rev-parse HEAD)" != "$started_at" ]; then
        rm -f "$note"
        exit 0
    fi
    printf '%s\n' "$started_at" >"$note"
    ;;
apply)
    [ -f "$note" ] || { log "no note of a clean build: every crate builds"; exit 0; }
    built="$(cat "$note")"
    if ! git_repo cat-file -e "$built^{commit}" 2>/dev/null; then
        log "the build's commit $built is not in this clone: every crate builds"
        exit 0
    fi
    if [ -n "$(find "$target/debug/.fingerprint" -newer "$note" -print -quit 2>/dev/null)" ]; then
        log "something was built after the note of $built: every crate builds"
        exit 0
    fi
    python3 - "$REPO" "$built" <<'PY'
import os, subprocess, sys

repo, built = sys.argv[1], sys.argv[2]

def paths(*args):
    out = subprocess.run(["git", "-C", repo, *args], check=True, capture_output=True).stdout
    return {p for p in out.split(b"\0") if p}

tracked = paths("ls-files", "-z")
changed = paths("diff", "-z", "--no-renames", "--name-only", built, "HEAD")

def ancestors(path):
    while path:
        path = os.path.dirname(path)
        yield path

# Directories count too (a build script that watches `migrations/` sees the
# directory's mtime): one above a changed, added or removed file stays new.
# A removed file needs nothing more: the dep-info that lists it fails on its own.
kept_new = {d for p in changed for d in ancestors(p)}
old = 946684800  # 2000-01-01, older than any build
aged = 0
for path in tracked - changed:
    os.utime(os.path.join(repo.encode(), path), (old, old), follow_symlinks=False)
    aged += 1
for directory in {d for p in tracked for d in ancestors(p)} - kept_new:
    os.utime(os.path.join(repo.encode(), directory) if directory else repo, (old, old))
print(f"build-freshness: built from {built[:12]}: {len(changed)} files changed since, "
      f"{aged} of {len(tracked)} keep their build", file=sys.stderr)
PY
    ;;
*)
    die "usage: build-freshness.sh record COMMIT | apply"
    ;;
esac
