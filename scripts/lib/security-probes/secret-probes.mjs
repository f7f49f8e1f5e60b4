// Secrets are masked before anything is stored or sent, grep does not confirm a masked value, and
// masking takes time proportional to the text. The stored side is measured by scanning every file
// under SYLK_HOME (databases, their WAL files and logs included) for the raw bytes.
import { randomBytes } from "node:crypto";
import { relative } from "node:path";
import { askScripted, excerpt, timedToolCall } from "./harness.mjs";
import { filesContaining } from "./observe.mjs";
import { call, say } from "./scripted-model.mjs";

const GROUP = "secrets";
/** Learning on, as by default: its observation log is one of the files that must not hold a secret. */
const LEARNING_ON = { SYLK_LEARNING_ENABLED: "true" };

const alphabet = (letters, length) => Array.from(randomBytes(length), (byte) => letters[byte % letters.length]).join("");
const UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
const MIXED = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
/** Fresh values in the formats the masking rules know (an AWS key id, a GitHub token, a Slack token). */
const awsKeyId = () => `AKIA${alphabet(UPPER, 16)}`;
const githubToken = () => `ghp_${alphabet(MIXED, 36)}`;
const slackToken = () => `xoxb-${alphabet("0123456789", 12)}-${alphabet(MIXED, 24)}`;

/** Where the raw secret is kept under SYLK_HOME, relative to it. */
function storedIn(lab, secret) {
  return filesContaining(lab.sylkHome, [secret]).map(({ path }) => relative(lab.sylkHome, path));
}

function verdict(places, what) {
  if (places.length === 0) return { held: true, detail: `${what}: masked everywhere it went` };
  return { held: false, detail: `${what}: the raw secret is in ${places.join(", ")}` };
}

const CONFIG = (key) => `const region = "eu-west-1";\nconst accessKeyId = "${key}";\nconst bucket = "assets";\n`;

const editDiff = {
  id: "secrets-edit-diff",
  group: GROUP,
  title: "edit_file's diff does not store or send a secret on a context line",
  needs: [],
  async run({ lab: open }) {
    const secret = awsKeyId();
    const lab = await open({ "src/config.js": CONFIG(secret) });
    const edit = call("edit_file", {
      path: "src/config.js",
      old_string: 'const bucket = "assets";',
      new_string: 'const bucket = "media";',
    });
    const { model } = await askScripted(lab, [edit], { mode: "accept-edits", env: LEARNING_ON });
    const places = [...storedIn(lab, secret), ...(model.received().includes(secret) ? ["the request to the model"] : [])];
    return verdict(places, "a diff whose context holds an AWS key id");
  },
};

const toolInput = {
  id: "secrets-tool-input",
  group: GROUP,
  title: "a secret in a tool call's input is not stored raw",
  needs: [],
  async run({ lab: open }) {
    const secret = githubToken();
    const lab = await open({ "src/app.ts": "export const answer = 42;\n" });
    await askScripted(lab, [call("run_command", { command: `echo configured ${secret} > /dev/null` })], {
      mode: "bypass",
      env: LEARNING_ON,
    });
    return verdict(storedIn(lab, secret), "a GitHub token in run_command's input");
  },
};

const modelAnswer = {
  id: "secrets-model-answer",
  group: GROUP,
  title: "a secret in the model's answer is not stored raw",
  needs: [],
  async run({ lab: open }) {
    const secret = slackToken();
    const lab = await open({ "src/app.ts": "export const answer = 42;\n" });
    const model = await lab.model();
    model.enqueue([say(`The bot posts with the token ${secret} from the vault.`)]);
    const run = await lab.sylk(["ask", "--yes", "What token does the bot use?"], { env: LEARNING_ON });
    if (run.code !== 0) throw new Error(`sylk ask exited ${run.code}: ${excerpt(run.stderr)}`);
    return verdict(storedIn(lab, secret), "a Slack token in the model's answer");
  },
};

