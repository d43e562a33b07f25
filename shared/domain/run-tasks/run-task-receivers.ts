import type { OutboundReceivers } from '../outbound/outbound-engine.ts';
import type { OutboxEvent } from '../outbound/outbox-event.ts';
import type { RunTaskRequests } from '../runs/tasks/run-task-requests.ts';
import type { RunTaskResults } from '../runs/tasks/run-task-results.ts';

/** The run fields of a run event (the outbox trigger's `data`, migration 012) that routing reads. */
interface RunEventData {
  id: string;
  project: string;
  type: string;
  phase: string;
}

/**
 * The stage a run event asks its tasks at: a run recorded waiting for them (`run.created` in AwaitingTasks: pre_plan
 * or pre_apply), a plan that succeeded (`run.succeeded`: post_plan, issue 48); none for any other event.
 */
function stageAsked(event: OutboxEvent, run: RunEventData): 'pre-stage' | 'post_plan' | undefined {
  if (event.type === 'run.created' && run.phase === 'AwaitingTasks') return 'pre-stage';
  if (event.type === 'run.succeeded' && run.type === 'plan') return 'post_plan';
  return undefined;
}

/** A receiver of the family: `<project>/<task>`, so one task server's deliveries share its concurrency slots. */
const receiverKey = (project: string, task: string) => `${project}/${task}`;

/**
 * Run tasks as a receiver family of the outbound engine (issue 48, item 4): a run recorded `AwaitingTasks` (its
 * `run.created` event) is routed to each RunTask it waits for, a plan that succeeded (its `run.succeeded` event) to
 * each RunTask it is checked by at post_plan, and each attempt is the request RunTaskRequests
 * builds then, with a fresh access token; the engine sends it as it sends every outbound call (no private
 * address unless allowed, no redirect, a timeout), retries a task that did not answer 2xx with back-off up to
 * OUTBOUND_MAX_ATTEMPTS, logs each attempt, and shares the work across instances. A result that no longer waits
 * (answered, timed out, the run cancelled) or a deleted RunTask drops the delivery.
 */
export function runTaskReceivers(results: () => Promise<RunTaskResults>, requests: RunTaskRequests): OutboundReceivers {
  return {
    family: 'run-task',
    async receiversOf(event: OutboxEvent) {
      const run = event.data as unknown as RunEventData;
      const stage = stageAsked(event, run);
      if (stage === undefined) return [];
      const asked = (await (await results()).resultsOf(run.id)).filter(
        (result) => (result.stage === 'post_plan') === (stage === 'post_plan'),
      );
      return asked.map((result) => receiverKey(run.project, result.task));
    },
    async requestFor(receiver: string, event: OutboxEvent) {
      const run = event.data as unknown as RunEventData;
      const task = receiver.slice(receiver.indexOf('/') + 1);
      return requests.requestFor(run.id, task);
    },
  };
}
