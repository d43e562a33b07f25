import type { Api } from '../api.ts';
import { useLoaded } from '../use-loaded.ts';
import { LoadedView, PageTitle } from './common.tsx';

const PRINCIPAL_TYPES: Record<string, string> = {
  admin: 'the admin account',
  oidc: 'an OIDC user',
  serviceaccount: 'a Kubernetes ServiceAccount',
};

export function WhoAmIPage({ api }: { api: Api }) {
  const whoami = useLoaded(() => api.get<{ type: string; name: string }>('/api/v1alpha1/auth/whoami'), 'whoami');
  return (
    <>
      <PageTitle>Who am I</PageTitle>
      <LoadedView loaded={whoami}>
        {(me) => (
          <dl class="facts">
            <dt>Name</dt>
            <dd class="wrap" data-testid="principal-name">
              {me.name}
            </dd>
            <dt>Principal type</dt>
            <dd data-testid="principal-type">
              {me.type} ({PRINCIPAL_TYPES[me.type] ?? 'unknown'})
            </dd>
          </dl>
        )}
      </LoadedView>
    </>
  );
}
