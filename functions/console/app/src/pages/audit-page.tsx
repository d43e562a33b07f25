// The audit trail (issue 40, item 4; docs/audit.md): `GET /api/v1alpha1/audit/events` filtered by
// time, user, verb, resource, Project, name, run and outcome, in keyset pages, each event linking to
// the object and the run it is about. The filters and the page are in the address
// (`#/audit?user=admin&continue=…`), so Back goes to the page before and a filtered view can be shared.
// Only those who may read the trail see the link to it; anyone else opening it reads the API's refusal.
import { useState } from 'preact/hooks';
import type { Api } from '../api.ts';
import { kindOfPlural, objectHref } from '../kinds.ts';
import { href, navigate } from '../router.ts';
import { useLoaded } from '../use-loaded.ts';
import { DataTable, LoadedView, PageTitle, TimeCell } from './common.tsx';

/** An `audit.k8s.io/v1` Event, as much as the page shows of it. */
interface AuditEvent {
  auditID: string;
  stage: string;
  verb: string;
  requestURI: string;
  user: { username?: string };
  impersonatedUser?: { username?: string };
  objectRef?: { resource?: string; subresource?: string; namespace?: string; name?: string; uid?: string };
  responseStatus?: { code?: number; status?: string; reason?: string };
  requestReceivedTimestamp?: string;
  stageTimestamp?: string;
  annotations?: Record<string, string>;
}

interface EventList {
  metadata: { continue?: string };
  items: AuditEvent[];
}

const PAGE_SIZE = 50;
const TEXT_FILTERS = [
  { name: 'user', label: 'User', hint: 'Exactly: admin, an OIDC username, system:serviceaccount:…' },
  { name: 'verb', label: 'Verb', hint: 'create, patch, delete, approve, get, list, post…' },
  { name: 'resource', label: 'Resource', hint: 'projects, workspaces, rollouts, variablesets, runs…' },
  { name: 'namespace', label: 'Project', hint: "The object's namespace: its Project." },
  { name: 'name', label: 'Name', hint: "The object's name." },
  { name: 'run', label: 'Run', hint: "A run's id." },
] as const;
const TIME_FILTERS = [
  { name: 'since', label: 'Since' },
  { name: 'until', label: 'Until' },
] as const;
const OUTCOMES = [
  { value: '', label: 'Any' },
  { value: 'success', label: 'Success (below 400)' },
  { value: 'failure', label: 'Failure (400 and above)' },
  { value: 'refused', label: 'Refused (401, 403, 429)' },
];

