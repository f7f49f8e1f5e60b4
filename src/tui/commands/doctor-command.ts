import { doctorText } from "../../app/doctor.js";
import { sessionIndexState } from "../format/index-state.js";
import type { SlashCommandContext } from "./slash-context.js";

/** `/doctor`: `sylk doctor`'s checks, on the index and the sandbox as this session has them; the model gets a real request. */
export async function doctorCommand(context: SlashCommandContext): Promise<void> {
  context.agent.print({ kind: "note", tone: "dim", text: "Checking the sandbox, Node, the index, the model and the configuration…" });
  const report = await context.project.doctor({
    index: sessionIndexState(context.indexing.snapshot(), context.project.indexDamage()),
    sandbox: context.agent.session.sandbox,
  });
  context.agent.print({ kind: "note", tone: report.passed ? "info" : "warning", text: doctorText(report) });
}
