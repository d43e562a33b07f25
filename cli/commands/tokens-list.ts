// `kubectl platform tokens list`: the Project's tokens with their role, creator, expiry and last use; never a value.
import { formatTokens, type TokenRecord, tokensPath } from '../plugin/tokens-client.ts';
import type { PluginCommand } from './plugin-command.ts';

export const tokensList: PluginCommand = {
  words: ['tokens', 'list'],
  arguments: [],
  summary: "List the Project's tokens and their last use",
  flags: [],
  outputs: ['wide', 'json', 'yaml', 'name'],
  examples: ['kubectl platform tokens list -n team-a', 'kubectl platform tokens list -o wide'],
  async run(context) {
    const connection = context.connection();
    const { body } = await connection.call('GET', tokensPath(connection.namespace));
    const { items } = body as { items: TokenRecord[] };
    if (items.length === 0 && context.output === 'table') {
      context.stderr(`No tokens found in ${connection.namespace} namespace.\n`);
      return 0;
    }
    context.stdout(formatTokens(items, context.output));
    return 0;
  },
};