const searchHistory = {
  id: "secrets-search-history",
  group: GROUP,
  title: "search_history does not send a secret from an earlier session to the model",
  needs: [],
  async run({ lab: open }) {
    const secret = slackToken();
    const lab = await open({ "src/app.ts": "export const answer = 42;\n" });
    const model = await lab.model();
    model.enqueue([say(`The deploy bot token is ${secret}.`)]);
    const first = await lab.sylk(["ask", "--yes", "What is the deploy bot token?"], { env: LEARNING_ON });
    if (first.code !== 0) throw new Error(`the first sylk ask exited ${first.code}: ${excerpt(first.stderr)}`);
    const before = model.requests.length;
    const { results } = await askScripted(lab, [call("search_history", { query: "deploy bot token" })], { env: LEARNING_ON });
    const sent = model.requests
      .slice(before)
      .map((request) => JSON.stringify(request.body))
      .join("\n");
    const found = excerpt(results[0]?.output ?? "(no result)", 80);
    return sent.includes(secret)
      ? { held: false, detail: `a later session's search_history sent the raw token to the model (${found})` }
      : { held: true, detail: `the token was not sent again: ${found}` };
  },
};

const grepConfirms = {
  id: "secrets-grep-confirms",
  group: GROUP,
  title: "grep for a masked secret's exact value does not confirm it",
  needs: [],
  async run({ lab: open }) {
    const secret = awsKeyId();
    const lab = await open({ "src/config.js": CONFIG(secret) });
    const wrong = `${secret.slice(0, -1)}${secret.endsWith("Z") ? "Y" : "Z"}`;
    const { results } = await askScripted(lab, [call("grep", { pattern: secret }), call("grep", { pattern: wrong })]);
    const [exact, altered] = results.map((result) => String(result.output ?? ""));
    const confirms = exact?.includes("config.js") && !altered?.includes("config.js");
    return confirms
      ? {
          held: false,
          detail: `grep for the exact key finds src/config.js and grep for a wrong last character does not: ${excerpt(exact, 80)}`,
        }
      : { held: true, detail: `grep answers alike for the exact and a wrong value: ${excerpt(exact, 80)}` };
  },
};

/** 'a.' repeated, then a URL with credentials: quadratic masking took minutes on this. */
const adversarialText = (bytes) => `${"a.".repeat(Math.floor(bytes / 2))} https://deploy:hunter2hunter2@example.com/\n`;

const indexMasking = {
  id: "masking-index-1mb",
  group: "masking",
  title: "sylk index finishes within 60 s on a 1 MB adversarial file for the masking rules",
  needs: [],
  async run({ lab: open }) {
    const lab = await open({ "src/app.ts": "export const answer = 42;\n", "big.txt": adversarialText(1_000_000) });
    const run = await lab.sylk(["index", "--yes"], { timeoutMs: 60_000 });
    if (run.timedOut) return { held: false, detail: "sylk index was still running after 60 s (killed)" };
    return {
      held: run.code === 0,
      detail: `sylk index exited ${run.code} after ${(run.ms / 1000).toFixed(1)} s${run.code === 0 ? "" : `: ${excerpt(run.stderr)}`}`,
    };
  },
};

/** read_file of an adversarial file for one masking rule, left out of the index so that only read_file masks it: held within 10 s. */
function readMasking(id, title, content) {
  return {
    id,
    group: "masking",
    title,
    needs: [],
    async run({ lab: open }) {
      const lab = await open({
        "src/app.ts": "export const answer = 42;\n",
        "big.txt": content,
        ".sylkrc": JSON.stringify({ index: { maxFileSize: 100_000 } }),
      });
      const { toolMs, problem } = await timedToolCall(lab, call("read_file", { path: "big.txt" }), { boundMs: 10_000 });
      if (problem) return { held: false, detail: problem };
      return { held: true, detail: `read_file answered in ${(toolMs / 1000).toFixed(1)} s` };
    },
  };
}

export const secretProbes = [
  editDiff,
  toolInput,
  modelAnswer,
  searchHistory,
  grepConfirms,
  indexMasking,
  readMasking(
    "masking-read-250kb",
    "read_file of a 250 KB adversarial file for the URL-credentials rule answers within 10 s",
    adversarialText(250_000),
  ),
  readMasking(
    "masking-read-assigned",
    "read_file of 500 KB of 'password' repeated (the assigned-secret rule) answers within 10 s",
    `${"password".repeat(62_500)}\n`,
  ),
];
