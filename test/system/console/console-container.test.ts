// Issue 24, item 1: the console is one more FUNCTION_TARGET of the image's entry. On the bundles
// (dist/entry.mjs, the console's build beside them in dist/console, as the image has it) and on the
// sources, it starts in production mode with none of the API's settings and serves the app.
import { join } from 'node:path';
import { afterEach, describe, expect, it, inject } from 'vitest';
import { SOURCE_ENTRY, spawnFunctionProcess, type FunctionProcess } from '../../support/function-servers.ts';

const API = 'https://api.platform.test';
let running: FunctionProcess | undefined;
afterEach(async () => {
  await running?.stop();
  running = undefined;
});

async function expectConsoleServed(process: FunctionProcess): Promise<void> {
  const page = await fetch(`${process.url}/`);
  expect(page.status).toBe(200);
  expect(await page.text()).toContain('<div id="app">');
  expect(page.headers.get('content-security-policy')).toContain(`connect-src 'self' ${API}`);
  expect(await (await fetch(`${process.url}/config.json`)).json()).toEqual({ apiBaseUrl: API });
}

describe('FUNCTION_TARGET=console', () => {
  it('the bundle serves dist/console beside it, with no admin, database or cluster setting', async () => {
    running = await spawnFunctionProcess(
      { FUNCTION_TARGET: 'console', CONSOLE_API_BASE_URL: API },
      { entry: join(inject('bundleDir'), 'entry.mjs') },
    );
    await expectConsoleServed(running);
  });

  it('the sources serve the build named by CONSOLE_ASSETS_DIR', async () => {
    running = await spawnFunctionProcess(
      { FUNCTION_TARGET: 'console', CONSOLE_API_BASE_URL: API, CONSOLE_ASSETS_DIR: inject('consoleDir') },
      { entry: SOURCE_ENTRY },
    );
    await expectConsoleServed(running);
  });

  it('refuses to start without CONSOLE_API_BASE_URL, naming it', async () => {
    await expect(
      spawnFunctionProcess({ FUNCTION_TARGET: 'console' }, { entry: join(inject('bundleDir'), 'entry.mjs') }),
    ).rejects.toThrow(/CONSOLE_API_BASE_URL/);
  });
});
