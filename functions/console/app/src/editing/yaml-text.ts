// The YAML view of an object, and YAML read back (issue 40, item 1). The `yaml` package is loaded
// only when an editor opens (a chunk of its own), so the pages that only read stay small.
import { useEffect, useState } from 'preact/hooks';

export interface YamlCodec {
  /** YAML with keys sorted, so two versions of an object line up for a diff. */
  stringify(value: unknown): string;
  /** The value of one YAML document; throws the parser's message (line and column) for bad YAML. */
  parse(text: string): unknown;
}

let loading: Promise<YamlCodec> | undefined;

export function loadYaml(): Promise<YamlCodec> {
  loading ??= import('yaml').then((yaml) => ({
    stringify: (value) => (value === undefined ? '' : yaml.stringify(value, { sortMapEntries: true })),
    // One anchored value may stand at most 100 times, as the API allows (docs/resources.md).
    parse: (text) => yaml.parse(text, { maxAliasCount: 100, uniqueKeys: true }),
  }));
  loading.catch(() => (loading = undefined));
  return loading;
}

/** The codec once loaded (undefined before), and why it could not be (a network failure while the chunk loads). */
export function useYaml(): { codec: YamlCodec | undefined; failure: string | undefined } {
  const [codec, setCodec] = useState<YamlCodec | undefined>(undefined);
  const [failure, setFailure] = useState<string | undefined>(undefined);
  useEffect(() => {
    let live = true;
    loadYaml().then(
      (loaded) => live && setCodec(loaded),
      (error: unknown) => live && setFailure(`The YAML view cannot load: ${String(error)}`),
    );
    return () => {
      live = false;
    };
  }, []);
  return { codec, failure };
}
