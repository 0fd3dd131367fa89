// EKKO: two-digit cards 1–98; a card and its mirror (37 ↔ 73) share a colour so pairs are recognisable.
import { Countdown, Pick, html, movesByItem } from "../ui.js";

const pad = (n) => String(n).padStart(2, "0");
export const mirrorOf = (n) => {
  const s = pad(n);
  const m = Number(s[1] + s[0]);
  return s[0] === s[1] ? null : m;
};
const pairHue = (n) => {
  const m = mirrorOf(n);
  const key = m === null ? n : Math.min(n, m);
  return (key * 137) % 360;
};

export function Card({ n, onClick, label, small, faded }) {
  if (n === null || n === undefined) return null;
  const eleven = n % 11 === 0;
  const style = eleven ? "" : `--hue:${pairHue(n)}`;
  const cls = `ekko-card${eleven ? " eleven" : ""}${small ? " small" : ""}${faded ? " faded" : ""}${onClick ? " clickable" : ""}`;
  const title = `${pad(n)}${eleven ? " (multiple of 11: play again)" : ` (mirror ${pad(mirrorOf(n))})`}; ${n % 2 ? "odd: next must be higher" : "even: next must be lower"}`;
  const body = html`<span class="num">${pad(n)}</span><span class="par" aria-hidden="true">${n % 2 ? "▲" : "▼"}</span>`;
  return onClick
    ? html`<button type="button" class=${cls} style=${style} title=${title} aria-label=${label || `Play ${pad(n)}`} onClick=${onClick}>${body}</button>`
    : html`<span class=${cls} style=${style} title=${title} role="img" aria-label=${`card ${pad(n)}`}>${body}</span>`;
}

function Back({ count, label }) {
  return html`<span class="card-back" role="img" aria-label=${label}><span>${count}</span></span>`;
}

// The board item a move starts from: a card of the hand (a play, a mirror), the draw pile, the reaction.
const itemOf = (m) =>
  m.type === "play" || m.type === "mirror"
    ? `card:${m.card}`
    : m.type === "draw"
      ? "pile"
      : m.type === "pass"
        ? "pass"
        : null;

export function Board({ view, moves, onMove, names, busy, selected, onSelect }) {
  const items = movesByItem(moves, itemOf);
  const pick = (
    id,
    label,
    face,
  ) => html`<${Pick} id=${id} moves=${items.get(id)} selected=${selected} onSelect=${onSelect}
    onMove=${onMove} busy=${busy} describe=${describeMove} label=${label}>${face}<//>`;
  const area = view.play_area || [];
  const others = (view.seats || []).filter((s) => s.seat !== view.you);
  const required = { higher: "higher than", lower: "lower than", any: "any card on" }[view.required] || view.required;
  return html`<div class="ekko">
    <div class="row info">
      <span>Round ${view.round}</span><span>Dealer: ${names(view.dealer)}</span>
      <span>Target: ${view.target_score}</span>
      ${view.phase === "turn" && html`<span>${names(view.current)} must play ${required} ${pad(view.top?.card)}${view.obligation === "again" ? " (again, after an 11)" : view.obligation === "free" ? " (free play)" : ""}</span>`}
    </div>
    ${
      view.reaction &&
      html`<div class="reaction" role="status">
      <strong>Reaction window:</strong> ${names(view.reaction.emptied)} played the last card ${pad(view.reaction.card)}.
      Mirror it with ${pad(mirrorOf(view.reaction.card))} or pass. ${view.reaction.deadline && html`<${Countdown} deadline=${view.reaction.deadline} label="to react" />`}
      ${view.reaction.you_answered ? html` <em>You have answered.</em>` : ""}
      ${items.get("pass") && html` <${Pick} id="pass" moves=${items.get("pass")} onMove=${onMove} busy=${busy} describe=${describeMove}><span class="pass">Pass</span><//>`}
    </div>`
    }
    <div class="row opponents">${others.map(
      (s) => html`<div class="opponent" key=${s.seat}>
      <div>${names(s.seat)}${s.active ? "" : " (out)"}</div>
      <${Back} count=${s.hand_count} label=${`${names(s.seat)} holds ${s.hand_count} cards`} />
      <div class="muted">total ${s.total}${s.removed_count ? ` · ${s.removed_count} discarded` : ""}</div>
    </div>`,
    )}</div>
    <div class="row middle">
      <div class="pile">${pick("pile", "Draw a card", html`<${Back} count=${view.draw_pile_count} label=${`Draw pile: ${view.draw_pile_count} cards`} />`)}<div class="muted">draw pile</div></div>
      <div class="play-area" aria-label="Play area">
        ${area.slice(-8).map((n, i, a) => html`<${Card} key=${`${n}-${i}`} n=${n} small=${i < a.length - 1} faded=${i < a.length - 1} />`)}
        ${area.length > 8 && html`<span class="muted">+${area.length - 8} below</span>`}
      </div>
      <div class="muted top-info">${view.top && html`Top ${pad(view.top.card)} by ${names(view.top.by)} (${view.top.how}).`}
        ${view.mirror_of_top !== null && view.mirror_of_top !== undefined && html` Its mirror is ${pad(view.mirror_of_top)}${view.mirror_of_top_public_dead ? " (already played)" : ""}.`}</div>
    </div>
    ${
      view.you !== null &&
      html`<div class="hand" aria-label="Your hand">
      <h3>Your hand</h3>
      <div class="row">${(view.hand || []).map((n) => html`<span key=${n}>${pick(`card:${n}`, `Moves with ${pad(n)}`, html`<${Card} n=${n} />`)}</span>`)}</div>
      ${view.my_removed?.length ? html`<div class="muted">Discarded face down: ${view.my_removed.map(pad).join(", ")}</div>` : ""}
    </div>`
    }
    ${view.last_round && html`<${Scores} view=${view} names=${names} />`}
  </div>`;
}

