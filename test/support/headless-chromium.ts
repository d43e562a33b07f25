import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { REPO_ROOT } from './function-servers.ts';

/** The Chromium unpacked by infra/tools/install-tools.sh (npm test's pretest), unless CHROMIUM_PATH names another. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? join(REPO_ROOT, '.tools/bin/chromium');

/** Launches the headless browser (with `extraArgs`, e.g. a certificate to trust); without one it throws naming the cause, so a test fails rather than skips. */
export function launchChromium(extraArgs: string[] = []): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `No Chromium at ${CHROMIUM}: run \`bash infra/tools/install-tools.sh\` (it unpacks Debian's chromium into .tools/ ` +
        'and needs apt-get, dpkg and a reachable Debian mirror; its message says what failed) or set CHROMIUM_PATH',
    );
  }
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
      '--disable-sync',
      ...extraArgs,
    ],
  });
}
