import type { Command } from "commander";
import { ExitCode, type ExitCodeValue } from "../../errors.js";
import { terminalJson } from "../../format/terminal-json.js";
import type { CliContext } from "../cli-context.js";
import { resolveRoot } from "../shared-options.js";
import { terminalText } from "../terminal-text.js";

/** `sylk doctor`: whether Sylk can work well here (sandbox, Node, index, model, configuration), each finding with its fix. */
export function registerDoctorCommand(program: Command, context: CliContext, setExitCode: (code: ExitCodeValue) => void): void {
  program
    .command("doctor")
    .description("check the sandbox, Node, the index, the model and the configuration (exit 1 when a check fails)")
    .option("--json", "print one JSON object")
    .action(async (options: { json?: boolean }) => {
      // Loaded when the command runs: the other commands do not pay for this one's modules.
      const [{ doctorOfProject }, { doctorText }] = await Promise.all([
        import("../../app/project-doctor.js"),
        import("../../app/doctor.js"),
      ]);
      const report = await doctorOfProject({ root: resolveRoot(context), env: context.env });
      context.stdout.write(options.json ? `${terminalJson(report)}\n` : terminalText(`${doctorText(report)}\n`));
      if (!report.passed) setExitCode(ExitCode.General);
    });
}
