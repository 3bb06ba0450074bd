export { FakeProviderServer, startFakeProvider, type Behaviour, type RecordedRequest } from './server';
export type { FakeUsage } from './wire';
