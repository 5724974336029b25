/**
 * Shutdown on SIGTERM or SIGINT, with a deadline: running polls may finish and publish, but one
 * stuck for good (a token file that blocked `open()`) must not keep the process alive until SIGKILL.
 */
import type { Logger } from 'pino';
import type { LoopTimers } from '../scheduler/loop.ts';

/** Below Kubernetes' default grace period of 30 s, so the exporter exits on its own before SIGKILL. */
export const SHUTDOWN_DEADLINE_MS = 10_000;

/** One step of a shutdown, named for the log line when it does not end in time. */
export interface ShutdownStep {
  readonly name: string;
  run(): Promise<void>;
}

/** What a shutdown needs. */
interface ShutdownDeps {
  readonly logger: Pick<Logger, 'info' | 'error'>;
  readonly timers: Pick<LoopTimers, 'setTimeout' | 'clearTimeout'>;
  /** Named in the log when the deadline passes. */
  readonly runningPolls: () => readonly string[];
  readonly exit: (code: number) => void;
}

/**
 * A shutdown that runs the steps in order, once, and ends the process: exit 0 when every step
 * ended, 1 when one failed or the {@link SHUTDOWN_DEADLINE_MS} passed first. A second call (a
 * second signal) joins the first.
 */
export function shutdownOnce(
  deps: ShutdownDeps,
): (steps: readonly ShutdownStep[]) => Promise<'done' | 'deadline'> {
  let running: Promise<'done' | 'deadline'> | undefined;
  return (steps) => (running ??= runSteps(deps, steps));
}

async function runSteps(deps: ShutdownDeps, steps: readonly ShutdownStep[]): Promise<'done' | 'deadline'> {
  const { logger, timers } = deps;
  const deadline_seconds = SHUTDOWN_DEADLINE_MS / 1000;
  logger.info({ deadline_seconds }, 'shutting down');
  let step = 'starting';
  // Every step runs, also after one failed.
  const inOrder = async () => {
    let ok = true;
    for (const s of steps) {
      step = s.name;
      try {
        await s.run();
      } catch (err) {
        ok = false;
        logger.error({ step: s.name, err }, 'shutdown step failed');
      }
    }
    return ok;
  };
  let timer: unknown;
  const expired = new Promise<'deadline'>((resolve) => {
    timer = timers.setTimeout(() => resolve('deadline'), SHUTDOWN_DEADLINE_MS);
  });
  const ok = await Promise.race([inOrder(), expired]);
  if (ok === 'deadline') {
    logger.error(
      { deadline_seconds, step, running_polls: [...deps.runningPolls()] },
      'shutdown deadline passed: exiting with work still running',
    );
    deps.exit(1);
    return 'deadline';
  }
  timers.clearTimeout(timer);
  logger.info('shut down');
  deps.exit(ok ? 0 : 1);
  return 'done';
}
