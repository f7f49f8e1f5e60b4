import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { PermissionMode } from "../agent/permissions/permission-policy.js";
import type { SandboxStatus } from "../agent/sandbox/command-sandbox.js";
import { ContextRetriever, type RetrievalResult } from "../context/context-retriever.js";
import type { ConsentStore } from "../project/consent.js";
import { PromptNumbers } from "../format/prompt-numbers.js";
import type { ContextReference } from "../store/content-types.js";
import type { FullTextIndexDamage } from "../store/snapshot-damage.js";
import { projectFacts, renderAgentsFile } from "./agents-file.js";
import { projectConfigReport } from "./config-report.js";
import type { DoctorIndexState, DoctorReport } from "./doctor.js";
import { notedDamage } from "./index-health.js";
import { doctorOfSession } from "./project-doctor.js";
import type { SessionRecord } from "../store/session-repository.js";
import { parseMemoryRequest, runMemoryRequest } from "../knowledge/session/memory-commands.js";
import { type CustomCommands, loadCustomCommands } from "../commands/custom-commands.js";
import type { ProjectServices } from "./project-services.js";
import { searchProject, type SearchResponseJson } from "./project-search.js";
import { replaySession, type ReplayItem } from "./session-replay.js";

/** A session as `/sessions` lists it: its record and the agents of its handoff chain, first to last. */
export interface ListedSession {
  session: SessionRecord;
  chain: string[];
}

/** Where a conversation stopped, for a resumed one: its title, prompts and its last items as the user saw them. */
export interface SessionRecap {
  title: string;
  prompts: number;
  items: ReplayItem[];
}

/** What a session cost: its own record and its sub-agents' sessions. */
export interface SessionCost {
  session: SessionRecord;
  subAgents: SessionRecord[];
}

/** A reference and the content it stands for, as far as the budget allows. */
export interface RetrievedReference {
  reference: ContextReference;
  result: RetrievalResult;
}

/**
 * What the screen reads of the project: sessions, recaps, costs, context
 * references, pending questions, code search and `/memory`. The screen gets
 * this instead of the project's services, so it never holds a repository
 * or the database; each answer is a plain value.
 */
export interface ScreenReadModel {
  root: string;
  database: string;
  /** The settings the screen starts from or shows. */
  settings: { permissionMode: PermissionMode; maxFileSize: number; windowTokens: number | undefined };
  /** Whether the project may be indexed: asked once, then remembered. */
  consent: ConsentStore;
  sessions(limit: number): ListedSession[];
  /** The session's title and prompts, and its last `lastItems` items as the user lived them. */
  recap(sessionId: string, lastItems: number): SessionRecap | undefined;
  /** How the session's turns (model calls) map to the prompts the user counts. */
  promptNumbers(sessionId: string): PromptNumbers;
  cost(sessionId: string): SessionCost | undefined;
  /** The session's context references, in the order they were made. */
  references(sessionId: string): ContextReference[];
  /** Fails with a message for the user when there is no such reference. */
  retrieve(refId: string, maxTokens: number): Promise<RetrievedReference>;
  pendingQuestions(): number;
  searchCode(query: string, k: number): Promise<SearchResponseJson>;
  /**
   * `/memory …`, as `sylk memory …` runs it: a listing or search reads,
   * `add`, `rm` and `answer` change what is kept. Returns the lines to show.
   */
  memory(argument: string): string[];
  /** Full-text snapshots found damaged in this process (not read again to ask): they are rebuilt from the stored terms by `sylk index`. */
  indexDamage(): FullTextIndexDamage[];
  /**
   * `/init`: an AGENTS.md from the index, offline. Written only where the
   * project has none (never over one, even one made meanwhile); the text
   * is returned either way.
   */
  initAgentsFile(): { path: string; written: boolean; text: string };
  /** `/config`: the settings that matter, where each came from, the files read and how to change them. */
  configuration(): string[];
  /** `/doctor`: `sylk doctor`'s checks, on the index and sandbox as the session sees them. */
  doctor(session: { index: DoctorIndexState; sandbox: SandboxStatus }): Promise<DoctorReport>;
  /** The custom slash commands of the user and the project, read now, and the files that did not load. */
  customCommands(): CustomCommands;
}

export function createScreenReadModel(services: ProjectServices, env: NodeJS.ProcessEnv): ScreenReadModel {
  const { config } = services.loadedConfig;
  const retriever = new ContextRetriever(services.contentStore);
  return {
    root: services.paths.root,
    database: services.paths.database,
    settings: { permissionMode: config.permissions.mode, maxFileSize: config.index.maxFileSize, windowTokens: config.context.windowTokens },
    consent: services.consent,
    sessions: (limit) =>
      services.sessions
        .list(limit)
        .map((session) => ({ session, chain: services.handoffs.instances(session.id).map((instance) => instance.agentId) })),
    recap(sessionId, lastItems) {
      const session = services.sessions.get(sessionId);
      return session ? { title: session.title, prompts: session.prompts, items: replaySession(services, sessionId, lastItems) } : undefined;
    },
    promptNumbers: (sessionId) => new PromptNumbers(services.sessions.promptTurns(sessionId)),
    cost(sessionId) {
      const session = services.sessions.get(sessionId);
      return session ? { session, subAgents: services.sessions.descendants(sessionId) } : undefined;
    },
    references: (sessionId) => services.contentStore.listReferences(sessionId),
    async retrieve(refId, maxTokens) {
      const result = await retriever.retrieve({ refId, maxTokens });
      // The retriever has just found it.
      const reference = services.contentStore.getReference(refId) as ContextReference;
      return { reference, result };
    },
    pendingQuestions: () => services.inquiries.countPending(),
    searchCode: (query, k) => searchProject(services, query, { k, scope: "code" }),
    memory: (argument) => runMemoryRequest(services, parseMemoryRequest(argument ? argument.split(/\s+/) : [])).lines,
    indexDamage: () => notedDamage(services),
    doctor: (session) => doctorOfSession(services, env, session),
    customCommands: () => loadCustomCommands({ sylkHome: services.paths.sylkHome, root: services.paths.root }),
    initAgentsFile() {
      const path = join(services.paths.root, "AGENTS.md");
      const text = renderAgentsFile(
        projectFacts(services.paths.root, { languages: services.files.languageCounts(), paths: services.files.indexedPaths() }),
      );
      try {
        writeFileSync(path, text, { flag: "wx" });
        return { path, written: true, text };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "EEXIST") return { path, written: false, text };
        throw error;
      }
    },
    configuration: () => projectConfigReport(services.loadedConfig, services.paths.root, env),
  };
}
