/**
 * Shutdown on SIGTERM or SIGINT, with a deadline: running polls may finish and publish, but one
 * stuck for good (a token file that blocked `open()`) must not keep the process alive until SIGKILL.
 */
import type { Logger } from 'pino';

/** Below Kubernetes' default grace period of 30 s, so the exporter exits on its own before SIGKILL. */
export const SHUTDOWN_DEADLINE_MS = 10_000;

/** One step of a shutdown, named for the log line when it does not end in time. */
export interface ShutdownStep {
  readonly name: string;
  run(): Promise<void>;
}

/** What a {@link Shutdown} needs. */
export interface ShutdownDeps {
  readonly logger: Pick<Logger, 'info' | 'error'>;
  readonly deadlineMs: number;
  readonly timers: {
    setTimeout(fn: () => void, ms: number): unknown;
    clearTimeout(handle: unknown): void;
  };
  /** Named in the log when the deadline passes. */
  readonly runningPolls: () => readonly string[];
  readonly exit: (code: number) => void;
}

/** How a shutdown ended: every step done, or the deadline passed first. */
export type ShutdownOutcome = 'done' | 'deadline';

/**
 * Runs the steps in order, once, and ends the process: exit 0 when every step ended, 1 when one
 * failed or the deadline passed first. A second signal joins the first.
 */
export class Shutdown {
  private running: Promise<ShutdownOutcome> | undefined;
  private step = 'starting';

  constructor(private readonly deps: ShutdownDeps) {}

  /** Starts the shutdown, or joins the one under way. */
  run(steps: readonly ShutdownStep[]): Promise<ShutdownOutcome> {
    this.running ??= this.runSteps(steps);
    return this.running;
  }

  private async runSteps(steps: readonly ShutdownStep[]): Promise<ShutdownOutcome> {
    const { logger, timers, deadlineMs } = this.deps;
    logger.info({ deadline_seconds: deadlineMs / 1000 }, 'shutting down');
    let timer: unknown;
    const deadline = new Promise<'deadline'>((resolve) => {
      timer = timers.setTimeout(() => resolve('deadline'), deadlineMs);
    });
    const ok = await Promise.race([this.runInOrder(steps), deadline]);
    if (ok === 'deadline') {
      this.expired();
      return 'deadline';
    }
    timers.clearTimeout(timer);
    logger.info('shut down');
    this.deps.exit(ok ? 0 : 1);
    return 'done';
  }

  /** Runs every step, also after one failed; false when one did. */
  private async runInOrder(steps: readonly ShutdownStep[]): Promise<boolean> {
    let ok = true;
    for (const step of steps) {
      this.step = step.name;
      try {
        await step.run();
      } catch (err) {
        ok = false;
        this.deps.logger.error({ step: step.name, err }, 'shutdown step failed');
      }
    }
    return ok;
  }

  private expired(): void {
    const { logger, deadlineMs, runningPolls } = this.deps;
    logger.error(
      { deadline_seconds: deadlineMs / 1000, step: this.step, running_polls: [...runningPolls()] },
      'shutdown deadline passed: exiting with work still running',
    );
    this.deps.exit(1);
  }
}
