/** The signals of a serving exporter. */
import type { Logger } from 'pino';
import { realLoopTimers } from '../../scheduler/loop.ts';
import type { ReloadResult } from '../../server/app.ts';
import type { RunningHttpServer } from '../../server/http.ts';
import type { Reloader } from '../reload.ts';
import { type SHUTDOWN_DEADLINE_MS, shutdownOnce } from '../shutdown.ts';

/** SIGTERM and SIGINT shut down in steps within {@link SHUTDOWN_DEADLINE_MS}; SIGHUP reloads. */
export function handleSignals(deps: {
  readonly servers: readonly RunningHttpServer[];
  readonly reloader: Reloader;
  readonly reload: () => Promise<ReloadResult>;
  readonly logger: Logger;
  readonly closeDemo: () => Promise<void>;
}): void {
  const { servers, reloader, logger } = deps;
  const shutdown = shutdownOnce({
    logger,
    timers: realLoopTimers,
    runningPolls: () => reloader.current().scheduler.runningPolls(),
    exit: (code) => process.exit(code),
  });
  const stop = () =>
    void shutdown([
      { name: 'closing the listeners', run: () => Promise.all(servers.map((s) => s.close())).then(() => {}) },
      { name: 'waiting for running polls', run: () => reloader.current().close() },
      { name: 'closing the demo simulator', run: deps.closeDemo },
    ]);
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  process.on('SIGHUP', () => void deps.reload());
}
