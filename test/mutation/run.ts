// Mutation testing of the security core (issue 15): `npm run test:mutation [-- <scope>...]`.
// Each scope mutates one part of the core and runs only the fast test files that exercise it,
// incrementally: a mutant whose code and tests are unchanged since the last run keeps its result
// (reports/mutation/<scope>.incremental.json, committed), so a rerun costs only what changed.
// Prints each scope's score and the total; exits 1 when the total is below the target.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Stryker } from '@stryker-mutator/core';
import type { MutantResult } from '@stryker-mutator/api/core';

const TARGET_SCORE = 90;

interface Scope {
  mutate: string[];
  tests: string[];
  /**
   * Skip static mutants: code that runs only while a test file starts its servers (beforeAll),
   * which Stryker can test only by rerunning every file of the scope for each of them.
   */
  ignoreStatic?: boolean;
  /** How much longer than its unmutated run a mutant's test run may take before it counts as a hang (detected). */
  timeoutMs?: number;
}

const SCOPES: Record<string, Scope> = {
  auth: {
    // Token verification: who owns a token, what is accepted, what is cached and for how long.
    mutate: [
      'shared/auth/admin-token.ts',
      'shared/auth/bearer-token.ts',
      'shared/auth/request-authenticator.ts',
      'shared/auth/token-cache.ts',
      'shared/auth/oidc-token-authenticator.ts',
      'shared/auth/jose-error-message.ts',
    ],
    tests: [
      'test/integration/identity/authentication-caches.test.ts',
      'test/integration/identity/token-authenticators.test.ts',
      'test/unit/foundation/route-access-modes.test.ts',
    ],
  },
  'auth-keys': {
    // Key fetching, TokenReview, login throttling and the password queue: their tests start
    // servers (an OpenID Provider, the emulator, gateways), so each mutant costs seconds.
    // bcrypt-worker.ts runs in a worker thread, outside any test runner's reach; login.test.ts
    // proves it ($2y$ refused, wrong password refused).
    mutate: [
      'shared/auth/held-key-set.ts',
      'shared/auth/oidc-key-set.ts',
      'shared/auth/service-account-key-set.ts',
      'shared/auth/service-account-token-authenticator.ts',
      'shared/auth/login-throttle.ts',
      'shared/auth/process-login-failures.ts',
      'shared/auth/database-login-failures.ts',
      'shared/auth/login-client-key.ts',
      'shared/auth/password-verifier.ts',
    ],
    tests: [
      'test/integration/identity/oidc-keys.test.ts',
      'test/integration/identity/service-account-keys.test.ts',
      'test/integration/foundation/login-throttle.test.ts',
      'test/integration/foundation/login-failure-stores.test.ts',
      'test/unit/foundation/login-client-key.test.ts',
      'test/unit/foundation/password-verifier.test.ts',
      'test/integration/identity/service-account-signatures.test.ts',
      'test/integration/identity/service-accounts.test.ts',
      'test/integration/foundation/login.test.ts',
      'test/unit/foundation/bounded-map.test.ts',
    ],
    // 131 of its 305 mutants are static (gateway start-up); with them a run takes hours here.
    ignoreStatic: true,
  },
  authz: {
    mutate: ['shared/authz/*.ts'],
    tests: [
      'test/integration/identity/authorization.test.ts',
      'test/integration/identity/authorization-rules.test.ts',
      'test/integration/identity/authentication-caches.test.ts',
      'test/integration/identity/subject-access-reviewer.test.ts',
      // Its metrics and span hooks (issue 23), with tracing on for that file's process.
      'test/integration/identity/subject-access-review-observed.test.ts',
      // The decision handed to handlers and the authorizing client bound to it (issue 20).
      'test/integration/security/authorization-in-the-chain.test.ts',
      // Whom a principal is reviewed as, and the RBAC rules read for it (issue 24, item 5).
      'test/integration/resources/access-review.test.ts',
      'test/integration/identity/rbac-rules.test.ts',
      // The ServiceAccount watch that feeds the claim index: its events, retries and stop.
      'test/integration/identity/service-account-watch.test.ts',
    ],
  },
  routes: {
    // The route table's access rules and the route matcher (how the token is read is in `auth`). The core
    // handler's use of them is proven over HTTP on every route (route-access-rules.test.ts),
    // whose server start-up would make each mutant cost seconds.
    mutate: [
      'shared/contract/routes/route-table.ts',
      // The route groups, one file each (issue 21).
      'shared/contract/routes/service-routes.ts',
      'shared/contract/routes/resource-routes.ts',
      'shared/contract/routes/run-routes.ts',
      'shared/contract/routes/controller-routes.ts',
      'shared/contract/routes/audit-routes.ts',
      'shared/contract/routes/rollout-routes.ts',
      'shared/contract/routes/route-matcher.ts',
      // What every request schema refuses because storage cannot hold it (issue 20).
      'shared/base/json/storable-schema.ts',
    ],
    tests: [
      'test/unit/foundation/route-access-modes.test.ts',
      'test/unit/foundation/route-table.test.ts',
      'test/unit/foundation/route-path-parameters.test.ts',
      // Unit files over the request schemas and the CORS filter's use of the matcher (issue 9).
      'test/unit/foundation/request-schemas.test.ts',
      'test/unit/foundation/storable-schema.test.ts',
      'test/integration/foundation/core-handler-filters.test.ts',
    ],
  },
  resources: {
    // The kubectl/resource handlers and the chain's authorization (issue 20): what each route is
    // authorized as, the writes bound to that decision, Tables and watches. The unit file proves the
    // declarations and the filter; the handlers are reached only over HTTP (servers start per file).
    mutate: [
      'shared/server/runtime/filters/authorization.ts',
      'shared/contract/routes/route-authorization.ts',
      'functions/resources/handlers/custom-resource-handlers.ts',
      'functions/resources/kinds/authorized-writes.ts',
      'functions/resources/kubernetes/table-output.ts',
      'functions/resources/kubernetes/resource-watch.ts',
    ],
    tests: [
      'test/integration/security/authorization-in-the-chain.test.ts',
      'test/unit/kubectl/table-output.test.ts',
      'test/integration/resources/resources-authorization.test.ts',
      'test/system/kubectl/kubernetes-api.test.ts',
      // Values written in clear to the cluster directly, which only the presenter hides: the only file
      // that fails when a Table is built from the raw list or a watch DELETED event skips the presenter.
      'test/integration/security/sensitive-values-everywhere.test.ts',
      // A watch's credential released when it ends or the cluster refuses it: seen only through the cap.
      'test/integration/resources/watch-cap-http.test.ts',
    ],
    ignoreStatic: true,
  },
  gateway: {
    // The fleet's gateway (issue 20): forwarding, deadlines, the replica pool, and routing by path
    // alone. Real node:http servers stand in for the replicas; each file starts its own, per test.
    mutate: [
      ...['forward-request', 'function-gateway', 'upstream-pool', 'upstream-timeouts'].map(
        (name) => `infra/development/gateway/${name}.ts`,
      ),
      'shared/contract/routes/gateway-routing.ts',
    ],
    tests: [
      'test/unit/foundation/gateway-routing.test.ts',
      'test/integration/deployment/gateway-forwarding.test.ts',
      'test/integration/deployment/upstream-pool.test.ts',
      'test/unit/foundation/route-table.test.ts',
    ],
    // Many gateway mutants make a forwarded request hang (a deadline or a pipe removed); its tests
    // wait at most a few seconds, so 20 s per hang would cost more than the rest of the run.
    timeoutMs: 5_000,
  },
  'variable-sets': {
    mutate: ['functions/resources/kinds/variable-set-writes.ts'],
    tests: ['test/integration/resources/variable-set-sensitive-values.test.ts'],
  },
  approvals: {
    // The rules that judge a Rollout write's approvals on its result (issue 37); the writes that apply them
    // (shared/domain/approvals/stage-approval-judge.ts) are proven over HTTP in test/integration/resources/rollout-approvals.test.ts.
    mutate: ['shared/domain/approvals/stage-approvals.ts'],
    tests: ['test/unit/resources/rollout-approval-rules.test.ts'],
  },
};

