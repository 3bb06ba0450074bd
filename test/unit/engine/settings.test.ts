import * as assert from 'node:assert/strict';
import { promises as fsp } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadPiSettings, compactionSettingsFor, SettingsError, DEFAULT_PI_SETTINGS } from '../../../src/engine/settings/piSettings';
import { sessionsDirFor } from '../../../src/engine/session/discovery';

async function dirs(globalJson?: unknown, projectJson?: unknown | string) {
  const root = await fsp.mkdtemp(path.join(os.tmpdir(), 'arbor-settings-'));
  const agent = path.join(root, 'agent');
  const cwd = path.join(root, 'project');
  await fsp.mkdir(agent, { recursive: true });
  await fsp.mkdir(path.join(cwd, '.pi'), { recursive: true });
  if (globalJson !== undefined) await fsp.writeFile(path.join(agent, 'settings.json'), JSON.stringify(globalJson));
  if (projectJson !== undefined)
    await fsp.writeFile(
      path.join(cwd, '.pi', 'settings.json'),
      typeof projectJson === 'string' ? projectJson : JSON.stringify(projectJson),
    );
  return { cwd, env: { PI_CODING_AGENT_DIR: agent } };
}

describe('Pi settings (spec 9)', () => {
  it('defaults without files', async () => {
    const d = await dirs();
    const r = await loadPiSettings(d);
    assert.deepEqual(r.settings, DEFAULT_PI_SETTINGS);
    assert.deepEqual(r.sources, []);
  });

  it('merges global and project recursively, the project winning, and applies modelOverrides', async () => {
    const d = await dirs(
      {
        compaction: { reserveTokens: 1000, keepRecentTokens: 5000, modelOverrides: { 'openai/gpt-4.1': { keepRecentTokens: 9000 } } },
        theme: 'dark',
      },
      { compaction: { keepRecentTokens: 7000 }, branchSummary: { skipPrompt: true } },
    );
    const { settings, sources } = await loadPiSettings(d);
    assert.equal(sources.length, 2);
    assert.equal(settings.compaction.reserveTokens, 1000);
    assert.equal(settings.compaction.keepRecentTokens, 7000);
    assert.equal(settings.compaction.enabled, true);
    assert.equal(settings.branchSummary.skipPrompt, true);
    assert.equal(settings.branchSummary.reserveTokens, 16384);
    assert.deepEqual(compactionSettingsFor(settings, { provider: 'openai', modelId: 'gpt-4.1' }), {
      ...settings.compaction,
      keepRecentTokens: 9000,
    });
    assert.equal(compactionSettingsFor(settings, { provider: 'x', modelId: 'y' }).keepRecentTokens, 7000);
  });

  it('an invalid value is an error naming the file and the key, not a silent default', async () => {
    const cases: [unknown, RegExp][] = [
      [{ compaction: { reserveTokens: -1 } }, /compaction\.reserveTokens/],
      [{ compaction: { keepRecentTokens: 1.5 } }, /compaction\.keepRecentTokens/],
      [{ compaction: { enabled: 'yes' } }, /compaction\.enabled/],
      [{ compaction: { modelOverrides: { 'a/b': { reserveTokens: '10' } } } }, /modelOverrides\["a\/b"\]\.reserveTokens/],
      [{ branchSummary: { reserveTokens: Number.MAX_SAFE_INTEGER + 2 } }, /branchSummary\.reserveTokens/],
      [{ branchSummary: { skipPrompt: 1 } }, /branchSummary\.skipPrompt/],
    ];
    for (const [json, key] of cases) {
      const d = await dirs(undefined, json);
      await assert.rejects(
        loadPiSettings(d),
        (e: unknown) => e instanceof SettingsError && key.test(e.message) && e.message.includes(path.join(d.cwd, '.pi', 'settings.json')),
      );
    }
    const broken = await dirs(undefined, '{\n  "compaction": {\n    "enabled": true,\n  }\n}');
    await assert.rejects(
      loadPiSettings(broken),
      (e: unknown) => e instanceof SettingsError && /not valid JSON \(line \d+\)/.test(e.message),
    );
  });

  it('finds the sessions folder for a cwd as Pi does, honouring the environment', () => {
    assert.equal(sessionsDirFor('/home/u/my proj', { PI_CODING_AGENT_DIR: '/a' }), '/a/sessions/--home-u-my proj--');
    assert.equal(sessionsDirFor('/x', { PI_CODING_AGENT_SESSION_DIR: '/s', PI_CODING_AGENT_DIR: '/a' }), '/s');
    assert.equal(sessionsDirFor('/home/u/p', { HOME: '/h' }).endsWith(path.join('.pi', 'agent', 'sessions', '--home-u-p--')), true);
  });
});
