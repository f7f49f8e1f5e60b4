/** `count` small TypeScript modules under `src/`: enough of them and a first index outlasts several progress redraws. */
export function manyFiles(count: number): Record<string, string> {
  const files: Record<string, string> = {};
  for (let index = 0; index < count; index++) {
    files[`src/module-${index}.ts`] = `export function handler${index}(input: number) {\n  return input * ${index};\n}\n`;
  }
  return files;
}

/** The indexing progress line as the TUI draws it. */
export const PROGRESS = /Indexing \[[█░]{20}\] \d+% - Indexed [\d,]+ \/ [\d,]+ files \([\d,]+ files\/s\)/;
