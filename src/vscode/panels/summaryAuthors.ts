import type * as vscode from 'vscode';
import type { SummaryView } from '../../webview/protocol';

const KEY = 'arbor.summaryAuthors';
/** How many written summaries are remembered (the oldest are forgotten first). */
const MAX = 500;

interface Authored {
  author: string;
  summarizerNote?: string;
}

/**
 * Who wrote the summaries Arbor wrote (issue 34 item 5): a session entry records no summarizer, and one written
 * through a running Pi is marked by Pi as a hook's, so its panel would say "supplied by an extension or hook".
 * The panel remembers the summarizer of each summary it wrote, in VS Code's global state, so the entry's panel
 * names it later too: after a window reload, from a row click or Show Summary.
 */
export class SummaryAuthors {
  constructor(private readonly memento: vscode.Memento) {}

  /**
   * A written summary's view with its summarizer: remembered when the view names it (Apply's), else filled in from
   * what was remembered for the same file and entry.
   */
  follow(view: SummaryView): SummaryView {
    if (view.mode !== 'entry' || !view.entryId) return view;
    const key = `${view.file}\n${view.entryId}`;
    const known = this.read();
    if (view.author && view.author !== 'hook') {
      const entry: Authored = { author: view.author, ...(view.summarizerNote ? { summarizerNote: view.summarizerNote } : {}) };
      known.delete(key);
      known.set(key, entry);
      while (known.size > MAX) known.delete(known.keys().next().value as string);
      void this.memento.update(KEY, [...known]);
      return view;
    }
    const mine = known.get(key);
    if (!mine) return view;
    return { ...view, author: mine.author, ...(mine.summarizerNote && !view.usage ? { summarizerNote: mine.summarizerNote } : {}) };
  }

  private read(): Map<string, Authored> {
    const raw = this.memento.get<unknown>(KEY);
    const out = new Map<string, Authored>();
    if (!Array.isArray(raw)) return out;
    for (const item of raw) {
      if (!Array.isArray(item) || typeof item[0] !== 'string') continue;
      const v = item[1] as Partial<Authored> | undefined;
      if (typeof v?.author !== 'string') continue;
      out.set(item[0], { author: v.author, ...(typeof v.summarizerNote === 'string' ? { summarizerNote: v.summarizerNote } : {}) });
    }
    return out;
  }
}
