import { symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FileTooLargeError, NotRegularFileError, readRegularFile } from "../../src/files/regular-file.js";
import { plantFifo, type PlantedFifo } from "../helpers/fifo.js";
import { createTempProject, type TempProject } from "../helpers/temp-project.js";

let project: TempProject;
let fifo: PlantedFifo;
const at = (path: string) => join(project.root, path);
beforeEach(() => {
  project = createTempProject({ "a.txt": "hello\n" });
  fifo = plantFifo(at("pipe"));
});
afterEach(() => {
  fifo.remove();
  project.cleanup();
});

describe("readRegularFile", () => {
  it("reads a regular file, through a link unless told not to", async () => {
    symlinkSync("a.txt", at("link"));
    expect(readRegularFile(at("link")).toString()).toBe("hello\n");
    expect(() => readRegularFile(at("link"), { noFollow: true })).toThrow(new NotRegularFileError(at("link"), "a symbolic link"));
  });

  it("refuses a FIFO, directly or through a link, without opening it", async () => {
    symlinkSync("pipe", at("to-pipe"));
    const started = performance.now();
    expect(() => readRegularFile(at("pipe"))).toThrow(new NotRegularFileError(at("pipe"), "a FIFO (named pipe)"));
    expect(() => readRegularFile(at("to-pipe"))).toThrow(NotRegularFileError);
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it("reads every size byte for byte, empty and past the buffer pool's", () => {
    for (const size of [0, 1, 4095, 4096, 8192, 1 << 20]) {
      const bytes = Buffer.alloc(size);
      for (let at = 0; at < size; at++) bytes[at] = (at * 31 + size) & 0xff;
      writeFileSync(at(`sized-${size}`), bytes);
      expect(readRegularFile(at(`sized-${size}`)).equals(bytes)).toBe(true);
      expect(readRegularFile(at(`sized-${size}`), { noFollow: true, listedAsRegular: true }).equals(bytes)).toBe(true);
    }
  });

  it("refuses a FIFO or a link listed as a regular file (replaced since the walk) once open, without waiting", () => {
    symlinkSync("a.txt", at("link"));
    const started = performance.now();
    expect(() => readRegularFile(at("pipe"), { noFollow: true, listedAsRegular: true })).toThrow(
      new NotRegularFileError(at("pipe"), "a FIFO (named pipe)"),
    );
    expect(() => readRegularFile(at("link"), { noFollow: true, listedAsRegular: true })).toThrow(
      new NotRegularFileError(at("link"), "a symbolic link"),
    );
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it("refuses a file above maxBytes before reading it, and lets ENOENT through", () => {
    writeFileSync(at("big.txt"), "x".repeat(100));
    expect(() => readRegularFile(at("big.txt"), { maxBytes: 10 })).toThrow(FileTooLargeError);
    expect(() => readRegularFile(at("missing.txt"))).toThrow(expect.objectContaining({ code: "ENOENT" }));
  });
});
