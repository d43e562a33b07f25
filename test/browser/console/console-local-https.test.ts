// Issue 44, item 4: with LOCAL_HTTPS=true (which kubectl needs) the console stayed on http and could not
// reach the https API ("The console cannot start: Failed to fetch"). `npm start` serves the console over
// HTTPS too, with the same certificate: a browser that trusts that one certificate (here Chromium, told
// its public key as docs/console.md says) signs in and loads a page.
import { X509Certificate, createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { freePort, spawnNodeProcess, type FunctionProcess } from '../../support/function-servers.ts';
import { launchChromium } from '../../support/headless-chromium.ts';
import { submitPassword } from '../../support/console-fixture.ts';

/** The password of local development mode's admin account. */
const LOCAL_ADMIN_PASSWORD = 'admin';

let gateway: FunctionProcess;
let dataDir: string;
let consolePort: number;
let browser: Browser | undefined;
beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'console-local-https-'));
  consolePort = await freePort();
  gateway = await spawnNodeProcess(
    'infra/development/gateway/local-gateway.ts',
    {
      NODE_ENV: 'development',
      LOCAL_HTTPS: 'true',
      LOCAL_DATA_DIR: dataDir,
      CONSOLE_PORT: String(consolePort),
      CONSOLE_ASSETS_DIR: inject('consoleDir'),
    },
    '/healthz',
    { readyOutput: 'console listening', startTimeoutMs: 180_000 },
  );
}, 240_000);
afterAll(async () => {
  await browser?.close();
  await gateway?.stop();
  await rm(dataDir, { recursive: true, force: true });
});

/** The base64 SHA-256 of a certificate's public key: what Chromium's --ignore-certificate-errors-spki-list takes. */
function publicKeyHash(certificatePem: string): string {
  const spki = new X509Certificate(certificatePem).publicKey.export({ type: 'spki', format: 'der' });
  return createHash('sha256').update(spki).digest('base64');
}

describe("Issue 44, item 4: LOCAL_HTTPS=true serves the console over HTTPS with the API's certificate, and it works", () => {
  it('the console signs in and loads a page in Chromium that trusts the local certificate alone', async () => {
    const certificate = await readFile(join(dataDir, 'tls/localhost.crt'), 'utf8');
    browser = await launchChromium([`--ignore-certificate-errors-spki-list=${publicKeyHash(certificate)}`]);
    const page = await (await browser.newContext()).newPage();
    const failures: string[] = [];
    page.on('requestfailed', (request) => failures.push(`${request.url()}: ${request.failure()?.errorText}`));
    await page.goto(`https://localhost:${consolePort}/#/projects`);
    await submitPassword(page, LOCAL_ADMIN_PASSWORD);
    await page.getByRole('heading', { name: 'Projects', level: 1 }).waitFor();
    await page.getByRole('link', { name: 'demo' }).waitFor();
    expect(failures).toEqual([]);
    expect(gateway.output()).toContain(`"url":"https://localhost:${consolePort}"`);
  }, 120_000);
});
