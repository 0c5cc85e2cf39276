# Sourced by the install checks: strict mode, ROOT (this checkout), a scratch folder WORK removed
# on exit, and fail() naming the script that failed.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
fail() {
  echo "test/install/$(basename "$0"): FAIL: $*" >&2
  exit 1
}
