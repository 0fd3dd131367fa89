// Enka: coloured cards (red, yellow, green, blue), action cards and wilds, drawn as cards.
// Every word comes from the game's catalogue (`gameT("enka")`), the one a third-party client reads
// from `games/enka/i18n/{lang}`: a card's name is built from its colour and rank there.
import { formatList, gameHas, gameT } from "../i18n.js";
import { Pick, html, movesByItem, withParts } from "../ui.js";

const T = () => gameT("enka");
// The faces printed on the cards: symbols, no words (a wild's is a star, in every language).
const SYMBOLS = { stop: "⊘", back: "⇄", take2: "+2", take5: "+5", wild: "✱", "wild-take4": "+4" };
const COLORED = ["stop", "back", "take2", "take5"];

export function parse(id) {
  if (id === "wild" || id === "wild-take4" || id === "take5") return { color: null, rank: id };
  const i = id.indexOf("-");
  return { color: id.slice(0, i), rank: id.slice(i + 1) };
}

/** A card's name in the language: "red 7", "czerwona karta STOP", "ROBA 4 Y ELIGE COLOR". */
export function cardWords(id) {
  const say = T();
  const { color, rank } = parse(id);
  if (!color) return say(`card.${rank}`);
  const colour = say(`card.color.${color}`);
  return COLORED.includes(rank)
    ? say(`card.rank.${rank}`, { color: colour })
    : say("card.rank.number", { color: colour, number: rank });
}

/** A colour as named by a player (a wild's choice, the colour to follow). */
const colorWords = (c) => (gameHas("enka", `color.${c}`) ? T()(`color.${c}`) : c);

