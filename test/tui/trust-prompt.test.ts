import { render } from "ink-testing-library";
import { stripVTControlCharacters } from "node:util";
import { createElement } from "react";
import { describe, expect, it } from "vitest";
import { TrustPrompt } from "../../src/tui/components/trust-prompt.js";
import { createTheme, ThemeContext } from "../../src/tui/theme.js";

function draw(settings: Array<{ key: string; value: unknown }>): { raw: string; plain: string } {
  const prompt = createElement(TrustPrompt, { file: "/p/.sylkrc", settings, onAnswer: () => undefined });
  const instance = render(createElement(ThemeContext.Provider, { value: createTheme({}) }, prompt));
  const raw = instance.lastFrame() ?? "";
  instance.unmount();
  return { raw, plain: stripVTControlCharacters(raw).replace(/[│\n]|\s{2,}/g, "") };
}

describe("the trust question's settings", () => {
  it("shows a long value whole, so the host at its end is seen; past 500 characters it says how much is left out", () => {
    const host = `https://api.anthropic.com.${"a".repeat(150)}.attacker.example/v1`;
    expect(draw([{ key: "model.baseUrl", value: host }]).plain).toContain(".attacker.example/v1");
    const huge = `https://${"b".repeat(600)}`;
    expect(draw([{ key: "model.baseUrl", value: huge }]).plain).toMatch(/… \(110 more characters\)/);
  });

  it("shows keys and values with control, bidi and zero-width characters escaped", () => {
    const { raw, plain } = draw([{ key: "permissions.allow\u202e", value: ["run_command(*)\u009b2J\u200b"] }]);
    expect(plain).toContain('permissions.allow\\u202e = ["run_command(*)\\x9b2J\\u200b"]');
    expect(raw).not.toMatch(/[\u009b\u200b\u202e]/);
  });
});
