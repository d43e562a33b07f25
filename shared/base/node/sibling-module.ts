/**
 * A module beside the calling one, by base name: `<name>.ts` among the TypeScript sources,
 * `<name>.mjs` in the bundles (`npm run build`), which place such modules beside the code that
 * names them. For what is loaded by path rather than imported: a worker thread, a chosen function.
 */
export function siblingModule(name: string, importMetaUrl: string): URL {
  const extension = importMetaUrl.endsWith('.mjs') ? 'mjs' : 'ts';
  return new URL(`./${name}.${extension}`, importMetaUrl);
}
