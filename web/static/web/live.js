// Live updates (issue 12): the streams, with polling only while a stream is down.
//
// With streams: POST me/stream-tickets gives a single-use ticket, and an EventSource on
// `matches/{id}/stream?ticket=…` (or `me/stream?ticket=…`) says when something happened; the page
// then re-reads what it shows. EventSource cannot send an Authorization header, hence the ticket;
// a dropped stream gets a fresh ticket (the old one is spent) and resumes from its last id.
// Without them (no ticket endpoint, or a stream that fails: a server without the stream process):
// poll, `GET state` with If-None-Match every second for a match, the turn list every few seconds
// for "My games", and keep trying the stream with a growing delay.

import { get, has, isMissingEndpoint, post, session } from "./api.js";

let streams = "unknown"; // "yes" | "no" | "unknown"

async function ticket() {
  if (streams === "no") return null;
  if (streams === "unknown" && !(await has("me/stream-tickets"))) {
    streams = "no";
    return null;
  }
  if (!session.token) return null; // signed out meanwhile
  try {
    const t = await post("me/stream-tickets", {});
    streams = "yes";
    return t?.ticket ?? null;
  } catch (e) {
    if (isMissingEndpoint(e) || e.status === 405) streams = "no";
    return null;
  }
}

// Every event name the streams send: inbox entry types (me/stream) and record types (matches/{id}/stream).
const EVENTS = [
  "your_turn",
  "match_started",
  "match_finished",
  "clock_low",
  "timed_out",
  "bot_took_over",
  "invited",
  "webhook_disabled",
  "created",
  "seat_taken",
  "seat_left",
  "bot_added",
  "started",
  "move",
  "timeout",
  "expired",
  "resigned",
  "aborted",
  "chat",
  "nudged",
  "followed",
];

// Follows `path` with an EventSource; onLive(true) once it is open, onLive(false) while it is not
// (the caller polls then). A dropped stream gets a fresh ticket and resumes after its last id.
function stream(path, onEvent, onLive) {
  let source = null;
  let stopped = false;
  let lastId = null;
  let retry = 1000;
  let pending = null;
  function again() {
    if (stopped || streams === "no") return;
    pending = setTimeout(open, retry);
    retry = Math.min(retry * 2, 30000);
  }
  async function open() {
    if (stopped) return;
    if (!session.token) {
      onLive(false);
      return;
    } // a visitor without an account: polling only
    const t = await ticket();
    if (stopped) return;
    if (!session.token) {
      onLive(false);
      return;
    }
    if (!t) {
      onLive(false);
      again();
      return;
    }
    const params = new URLSearchParams({ ticket: t });
    if (lastId) params.set("after", lastId);
    source = new EventSource(`/api/v1/${path}?${params}`);
    source.onopen = () => {
      retry = 1000;
      onLive(true);
    };
    const seen = (m) => {
      lastId = m.lastEventId || lastId;
      onEvent(m);
    };
    source.onmessage = seen;
    for (const type of EVENTS) source.addEventListener(type, seen);
    source.addEventListener("error", () => {
      source.close(); // the ticket is spent: the next try takes a fresh one
      onLive(false);
      again();
    });
  }
  open();
  return () => {
    stopped = true;
    clearTimeout(pending);
    source?.close();
  };
}

// Calls onState(state) whenever the caller's view of the match changes.
export function watchMatch(matchId, onState, { interval = 1000 } = {}) {
  let etag = null;
  let timer = null;
  let stopped = false;
  let busy = false;
  let again = false; // something happened during a read: read once more after it
  async function read() {
    if (stopped) return;
    if (busy) {
      again = true;
      return;
    }
    busy = true;
    try {
      const s = await get(`matches/${matchId}/state`, { etag, withEtag: true });
      etag = s.etag;
      if (!s.notModified && !stopped) onState(s.data);
    } catch (e) {
      /* the page shows the errors of its own requests; a failed poll just tries again */
    } finally {
      busy = false;
      if (again) {
        again = false;
        read();
      }
    }
  }
  let live = false;
  function poll() {
    clearTimeout(timer);
    if (stopped || live) return;
    timer = setTimeout(async () => {
      await read();
      poll();
    }, interval);
  }
  // A new record changes the version, so a read with If-None-Match answers 200 only when the view
  // changed: an unchanged page is not re-rendered (a selection on the board survives).
  // A chat message is not a record: it changes no state, so the chat panel re-reads instead (talk.js).
  const onEvent = (m) => {
    if (m.type === "chat") window.dispatchEvent(new CustomEvent("tabula:chat", { detail: matchId }));
    else read();
  };
  const stop = stream(`matches/${matchId}/stream`, onEvent, (isLive) => {
    const was = live;
    live = isLive;
    if (live) {
      clearTimeout(timer);
      read();
    } // catch up on what came before the stream opened
    else if (was || !timer) poll(); // polling only while the stream is down
  });
  return {
    refresh() {
      etag = null;
      return read();
    },
    stop() {
      stopped = true;
      clearTimeout(timer);
      stop();
    },
  };
}

// Calls onChange() when the caller's matches may have changed (turns, starts, ends).
export function watchMe(onChange, { interval = 4000 } = {}) {
  let timer = null;
  let stopped = false;
  let live = false;
  function poll() {
    clearTimeout(timer);
    if (stopped || live) return;
    timer = setTimeout(() => {
      onChange();
      poll();
    }, interval);
  }
  let dropped = false; // the stream was down: what happened meanwhile is re-read once it is back
  const stop = stream(
    "me/stream",
    () => onChange(),
    (isLive) => {
      const was = live;
      live = isLive;
      if (live) {
        clearTimeout(timer);
        if (dropped) onChange();
        dropped = false;
      } else {
        dropped = true;
        if (was || !timer) poll();
      }
    },
  );
  return () => {
    stopped = true;
    clearTimeout(timer);
    stop();
  };
}
