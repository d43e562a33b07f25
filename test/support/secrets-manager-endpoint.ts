import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';

/** A local AWS Secrets Manager endpoint: enough of its JSON 1.1 protocol for the real SDK client. */
export interface SecretsManagerEndpoint {
  url: string;
  /** How many GetSecretValue calls it answered (to see that a source polls). */
  readonly getSecretValueCalls: number;
  close(): Promise<void>;
}

interface StoredSecret {
  arn: string;
  name: string;
  versionId: string;
  secretString: string;
  createdDate: number;
}

class AwsError extends Error {
  readonly type: string;

  constructor(type: string, message: string) {
    super(message);
    this.type = type;
  }
}

/** Starts the endpoint on 127.0.0.1; it serves CreateSecret, DescribeSecret, GetSecretValue and PutSecretValue. */
export async function startSecretsManagerEndpoint(region = 'us-east-1'): Promise<SecretsManagerEndpoint> {
  const secrets = new Map<string, StoredSecret>();
  let getSecretValueCalls = 0;
  const find = (secretId: unknown): StoredSecret => {
    const secret = [...secrets.values()].find((candidate) => candidate.name === secretId || candidate.arn === secretId);
    if (!secret) throw new AwsError('ResourceNotFoundException', "Secrets Manager can't find the specified secret.");
    return secret;
  };
  const operations: Record<string, (input: Record<string, unknown>) => Record<string, unknown>> = {
    CreateSecret(input) {
      const name = String(input.Name ?? '');
      if (!name) throw new AwsError('InvalidParameterException', 'Name is required.');
      if (secrets.has(name))
        throw new AwsError(
          'ResourceExistsException',
          `The operation failed because the secret ${name} already exists.`,
        );
      const secret = {
        arn: `arn:aws:secretsmanager:${region}:000000000000:secret:${name}-${randomUUID().slice(0, 6)}`,
        name,
        versionId: randomUUID(),
        secretString: String(input.SecretString ?? ''),
        createdDate: Date.now() / 1000,
      };
      secrets.set(name, secret);
      return { ARN: secret.arn, Name: name, VersionId: secret.versionId };
    },
    DescribeSecret(input) {
      const secret = find(input.SecretId);
      return {
        ARN: secret.arn,
        Name: secret.name,
        CreatedDate: secret.createdDate,
        VersionIdsToStages: { [secret.versionId]: ['AWSCURRENT'] },
      };
    },
    GetSecretValue(input) {
      getSecretValueCalls += 1;
      const secret = find(input.SecretId);
      return {
        ARN: secret.arn,
        Name: secret.name,
        VersionId: secret.versionId,
        SecretString: secret.secretString,
        VersionStages: ['AWSCURRENT'],
        CreatedDate: secret.createdDate,
      };
    },
    PutSecretValue(input) {
      const secret = find(input.SecretId);
      secret.secretString = String(input.SecretString ?? '');
      secret.versionId = typeof input.ClientRequestToken === 'string' ? input.ClientRequestToken : randomUUID();
      return { ARN: secret.arn, Name: secret.name, VersionId: secret.versionId, VersionStages: ['AWSCURRENT'] };
    },
  };

  const server = createServer((req, res) => void answer(req, res));
  async function answer(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const target = String(req.headers['x-amz-target'] ?? '');
    const operation = target.startsWith('secretsmanager.')
      ? operations[target.slice('secretsmanager.'.length)]
      : undefined;
    try {
      if (req.method !== 'POST' || !operation)
        throw new AwsError('UnknownOperationException', `unsupported operation ${target || '(no X-Amz-Target)'}`);
      const input = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>;
      send(res, 200, operation(input));
    } catch (error) {
      const type = error instanceof AwsError ? error.type : 'InternalServiceError';
      res.setHeader('x-amzn-ErrorType', type);
      send(res, error instanceof AwsError ? 400 : 500, { __type: type, message: (error as Error).message });
    }
  }

  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    get getSecretValueCalls() {
      return getSecretValueCalls;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/x-amz-json-1.1', 'x-amzn-RequestId': randomUUID() });
  res.end(JSON.stringify(body));
}
