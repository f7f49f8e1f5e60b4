import { existsSync } from "node:fs";
import type { Command } from "commander";
import { resolveProjectPaths } from "../../project/project-paths.js";
import type { CliContext } from "../cli-context.js";
import { printOpeningWarnings } from "../opening-warnings.js";
import { pipelineLine, sessionLine, subAgentLine } from "../../format/session-lines.js";
import { parsePositiveInteger, resolveRoot } from "../shared-options.js";
import { terminalJson } from "../../format/terminal-json.js";
import { usageJson } from "../stream-json.js";

export function registerSessionsCommand(program: Command, context: CliContext): void {
  program
    .command("sessions")
    .description("list this project's sessions, newest first (resume one with sylk ask --resume <id>)")
    .option("-n, --limit <n>", "how many", parsePositiveInteger, 20)
    .option("--json", "print one JSON object")
    .action(async (options: { limit: number; json?: boolean }) => {
      const paths = resolveProjectPaths(resolveRoot(context), context.env);
      if (!existsSync(paths.database)) {
        context.stdout.write(options.json ? `${terminalJson({ sessions: [] })}\n` : "No sessions yet.\n");
        return;
      }
      // Loaded when the command runs: `sylk search` and the others do not pay for this one's modules.
      const { openProject } = await import("../../app/project-services.js");
      const services = openProject({ root: paths.root, env: context.env });
      printOpeningWarnings(services, context.stderr);
      try {
        const sessions = services.sessions.list(options.limit);
        const chains = new Map(sessions.map((session) => [session.id, services.handoffs.instances(session.id)]));
        const trees = new Map(sessions.map((session) => [session.id, services.sessions.descendants(session.id)]));
        const pipelines = new Map(sessions.map((session) => [session.id, services.pipelines.listForSession(session.id)]));
        if (options.json) {
          const withChains = sessions.map((session) => ({
            ...session,
            instances: (chains.get(session.id) ?? []).map((instance) => ({
              agent_id: instance.agentId,
              agent_type: instance.agentType,
              model: instance.model,
              handoff_index: instance.handoffIndex,
              started_at: instance.startedAt,
              ended_at: instance.endedAt,
              end_reason: instance.endReason,
            })),
            pipelines: (pipelines.get(session.id) ?? []).map((pipeline) => ({
              pipeline_id: pipeline.id,
              task: pipeline.task,
              status: pipeline.status,
              stop_reason: pipeline.stopReason,
              stages: pipeline.stages.map((stage) => ({
                ordinal: stage.ordinal,
                stage: stage.stage,
                round: stage.round,
                agent_id: stage.agentId,
                agent_type: stage.agentType,
                session_id: stage.childSessionId,
                status: stage.status,
                state_entry_id: stage.stateEntryId,
              })),
            })),
            subagents: (trees.get(session.id) ?? []).map((child) => ({
              session_id: child.id,
              parent_session_id: child.parentSessionId,
              agent_id: child.agentId,
              agent_type: child.agentType,
              kind: child.kind,
              turns: child.turns,
              usage: usageJson(child.usage),
            })),
          }));
          context.stdout.write(`${terminalJson({ sessions: withChains })}\n`);
          return;
        }
        if (sessions.length === 0) {
          context.stdout.write("No sessions yet.\n");
          return;
        }
        for (const session of sessions) {
          context.stdout.write(
            `${sessionLine(
              session,
              (chains.get(session.id) ?? []).map((instance) => instance.agentId),
            )}\n`,
          );
          for (const pipeline of pipelines.get(session.id) ?? []) context.stdout.write(`${pipelineLine(pipeline)}\n`);
          for (const child of trees.get(session.id) ?? []) context.stdout.write(`${subAgentLine(child)}\n`);
        }
      } finally {
        await services.close();
      }
    });
}
