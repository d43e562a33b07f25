import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import bcrypt from 'bcryptjs';
import { REPO_ROOT } from '../support/function-servers.ts';

const runCli = (args: string[], input: string) =>
  spawnSync(process.execPath, ['bin/platform-api.js', ...args], { cwd: REPO_ROOT, input, encoding: 'utf8' });

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
