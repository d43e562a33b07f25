// Import rules of the codebase (issue 21), checked by `npm run lint` (dependency-cruiser).
// What ships (the library `shared/`, the functions `functions/`, the runtime entries `knative/`) never
// imports what helps develop it (`infra/development/`, the emulator `infra/kube-emulator/`); the
// development code may import the product (its entries wrap the product's). The library `shared/` is layered: a folder imports only folders of LOWER layers (and its own
// files), never one of its own layer or above, so no loop between folders can form and each layer
// can be read knowing only what is below it. docs/architecture.md draws the same layers.

/**
 * Lowest first. The folders of shared/ sit in four rooms that name what they are (shared/README.md):
 * `base/` (no platform knowledge: JSON, HTTP shapes and the error catalogue, logging, metrics,
 * settings, tracing, the clients of Kubernetes and PostgreSQL), `contract/` (the API as clients see
 * it: the kinds, the route table, the OpenAPI document), `auth/` and `authz/` (who the caller is, what
 * it may do), `domain/` (one folder per capability: resources, runs, audit, streams, tokens) and `server/`
 * (one function's context and the filter chain). A room is not a layer: the layers below order the
 * folders, whichever room holds them.
 */
const SHARED_LAYERS = [
  ['base/json', 'base/caching', 'base/node', 'contract/kinds', 'contract/rules'], // no product knowledge: JSON patches, bounded maps, Node helpers; the kinds' names; the rules the server, the plugin and the console share (browser-safe)
  ['base/http', 'base/logging', 'base/metrics'], // the error catalogue and request/response shapes; the logger; the Prometheus metrics and their hooks
  ['base/config'], // settings parsed once from the environment and secret sources
  ['base/tracing'], // OpenTelemetry spans and trace-context propagation (the SDK loaded only when configured)
  ['base/kubernetes', 'base/database'], // clients of what is outside the process
  ['auth', 'domain/resources'], // who the caller is; the platform objects in the cluster and how they are presented
  ['authz', 'contract/routes', 'domain/streams'], // what the caller may do; the route table; stream caps
  ['domain/audit'], // the audit trail (what the approval judge notes of both principals)
  ['domain/approvals'], // approval policy and gates, judged in one place: what a stage approval, a plan's apply or a write needs (counts, groups, four eyes, windows, freezes, soak times), what a plan was planned for
  ['domain/runs', 'contract/openapi', 'domain/tokens'], // run history; the OpenAPI document built from the routes; Project tokens (issue 46)
  ['domain/outbound'], // the outbound engine: the outbox, deliveries shared across instances, safe outbound calls (issue 47); any receiver family plugs in
  ['domain/cluster-events'], // the events of what lives in the cluster (Rollout stages, approval windows, the freeze): a reconciler the outbound sweep runs (issue 47)
  ['domain/notifications', 'domain/run-tasks'], // receiver families of the outbound engine: the Notification kind (events, formats, secrets); run tasks' requests (issue 48; their results live with the runs, domain/runs/tasks)
  ['server/app'], // one function's context: its clients and stores wired together
  ['server/runtime'], // the filter chain and typed handlers
];

const folders = (layers) => layers.flat();
const pathOf = (names) => `^shared/(${names.join('|')})/`;

const layerRules = SHARED_LAYERS.flatMap((layer, index) =>
  layer.map((folder) => {
    const sameOrHigher = folders(SHARED_LAYERS.slice(index)).filter((other) => other !== folder);
    return {
      name: `layer-${folder}`,
      comment: `shared/${folder}/ (layer ${index + 1}) imports only lower layers: not ${sameOrHigher.join(', ')}`,
      severity: 'error',
      from: { path: pathOf([folder]) },
      to: { path: pathOf(sameOrHigher) },
    };
  }),
);

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'No import loop between files, type-only imports included.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'every-shared-folder-has-a-layer',
      comment: 'A new folder of shared/ takes its place in SHARED_LAYERS before it is imported.',
      severity: 'error',
      from: { path: '^shared/' },
      to: { path: '^shared/', pathNot: [pathOf(folders(SHARED_LAYERS)), '^shared/[^/]+$'] },
    },
    {
      name: 'library-imports-no-application',
      comment:
        'shared/ is what every function imports: it never imports a function, an entry, the plugin, the tools or the tests.',
      severity: 'error',
      from: { path: '^shared/' },
      to: { path: '^(cli|functions|knative|infra|test)/' },
    },
    {
      name: 'product-imports-no-development',
      comment:
        'What ships (shared/, functions/, knative/) never names local development or the emulator: the development entries hand their services over (DevelopmentServices), so no bundler plugin has to leave them out.',
      severity: 'error',
      from: { path: '^(shared|functions|knative)/' },
      to: { path: '^infra/(development|kube-emulator)/' },
    },
    {
      name: 'plugin-imports-no-development',
      comment:
        'The kubectl plugin and the user-facing commands (cli/, issue 39) ship to users as one executable: they never import local development, the emulator, the functions, their entries or the tests; of the server only the library (shared/), and only what a client needs.',
      severity: 'error',
      from: { path: '^cli/' },
      to: { path: '^(infra|test|functions|knative)/' },
    },
    {
      name: 'functions-import-no-platform',
      comment:
        'knative/ holds the platforms (Knative, functions-framework, Lambda, the node:http server and its TLS) over the functions: a function never imports its platform.',
      severity: 'error',
      from: { path: '^(functions|shared)/' },
      to: { path: '^knative/' },
    },
    {
      name: 'product-imports-no-tests',
      severity: 'error',
      from: { path: '^(shared|functions|knative|infra)/' },
      to: { path: '^test/' },
    },
    {
      name: 'emulator-imports-no-product',
      comment:
        'The Kubernetes emulator stands in for the cluster the product is tested against: it shares none of its code (its own JSON patch, its own probes), so a product bug cannot hide in both.',
      severity: 'error',
      from: { path: '^infra/kube-emulator/' },
      to: { path: '^(shared|functions|knative|test|infra/(?!kube-emulator/))' },
    },
    {
      name: 'console-app-is-browser-code',
      comment:
        'The console app (functions/console/app/src, issue 24) runs in a browser: it imports only its own files, the browser-safe contract rules of shared/contract/rules/ (issue 43, item 7) and its browser packages (preact, oauth4webapi, yaml, and croner through the rules), never the rest of shared/, a function, the entries, the tools or a node: module.',
      severity: 'error',
      from: { path: '^functions/console/app/src/' },
      to: {
        pathNot: [
          '^functions/console/app/src/',
          '^shared/contract/rules/',
          '(^|/)node_modules/(preact|oauth4webapi|yaml|croner)/',
        ],
      },
    },
    {
      name: 'contract-rules-are-browser-safe',
      comment:
        'shared/contract/rules/ (browser-safe contract rules, issue 43 item 7) is imported by the console in a browser: it imports only shared/contract/rules/ itself and croner (cron schedules of the approval windows, issue 45 item 3: no dependency, runs in browsers), never a node: module or another package.',
      severity: 'error',
      from: { path: '^shared/contract/rules/' },
      to: { pathNot: ['^shared/contract/rules/', '(^|/)node_modules/croner/'] },
    },
    ...layerRules,
  ],
  options: {
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|\\.tools|dist|coverage)/' },
  },
};
