// Issue 35: realistic, varied Terraform/OpenTofu-like run output for the run-history bench: init,
// refresh, a plan diff, apply progress and its summary, the odd debug line and error box, with ANSI
// colours and lengths from a few characters to a few hundred. Deterministic (a seeded generator per
// run), and no two lines are equal anywhere: every line carries an id derived one-to-one from its
// global number (as real resource, request and image ids are unique), so compression gains nothing
// from repeated lines.

const RESET = '\u001b[0m';
const BOLD = '\u001b[1m';
const GREEN = '\u001b[32m';
const RED = '\u001b[31m';
const YELLOW = '\u001b[33m';
const CYAN = '\u001b[36m';

const PROVIDERS = ['aws', 'google', 'azurerm', 'kubernetes', 'helm', 'random', 'tls', 'cloudflare'];
const MODULES = ['network', 'eks', 'rds', 'iam', 'dns', 'monitoring', 'storage', 'edge', 'bastion', 'queue'];
const TYPES = [
  'aws_subnet',
  'aws_route_table_association',
  'aws_security_group_rule',
  'aws_iam_role_policy_attachment',
  'aws_instance',
  'aws_s3_bucket_policy',
  'aws_lb_target_group',
  'google_compute_instance',
  'google_project_iam_member',
  'azurerm_network_interface',
  'kubernetes_config_map',
  'helm_release',
  'random_password',
  'tls_private_key',
  'cloudflare_record',
];
const NAMES = ['private', 'public', 'main', 'web', 'worker', 'ingress', 'egress', 'node', 'this', 'logs', 'replica'];
const ZONES = ['eu-west-1a', 'eu-west-1b', 'eu-west-1c', 'us-east-1a', 'us-east-1d', 'ap-south-1b'];
const ATTRIBUTES = [
  'arn',
  'cidr_block',
  'availability_zone',
  'tags_all',
  'instance_type',
  'ami',
  'vpc_id',
  'name',
  'policy_arn',
  'port',
  'protocol',
  'description',
  'enable_dns_hostnames',
  'private_ip',
  'security_groups',
];
const PREFIXES = ['subnet', 'rtbassoc', 'sgr', 'i', 'vol', 'eni', 'sg', 'vpc', 'igw', 'nat', 'ami', 'tg'];

/** A small, fast seeded generator (mulberry32): the same run always prints the same lines. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/**
 * A 12-hex-digit id that looks random, one-to-one with `n` below 2^48: multiplying by an odd
 * constant is a bijection modulo 2^48, so two different line numbers never share an id.
 */
function uniqueId(n: number): string {
  const low = BigInt(n) * 0x5deece66dn;
  return (low & 0xffff_ffff_ffffn).toString(16).padStart(12, '0');
}

