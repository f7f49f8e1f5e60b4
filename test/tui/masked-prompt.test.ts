import { describe, expect, it } from "vitest";
import { createAppFixture } from "./app-fixture.js";

/** A secret in a prompt is masked before it is stored or sent, and the transcript says so. */
const tui = createAppFixture({ fakeModel: false });

describe("a secret-looking value in a prompt", () => {
  it("is masked for the model, and the user is told which placeholder it sees", async () => {
    const app = await tui.render({ consent: false });
    const token = "ghp_abcdefghijklmnopqrstuvwxyz0123456789";
    await app.submit(`deploy with ${token} please`);
    await app.waitFor("1 secret-looking value in your prompt was masked; the model sees [REDACTED:github-token]");
    await app.waitFor(() => app!.services.sessions.list(1).length === 1);
    const [session] = app.services.sessions.list(1);
    expect(JSON.stringify(app.services.sessions.messages(session!.id))).not.toContain(token);
  });

  it("says nothing for a prompt without one", async () => {
    const app = await tui.render({ consent: false });
    await app.submit("where is the deploy script?");
    await app.waitFor(() => app!.services.sessions.list(1).length === 1);
    expect(app.frame()).not.toContain("masked");
  });
});
