import type { Command } from "commander";
import { resolveProjectPaths } from "../../project/project-paths.js";
import type { CliContext } from "../cli-context.js";
import { warnAboutAgentFiles } from "../custom-agent-errors.js";
import { resolveRoot } from "../shared-options.js";
import { terminalField } from "../terminal-text.js";
import { terminalJson } from "../../format/terminal-json.js";

export function registerAgentsCommand(program: Command, context: CliContext): void {
  program
    .command("agents")
    .description(
      "list the agents `--agent` can start (built-in, yours in $SYLK_HOME/agents, the project's in .sylk/agents): their roles, tools and whether they may change files",
    )
    .option("--json", "print one JSON object")
    .action(async (options: { json?: boolean }) => {
      // Loaded when the command runs: the agent files' parser (zod, YAML) is not every command's start-up.
      const [{ loadCustomAgents }, { agentListings }] = await Promise.all([
        import("../../roles/custom-agents.js"),
        import("../../roles/agent-catalog.js"),
      ]);
      const paths = resolveProjectPaths(resolveRoot(context), context.env);
      const custom = loadCustomAgents({ sylkHome: paths.sylkHome, root: paths.root });
      const agents = agentListings(custom.agents);
      // A file that did not load is reported, not fatal: the others are listed (exit code 0).
      if (options.json) {
        context.stdout.write(`${terminalJson({ agents, errors: custom.errors })}\n`);
        return;
      }
      // A project's agent files name and describe its agents: every field is shown escaped.
      const name = (agent: (typeof agents)[number]) => terminalField(agent.name);
      const width = Math.max(...agents.map((agent) => name(agent).length));
      for (const agent of agents) {
        const access = agent.read_only
          ? "read-only"
          : agent.tools.some((tool) => tool === "edit_file" || tool === "run_command")
            ? "edits, commands"
            : "no edits";
        context.stdout.write(
          `${name(agent).padEnd(width)}  ${terminalField(agent.category).padEnd(10)} ${access.padEnd(16)} ${terminalField(agent.description)}\n`,
        );
        const origin = agent.path
          ? `  ${agent.source}: ${terminalField(agent.path)}${agent.model === "inherit" ? "" : ` · model ${terminalField(agent.model)}`}`
          : "";
        if (origin) context.stdout.write(`${" ".repeat(width)}${origin}\n`);
        context.stdout.write(`${" ".repeat(width)}  tools: ${terminalField(agent.tools.join(", "))}\n`);
      }
      context.stdout.write('\nStart one with `sylk --agent <name>` or `sylk ask --agent <name> "…"`.\n');
      warnAboutAgentFiles(custom.errors, context.stderr);
    });
}
