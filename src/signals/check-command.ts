/**
 * A command that checks the work (a build, a test run, a type check or a
 * linter): one that fails after an edit means the edit broke something.
 */
const CHECK_COMMAND =
  /(?:^|[;&|]\s*|\s)(?:npm\s+(?:run\s+)?(?:test|build|lint|typecheck|check)\b|pnpm\s+(?:run\s+)?(?:test|build|lint|typecheck)\b|yarn\s+(?:test|build|lint|typecheck)\b|npx\s+(?:vitest|jest|tsc|eslint|biome)\b|vitest\b|jest\b|tsc\b|eslint\b|cargo\s+(?:test|build|check|clippy)\b|go\s+(?:test|build|vet)\b|pytest\b|python3?\s+-m\s+(?:pytest|unittest|mypy)\b|mypy\b|ruff\b|make\b|gradle\w*\s+(?:test|build|check)\b|mvn\s+(?:test|verify|package)\b|dotnet\s+(?:test|build)\b|bundle\s+exec\s+rspec\b|rspec\b|swift\s+(?:test|build)\b)/;

export function isCheckCommand(command: string): boolean {
  return CHECK_COMMAND.test(command);
}
