import type { Projection } from '../context/projection';
import { spanMessagesWalk } from '../context/messageSpan';
import { runEntryWalk } from '../session/entryWalkLoads';
import { textOfContent } from '../session/contentBlocks';
import type { AgentMessage } from '../session/types';

/** Small reads of a compaction's spans, each a walk run a batch at a time: the messages whole (for a hook), whether any, the first request. */

/** The messages of `positions` as an array (for a hook, which gets Pi's arrays). */
export async function spanMessages(p: Projection, positions: readonly number[], signal: AbortSignal): Promise<AgentMessage[]> {
  const out: AgentMessage[] = [];
  await runEntryWalk(
    p.index,
    spanMessagesWalk(p, positions, 1, (m) => void out.push(m)),
    { signal },
  );
  return out;
}

/** Whether `positions` hold a message (read up to the first). */
export async function hasMessages(p: Projection, positions: readonly number[], signal: AbortSignal): Promise<boolean> {
  let found = false;
  await runEntryWalk(
    p.index,
    spanMessagesWalk(p, positions, 1, () => (found = true) && false),
    { signal },
  );
  return found;
}

/** The text of the first user message of `positions` (a split turn's request), read up to it. */
export async function firstUserText(p: Projection, positions: readonly number[], signal: AbortSignal): Promise<string | undefined> {
  let text: string | undefined;
  const visit = (m: AgentMessage) => {
    if (m.role !== 'user') return true;
    text = textOfContent(m.content) || undefined;
    return false;
  };
  await runEntryWalk(p.index, spanMessagesWalk(p, positions, 1, visit), { signal });
  return text;
}
