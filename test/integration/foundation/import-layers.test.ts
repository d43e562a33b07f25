// Issue 21, "a layered library with the rule checked": shared/ folders form layers, no import loops
// between files, the library never imports a function, an entry, the tools or the tests, and the
// product (shared/, functions/, knative/) never imports local development or the emulator. The rules
// are .dependency-cruiser.cjs, run by `npm run lint`; these tests prove the rules hold on the tree
// and that they catch a planted upward import, a loop and an unlayered folder.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { cruise, type IConfiguration, type ICruiseResult } from 'dependency-cruiser';
import { afterEach, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../support/function-servers.ts';

const rules = createRequire(import.meta.url)(join(REPO_ROOT, '.dependency-cruiser.cjs')) as IConfiguration;

async function violations(baseDir: string, folders: string[]): Promise<string[]> {
  const { output } = await cruise(folders, {
    baseDir,
    validate: true,
    ruleSet: rules,
    tsPreCompilationDeps: true,
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|\\.tools|dist|coverage)/' },
  });
  const result = output as ICruiseResult;
  return result.summary.violations.map((violation) => `${violation.rule.name}: ${violation.from} -> ${violation.to}`);
}

describe('the import rules hold on the tree (issue 21)', () => {
  it('finds no violation in cli/, shared/, functions/, knative/ and infra/', async () => {
    expect(await violations(REPO_ROOT, ['cli', 'shared', 'functions', 'knative', 'infra'])).toEqual([]);
  }, 60_000);
});

