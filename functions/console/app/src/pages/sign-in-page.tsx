import { useState } from 'preact/hooks';
import { adminLogin } from '../auth/admin-login.ts';
import { startOidcLogin } from '../auth/oidc-login.ts';
import type { ConsoleConfig } from '../config.ts';
import { signInReason } from '../session.ts';
import { PageTitle } from './common.tsx';

/** The provider's name for the button: its host (issuer URLs rarely carry a friendlier one). */
function providerName(issuerUrl: string): string {
  return new URL(issuerUrl).host;
}

export function SignInPage({ config, onSignedIn }: { config: ConsoleConfig; onSignedIn: (token: string) => void }) {
  const [password, setPassword] = useState('');
  const [message, setMessage] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const reason = signInReason();
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setMessage(undefined);
    try {
      const result = await adminLogin(config.apiBaseUrl, password);
      if (result.ok) onSignedIn(result.token);
      else setMessage(result.message);
    } catch (error) {
      setMessage(`The API cannot be reached: ${error instanceof Error ? error.message : String(error)}`);
    } finally {
      setBusy(false);
    }
  };
  const oidc = config.oidc;
  return (
    <div class="sign-in">
      <PageTitle>Sign in</PageTitle>
      {reason && (
        <p class="notice" role="alert" data-testid="sign-in-reason">
          {reason}
        </p>
      )}
      {config.adminAccountEnabled && (
        <form onSubmit={submit} aria-labelledby="admin-heading">
          <h2 id="admin-heading">Admin account</h2>
          <label for="password">Password</label>
          <input
            id="password"
            type="password"
            autoComplete="current-password"
            required
            value={password}
            onInput={(event) => setPassword((event.target as HTMLInputElement).value)}
          />
          <button type="submit" disabled={busy}>
            Sign in as admin
          </button>
          {message && (
            <p class="error" role="alert" data-testid="sign-in-error">
              {message}
            </p>
          )}
        </form>
      )}
      {oidc && (
        <div class="oidc">
          <button
            type="button"
            onClick={() =>
              startOidcLogin(oidc).catch((error: unknown) =>
                setMessage(`Sign-in with ${providerName(oidc.issuerUrl)} failed: ${String(error)}`),
              )
            }
          >
            Sign in with {providerName(oidc.issuerUrl)}
          </button>
          {message && !config.adminAccountEnabled && (
            <p class="error" role="alert">
              {message}
            </p>
          )}
        </div>
      )}
      {!config.adminAccountEnabled && !oidc && <p>The API offers no way to sign in from a browser.</p>}
    </div>
  );
}
