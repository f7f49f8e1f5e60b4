import { describe, expect, it } from "vitest";
import { maskSecretsIn, maskSecretsInJson } from "../../src/security/mask-values.js";

const TOKEN = "ghp_Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0FeDcBa";

describe("maskSecretsIn", () => {
  it("masks every string of nested JSON data, names of fields included, and leaves the rest as it was", () => {
    const input = { path: "deploy/db.ts", content: `token = ${TOKEN}`, lines: [1, 2], nested: { [TOKEN]: [`x ${TOKEN}`, true, null] } };
    const { value, findings } = maskSecretsIn(input);
    expect(value).toEqual({
      path: "deploy/db.ts",
      content: "token = [REDACTED:github-token]",
      lines: [1, 2],
      nested: { "[REDACTED:github-token]": ["x [REDACTED:github-token]", true, null] },
    });
    expect(findings).toEqual(["github-token", "github-token", "github-token"]);
  });

  it("returns a copy: the caller's value, which a tool runs with, keeps the real secret", () => {
    const input = { content: `token = ${TOKEN}` };
    maskSecretsIn(input);
    expect(input.content).toBe(`token = ${TOKEN}`);
  });

  it("masks a value that is a secret only beside its field's name, and a quoted one inside a string", () => {
    const { value } = maskSecretsIn({ password: "correct-horse-battery", script: 'login --password="hunter2hunter2"' });
    expect(value).toEqual({ password: "[REDACTED:assigned-secret]", script: 'login --password="[REDACTED:assigned-secret]"' });
  });

  it("keeps data without secrets equal, and plain values as they are", () => {
    const message = { role: "assistant", content: [{ type: "tool_use", id: "toolu_01", name: "read_file", input: { path: "a.ts" } }] };
    expect(maskSecretsIn(message)).toEqual({ value: message, findings: [] });
    expect(maskSecretsIn(42).value).toBe(42);
    const bytes = Buffer.from("raw");
    expect(maskSecretsIn({ bytes }).value.bytes).toBe(bytes);
    expect(maskSecretsIn(`a ${TOKEN}`).value).toBe("a [REDACTED:github-token]");
  });

  it("masks JSON text as the value it holds, and other text as text", () => {
    expect(JSON.parse(maskSecretsInJson(JSON.stringify({ step: 'login --password="hunter2hunter2"' })))).toEqual({
      step: 'login --password="[REDACTED:assigned-secret]"',
    });
    expect(maskSecretsInJson('{"plain":true}')).toBe('{"plain":true}');
    expect(maskSecretsInJson(`not json ${TOKEN}`)).toBe("not json [REDACTED:github-token]");
  });
});
