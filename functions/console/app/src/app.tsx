// The console (issue 24): loads its configuration, completes an OIDC redirect if this load is one,
// then shows the page of the hash route, or sign-in when there is no token or the API refused it.
import { useEffect, useMemo, useState } from 'preact/hooks';
import { READ_AUDIT, useAllowed } from './access.ts';
import { type Api, createApi } from './api.ts';
import { completeOidcLogin, isOidcCallback } from './auth/oidc-login.ts';
import { type ConsoleConfig, loadConsoleConfig } from './config.ts';
import { kindOfPlural } from './kinds.ts';
import { AuditPage } from './pages/audit-page.tsx';
import { PageTitle } from './pages/common.tsx';
import { ObjectEditPage } from './pages/object-edit-page.tsx';
import { ProjectPage } from './pages/project-page.tsx';
import { ProjectsPage } from './pages/projects-page.tsx';
import { RolloutPage } from './pages/rollout-page.tsx';
import { RunPage } from './pages/run-page.tsx';
import { SignInPage } from './pages/sign-in-page.tsx';
import { TokensPage } from './pages/tokens-page.tsx';
import { VariableSetPage } from './pages/variable-set-page.tsx';
import { NotificationPage } from './pages/notification-page.tsx';
import { WhoAmIPage } from './pages/whoami-page.tsx';
import { WorkspacePage } from './pages/workspace-page.tsx';
import { href, navigate, parseRoute, type Route, useHash } from './router.ts';
import {
  currentToken,
  forgetToken,
  rememberReturnTo,
  rememberSignInCause,
  rememberSignInReason,
  signIn,
  takeReturnTo,
} from './session.ts';

export function Console() {
  const [config, setConfig] = useState<ConsoleConfig | undefined>(undefined);
  const [failure, setFailure] = useState<string | undefined>(undefined);
  const [token, setToken] = useState(currentToken());
  const hash = useHash();

  useEffect(() => {
    loadConsoleConfig()
      .then(async (loaded) => {
        if (loaded.oidc && isOidcCallback()) {
          try {
            const idToken = await completeOidcLogin(loaded.oidc);
            signIn(idToken);
            setToken(idToken);
            navigate(takeReturnTo());
          } catch (error) {
            // Refused at the provider, or a code that does not redeem: say so on the sign-in page.
            rememberSignInReason(
              `Sign-in with the provider failed: ${error instanceof Error ? error.message : String(error)}`,
            );
            navigate('#/sign-in');
          } finally {
            // The code and state leave the address bar (and the history) either way.
            history.replaceState(null, '', `${location.pathname}${location.hash}`);
          }
        }
        setConfig(loaded);
      })
      .catch((error: unknown) => setFailure(error instanceof Error ? error.message : String(error)));
  }, []);

  /** Any 401: forget the token and go to sign-in saying why, remembering where the user was. */
  const unauthorized = (reason: string) => {
    if (!currentToken()) return;
    forgetToken();
    rememberSignInCause(location.hash || '#/projects', `You were signed out: ${reason}`);
    setToken(null);
    navigate('#/sign-in');
  };
  // Arriving without a token: sign in first, then come back here.
  useEffect(() => {
    if (currentToken() === null && config && parseRoute(hash).page !== 'sign-in') {
      rememberReturnTo(hash || '#/projects');
      navigate('#/sign-in');
    }
  }, [hash, token, config]);
  const api = useMemo(() => (config ? createApi(config.apiBaseUrl, unauthorized) : undefined), [config]);

  if (failure)
    return (
      <main id="main">
        <p class="error" role="alert">
          The console cannot start: {failure}
        </p>
      </main>
    );
  if (!config || !api)
    return (
      <main id="main">
        <p aria-busy="true">Loading…</p>
      </main>
    );

  const route = parseRoute(hash);
  const signedIn = token !== null;
  const signOut = () => {
    forgetToken();
    setToken(null);
    rememberSignInCause('#/projects', null);
    navigate('#/sign-in');
  };
  const signedInWith = (newToken: string) => {
    signIn(newToken);
    setToken(newToken);
    navigate(takeReturnTo());
  };

  return (
    <>
      {/* A button, not a link: with hash routing, href="#main" would be a route. */}
      <button type="button" class="skip" onClick={() => document.getElementById('main')?.focus()}>
        Skip to content
      </button>
      <header>
        <span class="brand">Platform console</span>
        {signedIn && <MainNavigation api={api} key={token} onSignOut={signOut} />}
      </header>
      <main id="main" tabIndex={-1} key={hash}>
        {!signedIn || route.page === 'sign-in' ? (
          signedIn ? (
            <RedirectHome />
          ) : (
            <SignInPage config={config} onSignedIn={signedInWith} />
          )
        ) : route.page === 'run' ? (
          <RunPage api={api} project={route.project} runId={route.run} onUnauthorized={unauthorized} />
        ) : (
          <SignedInPage api={api} route={route} />
        )}
      </main>
    </>
  );
}

/** The page of a route, for a signed-in user. */
function SignedInPage({ api, route }: { api: Api; route: Route }) {
  switch (route.page) {
    case 'projects':
      return <ProjectsPage api={api} />;
    case 'project':
      return <ProjectPage api={api} project={route.project} />;
    case 'workspace':
      return <WorkspacePage api={api} project={route.project} workspace={route.workspace} />;
    case 'rollout':
      return <RolloutPage api={api} project={route.project} rollout={route.rollout} />;
    case 'variableset':
      return <VariableSetPage api={api} project={route.project} variableSet={route.variableSet} />;
    case 'notification':
      return <NotificationPage api={api} project={route.project} notification={route.notification} />;
    case 'create':
    case 'edit': {
      const kind = kindOfPlural(route.plural);
      if (!kind) break;
      return (
        <ObjectEditPage
          api={api}
          kind={kind}
          project={route.project}
          name={route.page === 'edit' ? route.name : undefined}
        />
      );
    }
    case 'tokens':
      return <TokensPage api={api} project={route.project} />;
    case 'audit':
      return <AuditPage api={api} query={route.query} />;
    case 'whoami':
      return <WhoAmIPage api={api} />;
  }
  return <PageTitle>Page not found</PageTitle>;
}

/** The header's links: the audit trail only for those who may read it (one review per session). */
function MainNavigation({ api, onSignOut }: { api: Api; onSignOut: () => void }) {
  const mayReadAudit = useAllowed(api, READ_AUDIT);
  return (
    <nav aria-label="Main">
      <a href={href('projects')}>Projects</a>
      {mayReadAudit && <a href={href('audit')}>Audit trail</a>}
      <a href={href('whoami')}>Who am I</a>
      <button type="button" class="link" onClick={onSignOut}>
        Sign out
      </button>
    </nav>
  );
}

function RedirectHome() {
  useEffect(() => navigate('#/projects'), []);
  return null;
}
