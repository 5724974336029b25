/** HTML helpers shared by the server's pages (landing page, status page). */
import { escapeToBuffer } from 'hono/utils/html';

/** Escapes text for HTML content and quoted attributes (`&<>"'`): upstream names may hold markup. */
export function escapeHtml(s: string): string {
  const buffer: [string] = [''];
  escapeToBuffer(s, buffer);
  return buffer[0];
}
