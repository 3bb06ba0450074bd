/** Every scenario scripts/piScenarioSessions.ts generates, in order. */
import type { Scenario } from './types';
import { branches } from './branches';
import { errors } from './errors';
import { redirections } from './redirections';
import { results } from './results';
import { statuses } from './statuses';

export const SCENARIOS: Scenario[] = [results, errors, statuses, redirections, branches];
