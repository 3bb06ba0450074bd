/**
 * Mocha's spec reporter plus a last line "N passed, N failed" (the plain
 * closing line CI reads), which scripts/test.sh adds up across suites.
 */
import * as Mocha from 'mocha';

class SummaryReporter extends Mocha.reporters.Spec {
  constructor(runner: Mocha.Runner, options?: Mocha.MochaOptions) {
    super(runner, options);
    runner.once(Mocha.Runner.constants.EVENT_RUN_END, () => {
      const s = runner.stats;
      const skipped = s?.pending ? `, ${s.pending} skipped` : '';
      process.stdout.write(`${s?.passes ?? 0} passed, ${s?.failures ?? 0} failed${skipped}\n`);
    });
  }
}

module.exports = SummaryReporter;
