// The slice of oidc-provider's API the test provider uses (the package ships no type declarations).
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  export interface ProviderAccount {
    accountId: string;
    claims(): Record<string, unknown>;
  }

  export interface ProviderConfiguration {
    findAccount?: (context: unknown, id: string) => ProviderAccount | undefined;
    [setting: string]: unknown;
  }

  export default class Provider {
    constructor(issuer: string, configuration: ProviderConfiguration);
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
  }
}
