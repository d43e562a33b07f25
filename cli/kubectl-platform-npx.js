#!/usr/bin/env node
// `npx kubectl-platform` in the checkout (the package's bin): the plugin's bundle, made once into
// node_modules/.cache and again only when a source changed, instead of the TypeScript sources, whose
// loading took 6-9 s per command (issue 44, item 13; docs/cli.md). Any Node runs this file: an older
// one hands the command to the Node the project installed first (on-project-node.js).
import './on-project-node.js';
import { createRequire } from 'node:module';
import { cachedPluginBundle } from './plugin-bundle.js';

createRequire(import.meta.url)(await cachedPluginBundle());
