// The HTTP API, as a third-party client sees it: a token in localStorage, JSON in and out,
// RFC 9457 problem documents turned into sentences for people. Every request says the language
// the page speaks (Accept-Language), so problem documents come back in it.
import { gameHas, gameT, lang, t } from "./i18n.js";

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

  /** This error in words, a refused move in `game`'s own words. */
  about(game) {
    return describeProblem(this.status, this.status ? this.problem : null, game);
  }
}

// Codes the client words itself (more helpful here than the server's generic detail).
const OWN_WORDS = [
  "undo_unsafe",
  "away_too_long",
  "away_not_now",
  "version_conflict",
  "race_lost",
  "not_awaited",
  "not_seated",
  "match_over",
  "not_authenticated",
  "authentication_failed",
  "rate_limited",
  "service_unavailable",
];

/**
 * A problem document in words for people. The server's `detail` already speaks the request's
 * language; a refused move is told in the game catalogue's words when the caller names the game
 * (the same words a third-party client would use, from `reason` and `params` alone).
 * @param {number} status
 * @param {any} p the problem document, or null when there was no answer
 * @param {string | null} [game] the game the request was about, if any
 */
export function describeProblem(status, p, game = null) {
  if (!p || typeof p !== "object") return status ? t("ui.problem.status", { status }) : t("ui.problem.unreachable");
  if (OWN_WORDS.includes(p.code)) return t(`ui.problem.${p.code}`);
  if (game && p.reason && gameHas(game, `reason.${p.reason}`)) return gameT(game)(`reason.${p.reason}`, p.params || {});
  let text = p.detail || p.title || t("ui.problem.status", { status });
  if (p.errors) {
    const fields = Object.entries(p.errors).map(
      ([f, msgs]) => `${f === "non_field_errors" ? "" : f + ": "}${msgs.join(" ")}`,
    );
    if (fields.length) text = fields.join(" ");
  }
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
  const h = { Accept: "application/json", "Accept-Language": lang(), ...headers };
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
// A path the server does not route answers a bare `not_found` problem (its detail speaks the
// caller's language, so it is not read); a missing thing on a known path is also `not_found`, and
// `optional` treats both as absent, which is what its callers want.
const PLAIN = new Set(["type", "title", "status", "detail", "code", "instance"]);
export const isMissingEndpoint = (e) =>
  e?.status === 404 && e.code === "not_found" && Object.keys(e.problem || {}).every((k) => PLAIN.has(k));

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
