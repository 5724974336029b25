/** The `once` command. */
import { createLogger, wireExporter } from '../wire.ts';
import type { RunOptions } from './flags.ts';
import { logSettings, resolveOrReport } from './options.ts';
import { Output } from './output.ts';

/** `once`: one complete poll, exposition on stdout. */
export async function runOnce(opts: RunOptions): Promise<number> {
  const io = new Output();
  const resolved = await resolveOrReport(opts, io);
  if (typeof resolved === 'number') return resolved;
  const exporter = wireExporter(resolved.config, {
    logger: createLogger(logSettings(opts, resolved.config), io.redactor),
    shard: resolved.shard,
    redactor: io.redactor,
    processMetrics: !opts['web.disable-exporter-metrics'],
    metricsPath: opts['web.telemetry-path'],
  });
  try {
    const ok = await exporter.scheduler.pollOnce();
    const res = await exporter.app.request(opts['web.telemetry-path'] ?? '/metrics', {
      headers: { accept: 'text/plain' },
    });
    // The exposition as is: it is data, not messages, and holds no error text.
    process.stdout.write(await res.text());
    // Each failed poll was logged as a warning: only a level that hides them needs the summary.
    if (!ok && !exporter.logger.isLevelEnabled('warn')) {
      const failed = exporter.scheduler.status().filter((s) => !s.lastOk);
      for (const s of failed)
        io.err(`station-exporter: ${s.name}: ${s.lastError ?? 'poll had failed requests'}\n`);
    }
    return ok ? 0 : 1;
  } finally {
    await exporter.close();
    await resolved.close();
  }
}
