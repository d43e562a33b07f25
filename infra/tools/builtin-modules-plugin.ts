// An esbuild plugin of the function bundles: the bundles' ES imports of Node's built-in modules
// become require() calls (the banner of build-functions.ts gives every bundle a `require`).
// Why: an ES import of a built-in makes Node build that module's ES facade, which reads every
// export, lazy getters included: `node:http`'s loads Node's own copy of undici for its WebSocket,
// MessageEvent and EventSource getters, ~40 ms of a function's start spent on nothing it uses
// (docs/architecture.md, "Performance notes"). require() hands over the module object as it is.
import { builtinModules } from 'node:module';
import type { Plugin } from 'esbuild';

const BUILTIN = new Set(builtinModules);
const NAMESPACE = 'node-builtin-required';

export const builtinModulesByRequire: Plugin = {
  name: 'builtin-modules-by-require',
  setup(build) {
    build.onResolve({ filter: /^[a-z]/ }, (args) => {
      if (args.kind !== 'import-statement' && args.kind !== 'dynamic-import') return undefined;
      const name = args.path.replace(/^node:/, '');
      if (!BUILTIN.has(name) && !BUILTIN.has(args.path)) return undefined;
      return { path: args.path, namespace: NAMESPACE };
    });
    // A CommonJS module of one line: esbuild's interop reads its exports when used, not at import.
    build.onLoad({ filter: /.*/, namespace: NAMESPACE }, (args) => ({
      contents: `module.exports = require(${JSON.stringify(args.path)});`,
      loader: 'js',
    }));
  },
};
