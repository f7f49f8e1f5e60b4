#!/usr/bin/env bash
# End-to-end smoke test of the interactive TUI: the real `node bin/sylk.js` in a real terminal (tmux),
# against a scripted model (scripts/fake-model-server.mjs). It answers the consent prompt, waits for
# the index, asks for an edit, approves it, and checks the screen and the file. Exits non-zero on failure.
set -euo pipefail

REPO="$(cd "$(dirname "$0")/.." && pwd)"
cd "$REPO"

if ! command -v tmux >/dev/null 2>&1; then
  echo "tmux is missing; installing it"
  apt-get install -y tmux >/dev/null 2>&1 || { apt-get update >/dev/null && apt-get install -y tmux >/dev/null; }
fi

# Build when dist/ is missing or older than any source file.
if [ ! -f dist/src/cli/main.js ] || [ -n "$(find src workers -newer dist/src/cli/main.js -type f -print -quit)" ]; then
  echo "building…"
  npm run build >/dev/null
fi

WORK="$(mktemp -d "${TMPDIR:-/tmp}/sylk-smoke-XXXXXX")"
SOCKET="sylk-smoke-$$"
SERVER_PID=""
cleanup() {
  tmux -L "$SOCKET" kill-server >/dev/null 2>&1 || true
  if [ -n "$SERVER_PID" ]; then kill "$SERVER_PID" >/dev/null 2>&1 || true; fi
  rm -rf "$WORK"
}
trap cleanup EXIT

fail() {
  echo "FAIL: $*" >&2
  echo "----- screen -----" >&2
  tmux -L "$SOCKET" capture-pane -p -t smoke -S -200 >&2 || true
  echo "----- model server -----" >&2
  cat "$WORK/server.log" >&2 || true
  exit 1
}

screen() { tmux -L "$SOCKET" capture-pane -p -t smoke -S -500; }

# wait_for <text> [seconds]: polls the screen (scrollback included) until it shows the text.
wait_for() {
  local text="$1" deadline=$((SECONDS + ${2:-30}))
  until screen | grep -qF -- "$text"; do
    [ "$SECONDS" -lt "$deadline" ] || fail "timed out waiting for: $text"
    sleep 0.2
  done
}

# The project: enough files that indexing shows progress, and the file the model will edit.
PROJECT="$WORK/project"
mkdir -p "$PROJECT/src/lib"
printf 'export function greet(name) {\n  return "hello " + name;\n}\n' >"$PROJECT/src/greet.js"
for i in $(seq 1 200); do
  printf 'export function helper%s(value) {\n  return value * %s;\n}\n' "$i" "$i" >"$PROJECT/src/lib/helper-$i.js"
done

node scripts/fake-model-server.mjs --port-file "$WORK/port" --path src/greet.js --old '"hello "' --new '"goodbye "' >"$WORK/server.log" 2>&1 &
SERVER_PID=$!
for _ in $(seq 1 50); do [ -s "$WORK/port" ] && break; sleep 0.1; done
[ -s "$WORK/port" ] || fail "the fake model server did not start"
PORT="$(cat "$WORK/port")"

# CI must be unset: Ink draws only the final frame when it thinks it runs in CI.
tmux -L "$SOCKET" new-session -d -s smoke -x 120 -y 45 \
  "cd '$PROJECT' && env -u CI SYLK_HOME='$WORK/home' HOME='$WORK' ANTHROPIC_API_KEY=sk-smoke-test \
   ANTHROPIC_BASE_URL='http://127.0.0.1:$PORT' node '$REPO/bin/sylk.js'; echo \"sylk exited \$?\" >'$WORK/exit'; sleep 600"

wait_for "Index this project?"
wait_for "$WORK/home/projects/"
tmux -L "$SOCKET" send-keys -t smoke y
wait_for "index: fresh" 60
wait_for "Indexed: 201 files indexed"

tmux -L "$SOCKET" send-keys -t smoke "Make greet say goodbye instead of hello" Enter
wait_for "Edit a file?"
wait_for '2 +   return "goodbye "'
tmux -L "$SOCKET" send-keys -t smoke 1
wait_for "Done: the greeting now says goodbye."
wait_for "Edited src/greet.js (+1 −1)"
wait_for '2 +   return "goodbye " + name;'

grep -qF 'return "goodbye " + name;' "$PROJECT/src/greet.js" || fail "src/greet.js was not edited: $(cat "$PROJECT/src/greet.js")"

# The watcher re-indexed the edit: search finds the new text.
for attempt in 1 2 3 4 5; do
  tmux -L "$SOCKET" send-keys -t smoke "/search goodbye" Enter
  sleep 1
  if screen | grep -qE "1\. src/greet\.js:1-3"; then break; fi
  [ "$attempt" -lt 5 ] || fail "/search did not find the edited file"
done

tmux -L "$SOCKET" send-keys -t smoke C-c
tmux -L "$SOCKET" send-keys -t smoke C-c
for _ in $(seq 1 50); do [ -s "$WORK/exit" ] && break; sleep 0.2; done
[ -s "$WORK/exit" ] || fail "sylk did not exit after Ctrl-C twice"
grep -qx "sylk exited 0" "$WORK/exit" || fail "$(cat "$WORK/exit")"
wait_for "continue it with: sylk --resume"

echo "PASS: consent, background index, streamed answer, approved edit, watcher refresh and exit all work in a real terminal"
