import * as vscode from 'vscode';
import { setLabel } from '../../engine/operations/label';
import type { ArborServices } from '../services';
import { log, reportError } from '../platform/logging';
import { entryPreview } from '../../engine/tree/entryPreview';
import { oneLine } from '../../engine/tree/oneLine';
import { selectedOrPickedEntry } from '../tree/entryPicker';
import { showInfo } from '../platform/notify';
import { parseCommandTarget, targetEntry } from '../tree/commandTarget';
import { renderLoaded } from '../panels/loadedRender';

/**
 * Arbor: Set Label. Appends a `label` entry for the selected entry (an empty
 * label clears it). The label entry is a child of the current leaf, as Pi
 * writes it, so the leaf stays where it is.
 */
export async function setLabelCommand(arbor: ArborServices, node?: unknown, label?: string): Promise<string | undefined> {
  const target = targetEntry(parseCommandTarget(node ?? (await selectedOrPickedEntry(arbor, 'Set Label: on which entry?'))));
  if (!target) {
    void showInfo('Arbor: select an entry in the Sessions view to label.');
    return undefined;
  }
  const { file, entryId } = target;
  const model = await arbor.resolveSession(file);
  if (!model?.index) return undefined;
  const current = model.index.labelOf(entryId);
  if (label === undefined) {
    const index = model.index;
    const i = index.indexOf(entryId);
    const p = i >= 0 ? await renderLoaded(index, [i], () => entryPreview(index.entry(i))) : undefined;
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
    const route = await arbor.writeRoute(model, 'Labelling');
    if (!route) return undefined;
    // The writer reads the file's new bytes into the store's index before it appends; through Pi, Pi writes the entry.
    const leafBefore = model.index.leafId;
    const written = await arbor.store.write(model, (index) =>
      setLabel({ index, entryId, label, route, beforeWrite: arbor.store.noteOwnEntries }),
    );
    if (route.via === 'file' && written.entry) arbor.store.noteFileWrite(model, [written.entry.id], leafBefore);
    if (route.via === 'pi') void arbor.livePi.refresh();
    log().info(
      `label ${file}: ${entryId} -> ${label || '(cleared)'} (entry ${written.entry?.id ?? 'none'}, ` +
        `${route.via === 'pi' ? `through Pi, pid ${route.state.pid}` : 'to the file'})`,
    );
    return label;
  } catch (err) {
    await reportError('Set Label', err);
    return undefined;
  }
}
