/**
 * Secrets are never indexed, stored or sent to a model. Two defences:
 * files whose names say they hold secrets are skipped outright, and any other
 * text has values that look like keys or tokens masked in place (line
 * structure is kept, so line numbers stay right). Patterns follow the
 * well-known rule sets of gitleaks and GitHub secret scanning.
 */

const SECRET_FILE_NAMES: readonly RegExp[] = [
  /^\.env($|\.)/i, // .env, .env.local, .env.production …
  /\.env$/i, // production.env
  /credential/i,
  /secret/i,
  /^id_(rsa|dsa|ecdsa|ed25519)(\.|$)/i,
  /\.(pem|key|p12|pfx|jks|keystore|crt|cer|der|p8|ppk|asc|gpg|kdbx)$/i,
  /^\.(netrc|pgpass|npmrc|pypirc|htpasswd|git-credentials)$/i,
  /^(authorized_keys|known_hosts)$/i,
  /\.tfstate(\.backup)?$/i,
];

/** True when the file's name says it holds secrets; such files are never read into the index or a model. */
export function isSecretPath(relativePath: string): boolean {
  const name = relativePath.slice(relativePath.lastIndexOf("/") + 1);
  return SECRET_FILE_NAMES.some((pattern) => pattern.test(name));
}

interface SecretRule {
  id: string;
  /** A cheap test run first over the whole text; the full pattern runs only when it matches. */
  hint: RegExp;
  pattern: RegExp;
  /** Capture group holding the secret value; the whole match when absent. */
  group?: number;
}

