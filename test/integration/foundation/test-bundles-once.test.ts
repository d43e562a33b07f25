// Issue 43 (the house): vitest runs a global setup once per project, and three projects (integration,
// browser, system) name the bundles' setup: each built the function bundles and the console again.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { TestProject } from 'vitest/node';
import setupBundles from '../../support/function-bundles.global.ts';

/** What a project is given by the setup, through the one method the setup calls. */
function projectRecordingWhatItIsGiven() {
  const provided = new Map<string, unknown>();
  const project = { provide: (key: string, value: unknown) => provided.set(key, value) } as unknown as TestProject;
  return { project, provided };
}

describe('Issue 43: the test bundles are built once per test run', () => {
  it('gives every project of the run the same build, and removes it after the last project is done', async () => {
    const [integration, browser, system] = [1, 2, 3].map(projectRecordingWhatItIsGiven);
    const teardowns = [];
    for (const { project } of [integration!, browser!, system!]) teardowns.push(await setupBundles(project));
    const bundleDir = integration!.provided.get('bundleDir') as string;
    expect(existsSync(join(bundleDir, 'entry.mjs'))).toBe(true);
    for (const { provided } of [browser!, system!]) {
      expect(provided.get('bundleDir')).toBe(bundleDir);
      expect(provided.get('consoleDir')).toBe(integration!.provided.get('consoleDir'));
    }
    // A project done early (vitest tears projects down one by one) leaves the build to the others.
    teardowns[0]!();
    teardowns[1]!();
    expect(existsSync(join(bundleDir, 'entry.mjs'))).toBe(true);
    teardowns[2]!();
    expect(existsSync(bundleDir)).toBe(false);
  });
});
