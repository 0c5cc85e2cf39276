#!/usr/bin/env bash
# The package as a user gets it: `npm pack`, the package file installed into an empty project
# (its dependencies from the npm registry), then `init` and the board it made, run through npx;
# and installed globally, where the program is on PATH under its own name.
# Run by .ci/run. Exits non-zero, saying why, on the first thing that is not as a user needs it.
source "$(dirname "$0")/common.sh"
step() { echo "--- tarball: $*"; }

step "npm pack (prepack builds dist/ from scratch)"
(cd "$ROOT" && npm pack --pack-destination "$WORK" >/dev/null)
TARBALL="$(ls "$WORK"/kanban-supervisor-*.tgz)"

step "what the package holds"
tar -tzf "$TARBALL" >"$WORK/files.txt"
for file in LICENSE README.md CHANGELOG.md package.json dist/cli.js dist/reference-agents/shell.js dist/reference-agents/sequential-manager.js presets/shell/implementor.md presets/board/kanban.yaml schemas/kanban.schema.json; do
  grep -qx "package/$file" "$WORK/files.txt" || fail "the package lacks $file"
done
if grep -E '^package/(src|test|bench|scripts|node_modules)/' "$WORK/files.txt"; then fail "the package holds development files (above)"; fi
tar -xzOf "$TARBALL" package/package.json >"$WORK/package.json"
node -e '
  const pkg = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
  const run = ["preinstall", "install", "postinstall", "prepare"].filter((s) => pkg.scripts && pkg.scripts[s]);
  if (run.length) { console.error(`scripts that run at install: ${run.join(", ")}`); process.exit(1); }
  if (pkg.license !== "MIT") { console.error(`license ${pkg.license}`); process.exit(1); }
' "$WORK/package.json" || fail "the packed package.json is not what an install needs"

step "npm install the package file into an empty project"
mkdir "$WORK/project"
cd "$WORK/project"
npm init -y >/dev/null
npm install --save-dev --no-audit --no-fund "$TARBALL" 2>"$WORK/install.err" || { cat "$WORK/install.err" >&2; fail "npm install of the package file failed"; }
if grep -i 'install-scripts\|install script' "$WORK/install.err"; then fail "npm warned about install scripts (above)"; fi

step "npx kanban-supervisor init, validate, run, status, logs, report, try"
npx kanban-supervisor init >"$WORK/init.out"
cat "$WORK/init.out"
grep -q '^  2\. Check it:  npx kanban-supervisor validate$' "$WORK/init.out" || fail "init's next steps do not say npx kanban-supervisor validate"
grep -qx '.kanban-supervisor/' .gitignore || fail "init wrote no .gitignore for the run output"
npx kanban-supervisor validate
npx kanban-supervisor
grep -q '^current: null' kanban.yaml || fail "the board init made did not run to its end"
grep -q 'hello from ' tasks/001-example.md || fail "the shell agent did not run the example task"
npx kanban-supervisor status | tee "$WORK/status.out"
npx kanban-supervisor logs --task tasks/001-example.md --stdout | grep -q '"status":"ok"' || fail "logs did not print the worker's reply"
npx kanban-supervisor report
test -s .kanban-supervisor/report.html || fail "report wrote no page"
npx kanban-supervisor try Implementor --instruction 'echo tried' --quiet | grep -q '"message": "ran the sh block of the instruction: tried"' || fail "try did not print the shell agent's reply"

step "npm install -g the package file: kanban-supervisor on PATH"
npm install -g --prefix "$WORK/global" --no-audit --no-fund "$TARBALL" >/dev/null 2>"$WORK/global.err" || { cat "$WORK/global.err" >&2; fail "npm install -g of the package file failed"; }
mkdir "$WORK/other" && cd "$WORK/other"
PATH="$WORK/global/bin:$PATH" kanban-supervisor init board >"$WORK/global-init.out"
grep -q '^  3\. Run it:    kanban-supervisor board$' "$WORK/global-init.out" || { cat "$WORK/global-init.out"; fail "installed globally, the hints should say kanban-supervisor, not npx"; }
PATH="$WORK/global/bin:$PATH" kanban-supervisor board --quiet
PATH="$WORK/global/bin:$PATH" kanban-supervisor --version | grep -qx "$(node -p 'require(process.argv[1]).version' "$WORK/package.json")" || fail "--version"

echo "test/install/tarball.sh: OK"
