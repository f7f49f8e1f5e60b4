import { FileTooLargeError, NotRegularFileError, readRegularFile } from "../../files/regular-file.js";
import { ToolError } from "./tool.js";

/**
 * A project file's bytes for a tool, read without ever blocking (see
 * `readRegularFile`), or undefined when nothing is there. Anything but a
 * regular file, and a file above `maxBytes`, is a `ToolError` saying what
 * it is and what to do instead.
 */
export function readProjectFile(real: string, requested: string, options: { maxBytes?: number } = {}): Buffer | undefined {
  try {
    return readRegularFile(real, options);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return undefined;
    throw asToolError(error, requested);
  }
}

/** The reader's refusals in words the model can act on; anything else unchanged. */
function asToolError(error: unknown, requested: string): unknown {
  if (error instanceof NotRegularFileError) {
    if (error.kind === "a directory")
      return new ToolError(`${requested} is a directory, not a file. Use list_files with path "${requested}" to see its files.`);
    return new ToolError(
      `${requested} is ${error.kind}, not a regular file. Sylk reads only regular files: reading a pipe, socket or device can wait forever. Leave it alone or ask the user about it.`,
    );
  }
  if (error instanceof FileTooLargeError) {
    return new ToolError(`${requested} is too large to read (${error.size} bytes). Use grep to find the lines you need.`);
  }
  return error;
}
