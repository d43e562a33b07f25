// A Project's tokens for automation (issue 46, item 5; docs/tokens.md): the list with each token's
// last use, a form that creates one and shows its value once in a dialog (copied from there, never
// shown again, kept nowhere but that dialog's state), and Revoke. Creating and revoking are offered
// only where a SelfSubjectAccessReview says the server would allow them (revoking: by the token's
// name, as the route authorizes it); anyone else reads the list, or the API's refusal of it.
import { useEffect, useId, useRef, useState } from 'preact/hooks';
import type { ProjectTokenRecord } from '../../../../../shared/contract/rules/project-token-record.ts';
import { useAllowed } from '../access.ts';
import { type Api, errorText } from '../api.ts';
import { apiGroup } from '../platform-api.ts';
import { useLoaded } from '../use-loaded.ts';
import { Breadcrumbs, DataTable, ListSection, PageNotice, PageTitle, TimeCell } from './common.tsx';
import { ConfirmAction } from './confirm-action.tsx';

/** What the list shows of a token (never its value): the contract's one type. */
type ProjectToken = ProjectTokenRecord;

/** The lifetimes the server accepts (shared/contract/routes/token-routes.ts): a Go duration within them. */
const LIFETIME_RANGE = '10m to 8760h';

const tokensPath = (project: string) => `/api/v1alpha1/projects/${encodeURIComponent(project)}/tokens`;

export function TokensPage({ api, project }: { api: Api; project: string }) {
  const [notice, setNotice] = useState<string | undefined>(undefined);
  const group = useLoaded(() => apiGroup(api), 'group');
  const tokens = useLoaded(() => api.get<{ items: ProjectToken[] }>(tokensPath(project)), `tokens/${project}`);
  const asked = (verb: string, name?: string) =>
    group.data
      ? { verb, group: group.data, resource: 'tokens', namespace: project, ...(name ? { name } : {}) }
      : undefined;
  const mayCreate = useAllowed(api, asked('create'));
  return (
    <>
      <Breadcrumbs project={project} current="Tokens" />
      <PageTitle>Tokens of Project {project}</PageTitle>
      <p>
        Tokens for automation (a CI pipeline, a script): each is a ServiceAccount token in the Project's namespace that
        may do what its role allows there, until it expires or is revoked. Its value is shown once, when it is created.
      </p>
      <PageNotice text={notice} />
      <ListSection id="tokens" title="Tokens" loaded={tokens}>
        {(items) => (
          <DataTable
            class="tokens"
            columns={['Name', 'Role', 'Created by', 'Created', 'Expires', 'Last used', 'Revoke']}
          >
            {items.map((token) => (
              <TokenRow
                key={token.name}
                api={api}
                project={project}
                token={token}
                asked={asked}
                onRevoked={() => {
                  setNotice(`Revoked token ${token.name}.`);
                  tokens.reload();
                }}
              />
            ))}
          </DataTable>
        )}
      </ListSection>
      {mayCreate && (
        <CreateToken
          api={api}
          project={project}
          onCreated={(name) => {
            setNotice(`Created token ${name}.`);
            tokens.reload();
          }}
        />
      )}
    </>
  );
}

function TokenRow({
  api,
  project,
  token,
  asked,
  onRevoked,
}: {
  api: Api;
  project: string;
  token: ProjectToken;
  asked: (verb: string, name?: string) => Parameters<typeof useAllowed>[1];
  onRevoked: () => void;
}) {
  const mayRevoke = useAllowed(api, asked('delete', token.name));
  const expired = Date.parse(token.expiresAt) <= Date.now();
  return (
    <tr>
      <td class="wrap">
        <strong>{token.name}</strong>
        {token.description && <div class="muted">{token.description}</div>}
      </td>
      <td class="wrap">{token.role}</td>
      <td class="wrap">{token.creator}</td>
      <td>
        <TimeCell value={token.createdAt} />
      </td>
      <td>
        <TimeCell value={token.expiresAt} />
        {expired && <span class="muted"> (expired)</span>}
      </td>
      <td>
        {token.lastUsedAt ? (
          <>
            <TimeCell value={token.lastUsedAt} />
            {token.lastUsedFrom && <span class="muted"> from {token.lastUsedFrom}</span>}
          </>
        ) : (
          'never'
        )}
      </td>
      <td>
        {mayRevoke ? (
          <ConfirmAction
            trigger="Revoke"
            triggerLabel={`Revoke token ${token.name}`}
            title={`Revoke token ${token.name}?`}
            confirm={`Revoke token ${token.name}`}
            danger
            action={async () => {
              await api.send('DELETE', `${tokensPath(project)}/${encodeURIComponent(token.name)}`);
              onRevoked();
            }}
          >
            <p>
              Every request made with token {token.name} is refused from now on, on every instance of the API. This
              cannot be undone: a pipeline that uses it needs a new token.
            </p>
          </ConfirmAction>
        ) : (
          '—'
        )}
      </td>
    </tr>
  );
}

