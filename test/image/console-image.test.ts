// Issue 24, item 1: the console in the shipped image — FUNCTION_TARGET=console of the same image,
// run as Knative runs it (read-only root, no capabilities, no network), serving the Vite build the
// image build made, under its CSP, with none of the API's settings.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FunctionContainer } from './function-container.ts';

const API = 'https://platform.example.test';
let container: FunctionContainer;
beforeAll(async () => {
  container = await FunctionContainer.start('console', {
    CONSOLE_API_BASE_URL: API,
    CONSOLE_CONNECT_ORIGINS: 'https://id.example.test',
  });
});
afterAll(() => container?.remove());

describe('FUNCTION_TARGET=console in the image', () => {
  it('serves the app and its assets under the strict CSP, /config.json naming the API', async () => {
    const page = await container.get('/');
    expect(page.status).toBe(200);
    expect(page.headers['content-security-policy']).toContain(`connect-src 'self' ${API} https://id.example.test`);
    const script = /src="\.\/(assets\/[^"]+\.js)"/.exec(page.body)?.[1];
    expect(script).toBeDefined();
    const asset = await container.get(`/${script}`);
    expect([asset.status, asset.headers['cache-control']]).toEqual([200, 'public, max-age=31536000, immutable']);
    expect(JSON.parse((await container.get('/config.json')).body)).toEqual({ apiBaseUrl: API });
  });

  it('logs no error, and starts within the bounds of the functions', async () => {
    expect(await container.logs()).not.toMatch(/"level":"error"/);
    expect(container.coldStartMs).toBeLessThan(10_000);
  });
});
