/**
 * An undici dispatcher that hands each request straight to a fetch handler (the simulator's
 * Hono `app.fetch`) in the same process: no socket, no HTTP framing, no second copy of the body
 * through the kernel. The exporter takes it as its injected dispatcher, so everything above the
 * transport (retries, limits, decoding, collectors) runs as it does against a real upstream.
 * Recording a week of a 200-station plant spent a large share of its time in HTTP and buffer
 * copies; this removes that part and changes no answer.
 */
import { Dispatcher } from 'undici';

/** A fetch handler, as Hono's `app.fetch` is. */
type FetchHandler = (request: Request) => Response | Promise<Response>;

type Handler = Dispatcher.DispatchHandler;
type Controller = Parameters<NonNullable<Handler['onRequestStart']>>[0];

function headersOf(raw: Dispatcher.DispatchOptions['headers']): Headers {
  const out = new Headers();
  if (raw === undefined || raw === null) return out;
  if (Array.isArray(raw)) {
    for (let i = 0; i + 1 < raw.length; i += 2) out.append(String(raw[i]), String(raw[i + 1]));
    return out;
  }
  for (const [k, v] of Object.entries(raw as Record<string, string | string[] | undefined>)) {
    if (v === undefined) continue;
    for (const one of Array.isArray(v) ? v : [v]) out.append(k, one);
  }
  return out;
}

/** The request's controller: abort ends it with an error; pause and resume are moot (one chunk). */
function controllerFor(handler: Handler): Controller & { readonly aborted: boolean } {
  const state = { aborted: false, reason: null as Error | null };
  const controller = {
    get aborted() {
      return state.aborted;
    },
    get reason() {
      return state.reason;
    },
    get paused() {
      return false;
    },
    abort(reason: Error) {
      if (state.aborted) return;
      state.aborted = true;
      state.reason = reason;
      handler.onResponseError?.(controller as unknown as Controller, reason);
    },
    pause() {},
    resume() {},
  };
  return controller as unknown as Controller & { readonly aborted: boolean };
}

/** Sends every request to `fetch` in-process. */
export class DirectDispatcher extends Dispatcher {
  readonly #fetch: FetchHandler;
  readonly #origin: string;

  /** `origin` stands in for a request without one (undici's request() always gives it). */
  constructor(fetch: FetchHandler, origin = 'http://direct.invalid') {
    super();
    this.#fetch = fetch;
    this.#origin = origin;
  }

  override dispatch(opts: Dispatcher.DispatchOptions, handler: Handler): boolean {
    void this.#serve(opts, handler);
    return true;
  }

  async #serve(opts: Dispatcher.DispatchOptions, handler: Handler): Promise<void> {
    const controller = controllerFor(handler);
    handler.onRequestStart?.(controller, {});
    if (controller.aborted) return;
    try {
      const headers = headersOf(opts.headers);
      // Compression would only cost CPU on both sides of an in-process call.
      headers.delete('accept-encoding');
      const url = new URL(opts.path, opts.origin ?? this.#origin);
      const res = await this.#fetch(new Request(url, { method: opts.method, headers }));
      const body = Buffer.from(await res.arrayBuffer());
      if (controller.aborted) return;
      const out: Record<string, string> = {};
      res.headers.forEach((v, k) => {
        out[k] = v;
      });
      // As the simulator's HTTP server sends it for a whole body: the client then reserves the
      // body's buffer at its size, instead of growing it chunk by chunk and giving pages back.
      if (res.headers.get('content-encoding') === null) out['content-length'] = String(body.length);
      handler.onResponseStart?.(controller, res.status, out, res.statusText);
      if (body.length > 0) handler.onResponseData?.(controller, body);
      handler.onResponseEnd?.(controller, {});
    } catch (err) {
      if (!controller.aborted) handler.onResponseError?.(controller, err as Error);
    }
  }

  override close(): Promise<void>;
  override close(callback: () => void): void;
  override close(callback?: () => void): Promise<void> | void {
    if (callback) return void queueMicrotask(callback);
    return Promise.resolve();
  }

  override destroy(): Promise<void>;
  override destroy(err: Error | null): Promise<void>;
  override destroy(callback: () => void): void;
  override destroy(err: Error | null, callback: () => void): void;
  override destroy(a?: unknown, b?: unknown): Promise<void> | void {
    const callback = typeof a === 'function' ? a : typeof b === 'function' ? b : undefined;
    if (callback) return void queueMicrotask(callback as () => void);
    return Promise.resolve();
  }
}
