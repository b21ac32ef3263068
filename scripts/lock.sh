# Sourced by the scripts/ensure-*.sh scripts (from the repository root): `lock_once <name>` lets
# one run of <name> at a time hold .cache/.<name>.lock (two `npm test`s, or a test run and a
# bench, on one checkout); the second waits for the first, then finds its work cached. The lock
# is held on file descriptor 9 until the script exits.
lock_once() {
  mkdir -p .cache
  exec 9>".cache/.$1.lock"
  flock -n 9 || { echo "$1: waiting for another run of it to finish" >&2; flock 9; }
}
