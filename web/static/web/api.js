// The HTTP API, as a third-party client sees it: a token in localStorage, JSON in and out,
// RFC 9457 problem documents turned into sentences for people.

const BASE = "/api/v1/";
const TOKEN_KEY = "tabula.token";
const USER_KEY = "tabula.username";

export const session = {
  get token() {
    return localStorage.getItem(TOKEN_KEY);
  },
  get username() {
    return localStorage.getItem(USER_KEY);
  },
  save(token, username) {
    localStorage.setItem(TOKEN_KEY, token);
    localStorage.setItem(USER_KEY, username);
  },
  clear() {
    localStorage.removeItem(TOKEN_KEY);
    localStorage.removeItem(USER_KEY);
  },
};

export class ApiError extends Error {
  constructor(status, problem) {
    super(describeProblem(status, problem));
    this.status = status;
    this.problem = problem || {};
    this.code = this.problem.code || `http_${status}`;
  }
}

const WORDS = {
  undo_unsafe: "That move cannot be taken back: someone has seen what it showed, or it drew a card.",
  away_too_long: "Your balance of away time does not reach that far: choose an earlier return.",
  away_not_now: "You cannot go away right now (a clock of yours is nearly out, or you went away too recently).",
  version_conflict: "Someone else moved first, so the board has been refreshed. Look again and try again.",
  race_lost: "Too late: that card is no longer on top. The board has been refreshed.",
  not_awaited: "It is not your turn to do that.",
  not_seated: "You are not seated in this match.",
  match_over: "This match is over.",
  not_authenticated: "Please sign in first.",
  authentication_failed: "Your session has ended. Please sign in again.",
  rate_limited: "Too many requests: wait a moment and try again.",
  service_unavailable: "The server is unavailable for a moment. Try again shortly.",
};

export function describeProblem(status, p) {
  if (!p || typeof p !== "object")
    return status ? `The server answered ${status}.` : "The server could not be reached.";
  if (WORDS[p.code]) return WORDS[p.code];
  let text = p.detail || p.title || `The server answered ${status}.`;
  if (p.errors) {
    const fields = Object.entries(p.errors).map(
      ([f, msgs]) => `${f === "non_field_errors" ? "" : f + ": "}${msgs.join(" ")}`,
    );
    if (fields.length) text = fields.join(" ");
  }
  if (p.reason && !text.includes(p.reason)) text += ` (${p.reason.replaceAll("_", " ")})`;
  return text;
}

// Requests under way, so that signing out can wait for them before the token is revoked.
let inflight = 0;
const settledWaiters = [];
function settle() {
  inflight -= 1;
  if (inflight === 0) settledWaiters.splice(0).forEach((resolve) => resolve());
}
export function settled(timeoutMs = 3000) {
  if (inflight === 0) return Promise.resolve();
  return new Promise((resolve) => {
    settledWaiters.push(resolve);
    setTimeout(resolve, timeoutMs);
  });
}

/**
 * @typedef {object} RequestOptions
 * @property {unknown} [body] sent as JSON
 * @property {Record<string, string>} [headers]
 * @property {string | null} [etag] sent as If-None-Match; a 304 answers `{ notModified: true, etag }`
 * @property {boolean} [withEtag] answer `{ data, etag }` instead of the data alone
 */

/**
 * One request to the API under /api/v1/; a problem document (or no answer) throws an ApiError.
 * @param {string} method
 * @param {string} path below /api/v1/, with its query
 * @param {RequestOptions} [opts]
 * @returns {Promise<any>} the JSON answer (its shape is the endpoint's schema in types.js)
 */
export async function request(method, path, opts = {}) {
  inflight += 1;
  try {
    return await send(method, path, opts);
  } finally {
    settle();
  }
}

/** @param {string} method @param {string} path @param {RequestOptions} opts */
async function send(method, path, { body, headers = {}, etag, withEtag = false } = {}) {
  /** @type {Record<string, string>} */
  const h = { Accept: "application/json", ...headers };
  if (session.token) h.Authorization = `Token ${session.token}`;
  if (body !== undefined) h["Content-Type"] = "application/json";
  if (etag) h["If-None-Match"] = etag;
  let response;
  try {
    response = await fetch(BASE + path, {
      method,
      headers: h,
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: "omit",
    });
  } catch (e) {
    throw new ApiError(0, null);
  }
  if (response.status === 304) return { notModified: true, etag: response.headers.get("ETag") };
  const text = await response.text();
  let data = null;
  if (text) {
    try {
      data = JSON.parse(text);
    } catch (e) {
      data = null;
    }
  }
  if (!response.ok) {
    if (response.status === 401 && session.token) {
      session.clear();
      window.dispatchEvent(new Event("tabula:signed-out"));
    }
    throw new ApiError(response.status, data);
  }
  return withEtag ? { data, etag: response.headers.get("ETag") } : data;
}

/** @type {(path: string, opts?: RequestOptions) => Promise<any>} */
export const get = (path, opts) => request("GET", path, opts);
/** @type {(path: string, body?: unknown, opts?: RequestOptions) => Promise<any>} */
export const post = (path, body, opts = {}) => request("POST", path, { ...opts, body: body ?? {} });
/** @type {(path: string, body?: unknown, opts?: RequestOptions) => Promise<any>} */
export const put = (path, body, opts = {}) => request("PUT", path, { ...opts, body: body ?? {} });
/** @type {(path: string, body?: unknown, opts?: RequestOptions) => Promise<any>} */
export const patch = (path, body, opts = {}) => request("PATCH", path, { ...opts, body: body ?? {} });
/** @type {(path: string, opts?: RequestOptions) => Promise<any>} */
export const del = (path, opts) => request("DELETE", path, opts);

// The client is served by the server it talks to, so every endpoint it names exists: nothing is
// probed (the OpenAPI document, 450 KB, is never downloaded to start). `has` stays for the callers
// that ask; `optional` still turns a missing endpoint (an older server behind a proxy) into null.
/** @param {string} _path */
export async function has(_path) {
  return true;
}
export const isMissingEndpoint = (e) => e?.status === 404 && String(e.problem?.detail || "").startsWith("No such path");

// An endpoint another capability adds (leaderboards, rating history, me/turns): null when absent.
export async function optional(path) {
  if (!(await has(path))) return null;
  try {
    return await get(path);
  } catch (e) {
    if (isMissingEndpoint(e)) return null;
    throw e;
  }
}

export function newKey() {
  return (crypto.randomUUID ? crypto.randomUUID() : `${Date.now()}-${Math.random()}`).replace(/[^A-Za-z0-9-]/g, "");
}

// Every match list is paginated (LimitOffsetPagination): results may be a page or a plain list.
export const results = (page) => (Array.isArray(page) ? page : (page?.results ?? []));
