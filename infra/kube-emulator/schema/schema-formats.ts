// The string formats the API server checks in custom resources (kube-openapi's strfmt registry, less the formats
// apiextensions strips). Other formats, and formats of non-strings (int32, int64, double), are not checked there
// either. The checks follow strfmt's regular expressions and parsers closely, not byte for byte.
import { isIP } from 'node:net';

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;
const DURATION =
  /^(\s*[-+]?\d+(\.\d+)?\s*(ns|us|µs|ms|s|m|h|d|w|nanoseconds?|microseconds?|milliseconds?|seconds?|minutes?|hours?|days?|weeks?)\s*)+$/;
const HOSTNAME =
  /^([a-zA-Z0-9\p{S}\p{L}]((-?[a-zA-Z0-9\p{S}\p{L}]{0,62})?)|([a-zA-Z0-9\p{S}\p{L}](([a-zA-Z0-9-\p{S}\p{L}]{0,61}[a-zA-Z0-9\p{S}\p{L}])?)(\.)){1,}([a-zA-Z\p{L}]){2,63})$/u;
const EMAIL = /^[^\s@]+@[^\s@]+$/;
const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const UUID3 = /^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const UUID4 = /^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i;
const UUID5 = /^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i;
const MAC = /^([0-9a-f]{2}[:-]){5}[0-9a-f]{2}$|^([0-9a-f]{4}\.){2}[0-9a-f]{4}$/i;
const HEX_COLOR = /^#?([0-9a-f]{3}|[0-9a-f]{6})$/i;
const RGB_COLOR = /^rgb\(\s*\d{1,3}\s*,\s*\d{1,3}\s*,\s*\d{1,3}\s*\)$/;
const BSON_OBJECT_ID = /^[0-9a-f]{24}$/i;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

// Go's url.ParseRequestURI: an absolute URI or an absolute path, without control characters or bad percent-escapes.
function isUri(value: string): boolean {
  if (/[\u0000-\u001f\u007f]/.test(value) || /%(?![0-9a-fA-F]{2})/.test(value)) return false;
  return /^[a-zA-Z][a-zA-Z0-9+.-]*:./.test(value) || value.startsWith('/');
}

function isCidr(value: string): boolean {
  const [address, prefix, ...rest] = value.split('/');
  const family = isIP(address ?? '');
  return rest.length === 0 && family !== 0 && /^\d+$/.test(prefix ?? '') && Number(prefix) <= (family === 4 ? 32 : 128);
}

const FORMAT_CHECKS: Record<string, (value: string) => boolean> = {
  'date-time': (value) => DATE_TIME.test(value) && !Number.isNaN(Date.parse(value.replace(' ', 'T'))),
  datetime: (value) => FORMAT_CHECKS['date-time']!(value),
  date: (value) => DATE.test(value) && !Number.isNaN(Date.parse(value)),
  duration: (value) => DURATION.test(value),
  uri: isUri,
  email: (value) => EMAIL.test(value),
  hostname: (value) => value.length <= 255 && HOSTNAME.test(value),
  ipv4: (value) => isIP(value) === 4,
  ipv6: (value) => isIP(value) === 6,
  cidr: isCidr,
  mac: (value) => MAC.test(value),
  uuid: (value) => UUID.test(value),
  uuid3: (value) => UUID3.test(value),
  uuid4: (value) => UUID4.test(value),
  uuid5: (value) => UUID5.test(value),
  hexcolor: (value) => HEX_COLOR.test(value),
  rgbcolor: (value) => RGB_COLOR.test(value),
  bsonobjectid: (value) => BSON_OBJECT_ID.test(value),
  byte: (value) => value.length % 4 === 0 && BASE64.test(value),
};

/** Whether a string satisfies a schema `format`; formats the API server does not check always pass. */
export function matchesFormat(format: string, value: string): boolean {
  return FORMAT_CHECKS[format]?.(value) ?? true;
}
