// User settings the test VS Code starts with. Folder settings that a workspace cannot set (machine-scoped, see
// src/vscode/platform/settings.ts) go here instead of the fixture workspace's .vscode/settings.json.
export const FIXTURE_USER_SETTINGS = {
  'arbor.sessionDir': '${workspaceFolder}/.pi/sessions',
};
