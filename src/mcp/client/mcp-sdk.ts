/**
 * The parts of the MCP SDK a connection uses, in one module that
 * `ServerConnection` loads when a server starts: the SDK (its client, its
 * transports, their zod schemas) costs start-up time that a session with no
 * server configured should not pay.
 */
export { Client } from "@modelcontextprotocol/sdk/client/index.js";
export { SSEClientTransport, SseError } from "@modelcontextprotocol/sdk/client/sse.js";
export { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
export { PromptListChangedNotificationSchema, ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
export { ProcessGroupTransport } from "./process-group-transport.js";