/** An RFC 3339 time as a datetime-local field shows it (local time, to the minute), and back. */
function toLocalInput(rfc3339: string | null): string {
  if (!rfc3339) return '';
  const date = new Date(rfc3339);
  if (Number.isNaN(date.getTime())) return '';
  return new Date(date.getTime() - date.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
}
function fromLocalInput(value: string): string | undefined {
  const date = new Date(value);
  return value && !Number.isNaN(date.getTime()) ? date.toISOString() : undefined;
}

export function AuditPage({ api, query }: { api: Api; query: string }) {
  const params = new URLSearchParams(query);
  const asked = new URLSearchParams(params);
  // A `limit` in the address is the API's (1 to 500, a 400 otherwise); the page's own is 50.
  if (!asked.has('limit')) asked.set('limit', String(PAGE_SIZE));
  const events = useLoaded(() => api.get<EventList>(`/api/v1alpha1/audit/events?${asked}`), `audit?${asked}`);
  const [filters, setFilters] = useState<Record<string, string>>(() => ({
    ...Object.fromEntries(TEXT_FILTERS.map(({ name }) => [name, params.get(name) ?? ''])),
    ...Object.fromEntries(TIME_FILTERS.map(({ name }) => [name, toLocalInput(params.get(name))])),
    outcome: params.get('outcome') ?? '',
  }));
  const set = (name: string) => (event: Event) =>
    setFilters({ ...filters, [name]: (event.currentTarget as HTMLInputElement | HTMLSelectElement).value });
  const apply = (event: Event) => {
    event.preventDefault();
    const next = new URLSearchParams();
    for (const [name, value] of Object.entries(filters)) {
      const sent = TIME_FILTERS.some((filter) => filter.name === name) ? fromLocalInput(value) : value.trim();
      if (sent) next.set(name, sent);
    }
    navigate(`#/audit${next.size > 0 ? `?${next}` : ''}`);
  };
  const withoutPage = new URLSearchParams(params);
  withoutPage.delete('continue');
  return (
    <>
      <PageTitle>Audit trail</PageTitle>
      <p>Who did what, oldest first: every write, refusal and login, and the controller's calls (docs/audit.md).</p>
      <form class="filters" onSubmit={apply} aria-label="Filters">
        {TIME_FILTERS.map(({ name, label }) => (
          <div class="field" key={name}>
            <label for={`audit-${name}`}>{label}</label>
            <input id={`audit-${name}`} type="datetime-local" value={filters[name]} onInput={set(name)} />
          </div>
        ))}
        {TEXT_FILTERS.map(({ name, label, hint }) => (
          <div class="field" key={name}>
            <label for={`audit-${name}`}>{label}</label>
            <input
              id={`audit-${name}`}
              type="text"
              spellcheck={false}
              value={filters[name]}
              onInput={set(name)}
              aria-describedby={`audit-${name}-hint`}
            />
            <small class="hint" id={`audit-${name}-hint`}>
              {hint}
            </small>
          </div>
        ))}
        <div class="field">
          <label for="audit-outcome">Outcome</label>
          <select id="audit-outcome" value={filters.outcome} onChange={set('outcome')}>
            {OUTCOMES.map(({ value, label }) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </div>
        <div class="actions">
          <button type="submit">Apply filters</button>
          <a href="#/audit">Clear filters</a>
        </div>
      </form>
      <LoadedView loaded={events}>
        {(list) => (
          <>
            {list.items.length === 0 ? (
              <p>No events{params.size > 0 ? ' match these filters' : ''}.</p>
            ) : (
              <DataTable
                class="audit"
                caption={`Events, oldest first (${list.items.length} on this page)`}
                columns={['Time', 'User', 'Verb', 'Object', 'Run', 'Outcome']}
              >
                {list.items.map((event) => (
                  <EventRow key={`${event.auditID}/${event.stage}`} event={event} />
                ))}
              </DataTable>
            )}
            <nav aria-label="Pages" class="actions">
              {params.has('continue') && (
                <a href={`#/audit${withoutPage.size > 0 ? `?${withoutPage}` : ''}`}>First page</a>
              )}
              {list.metadata.continue && (
                <a href={`#/audit?${withPage(withoutPage, list.metadata.continue)}`}>Next page</a>
              )}
            </nav>
          </>
        )}
      </LoadedView>
    </>
  );
}

function withPage(params: URLSearchParams, token: string): URLSearchParams {
  const next = new URLSearchParams(params);
  next.set('continue', token);
  return next;
}

function EventRow({ event }: { event: AuditEvent }) {
  const ref = event.objectRef;
  const run = ref?.uid ?? event.annotations?.['platform-api/run'];
  const status = event.responseStatus;
  const refused = event.annotations?.['authorization.k8s.io/decision'] === 'forbid';
  return (
    <tr>
      <td>
        <TimeCell value={event.stageTimestamp ?? event.requestReceivedTimestamp} />
      </td>
      <td class="wrap">
        {event.user.username ?? '—'}
        {event.impersonatedUser?.username && <span class="muted"> as {event.impersonatedUser.username}</span>}
      </td>
      <td>
        {event.verb}
        {event.annotations?.['platform-api/dry-run'] === 'true' && <span class="muted"> (dry run)</span>}
      </td>
      <td class="wrap">
        <ObjectCell event={event} />
      </td>
      <td>
        {run && ref?.namespace ? (
          <>
            <a href={href('projects', ref.namespace, 'runs', run)} title={run}>
              {run.slice(-8)}
            </a>{' '}
            <a href={`#/audit?run=${encodeURIComponent(run)}`} aria-label={`Events of run ${run}`}>
              (events)
            </a>
          </>
        ) : (
          '—'
        )}
      </td>
      <td class={status?.status === 'Failure' ? 'error' : ''}>
        {status?.code ?? '—'} {status?.reason ?? ''}
        {refused && ' (forbidden)'}
      </td>
    </tr>
  );
}

/** The object an event is about, linked to its page where the console has one; the request's path otherwise. */
function ObjectCell({ event }: { event: AuditEvent }) {
  const ref = event.objectRef;
  if (!ref?.resource) return <code>{event.requestURI}</code>;
  const kind = kindOfPlural(ref.resource);
  const what = `${ref.resource}${ref.subresource ? `/${ref.subresource}` : ''}${ref.name ? ` ${ref.name}` : ''}`;
  const linked =
    kind && ref.name && (ref.namespace || !kind.namespaced) ? (
      <a href={objectHref(kind, ref.namespace ?? ref.name, ref.name)}>{what}</a>
    ) : (
      what
    );
  return (
    <>
      {linked}
      {ref.namespace && (
        <>
          {' in '}
          <a href={href('projects', ref.namespace)}>{ref.namespace}</a>
        </>
      )}
    </>
  );
}
