/**
 * The request client: every call to the gateway goes through here. openapi-fetch
 * builds each request from the generated schema (`api/schema.d.ts`: paths, path
 * and query parameters, bodies); `call` adds the `token` and `platformId`
 * headers, trims request strings, times out after 60 s, unwraps the
 * `{code, msg, data}` envelope and implements the error catalogue
 * (docs/console-spec.md §8, docs/ARCHITECTURE.md §3) in one place.
 */
import createClient, { type ClientPathsWithMethod, type FetchOptions, type FetchResponse } from 'openapi-fetch';
import { LOGOUT_DELAY_MS, REQUEST_TIMEOUT_MS } from '@/config/constants';
import type { paths } from './api/schema';
import { i18n } from './i18n';
import { toastError } from './notify';
import { clearSession, platformId, rememberExpireAuthPath, sessionToken } from './session';
import { trimDeep } from './trim';

export const Code = {
  Ok: 200,
  SessionInvalid: 1001,
  SessionEnded: 1016,
  Validation: 4000,
  NotFound: 4004,
  Conflict: 4009,
  RateLimited: 4029,
  NoPermission: 9999,
  Internal: 5000,
  Unavailable: 5003,
  /** Not from the server: the call never got an answer (network, timeout, bad body). */
  Network: -1,
} as const;

/** No business answer came: the network, a time-out or the server failing (5xx). */
export function isTransportFailure(error: ApiError): boolean {
  return error.code === Code.Network || error.code === Code.Internal || error.code === Code.Unavailable;
}

/** A field error of a 4000 answer, or of a 4009 naming a taken value (`data.fields`, docs/ARCHITECTURE.md §3). */
export interface FieldError {
  field: string;
  message: string;
}

export class ApiError extends Error {
  /** 4000: the answer's `data` (e.g. an import's `{errorHeader, errorList}`). */
  data?: unknown;

  constructor(
    readonly code: number,
    message: string,
    readonly fields: FieldError[] = [],
    /** 4029: seconds until the call may be made again (the `Retry-After` header). */
    readonly retryAfterSeconds?: number,
    /** The server's own `msg` (empty when there was none or no answer came). */
    readonly serverMessage = '',
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export interface CallOptions {
  /** No toast for failures (badge counts, background look-ups); session expiry still logs out. */
  silent?: boolean;
  /** Do not log out on 1001/1016 (the caller handles it). */
  noRedirect?: boolean;
  signal?: AbortSignal;
  timeoutMs?: number;
  /** Send this token instead of the session's (ending a second session on logout). */
  token?: string;
  /** A create's `Idempotency-Key`: the server answers a replay with the first result. */
  idempotencyKey?: string;
}

/** A list repeats its key, as the gateway reads it; strings trimmed, absent values left out. */
function serializeQuery(query: Record<string, unknown>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(trimDeep(query))) {
    if (value === undefined || value === null) continue;
    for (const v of Array.isArray(value) ? value : [value]) search.append(key, String(v));
  }
  return search.toString();
}

/** JSON with every string trimmed; a form (file upload) goes as built, with its own multipart type. */
const serializeBody = (body: unknown) => (body instanceof FormData ? body : JSON.stringify(trimDeep(body)));

/**
 * The request as openapi-fetch builds it, kept as given rather than made a fetch
 * `Request`, so that `sendWith` can call fetch as every call of the page looks:
 * `fetch(path, init)`, the path relative to the page and a form left a form.
 */
class BuiltRequest {
  readonly method: string;
  readonly headers: Headers;
  readonly body: BodyInit | null | undefined;
  readonly signal: AbortSignal | null | undefined;

