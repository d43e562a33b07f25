import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { takeNotice } from '../notices.ts';
import { href } from '../router.ts';
import type { Loaded } from '../use-loaded.ts';

/** A page's heading, focused when the page opens so keyboard and screen-reader users start at its top. */
export function PageTitle({ children }: { children: ComponentChildren }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    heading.current?.focus();
    document.title = `${heading.current?.textContent ?? ''} · Platform console`;
  }, []);
  return (
    <h1 ref={heading} tabIndex={-1}>
      {children}
    </h1>
  );
}

/** The loading, failed and loaded states of one loaded thing. */
export function LoadedView<T>({ loaded, children }: { loaded: Loaded<T>; children: (data: T) => ComponentChildren }) {
  return (
    <>
      {loaded.error && (
        <p class="error" role="alert">
          {loaded.error.message}
        </p>
      )}
      {loaded.data === undefined ? !loaded.error && <p aria-busy="true">Loading…</p> : children(loaded.data)}
    </>
  );
}

/** A titled section of what `loaded` lists, saying so when it lists nothing. */
export function ListSection<Item>({
  id,
  title,
  loaded,
  children,
  actions,
}: {
  id: string;
  title: string;
  loaded: Loaded<{ items: Item[] }>;
  children: (items: Item[]) => ComponentChildren;
  /** Controls below the list (a "New …" link), shown whether or not it lists anything. */
  actions?: ComponentChildren;
}) {
  return (
    <section aria-labelledby={`${id}-heading`}>
      <h2 id={`${id}-heading`}>{title}</h2>
      <LoadedView loaded={loaded}>
        {(list) => (list.items.length === 0 ? <p>No {title}.</p> : children(list.items))}
      </LoadedView>
      {actions}
    </section>
  );
}

/**
 * A table that scrolls sideways inside its box on a narrow screen (the page itself never does), with
 * one column header for each name in `columns`; `false` leaves a column out (one the user may not use).
 */
export function DataTable({
  columns,
  caption,
  class: className,
  children,
}: {
  columns: Array<string | false>;
  caption?: ComponentChildren;
  class?: string;
  children: ComponentChildren;
}) {
  return (
    <div class="table-scroll">
      <table class={className}>
        {caption !== undefined && <caption>{caption}</caption>}
        <thead>
          <tr>
            {columns.map(
              (column) =>
                column !== false && (
                  <th scope="col" key={column}>
                    {column}
                  </th>
                ),
            )}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}

export function time(value: string | null | undefined): string {
  return value ? new Date(value).toLocaleString() : '—';
}

export function TimeCell({ value }: { value: string | null | undefined }) {
  return value ? <time dateTime={value}>{time(value)}</time> : <span title="not yet">—</span>;
}

/** What the page before left to say ("Deleted Workspace network."), then `text` as it changes; announced politely. */
export function PageNotice({ text, error }: { text?: string | undefined; error?: boolean }) {
  const [left] = useState(takeNotice);
  const shown = text ?? left ?? '';
  return (
    <p role="status" class={error ? 'error' : 'notice'} data-testid="page-notice">
      {shown}
    </p>
  );
}

/** Label and value pairs; pairs without a value are left out. */
export function Facts({ facts }: { facts: Array<[string, ComponentChildren]> }) {
  const shown = facts.filter(([, value]) => value !== undefined && value !== null && value !== '');
  if (shown.length === 0) return null;
  return (
    <dl class="facts">
      {shown.map(([label, value]) => (
        <div key={label} class="fact">
          <dt>{label}</dt>
          <dd class="wrap">{value}</dd>
        </div>
      ))}
    </dl>
  );
}

/** Where a page is: Projects, then its Project when it is inside one, then the page itself. */
export function Breadcrumbs({ project, current }: { project?: string; current: string }) {
  return (
    <nav aria-label="Breadcrumb" class="crumbs">
      <a href={href('projects')}>Projects</a> /{' '}
      {project !== undefined && (
        <>
          <a href={href('projects', project)}>{project}</a> /{' '}
        </>
      )}
      <span aria-current="page">{current}</span>
    </nav>
  );
}
