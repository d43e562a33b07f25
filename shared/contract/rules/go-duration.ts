// Go durations (`24h`, `1h30m`, `90s`): settings (shared/base/config/) and the approval windows of
// approval-windows.ts read them with this one parser. Browser-safe: no import.
// Go's time.ParseDuration units, in milliseconds. Operators write `24h`, `1h30m`, `90s`.
const UNIT_MS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  μs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

const TERM = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/y;

/** Parses a Go duration string (`24h`, `1h30m`, `1.5h`, `90s`) into milliseconds; null when malformed. */
export function parseGoDuration(text: string): number | null {
  let rest = text.trim();
  let sign = 1;
  if (rest.startsWith('-') || rest.startsWith('+')) {
    sign = rest.startsWith('-') ? -1 : 1;
    rest = rest.slice(1);
  }
  if (rest === '0') return 0;
  if (rest === '') return null;
  let total = 0;
  TERM.lastIndex = 0;
  while (TERM.lastIndex < rest.length) {
    const match = TERM.exec(rest);
    if (!match) return null;
    total += Number(match[1]) * UNIT_MS[match[2]!]!;
  }
  return sign * total;
}

/** Formats milliseconds the way Go prints a duration (`24h0m0s` style shortened to `24h`). */
export function formatDuration(ms: number): string {
  const seconds = Math.round(ms / 1000);
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  return [h ? `${h}h` : '', m ? `${m}m` : '', s || (!h && !m) ? `${s}s` : ''].join('');
}
