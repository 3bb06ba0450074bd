import type { SessionIndex } from '../../engine/session/sessionIndex';
import type { SessionPeek } from '../../engine/tree/sessionPeek';
import { peekSession, peekTitleFacts } from '../../engine/tree/sessionPeek';
import { baseTitle, sessionTitles, type SessionTitle, type TitleFacts } from '../../engine/tree/sessionTitle';
import { PAGE_SIZE } from '../../engine/tree/pages';
import { SessionLayout } from '../../engine/tree/layout';
import { loadTailPreview } from '../../engine/session/tailPreview';
import { log } from '../platform/logging';
import type { AgentKind } from '../../engine/session/agents/agentKind';

/** What the extension holds of one listed session (sessionStore.ts keeps them), and the rules that fill it in. */

export interface SessionModel {
  file: string;
  /** 'workspace': found in Pi's sessions folder for an open folder; 'opened': added by the user. */
  source: 'workspace' | 'opened';
  id: string;
  cwd: string;
  timestamp: string;
  mtimeMs: number;
  size: number;
  /** Session name (session_info) or first user message (engine/tree/sessionTitle.ts); `titles()` tells equal ones apart. */
  title: string | undefined;
  /** What the title rule reads: from the loaded index, else from the peek. */
  titleFacts: TitleFacts | undefined;
  /** What a bounded read of the file says (name, first message, last activity, entry count): see sessionPeek.ts. */
  peek: SessionPeek | undefined;
  index: SessionIndex | undefined;
  layout: SessionLayout | undefined;
  /**
   * While a large session is being indexed: its end, indexed first, for the
   * tree to show (see loadForTree). Never used to write or to plan.
   */
  preview: { index: SessionIndex; layout: SessionLayout } | undefined;
  error: string | undefined;
  /** When another process last appended to the file (ms since epoch). */
  lastExternalWriteAt: number | undefined;
  /** The agent that wrote it (from the listing, the peek or the index): only Pi's sessions are written (engine/session/agents/readOnly.ts). */
  agent: AgentKind;
}

/** Sessions from this size on are previewed while they load (smaller ones load in tens of ms). */
export const PREVIEW_MIN_BYTES = 8 * 1024 * 1024;
/** How much of the end to preview: a second, larger try when the first holds less than a page of the active path. */
const PREVIEW_BYTES = [4 * 1024 * 1024, 16 * 1024 * 1024];

/** Whether a preview holds what the tree shows first: a full page of the active path, or all of it. */
function previewCovers(layout: SessionLayout): boolean {
  const main = layout.mainLine;
  if (main.length > PAGE_SIZE) return true;
  return main.length > 0 && layout.index.record(main[0]).parentId === null;
}

/** A listed session not read yet: what the listing knows. */
export function newSessionModel(
  file: string,
  source: SessionModel['source'],
  info: Partial<Pick<SessionModel, 'id' | 'cwd' | 'timestamp' | 'mtimeMs' | 'size' | 'agent'>>,
): SessionModel {
  return {
    file,
    source,
    id: info.id ?? '',
    cwd: info.cwd ?? '',
    timestamp: info.timestamp ?? '',
    mtimeMs: info.mtimeMs ?? 0,
    size: info.size ?? 0,
    title: undefined,
    titleFacts: undefined,
    peek: undefined,
    index: undefined,
    layout: undefined,
    preview: undefined,
    error: undefined,
    // Not from the modification time: a file copied or written a moment ago by a script is not live. Bytes arriving are.
    lastExternalWriteAt: undefined,
    agent: info.agent ?? 'pi',
  };
}

/** Every listed session's title, told apart from the others with the same title (one rule: engine/tree/sessionTitle.ts). */
export function listTitles(models: readonly SessionModel[]): Map<string, SessionTitle> {
  const titles = sessionTitles(
    models.map(
      (m) =>
        m.titleFacts ?? {
          name: undefined,
          firstRequest: m.title,
          latestRequest: undefined,
          startedMs: Date.parse(m.timestamp) || undefined,
        },
    ),
  );
  return new Map(models.map((m, k) => [m.file, titles[k]]));
}

/** Takes what a bounded read of the file says into a model (the title only while the session is not indexed). */
export function applyPeek(model: SessionModel, peek: SessionPeek): void {
  model.peek = peek;
  model.agent = peek.agent;
  model.id ||= peek.id;
  model.cwd ||= peek.cwd;
  if (!model.timestamp && peek.startedMs !== undefined) model.timestamp = new Date(peek.startedMs).toISOString();
  if (!model.index) {
    model.titleFacts = peekTitleFacts(peek);
    model.title = baseTitle(model.titleFacts);
  }
}

/**
 * The end of a large session, indexed first for the tree to show while the whole file is indexed: a
 * bigger end when the first holds less than a page of the active path; undefined once the full index
 * (`fullDone`) is there first, or when no end read covers what the tree shows first.
 */
export async function previewWhileLoading(
  model: SessionModel,
  fullDone: Promise<undefined>,
): Promise<{ index: SessionIndex; layout: SessionLayout } | undefined> {
  for (const bytes of PREVIEW_BYTES) {
    const preview = loadTailPreview(model.file, { bytes }).catch((err) => {
      log().debug(`preview of ${model.file} failed: ${String(err)}`);
      return undefined;
    });
    const first = await Promise.race([fullDone, preview]);
    if (!first || model.index) return undefined;
    const layout = new SessionLayout(first);
    if (previewCovers(layout)) {
      log().debug(
        `previewing ${model.file}: ${first.entryCount} entries of the last ${(bytes / 1048576).toFixed(0)} MB while it is indexed`,
      );
      return { index: first, layout };
    }
  }
  return undefined;
}

/** Reads the bounded peek of a session's file into its model (no peek when the file cannot be read). */
export async function peekInto(model: SessionModel): Promise<void> {
  try {
    applyPeek(model, await peekSession(model.file));
  } catch {
    model.peek = undefined;
  }
}
