import { parse as parseYaml } from 'yaml';
import { API_VERSION, PLATFORM_KINDS, type PlatformKind } from './platform-kinds.ts';
import { readPlatformCrdFiles } from './platform-crd-files.ts';

/** One column of `kubectl get`, as the CRD's additionalPrinterColumns declare it. */
export interface PrinterColumn {
  name: string;
  type: string;
  jsonPath: string;
  description?: string;
  format?: string;
  priority?: number;
}

/** What discovery, OpenAPI and Table output say about a kind, read from its CustomResourceDefinition. */
export interface KindDescription {
  kind: PlatformKind;
  singular: string;
  shortNames: string[];
  categories: string[];
  printerColumns: PrinterColumn[];
  /** The served version's openAPIV3Schema. */
  schema: Record<string, unknown>;
  subresources: string[];
}

interface CrdDocument {
  spec: {
    names: { plural: string; singular?: string; shortNames?: string[]; categories?: string[] };
    versions: {
      name: string;
      subresources?: Record<string, unknown>;
      additionalPrinterColumns?: PrinterColumn[];
      schema?: { openAPIV3Schema?: Record<string, unknown> };
    }[];
  };
}

const loaded = new Map<string, Promise<KindDescription[]>>();

/** The platform's kinds as the chart's CRDs describe them (read once per API group). */
export function platformKindDescriptions(apiGroup: string): Promise<KindDescription[]> {
  let descriptions = loaded.get(apiGroup);
  if (!descriptions) {
    descriptions = readPlatformCrdFiles(apiGroup).then((files) =>
      describeKinds(files.map((text) => parseYaml(text) as CrdDocument)),
    );
    loaded.set(apiGroup, descriptions);
  }
  return descriptions;
}

function describeKinds(crds: CrdDocument[]): KindDescription[] {
  return PLATFORM_KINDS.map((kind) => {
    const crd = crds.find((candidate) => candidate.spec.names.plural === kind.plural);
    const version = crd?.spec.versions.find((candidate) => candidate.name === API_VERSION);
    if (!crd || !version)
      throw new Error(`the chart has no CustomResourceDefinition serving ${kind.plural} ${API_VERSION}`);
    return {
      kind,
      singular: crd.spec.names.singular ?? kind.kind.toLowerCase(),
      shortNames: crd.spec.names.shortNames ?? [],
      categories: crd.spec.names.categories ?? [],
      printerColumns: version.additionalPrinterColumns ?? [],
      schema: version.schema?.openAPIV3Schema ?? { type: 'object' },
      subresources: Object.keys(version.subresources ?? {}),
    };
  });
}
