import { describe, expect, it } from "vitest";
import { ConfigError, errorMessage } from "../src/errors.js";

describe("errorMessage", () => {
  it("reads an Error's message, a subclass's included", () => {
    expect(errorMessage(new TypeError("bad type"))).toBe("bad type");
    expect(errorMessage(new ConfigError("bad key in .sylkrc"))).toBe("bad key in .sylkrc");
  });

  it("reads the message of an error-like object that is not an Error", () => {
    expect(errorMessage({ message: "from a worker", code: "E_WORKER" })).toBe("from a worker");
  });

  it("gives a thrown string, number or nothing as text instead of undefined", () => {
    expect(errorMessage("disk full")).toBe("disk full");
    expect(errorMessage(42)).toBe("42");
    expect(errorMessage(undefined)).toBe("undefined");
    expect(errorMessage(null)).toBe("null");
    expect(errorMessage({ message: 7 })).toBe("[object Object]");
  });

  it("does not throw on an object that cannot be turned into a string", () => {
    expect(errorMessage(Object.create(null))).toBe("[object Object]");
  });
});
