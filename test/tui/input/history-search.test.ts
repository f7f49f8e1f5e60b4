import { describe, expect, it } from "vitest";
import { acceptSearch, extendQuery, findOlder, searchOlder, shortenQuery, startSearch } from "../../../src/tui/input/history-search.js";
import { bufferOf } from "../../../src/tui/input/pasted-text.js";

const entries = ["explain the Parser", "/help", "fix the parser bug", "run the tests"].map((text) => ({ text }));

describe("history search (Ctrl-R)", () => {
  it("finds the newest entry before a position holding the query, ignoring case", () => {
    expect(findOlder(entries, "parser", 4)).toBe(2);
    expect(findOlder(entries, "parser", 2)).toBe(0);
    expect(findOlder(entries, "parser", 0)).toBeUndefined();
    expect(findOlder(entries, "", 4)).toBe(3);
  });

  it("starts at the newest entry, narrows as the query grows, and goes older on Ctrl-R until none is left", () => {
    const draft = bufferOf("half typed");
    let search = startSearch(draft, entries);
    expect(search.match).toBe(3);
    search = extendQuery(search, entries, "pars");
    expect(search.match).toBe(2);
    search = extendQuery(search, entries, "er");
    expect(search).toMatchObject({ query: "parser", match: 2 });
    search = searchOlder(search, entries);
    expect(search).toMatchObject({ match: 0, exhausted: false });
    search = searchOlder(search, entries);
    expect(search).toMatchObject({ match: 0, exhausted: true });
    expect(acceptSearch(search, entries).editor).toEqual({ text: "explain the Parser", cursor: 18 });
  });

  it("shows no match for a query nothing holds; Backspace searches again from the newest", () => {
    let search = extendQuery(startSearch(bufferOf(""), entries), entries, "zz");
    expect(search.match).toBeUndefined();
    expect(searchOlder(search, entries)).toBe(search);
    expect(acceptSearch(search, entries)).toBe(search.draft);
    search = shortenQuery(shortenQuery(search, entries), entries);
    expect(search).toMatchObject({ query: "", match: 3 });
  });
});
