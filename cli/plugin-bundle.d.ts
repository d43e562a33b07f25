// Types of plugin-bundle.js (plain JavaScript, run by the `npx kubectl-platform` bin on any Node).
export declare function bundlePlugin(outfile: string): Promise<string[]>;
export declare const CACHED_BUNDLE: string;
export declare function cachedPluginBundle(): Promise<string>;
