import { editFileTool } from "./edit-file.js";
import { globTool } from "./glob.js";
import { createGrepTool, type WaitedOn } from "./grep.js";
import type { GrepIndex } from "./grep-files.js";
import type { Ripgrep } from "./grep-ripgrep.js";
import type { GrepThread } from "./grep-thread.js";
import type { IndexConfig } from "../../config/schema.js";
import { listFilesTool } from "./list-files.js";
import { readFileTool } from "./read-file.js";
import { createRunCommandTool, type RunCommandDeps } from "./run-command.js";
import { createSearchCodebaseTool, type CodeSearcher } from "./search-codebase.js";
import type { ToolDefinition } from "./tool.js";
import { writeFileTool } from "./write-file.js";

export interface BuiltinToolDeps extends RunCommandDeps {
  codeSearcher: CodeSearcher;
  /** Where grep matches: the process's warm thread; one of its own when absent. */
  grepThread?: GrepThread;
  /** The project's files and full-text index, for grep; a walk per call when absent. */
  grepIndex?: GrepIndex;
  /** The project's index settings (the files grep reads); defaults when absent. */
  indexConfig?: IndexConfig;
  /** ripgrep, for grep to list the files where the index would have to check the disk first. */
  ripgrep?: Ripgrep | undefined;
  /** Counts each grep as work the user waits on (a first index in its own process pauses meanwhile). */
  foreground?: WaitedOn;
}

/** The tools every session has, in the order the model sees them. */
export function createBuiltinTools(deps: BuiltinToolDeps): ToolDefinition[] {
  return [
    readFileTool,
    listFilesTool,
    globTool,
    createGrepTool({
      ...(deps.grepThread ? { thread: deps.grepThread } : {}),
      ...(deps.grepIndex ? { index: deps.grepIndex } : {}),
      ...(deps.indexConfig ? { config: deps.indexConfig } : {}),
      ...(deps.ripgrep ? { ripgrep: deps.ripgrep } : {}),
      ...(deps.foreground ? { foreground: deps.foreground } : {}),
    }),
    createSearchCodebaseTool(deps.codeSearcher),
    editFileTool,
    writeFileTool,
    createRunCommandTool(deps),
  ];
}
