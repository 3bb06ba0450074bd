import { treeCommand } from './commands/tree';
import { contextCommand } from './commands/context';
import { planCompactionCommand } from './commands/planCompaction';
import { planBranchCommand } from './commands/planBranch';
import { compactCommand } from './commands/compact';
import { navigateCommand } from './commands/navigate';
import { summaryCommand } from './commands/summary';
import { checkSummaryCommand } from './commands/checkSummary';
import { sessionsCommand } from './commands/sessions';
import { upgradeCommand } from './commands/upgrade';
import { filesCommand } from './commands/files';
import { restoreCommand } from './commands/restore';
import { exportCommand } from './commands/export';
import type { Io } from './output';

export type Command = (argv: string[], io: Io) => Promise<number>;

export const commands: Record<string, Command> = {
  tree: treeCommand,
  context: contextCommand,
  'plan-compaction': planCompactionCommand,
  'plan-branch': planBranchCommand,
  compact: compactCommand,
  navigate: navigateCommand,
  summary: summaryCommand,
  'check-summary': checkSummaryCommand,
  sessions: sessionsCommand,
  upgrade: upgradeCommand,
  files: filesCommand,
  restore: restoreCommand,
  export: exportCommand,
};
