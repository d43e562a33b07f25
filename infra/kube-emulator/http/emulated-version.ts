// The Kubernetes release the emulator claims to be, shared by /version and the OpenAPI documents.

/** The Kubernetes version the emulator claims to be. */
export const EMULATED_VERSION = { major: '1', minor: '33', gitVersion: 'v1.33.0' };
