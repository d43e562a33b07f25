// `kubectl platform tokens revoke NAME`: the token is refused everywhere within seconds (docs/tokens.md).
import { tokenPath } from '../plugin/tokens-client.ts';
import type { PluginCommand } from './plugin-command.ts';

export const tokensRevoke: PluginCommand = {
  words: ['tokens', 'revoke'],
  arguments: ['NAME'],
  summary: 'Revoke a Project token',
  flags: [],
  outputs: ['name'],
  examples: ['kubectl platform tokens revoke deploy -n team-a'],
  async run(context) {
    const connection = context.connection();
    const name = context.line.positionals[0]!;
    await connection.call('DELETE', tokenPath(connection.namespace, name));
    context.stdout(context.output === 'name' ? `token/${name}\n` : `token/${name} revoked\n`);
    return 0;
  },
};
