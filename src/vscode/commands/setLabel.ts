import * as vscode from 'vscode';
import { appendEntries } from '../../engine/session/writer';
import type { ArborServices } from '../services';
import { log, reportError } from '../logging';
import { entryPreview } from '../../engine/tree/entryPreview';
import { oneLine } from '../../engine/tree/oneLine';
import type { ArborNode } from '../tree/nodes';
import { selectedOrPickedEntry } from '../tree/entryPicker';
import { showInfo } from '../notify';

/**
 * Arbor: Set Label. Appends a `label` entry for the selected entry (an empty
 * label clears it). The label entry is a child of the current leaf, as Pi
 * writes it, so the leaf stays where it is.
 */
export async function setLabelCommand(arbor: ArborServices, node?: unknown, label?: string): Promise<string | undefined> {
  const n = (node ?? (await selectedOrPickedEntry(arbor, 'Set Label: on which entry?'))) as ArborNode | { file?: string; entryId?: string } | undefined;
  if (!n || typeof n.file !== 'string' || typeof (n as { entryId?: unknown }).entryId !== 'string') {
    void showInfo('Arbor: select an entry in the Sessions view to label.');
    return undefined;
  }
  const { file, entryId } = n as { file: string; entryId: string };
  const model = await arbor.resolveSession(file);
  if (!model?.index) return undefined;
  const current = model.index.labelOf(entryId);
  if (label === undefined) {
    const i = model.index.indexOf(entryId);
    const p = i >= 0 ? entryPreview(model.index.entry(i)) : undefined;
    const input = await vscode.window.showInputBox({
      title: `Label for ${p ? `${p.title}: ${oneLine(p.text, 50)}` : entryId}`,
      prompt: 'A bookmark name shown in the tree. Leave empty to remove the label.',
      value: current ?? '',
      validateInput: (v) => (v.includes('\n') ? 'One line only' : undefined),
    });
    if (input === undefined) return undefined;
    label = input;
  }
  label = label.trim();
  try {
    // The file is the truth: read what was appended since the view's index last did (no reload).
    await arbor.store.readTail(model.file);
    if ((model.index.labelOf(entryId) ?? '') === label) return label;
    if (!(await arbor.confirmAppend(model, 'Labelling'))) return undefined;
    const entry: { type: string; targetId: string; label?: string } = { type: 'label', targetId: entryId };
    if (label) entry.label = label;
    // The writer reads the file's new bytes into the store's index before it appends.
    const written = await arbor.store.write(model, (index) => appendEntries(index, [entry], { beforeWrite: arbor.store.noteOwnEntries }));
    log().info(`label ${file}: ${entryId} -> ${label || '(cleared)'} (entry ${written[0].id})`);
    return label;
  } catch (err) {
    await reportError('Set Label', err);
    return undefined;
  }
}
