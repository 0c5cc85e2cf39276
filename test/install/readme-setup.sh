#!/usr/bin/env bash
# The README's set-up commands, in a fresh clone of this commit, in order, each exactly as the
# README writes it: they are read from between the readme-setup markers of the clone's own
# README.md, so the README and this check cannot drift apart. The second one is `npm test`,
# which thereby runs the whole suite after the first has run the example board in place.
# Run by .ci/run. Exits non-zero on the first command that fails.
source "$(dirname "$0")/common.sh"

# The clone lies outside /tmp, as a person's checkout does (.ci/run's own checkout may lie in a
# mktemp -d under /tmp: the suite runs there too, on Node 24).
CLONE="$(mktemp -d /var/tmp/ks-readme-XXXXXX)"
trap 'rm -rf "$WORK" "$CLONE"' EXIT
git clone --quiet "$ROOT" "$CLONE/readme-check"
cd "$CLONE/readme-check"
# The lines of the fenced block between the markers, blank ones aside.
mapfile -t COMMANDS < <(awk '/^<!-- readme-setup: end -->/ { inside = 0 } inside && !/^```/ && NF { print } /^<!-- readme-setup: CI runs/ { inside = 1 }' README.md)
[ "${#COMMANDS[@]}" -eq 2 ] || fail "README.md should hold the two set-up commands between its readme-setup markers; found ${#COMMANDS[@]}"
for command in "${COMMANDS[@]}"; do
  echo "--- readme-setup: $command"
  bash -euo pipefail -c "$command" || fail "the README's command failed in a fresh clone: $command"
done
echo "test/install/readme-setup.sh: OK (${#COMMANDS[@]} commands)"
