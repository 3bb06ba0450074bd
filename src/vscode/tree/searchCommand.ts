import * as vscode from 'vscode';
import type { ArborServices } from '../services';
import { searchSession, type SearchHit } from '../../engine/search/searchSession';
import { titleLine } from '../../engine/tree/sessionTitle';
import { log } from '../platform/logging';
import { SHOW_ENTRY_COMMAND, sessionsByActivity } from './treeItems';

interface HitPick extends vscode.QuickPickItem {
  /** Undefined on the "No matches" row. */
  hit: SearchHit | undefined;
}

const FIELD_ICONS: Record<string, string> = {
  message: 'comment',
  thinking: 'lightbulb',
  'tool call': 'tools',
  'tool result': 'output',
  shell: 'terminal',
  summary: 'note',
  label: 'tag',
  'session name': 'info',
};

/** Hits shown at most per search. */
const MAX_HITS = 500;
/** Typing pause before a search starts (ms). */
const DEBOUNCE_MS = 200;

/**
 * Arbor: Search in Session / Search in All Sessions: a QuickPick whose
 * results stream in while the file(s) are scanned (progress in its title);
 * picking a result reveals its row in the tree and opens the entry.
 * Resolves with the picked hit (for tests), or undefined.
 */
export async function searchCommand(
  arbor: ArborServices,
  scope: 'session' | 'all',
  target?: unknown,
  initialQuery?: string,
): Promise<SearchHit | undefined> {
  let files: { file: string; title: string }[];
  if (scope === 'session') {
    const model = await arbor.resolveSession(target);
    if (!model) return undefined;
    files = [
      {
        file: model.file,
        title: titleLine(arbor.store.titles().get(model.file) ?? { title: model.title, differs: undefined }, model.file),
      },
    ];
  } else {
    if (!arbor.store.isListed) await arbor.store.refreshList();
    const titles = arbor.store.titles();
    // In the Sessions view's order (newest activity first), each named by its whole title and what tells it apart.
    files = sessionsByActivity(arbor.store.list()).map((m) => ({
      file: m.file,
      title: titleLine(titles.get(m.file) ?? { title: m.title, differs: undefined }, m.file),
    }));
  }
  const qp = vscode.window.createQuickPick<HitPick>();
  const baseTitle = scope === 'session' ? `Search in "${files[0]?.title ?? ''}"` : `Search in ${files.length} sessions`;
  qp.title = baseTitle;
  qp.placeholder = 'Text in messages, tool calls and results, summaries, labels (case-insensitive)';
  qp.matchOnDescription = true;
  qp.matchOnDetail = true;
  // Each session's separator stays above its hits while the typed text filters (VS Code hides separators then unless the
  // list keeps its order: the QuickPick's sortByLabel, in VS Code's extension host though not yet in its typings).
  Object.assign(qp, { sortByLabel: false });
  let controller: AbortController | undefined;
  let timer: NodeJS.Timeout | undefined;

  const run = (query: string) => {
    controller?.abort();
    const mine = (controller = new AbortController());
    const items: HitPick[] = [];
    qp.items = [];
    if (!query.trim()) {
      qp.busy = false;
      qp.title = baseTitle;
      return;
    }
    qp.busy = true;
    let flush: NodeJS.Timeout | undefined;
    const show = () => {
      flush = undefined;
      if (!mine.signal.aborted) qp.items = [...items];
    };
    void (async () => {
      const started = performance.now();
      let total = 0;
      let found = 0;
      for (let k = 0; k < files.length && !mine.signal.aborted && total < MAX_HITS; k++) {
        const { file, title } = files[k];
        try {
          const r = await searchSession(file, {
            query,
            signal: mine.signal,
            maxHits: MAX_HITS - total,
            onHit: (hit) => {
              // Hits grouped by session: a separator with the session's whole title before its first hit.
              if (scope === 'all' && found === total)
                items.push({ label: title, kind: vscode.QuickPickItemKind.Separator, hit: undefined });
              found++;
              items.push({
                // alwaysShow: the QuickPick's own fuzzy filter must not hide what the scan found.
                alwaysShow: true,
                label: `$(${FIELD_ICONS[hit.field] ?? 'search'}) ${hit.snippet}`,
                description: hit.field,
                detail: `line ${hit.line} · ${hit.entryId}`,
                hit,
              });
              flush ??= setTimeout(show, found < 20 ? 0 : 100);
            },
            onProgress: (scanned, size) => {
              if (mine.signal.aborted) return;
              const pct = size ? Math.floor((scanned / size) * 100) : 100;
              qp.title = `${baseTitle}: ${files.length > 1 ? `session ${k + 1}/${files.length}, ` : ''}${pct}% · ${found} found`;
            },
          });
          total += r.hits;
        } catch (err) {
          if (mine.signal.aborted) return;
          log().warn(`search in ${file} failed: ${String(err)}`);
        }
      }
      if (mine.signal.aborted) return;
      if (flush) clearTimeout(flush);
      show();
      qp.busy = false;
      const ms = performance.now() - started;
      qp.title = `${baseTitle}: ${found}${total >= MAX_HITS ? '+' : ''} found (${ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`})`;
      if (found === 0) qp.items = [{ label: 'No matches', alwaysShow: true, hit: undefined }];
    })();
  };

  qp.onDidChangeValue((value) => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => run(value), DEBOUNCE_MS);
  });
  const picked = new Promise<SearchHit | undefined>((resolve) => {
    qp.onDidAccept(() => {
      const hit = qp.selectedItems[0]?.hit;
      if (!hit) return;
      resolve(hit);
      qp.hide();
    });
    qp.onDidHide(() => {
      controller?.abort();
      if (timer) clearTimeout(timer);
      resolve(undefined);
      qp.dispose();
    });
  });
  qp.show();
  if (initialQuery) {
    qp.value = initialQuery;
    run(initialQuery);
  }
  const hit = await picked;
  if (!hit) return undefined;
  await revealHit(arbor, hit);
  return hit;
}

async function revealHit(arbor: ArborServices, hit: SearchHit): Promise<void> {
  await vscode.commands.executeCommand('arbor.sessions.focus');
  const model = await arbor.resolveSession(hit.file);
  if (!model) return;
  await arbor.revealEntry(model.file, hit.entryId, { select: true, focus: true });
  // The entry itself opens in the panel when that command is there.
  if ((await vscode.commands.getCommands(true)).includes(SHOW_ENTRY_COMMAND))
    await vscode.commands.executeCommand(SHOW_ENTRY_COMMAND, model.file, hit.entryId);
}
