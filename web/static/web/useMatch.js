// One match's live state, for the match page and anything else that shows a match: the summary,
// the caller's state and the records, kept current by the match stream (or polling, for visitors),
// never stepping back to an older version when answers cross; and the actions that change it. The
// board is `busy` from a click until the answer's state is shown, and a lost race (someone moved
// first) refreshes silently.
import { ApiError, get, newKey, post } from "./api.js";
import { watchMatch } from "./live.js";
import { useEffect, useRef, useState } from "./ui.js";

/** @typedef {import("./types.js").Match} Match */
/** @typedef {import("./types.js").MatchState} MatchState */
/** @typedef {import("./types.js").MatchRecord} MatchRecord */
/** @typedef {import("./types.js").MoveSubmitOutput} MoveSubmitOutput */

const SILENT = ["version_conflict", "race_lost", "not_awaited", "match_over"];

/**
 * @param {string} id the match
 * @param {{ onPlayed?: () => void }} [hooks] called after each accepted move or undo
 */
export function useMatch(id, { onPlayed } = {}) {
  const [summary, setSummary] = useState(/** @type {Match | null} */ (null));
  const [state, setState] = useState(/** @type {MatchState | null} */ (null));
  const [records, setRecords] = useState(/** @type {MatchRecord[]} */ ([]));
  const [error, setError] = useState(/** @type {unknown} */ (null));
  const [fatal, setFatal] = useState(/** @type {unknown} */ (null));
  const [busy, setBusy] = useState(false);
  const lastSeq = useRef(0);
  const summaryVersion = useRef(-1);
  const shownVersion = useRef(-1); // answers may arrive out of order: never step back to an older state
  const live = useRef(/** @type {{ stop(): void, refresh(): Promise<void> } | null} */ (null));
  const loading = useRef(false);

  /** The summary (seats, clocks) and the log follow the state's version. */
  async function refreshAround(/** @type {MatchState | null} */ s) {
    if (loading.current) return;
    loading.current = true;
    try {
      if (!s || s.version !== summaryVersion.current) {
        const sum = /** @type {Match} */ (await get(`matches/${id}`));
        summaryVersion.current = sum.version;
        setSummary(sum);
      }
      const more = /** @type {MatchRecord[]} */ (await get(`matches/${id}/events?after=${lastSeq.current}`));
      if (more.length) {
        lastSeq.current = more[more.length - 1].seq;
        setRecords((old) => [...old, ...more]);
      }
    } catch (e) {
      if (e.status === 404) setFatal(e);
      else setError(e);
    } finally {
      loading.current = false;
    }
  }

  function accept(/** @type {MatchState | null} */ s) {
    if (!s || s.version < shownVersion.current) return;
    shownVersion.current = s.version;
    setState(s);
    refreshAround(s);
  }

  useEffect(() => {
    let alive = true;
    shownVersion.current = -1;
    summaryVersion.current = -1;
    lastSeq.current = 0;
    setSummary(null); // another match (a rematch): nothing of the last one stays on the page
    setState(null);
    setRecords([]);
    setFatal(null);
    (async () => {
      try {
        const [sum, st] = await Promise.all([get(`matches/${id}`), get(`matches/${id}/state`)]);
        if (!alive) return;
        summaryVersion.current = sum.version;
        setSummary(sum);
        accept(st);
      } catch (e) {
        if (alive) setFatal(e);
      }
    })();
    live.current = watchMatch(id, (s) => alive && accept(s));
    return () => {
      alive = false;
      live.current?.stop();
    };
  }, [id]);

  /** Runs one action with the board disabled; a lost race refreshes without a word. */
  async function act(/** @type {() => Promise<void>} */ fn) {
    setBusy(true);
    setError(null);
    try {
      await fn();
    } catch (e) {
      if (e instanceof ApiError && SILENT.includes(e.code)) await live.current?.refresh();
      else {
        // A refused move in the game's own words (its catalogue), from the problem's reason and params.
        if (e instanceof ApiError && summary) e.message = e.about(summary.game);
        setError(e);
      }
    } finally {
      setBusy(false);
    }
  }

  const play = (/** @type {object} */ move) =>
    act(async () => {
      const answer = /** @type {MoveSubmitOutput} */ (
        await post(
          `matches/${id}/moves`,
          { move, expected_version: state.version },
          { headers: { "Idempotency-Key": newKey() } },
        )
      );
      onPlayed?.();
      accept(answer.state);
      window.dispatchEvent(new Event("tabula:moved")); // the badge and the title count what waits for me
      // Bots answer right after a commit: look again shortly rather than at the next poll.
      const next = answer.state;
      if (next.status === "active" && !next.awaiting.includes(next.you)) setTimeout(() => live.current?.refresh(), 300);
    });

  const undo = () =>
    act(async () => {
      const answer = /** @type {MoveSubmitOutput} */ (
        await post(`matches/${id}/undo`, { expected_version: state.version })
      );
      onPlayed?.();
      accept(answer.state);
    });

  /** A command on the match (join, leave, resign, bots…): its answer is the new summary. */
  const command = (/** @type {string} */ path, /** @type {object} */ body) =>
    act(async () => {
      const sum = /** @type {Match} */ (await post(`matches/${id}/${path}`, body || {}));
      summaryVersion.current = -1;
      setSummary(sum);
      await live.current?.refresh();
      refreshAround(null);
    });

  /** Something else changed the match (an agreement): read the summary and the state again. */
  const refresh = () => {
    summaryVersion.current = -1;
    live.current?.refresh();
  };

  return { summary, state, records, error, setError, fatal, busy, act, play, undo, command, refresh };
}
