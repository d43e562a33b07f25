// Run by the image build (knative/Dockerfile) after `npm run build`: starts each function bundle
// once with throwaway settings and stops it when it listens, so that Node writes V8's compiled
// code of everything a start-up runs into NODE_COMPILE_CACHE. The image keeps that folder: a new
// container then compiles little. The cache is keyed by file path, so run it where the image
// has the bundles (/app/dist).
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
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk;
      if (output.includes('"function listening"') && !child.killed) child.kill('SIGTERM');
    });
    child.once('exit', (code) =>
      output.includes('"function listening"') && code === 0
        ? resolve()
        : reject(new Error(`${name} did not start and stop cleanly (exit ${code}): ${output}`)),
    );
  });
  process.stdout.write(`compile cache: ${name} warmed\n`);
}
