// Issue 21 item 5: one restore vocabulary, most fundamental reason first (cwd missing, changed on disk, not determined, path refused).
import * as assert from 'node:assert/strict';
import { promises as fsp } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { decideRestore, sha256, type RestoreCandidate, type DiskState } from '../../../src/engine/files/restorePlan';
import { diskState } from '../../../src/engine/files/diskState';
import { mostFundamental, restoreReasons } from '../../../src/engine/files/restoreReasons';

const cand = (c: Partial<RestoreCandidate>): RestoreCandidate => ({
  absPath: '/w/f.txt',
  path: 'f.txt',
  insideCwd: true,
  target: { state: 'known', text: 'old' },
  expected: { state: 'known', text: 'new' },
  ...c,
});
const unknown = { state: 'unknown' as const, reason: 'command `awk …` may have changed it' };

describe('restore reasons (one vocabulary, most fundamental first)', () => {
  it('a missing working directory comes before everything, including undetermined content and refused paths', async () => {
    const gone = path.join(os.tmpdir(), 'arbor-no-such-cwd', String(process.pid));
    for (const c of [cand({ expected: unknown }), cand({ target: unknown }), cand({ insideCwd: false, path: '/elsewhere/x' })]) {
      const d = decideRestore(c, await diskState(gone, 'f.txt'));
      assert.equal(d.action, 'skip');
      assert.equal(d.action === 'skip' && d.reason, `the working directory ${gone} does not exist`);
      assert.equal(d.action === 'skip' && d.reasonKind, 'cwd-missing');
    }
  });

  it('changed on disk comes before content not determined; content not determined before path refused', () => {
    const changed: DiskState = { kind: 'file', sha256: sha256('edited by hand'), size: 14 };
    const d1 = decideRestore(cand({ target: unknown }), changed);
    assert.equal(d1.action === 'skip' && d1.reasonKind, 'changed-on-disk');
    const d2 = decideRestore(cand({ expected: unknown }), { kind: 'refused', reason: 'is a symbolic link' });
    assert.equal(d2.action === 'skip' && d2.reasonKind, 'not-determined');
    assert.match(d2.action === 'skip' ? d2.reason : '', /^its current content is not determined by the session: command `awk/);
    const d3 = decideRestore(cand({}), { kind: 'refused', reason: 'is a symbolic link' });
    assert.equal(d3.action === 'skip' && d3.reason, 'path refused: is a symbolic link');
    const d4 = decideRestore(cand({ insideCwd: false }), { kind: 'refused', reason: 'x' });
    assert.equal(d4.action === 'skip' && d4.reason, "path refused: outside the session's working directory");
  });

  it('an existing directory: a path leading out is refused without being read; mostFundamental picks by rank', async () => {
    const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'arbor-reasons-'));
    try {
      assert.equal((await diskState(dir, '../../etc/passwd')).kind, 'refused');
    } finally {
      await fsp.rm(dir, { recursive: true, force: true });
    }
    const picked = mostFundamental([
      restoreReasons.pathRefused('x'),
      restoreReasons.targetNotDetermined('y'),
      restoreReasons.changedOnDisk(),
      restoreReasons.cwdMissing('/w'),
    ]);
    assert.equal(picked?.kind, 'cwd-missing');
  });
});
