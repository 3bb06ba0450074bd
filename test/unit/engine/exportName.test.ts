// The name an export is offered under (issue 34 item 5): the session's title, safe as a file name everywhere.
import * as assert from 'node:assert/strict';
import { exportFileName } from '../../../src/engine/export/exportName';

describe('export file name', () => {
  it("is the session's title, with the leaf of another branch", () => {
    assert.equal(exportFileName({ title: 'Take a look at this project', format: 'md' }), 'Take-a-look-at-this-project.md');
    assert.equal(exportFileName({ title: 'Add mul', leafId: '3f2a9c1d', format: 'html' }), 'Add-mul-3f2a9c1d.html');
  });

  it('holds no separator, reserved or control character, no leading dot, no device name; at most 60 characters', () => {
    const hostile = '../../etc/passwd\u202e<script>:*?"|\\\u0000\u001b[2J .bashrc';
    const name = exportFileName({ title: hostile, format: 'md' });
    assert.doesNotMatch(name, /[/\\<>:"|?*\u0000-\u001f\u202e]|^\./);
    assert.equal(exportFileName({ title: 'NUL', format: 'md' }), 'NUL-session.md');
    assert.equal(exportFileName({ title: '...', format: 'md' }), 'pi-session.md');
    assert.equal(exportFileName({ title: undefined, format: 'md' }), 'pi-session.md');
    const long = exportFileName({ title: '📌'.repeat(100), format: 'md' });
    assert.equal(Array.from(long.replace(/\.md$/, '')).length, 60, 'cut between code points');
    assert.doesNotMatch(long, /[\ud800-\udbff](?![\udc00-\udfff])/);
  });
});
