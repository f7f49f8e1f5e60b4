import * as z from "zod";
import { AGENT_TYPES } from "../../roles/agent-types.js";

/** A custom agent's type as its entries carry it (`custom:<name>`, the name as a custom agent file allows). */
const CUSTOM_AGENT_TYPE = /^custom:[a-z][a-z0-9-]{0,39}$/;

/** A tool's filter on the agent type that recorded an entry: a built-in type or `custom:<name>`. */
export function agentTypeInput() {
  return z
    .union([z.enum(AGENT_TYPES), z.string().regex(CUSTOM_AGENT_TYPE, "a built-in agent type or custom:<name>")])
    .optional()
    .describe(`Only entries recorded by this agent type (${AGENT_TYPES.join(", ")}, or custom:<name>).`);
}
