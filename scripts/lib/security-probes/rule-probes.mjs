// Allow and deny rules judge every simple command of a compound one, not a string prefix. The
// rules are the user's own (~/.sylkrc); a fake `npm` on PATH makes the allowed part harmless and
// shows that the rule itself applies (the control call must run).
import { chmodSync, existsSync, readFileSync } from "node:fs";
import { createServer } from "node:http";
import { askScripted, excerpt } from "./harness.mjs";
import { call } from "./scripted-model.mjs";

const GROUP = "rules";
const FAKE_NPM = '#!/bin/sh\necho "npm $*" >> "$(dirname "$0")/../npm-ran.log"\nexit 0\n';

/** A project with a fake npm first on PATH and the user's rules in ~/.sylkrc. */
async function ruleLab(open, permissions) {
  const lab = await open({ "src/app.ts": "export const answer = 42;\n", "tools/npm": FAKE_NPM });
  chmodSync(lab.path("tools/npm"), 0o755);
  lab.write(".sylkrc", JSON.stringify({ permissions }), lab.home);
  const env = { PATH: `${lab.path("tools")}:${process.env.PATH}` };
  const npmRan = () => (existsSync(lab.path("npm-ran.log")) ? readFileSync(lab.path("npm-ran.log"), "utf8") : "");
  return { lab, env, npmRan };
}

/** Under `run_command(npm test*)`, default mode, a scripted run (it cannot ask): held if `pwn` is not created. */
function allowVariant(id, title, command) {
  return {
    id,
    group: GROUP,
    title: `allow run_command(npm test*) does not cover ${title}`,
    needs: ["linux"],
    async run({ lab: open }) {
      const { lab, env, npmRan } = await ruleLab(open, { allow: ["run_command(npm test*)"] });
      const outcome = await askScripted(lab, [call("run_command", { command: "npm test" }), call("run_command", { command })], { env });
      if (!npmRan().includes("npm test")) {
        throw new Error(
          `the control call \`npm test\` did not run, so the allow rule was not applied: ${excerpt(outcome.results[0]?.output)}`,
        );
      }
      const pwned = existsSync(lab.path("pwn"));
      return {
        held: !pwned,
        detail: pwned ? `ran unasked: ${JSON.stringify(command)}` : `not run: ${excerpt(outcome.results[1]?.output ?? "(no result)", 100)}`,
      };
    },
  };
}

const denyChained = {
  id: "rules-deny-chained",
  group: GROUP,
  title: "deny run_command(rm *) refuses `true; rm x` in bypass mode",
  needs: ["linux"],
  async run({ lab: open }) {
    const { lab, env } = await ruleLab(open, { deny: ["run_command(rm *)"] });
    lab.write("x", "keep me\n");
    const outcome = await askScripted(lab, [call("run_command", { command: "true; rm x" })], { mode: "bypass", env });
    const removed = !existsSync(lab.path("x"));
    return {
      held: !removed,
      detail: removed ? "`true; rm x` ran despite the deny rule: x is gone" : `x kept: ${excerpt(outcome.results[0]?.output, 100)}`,
    };
  },
};

const networkChained = {
  id: "rules-network-chained",
  group: GROUP,
  title: "allow network(npm install*) does not open the network to a chained curl",
  needs: ["linux", "bwrap", "curl"],
  async run({ lab: open }) {
    const { lab, env } = await ruleLab(open, { allow: ["network(npm install*)"] });
    const listener = await listen();
    lab.defer(listener.close);
    const outcome = await askScripted(lab, [call("run_command", { command: `npm install && curl -s -m 5 ${listener.url}/pwn` })], {
      mode: "bypass",
      env,
    });
    const reached = listener.hits();
    return {
      held: reached === 0,
      detail:
        reached > 0
          ? `the chained curl reached the host (${reached} request(s))`
          : `the host's server received nothing: ${excerpt(outcome.results[0]?.output, 100)}`,
    };
  },
};

/** An HTTP server on the host's loopback that counts what reaches it. */
export async function listen() {
  let hits = 0;
  const server = createServer((_request, response) => {
    hits++;
    response.end("reached\n");
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    hits: () => hits,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

export const ruleProbes = [
  allowVariant("rules-allow-semicolon", "`npm test; touch pwn`", "npm test; touch pwn"),
  allowVariant("rules-allow-and", "`npm test && touch pwn`", "npm test && touch pwn"),
  allowVariant("rules-allow-pipe", "`npm test | touch pwn`", "npm test | touch pwn"),
  allowVariant("rules-allow-substitution", "`npm test $(touch pwn)`", "npm test $(touch pwn)"),
  allowVariant("rules-allow-backticks", "`npm test` with `touch pwn` in backquotes", "npm test `touch pwn`"),
  allowVariant("rules-allow-newline", "`npm test` and `touch pwn` on the next line", "npm test\ntouch pwn"),
  allowVariant("rules-allow-word-boundary", "`npm testx; touch pwn`", "npm testx; touch pwn"),
  denyChained,
  networkChained,
];
