// Loaded with `node --import` before a command: every ES module the process
// resolves (the bundle's chunks, and packages such as web-tree-sitter) is
// appended to the file named by SYLK_TEST_MODULE_LOG, one URL a line.
import { register } from "node:module";

register("./record-module-loads-hooks.mjs", import.meta.url);
