import type { PermissionMode } from "../../agent/permissions/permission-modes.js";
import type { BackgroundIndexing } from "../../app/background-indexing.js";
import type { ScreenReadModel } from "../../app/screen-read-model.js";
import type { AgentSession } from "../../app/session/open-agent-session.js";
import type { AgentControls } from "../hooks/use-agent.js";
import type { TranscriptEntry } from "../transcript.js";
import type { SlashCommandMenu } from "./command-list.js";

/** What the slash commands may touch: narrow on purpose. */
export interface SlashCommandContext {
  project: ScreenReadModel;
  agent: Pick<AgentControls, "print" | "clear" | "switchSession" | "session" | "state" | "submit">;
  indexing: Pick<BackgroundIndexing, "refreshNow" | "snapshot">;
  /** Erases the terminal (scrollback included) before a new session. */
  clearScreen(): void;
  /** The banner a cleared screen starts with. */
  banner(): TranscriptEntry;
  /** `/model <name>`: the conversation goes on with another model; returns the session it continues in. */
  switchModel(model: string): AgentSession;
  /** The mode the session started in, and a change of mode as Shift+Tab makes it (the status line follows). */
  permissionMode: { initial: PermissionMode; set(mode: PermissionMode): void };
  exit(): void;
  /** The commands offered: the built-ins and those of the menu's sources. */
  menu: SlashCommandMenu;
}
