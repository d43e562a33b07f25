// Issue 23, item 4, "start-up catches configuration": an unreachable database is reported with its
// cause (what an operator acts on), and every use answers 503 DatabaseUnavailable until it answers.
import { describe, expect, it } from 'vitest';
import { lazyRunDatabase } from '../../../shared/server/app/run-database.ts';
import { ApiError } from '../../../shared/base/http/api-error.ts';
import { loadRunHistorySettings } from '../../../shared/base/config/run-history-settings.ts';
import { capturingLogger, freePort } from '../../support/function-servers.ts';

describe('issue 23: an unreachable database is reported with its cause', () => {
  it('connection refused: the log names ECONNREFUSED; the store and readiness answer 503 DatabaseUnavailable', async () => {
    const logger = capturingLogger();
    const port = await freePort();
    const runs = lazyRunDatabase(
      { url: `postgres://platform:secret-password@127.0.0.1:${port}/platform` },
      loadRunHistorySettings({}),
      { production: true },
      logger,
    );
    try {
      const refused = await runs.service('records').catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(ApiError);
      expect(refused).toMatchObject({ status: 503, reason: 'DatabaseUnavailable' });
      await expect(runs.checkReady()).rejects.toMatchObject({ status: 503 });
      const log = logger.lines.join('\n');
      expect(log).toContain('run history database could not be opened');
      expect(log).toContain('ECONNREFUSED');
      expect(log).not.toContain('secret-password');
    } finally {
      await runs.close();
    }
  });
});
