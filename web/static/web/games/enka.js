// Enka: coloured cards (red, yellow, green, blue), action cards and wilds, drawn as cards.
import { Pick, html, movesByItem } from "../ui.js";

const SYMBOLS = { stop: "⊘", back: "⇄", take2: "+2", take5: "+5" };
const WORDS = {
  stop: "STOP",
  back: "BACK",
  take2: "TAKE 2",
  take5: "TAKE 5",
  wild: "CHANGE COLOR",
  "wild-take4": "TAKE 4, CHOOSE A COLOR",
};

export function parse(id) {
  if (id === "wild" || id === "wild-take4" || id === "take5") return { color: null, rank: id };
  const i = id.indexOf("-");
  return { color: id.slice(0, i), rank: id.slice(i + 1) };
}

export function cardWords(id) {
  const { color, rank } = parse(id);
  const r = WORDS[rank] || rank;
  return color ? `${color} ${r}` : r;
}

export function Card({ id, onClick, small, chosen }) {
  const { color, rank } = parse(id);
  const face = SYMBOLS[rank] || (rank === "wild" ? "W" : rank === "wild-take4" ? "+4" : rank);
  const cls = `enka-card ${color || "wild"}${small ? " small" : ""}${onClick ? " clickable" : ""}`;
  const style = chosen ? `--chosen: var(--${chosen})` : "";
  const body = html`<span class="corner" aria-hidden="true">${face}</span><span class="face" aria-hidden="true">${face}</span>`;
  return onClick
    ? html`<button type="button" class=${cls} style=${style} aria-label=${`Play ${cardWords(id)}`} title=${cardWords(id)} onClick=${onClick}>${body}</button>`
    : html`<span class=${cls} style=${style} role="img" aria-label=${cardWords(id)} title=${cardWords(id)}>${body}</span>`;
}

// The board item a move starts from: a card of the hand (a play, a jump-in), the draw pile, the drawn card.
const itemOf = (m) =>
  m.type === "play" || m.type === "jump_in"
    ? `card:${m.card}`
    : m.type === "draw"
      ? "pile"
      : m.type === "play_drawn" || m.type === "keep"
        ? "drawn"
        : null;

export function Board({ view, moves, onMove, names, busy, selected, onSelect }) {
  const items = movesByItem(moves, itemOf);
  const pick = (
    id,
    label,
    face,
  ) => html`<${Pick} id=${id} moves=${items.get(id)} selected=${selected} onSelect=${onSelect}
    onMove=${onMove} busy=${busy} describe=${describeMove} label=${label}>${face}<//>`;
  const others = (view.seats || []).filter((s) => s.seat !== view.you);
  const arrow = view.direction === "clockwise" ? "↻ clockwise" : "↺ counterclockwise";
  return html`<div class="enka">
    <div class="row info">
      <span>Round ${view.round}</span><span>Dealer: ${names(view.dealer)}</span>
      <span class="direction" aria-label=${`Direction of play: ${view.direction}`}>${arrow}</span>
      <span>Colour: ${view.current_color ? html`<span class=${`swatch ${view.current_color}`}></span> ${view.current_color}` : "open (any card)"}</span>
      <span>Target: ${view.target_score}</span>
    </div>
    <div class="row opponents">${others.map(
      (s) => html`<div class=${"opponent" + (s.seat === view.current ? " current" : "")} key=${s.seat}>
      <div>${names(s.seat)}${s.active ? "" : " (out)"} ${s.one ? html`<span class="one" title="called ONE">ONE!</span>` : ""}</div>
      <span class="card-back enka-back" role="img" aria-label=${`${names(s.seat)} holds ${s.hand_count} cards`}><span>${s.hand_count}</span></span>
      <div class="muted">total ${s.total}</div>
    </div>`,
    )}</div>
    <div class="row middle">
      <div class="pile">${pick("pile", "Draw a card", html`<span class="card-back enka-back" role="img" aria-label=${`Draw pile: ${view.draw_pile_count} cards`}><span>${view.draw_pile_count}</span></span>`)}<div class="muted">draw pile${view.reshuffles_left === 0 ? " (no reshuffle left)" : ""}</div></div>
      <div class="discard" aria-label="Discard pile">
        ${(view.discard || []).slice(-5, -1).map((c, i) => html`<${Card} key=${i} id=${c} small />`)}
        ${view.top && html`<${Card} id=${view.top.card} chosen=${!parse(view.top.card).color ? view.top.color : null} />`}
      </div>
      <div class="muted top-info">${view.top && html`Top: ${cardWords(view.top.card)}${view.top.by !== null ? ` by ${names(view.top.by)}` : ""}${!parse(view.top.card).color && view.top.color ? `, colour chosen: ${view.top.color}` : ""}.`}
        ${view.victims_of_top?.length ? ` ${view.victims_of_top.map(names).join(", ")} took its penalty.` : ""}</div>
    </div>
    ${
      view.you !== null &&
      html`<div class="hand" aria-label="Your hand">
      <h3>Your hand ${(view.seats || [])[view.you]?.one ? html`<span class="one">ONE!</span>` : ""}</h3>
      <div class="row">${(view.hand || []).map(
        (c, i) =>
          html`<span key=${`${c}-${i}`}>${
            (view.hand || []).indexOf(c) === i
              ? pick(`card:${c}`, `Moves with ${cardWords(c)}`, html`<${Card} id=${c} />`)
              : html`<${Card} id=${c} />`
          }</span>`,
      )}</div>
      ${view.drawn && html`<div class="drawn">You drew: ${pick("drawn", "Play or keep the drawn card", html`<${Card} id=${view.drawn} />`)} play it or keep it.</div>`}
    </div>`
    }
    ${
      view.last_round &&
      html`<table class="scores"><caption>Round ${view.last_round.round}: ${view.last_round.winner !== null && view.last_round.winner !== undefined ? `${names(view.last_round.winner)} went out` : String(view.last_round.reason).replaceAll("_", " ")}</caption>
      <thead><tr><th>Player</th><th>Points</th><th>Total</th></tr></thead>
      <tbody>${(view.last_round.totals || []).map((t, i) => html`<tr><td>${names(i)}</td><td>${view.last_round.round_points?.[i] ?? ""}</td><td>${t}</td></tr>`)}</tbody></table>`
    }
  </div>`;
}

