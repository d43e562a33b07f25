/** Renders the OpenAPI document as one self-contained HTML page (no scripts, no CDN). */
export function renderReferencePage(document: Record<string, unknown>): string {
  const info = document.info as { title: string; version: string; description: string };
  const paths = document.paths as Record<string, Record<string, Operation>>;
  const sections = Object.entries(paths)
    .flatMap(([path, operations]) => Object.entries(operations).map(([method, operation]) => renderOperation(path, method, operation)))
    .join('\n');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(info.title)} reference</title>
<style>
body { font: 15px/1.5 system-ui, sans-serif; max-width: 60rem; margin: 2rem auto; padding: 0 1rem; color: #1d2330; }
h1 { margin-bottom: 0; } .version { color: #5b6475; }
section { border: 1px solid #d8dde6; border-radius: 6px; padding: .75rem 1rem; margin: 1rem 0; }
.method { display: inline-block; min-width: 4.5rem; font-weight: 700; text-transform: uppercase; }
.path { font-family: ui-monospace, monospace; font-size: 1rem; }
.open { color: #1a7f37; font-size: .85rem; margin-left: .5rem; } .auth { color: #9a6700; font-size: .85rem; margin-left: .5rem; }
table { border-collapse: collapse; margin-top: .5rem; } td { padding: .15rem .75rem .15rem 0; vertical-align: top; }
code { font-family: ui-monospace, monospace; }
</style>
</head>
<body>
<h1>${escapeHtml(info.title)}</h1>
<p class="version">Version ${escapeHtml(info.version)} · <a href="/openapi.json">openapi.json</a></p>
<p>${renderInline(info.description)}</p>
${sections}
</body>
</html>
`;
}

interface Operation {
  operationId: string;
  summary: string;
  security?: unknown[];
  responses: Record<string, { description: string }>;
}

function renderOperation(path: string, method: string, operation: Operation): string {
  const open = Array.isArray(operation.security) && operation.security.length === 0;
  const responses = Object.entries(operation.responses)
    .map(([status, response]) => `<tr><td><code>${escapeHtml(status)}</code></td><td>${renderInline(response.description)}</td></tr>`)
    .join('');
  return `<section id="${escapeHtml(operation.operationId)}">
<div><span class="method">${escapeHtml(method)}</span><span class="path">${escapeHtml(path)}</span>${open ? '<span class="open">no authentication</span>' : '<span class="auth">bearer token</span>'}</div>
<p>${renderInline(operation.summary)}</p>
<table>${responses}</table>
</section>`;
}

/** Escapes text and turns `backticks` into code spans, the only markup the summaries use. */
function renderInline(text: string): string {
  return escapeHtml(text).replace(/`([^`]+)`/g, '<code>$1</code>');
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}
