// Run by the image build (infra/image/Dockerfile) after `npm run build`: starts each function bundle
// once with throwaway settings, asks its /readyz once it listens (what a function loads on first
// use for readiness, the Kubernetes client of `resources`, is compiled then too), and stops it, so
// that Node writes V8's compiled code of everything a start-up runs into NODE_COMPILE_CACHE. The
// image keeps that folder: a new container then compiles little. The cache is keyed by file path,
// so run it where the image has the bundles (/app/dist).
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';

const cacheFolder = process.env.NODE_COMPILE_CACHE;
if (!cacheFolder) throw new Error('set NODE_COMPILE_CACHE to the folder the image will keep');

const throwawaySettings = {
  NODE_ENV: 'production',
  PORT: '0',
  API_BASE_URL: 'http://compile-cache.invalid',
  ADMIN_ACCOUNT_PASSWORD_HASH: `$2a$04$${'w'.repeat(53)}`,
  ADMIN_ACCOUNT_TOKEN_SIGNING_KEY: 'w'.repeat(64),
  ADMIN_ACCOUNT_TOKEN_TTL: '1h',
  LOG_LEVEL: 'info',
  // The console's static server (FUNCTION_TARGET=console) needs only this.
  CONSOLE_API_BASE_URL: 'http://compile-cache.invalid',
};

for (const name of readdirSync('dist/functions')
  .filter((file) => file.endsWith('.mjs'))
  .map((file) => file.slice(0, -'.mjs'.length))) {
  await new Promise<void>((resolve, reject) => {
    const child = spawn(process.execPath, ['dist/entry.mjs'], {
      env: { PATH: process.env.PATH, NODE_COMPILE_CACHE: cacheFolder, ...throwawaySettings, FUNCTION_TARGET: name },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let output = '';
    let asked = false;
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk;
      const listening = output.split('\n').find((line) => line.includes('"function listening"'));
      if (!listening || asked) return;
      asked = true;
      // Any answer will do (there is no cluster here): the request is what loads the code.
      void fetch(`http://127.0.0.1:${(JSON.parse(listening) as { port: number }).port}/readyz`, {
        signal: AbortSignal.timeout(10_000),
      })
        .then((answer) => answer.arrayBuffer())
        .catch(() => undefined)
        .finally(() => child.kill('SIGTERM'));
    });
    child.once('exit', (code) =>
      output.includes('"function listening"') && code === 0
        ? resolve()
        : reject(new Error(`${name} did not start and stop cleanly (exit ${code}): ${output}`)),
    );
  });
  process.stdout.write(`compile cache: ${name} warmed\n`);
}
