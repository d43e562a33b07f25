// Public entry point of the Kubernetes API emulator.
export { startKubeEmulator } from './server.ts';
export type { KubeEmulator, KubeEmulatorOptions } from './server.ts';
export type { RecordedRequest } from './emulator-context.ts';
export type { RegisteredUser } from './reviews/token-authenticator.ts';
