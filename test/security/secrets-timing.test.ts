import { describe, expect, it } from "vitest";
import { maskSecrets } from "../../src/security/secrets.js";

/**
 * Masking runs over every file indexed and every text stored or sent, some of
 * them written by an attacker, so its time must grow with the text's size and
 * no faster. Each rule meets inputs built against its own pattern: long runs
 * that the pattern's leading part matches from every start position. For each,
 * the time at n and at 4n (best of several runs) must grow well below the
 * 16 times of a quadratic pattern. Each input ends with a real secret of the
 * rule, which must still be masked: the rule ran through the whole input.
 *
 * Times are the process's CPU time, not the clock's: on a machine shared with
 * other work, a run longer than a scheduler's slice waits for the processor,
 * and wall times past a few milliseconds doubled there while CPU times stayed
 * proportional to the size.
 */

type Family = (length: number) => string;

const fill = (unit: string, length: number) => unit.repeat(Math.ceil(length / unit.length)).slice(0, length);

const RULES: Record<string, { secret: string; sample: string; families: Record<string, Family> }> = {
  "aws-access-key-id": {
    sample: 'const id = "AKIAZ7Q3ABCDEFGH1234";',
    secret: "AKIAZ7Q3ABCDEFGH1234",
    families: { "AKIA repeated": (n) => fill("AKIA", n), "AKIA and a long key": (n) => fill(`AKIA${"A".repeat(20)} `, n) },
  },
  "aws-secret-access-key": {
    sample: "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKEY",
    secret: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKEY",
    families: {
      "the name repeated": (n) => fill("aws_secret_access_key", n),
      "the name and an operator repeated": (n) => fill("aws_secret_access_key = ", n),
      "the name and endless blanks": (n) => `aws_secret_key =${fill(" ", n)}`,
    },
  },
  "github-token": {
    sample: "token: ghp_abcdefghijklmnopqrstuvwxyz0123456789",
    secret: "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
    families: {
      "ghp_ repeated": (n) => fill("ghp_", n),
      "one endless body": (n) => `ghp_${fill("a", n)}`,
      "bodies past the longest token": (n) => fill(`ghp_${"a".repeat(300)} `, n),
    },
  },
  "github-fine-grained-token": {
    sample: "GH=github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz",
    secret: "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz",
    families: {
      "github_pat_ repeated": (n) => fill("github_pat_", n),
      "bodies past the longest token": (n) => fill(`github_pat_${"a".repeat(300)} `, n),
    },
  },
  "gitlab-token": {
    sample: "GL=glpat-abcdefghij0123456789",
    secret: "glpat-abcdefghij0123456789",
    families: { "glpat- repeated": (n) => fill("glpat-", n), "a body of dashes": (n) => `glpat-${fill("-", n)}` },
  },
  "slack-token": {
    sample: "SLACK=xoxb-1234567890-abcdefghij",
    secret: "xoxb-1234567890-abcdefghij",
    families: {
      "xoxb- repeated": (n) => fill("xoxb-", n),
      "a body of dashes": (n) => `xoxb-${fill("-", n)}`,
      "xoxb-- repeated": (n) => fill("xoxb--", n),
    },
  },
  "slack-webhook": {
    sample: "hook https://hooks.slack.com/services/T000/B000/XXXXXXXX",
    secret: "https://hooks.slack.com/services/T000/B000/XXXXXXXX",
    families: {
      "the prefix repeated": (n) => fill("https://hooks.slack.com/services/", n),
      "a path of slashes": (n) => `https://hooks.slack.com/services/${fill("/", n)}`,
    },
  },
  "anthropic-api-key": {
    sample: "key sk-ant-api03-abcdefghijklmnopqrstuv",
    secret: "sk-ant-api03-abcdefghijklmnopqrstuv",
    families: { "sk-ant- repeated": (n) => fill("sk-ant-", n), "short bodies": (n) => fill("sk-ant-aaaa ", n) },
  },
  "openai-api-key": {
    sample: "OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrstuvwxyz",
    secret: "sk-proj-abcdefghijklmnopqrstuvwxyz",
    families: { "sk- repeated": (n) => fill("sk-", n), "bodies one short": (n) => fill(`sk-${"a".repeat(19)} `, n) },
  },
  "google-api-key": {
    sample: "AIzaSyA1234567890abcdefghijklmnopqrstuv",
    secret: "AIzaSyA1234567890abcdefghijklmnopqrstuv",
    families: { "AIza repeated": (n) => fill("AIza", n), "AIza- repeated": (n) => fill("AIza-", n) },
  },
  "stripe-key": {
    sample: "sk_live_abcdefghijklmnop1234",
    secret: "sk_live_abcdefghijklmnop1234",
    families: { "sk_live_ repeated": (n) => fill("sk_live_", n), "sk_live_a repeated": (n) => fill("sk_live_a", n) },
  },
  "npm-token": {
    sample: "//registry.npmjs.org/:_authToken=npm_abcdefghijklmnopqrstuvwxyz0123456789",
    secret: "npm_abcdefghijklmnopqrstuvwxyz0123456789",
    families: { "npm_ repeated": (n) => fill("npm_", n), "bodies too long": (n) => fill(`npm_${"a".repeat(40)} `, n) },
  },
  "sendgrid-key": {
    sample: `SG.${"a".repeat(22)}.${"b".repeat(43)}`,
    secret: `SG.${"a".repeat(22)}.${"b".repeat(43)}`,
    families: { "SG. repeated": (n) => fill("SG.", n), "first parts repeated": (n) => fill(`SG.${"a".repeat(22)}.`, n) },
  },
  jwt: {
    sample: "Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    secret: "eyJhbGciOiJIUzI1NiJ9",
    families: {
      "eyJ repeated": (n) => fill("eyJ", n),
      "eyJ- repeated": (n) => fill("eyJ-", n),
      "headers repeated": (n) => fill("eyJaaaaaaaaaaa.", n),
      "a header, then eyJ- repeated": (n) => `eyJaaaaaaaaaaa.${fill("eyJ-", n)}`,
    },
  },
  "url-credentials": {
    sample: "postgres://admin:s3cretpass@db.example.com/app",
    secret: "s3cretpass",
    families: {
      "a. repeated": (n) => fill("a.", n),
      "a scheme that never ends": (n) => `${fill("a", n)}:/`,
      "an endless user": (n) => `x://${fill("a", n)}`,
      "an endless password": (n) => `x://a:${fill("b", n)}`,
      "a:// repeated": (n) => fill("a://", n),
      "users without a host repeated": (n) => fill("a://b:ccc", n),
    },
  },
  "assigned-secret": {
    sample: 'password = "correct-horse-battery"',
    secret: "correct-horse-battery",
    families: {
      "password repeated": (n) => fill("password", n),
      "secret_ repeated": (n) => fill("secret_", n),
      "password=' repeated": (n) => fill("password='", n),
      "a value that never closes": (n) => `password = '${fill("a", n)}`,
      "api_key= repeated": (n) => fill("api_key=", n),
    },
  },
  "private-key": {
    sample: "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\n-----END RSA PRIVATE KEY-----",
    secret: "MIIEowIBAAKCAQEA",
    families: {
      "headers repeated": (n) => fill("-----BEGIN RSA PRIVATE KEY-----", n),
      "an endless label": (n) => `-----BEGIN ${fill("A ", n)}`,
      "BEGIN repeated": (n) => fill("-----BEGIN ", n),
      "blocks that never end": (n) => fill("-----BEGIN A PRIVATE KEY-----\n-----END B PRIVATE KEY-----\n", n),
    },
  },
};

