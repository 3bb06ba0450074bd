/**
 * The part of Pi's extension API the bridge uses (Pi 1.6: docs/extensions.md
 * of @earendil-works/pi-coding-agent), declared structurally so the bridge
 * compiles and bundles without Pi's packages: at run time Pi hands these
 * objects in.
 */

export interface PiEntry {
  type: string;
  id: string;
  parentId: string | null;
  /** compaction and branch_summary entries: the text Pi wrote. */
  summary?: unknown;
}

export interface PiSessionManager {
  getSessionFile(): string | undefined;
  getSessionId(): string;
  getCwd(): string;
  getLeafId(): string | null;
  getEntry(id: string): PiEntry | undefined;
  getEntries(): PiEntry[];
  /** The entries from the root to the leaf (Pi's current branch). */
  getBranch?(): PiEntry[];
}

/** A model as Pi holds it (pi-ai's Model: more fields than these, handed back to Pi's functions as they are). */
export interface PiModel {
  provider: string;
  id: string;
}

/** Pi's model registry as extensions see it (Pi 1.6): request-time authentication stays inside it. */
export interface PiModelRegistry {
  getApiKeyAndHeaders?(
    model: PiModel,
  ): Promise<{ ok: true; apiKey?: string; headers?: Record<string, string>; env?: Record<string, string> } | { ok: false; error: string }>;
  streamSimple?(model: PiModel, context: unknown, options?: unknown): unknown;
}

export interface PiContextUsage {
  tokens: number | null;
  contextWindow: number;
  percent: number | null;
}

export interface PiUi {
  notify(message: string, type?: 'info' | 'warning' | 'error'): void;
  setEditorText?(text: string): void;
}

export interface PiContext {
  sessionManager: PiSessionManager;
  model: PiModel | undefined;
  /** The model's effective thinking level (Pi 1.6). */
  thinkingLevel?: string;
  modelRegistry?: PiModelRegistry;
  hasUI: boolean;
  ui: PiUi;
  isIdle(): boolean;
  getContextUsage(): PiContextUsage | undefined;
  compact(options?: { customInstructions?: string; onComplete?: (result: unknown) => void; onError?: (error: Error) => void }): void;
}

export interface PiCommandContext extends PiContext {
  waitForIdle(): Promise<void>;
  navigateTree(
    targetId: string,
    options?: { summarize?: boolean; customInstructions?: string; replaceInstructions?: boolean; label?: string },
  ): Promise<{ cancelled: boolean; editorText?: string; summaryEntry?: PiEntry }>;
}

export interface CompactionPreparation {
  firstKeptEntryId: string;
  tokensBefore: number;
}

export interface SessionBeforeCompactEvent {
  preparation: CompactionPreparation;
  branchEntries: PiEntry[];
  reason: string;
  customInstructions?: string;
  /** Aborts Pi's compaction (pass it to the model call). */
  signal?: AbortSignal;
}

export interface SessionBeforeTreeEvent {
  preparation: { targetId: string; oldLeafId: string | null; userWantsSummary: boolean };
}

export interface PiApi {
  on(event: 'session_start', handler: (event: { reason?: string }, ctx: PiContext) => unknown): void;
  on(event: 'session_shutdown', handler: (event: { reason?: string }, ctx: PiContext) => unknown): void;
  on(event: 'session_before_compact', handler: (event: SessionBeforeCompactEvent, ctx: PiContext) => unknown): void;
  on(event: 'session_compact', handler: (event: { compactionEntry: PiEntry; fromExtension: boolean }, ctx: PiContext) => unknown): void;
  on(event: 'session_before_tree', handler: (event: SessionBeforeTreeEvent, ctx: PiContext) => unknown): void;
  on(event: 'agent_settled', handler: (event: unknown, ctx: PiContext) => unknown): void;
  registerCommand(
    name: string,
    options: { description?: string; handler: (args: string, ctx: PiCommandContext) => Promise<void> | void },
  ): void;
  sendUserMessage(content: string, options?: { expandPromptTemplates?: boolean; deliverAs?: 'steer' | 'followUp' }): void;
  setLabel(entryId: string, label: string | undefined): void;
  /** A copy of Pi's effective settings (global and, when the project is trusted, project settings merged). */
  getSettings?(): unknown;
  appendEntry(customType: string, data?: unknown): void;
}
