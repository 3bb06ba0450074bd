import type { AgentMessage, UserContentBlock } from '../session/types';

/** Tokens counted for one image block, as Pi does (4800 characters / 4). */
export const IMAGE_TOKENS = 1200;

/**
 * How an estimator measures a message: each text piece that counts toward
 * its size, and each image at a fixed size. Both estimators measure the same
 * pieces; they differ only in how they turn text into a number.
 */
export interface MessageMeasure {
  text(text: string): number;
  image: number;
}

function measureContent(content: string | UserContentBlock[] | undefined, measure: MessageMeasure): number {
  if (typeof content === 'string') return measure.text(content);
  if (!Array.isArray(content)) return 0;
  let size = 0;
  for (const block of content) {
    if (!block || typeof block !== 'object') continue;
    if (block.type === 'text' && typeof block.text === 'string' && block.text) size += measure.text(block.text);
    else if (block.type === 'image') size += measure.image;
  }
  return size;
}

/** The size of a message: the sum of its pieces as `measure` measures them (no list of them is made: this runs for every entry of a tree). */
export function measureMessage(message: AgentMessage, measure: MessageMeasure): number {
  switch (message.role) {
    case 'system': {
      let size = measureContent(message.content, measure);
      for (const section of Object.values(message.sections ?? {})) if (section) size += measure.text(section);
      if (message.toolsAdded) size += measure.text(JSON.stringify(message.toolsAdded));
      return size;
    }
    case 'user':
    case 'custom':
    case 'toolResult':
      return measureContent(message.content, measure);
    case 'assistant': {
      let size = 0;
      for (const block of Array.isArray(message.content) ? message.content : []) {
        if (!block || typeof block !== 'object') continue;
        if (block.type === 'text') size += measure.text(String(block.text ?? ''));
        else if (block.type === 'thinking') size += measure.text(String(block.thinking ?? ''));
        else if (block.type === 'toolCall')
          size += measure.text(String(block.name ?? '')) + measure.text(JSON.stringify(block.arguments) ?? '');
      }
      return size;
    }
    case 'bashExecution':
      return measure.text(String(message.command ?? '')) + measure.text(String(message.output ?? ''));
    case 'branchSummary':
    case 'compactionSummary':
      return measure.text(String(message.summary ?? ''));
  }
  return 0;
}
