// Password input for `platform-api`: no echo on a terminal, the first line of a pipe otherwise.

const MAX_PASSWORD_BYTES = 72;

/** The bcrypt library's two calls the hash needs (bcryptjs's). */
interface Bcrypt {
  genSaltSync(rounds: number): string;
  hashSync(password: string, salt: string): string;
}

/** Hashes a password for the admin account: cost `cost`, prefix `$2a$` (never `$2y$`). */
export function hashPasswordForAdminAccount(bcrypt: Bcrypt, password: string, cost: number): string {
  if (password.length === 0) throw new Error('the password is empty');
  if (Buffer.byteLength(password) > MAX_PASSWORD_BYTES) {
    throw new Error(
      `the password is longer than ${MAX_PASSWORD_BYTES} bytes; bcrypt ignores everything past that, so it is refused`,
    );
  }
  // bcryptjs writes $2b$; $2a$ and $2b$ hashes of the same input are identical past the prefix.
  return bcrypt.hashSync(password, bcrypt.genSaltSync(cost)).replace(/^\$2b\$/, '$2a$');
}

/** The password from the terminal (prompted, without echo) or else the first line of a pipe. */
export function readPassword(prompt: string): Promise<string> {
  return process.stdin.isTTY ? promptHidden(prompt) : readPasswordFromPipe();
}

/** Reads the first line of a piped standard input. */
export async function readPasswordFromPipe(): Promise<string> {
  let text = '';
  for await (const chunk of process.stdin) {
    text += chunk;
    if (text.includes('\n')) break;
  }
  return text.split(/\r?\n/, 1)[0]!;
}

/** Prompts twice on the terminal without echo and checks the two entries agree. */
export async function readNewPasswordFromTerminal(): Promise<string> {
  const first = await promptHidden('Password: ');
  const second = await promptHidden('Repeat password: ');
  if (first !== second) throw new Error('the two passwords differ');
  return first;
}

/** Prompts once on the terminal without echo (`prompt` goes to standard error). */
export function promptHidden(prompt: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const { stdin, stderr } = process;
    stdin.setRawMode(true);
    stdin.resume();
    stdin.setEncoding('utf8');
    let entered = '';
    const finish = (error?: Error) => {
      stdin.setRawMode(false);
      stdin.pause();
      stdin.off('data', onData);
      stderr.write('\n');
      if (error) reject(error);
      else resolve(entered);
    };
    const onData = (chunk: string) => {
      for (const char of chunk) {
        if (char === '\r' || char === '\n') return finish();
        if (char === '\u0003') return finish(new Error('cancelled'));
        if (char === '\u007f' || char === '\b') entered = entered.slice(0, -1);
        else entered += char;
      }
    };
    discardTypedAhead(stdin).then(() => {
      stderr.write(prompt);
      stdin.on('data', onData);
    }, reject);
  });
}

/**
 * Drops what was typed before the prompt appeared (while Node started, the terminal was still in
 * line mode and echoed it): keys the user did not type as the password must not become it.
 */
function discardTypedAhead(stdin: NodeJS.ReadStream): Promise<void> {
  return new Promise((resolve) => {
    const drop = () => {};
    stdin.on('data', drop);
    setTimeout(() => {
      stdin.off('data', drop);
      resolve();
    }, 150);
  });
}
