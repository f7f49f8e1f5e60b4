#!/usr/bin/env node
// The bundled CLI (scripts/bundle.mjs): start-up reads a few files instead of thousands.
import { main } from "../dist/bundle/main.js";

process.exitCode = await main(process.argv);
