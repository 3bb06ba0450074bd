import { strict as assert } from 'node:assert';
import { bridgeServesPi } from '../../../src/piBridge/piVersion';

/** The bridge serves Pi 1.6 and later 1.x only: Pi 0.73 has other hook shapes and runs an extension command as a prompt. */
describe('bridgeServesPi', () => {
  it('serves 1.6 and later 1.x, and a Pi whose version cannot be read', () => {
    for (const v of ['1.6.0', '1.6.3', '1.7.0', '1.12.1-beta.1', 'unknown']) assert.equal(bridgeServesPi(v), true, v);
  });
  it('refuses 0.73.1, older 1.x and 2.x', () => {
    for (const v of ['0.73.1', '0.9.0', '1.5.9', '2.0.0', 'garbage']) assert.equal(bridgeServesPi(v), false, v);
  });
});
