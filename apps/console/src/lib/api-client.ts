/**
 * The request client: every call to the gateway goes through here. It adds the
 * `token` and `platformId` headers, trims request strings, times out after 60 s,
 * unwraps the `{code, msg, data}` envelope and implements the error catalogue
 * (spec §8, ARCHITECTURE §3) in one place.
 */
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

/** A field error of a 4000 answer (`data.fields`, ARCHITECTURE §3). */
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

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
type PathsFor<M extends Method> = {
  [P in keyof paths]: paths[P][M] extends undefined ? never : P;
}[keyof paths];
type Op<P extends keyof paths, M extends Method> = NonNullable<paths[P][M]>;
type JsonOf<T> = T extends { content: { 'application/json': infer B } } ? B : never;
type BodyOf<O> = O extends { requestBody: infer R } ? JsonOf<R> : O extends { requestBody?: infer R } ? JsonOf<NonNullable<R>> | undefined : undefined;
type QueryOf<O> = O extends { parameters: { query?: infer Q } } ? Q : never;
type PathParamsOf<O> = O extends { parameters: { path: infer Pp } } ? Pp : never;
type EnvelopeOf<O> = O extends { responses: { 200: infer R } } ? JsonOf<R> : never;
/** The `data` of a successful answer of `M path`. */
export type ApiData<P extends keyof paths, M extends Method> =
  EnvelopeOf<Op<P, M>> extends { data?: infer D } ? NonNullable<D> : never;

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

interface RequestInit<P extends keyof paths, M extends Method> extends CallOptions {
  query?: QueryOf<Op<P, M>>;
  path?: PathParamsOf<Op<P, M>>;
  body?: BodyOf<Op<P, M>>;
}

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

function buildUrl(template: string, pathParams?: object, query?: object): string {
  let url = template.replace(/\{(\w+)\}/g, (_, key: string) =>
    encodeURIComponent(String((pathParams as Record<string, unknown> | undefined)?.[key] ?? '')),
  );
  if (query) {
    const search = new URLSearchParams();
    for (const [key, value] of Object.entries(trimDeep(query))) {
      if (value === undefined || value === null) continue;
      for (const v of Array.isArray(value) ? value : [value]) search.append(key, String(v));
    }
    const qs = search.toString();
    if (qs) url += `?${qs}`;
  }
  return url;
}

function headers(hasBody: boolean, tokenOverride?: string): Record<string, string> {
  const h: Record<string, string> = { Accept: 'application/json', platformId: platformId() };
  if (hasBody) h['Content-Type'] = 'application/json';
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

async function send(
  method: Method,
  path: string,
  init: CallOptions & { query?: object; path?: object; body?: unknown } = {},
): Promise<unknown> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), init.timeoutMs ?? REQUEST_TIMEOUT_MS);
  init.signal?.addEventListener('abort', () => controller.abort());
  const form = init.body instanceof FormData ? init.body : undefined;
  const body = method === 'get' || method === 'delete' ? undefined : (form ?? trimDeep(init.body ?? {}));
  let response: Response;
  let envelope: { code?: unknown; msg?: unknown; message?: unknown; data?: unknown };
  try {
    response = await fetch(buildUrl(path, init.path, init.query), {
      method: method.toUpperCase(),
      // A form sets its own multipart Content-Type (with the boundary).
      headers: { ...headers(body !== undefined && !form, init.token), ...(init.idempotencyKey ? { 'Idempotency-Key': init.idempotencyKey } : {}) },
      body: body === undefined ? undefined : form ?? JSON.stringify(body),
      signal: controller.signal,
    });
    envelope = (await response.json()) as typeof envelope;
  } catch (err) {
    if (init.signal?.aborted) throw err;
    return fail(Code.Network, '', [], init);
  } finally {
    clearTimeout(timer);
  }
  const code = Number(envelope.code);
  if (code === Code.Ok) return envelope.data;
  const msg = typeof envelope.msg === 'string' ? envelope.msg : typeof envelope.message === 'string' ? envelope.message : '';
  const fields = code === Code.Validation ? ((envelope.data as { fields?: FieldError[] } | null)?.fields ?? []) : [];
  const retryAfter = code === Code.RateLimited ? parseRetryAfter(response.headers.get('Retry-After')) : undefined;
  try {
    return fail(Number.isFinite(code) ? code : response.status >= 500 ? Code.Internal : Code.Network, msg, fields, init, retryAfter);
  } catch (err) {
    if (err instanceof ApiError && code === Code.Validation) err.data = envelope.data;
    throw err;
  }
}

function request<P extends keyof paths, M extends Method>(method: M, path: P, init: RequestInit<P, M> = {}): Promise<ApiData<P, M>> {
  return send(method, path, init as CallOptions & { query?: object; path?: object; body?: unknown }) as Promise<ApiData<P, M>>;
}

/** A multipart POST (file uploads): same headers, envelope and error handling; text fields trimmed. */
export function postForm<P extends PathsFor<'post'>>(path: P, fields: Record<string, string | Blob>, opts: CallOptions = {}): Promise<ApiData<P, 'post'>> {
  const form = new FormData();
  for (const [key, value] of Object.entries(fields)) {
    if (typeof value === 'string') form.append(key, value.trim());
    else form.append(key, value, value instanceof File ? value.name : undefined);
  }
  return send('post', path, { ...opts, body: form }) as Promise<ApiData<P, 'post'>>;
}

/** Typed calls, checked against the generated OpenAPI types. */
export const api = {
  get: <P extends PathsFor<'get'>>(path: P, init?: RequestInit<P, 'get'>) => request('get', path, init),
  post: <P extends PathsFor<'post'>>(path: P, init?: RequestInit<P, 'post'>) => request('post', path, init),
  put: <P extends PathsFor<'put'>>(path: P, init?: RequestInit<P, 'put'>) => request('put', path, init),
  patch: <P extends PathsFor<'patch'>>(path: P, init?: RequestInit<P, 'patch'>) => request('patch', path, init),
  delete: <P extends PathsFor<'delete'>>(path: P, init?: RequestInit<P, 'delete'>) => request('delete', path, init),
};

/** The session headers of every call, for a request the typed client cannot make (a file download). */
export function sessionHeaders(): Record<string, string> {
  return headers(false);
}
