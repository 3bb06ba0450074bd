/**
 * Keeps API keys out of everything the extension writes or shows (log lines,
 * notifications, the summary panel). The one implementation is the engine's
 * (src/engine/secrets/redact.ts), shared with the CLI and the engine's write
 * path; keys from SecretStorage or the environment are remembered there.
 */
export { redact, rememberSecret, REDACTED } from '../../engine/secrets/redact';
