import * as vscode from 'vscode';
import { loadSession } from '../../engine/session/loadSession';
import type { NothingToCompact } from '../../engine/compaction/nothingToCompact';
import type { SessionIndex } from '../../engine/session/sessionIndex';
import type { SessionModel } from '../sessions/sessionModel';
import { log } from '../platform/logging';
import { compactabilitySentence, compactabilityShort } from '../../engine/compaction/nothingToCompact';

/** Whether Compact does something on a session now (issue 34 item 1): the engine's plan's answer, or not known yet. */
export type Compactability = { kind: 'can' } | { kind: 'nothing'; nothing: NothingToCompact };

/** Sessions not loaded by the store are read for their note only up to this size (a bigger one: once it is loaded). */
const UNLOADED_LIMIT_BYTES = 4 * 1024 * 1024;
/**
 * Loaded sessions get a note up to this size: the plan decides the file-operation hints of the whole path, which on a
 * 100 MB session reads its tool results; past it the row says nothing and Compact tells why when clicked.
 */
const LOADED_LIMIT_BYTES = 16 * 1024 * 1024;

/** Plans a session's compaction the way Compact does (commands/compactCheck.ts): undefined when there is something to compact. */
export type CompactabilityPlanner = (
  model: SessionModel,
  index: SessionIndex,
  signal: AbortSignal,
) => Promise<NothingToCompact | undefined>;

/**
 * The Sessions view's "can compact / why not" of each session row, kept per
 * session with what it was planned on (the loaded index's entry count and
 * leaf, else the file's size and time), planned one session at a time in
 * the background by Compact's own planner; a session the store has not
 * loaded is read for it (and the index dropped) only when small.
 */
export class CompactabilityNotes implements vscode.Disposable {
  private readonly notes = new Map<string, { stamp: string; value: Compactability | undefined }>();
  private readonly wanted = new Map<string, SessionModel>();
  private running = false;
  private readonly controller = new AbortController();
  private readonly changed = new vscode.EventEmitter<string>();
  /** Fires with a session file whose note changed. */
  readonly onDidChange = this.changed.event;

  constructor(private readonly planner: CompactabilityPlanner) {}

  dispose(): void {
    this.controller.abort();
    this.changed.dispose();
  }

  /** The note for a session row, or undefined while it is planned (the row is redrawn when it is known). */
  of(model: SessionModel): Compactability | undefined {
    const stamp = stampOf(model);
    const note = this.notes.get(model.file);
    if (note?.stamp === stamp) return note.value;
    if (model.index ? model.index.size > LOADED_LIMIT_BYTES : model.size > UNLOADED_LIMIT_BYTES) return undefined;
    this.wanted.set(model.file, model);
    void this.drain();
    return note?.value?.kind === 'nothing' && note.value.nothing.why.kind === 'readOnly' ? note.value : undefined;
  }

  private async drain(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      for (let next = this.wanted.values().next(); !next.done; next = this.wanted.values().next()) {
        const model = next.value;
        this.wanted.delete(model.file);
        const stamp = stampOf(model);
        if (this.notes.get(model.file)?.stamp === stamp || this.controller.signal.aborted) continue;
        try {
          const index = model.index ?? (await loadSession(model.file, { signal: this.controller.signal }));
          const nothing = await this.planner(model, index, this.controller.signal);
          this.notes.set(model.file, { stamp, value: nothing ? { kind: 'nothing', nothing } : { kind: 'can' } });
          this.changed.fire(model.file);
        } catch (err) {
          // No note: Compact itself reports what is wrong (invalid settings, an unreadable file) when clicked.
          if (this.controller.signal.aborted) return;
          log().info(`compactability of ${model.file}: ${err instanceof Error ? err.message : String(err)}`);
          this.notes.set(model.file, { stamp, value: undefined });
        }
      }
    } finally {
      this.running = false;
    }
  }
}

/** What a note was planned on: the loaded index's entries and leaf, else the file as listed. */
function stampOf(model: SessionModel): string {
  const index = model.index;
  return index ? `i${index.entryCount}:${index.leafIndex}:${index.size}` : `f${model.size}:${model.mtimeMs}`;
}

/** A session row with its note: a few words in the description, the sentence in the tooltip, a flag in the context value. */
export function withCompactability(item: vscode.TreeItem, note: Compactability | undefined): vscode.TreeItem {
  if (!note) return item;
  const why = note.kind === 'nothing' ? note.nothing.why : undefined;
  const short = compactabilityShort(why);
  item.description = item.description ? `${String(item.description)} · ${short}` : short;
  if (item.tooltip instanceof vscode.MarkdownString) {
    item.tooltip.appendMarkdown('\n\n');
    item.tooltip.appendText(compactabilitySentence(why));
  }
  item.contextValue = `${item.contextValue ?? ''}:${why ? `nocompact-${why.kind}` : 'compactable'}`;
  return item;
}
