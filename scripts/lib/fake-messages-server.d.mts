// Types of scripts/lib/fake-messages-server.mjs (plain JS, run by node without a build), for the tests' typed wrapper.

export type PlannedBlock = { type: "text"; text: string } | { type: "tool_use"; id: string; name: string; input: unknown };

export interface PlannedUsage {
  input_tokens?: number;
  output_tokens?: number;
  cache_creation_input_tokens?: number;
  cache_read_input_tokens?: number;
}

/** What one `POST /v1/messages` gets; see the module's opening comment. */
export interface PlannedStep {
  blocks?: readonly PlannedBlock[];
  stopReason?: string;
  stopSequence?: string;
  model?: string;
  usage?: PlannedUsage;
  textChunk?: number;
  jsonChunk?: number;
  delayMs?: number;
  eventDelayMs?: number;
  cutAfter?: number;
  cutMidEvent?: boolean;
  malformedAt?: number;
  stallAt?: number;
  afterEvent?: (index: number, total: number) => void;
  status?: number;
  errorType?: string;
  message?: string;
  headers?: Record<string, string>;
  hang?: boolean;
  dropConnection?: boolean;
}

export interface LoggedRequest {
  /** The request target, query string included. */
  path: string;
  method: string;
  headers: Record<string, string | string[] | undefined>;
  /** Parsed JSON, the raw text when it was not JSON, undefined when empty. */
  body: unknown;
}

export interface MessagesRequest {
  number: number;
  body: unknown;
  headers: Record<string, string | string[] | undefined>;
  invalid: string | undefined;
}

export interface FakeMessagesServer {
  baseUrl: string;
  requests: MessagesRequest[];
  log: LoggedRequest[];
  timings: Array<{ route: string; receivedAt: number; finishedAt?: number }>;
  readonly count: number;
  close(): Promise<void>;
}

export function startFakeMessagesServer(options: {
  plan: (body: unknown, number: number) => PlannedStep | undefined;
  /** What `POST /v1/messages/count_tokens` answers instead of a count (a status, a hang, a delay); undefined counts. */
  countTokens?: (body: unknown, headers: Record<string, string | string[] | undefined>) => PlannedStep | undefined;
  refuseUnpairedToolUse?: boolean;
}): Promise<FakeMessagesServer>;

export function conversationProblem(messages: unknown): string | undefined;
export function estimateTokens(body: unknown): number;
