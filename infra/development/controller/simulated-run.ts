// What the development controller writes for a run: a log that looks like OpenTofu's (colours,
// resource lines, a plan summary), in a few chunks with short pauses so a follower sees it arrive,
// for a plan the plan's JSON its run tasks may read (issue 48), and the outcome the run asked for. No
// tool is run and nothing is changed anywhere.
import type { ClaimedRun, RunWork } from './reference-controller.ts';

/** A run whose message contains this ends Failed (README, docs/cli.md). */
export const FAIL_MARKER = 'dev-controller:fail';

const BOLD = '\u001b[1m';
const GREEN = '\u001b[32m';
const YELLOW = '\u001b[33m';
const RED = '\u001b[31m';
const RESET = '\u001b[0m';

/** The plan summary every simulated plan or apply prints. */
export const PLAN_SUMMARY = 'Plan: 2 to add, 1 to change, 0 to destroy.';

/** The log's chunks, in order: each is appended as one numbered chunk. */
export function simulatedLog(run: ClaimedRun, variableNames: string[]): string[][] {
  const failing = run.message.includes(FAIL_MARKER);
  const opening = [
    `${BOLD}development controller${RESET}: simulating ${run.type} of workspace ${run.workspace} (project ${run.project}); no tool runs`,
    `variables: ${variableNames.length > 0 ? variableNames.join(', ') : 'none'}`,
    '',
    `${BOLD}Initializing the backend...${RESET}`,
    `${BOLD}Initializing provider plugins...${RESET}`,
    '- Finding hashicorp/aws versions matching "~> 5.0"...',
    `${GREEN}${BOLD}OpenTofu has been successfully initialized!${RESET}`,
  ];
  const plan = [
    `${BOLD}OpenTofu will perform the following actions:${RESET}`,
    '',
    `${BOLD}  # aws_subnet.private[0]${RESET} will be created`,
    `${GREEN}  +${RESET} resource "aws_subnet" "private" {`,
    `${GREEN}      +${RESET} cidr_block = "10.0.1.0/24"`,
    '    }',
    `${BOLD}  # aws_subnet.private[1]${RESET} will be created`,
    `${GREEN}  +${RESET} resource "aws_subnet" "private" {`,
    `${GREEN}      +${RESET} cidr_block = "10.0.2.0/24"`,
    '    }',
    `${BOLD}  # aws_vpc.main${RESET} will be updated in-place`,
    `${YELLOW}  ~${RESET} resource "aws_vpc" "main" {`,
    `${YELLOW}      ~${RESET} tags = { "revision" = "v1" ${YELLOW}->${RESET} "v2" }`,
    '    }',
    '',
    `${BOLD}${PLAN_SUMMARY}${RESET}`,
  ];
  const ending = failing
    ? [
        '',
        `${RED}╷${RESET}`,
        `${RED}│${RESET} ${RED}${BOLD}Error:${RESET} ${BOLD}creating EC2 Subnet: InvalidSubnet.Conflict${RESET}`,
        `${RED}│${RESET} (simulated: the run's message asked for "${FAIL_MARKER}")`,
        `${RED}╵${RESET}`,
      ]
    : run.type === 'apply'
      ? [
          '',
          'aws_vpc.main: Modifying... [id=vpc-0a1b2c3d]',
          'aws_subnet.private[0]: Creating...',
          'aws_subnet.private[1]: Creating...',
          'aws_vpc.main: Modifications complete after 1s [id=vpc-0a1b2c3d]',
          'aws_subnet.private[0]: Creation complete after 2s [id=subnet-01]',
          'aws_subnet.private[1]: Creation complete after 2s [id=subnet-02]',
          '',
          `${GREEN}${BOLD}Apply complete! Resources: 2 added, 1 changed, 0 destroyed.${RESET}`,
        ]
      : ['', 'Note: this is a plan only; approve it to apply it.'];
  return [opening, plan, ending];
}

/** A subnet of the simulated plan, as `tofu show -json` describes its values. */
function subnet(index: number) {
  return { cidr_block: `10.0.${index + 1}.0/24`, vpc_id: 'vpc-0a1b2c3d', tags: { Name: `private-${index}` } };
}

/**
 * The plan's JSON of the simulated plan, as `tofu show -json` writes it (format 1.2): the changes its log shows,
 * two subnets to create and the VPC's tags to update.
 */
export function simulatedPlanJson(): Record<string, unknown> {
  const vpcBefore = { cidr_block: '10.0.0.0/16', tags: { revision: 'v1' } };
  const vpcAfter = { ...vpcBefore, tags: { revision: 'v2' } };
  const created = [0, 1].map((index) => ({
    address: `aws_subnet.private[${index}]`,
    mode: 'managed',
    type: 'aws_subnet',
    name: 'private',
    index,
    provider_name: 'registry.opentofu.org/hashicorp/aws',
    change: { actions: ['create'], before: null, after: subnet(index), after_unknown: { id: true, arn: true } },
  }));
  return {
    format_version: '1.2',
    terraform_version: '1.8.2',
    variables: {},
    resource_changes: [
      ...created,
      {
        address: 'aws_vpc.main',
        mode: 'managed',
        type: 'aws_vpc',
        name: 'main',
        provider_name: 'registry.opentofu.org/hashicorp/aws',
        change: { actions: ['update'], before: vpcBefore, after: vpcAfter, after_unknown: {} },
      },
    ],
    errored: false,
  };
}

/**
 * The development controller's work for one run: the log in chunks, `pauseMs` between them,
 * stopping early when the run is cancelled, then a succeeded plan's JSON; Failed when its message
 * carries FAIL_MARKER.
 */
export async function simulateRun(
  run: ClaimedRun,
  work: RunWork,
  pauseMs: number,
): Promise<{ phase: 'Succeeded' | 'Failed'; message: string }> {
  for (const chunk of simulatedLog(
    run,
    work.variables.map((variable) => variable.name),
  )) {
    if (work.shouldStop()) break;
    await work.log(chunk);
    await new Promise((resolve) => setTimeout(resolve, pauseMs));
  }
  if (run.message.includes(FAIL_MARKER))
    return { phase: 'Failed', message: `simulated failure: the run's message asked for "${FAIL_MARKER}"` };
  if (run.type === 'plan' && !work.shouldStop()) await work.planJson(simulatedPlanJson());
  return { phase: 'Succeeded', message: `simulated ${run.type} by the development controller: ${PLAN_SUMMARY}` };
}