  constructor(
    readonly url: string,
    init: RequestInit,
  ) {
    this.method = init.method ?? 'GET';
    this.headers = new Headers(init.headers);
    this.body = init.body;
    this.signal = init.signal;
  }
}

const client = createClient<paths>({
  Request: BuiltRequest as unknown as typeof Request,
  querySerializer: serializeQuery,
  bodySerializer: serializeBody,
});

/** Sends a built request with this client's headers, named as the gateway documents them. */
function sendWith(headers: Record<string, string>) {
  return (request: Request) => {
    const built = request as unknown as BuiltRequest;
    // openapi-fetch names the JSON type; a form has none here, fetch gives it multipart with the boundary.
    const type = built.headers.get('Content-Type');
    // The global is looked up on every call rather than captured once (tests stub it).
    return fetch(built.url, { method: built.method, headers: type ? { ...headers, 'Content-Type': type } : headers, body: built.body, signal: built.signal });
  };
}

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
type PathWith<M extends Method> = ClientPathsWithMethod<typeof client, M>;
type Operation<P extends PathWith<M>, M extends Method> = NonNullable<paths[P][M]>;
/**
 * openapi-fetch's typed path and query parameters and body of `M path`, plus this
 * client's options; header parameters (the `Idempotency-Key`) are among the latter.
 */
type CallInit<P extends PathWith<M>, M extends Method> = {
  params?: Omit<NonNullable<FetchOptions<Operation<P, M>>['params']>, 'header'>;
} & Pick<FetchOptions<Operation<P, M>>, 'body'> &
  CallOptions;
type Envelope<P extends PathWith<M>, M extends Method> = NonNullable<FetchResponse<Operation<P, M>, object, `${string}/${string}`>['data']>;
/** The `data` of a successful answer of `M path`. */
export type ApiData<P extends PathWith<M>, M extends Method> = Envelope<P, M> extends { data?: infer D } ? NonNullable<D> : never;

type SessionExpiredHandler = () => void;
let onSessionExpired: SessionExpiredHandler = () => window.location.assign('/login');
let logoutScheduled = false;

/** Where to go when the session is gone (tests replace it). */
export function setSessionExpiredHandler(handler: SessionExpiredHandler): void {
  onSessionExpired = handler;
  logoutScheduled = false;
}

function scheduleForcedLogout(): void {
  if (logoutScheduled) return;
  logoutScheduled = true;
  setTimeout(() => {
    rememberExpireAuthPath(window.location.pathname + window.location.search);
    clearSession();
    logoutScheduled = false;
    onSessionExpired();
  }, LOGOUT_DELAY_MS);
}

function headers(tokenOverride?: string): Record<string, string> {
  const h: Record<string, string> = { Accept: 'application/json', platformId: platformId() };
  const token = tokenOverride ?? sessionToken();
  if (token) h.token = token;
  if (window.location.hostname.includes('gray')) h.gray = '1';
  return h;
}

/** Decide what the user sees for a failed answer, and fail the call. */
function fail(code: number, msg: string, fields: FieldError[], opts: CallOptions, retryAfterSeconds?: number): never {
  let text: string;
  switch (code) {
    case Code.SessionInvalid:
    case Code.SessionEnded:
      text = msg || i18n.t('request.sessionExpired');
      if (!opts.noRedirect) scheduleForcedLogout();
      break;
    case Code.NoPermission:
      text = i18n.t('request.noPermission');
      break;
    case Code.Internal:
    case Code.Unavailable:
    case Code.Network:
      text = i18n.t('request.serviceError');
      break;
    default:
      text = msg || i18n.t('request.abnormal');
  }
  if (!opts.silent) toastError(text);
  throw new ApiError(code, text, fields, retryAfterSeconds, msg);
}

/** `Retry-After` in seconds (the gateway sends seconds, never a date). */
export function parseRetryAfter(value: string | null): number | undefined {
  if (!value || !/^\d+$/.test(value.trim())) return undefined;
  return Number(value.trim());
}

type AnyInit = CallOptions & { params?: object; body?: unknown };

/** One call: openapi-fetch sends it; the answer's envelope decides between `data` and a failure. */
async function call(method: Method, path: string, init: AnyInit = {}): Promise<unknown> {
  const { params, body, signal, timeoutMs, token, idempotencyKey } = init;
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs ?? REQUEST_TIMEOUT_MS);
  signal?.addEventListener('abort', () => controller.abort());
  // A write always carries a body (`{}` when it has none); a read never does.
  const sendsBody = method !== 'get' && method !== 'delete';
  let answer: { data?: unknown; error?: unknown; response: Response };
  try {
    answer = await client.request(method, path as never, {
      params,
      body: sendsBody ? (body ?? {}) : undefined,
      signal: controller.signal,
      fetch: sendWith({ ...headers(token), ...(idempotencyKey ? { 'Idempotency-Key': idempotencyKey } : {}) }),
    } as never);
  } catch (err) {
    // A successful answer whose body is not JSON lands here too: no usable answer came.
    if (signal?.aborted) throw err;
    return fail(Code.Network, '', [], init);
  } finally {
    clearTimeout(timer);
  }
  const { response } = answer;
  const envelope = (answer.data ?? answer.error) as { code?: unknown; msg?: unknown; message?: unknown; data?: unknown } | string | undefined;
  // No body, or one that is not JSON (openapi-fetch hands a failed answer's text back as it is).
  if (typeof envelope !== 'object' || envelope === null) return fail(Code.Network, '', [], init);
  const code = Number(envelope.code);
  if (code === Code.Ok) return envelope.data;
  const msg = typeof envelope.msg === 'string' ? envelope.msg : typeof envelope.message === 'string' ? envelope.message : '';
  const fields = code === Code.Validation || code === Code.Conflict ? ((envelope.data as { fields?: FieldError[] } | null)?.fields ?? []) : [];
  const retryAfter = code === Code.RateLimited ? parseRetryAfter(response.headers.get('Retry-After')) : undefined;
  try {
    return fail(Number.isFinite(code) ? code : response.status >= 500 ? Code.Internal : Code.Network, msg, fields, init, retryAfter);
  } catch (err) {
    if (err instanceof ApiError && code === Code.Validation) err.data = envelope.data;
    throw err;
  }
}

