/**
 * The plant-scale run at 1,000 stations alone (units on, as in `npm run bench`), for the first
 * complete snapshot: how long after start each window's station summaries are complete, the
 * achieved refresh of 15m and 24h station summaries, and the worst 10 s. About two minutes of wall
 * time, where the whole bench takes ten or more.
 *
 *     npx tsx bench/plant/first-snapshot.ts [measured minutes, default 45]
 */
import { runPlantScale } from './plant.ts';

const measuredMinutes = Number(process.argv[2] ?? 45);
const r = await runPlantScale({
  stations: 1000,
  units: true,
  measuredMinutes,
  progress: (text) => console.error(text),
});
const station = (w: string) => r.refresh.find((x) => x.window === w && x.level === 'station')?.achieved;
console.log(
  JSON.stringify(
    {
      stationSummariesCompleteSeconds: r.stationSummariesComplete,
      achievedSeconds: { '15m station': station('15m'), '24h station': station('24h') },
      worst10s: r.worst10s,
      firstPollSeconds: r.longestPollSeconds,
      longestSteadyPollSeconds: r.longestSteadyPollSeconds,
      firstPolls: r.pollLog.slice(0, 8),
      wallSeconds: Math.round(r.wallSeconds),
    },
    null,
    1,
  ),
);
