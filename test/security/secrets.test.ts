import { describe, expect, it } from "vitest";
import { ANY_SECRET_HINT, isSecretPath, maskSecrets, SECRET_HINTS, unionOfHints } from "../../src/security/secrets.js";

describe("isSecretPath", () => {
  it("recognises secret files by name", () => {
    for (const path of [
      ".env",
      "app/.env.local",
      "prod.env",
      "config/credentials.yml",
      "aws_credentials",
      "my-secret.txt",
      "secrets.json",
      "id_rsa",
      "id_ed25519.pub",
      "server.key",
      "cert.pem",
      "store.p12",
      ".npmrc",
      ".netrc",
      "terraform.tfstate",
    ]) {
      expect(isSecretPath(path), path).toBe(true);
    }
    for (const path of ["src/env.ts", "environment.md", "keyboard.ts", "src/keys.ts", "README.md"]) {
      expect(isSecretPath(path), path).toBe(false);
    }
  });
});

describe("maskSecrets", () => {
  const cases: Array<[string, string, string]> = [
    ["aws-access-key-id", 'const id = "AKIAZ7Q3ABCDEFGH1234";', "AKIAZ7Q3ABCDEFGH1234"],
    [
      "aws-secret-access-key",
      "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKEY",
      "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKEY",
    ],
    ["github-token", "token: ghp_abcdefghijklmnopqrstuvwxyz0123456789", "ghp_abcdefghijklmnopqrstuvwxyz0123456789"],
    ["slack-token", "SLACK=xoxb-1234567890-abcdefghij", "xoxb-1234567890-abcdefghij"],
    ["anthropic-api-key", "key sk-ant-api03-abcdefghijklmnopqrstuv", "sk-ant-api03-abcdefghijklmnopqrstuv"],
    ["openai-api-key", "OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrstuvwxyz", "sk-proj-abcdefghijklmnopqrstuvwxyz"],
    ["google-api-key", "AIzaSyA1234567890abcdefghijklmnopqrstuv", "AIzaSyA1234567890abcdefghijklmnopqrstuv"],
    ["stripe-key", "sk_live_abcdefghijklmnop1234", "sk_live_abcdefghijklmnop1234"],
    ["jwt", "Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U", "eyJhbGciOiJIUzI1NiJ9"],
    ["url-credentials", "postgres://admin:s3cretpass@db.example.com/app", "s3cretpass"],
    ["assigned-secret", 'password = "correct-horse-battery"', "correct-horse-battery"],
    [
      "authorization-header",
      "\textraheader = AUTHORIZATION: basic eC1hY2Nlc3MtdG9rZW46Z2hzX2V4YW1wbGU=",
      "eC1hY2Nlc3MtdG9rZW46Z2hzX2V4YW1wbGU=",
    ],
    ["authorization-header", 'curl -H "Authorization: Bearer 9f8e7d6c5b4a3210fedc" https://api.example.com', "9f8e7d6c5b4a3210fedc"],
  ];
  for (const [rule, text, secret] of cases) {
    it(`masks ${rule}`, () => {
      const result = maskSecrets(`before\n${text}\nafter`);
      expect(result.text).not.toContain(secret);
      expect(result.text).toContain(`[REDACTED:${rule}]`);
      expect(result.findings).toContain(rule);
      expect(result.text.split("\n")).toHaveLength(3);
    });
  }

  it("masks a private key block line by line, keeping the line count", () => {
    const text = "a\n-----BEGIN RSA PRIVATE KEY-----\nMIIEow\nabc\n-----END RSA PRIVATE KEY-----\nb";
    const result = maskSecrets(text);
    expect(result.text.split("\n")).toHaveLength(6);
    expect(result.text).not.toContain("MIIEow");
    expect(result.text.split("\n")[0]).toBe("a");
    expect(result.text.split("\n")[5]).toBe("b");
  });

  it("masks what the linear-time rules must still find: a token after an operator or a quote, a credential after a long scheme-like run, a long name", () => {
    const jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U";
    for (const text of [`token=${jwt}`, `"jwt":"${jwt}"`, `Authorization:${jwt}`, `(${jwt})`]) {
      expect(maskSecrets(text).text, text).not.toContain("eyJzdWIiOiIxMjM0NTY3ODkwIn0");
    }
    for (const text of [
      "git+ssh://deploy:hunter22@example.com/repo",
      `${"a.".repeat(5000)}postgres://admin:s3cretpass@db/app`,
      "see:mongodb+srv://app:s3cretpass@cluster0/x",
    ]) {
      expect(maskSecrets(text).findings, text.slice(-60)).toContain("url-credentials");
    }
    const named = 'const STRIPE_SECRET_KEY_FOR_THE_PRODUCTION_BILLING_SERVICE_IN_EU = "Zm9vYmFyYmF6cXV4";';
    expect(maskSecrets(named).text).not.toContain("Zm9vYmFyYmF6cXV4");
  });

  it("runs the rules only where the union of their hints matches, which matches wherever one hint does", () => {
    const texts = [
      ...cases.map(([, text]) => text),
      "aws_SECRET_access_key",
      "Api-Key: x",
      "PassWord",
      "ACCESS_TOKEN",
      "-----BEGIN OPENSSH PRIVATE KEY-----",
      "https://user@host",
      "const tokenizer = new Tokenizer();",
      "fn parse(text: &str) -> Result<Tree, Error> { todo!() }",
    ];
    // A hint is joined to the others as its source: a flag other than `i` (multiline, dotAll, unicode) would be lost.
    for (const hint of SECRET_HINTS) expect(hint.flags.replace("i", ""), hint.source).toBe("");
    const modifiers = (() => {
      try {
        // biome-ignore lint/complexity/useRegexLiterals: as a literal, Node 22 would reject the whole file when it parses it.
        return new RegExp("(?i:a)").test("A");
      } catch {
        return false;
      }
    })();
    for (const text of texts) {
      const hinted = SECRET_HINTS.some((hint) => hint.test(text)) || text.includes("PRIVATE KEY");
      // With modifiers (V8 12.5 on), exactly where a hint matches; without (Node 22), at least there.
      if (modifiers) expect(unionOfHints(true).test(text), text).toBe(hinted);
      if (hinted) expect(unionOfHints(false).test(text), text).toBe(true);
      if (hinted) expect(ANY_SECRET_HINT.test(text), text).toBe(true);
    }
    if (modifiers) expect(unionOfHints(true).test("fn parse(text: &str) -> Result<Tree, Error> { todo!() }")).toBe(false);
  });

  it("leaves ordinary code and placeholders alone", () => {
    const code =
      'const password = process.env.PASSWORD;\nconst label = "Enter your password";\npassword = "${DB_PASSWORD}"\nconst tokenizer = new Tokenizer();';
    expect(maskSecrets(code)).toEqual({ text: code, findings: [] });
  });
});
