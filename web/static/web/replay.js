// Replay and time travel (issue 32): /matches/{id}?at=n shows the board as you saw it just after
// record n. ←/→ (or the buttons) step, the slider jumps, Play steps on by itself. During a live
// match this is your own past view; once it is over, the server also shows any seat's.
import { get } from "./api.js";
import { GAMES, describeRecord, resultWords } from "./match.js";
import { ErrorNote, Link, gameName, html, seatName, useEffect, useRef, useState } from "./ui.js";

const STEP_MS = 900;
const words = (code) => code.replaceAll("_", " ");
// A timeline line in the players' names: "ann: played, drew" ("move" itself says nothing).
const entryWords = (e, names) => {
  const what = [e.type === "move" ? "" : words(e.type), ...e.effects.map(words)].filter(Boolean).join(", ");
  return e.seat === null || e.seat === undefined ? what : `${names(e.seat)}: ${what || "moved"}`;
};

async function wholeTimeline(id) {
  const out = [];
  for (;;) {
    const page = await get(`matches/${id}/timeline?after=${out.length ? out[out.length - 1].seq : 0}&limit=5000`);
    out.push(...page);
    if (page.length < 5000) return out;
  }
}

export function ReplayPage({ id, at: start }) {
  const [summary, setSummary] = useState(null);
  const [line, setLine] = useState(null);
  const [at, setAt] = useState(start);
  const [shown, setShown] = useState(null);
  const [playing, setPlaying] = useState(false);
  const [error, setError] = useState(null);
  const wanted = useRef(start);

  useEffect(() => {
    Promise.all([get(`matches/${id}`), wholeTimeline(id)])
      .then(([sum, tl]) => {
        setSummary(sum);
        setLine(tl);
        if (tl.length && (start < 1 || start > tl.length)) setAt(Math.min(Math.max(1, start), tl.length));
      })
      .catch(setError);
  }, [id]);

  useEffect(() => {
    if (!line || !line.length) return;
    wanted.current = at;
    history.replaceState(null, "", `/matches/${id}?at=${at}`);
    get(`matches/${id}/state?at=${at}`)
      .then((s) => {
        if (wanted.current === s.at) setShown(s);
      })
      .catch(setError);
  }, [at, line]);

  const last = line?.length || 0;
  const step = (d) => setAt((n) => Math.min(Math.max(1, n + d), last));

  useEffect(() => {
    const keys = (e) => {
      if (e.target.closest?.("input, textarea, select")) return;
      if (e.key === "ArrowLeft") {
        e.preventDefault();
        step(-1);
      }
      if (e.key === "ArrowRight") {
        e.preventDefault();
        step(+1);
      }
    };
    window.addEventListener("keydown", keys);
    return () => window.removeEventListener("keydown", keys);
  }, [last]);

  useEffect(() => {
    if (!playing) return undefined;
    if (at >= last) {
      setPlaying(false);
      return undefined;
    }
    const t = setTimeout(() => step(+1), STEP_MS);
    return () => clearTimeout(t);
  }, [playing, at, last]);

  if (error) return html`<main><h1>Replay</h1><${ErrorNote} error=${error} /></main>`;
  if (!summary || !line) return html`<main><p>Loading…</p></main>`;
  if (!last) return html`<main><h1>Replay</h1><p>Nothing to replay yet.</p></main>`;
  const game = GAMES[summary.game] || { Board: () => null, describeEffect: () => null };
  const names = (seat) => (seat === null || seat === undefined ? "Someone" : seatName(summary, seat));
  const lines = shown?.record ? describeRecord(shown.record, game, names) : [];
  const noop = () => {};
  return html`<main class=${`match replay game-${summary.game}`} data-replay data-at=${shown?.at ?? ""}>
    <header class="match-head">
      <h1>${gameName(summary.game)}: replay</h1>
      <p><${Link} href=${`/matches/${id}`}>Back to the match<//> · ${
        shown?.you === null || shown?.you === undefined ? "the public view" : `as ${names(shown.you)} saw it`
      }</p>
    </header>
    <div class="replay-controls" role="group" aria-label="Replay">
      <button type="button" data-step="-1" onClick=${() => step(-1)} disabled=${at <= 1} aria-label="Previous record">←</button>
      <button type="button" data-play onClick=${() => setPlaying(!playing)}>${playing ? "Pause" : "Play"}</button>
      <button type="button" data-step="1" onClick=${() => step(+1)} disabled=${at >= last} aria-label="Next record">→</button>
      <label>Record <input type="range" min="1" max=${last} value=${at} data-scrubber
        onInput=${(e) => setAt(Number(e.target.value))} aria-valuetext=${`record ${at} of ${last}`} /></label>
      <output>${at} / ${last}</output>
    </div>
    <p class="record-now" aria-live="polite">${lines.length ? lines.join(" ") : line[at - 1]?.text}</p>
    ${shown?.result && html`<p class="result">${resultWords(shown.result, names)}</p>`}
    <div class="table">
      <section class="board" aria-label="Board" tabindex="0">
        ${
          shown?.view &&
          html`<${game.Board} view=${shown.view} state=${shown} summary=${summary} names=${names} moves=${[]}
          selected=${null} onSelect=${noop} onMove=${noop} busy=${true} />`
        }
      </section>
      <aside class="panel" aria-label="Timeline">
        <h2>Timeline</h2>
        <ol class="timeline">${line.slice(Math.max(0, at - 6), at + 5).map(
          (e) => html`<li key=${e.seq}
          class=${e.seq === at ? "now" : ""}><button type="button" class="link" onClick=${() => setAt(e.seq)}>${e.seq}. ${entryWords(e, names)}</button></li>`,
        )}</ol>
      </aside>
    </div>
  </main>`;
}
