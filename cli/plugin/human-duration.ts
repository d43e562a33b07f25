// Ages as kubectl prints them (k8s.io/apimachinery/pkg/util/duration.HumanDuration): `45s`, `3m12s`,
// `25m`, `4h10m`, `3d5h`, `400d`, `2y30d`.

/** `since` to `now` in kubectl's words; `<unknown>` when there is no time. */
export function humanAge(since: string | null | undefined, now = Date.now()): string {
  if (!since) return '<unknown>';
  return humanDuration(now - Date.parse(since));
}

/** A duration in milliseconds in kubectl's words. */
export function humanDuration(milliseconds: number): string {
  const seconds = Math.trunc(milliseconds / 1000);
  // kubectl allows two seconds of clock skew before calling a time invalid.
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.trunc(seconds / 60);
  if (minutes < 10) return withPart(minutes, 'm', seconds % 60, 's');
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.trunc(minutes / 60);
  if (hours < 8) return withPart(hours, 'h', minutes % 60, 'm');
  if (hours < 48) return `${hours}h`;
  const days = Math.trunc(hours / 24);
  if (hours < 24 * 8) return withPart(days, 'd', hours % 24, 'h');
  if (hours < 24 * 365 * 2) return `${days}d`;
  const years = Math.trunc(days / 365);
  if (hours < 24 * 365 * 8) return withPart(years, 'y', days % 365, 'd');
  return `${years}y`;
}

function withPart(major: number, majorUnit: string, minor: number, minorUnit: string): string {
  return minor === 0 ? `${major}${majorUnit}` : `${major}${majorUnit}${minor}${minorUnit}`;
}