/** The form that creates a token, and the dialog that shows its value this once. */
function CreateToken({ api, project, onCreated }: { api: Api; project: string; onCreated: (name: string) => void }) {
  const [fields, setFields] = useState({ name: '', description: '', roleKind: 'Role', roleName: '', lifetime: '720h' });
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<string | undefined>(undefined);
  const [created, setCreated] = useState<{ name: string; token: string } | undefined>(undefined);
  const set = (name: keyof typeof fields) => (event: Event) =>
    setFields({ ...fields, [name]: (event.currentTarget as HTMLInputElement | HTMLSelectElement).value });
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setFailure(undefined);
    try {
      const answer = await api.post<{ name: string; token: string }>(tokensPath(project), {
        name: fields.name.trim(),
        ...(fields.description.trim() ? { description: fields.description.trim() } : {}),
        role: { kind: fields.roleKind, name: fields.roleName.trim() },
        lifetime: fields.lifetime.trim(),
      });
      setCreated({ name: answer.name, token: answer.token });
      setFields({ ...fields, name: '', description: '' });
      onCreated(answer.name);
    } catch (error) {
      setFailure(errorText(error));
    } finally {
      setBusy(false);
    }
  };
  return (
    <section aria-labelledby="new-token-heading">
      <h2 id="new-token-heading">New token</h2>
      <form class="panel" onSubmit={submit} aria-label="New token">
        <div class="field">
          <label for="token-name">Name</label>
          <input id="token-name" required maxLength={57} spellcheck={false} value={fields.name} onInput={set('name')} />
        </div>
        <div class="field">
          <label for="token-description">Description</label>
          <input id="token-description" maxLength={1024} value={fields.description} onInput={set('description')} />
        </div>
        <div class="field">
          <label for="token-role-kind">Role kind</label>
          <select id="token-role-kind" value={fields.roleKind} onChange={set('roleKind')}>
            <option value="Role">Role (in the Project's namespace)</option>
            <option value="ClusterRole">ClusterRole (bound in the Project's namespace only)</option>
          </select>
        </div>
        <div class="field">
          <label for="token-role-name">Role name</label>
          <input
            id="token-role-name"
            required
            spellcheck={false}
            value={fields.roleName}
            onInput={set('roleName')}
            aria-describedby="token-role-hint"
          />
          <small class="hint" id="token-role-hint">
            The token may do what this role allows in Project {project}; you must hold all of it yourself, or bind on
            the role.
          </small>
        </div>
        <div class="field">
          <label for="token-lifetime">Lifetime</label>
          <input
            id="token-lifetime"
            required
            spellcheck={false}
            value={fields.lifetime}
            onInput={set('lifetime')}
            aria-describedby="token-lifetime-hint"
          />
          <small class="hint" id="token-lifetime-hint">
            A Go duration such as 720h (30 days), from {LIFETIME_RANGE}.
          </small>
        </div>
        {failure && (
          <p class="error" role="alert">
            {failure}
          </p>
        )}
        <div class="actions">
          <button type="submit" disabled={busy}>
            Create token
          </button>
        </div>
      </form>
      {created && <TokenValueDialog created={created} onClose={() => setCreated(undefined)} />}
    </section>
  );
}

/** The new token's value, once: closing the dialog forgets it (the list never shows it). */
function TokenValueDialog({ created, onClose }: { created: { name: string; token: string }; onClose: () => void }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const id = useId();
  const [copied, setCopied] = useState<string | undefined>(undefined);
  useEffect(() => {
    if (dialog.current && !dialog.current.open) dialog.current.showModal();
  }, []);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(created.token);
      setCopied('Copied to the clipboard.');
    } catch (error) {
      setCopied(`The browser did not copy it (${errorText(error)}): select the value and copy it yourself.`);
    }
  };
  return (
    <dialog ref={dialog} aria-labelledby={`${id}-title`} onClose={onClose}>
      <h2 id={`${id}-title`}>Token {created.name} created</h2>
      <div class="dialog-body">
        <p>Copy the token now: it is shown this once, and never again. Store it where your automation reads secrets.</p>
        <label for={`${id}-value`}>Token</label>
        <textarea
          id={`${id}-value`}
          class="token-value"
          readOnly
          rows={4}
          spellcheck={false}
          value={created.token}
          onFocus={(event) => event.currentTarget.select()}
        />
        <p role="status">{copied ?? ''}</p>
      </div>
      <div class="actions">
        <button type="button" onClick={copy}>
          Copy token
        </button>
        <button type="button" class="secondary" onClick={() => dialog.current?.close()}>
          Done
        </button>
      </div>
    </dialog>
  );
}
