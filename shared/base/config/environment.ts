/** The process environment as the settings read it (`process.env`, or a test's own). */
export type Environment = Record<string, string | undefined>;