/** A multipart POST (file uploads): same headers, envelope and error handling; text fields trimmed. */
export function postForm<P extends PathWith<'post'>>(path: P, fields: Record<string, string | Blob>, opts: CallOptions = {}): Promise<ApiData<P, 'post'>> {
  const form = new FormData();
  for (const [key, value] of Object.entries(fields)) {
    if (typeof value === 'string') form.append(key, value.trim());
    else form.append(key, value, value instanceof File ? value.name : undefined);
  }
  return call('post', path, { ...opts, body: form }) as Promise<ApiData<P, 'post'>>;
}

/** Typed calls: paths, `params: {path, query}` and bodies checked against the generated OpenAPI types. */
export const api = {
  get: <P extends PathWith<'get'>>(path: P, init?: CallInit<P, 'get'>) => call('get', path, init) as Promise<ApiData<P, 'get'>>,
  post: <P extends PathWith<'post'>>(path: P, init?: CallInit<P, 'post'>) => call('post', path, init) as Promise<ApiData<P, 'post'>>,
  put: <P extends PathWith<'put'>>(path: P, init?: CallInit<P, 'put'>) => call('put', path, init) as Promise<ApiData<P, 'put'>>,
  patch: <P extends PathWith<'patch'>>(path: P, init?: CallInit<P, 'patch'>) => call('patch', path, init) as Promise<ApiData<P, 'patch'>>,
  delete: <P extends PathWith<'delete'>>(path: P, init?: CallInit<P, 'delete'>) => call('delete', path, init) as Promise<ApiData<P, 'delete'>>,
};

/** The session headers of every call, for a request the typed client cannot make (a file download). */
export function sessionHeaders(): Record<string, string> {
  return headers();
}
