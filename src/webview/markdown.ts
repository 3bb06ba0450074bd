// The panels' markdown model is the engine's (engine/text/markdown.ts): the HTML export renders the same tree.
export * from '../engine/text/markdown';
