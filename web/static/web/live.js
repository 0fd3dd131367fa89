// Live updates, in one place so the integrator verifies it once the streams land (issue 12).
//
// With streams: POST me/stream-tickets gives a single-use ticket, and an EventSource on
// `matches/{id}/stream?ticket=…` (or `me/stream?ticket=…`) says when something happened; the page
// then re-reads what it shows. EventSource cannot send an Authorization header, hence the ticket;
// a dropped stream gets a fresh ticket (the old one is spent) and resumes from its last id.
// Without them (a 404 on the ticket endpoint): poll, `GET state` with If-None-Match every second
// for a match, the turn list every few seconds for "My games".

import { get, has, isMissingEndpoint, post } from "./api.js";

let streams = "unknown"; // "yes" | "no" | "unknown"

async function ticket() {
  if (streams === "no") return null;
  if (streams === "unknown" && !(await has("me/stream-tickets"))) { streams = "no"; return null; }
  try {
    const t = await post("me/stream-tickets", {});
    streams = "yes";
    return t?.ticket ?? null;
  } catch (e) {
    if (isMissingEndpoint(e) || e.status === 405) streams = "no";
    return null;
  }
}

function stream(path, onEvent, onFallback) {
  let source = null;
  let stopped = false;
  let lastId = null;
  let retry = 1000;
  async function open() {
    const t = await ticket();
    if (stopped) return;
    if (!t) { onFallback(); return; }
    const params = new URLSearchParams({ ticket: t });
    if (lastId) params.set("last_event_id", lastId);
    source = new EventSource(`/api/v1/${path}?${params}`);
    source.onmessage = (m) => { lastId = m.lastEventId || lastId; retry = 1000; onEvent(m); };
    source.addEventListener("error", () => {
      source.close();
      if (!stopped) { setTimeout(open, retry); retry = Math.min(retry * 2, 30000); }
    });
    // Named SSE events (`event: your_turn` …) do not reach onmessage: listen for the pinned types too.
    for (const type of ["record", "your_turn", "match_started", "match_finished", "clock_low", "timed_out", "bot_took_over", "invited"]) {
      source.addEventListener(type, (m) => { lastId = m.lastEventId || lastId; onEvent(m); });
    }
  }
  open();
  return () => { stopped = true; source?.close(); };
}

// Calls onState(state) whenever the caller's view of the match changes.
export function watchMatch(matchId, onState, { interval = 1000 } = {}) {
  let etag = null;
  let timer = null;
  let stopped = false;
  let busy = false;
  async function read() {
    if (busy || stopped) return;
    busy = true;
    try {
      const s = await get(`matches/${matchId}/state`, { etag, withEtag: true });
      etag = s.etag;
      if (!s.notModified && !stopped) onState(s.data);
    } catch (e) {
      /* the page shows the errors of its own requests; a failed poll just tries again */
    } finally {
      busy = false;
    }
  }
  function poll() {
    if (stopped) return;
    timer = setTimeout(async () => { await read(); poll(); }, interval);
  }
  const stop = stream(`matches/${matchId}/stream`, () => { etag = null; read(); }, poll);
  return {
    refresh() { etag = null; return read(); },
    stop() { stopped = true; clearTimeout(timer); stop(); },
  };
}

// Calls onChange() when the caller's matches may have changed (turns, starts, ends).
export function watchMe(onChange, { interval = 4000 } = {}) {
  let timer = null;
  let stopped = false;
  function poll() {
    if (stopped) return;
    timer = setTimeout(() => { onChange(); poll(); }, interval);
  }
  const stop = stream("me/stream", () => onChange(), poll);
  return () => { stopped = true; clearTimeout(timer); stop(); };
}
