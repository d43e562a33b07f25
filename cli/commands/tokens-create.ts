// `kubectl platform tokens create NAME --role ROLE --lifetime 720h [--description D]`: a Project token. The value
// is printed once, alone on standard output, so it can be piped into a secret store; what was made goes to
// standard error.
import { usageError } from '../plugin/command-line.ts';
import { printObject } from '../plugin/printed-objects.ts';
import { parseRole, tokensPath } from '../plugin/tokens-client.ts';
import { type PluginCommand, stringFlag } from './plugin-command.ts';

export const tokensCreate: PluginCommand = {
  words: ['tokens', 'create'],
  arguments: ['NAME'],
  summary: "Create a Project token with a role's rights; its value is printed once, to standard output",
  flags: [
    { name: 'role', value: 'ROLE', description: 'NAME (a Role in the Project), Role/NAME or ClusterRole/NAME' },
    { name: 'lifetime', value: 'DURATION', description: 'how long it is valid: 10m to 8760h (required)' },
    { name: 'description', value: 'TEXT', description: 'what uses it; shown in the list' },
  ],
  outputs: ['json', 'yaml'],
  examples: [
    'kubectl platform tokens create deploy --role ci --lifetime 2160h | gh secret set PLATFORM_TOKEN',
    'kubectl platform tokens create nightly --role ClusterRole/platform-viewer --lifetime 24h -n team-a',
  ],
  async run(context) {
    const role = stringFlag(context, 'role');
    const lifetime = stringFlag(context, 'lifetime');
    if (role === undefined) throw usageError('--role is required');
    if (lifetime === undefined) throw usageError('--lifetime is required');
    const description = stringFlag(context, 'description');
    const connection = context.connection();
    const name = context.line.positionals[0]!;
    const { body } = await connection.call('POST', tokensPath(connection.namespace), {
      name,
      role: parseRole(role),
      lifetime,
      ...(description !== undefined ? { description } : {}),
    });
    const created = body as { token: string; expiresAt: string };
    if (context.output === 'json' || context.output === 'yaml') {
      context.stdout(printObject(created, context.output));
      return 0;
    }
    context.stderr(`token/${name} created (expires ${created.expiresAt}); it is not shown again\n`);
    context.stdout(`${created.token}\n`);
    return 0;
  },
};