/** The lines of one run: `count` lines, the run's `globalFirst`-th line of the whole load first. */
export function terraformRunOutput(run: number, count: number, globalFirst: number): string[] {
  const random = seededRandom(run * 2_654_435_761 + 1);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const int = (below: number) => Math.floor(random() * below);
  const lines: string[] = [];
  const address = () =>
    `module.${pick(MODULES)}.${pick(TYPES)}.${pick(NAMES)}${random() < 0.5 ? `["${pick(ZONES)}"]` : `[${int(40)}]`}`;
  let clock = Date.UTC(2025, 0, 1) + run * 3_600_000 + int(3_600_000);
  for (let index = 0; index < count; index++) {
    const id = uniqueId(globalFirst + index);
    const resourceId = `${pick(PREFIXES)}-0${id}`;
    const share = index / count;
    const roll = random();
    clock += int(400);
    let line: string;
    if (share < 0.02) {
      line =
        roll < 0.5
          ? `- Installing hashicorp/${pick(PROVIDERS)} v${1 + int(5)}.${int(60)}.${int(9)}... (signed, key ID ${id.toUpperCase()})`
          : `${BOLD}${GREEN}Initializing provider plugins...${RESET} cache hit ${id}`;
    } else if (share < 0.3) {
      line =
        roll < 0.85
          ? `${BOLD}${address()}: Refreshing state... [id=${resourceId}]${RESET}`
          : `${timestamp(clock)} [DEBUG] provider.terraform-provider-${pick(PROVIDERS)}: HTTP Request Sent: x-amz-request-id=${id}`;
    } else if (share < 0.65) {
      line = planLine(roll, pick, int, id, resourceId);
    } else if (share < 0.97) {
      line = applyLine(roll, int, address, id, resourceId);
    } else {
      line =
        roll < 0.08
          ? `${RED}│${RESET} ${BOLD}Error:${RESET} creating ${pick(TYPES)} (${resourceId}): operation error EC2: RunInstances, https response error StatusCode: 400, RequestID: ${id}, api error InvalidParameterValue: ${'Value for parameter is invalid. '.repeat(1 + int(6))}`
          : roll < 0.6
            ? `${BOLD}${GREEN}Apply complete!${RESET} Resources: ${int(80)} added, ${int(20)} changed, ${int(10)} destroyed. (${id})`
            : `${pick(ATTRIBUTES)}_${id} = "${resourceId}"`;
    }
    lines.push(line);
  }
  return lines;
}

function planLine(
  roll: number,
  pick: <T>(items: readonly T[]) => T,
  int: (below: number) => number,
  id: string,
  resourceId: string,
): string {
  if (roll < 0.12)
    return `  ${BOLD}# module.${pick(MODULES)}.${pick(TYPES)}.${pick(NAMES)}["${id}"]${RESET} will be ${pick(['created', 'updated in-place', 'destroyed'])}`;
  if (roll < 0.2) return `  ${GREEN}+${RESET} resource "${pick(TYPES)}" "${pick(NAMES)}_${id}" {`;
  if (roll < 0.6) {
    const attribute = pick(ATTRIBUTES).padEnd(24);
    return roll < 0.45
      ? `      ${GREEN}+${RESET} ${attribute}= "${pick(NAMES)}-${id}"`
      : `      ${GREEN}+${RESET} ${attribute}= (known after apply) # ${id}`;
  }
  if (roll < 0.75)
    return `      ${YELLOW}~${RESET} ${pick(ATTRIBUTES)} = "${resourceId}" ${YELLOW}->${RESET} "${pick(PREFIXES)}-0${id}"`;
  if (roll < 0.82) return `      ${RED}-${RESET} ${pick(ATTRIBUTES)} = "${resourceId}" ${CYAN}-> null${RESET}`;
  if (roll < 0.9)
    return `          + "${pick(['Name', 'Team', 'CostCenter', 'Environment'])}" = "${pick(NAMES)}-${id}"`;
  if (roll < 0.95) return `        }${' '.repeat(int(3))} # ${id}`;
  return `${BOLD}Plan:${RESET} ${int(90)} to add, ${int(30)} to change, ${int(10)} to destroy. ${id}`;
}

function applyLine(
  roll: number,
  int: (below: number) => number,
  address: () => string,
  id: string,
  resourceId: string,
): string {
  if (roll < 0.3) return `${BOLD}${address()}: Creating...${RESET} ${id}`;
  if (roll < 0.7) return `${BOLD}${address()}: Still creating... [${elapsed(int(900))} elapsed]${RESET} (${id})`;
  if (roll < 0.92)
    return `${BOLD}${address()}: Creation complete after ${elapsed(1 + int(600))} [id=${resourceId}]${RESET}`;
  return `${BOLD}${address()}: Modifications complete after ${int(60)}s [id=arn:aws:iam::${id}:role/${address().slice(0, 20 + int(40))}]${RESET}`;
}

function elapsed(seconds: number): string {
  return seconds >= 60 ? `${Math.floor(seconds / 60)}m${seconds % 60}s` : `${seconds}s`;
}

function timestamp(ms: number): string {
  return new Date(ms).toISOString();
}
