import { describe, expect, it } from "vitest";
import { shownApproval } from "../../../src/tui/format/approval-text.js";

describe("the approval of a web_fetch call", () => {
  it("asks to fetch, names the host the answer covers, and flags a URL with control characters", () => {
    const url = "https://example.com/\u001b[2Jdocs";
    const shown = shownApproval(
      {
        tool: "web_fetch",
        kind: "network",
        targets: { fetch: { url, host: "example.com" } },
        input: { url },
        reason: `Fetch ${url} from example.com`,
      },
      80,
    );
    expect(shown.title).toBe("Fetch a web page?");
    expect(shown.scope).toBe("web_fetch from example.com");
    expect(shown.reason).not.toContain("\u001b");
    expect(shown.warnings).toEqual([expect.stringContaining("This URL contains control characters")]);
  });
});