const SECRET_RULES: readonly SecretRule[] = [
  {
    id: "aws-access-key-id",
    hint: /AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AIPA|ANPA|ANVA|AROA|APKA/,
    pattern: /\b((?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AIPA|ANPA|ANVA|AROA|APKA)[0-9A-Z]{16})\b/g,
    group: 1,
  },
  {
    id: "aws-secret-access-key",
    hint: /secret/i,
    pattern: /aws(?:_|\.|-)?secret(?:_|\.|-)?(?:access)?(?:_|\.|-)?key\s*[:=]\s*["']?([A-Za-z0-9/+=]{40})["']?/gi,
    group: 1,
  },
  { id: "github-token", hint: /gh[pousr]_/, pattern: /\b((?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36,255})\b/g, group: 1 },
  { id: "github-fine-grained-token", hint: /github_pat_/, pattern: /\b(github_pat_[A-Za-z0-9_]{22,255})\b/g, group: 1 },
  { id: "gitlab-token", hint: /glpat-/, pattern: /\b(glpat-[A-Za-z0-9_-]{20,})\b/g, group: 1 },
  { id: "slack-token", hint: /xox[abposr]-/, pattern: /\b(xox[abposr]-[A-Za-z0-9-]{10,})\b/g, group: 1 },
  { id: "slack-webhook", hint: /hooks\.slack\.com/, pattern: /(https:\/\/hooks\.slack\.com\/services\/[A-Za-z0-9/_-]+)/g, group: 1 },
  { id: "anthropic-api-key", hint: /sk-ant-/, pattern: /\b(sk-ant-[A-Za-z0-9_-]{20,})/g, group: 1 },
  { id: "openai-api-key", hint: /sk-/, pattern: /\b(sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,})/g, group: 1 },
  { id: "google-api-key", hint: /AIza/, pattern: /\b(AIza[0-9A-Za-z_-]{35})\b/g, group: 1 },
  { id: "stripe-key", hint: /[sr]k_(?:live|test)_/, pattern: /\b((?:sk|rk)_(?:live|test)_[0-9A-Za-z]{16,})\b/g, group: 1 },
  { id: "npm-token", hint: /npm_/, pattern: /\b(npm_[A-Za-z0-9]{36})\b/g, group: 1 },
  { id: "sendgrid-key", hint: /SG\./, pattern: /\b(SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43})\b/g, group: 1 },
  {
    id: "jwt",
    hint: /eyJ/,
    // A token starts where a run of base64url characters starts: with `\b`, every `-eyJ` inside
    // one long run was a start of its own, each reading to the end of the run (quadratic).
    pattern: /(?<![A-Za-z0-9_-])(eyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,})/g,
    group: 1,
  },
  {
    id: "url-credentials",
    hint: /:\/\/[^\s/]*@/,
    // The match starts at `://` and looks back for the scheme, at most 32 characters: a scheme read
    // forwards from every letter of a run like `a.a.a.…` read the rest of the run each time.
    pattern: /:\/\/(?<=[a-z][a-z0-9+.-]{0,31}:\/\/)[^\s:/@"']+:([^\s:/@"']{3,})@/gi,
    group: 1,
  },
  {
    id: "authorization-header",
    hint: /authorization/i,
    // An HTTP header's credentials as a config or a script writes them: `http.extraheader = AUTHORIZATION: basic …`
    // (actions/checkout's token in .git/config), `-H "Authorization: Bearer …"`.
    pattern: /authorization["']?\s*[:=]\s*["']?(?:basic|bearer|token)\s+([A-Za-z0-9._~+/-]{8,}=*)/gi,
    group: 1,
  },
  {
    id: "assigned-secret",
    hint: /passw|secret|api[_-]?key|access[_-]?token|auth[_-]?token|private[_-]?key/i,
    // password = "…", api_key: '…', "client_secret": "…" (quoted values of 8+ characters).
    // The match starts at the keyword, not at the start of the identifier holding it: a
    // leading `\b[A-Za-z0-9_]*` made the engine try every word of the file
    // (0.4 s of each worker's cold index on a repository that says "token" everywhere).
    // The rest of the name is bounded: unbounded, each keyword of `secretsecretsecret…` read
    // to the end of the run (quadratic); names go on at most a few words past the keyword.
    pattern:
      /(?:password|passwd|secret|api[_-]?key|access[_-]?token|auth[_-]?token|private[_-]?key)[A-Za-z0-9_]{0,64}["']?\s*[:=]\s*["']([^"'\s]{8,})["']/gi,
    group: 1,
  },
];

/**
 * Every marker masking writes in place of a value: a search that matches
 * masked text (grep) must not skip a file for lacking, in its raw bytes, a
 * literal that only a marker holds.
 */
export const MASK_MARKERS: readonly string[] = [...SECRET_RULES.map((rule) => rule.id), "private-key"].map((id) => `[REDACTED:${id}]`);

const PRIVATE_KEY_LITERAL = "PRIVATE KEY";

/**
 * The union of every rule's hint and the private key's literal, run once
 * over a text before any of them: where it does not match, no rule can, and
 * the text is returned as it is (one scan of the text instead of 17;
 * docs/DESIGN-NOTES.md, "The secrets' hints in one pass"). It matches
 * wherever a hint does, so what is masked is the same.
 */
export const ANY_SECRET_HINT: RegExp = unionOfHints();

/**
 * The hints' union: with V8's modifiers each case-insensitive hint inside
 * `(?i:…)`; without them (V8 before 12.5, Node 22) case-insensitive as a
 * whole, which matches more texts, never fewer.
 */
export function unionOfHints(modifiers = regExpModifiers()): RegExp {
  const literal = PRIVATE_KEY_LITERAL.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  if (!modifiers) return new RegExp([...SECRET_RULES.map((rule) => rule.hint.source), literal].join("|"), "i");
  return new RegExp(
    [...SECRET_RULES.map((rule) => (rule.hint.ignoreCase ? `(?i:${rule.hint.source})` : rule.hint.source)), literal].join("|"),
  );
}

function regExpModifiers(): boolean {
  try {
    // biome-ignore lint/complexity/useRegexLiterals: as a literal, Node 22 would reject the whole module when it parses it; the constructor throws here instead.
    return new RegExp("(?i:a)").test("A");
  } catch {
    return false;
  }
}

/** Every rule's hint, for the tests that hold the union to them. */
export const SECRET_HINTS: readonly RegExp[] = SECRET_RULES.map((rule) => rule.hint);

const PRIVATE_KEY_BLOCK = /-----BEGIN ((?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?)-----[\s\S]*?(?:-----END \1-----|$)/g;

export interface MaskResult {
  text: string;
  /** Rule ids that matched, one per masked value. */
  findings: string[];
}

/** Values that merely name a placeholder are not secrets (`password = "${PASSWORD}"`, `"changeme"`). */
function isPlaceholder(value: string): boolean {
  return (
    /^\$\{?[A-Za-z_][A-Za-z0-9_]*\}?$/.test(value) ||
    /^(x+|\*+|\.+|<[^>]*>|changeme|password|example|placeholder|your[-_a-z]*)$/i.test(value) ||
    /^process\.env\./.test(value)
  );
}

/**
 * Replaces every secret-looking value with `[REDACTED:<rule>]`. A private key
 * block keeps its line count (each inner line becomes the marker) so chunk
 * line ranges still point at the right lines.
 */
export function maskSecrets(text: string): MaskResult {
  if (!ANY_SECRET_HINT.test(text)) return { text, findings: [] };
  const findings: string[] = [];
  let masked = !text.includes(PRIVATE_KEY_LITERAL)
    ? text
    : text.replace(PRIVATE_KEY_BLOCK, (block) => {
        findings.push("private-key");
        return block
          .split("\n")
          .map(() => "[REDACTED:private-key]")
          .join("\n");
      });
  for (const rule of SECRET_RULES) {
    if (!rule.hint.test(masked)) continue;
    masked = masked.replace(rule.pattern, (match: string, ...groups: unknown[]) => {
      const value = rule.group ? (groups[rule.group - 1] as string | undefined) : match;
      if (!value || isPlaceholder(value)) return match;
      findings.push(rule.id);
      return match.replace(value, `[REDACTED:${rule.id}]`);
    });
  }
  return { text: masked, findings };
}
