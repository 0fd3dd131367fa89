// Replay and time travel (issue 32): /matches/{id}?at=n shows the board as you saw it just after
// record n. ←/→ (or the buttons) step, the slider jumps, Play steps on by itself. During a live
// match this is your own past view; once it is over, the server also shows any seat's.
import { get } from "./api.js";
import { GAMES, describeRecord, resultWords } from "./match.js";
import { formatNumber, gameHas, gameT, t } from "./i18n.js";
import { ErrorNote, Link, gameName, html, seatName, useEffect, useRef, useState } from "./ui.js";

const STEP_MS = 900;
const RECORD_TYPES = [
  "created",
  "seat_taken",
  "seat_left",
  "bot_added",
  "started",
  "timeout",
  "expired",
  "resigned",
  "bot_took_over",
  "aborted",
  "paused",
  "resumed",
  "seat_returned",
  "undone",
  "drawn",
  "conceded",
  "cancelled",
  "time_granted",
  "adjudicated",
];
const words = (code) => code.replaceAll("_", " ");
// A record's type in a few words; an effect's kind in its game's (`effect.<kind>`), else its code.
const typeWords = (type) => (RECORD_TYPES.includes(type) ? t(`ui.timeline.${type}`) : words(type));
const kindWords = (game, kind) => (gameHas(game, `effect.${kind}`) ? gameT(game)(`effect.${kind}`) : words(kind));
// A timeline line in the players' names: "ann: played, drew" ("move" itself says nothing).
const entryWords = (e, names, game) => {
  const parts = [e.type === "move" ? "" : typeWords(e.type), ...e.effects.map((k) => kindWords(game, k))];
  const what = parts.filter(Boolean).join(", ");
  return e.seat === null || e.seat === undefined
    ? what
    : t("ui.replay.entry", { name: names(e.seat), what: what || t("ui.replay.moved") });
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

  if (error) return html`<main><h1>${t("ui.replay.title")}</h1><${ErrorNote} error=${error} /></main>`;
  if (!summary || !line) return html`<main><p>${t("ui.common.loading")}</p></main>`;
  if (!last) return html`<main><h1>${t("ui.replay.title")}</h1><p>${t("ui.replay.nothing")}</p></main>`;
  const game = GAMES[summary.game] || { Board: () => null, describeEffect: () => null };
  const names = (seat) => (seat === null || seat === undefined ? t("ui.match.someone") : seatName(summary, seat));
  const lines = shown?.record ? describeRecord(shown.record, game, names) : [];
  const noop = () => {};
  return html`<main class=${`match replay game-${summary.game}`} data-replay data-at=${shown?.at ?? ""}>
    <header class="match-head">
      <h1>${t("ui.replay.heading", { game: gameName(summary.game) })}</h1>
      <p><${Link} href=${`/matches/${id}`}>${t("ui.replay.back")}<//> · ${
        shown?.you === null || shown?.you === undefined
          ? t("ui.replay.public_view")
          : t("ui.replay.as_seen", { name: names(shown.you) })
      }</p>
    </header>
    <div class="replay-controls" role="group" aria-label=${t("ui.replay.title")}>
      <button type="button" data-step="-1" onClick=${() => step(-1)} disabled=${at <= 1} aria-label=${t("ui.replay.previous")}>←</button>
      <button type="button" data-play onClick=${() => setPlaying(!playing)}>${playing ? t("ui.replay.pause") : t("ui.replay.play")}</button>
      <button type="button" data-step="1" onClick=${() => step(+1)} disabled=${at >= last} aria-label=${t("ui.replay.next")}>→</button>
      <label>${t("ui.replay.record")} <input type="range" min="1" max=${last} value=${at} data-scrubber
        onInput=${(e) => setAt(Number(e.target.value))} aria-valuetext=${t("ui.replay.position", { at, last })} /></label>
      <output>${formatNumber(at)} / ${formatNumber(last)}</output>
    </div>
    <p class="record-now" aria-live="polite">${lines.length ? lines.join(" ") : line[at - 1] && entryWords(line[at - 1], names, summary.game)}</p>
    ${shown?.result && html`<p class="result">${resultWords(shown.result, names, summary.game)}</p>`}
    <div class="table">
      <section class="board" aria-label=${t("ui.match.board")} tabindex="0">
        ${
          shown?.view &&
          html`<${game.Board} view=${shown.view} state=${shown} summary=${summary} names=${names} moves=${[]}
          selected=${null} onSelect=${noop} onMove=${noop} busy=${true} />`
        }
      </section>
      <aside class="panel" aria-label=${t("ui.replay.timeline")}>
        <h2>${t("ui.replay.timeline")}</h2>
        <ol class="timeline">${line.slice(Math.max(0, at - 6), at + 5).map(
          (e) => html`<li key=${e.seq}
          class=${e.seq === at ? "now" : ""}><button type="button" class="link" onClick=${() => setAt(e.seq)}>${formatNumber(e.seq)}. ${entryWords(e, names, summary.game)}</button></li>`,
        )}</ol>
      </aside>
    </div>
  </main>`;
}
