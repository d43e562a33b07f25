import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../../shared/base/logging/logger.ts';
import { REDACTED } from '../../../shared/base/logging/redaction.ts';

function linesOf(build: (logger: ReturnType<typeof createLogger>) => void): Array<Record<string, unknown>> {
  const lines: string[] = [];
  build(createLogger({ write: (line) => lines.push(line) }));
  return lines.map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe("Issue 25, logging: a line serialised from a child logger's prepared base says what the merged record says", () => {
  afterEach(() => vi.useRealTimers());

  it('writes time, level and message first, then the base, then the fields, with secrets redacted in both', () => {
    vi.useFakeTimers({ now: new Date('2026-01-02T03:04:05.678Z') });
    const lines: string[] = [];
    createLogger({ write: (line) => lines.push(line) })
      .child({ function: 'resources', signingKey: 'k' })
      .info('request', { method: 'GET', status: 200, token: 't', principal: undefined, nested: { password: 'p' } });
    expect(lines).toEqual([
      `{"time":"2026-01-02T03:04:05.678Z","level":"info","message":"request","function":"resources","signingKey":"${REDACTED}","method":"GET","status":200,"token":"${REDACTED}","nested":{"password":"${REDACTED}"}}`,
    ]);
  });

  it('redacts a secret-named field of a flat record (no object values), which is serialised without a copy', () => {
    const [plain, secret, afterSecret] = linesOf((logger) => {
      logger.info('request', { method: 'GET', status: 200, principal: undefined, durationMs: 1.5 });
      logger.info('request', { method: 'GET', passwordHash: '$2a$10$x', access_token: 'eyJ' });
      logger.info('request', { method: 'GET' });
    });
    expect(plain).toMatchObject({ message: 'request', method: 'GET', status: 200, durationMs: 1.5 });
    expect(plain).not.toHaveProperty('principal');
    expect(secret).toMatchObject({ method: 'GET', passwordHash: REDACTED, access_token: REDACTED });
    expect(afterSecret).toMatchObject({ method: 'GET' });
  });

  it('lets a field override the base in its place, and a record key, as one merged object would', () => {
    const [line] = linesOf((logger) =>
      logger.child({ function: 'a', run: 1 }).warn('m', { function: 'b', level: 'x' }),
    );
    expect(Object.keys(line!)).toEqual(['time', 'level', 'message', 'function', 'run']);
    expect(line).toMatchObject({ level: 'x', function: 'b', run: 1 });
  });

  it('gives each millisecond its own time, and writes nothing below the threshold', () => {
    vi.useFakeTimers({ now: 1_000 });
    const lines: string[] = [];
    const logger = createLogger({ level: 'info', write: (line) => lines.push(line) });
    logger.info('one');
    vi.advanceTimersByTime(1);
    logger.info('two');
    logger.debug('hidden');
    expect(lines.map((line) => (JSON.parse(line) as { time: string }).time)).toEqual([
      '1970-01-01T00:00:01.000Z',
      '1970-01-01T00:00:01.001Z',
    ]);
  });
});
