import type { AgentMessage, UserContentBlock } from '../session/types';

/** Tokens counted for one image block, as Pi does (4800 characters / 4). */
export const IMAGE_TOKENS = 1200;

/**
 * The text pieces of a message that count toward its size, and its images.
 * Both estimators measure the same pieces; they differ only in how they
 * turn text into a number.
 */
export interface MessageParts {
  texts: string[];
  images: number;
}

function contentParts(content: string | UserContentBlock[] | undefined, parts: MessageParts): void {
  if (typeof content === 'string') {
    parts.texts.push(content);
    return;
  }
  if (!Array.isArray(content)) return;
  for (const block of content) {
    if (!block || typeof block !== 'object') continue;
    if (block.type === 'text' && typeof block.text === 'string' && block.text) parts.texts.push(block.text);
    else if (block.type === 'image') parts.images++;
  }
}

export function messageParts(message: AgentMessage): MessageParts {
  const parts: MessageParts = { texts: [], images: 0 };
  switch (message.role) {
    case 'system':
      contentParts(message.content, parts);
      for (const section of Object.values(message.sections ?? {})) if (section) parts.texts.push(section);
      if (message.toolsAdded) parts.texts.push(JSON.stringify(message.toolsAdded));
      break;
    case 'user':
    case 'custom':
    case 'toolResult':
      contentParts(message.content, parts);
      break;
    case 'assistant':
      for (const block of Array.isArray(message.content) ? message.content : []) {
        if (!block || typeof block !== 'object') continue;
        if (block.type === 'text') parts.texts.push(String(block.text ?? ''));
        else if (block.type === 'thinking') parts.texts.push(String(block.thinking ?? ''));
        else if (block.type === 'toolCall') parts.texts.push(String(block.name ?? ''), JSON.stringify(block.arguments) ?? '');
      }
      break;
    case 'bashExecution':
      parts.texts.push(String(message.command ?? ''), String(message.output ?? ''));
      break;
    case 'branchSummary':
    case 'compactionSummary':
      parts.texts.push(String(message.summary ?? ''));
      break;
  }
  return parts;
}
