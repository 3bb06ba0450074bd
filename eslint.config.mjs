// Lint: TypeScript rules, plus the architecture boundary: the engine and the
// CLI never import VS Code (only src/vscode may).
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['out/**', 'dist/**', 'node_modules/**', 'media/**', '.vscode-test/**', 'bench/.data/**', 'test-artifacts/**', '**/*.mjs', '**/*.js'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'warn',
    },
  },
  {
    files: ['src/engine/**/*.ts', 'src/cli/**/*.ts', 'src/webview/**/*.ts', 'src/piBridge/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { paths: [{ name: 'vscode', message: 'src/engine, src/cli, src/webview and src/piBridge must not import vscode: put VS Code code in src/vscode.' }], patterns: [{ group: ['**/vscode/**', '../vscode/*'], message: 'the engine must not depend on the VS Code layer' }] }],
    },
  },
  {
    files: ['test/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off', '@typescript-eslint/no-unused-expressions': 'off' },
  },
);
