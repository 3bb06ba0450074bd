export {
  FakeProviderServer,
  startFakeProvider,
  keyEcho,
  base32,
  requestKey,
  ALL_KEY_ECHO_FORMS,
  ALTERED_KEY_ECHO_FORMS,
  OBFUSCATED_KEY_ECHO_FORMS,
  type Behaviour,
  type KeyEchoForm,
  type RecordedRequest,
} from './server';
export type { FakeUsage } from './wire';
