import { existsSync } from "node:fs";
import type { Command } from "commander";
import { resolveProjectPaths } from "../../project/project-paths.js";
import type { CliContext } from "../cli-context.js";
import { printOpeningWarnings } from "../opening-warnings.js";
import { resolveRoot } from "../shared-options.js";
import { terminalText } from "../terminal-text.js";
import { terminalJson } from "../../format/terminal-json.js";

export function registerLearningCommand(program: Command, context: CliContext): void {
  program
    .command("learning")
    .description("show what self-tuning retrieval learned in this project (--reset forgets it)")
    .option("--json", "print one JSON object")
    .option("--reset", "forget what was learned: this project's state and log, and your retrieval profile")
    .action(async (options: { json?: boolean; reset?: boolean }) => {
      const paths = resolveProjectPaths(resolveRoot(context), context.env);
      // Loaded when the command runs: `sylk search` and the others do not pay for this one's modules.
      const [{ openProject }, { RetrievalLearning }, { retrievalLearningDeps }, { learningJson, learningLines }, { UserProfiles }] =
        await Promise.all([
          import("../../app/project-services.js"),
          import("../../learning/session/retrieval-learning.js"),
          import("../../learning/session/session-retrieval-learning.js"),
          import("../../learning/session/retrieval-learning-report.js"),
          import("../../app/user-profiles.js"),
        ]);
      const userProfiles = new UserProfiles(paths.sylkHome);
      if (!existsSync(paths.database)) {
        if (options.reset) userProfiles.get()?.clearUserWeightProfile();
        userProfiles.close();
        context.stdout.write(
          options.reset
            ? "Nothing learned in this project yet; your retrieval profile was reset.\n"
            : "Nothing learned yet: this project has no index or sessions.\n",
        );
        return;
      }
      const services = openProject({ root: paths.root, env: context.env });
      printOpeningWarnings(services, context.stderr);
      try {
        const { config } = services.loadedConfig;
        const reports: string[] = [];
        const deps = retrievalLearningDeps(services, config, userProfiles.get(), (message) => reports.push(message));
        if (options.reset) {
          RetrievalLearning.reset(deps);
          context.stdout.write(
            "Forgot what self-tuning retrieval learned in this project, and your retrieval profile: prompts start from the priors again.\n",
          );
          return;
        }
        const summary = RetrievalLearning.open(deps).summary();
        for (const message of reports) context.stderr.write(`sylk: ${terminalText(message)}\n`);
        if (options.json) {
          context.stdout.write(`${terminalJson({ enabled: config.learning.enabled, ...learningJson(summary) })}\n`);
          return;
        }
        if (!config.learning.enabled)
          context.stdout.write("Learning is off (learning.enabled: false): each prompt gets the starting settings.\n");
        context.stdout.write(`${terminalText(learningLines(summary).join("\n"))}\n`);
      } finally {
        userProfiles.close();
        await services.close();
      }
    });
}