function Scores({ view, names }) {
  const r = view.last_round;
  return html`<table class="scores"><caption>Round ${r.round}: ${r.reason === "went_out" ? `${names(r.went_out)} went out` : "the draw pile ran out"}</caption>
    <thead><tr><th>Player</th><th>Hand</th><th>Points</th><th>Total</th></tr></thead>
    <tbody>${(r.totals || []).map((t, i) => html`<tr><td>${names(i)}</td><td>${r.hands?.[i] ? r.hands[i].map(pad).join(" ") : "—"}</td><td>${r.round_points?.[i] ?? ""}</td><td>${t}</td></tr>`)}</tbody></table>`;
}

export function describeMove(m) {
  switch (m.type) {
    case "play":
      return `Play ${pad(m.card)}`;
    case "draw":
      return "Draw a card";
    case "pass":
      return "Pass (no mirror)";
    case "mirror":
      return m.effect === "discard"
        ? `Mirror ${pad(m.against)} with ${pad(m.card)} and discard ${pad(m.discard)}`
        : `Mirror ${pad(m.against)} with ${pad(m.card)}: the others draw`;
    default:
      return JSON.stringify(m);
  }
}

const CAUSES = {
  turn: "",
  timeout: " (out of time)",
  eleven_last_card: " (an 11 as last card)",
  others_draw: " (mirror)",
  reaction: " (reaction)",
  penalty: " (penalty)",
};

export function describeEffect(e, n) {
  const d = e.data || {};
  switch (e.kind) {
    case "round_started":
      return `Round ${d.round}: ${n(d.dealer)} deals ${d.hand_size} cards each; the start card is ${pad(d.start_card)}.`;
    case "hand_dealt":
      return `You were dealt ${d.hand.map(pad).join(", ")}.`;
    case "played":
      return `${n(d.seat)} played ${pad(d.card)}.`;
    case "drew":
      return `${n(d.seat)} drew a card${CAUSES[d.cause] ?? ""}${d.auto ? " (automatically)" : ""}.`;
    case "card_drawn":
      return `You drew ${pad(d.card)}.`;
    case "mirrored":
      return `${n(d.seat)} mirrored ${pad(d.against)} with ${pad(d.card)} (${d.effect === "discard" ? "discarding a card" : "the others draw"}).`;
    case "card_discarded":
      return `You discarded ${pad(d.card)} face down.`;
    case "reaction_opened":
      return `${n(d.emptied)} played a last card (${pad(d.card)}): the reaction window is open.`;
    case "reaction_answer":
      return "Someone answered the reaction window.";
    case "you_passed":
      return "You passed.";
    case "reaction_closed":
      return d.result === "no_mirror"
        ? `The window closed with no mirror${d.expired ? " (time ran out)" : ""}.`
        : `The window closed: ${n(d.seat)} mirrored.`;
    case "penalty":
      return `${n(d.seat)} took a penalty card (${String(d.kind).replaceAll("_", " ")}).`;
    case "skipped":
      return `${n(d.seat)} was skipped (${String(d.cause).replaceAll("_", " ")}).`;
    case "round_ended":
      return `Round ${d.round} ended (${String(d.reason).replaceAll("_", " ")}). Totals: ${(d.totals || []).map((t, i) => `${n(i)} ${t}`).join(", ")}.`;
    case "game_ended":
      return `The game ended: ${(d.winners || []).map(n).join(" and ")} won.`;
    case "resigned":
      return `${n(d.seat)} resigned.`;
    default:
      return null;
  }
}

export const ekko = { Board, describeMove, describeEffect };
