import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import bcrypt from 'bcryptjs';
import { REPO_ROOT } from '../../support/function-servers.ts';

const runCli = (args: string[], input: string) =>
  spawnSync(process.execPath, ['cli/platform-api/platform-api.js', ...args], {
    cwd: REPO_ROOT,
    input,
    encoding: 'utf8',
  });

describe('npx platform-api hash-password: hashes must be stored with $2a$ (recommended cost 10)', () => {
  it('prints a $2a$ cost-10 hash of the password read from standard input', () => {
    const result = runCli(['hash-password'], 'my admin password\n');
    expect(result.status).toBe(0);
    const hash = result.stdout.trim();
    expect(hash).toMatch(/^\$2a\$10\$[./A-Za-z0-9]{53}$/);
    expect(bcrypt.compareSync('my admin password', hash)).toBe(true);
  });

  it('refuses passwords over 72 bytes, which bcrypt would silently truncate', () => {
    const result = runCli(['hash-password'], `${'é'.repeat(37)}\n`);
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/72 bytes/);
    expect(result.stdout).toBe('');
  });

  it('refuses an empty password', () => {
    expect(runCli(['hash-password'], '\n').status).toBe(1);
  });

  it('exits 2 with usage for an unknown command', () => {
    const result = runCli(['make-coffee'], '');
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/usage: platform-api hash-password/);
  });
});

describe('npx platform-api: every command fails with a non-zero exit and a clear message on bad input (issue 21)', () => {
  it('no command at all is a usage error (exit 2), not success', () => {
    const result = runCli([], '');
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/no command given/);
    expect(result.stderr).toMatch(/usage: platform-api/);
  });

  it('--help prints the usage and succeeds', () => {
    const result = runCli(['--help'], '');
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/usage: platform-api/);
  });

  it('npm run local:reset with a data dir that holds no local state fails naming it, instead of saying "removed"', () => {
    const missing = `/nonexistent-${process.pid}-${Date.now()}`;
    const result = spawnSync(
      process.execPath,
      ['infra/development/commands/local-command.js', 'reset-local', '--data-dir', missing],
      { cwd: REPO_ROOT, encoding: 'utf8' },
    );
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(`no local state to reset in ${missing}`);
    expect(result.stdout).not.toMatch(/removed/);
  });

  it('kubeconfig --server https:// against a plain-HTTP server says so, not an OpenSSL error', async () => {
    const { createServer } = await import('node:http');
    const server = createServer((_request, response) => response.end('{}'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    try {
      const { spawn } = await import('node:child_process');
      const child = spawn(
        process.execPath,
        [
          'cli/platform-api/platform-api.js',
          'kubeconfig',
          '--server',
          `https://127.0.0.1:${port}`,
          '--kubeconfig',
          '/dev/null',
        ],
        { cwd: REPO_ROOT, stdio: ['pipe', 'pipe', 'pipe'] },
      );
      child.stdin.end('admin\n');
      let stderr = '';
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
      const status = await new Promise<number | null>((resolve) => child.on('close', resolve));
      expect(status).toBe(1);
      expect(stderr).toContain(`https://127.0.0.1:${port} does not speak HTTPS`);
      expect(stderr).not.toMatch(/SSL routines|wrong version number/);
    } finally {
      server.close();
    }
  });

  it('hash-password on a terminal ignores keys typed before its prompt (they were echoed) and hashes what is typed after', async () => {
    const { spawn } = await import('node:child_process');
    // `script` gives the CLI a real terminal; what is written before the prompt is typed ahead.
    const child = spawn(
      'script',
      ['-qfec', `${process.execPath} cli/platform-api/platform-api.js hash-password`, '/dev/null'],
      {
        cwd: REPO_ROOT,
        stdio: ['pipe', 'pipe', 'pipe'],
      },
    );
    let output = '';
    const seen = (text: string) =>
      new Promise<void>((resolve) => {
        const check = () => (output.includes(text) ? resolve() : setTimeout(check, 20));
        check();
      });
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.stdin.write('typed-ahead\r');
    await seen('Password: ');
    child.stdin.write('the real one\r');
    await seen('Repeat password: ');
    child.stdin.write('the real one\r');
    const status = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(status).toBe(0);
    const hash = output.match(/\$2a\$10\$[./A-Za-z0-9]{53}/)?.[0];
    expect(hash).toBeDefined();
    expect(bcrypt.compareSync('the real one', hash!)).toBe(true);
  }, 30_000);
});
