import { treeCommand, treeSpec } from './commands/tree';
import { contextCommand, contextSpec } from './commands/context';
import { planCompactionCommand, planCompactionSpec } from './commands/planCompaction';
import { planBranchCommand, planBranchSpec } from './commands/planBranch';
import { compactCommand, compactSpec } from './commands/compact';
import { navigateCommand, navigateSpec } from './commands/navigate';
import { summaryCommand, summarySpec } from './commands/summary';
import { checkSummaryCommand, checkSummarySpec } from './commands/checkSummary';
import { sessionsCommand, sessionsSpec } from './commands/sessions';
import { searchCommand, searchSpec } from './commands/search';
import { upgradeCommand, upgradeSpec } from './commands/upgrade';
import { filesCommand, filesSpec } from './commands/files';
import { restoreCommand, restoreSpec } from './commands/restore';
import { exportCommand, exportSpec } from './commands/export';
import { labelCommand, labelSpec } from './commands/label';
import { piBridgeCommand, piBridgeSpec } from './commands/piBridge';
import type { CommandSpec } from './commandSpec';
import type { Io } from './output';

export type Command = (argv: string[], io: Io) => Promise<number>;

/** A command: its definition (parser, usage and help come from it) and what runs it. */
export interface CommandEntry {
  spec: CommandSpec;
  run: Command;
}

const entry = (spec: CommandSpec, run: Command): [string, CommandEntry] => [spec.name, { spec, run }];

/** Every `arbor` command, in the order `arbor --help` lists them. */
export const commands: ReadonlyMap<string, CommandEntry> = new Map([
  entry(treeSpec, treeCommand),
  entry(contextSpec, contextCommand),
  entry(planCompactionSpec, planCompactionCommand),
  entry(planBranchSpec, planBranchCommand),
  entry(compactSpec, compactCommand),
  entry(navigateSpec, navigateCommand),
  entry(summarySpec, summaryCommand),
  entry(checkSummarySpec, checkSummaryCommand),
  entry(sessionsSpec, sessionsCommand),
  entry(searchSpec, searchCommand),
  entry(upgradeSpec, upgradeCommand),
  entry(filesSpec, filesCommand),
  entry(restoreSpec, restoreCommand),
  entry(exportSpec, exportCommand),
  entry(labelSpec, labelCommand),
  entry(piBridgeSpec, piBridgeCommand),
]);
