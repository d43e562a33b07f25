import { escapeHtml, renderInline, renderSchema, schemaAnchor } from './schema-html.ts';

// The /docs page: one self-contained HTML document rendered from /openapi.json on the server, with
// no script, so it needs nothing but its own bytes (CSP `default-src 'none'`). A table of contents
// by tag; each operation a <details> whose summary line says method, path and who may call it, and
// whose body shows the parameters, the request schema and every answer the route can give with its
// schema; the component schemas (the kinds from their CRDs) at the end, folded too, linked from where
// they are used. Folded, the page is a few screens long (its folded rows are dense, one line each: over
// a hundred operations); a link unfolds what it points at.

interface Response {
  description: string;
  content?: Record<string, { schema: Record<string, unknown> }>;
}
interface Operation {
  operationId: string;
  summary: string;
  tags?: string[];
  security?: unknown[];
  parameters?: { name: string; in: string; description?: string; schema: Record<string, unknown> }[];
  requestBody?: { content: Record<string, { schema: Record<string, unknown> }> };
  responses: Record<string, Response>;
}
interface Entry {
  path: string;
  method: string;
  operation: Operation;
}

const STYLE = `
body { font: 15px/1.5 system-ui, sans-serif; margin: 0; color: #1d2330; display: grid; grid-template-columns: 23rem 1fr; }
nav { position: sticky; top: 0; height: 100vh; overflow-y: auto; border-right: 1px solid #d8dde6; padding: 1rem; box-sizing: border-box; font-size: .8rem; background: #f7f8fa; }
nav h2 { font-size: .8rem; text-transform: uppercase; letter-spacing: .05em; color: #5b6475; margin: 1rem 0 .25rem; }
nav ul { list-style: none; margin: 0; padding: 0; } nav li { margin: .1rem 0; } nav a { color: #1d2330; text-decoration: none; display: block; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; } nav a:hover { text-decoration: underline; } nav .method { min-width: 3.5rem; }
main { padding: 1.5rem 2rem; max-width: 62rem; min-width: 0; }
h1 { margin: 0; } .version { color: #5b6475; } h2.group { border-bottom: 1px solid #d8dde6; padding-bottom: .25rem; margin: 1.5rem 0 .5rem; }
details.operation { border: 1px solid #d8dde6; border-radius: 6px; margin: .3rem 0; } details.operation > summary { cursor: pointer; padding: .25rem .75rem; line-height: 1.4; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
details.operation[open] > summary { border-bottom: 1px solid #d8dde6; } .body { padding: .25rem 1rem .75rem; }
.method { display: inline-block; min-width: 4rem; font-weight: 700; text-transform: uppercase; font-size: .8rem; }
.path { font-family: ui-monospace, monospace; overflow-wrap: anywhere; }
.brief { color: #5b6475; font-size: .85rem; margin-left: .75rem; } .open { color: #1a7f37; font-size: .8rem; margin-left: .5rem; } .auth { color: #9a6700; font-size: .8rem; margin-left: .5rem; }
h4 { margin: .75rem 0 .25rem; font-size: .9rem; } .answer { margin: .25rem 0 .5rem; }
.status { font-family: ui-monospace, monospace; font-weight: 700; } .media { color: #5b6475; font-size: .8rem; }
ul.fields { margin: .15rem 0; padding-left: 1.25rem; } .type { color: #6639ba; font-size: .85rem; } .required { color: #cf222e; font-size: .75rem; }
.constraint, .description { color: #5b6475; font-size: .85rem; } code { font-family: ui-monospace, monospace; font-size: .9em; }
details.schema > summary { cursor: pointer; font-weight: 700; padding: .3rem 0; } .body[id] { scroll-margin-top: 3rem; }
`;

