// One replica of the reference controller as its own OS process (so a test can kill it):
// `node test/support/reference-controller-process.ts` with INTERNAL_URL, CONTROLLER_TOKEN,
// LEASE_SECONDS, CONCURRENCY, STEPS, LINES_PER_STEP and STEP_DELAY_MS set. Every event is
// printed as one JSON line on stdout; SIGTERM lets the runs in hand finish, then exits.
import { ControllerClient, ReferenceController } from '../../infra/development/controller/reference-controller.ts';

const setting = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
};
const steps = Number(setting('STEPS'));
const linesPerStep = Number(setting('LINES_PER_STEP'));
const stepDelayMs = Number(setting('STEP_DELAY_MS'));

const controller = new ReferenceController({
  client: new ControllerClient(setting('INTERNAL_URL'), setting('CONTROLLER_TOKEN')),
  leaseSeconds: Number(setting('LEASE_SECONDS')),
  concurrency: Number(setting('CONCURRENCY')),
  idleDelayMs: 50,
  resendEveryChunk: true,
  onEvent: (event) => process.stdout.write(`${JSON.stringify(event)}\n`),
  // Each line names the run, the attempt and its place, so a duplicate or a loss would show.
  execute: async (run, work) => {
    for (let step = 1; step <= steps && !work.shouldStop(); step++) {
      await work.log(
        Array.from(
          { length: linesPerStep },
          (_, line) => `run ${run.id} attempt ${work.attempt} step ${step} line ${line + 1}`,
        ),
      );
      await new Promise((resolve) => setTimeout(resolve, stepDelayMs));
    }
    return { phase: 'Succeeded', message: `${steps} steps, ${work.variables.length} variables` };
  },
});
controller.start();
process.once('SIGTERM', () => {
  void controller.stop().then(() => process.exit(0));
});
