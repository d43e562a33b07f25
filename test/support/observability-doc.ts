import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { REPO_ROOT } from './function-servers.ts';

export const OBSERVABILITY_DOC = join(REPO_ROOT, 'docs/observability.md');

/** The metrics docs/observability.md's table promises, name → type (counter, gauge, histogram). */
export async function documentedMetrics(): Promise<Map<string, string>> {
  const doc = await readFile(OBSERVABILITY_DOC, 'utf8');
  return new Map(
    [...doc.matchAll(/^\| `([a-z_]+)` \| (counter|gauge|histogram) \|/gm)].map((match) => [match[1]!, match[2]!]),
  );
}
