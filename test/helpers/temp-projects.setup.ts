import { afterAll } from "vitest";
import { cleanUpTempProjects } from "./temp-project.js";

// Registered before the test file's own hooks, so (after-hooks running in reverse) it runs after them: an app or
// server a file stops in its `afterAll` is stopped before its project's directory goes.
afterAll(cleanUpTempProjects);
