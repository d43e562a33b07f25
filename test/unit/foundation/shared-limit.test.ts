// House review section 9 (issue 43): "where this limit is counted" was reported twice (the login
// function's sayWhereFailuresAreCounted, the app context's cappedStreams), and the store-change and
// fallback metrics were wired twice. One factory, sharedLimit, now does both for every limit that must
// hold across instances; LoginThrottle and SharedStreamSlots take what it makes.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { poolDatabase } from '../../../shared/base/database/database.ts';
import { sharedLimit } from '../../../shared/base/database/shared-limit.ts';
import { createMetrics, SHARED_LIMITS } from '../../../shared/base/metrics/metrics.ts';
import { capturingLogger, REPO_ROOT } from '../../support/function-servers.ts';

// Never connected: the factory only notes that there is a database.
const database = poolDatabase(new pg.Pool({ host: '127.0.0.1', port: 1 }));

function sourceFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

describe('Issue 43 (house review 9): one sharedLimit factory says where a limit is counted and wires its metrics', () => {
  it.each(SHARED_LIMITS)(
    '%s: one start-up line with its budgets and the store gauge, with and without a database',
    async (name) => {
      for (const given of [database, undefined]) {
        const logger = capturingLogger();
        const metrics = createMetrics(true);
        const limit = sharedLimit({ name, database: given, logger, metrics, budgets: { max: 3 } });
        const store = given ? 'database' : 'process';
        expect(limit.store).toBe(store);
        expect(logger.lines).toHaveLength(1);
        expect(JSON.parse(logger.lines[0]!)).toMatchObject({ level: given ? 'info' : 'warn', max: 3 });
        expect(logger.lines[0]).toContain(given ? 'in the database' : 'in this process only (no database)');
        const { body } = await metrics.exposition();
        expect(body).toMatch(
          new RegExp(`^platform_api_shared_limit_store\\{limit="${name}",store="${store}"\\} 1$`, 'm'),
        );
      }
    },
  );

  it('a failure and a recovery move the store gauge; a count made in the process counts a fallback', async () => {
    const metrics = createMetrics(true);
    const limit = sharedLimit({
      name: 'watches',
      database,
      logger: capturingLogger(),
      metrics,
      budgets: {},
    });
    limit.fallback.failed(new Error('down'));
    limit.countedInProcess();
    limit.countedInProcess();
    let { body } = await metrics.exposition();
    expect(body).toMatch(/^platform_api_shared_limit_store\{limit="watches",store="process"\} 1$/m);
    expect(body).toMatch(/^platform_api_shared_limit_fallbacks_total\{limit="watches"\} 2$/m);
    limit.fallback.answered();
    ({ body } = await metrics.exposition());
    expect(body).toMatch(/^platform_api_shared_limit_store\{limit="watches",store="database"\} 1$/m);
  });

  it('nothing else reports a shared limit: its metrics and its start-up line are written in shared-limit.ts alone', () => {
    const files = ['shared', 'functions', 'knative'].flatMap((folder) => sourceFiles(join(REPO_ROOT, folder)));
    const reporters = files
      .filter((file) =>
        /\.sharedLimit(?:Store|Fallback)\(|are (?:counted|capped per principal) in this process only \(no database\)/.test(
          readFileSync(file, 'utf8'),
        ),
      )
      .map((file) => relative(REPO_ROOT, file));
    expect(reporters).toEqual(['shared/base/database/shared-limit.ts']);
  });
});
