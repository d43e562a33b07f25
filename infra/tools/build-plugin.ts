// `npm run build:plugin` (part of `npm run build`): the kubectl plugin as users install it (issue 39).
//   dist/plugin/kubectl-platform.cjs                  one esbuild bundle with a `#!/usr/bin/env node` line:
//                                                      runs wherever Node 22 is (any OS, any CPU)
//   dist/plugin/kubectl-platform                      a single executable (Node's SEA: this Node with the
//                                                      bundle injected by postject), for this machine's OS and CPU
//   dist/plugin/kubectl-platform_<os>_<arch>.tar.gz   the executable as krew downloads it
//   dist/plugin/plugins/platform.yaml                 the krew plugin manifest, with the archive's sha256
// The bundle is CommonJS because Node 22's single executables run only a CommonJS script.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { bundlePlugin } from '../../cli/plugin-bundle.js';
import { stringify as toYaml } from 'yaml';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** The sentinel Node's binaries carry; postject flips it so that Node runs the injected script. */
const SEA_FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';
const KREW_OS: Record<string, string> = { linux: 'linux', darwin: 'darwin', win32: 'windows' };
const KREW_ARCH: Record<string, string> = { x64: 'amd64', arm64: 'arm64' };

export interface PluginBuild {
  bundle: string;
  executable: string;
  archive: string;
  manifest: string;
}

/**
 * Builds the bundle, the single executable, its archive and the krew manifest into `outDir`.
 * `downloadBaseUrl` is where the archive will be published (the manifest's `uri`); without it the
 * manifest points at the archive in `outDir` (a file:// URI), for a local `kubectl krew install`.
 */
export async function buildPlugin(
  outDir = join(ROOT, 'dist/plugin'),
  options: { downloadBaseUrl?: string } = {},
): Promise<PluginBuild> {
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(join(outDir, 'plugins'), { recursive: true });
  const bundle = join(outDir, 'kubectl-platform.cjs');
  await bundlePlugin(bundle);

  const executable = join(outDir, process.platform === 'win32' ? 'kubectl-platform.exe' : 'kubectl-platform');
  const blob = join(outDir, 'sea-prep.blob');
  const seaConfig = join(outDir, 'sea-config.json');
  writeFileSync(
    seaConfig,
    JSON.stringify({ main: bundle, output: blob, disableExperimentalSEAWarning: true, useCodeCache: true }),
  );
  execFileSync(process.execPath, ['--experimental-sea-config', seaConfig], { stdio: 'ignore' });
  copyFileSync(process.execPath, executable);
  chmodSync(executable, 0o755);
  const { inject } = createRequire(import.meta.url)('postject') as {
    inject(file: string, name: string, data: Buffer, options: { sentinelFuse: string }): Promise<void>;
  };
  await quietly(() => inject(executable, 'NODE_SEA_BLOB', readFileSync(blob), { sentinelFuse: SEA_FUSE }));
  rmSync(blob);
  rmSync(seaConfig);

  const os = KREW_OS[process.platform] ?? process.platform;
  const arch = KREW_ARCH[process.arch] ?? process.arch;
  const archiveName = `kubectl-platform_${os}_${arch}.tar.gz`;
  const archive = join(outDir, archiveName);
  // gzip -1: the archive is mostly Node's binary; stronger levels take seconds for a few percent.
  execFileSync('tar', ['-C', outDir, '-I', 'gzip -1', '-cf', archive, 'kubectl-platform'], { stdio: 'inherit' });
  const sha256 = createHash('sha256').update(readFileSync(archive)).digest('hex');
  const version = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
  const uri = options.downloadBaseUrl
    ? `${options.downloadBaseUrl.replace(/\/+$/, '')}/v${version}/${archiveName}`
    : pathToFileURL(archive).href;
  const manifest = join(outDir, 'plugins/platform.yaml');
  writeFileSync(
    manifest,
    toYaml({
      apiVersion: 'krew.googlecontainertools.github.com/v1alpha2',
      kind: 'Plugin',
      metadata: { name: 'platform' },
      spec: {
        version: `v${version}`,
        shortDescription: 'Runs and Rollouts of the Platform API',
        description:
          "Starts plan and apply runs and follows their logs, exiting with the run's outcome; lists and cancels runs; follows a Rollout through its stages and approves them; with the credentials of your kubeconfig (docs/cli.md of the Platform API).",
        platforms: [
          {
            selector: { matchLabels: { os, arch } },
            uri,
            sha256,
            bin: os === 'windows' ? 'kubectl-platform.exe' : 'kubectl-platform',
            files: [{ from: os === 'windows' ? 'kubectl-platform.exe' : 'kubectl-platform', to: '.' }],
          },
        ],
      },
    }),
  );
  return { bundle, executable, archive, manifest };
}

/** postject's LIEF prints a warning per ELF note it cannot name; none of them matters to the result. */
async function quietly<T>(work: () => Promise<T>): Promise<T> {
  const write = process.stderr.write.bind(process.stderr);
  const log = console.log;
  process.stderr.write = (() => true) as typeof process.stderr.write;
  console.log = () => {};
  try {
    return await work();
  } finally {
    process.stderr.write = write;
    console.log = log;
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const started = performance.now();
  const built = await buildPlugin(undefined, { downloadBaseUrl: process.env.PLUGIN_DOWNLOAD_BASE_URL });
  process.stdout.write(
    `built ${[built.bundle, built.executable, built.archive, built.manifest].map((file) => file.replace(ROOT, '')).join(', ')} in ${Math.round(performance.now() - started)} ms\n`,
  );
}