describe('the import rules catch what they forbid (issue 21)', () => {
  let scratch: string | undefined;
  afterEach(() => {
    if (scratch) rmSync(scratch, { recursive: true, force: true });
    scratch = undefined;
  });

  /** A tree of the given files under a scratch folder (the rules' paths are relative to it). */
  function tree(files: Record<string, string>): string {
    scratch = mkdtempSync(join(tmpdir(), 'import-layers-'));
    for (const [path, source] of Object.entries(files)) {
      mkdirSync(dirname(join(scratch, path)), { recursive: true });
      writeFileSync(join(scratch, path), source);
    }
    return scratch;
  }

  it('refuses an upward import: base/http/ (layer 2) importing server/app/ (layer 9)', async () => {
    const base = tree({
      'shared/base/http/api-error.ts':
        "import type { AppContext } from '../../server/app/app-context.ts';\nexport type E = AppContext;\n",
      'shared/server/app/app-context.ts': 'export interface AppContext { name: string }\n',
    });
    expect(await violations(base, ['shared'])).toEqual([
      'layer-base/http: shared/base/http/api-error.ts -> shared/server/app/app-context.ts',
    ]);
  });

  it('refuses an import between two folders of one layer: auth/ and domain/resources/', async () => {
    const base = tree({
      'shared/auth/principal.ts':
        "import { OBJECT } from '../domain/resources/cluster-objects.ts';\nexport const P = OBJECT;\n",
      'shared/domain/resources/cluster-objects.ts': 'export const OBJECT = {};\n',
    });
    expect(await violations(base, ['shared'])).toEqual([
      'layer-auth: shared/auth/principal.ts -> shared/domain/resources/cluster-objects.ts',
    ]);
  });

  it('allows a downward import: server/app/ importing base/http/', async () => {
    const base = tree({
      'shared/server/app/app-context.ts':
        "import type { E } from '../../base/http/api-error.ts';\nexport type A = E;\n",
      'shared/base/http/api-error.ts': 'export type E = string;\n',
    });
    expect(await violations(base, ['shared'])).toEqual([]);
  });

  it('refuses a loop between two files of one folder, type-only imports included', async () => {
    const base = tree({
      'shared/contract/routes/route-table.ts': "import type { B } from './route-answers.ts';\nexport type A = B;\n",
      'shared/contract/routes/route-answers.ts': "import type { A } from './route-table.ts';\nexport type B = A | 1;\n",
    });
    expect(await violations(base, ['shared'])).toEqual([
      expect.stringMatching(
        /^no-circular: shared\/contract\/routes\/route-(table|answers)\.ts -> shared\/contract\/routes\/route-(answers|table)\.ts$/,
      ),
    ]);
  });

  it('refuses the emulator importing the product it stands in for (issue 21: its own JSON patch)', async () => {
    const base = tree({
      'infra/kube-emulator/http/resource-handler.ts':
        "import { applyJsonPatch } from '../../../shared/base/json/patches.ts';\nexport const p = applyJsonPatch;\n",
      'shared/base/json/patches.ts': 'export const applyJsonPatch = 1;\n',
    });
    expect(await violations(base, ['infra', 'shared'])).toEqual([
      'emulator-imports-no-product: infra/kube-emulator/http/resource-handler.ts -> shared/base/json/patches.ts',
    ]);
  });

  it('refuses a shared/ folder that has no layer, and the library importing a function', async () => {
    const base = tree({
      'shared/base/http/api-error.ts':
        "import { x } from '../../widgets/widget.ts';\nimport { f } from '../../../functions/login/login.ts';\nexport const E = [x, f];\n",
      'shared/widgets/widget.ts': 'export const x = 1;\n',
      'functions/login/login.ts': 'export const f = 2;\n',
    });
    expect(await violations(base, ['shared', 'functions'])).toEqual(
      expect.arrayContaining([
        'every-shared-folder-has-a-layer: shared/base/http/api-error.ts -> shared/widgets/widget.ts',
        'library-imports-no-application: shared/base/http/api-error.ts -> functions/login/login.ts',
      ]),
    );
  });

  it('refuses the product importing local development or the emulator; development may import the product', async () => {
    const base = tree({
      'knative/function-container.ts':
        "import { startDevelopmentCluster } from '../infra/development/cluster/development-cluster.ts';\nexport const s = startDevelopmentCluster;\n",
      'functions/resources/resources-function.ts':
        "import { startKubeEmulator } from '../../infra/kube-emulator/index.ts';\nexport const k = startKubeEmulator;\n",
      'shared/server/app/app-context.ts':
        "import { paths } from '../../../infra/development/local/local-data.ts';\nexport const p = paths;\n",
      'infra/development/cluster/development-cluster.ts':
        "import { c } from '../../../knative/wrapped.ts';\nexport const startDevelopmentCluster = c;\n",
      'knative/wrapped.ts': 'export const c = 1;\n',
      'infra/development/local/local-data.ts': 'export const paths = 1;\n',
      'infra/kube-emulator/index.ts': 'export const startKubeEmulator = 1;\n',
    });
    expect((await violations(base, ['shared', 'functions', 'knative', 'infra'])).sort()).toEqual(
      [
        'library-imports-no-application: shared/server/app/app-context.ts -> infra/development/local/local-data.ts',
        'product-imports-no-development: knative/function-container.ts -> infra/development/cluster/development-cluster.ts',
        'product-imports-no-development: functions/resources/resources-function.ts -> infra/kube-emulator/index.ts',
        'product-imports-no-development: shared/server/app/app-context.ts -> infra/development/local/local-data.ts',
      ].sort(),
    );
  });

  it('refuses the kubectl plugin (cli/) importing development, the emulator or a function; it may import the library, and development may import it (issue 39)', async () => {
    const base = tree({
      'cli/plugin/connection.ts':
        "import { startKubeEmulator } from '../../infra/kube-emulator/index.ts';\nimport { paths } from '../../infra/development/local/local-data.ts';\nimport { FINAL } from '../../shared/domain/runs/run.ts';\nexport const c = [startKubeEmulator, paths, FINAL];\n",
      'cli/commands/runs-list.ts':
        "import { handler } from '../../functions/resources/handlers/run-handlers.ts';\nexport const h = handler;\n",
      'shared/domain/runs/run.ts': 'export const FINAL = 1;\n',
      'functions/resources/handlers/run-handlers.ts': 'export const handler = 1;\n',
      'infra/development/commands/local-command-main.ts':
        "import { c } from '../../../cli/plugin/connection.ts';\nexport const p = c;\n",
      'infra/development/local/local-data.ts': 'export const paths = 1;\n',
      'infra/kube-emulator/index.ts': 'export const startKubeEmulator = 1;\n',
    });
    expect((await violations(base, ['cli', 'shared', 'functions', 'infra'])).sort()).toEqual(
      [
        'plugin-imports-no-development: cli/commands/runs-list.ts -> functions/resources/handlers/run-handlers.ts',
        'plugin-imports-no-development: cli/plugin/connection.ts -> infra/development/local/local-data.ts',
        'plugin-imports-no-development: cli/plugin/connection.ts -> infra/kube-emulator/index.ts',
      ].sort(),
    );
  });
});
