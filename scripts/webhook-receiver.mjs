#!/usr/bin/env node
/**
 * A webhook receiver to watch Alertmanager's notifications arrive (docs/quickstart-prometheus.md):
 * it prints one line per notification (time, receiver path, status, alert names and their
 * site/line/station labels) and answers 200. It stores nothing and has no dependency, so that
 * trying the shipped route needs no chat tool or ticket system.
 *
 *   node scripts/webhook-receiver.mjs [PORT]     (default 5001, as prometheus/alertmanager.example.yml)
 */
import { createServer } from 'node:http';

const port = Number(process.argv[2] ?? 5001);

/** `MeasurementShiftDetected{site="...",line="..."}` for each alert of a notification. */
function describeAlerts(alerts) {
  return alerts
    .map((a) => {
      const labels = ['severity', 'site', 'line', 'station', 'metric']
        .filter((k) => a.labels?.[k] !== undefined)
        .map((k) => `${k}="${a.labels[k]}"`);
      return `${a.labels?.alertname ?? '?'}{${labels.join(',')}} ${a.status}: ${a.annotations?.summary ?? ''}`;
    })
    .join('; ');
}

const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    let line;
    try {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      line = `${body.status} ${body.alerts?.length ?? 0} alert(s): ${describeAlerts(body.alerts ?? [])}`;
    } catch {
      line = `not an Alertmanager notification (${Buffer.concat(chunks).length} bytes)`;
    }
    process.stdout.write(`${new Date().toISOString()} ${req.method} ${req.url} ${line}\n`);
    res.end();
  });
});
server.listen(port, '127.0.0.1', () => {
  process.stdout.write(`webhook receiver on http://127.0.0.1:${port}/ (Ctrl-C stops it)\n`);
});
