import { describe, expect, it } from "vitest";
import { fillMaskedLines, maskedBytes, maskedLinesOf } from "../../src/app/checkpoint-masking.js";

const TOKEN = `ghp_${"a1B2c3D4e5".repeat(4)}`;
const OTHER = `ghp_${"Z9y8X7w6V5".repeat(4)}`;
const KEY_BLOCK = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAx\nq9ZxYwvU3w\n-----END RSA PRIVATE KEY-----";

describe("masked checkpoints", () => {
  it("mask only the secret values, keeping every other byte (invalid UTF-8, CRLF)", () => {
    const original = Buffer.concat([Buffer.from(`a = 1\r\ntoken = "${TOKEN}"\r\n`), Buffer.from([0xff, 0xfe, 0x0a])]);
    const masked = maskedBytes(original);
    expect(masked.toString("latin1")).toBe(`a = 1\r\ntoken = "[REDACTED:github-token]"\r\n\xff\xfe\n`);
    expect(maskedLinesOf(masked)).toEqual([{ line: 2, text: 'token = "[REDACTED:github-token]"\r' }]);
    expect(maskedBytes(Buffer.from("nothing secret\n"))).toEqual(Buffer.from("nothing secret\n"));
  });

  it("fill each masked line from the current file's line that masks the same, wherever the edit moved it", () => {
    const original = Buffer.concat([Buffer.from(`const a = 1;\r\nconst token = "${TOKEN}";\r\n${KEY_BLOCK}\n`), Buffer.from([0xe9, 0x0a])]);
    const current = Buffer.concat([
      Buffer.from(`// new header\nconst a = 2;\r\nconst token = "${TOKEN}";\r\n${KEY_BLOCK}\n`),
      Buffer.from([0xe9, 0x0a]),
    ]);
    const filled = fillMaskedLines(maskedBytes(original), current);
    expect(filled).toEqual({ bytes: original });
  });

  it("report the masked lines that are no longer in the file", () => {
    const original = Buffer.from(`const token = "${TOKEN}";\nconst b = 2;\n`);
    const filled = fillMaskedLines(maskedBytes(original), Buffer.from("const b = 2;\n"));
    expect(filled).toEqual({ unfilled: [{ line: 1, text: 'const token = "[REDACTED:github-token]";' }] });
  });

  it("pair a masked line with one of the same shape: the caller's fingerprint check is what tells a changed value", () => {
    const original = Buffer.from(`const token = "${TOKEN}";\n`);
    const filled = fillMaskedLines(maskedBytes(original), Buffer.from(`const token = "${OTHER}";\n`));
    expect(filled).toEqual({ bytes: Buffer.from(`const token = "${OTHER}";\n`) });
  });
});
