/** A free loopback port, for the servers benches and e2e tests start. */
import { createServer } from 'node:net';

/** A free loopback port (there is a tiny race between closing and reuse; fine for tests and benches). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
    srv.once('error', reject);
  });
}
