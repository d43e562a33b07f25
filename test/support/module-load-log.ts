// Preloaded with `node --import` into a function process: appends the URL of every module the
// process loads to the file MODULE_LOAD_LOG names, so that a test can say what a function loaded.
import { appendFileSync } from 'node:fs';
import { registerHooks } from 'node:module';

const logFile = process.env.MODULE_LOAD_LOG!;
registerHooks({
  load(url, context, nextLoad) {
    appendFileSync(logFile, `${url}\n`);
    return nextLoad(url, context);
  },
});
