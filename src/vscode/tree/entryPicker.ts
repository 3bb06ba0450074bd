import * as vscode from 'vscode';
import type { ArborServices } from '../services';
import type { ArborNode } from './nodes';
import { cachedPreview } from './previewCache';
import { passesFilter } from '../../engine/tree/rowFilter';
import { ICON_IDS } from './treeItems';
import { relativeTime } from '../../engine/tree/sessionOrder';

/** Entries offered at most (newest first); the rest are reached by search or the tree. */
const MAX_ITEMS = 5000;

interface EntryPick extends vscode.QuickPickItem {
  entryId: string;
}

/**
 * The entry a command acts on when it was run without one (from the command
 * palette or a keybinding): the selected row if it is an entry or a side
 * branch, else one the user picks from the session (the selected row's, or
 * the active one) in a searchable QuickPick.
 */
export async function selectedOrPickedEntry(
  arbor: ArborServices,
  title: string,
): Promise<ArborNode | { file: string; entryId: string } | undefined> {
  const selected = arbor.treeView.selection[0];
  if (selected && (selected.type === 'entry' || selected.type === 'branch')) return selected;
  return pickEntry(arbor, { title, file: selected?.file });
}

export async function pickEntry(
  arbor: ArborServices,
  options: { title: string; file?: string },
): Promise<{ file: string; entryId: string } | undefined> {
  const model = await arbor.resolveSession(options.file);
  const index = model?.index;
  if (!model || !index || !model.layout) return undefined;
  const filter = arbor.tree.filter;
  const shown: number[] = [];
  for (let i = index.entryCount - 1; i >= 0 && shown.length < MAX_ITEMS; i--) if (passesFilter(index, i, filter)) shown.push(i);
  const leaf = index.leafIndex;
  // Loaded first (asynchronously: the extension host never waits on a read); the items read nothing else.
  const items = await index.withLoaded(shown, () =>
    shown.map((i): EntryPick => {
      const p = cachedPreview(index, i);
      const e = index.entry(i);
      const label = index.labelOf(index.record(i).id);
      const when = typeof e.timestamp === 'string' ? relativeTime(Date.parse(e.timestamp)) : '';
      return {
        label: `$(${ICON_IDS[p.kind]}) ${p.text || p.title}`,
        description: [
          i === leaf ? '● current' : '',
          p.title,
          label ? `#${label}` : '',
          model.layout!.isOnActivePath(i) ? '' : 'side branch',
          when,
        ]
          .filter(Boolean)
          .join(' · '),
        entryId: index.record(i).id,
      };
    }),
  );
  const picked = await vscode.window.showQuickPick(items, {
    title: `${options.title} (${model.title ?? model.file})`,
    placeHolder: shown.length >= MAX_ITEMS ? `Type to filter the newest ${MAX_ITEMS} entries` : 'Type to filter the entries',
    matchOnDescription: true,
  });
  return picked ? { file: model.file, entryId: picked.entryId } : undefined;
}
