import { createHash } from "node:crypto";
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { checkpointFingerprints } from "../../src/app/checkpoint-fingerprint.js";
import { FileCheckpoints } from "../../src/app/file-checkpoints.js";
import { CheckpointRepository } from "../../src/store/checkpoint-repository.js";
import { openDatabase, type SqliteDatabase } from "../../src/store/database.js";
import { createTempProject, type TempProject } from "../helpers/temp-project.js";

const TOKEN = `ghp_${"a1B2c3D4e5".repeat(4)}`;
const BEFORE = `export const token = "${TOKEN}";\nexport const retries = 1;\n`;
const AFTER = BEFORE.replace("retries = 1", "retries = 2");

let project: TempProject;
let db: SqliteDatabase;
const file = () => join(project.root, "config.ts");
const rows = () =>
  db.prepare("SELECT before_content, before_fingerprint, after_hash FROM file_checkpoints").all() as Array<{
    before_content: Buffer;
    before_fingerprint: string | null;
    after_hash: string;
  }>;
const checkpoints = () => new FileCheckpoints(new CheckpointRepository(db), "session-1", checkpointFingerprints(project.sylkHome));

beforeEach(() => {
  project = createTempProject({ "config.ts": AFTER });
  db = openDatabase(join(project.sylkHome, "vector.db"));
});
afterEach(() => {
  db.close();
  project.cleanup();
});

describe("file checkpoints and secrets", () => {
  it("a checkpoint an older Sylk stored raw is masked when the next session opens, and still restores byte for byte", () => {
    const plainDigest = createHash("sha256").update(AFTER).digest("hex");
    db.prepare(
      `INSERT INTO file_checkpoints (session_id, prompt_turn, tool_use_id, path, absolute_path, before_content, after_hash, created_at)
       VALUES ('session-1', 1, 'toolu_1', 'config.ts', ?, ?, ?, 0)`,
    ).run(file(), Buffer.from(BEFORE), plainDigest);
    const session = checkpoints();
    const [row] = rows();
    expect(row?.before_content.toString()).not.toContain(TOKEN);
    expect(row?.before_content.toString()).toContain("[REDACTED:github-token]");
    expect(row?.before_fingerprint).toMatch(/^hmac-sha256:[0-9a-f]{64}$/);
    expect(session.undoLast()).toMatchObject({ restored: ["config.ts"], conflicts: [], refused: [] });
    expect(readFileSync(file(), "utf8")).toBe(BEFORE);
  });

  it("fingerprints are keyed by a 0600 file under SYLK_HOME, so the store holds no plain digest of the file", () => {
    checkpoints().record(1, "toolu_1", { absolute: file(), shown: "config.ts", before: Buffer.from(BEFORE), after: AFTER });
    const [row] = rows();
    const digests = [BEFORE, AFTER].map((text) => createHash("sha256").update(text).digest("hex"));
    expect(row?.after_hash).toMatch(/^hmac-sha256:/);
    for (const digest of digests) expect(JSON.stringify(row)).not.toContain(digest);
    expect(statSync(join(project.sylkHome, "checkpoint.key")).mode & 0o777).toBe(0o600);
    // Another session (another process) reads the same key: the file is unchanged, the restore goes through.
    expect(checkpoints().undoLast()).toMatchObject({ restored: ["config.ts"], conflicts: [] });
    expect(readFileSync(file(), "utf8")).toBe(BEFORE);
  });

  it("a file changed since is still a conflict, and force fills the secret in from what is there", () => {
    checkpoints().record(1, "toolu_1", { absolute: file(), shown: "config.ts", before: Buffer.from(BEFORE), after: AFTER });
    writeFileSync(file(), AFTER.replace("retries = 2", "retries = 3"));
    expect(checkpoints().undoLast()).toMatchObject({ restored: [], conflicts: ["config.ts"], refused: [] });
    expect(checkpoints().undoLast(true)).toMatchObject({ restored: ["config.ts"] });
    expect(readFileSync(file(), "utf8")).toBe(BEFORE);
  });
});
