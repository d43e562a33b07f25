// Issue 43, item 4's leftover: the settings only local development reads (`npm start`, `npm run fleet`,
// one function run alone on the checkout), parsed here beside it and not in the product's `Settings`,
// so nothing that ships carries them. Read with the product's typed reader: the same trimming, the same
// refusals naming the variable.
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Environment } from '../../../shared/base/config/environment.ts';
import { settingReader } from '../../../shared/base/config/setting-values.ts';
import { localBindAddress } from './local-bind-address.ts';

/** The checkout's local state folder, `<repo>/.data`: LOCAL_DATA_DIR's default (local-data.ts lays it out). */
export const DEFAULT_LOCAL_DATA_DIR = fileURLToPath(new URL('../../../.data', import.meta.url));

export interface DevelopmentSettings {
  /** LOCAL_DATA_DIR (resolved), else the checkout's `.data`: the local gateways' and the CLI's state folder. */
  readonly dataDir: string;
  /** LOCAL_HTTPS=true: the local gateways serve HTTPS with a certificate made under the data folder. */
  readonly https: boolean;
  /** LOCAL_CONTROLLER (true unless `false`): `npm start` on the built-in emulator runs the development controller. */
  readonly controller: boolean;
  /** LOCAL_BIND_ADDRESS, else 127.0.0.1: where `npm start` and `npm run fleet` listen (local-bind-address.ts). */
  readonly bindAddress: string;
  /** Values accepted but spelled the deprecated way, each naming its variable: logged at start. */
  readonly warnings: readonly string[];
}

/** Parses local development's settings; throws ConfigError naming the first bad variable. */
export function loadDevelopmentSettings(env: Environment): DevelopmentSettings {
  const warnings: string[] = [];
  const setting = settingReader(env, warnings);
  const dataDir = setting.text('LOCAL_DATA_DIR');
  return Object.freeze({
    dataDir: dataDir ? resolve(dataDir) : DEFAULT_LOCAL_DATA_DIR,
    https: setting.boolean('LOCAL_HTTPS', { fallback: false }),
    controller: setting.boolean('LOCAL_CONTROLLER', { fallback: true }),
    bindAddress: localBindAddress(setting.text('LOCAL_BIND_ADDRESS')),
    warnings: Object.freeze(warnings),
  });
}