export function Card({ id, onClick, small, chosen }) {
  const { color, rank } = parse(id);
  const face = SYMBOLS[rank] || rank;
  const cls = `enka-card ${color || "wild"}${small ? " small" : ""}${onClick ? " clickable" : ""}`;
  const style = chosen ? `--chosen: var(--${chosen})` : "";
  const body = html`<span class="corner" aria-hidden="true">${face}</span><span class="face" aria-hidden="true">${face}</span>`;
  const name = cardWords(id);
  return onClick
    ? html`<button type="button" class=${cls} style=${style} aria-label=${T()("move.play", { card: name })} title=${name} onClick=${onClick}>${body}</button>`
    : html`<span class=${cls} style=${style} role="img" aria-label=${name} title=${name}>${body}</span>`;
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

function topWords(view, names) {
  const top = view.top;
  const player = top.by !== null && top.by !== undefined ? names(top.by) : null;
  const chosen = !parse(top.card).color && top.color ? colorWords(top.color) : null;
  const params = { card: cardWords(top.card), player, color: chosen };
  const say = T();
  if (player !== null) return chosen ? say("board.top.by.color", params) : say("board.top.by", params);
  return chosen ? say("board.top.color", params) : say("board.top", params);
}

function roundCaption(r, names) {
  const say = T();
  if (r.winner !== null && r.winner !== undefined)
    return say("board.scores.went_out", { round: r.round, player: names(r.winner) });
  return say(r.reason === "move_cap" ? "board.scores.move_cap" : "board.scores.exhausted", { round: r.round });
}

export function Board({ view, moves, onMove, names, busy, selected, onSelect }) {
  const say = T();
  const items = movesByItem(moves, itemOf);
  const pick = (
    id,
    label,
    face,
  ) => html`<${Pick} id=${id} moves=${items.get(id)} selected=${selected} onSelect=${onSelect}
    onMove=${onMove} busy=${busy} describe=${describeMove} label=${label}>${face}<//>`;
  const others = (view.seats || []).filter((s) => s.seat !== view.you);
  const clockwise = view.direction === "clockwise";
  const direction = say(clockwise ? "direction.clockwise" : "direction.counterclockwise");
  return html`<div class="enka">
    <div class="row info">
      <span>${say("board.round", { round: view.round })}</span><span>${say("board.dealer", { player: names(view.dealer) })}</span>
      <span class="direction" aria-label=${say("board.direction", { direction })}>${clockwise ? "↻" : "↺"} ${direction}</span>
      <span>${view.current_color ? html`<span class=${`swatch ${view.current_color}`}></span> ${say("board.color", { color: colorWords(view.current_color) })}` : say("board.color.open")}</span>
      <span>${say("board.target", { score: view.target_score })}</span>
    </div>
    <div class="row opponents">${others.map(
      (s) => html`<div class=${"opponent" + (s.seat === view.current ? " current" : "")} key=${s.seat}>
      <div>${names(s.seat)}${s.active ? "" : ` ${say("board.out")}`} ${s.one ? html`<span class="one" title=${say("board.one.title")}>${say("board.one")}</span>` : ""}</div>
      <span class="card-back enka-back" role="img" aria-label=${say("board.holds", { player: names(s.seat), count: s.hand_count })}><span>${s.hand_count}</span></span>
      <div class="muted">${say("board.total", { total: s.total })}</div>
    </div>`,
    )}</div>
    <div class="row middle">
      <div class="pile">${pick("pile", say("move.draw"), html`<span class="card-back enka-back" role="img" aria-label=${say("board.draw_pile.label", { count: view.draw_pile_count })}><span>${view.draw_pile_count}</span></span>`)}<div class="muted">${say(view.reshuffles_left === 0 ? "board.draw_pile.no_reshuffle" : "board.draw_pile")}</div></div>
      <div class="discard" aria-label=${say("board.discard_pile")}>
        ${(view.discard || []).slice(-5, -1).map((c, i) => html`<${Card} key=${i} id=${c} small />`)}
        ${view.top && html`<${Card} id=${view.top.card} chosen=${!parse(view.top.card).color ? view.top.color : null} />`}
      </div>
      <div class="muted top-info">${view.top && topWords(view, names)}
        ${view.victims_of_top?.length ? ` ${say("board.victims", { players: formatList(view.victims_of_top.map(names)), count: view.victims_of_top.length })}` : ""}</div>
    </div>
    ${
      view.you !== null &&
      html`<div class="hand" aria-label=${say("board.hand")}>
      <h3>${say("board.hand")} ${(view.seats || [])[view.you]?.one ? html`<span class="one">${say("board.one")}</span>` : ""}</h3>
      <div class="row">${(view.hand || []).map(
        (c, i) =>
          html`<span key=${`${c}-${i}`}>${
            (view.hand || []).indexOf(c) === i
              ? pick(`card:${c}`, say("board.moves_with", { card: cardWords(c) }), html`<${Card} id=${c} />`)
              : html`<${Card} id=${c} />`
          }</span>`,
      )}</div>
      ${view.drawn && html`<div class="drawn">${withParts(say("board.drawn"), { card: pick("drawn", say("board.drawn.label"), html`<${Card} id=${view.drawn} />`) })}</div>`}
    </div>`
    }
    ${
      view.last_round &&
      html`<table class="scores"><caption>${roundCaption(view.last_round, names)}</caption>
      <thead><tr><th>${say("board.col.player")}</th><th>${say("board.col.points")}</th><th>${say("board.col.total")}</th></tr></thead>
      <tbody>${(view.last_round.totals || []).map((total, i) => html`<tr><td>${names(i)}</td><td>${view.last_round.round_points?.[i] ?? ""}</td><td>${total}</td></tr>`)}</tbody></table>`
    }
  </div>`;
}

export function describeMove(m) {
  const say = T();
  const color = m.color ? colorWords(m.color) : null;
  switch (m.type) {
    case "play": {
      const params = { card: cardWords(m.card), color };
      if (color) return say(m.one ? "move.play.color.one" : "move.play.color", params);
      return say(m.one ? "move.play.one" : "move.play", params);
    }
    case "draw":
      if (m.if_playable === "keep") return say("move.draw.keep");
      if (m.if_playable === "play") return say(m.one ? "move.draw.play.one" : "move.draw.play", { color });
      return say("move.draw");
    case "play_drawn":
      if (color) return say(m.one ? "move.play_drawn.color.one" : "move.play_drawn.color", { color });
      return say(m.one ? "move.play_drawn.one" : "move.play_drawn");
    case "keep":
      return say("move.keep");
    case "jump_in":
      return say(m.one ? "move.jump_in.one" : "move.jump_in", { card: cardWords(m.card) });
    default:
      return JSON.stringify(m);
  }
}

// "ann 3, ben 5": each seat's total after a round.
const totalsOf = (d, n) => (d.totals || []).map((total, i) => T()("event.total", { player: n(i), total })).join(", ");
const cardList = (ids) => formatList((ids || []).map(cardWords));

export function describeEffect(e, n) {
  const say = T();
  const d = e.data || {};
  switch (e.kind) {
    case "round_started": {
      const params = {
        round: d.round,
        player: n(d.dealer),
        card: cardWords(d.start_card),
        returned: cardList(d.returned),
      };
      return say(d.returned?.length ? "event.round_started.returned" : "event.round_started", params);
    }
    case "hand_dealt":
      return say("event.hand_dealt", { cards: cardList(d.hand) });
    case "played": {
      const via = ["drawn", "jump_in"].includes(d.via) ? d.via : "turn";
      const lines = [say(`event.played.${via}`, { player: n(d.seat), card: cardWords(d.card) })];
      if (d.color && !parse(d.card).color)
        lines.push(say("event.color_chosen", { player: n(d.seat), color: colorWords(d.color) }));
      if (d.one) lines.push(say("event.one_called", { player: n(d.seat) }));
      return lines.join(" ");
    }
    case "drew": {
      const cause = gameHas("enka", `event.drew.${d.cause}`) ? d.cause : "turn";
      return say(`event.drew.${cause}`, { player: n(d.seat), count: d.count });
    }
    case "cards_received":
      return say("event.cards_received", { cards: cardList(d.cards) });
    case "kept":
      return say("event.kept", { player: n(d.seat) });
    case "skipped": {
      const cause = gameHas("enka", `event.skipped.${d.cause}`) ? d.cause : "stop";
      return say(`event.skipped.${cause}`, { player: n(d.seat) });
    }
    case "direction_changed":
      return say(
        d.direction === "clockwise" ? "event.direction_changed.clockwise" : "event.direction_changed.counterclockwise",
      );
    case "reshuffled":
      return say("event.reshuffled", { count: d.draw_pile_count });
    case "round_ended":
      if (d.winner !== null && d.winner !== undefined)
        return say("event.round_ended.went_out", { round: d.round, player: n(d.winner), totals: totalsOf(d, n) });
      return say(d.reason === "move_cap" ? "event.round_ended.move_cap" : "event.round_ended.exhausted", {
        round: d.round,
        totals: totalsOf(d, n),
      });
    case "game_ended":
      return say("event.game_ended", {
        players: formatList((d.winners || []).map(n)),
        count: (d.winners || []).length,
      });
    case "resigned":
      return say("event.resigned", { player: n(d.seat) });
    default:
      return null;
  }
}

export const enka = { Board, describeMove, describeEffect };