function score(results: MutantResult[]): {
  detected: number;
  valid: number;
  ignored: number;
  survived: MutantResult[];
} {
  const detected = results.filter((result) => result.status === 'Killed' || result.status === 'Timeout').length;
  const survived = results.filter((result) => result.status === 'Survived' || result.status === 'NoCoverage');
  const ignored = results.filter((result) => result.status === 'Ignored').length;
  return { detected, valid: detected + survived.length, ignored, survived };
}

/**
 * Stryker reuses a survivor's result while its code and the tests that covered it are unchanged, so
 * a new test that would kill it is never tried (always so for static mutants, which no test covers).
 * Survivors are few: they are dropped from the incremental report and tested again on every run.
 */
function forgetSurvivors(incrementalFile: string): void {
  if (!existsSync(incrementalFile)) return;
  const report = JSON.parse(readFileSync(incrementalFile, 'utf8')) as {
    files: Record<string, { mutants: Array<{ status: string }> }>;
  };
  for (const file of Object.values(report.files))
    file.mutants = file.mutants.filter((mutant) => mutant.status !== 'Survived' && mutant.status !== 'NoCoverage');
  writeFileSync(incrementalFile, JSON.stringify(report));
}

const requested = process.argv.slice(2);
const unknown = requested.filter((name) => !(name in SCOPES));
if (unknown.length > 0) {
  console.error(`unknown scope ${unknown.join(', ')}; scopes: ${Object.keys(SCOPES).join(', ')}`);
  process.exit(2);
}
const names = requested.length > 0 ? requested : Object.keys(SCOPES);
const rows: Array<{ scope: string } & ReturnType<typeof score>> = [];
// The sandbox is copied without `.tools/`; tests that render the chart find helm through HELM_PATH.
process.env.HELM_PATH ??= resolve('.tools/bin/helm');
for (const name of names) {
  const scope = SCOPES[name]!;
  process.env.MUTATION_TEST_FILES = scope.tests.join(',');
  // Written as the run goes (mutant-log-reporter.mjs), absolute: Stryker works in its sandbox.
  process.env.MUTANT_LOG_FILE = resolve(`reports/mutation/${name}.mutants.jsonl`);
  writeFileSync(process.env.MUTANT_LOG_FILE, '');
  forgetSurvivors(`reports/mutation/${name}.incremental.json`);
  const results = await new Stryker({
    testRunner: 'vitest',
    vitest: { configFile: 'test/mutation/vitest.config.ts', related: false },
    plugins: [
      '@stryker-mutator/vitest-runner',
      './test/mutation/route-documentation-ignorer.mjs',
      './test/mutation/mutant-log-reporter.mjs',
    ],
    // Only the route table mixes access rules with documentation.
    ignorers: name === 'routes' ? ['route-documentation'] : [],
    mutate: scope.mutate,
    ignoreStatic: scope.ignoreStatic ?? false,
    coverageAnalysis: 'perTest',
    incremental: true,
    incrementalFile: `reports/mutation/${name}.incremental.json`,
    ignorePatterns: ['.stryker-tmp', '.tools', '.data', 'reports', 'docs', 'coverage', 'dist'],
    concurrency: Number(process.env.MUTATION_CONCURRENCY ?? 2),
    timeoutMS: scope.timeoutMs ?? 20_000,
    reporters: ['clear-text', 'html', 'progress-append-only', 'mutant-log'],
    htmlReporter: { fileName: `reports/mutation/${name}.html` },
    clearTextReporter: { allowColor: false, logTests: false, reportScoreTable: true },
    tempDirName: `.stryker-tmp/${name}`,
    cleanTempDir: 'always',
  }).runMutationTest();
  rows.push({ scope: name, ...score(results) });
}

const percent = (detected: number, valid: number) => (valid === 0 ? 100 : (100 * detected) / valid).toFixed(2);
console.log('\nMutation score of the security core');
for (const { scope, detected, valid, ignored, survived } of rows) {
  console.log(
    `  ${scope.padEnd(14)} ${percent(detected, valid).padStart(6)}%  (${detected}/${valid} detected${ignored > 0 ? `; ${ignored} not run (ignored)` : ''})`,
  );
  for (const mutant of survived)
    console.log(
      `    survived: ${mutant.fileName}:${mutant.location.start.line} ${mutant.mutatorName} ${JSON.stringify(mutant.replacement ?? '')}`,
    );
}
const detected = rows.reduce((sum, row) => sum + row.detected, 0);
const valid = rows.reduce((sum, row) => sum + row.valid, 0);
console.log(
  `  ${'total'.padEnd(14)} ${percent(detected, valid).padStart(6)}%  (${detected}/${valid} detected; target ${TARGET_SCORE}%)`,
);
process.exitCode = Number(percent(detected, valid)) >= TARGET_SCORE ? 0 : 1;