/** Long enough to time: a run this slow is measurable on a busy machine. */
const MEASURABLE_MS = 4;
/** The largest n tried: a rule this fast at 64 K characters is not quadratic, whatever the ratio says. */
const MAX_LENGTH = 64 * 1024;
/** Below this a time is noise, so ratios are taken against at least this much. */
const FLOOR_MS = 1;
const RUNS = 5;
/** Measurements of one ratio before it counts as a failure: load stalls a run now and then, never every one. */
const ATTEMPTS = 3;

/** Milliseconds of CPU this process has used. */
function cpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

function bestTime(text: string): number {
  let best = Number.POSITIVE_INFINITY;
  for (let run = 0; run < RUNS; run++) {
    const started = cpuMs();
    maskSecrets(text);
    best = Math.min(best, cpuMs() - started);
    // One run this slow already tells: a linear rule never takes a second here.
    if (best > 1000) break;
  }
  return best;
}

/** The smallest n (from 4 K, growing fourfold) whose masking takes long enough to time. */
function measurableLength(family: Family): number {
  let length = 4096;
  while (length < MAX_LENGTH) {
    const text = family(length);
    const started = cpuMs();
    maskSecrets(text);
    if (cpuMs() - started >= MEASURABLE_MS) break;
    length *= 4;
  }
  return length;
}

describe("maskSecrets runs in time linear in the text's size", () => {
  for (const [rule, { sample, secret, families }] of Object.entries(RULES)) {
    it(`${rule}: on inputs built against its pattern, 4x the text takes well under 16x the time`, () => {
      expect(maskSecrets(sample).findings, "the sample is a true positive of the rule").toContain(rule);
      for (const [name, family] of Object.entries(families)) {
        const length = measurableLength(family);
        const small = `${family(length)}\n${sample}`;
        const large = `${family(length * 4)}\n${sample}`;
        // A quadratic rule shows ~16x on every attempt; a busy machine's stall shows on one. The best of a few attempts is kept.
        let ratio = Number.POSITIVE_INFINITY;
        for (let attempt = 0; attempt < ATTEMPTS && ratio >= 8; attempt++) {
          ratio = Math.min(ratio, bestTime(large) / Math.max(bestTime(small), FLOOR_MS));
        }
        expect(ratio, `${name}: n = ${length}`).toBeLessThan(8);
        expect(maskSecrets(large).text, `${name}: the secret after the run`).not.toContain(secret);
      }
    });
  }
});