const one = (m) => (m.one ? " and call ONE" : "");
export function describeMove(m) {
  switch (m.type) {
    case "play":
      return `Play ${cardWords(m.card)}${m.color ? `, choose ${m.color}` : ""}${one(m)}`;
    case "draw":
      if (m.if_playable === "keep") return "Draw a card and keep it";
      if (m.if_playable === "play")
        return `Draw and play it if it fits${m.color ? ` (a wild: ${m.color})` : ""}${one(m)}`;
      return "Draw a card, then decide";
    case "play_drawn":
      return `Play the drawn card${m.color ? `, choose ${m.color}` : ""}${one(m)}`;
    case "keep":
      return "Keep the drawn card";
    case "jump_in":
      return `Jump in with ${cardWords(m.card)}${one(m)}`;
    default:
      return JSON.stringify(m);
  }
}

export function describeEffect(e, n) {
  const d = e.data || {};
  switch (e.kind) {
    case "round_started":
      return `Round ${d.round}: ${n(d.dealer)} deals; the start card is ${cardWords(d.start_card)}.`;
    case "hand_dealt":
      return `You were dealt ${d.hand.map(cardWords).join(", ")}.`;
    case "played":
      return `${n(d.seat)} ${d.via === "jump_in" ? "jumped in with" : "played"} ${cardWords(d.card)}${d.color && !parse(d.card).color ? `, choosing ${d.color}` : ""}${d.one ? " and called ONE" : ""}.`;
    case "drew":
      return `${n(d.seat)} drew ${d.count} card${d.count === 1 ? "" : "s"}${d.cause && d.cause !== "turn" ? ` (${String(d.cause).replaceAll("_", " ")})` : ""}.`;
    case "cards_received":
      return `You received ${d.cards.map(cardWords).join(", ")}.`;
    case "kept":
      return `${n(d.seat)} kept the card.`;
    case "skipped":
      return `${n(d.seat)} was skipped (${String(d.cause).replaceAll("_", " ")}).`;
    case "direction_changed":
      return "The direction of play reversed.";
    case "reshuffled":
      return "The discard pile was shuffled into a new draw pile.";
    case "round_ended":
      return `Round ${d.round} ended${d.winner !== null && d.winner !== undefined ? `: ${n(d.winner)} went out` : ""}. Totals: ${(d.totals || []).map((t, i) => `${n(i)} ${t}`).join(", ")}.`;
    case "game_ended":
      return `The game ended: ${(d.winners || []).map(n).join(" and ")} won.`;
    case "resigned":
      return `${n(d.seat)} resigned.`;
    default:
      return null;
  }
}

export const enka = { Board, describeMove, describeEffect };
