import type { Command } from "commander";
import { builtinAgentListings } from "../../roles/agent-catalog.js";
import type { CliContext } from "../cli-context.js";

export function registerAgentsCommand(program: Command, context: CliContext): void {
  program
    .command("agents")
    .description("list the agents `--agent` can start: their roles, tools and whether they may change files")
    .option("--json", "print one JSON object")
    .action((options: { json?: boolean }) => {
      const agents = builtinAgentListings();
      if (options.json) {
        context.stdout.write(`${JSON.stringify({ agents, errors: [] })}\n`);
        return;
      }
      const width = Math.max(...agents.map((agent) => agent.name.length));
      for (const agent of agents) {
        const access = agent.read_only ? "read-only" : agent.tools.some((tool) => tool === "edit_file" || tool === "run_command") ? "edits, commands" : "no edits";
        context.stdout.write(`${agent.name.padEnd(width)}  ${agent.category.padEnd(10)} ${access.padEnd(16)} ${agent.description}\n`);
        context.stdout.write(`${" ".repeat(width)}  tools: ${agent.tools.join(", ")}\n`);
      }
      context.stdout.write("\nStart one with `sylk --agent <name>` or `sylk ask --agent <name> \"…\"`.\n");
    });
}