/** The reference page of an OpenAPI document. */
export function renderReferencePage(document: Record<string, unknown>): string {
  const info = document.info as { title: string; version: string; description: string };
  const paths = document.paths as Record<string, Record<string, Operation>>;
  const schemas = ((document.components as { schemas?: Record<string, Record<string, unknown>> }).schemas ??
    {}) as Record<string, Record<string, unknown>>;
  const groups = new Map<string, Entry[]>();
  for (const [path, operations] of Object.entries(paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      const tag = operation.tags?.[0] ?? 'Other';
      (groups.get(tag) ?? groups.set(tag, []).get(tag)!).push({ path, method, operation });
    }
  }
  const contents = [...groups]
    .map(
      ([tag, entries]) =>
        `<h2><a href="#${escapeHtml(groupAnchor(tag))}">${escapeHtml(tag)}</a></h2><ul>${entries.map(tocEntry).join('')}</ul>`,
    )
    .join('');
  const sections = [...groups]
    .map(
      ([tag, entries]) =>
        `<h2 class="group" id="${escapeHtml(groupAnchor(tag))}">${escapeHtml(tag)}</h2>\n${entries.map(renderOperation).join('\n')}`,
    )
    .join('\n');
  const schemaList = Object.keys(schemas)
    .map((name) => `<li><a href="#${escapeHtml(schemaAnchor(name))}">${escapeHtml(name)}</a></li>`)
    .join('');
  const schemaSections = Object.entries(schemas)
    .map(
      ([name, schema]) =>
        `<details class="schema"><summary>${escapeHtml(name)}</summary><div class="body" id="${escapeHtml(schemaAnchor(name))}">${typeof schema.description === 'string' ? `<p>${renderInline(schema.description)}</p>` : ''}${renderSchema(schema)}</div></details>`,
    )
    .join('\n');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(info.title)} reference</title>
<style>${STYLE}</style>
</head>
<body>
<nav aria-label="Contents"><strong>Contents</strong>${contents}<h2><a href="#schemas">Schemas</a></h2><ul>${schemaList}</ul></nav>
<main>
<h1>${escapeHtml(info.title)}</h1>
<p class="version">Version ${escapeHtml(info.version)} · <a href="/openapi.json">openapi.json</a></p>
<p>${renderInline(info.description)}</p>
${sections}
<h2 class="group" id="schemas">Schemas</h2>
${schemaSections}
</main>
</body>
</html>
`;
}

function groupAnchor(tag: string): string {
  return `tag-${tag.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`;
}

/** A line of the contents: the resource paths without their common `/apis/<group>/<version>` prefix. */
function tocEntry({ path, method, operation }: Entry): string {
  const shown = path.replace(/^\/apis\/[^/]+\/v1alpha1\//, '…/');
  return `<li><a href="#${escapeHtml(operation.operationId)}" title="${escapeHtml(`${method.toUpperCase()} ${path}`)}"><span class="method">${escapeHtml(method)}</span> ${escapeHtml(shown)}</a></li>`;
}

function renderOperation({ path, method, operation }: Entry): string {
  const open = Array.isArray(operation.security) && operation.security.length === 0;
  const parameters = operation.parameters?.length
    ? `<h4>Path parameters</h4><ul class="fields">${operation.parameters.map((parameter) => `<li><code class="field">${escapeHtml(parameter.name)}</code> ${renderSchema(parameter.schema)}${parameter.description ? ` <span class="description">${renderInline(parameter.description)}</span>` : ''}</li>`).join('')}</ul>`
    : '';
  const request = operation.requestBody ? `<h4>Request body</h4>${renderContent(operation.requestBody.content)}` : '';
  const responses = Object.entries(operation.responses)
    .map(
      ([status, response]) =>
        `<div class="answer" data-status="${escapeHtml(status)}"><span class="status">${escapeHtml(status)}</span> ${renderInline(response.description)}${response.content ? renderContent(response.content) : ''}</div>`,
    )
    .join('');
  // The id is on the folded body: following a link to it unfolds the operation (the browser reveals a target's <details>).
  return `<details class="operation" data-operation="${escapeHtml(operation.operationId)}">
<summary><span class="method">${escapeHtml(method)}</span><span class="path">${escapeHtml(path)}</span>${open ? '<span class="open">no authentication</span>' : '<span class="auth">bearer token</span>'}<span class="brief">${renderInline(firstSentence(operation.summary))}</span></summary>
<div class="body" id="${escapeHtml(operation.operationId)}"><p>${renderInline(operation.summary)}</p>${parameters}${request}<h4>Answers</h4>${responses}</div>
</details>`;
}

function firstSentence(text: string): string {
  const end = text.search(/\.(\s|$)/);
  return end === -1 ? text : text.slice(0, end + 1);
}

function renderContent(content: Record<string, { schema: Record<string, unknown> }>): string {
  return Object.entries(content)
    .map(
      ([mediaType, { schema }]) =>
        `<div><span class="media">${escapeHtml(mediaType)}</span> ${renderSchema(schema)}</div>`,
    )
    .join('');
}
