// EKKO: two-digit cards 1–98; a card and its mirror (37 ↔ 73) share a colour so pairs are recognisable.
// Every word comes from the game's catalogue (`gameT("ekko")`), the one a third-party client reads
// from `games/ekko/i18n/{lang}`; card numbers go in as their two printed digits.
import { formatList, gameHas, gameT } from "../i18n.js";
import { Countdown, Pick, html, movesByItem } from "../ui.js";

const T = () => gameT("ekko");
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
  const parity = n % 2 ? "odd" : "even";
  const title = eleven
    ? T()(`card.title.eleven.${parity}`, { card: pad(n) })
    : T()(`card.title.${parity}`, { card: pad(n), mirror: pad(mirrorOf(n)) });
  const body = html`<span class="num">${pad(n)}</span><span class="par" aria-hidden="true">${n % 2 ? "▲" : "▼"}</span>`;
  return onClick
    ? html`<button type="button" class=${cls} style=${style} title=${title} aria-label=${label || T()("move.play", { card: pad(n) })} onClick=${onClick}>${body}</button>`
    : html`<span class=${cls} style=${style} title=${title} role="img" aria-label=${T()("card.label", { card: pad(n) })}>${body}</span>`;
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
  const say = T();
  const items = movesByItem(moves, itemOf);
  const pick = (
    id,
    label,
    face,
  ) => html`<${Pick} id=${id} moves=${items.get(id)} selected=${selected} onSelect=${onSelect}
    onMove=${onMove} busy=${busy} describe=${describeMove} label=${label}>${face}<//>`;
  const area = view.play_area || [];
  const others = (view.seats || []).filter((s) => s.seat !== view.you);
  const again = view.obligation === "again" && view.required !== "any";
  const required = (again ? "again." : "") + view.required;
  return html`<div class="ekko">
    <div class="row info">
      <span>${say("board.round", { round: view.round })}</span><span>${say("board.dealer", { player: names(view.dealer) })}</span>
      <span>${say("board.target", { score: view.target_score })}</span>
      ${view.phase === "turn" && html`<span>${say(`board.required.${required}`, { player: names(view.current), card: pad(view.top?.card) })}</span>`}
    </div>
    ${
      view.reaction &&
      html`<div class="reaction" role="status">
      <strong>${say("board.reaction.title")}</strong> ${say("board.reaction.text", { player: names(view.reaction.emptied), card: pad(view.reaction.card), mirror: pad(mirrorOf(view.reaction.card)) })}
      ${view.reaction.deadline && html` <${Countdown} deadline=${view.reaction.deadline} label=${(time) => say("board.reaction.left", { time })} />`}
      ${view.reaction.you_answered ? html` <em>${say("board.reaction.answered")}</em>` : ""}
      ${items.get("pass") && html` <${Pick} id="pass" moves=${items.get("pass")} onMove=${onMove} busy=${busy} describe=${describeMove}><span class="pass">${say("board.pass")}</span><//>`}
    </div>`
    }
    <div class="row opponents">${others.map(
      (s) => html`<div class="opponent" key=${s.seat}>
      <div>${names(s.seat)}${s.active ? "" : ` ${say("board.out")}`}</div>
      <${Back} count=${s.hand_count} label=${say("board.holds", { player: names(s.seat), count: s.hand_count })} />
      <div class="muted">${say("board.total", { total: s.total })}${s.removed_count ? ` · ${say("board.discarded", { count: s.removed_count })}` : ""}</div>
    </div>`,
    )}</div>
    <div class="row middle">
      <div class="pile">${pick("pile", say("move.draw"), html`<${Back} count=${view.draw_pile_count} label=${say("board.draw_pile.label", { count: view.draw_pile_count })} />`)}<div class="muted">${say("board.draw_pile")}</div></div>
      <div class="play-area" aria-label=${say("board.play_area")}>
        ${area.slice(-8).map((n, i, a) => html`<${Card} key=${`${n}-${i}`} n=${n} small=${i < a.length - 1} faded=${i < a.length - 1} />`)}
        ${area.length > 8 && html`<span class="muted">${say("board.below", { count: area.length - 8 })}</span>`}
      </div>
      <div class="muted top-info">${view.top && say(`board.top.${view.top.how}`, { card: pad(view.top.card), player: names(view.top.by) })}
        ${view.mirror_of_top !== null && view.mirror_of_top !== undefined && ` ${say(view.mirror_of_top_public_dead ? "board.mirror_of_top.dead" : "board.mirror_of_top", { card: pad(view.mirror_of_top) })}`}</div>
    </div>
    ${
      view.you !== null &&
      html`<div class="hand" aria-label=${say("board.hand")}>
      <h3>${say("board.hand")}</h3>
      <div class="row">${(view.hand || []).map((n) => html`<span key=${n}>${pick(`card:${n}`, say("board.moves_with", { card: pad(n) }), html`<${Card} n=${n} />`)}</span>`)}</div>
      ${view.my_removed?.length ? html`<div class="muted">${say("board.removed", { cards: formatList(view.my_removed.map(pad)) })}</div>` : ""}
    </div>`
    }
    ${view.last_round && html`<${Scores} view=${view} names=${names} />`}
  </div>`;
}

function Scores({ view, names }) {
  const say = T();
  const r = view.last_round;
  const caption =
    r.reason === "went_out"
      ? say("board.scores.went_out", { round: r.round, player: names(r.went_out) })
      : say("board.scores.draw_pile_empty", { round: r.round });
  return html`<table class="scores"><caption>${caption}</caption>
    <thead><tr><th>${say("board.col.player")}</th><th>${say("board.col.hand")}</th><th>${say("board.col.points")}</th><th>${say("board.col.total")}</th></tr></thead>
    <tbody>${(r.totals || []).map((total, i) => html`<tr><td>${names(i)}</td><td>${r.hands?.[i] ? r.hands[i].map(pad).join(" ") : "—"}</td><td>${r.round_points?.[i] ?? ""}</td><td>${total}</td></tr>`)}</tbody></table>`;
}

export function describeMove(m) {
  const say = T();
  switch (m.type) {
    case "play":
      return say("move.play", { card: pad(m.card) });
    case "draw":
      return say("move.draw");
    case "pass":
      return say("move.pass");
    case "mirror":
      return say(m.effect === "discard" ? "move.mirror.discard" : "move.mirror.others_draw", {
        against: pad(m.against),
        card: pad(m.card),
        discard: pad(m.discard),
      });
    default:
      return JSON.stringify(m);
  }
}

// "ann 3, ben 5": each seat's total after a round.
const totalsOf = (d, n) => (d.totals || []).map((total, i) => T()("event.total", { player: n(i), total })).join(", ");

export function describeEffect(e, n) {
  const say = T();
  const d = e.data || {};
  switch (e.kind) {
    case "round_started":
      return say("event.round_started", {
        round: d.round,
        player: n(d.dealer),
        count: d.hand_size,
        card: pad(d.start_card),
      });
    case "hand_dealt":
      return say("event.hand_dealt", { cards: formatList(d.hand.map(pad)) });
    case "played":
      return say("event.played", { player: n(d.seat), card: pad(d.card) });
    case "drew": {
      const cause = d.auto ? "auto" : d.cause;
      return say(gameHas("ekko", `event.drew.${cause}`) ? `event.drew.${cause}` : "event.drew.turn", {
        player: n(d.seat),
      });
    }
    case "card_drawn":
      return say("event.card_drawn", { card: pad(d.card) });
    case "mirrored":
      return say(d.effect === "discard" ? "event.mirrored.discard" : "event.mirrored.others_draw", {
        player: n(d.seat),
        against: pad(d.against),
        card: pad(d.card),
      });
    case "card_discarded":
      return say("event.card_discarded", { card: pad(d.card) });
    case "reaction_opened":
      return say("event.reaction_opened", { player: n(d.emptied), card: pad(d.card) });
    case "reaction_answer":
      return say("event.reaction_answer");
    case "you_passed":
      return say(d.cause === "timeout" ? "event.you_passed.timeout" : "event.you_passed.player");
    case "reaction_closed":
      return d.result === "no_mirror"
        ? say(d.expired ? "event.reaction_closed.expired" : "event.reaction_closed.no_mirror")
        : say("event.reaction_closed.mirrored", { player: n(d.seat) });
    case "penalty":
      return say(d.kind === "wrong_reflex" ? "event.penalty.wrong_reflex" : "event.penalty.wrong_card", {
        player: n(d.seat),
        card: pad(d.card),
      });
    case "skipped":
      return say(d.cause === "resigned" ? "event.skipped.resigned" : "event.skipped.timeout_empty_pile", {
        player: n(d.seat),
      });
    case "round_ended":
      return d.reason === "went_out"
        ? say("event.round_ended.went_out", { round: d.round, player: n(d.went_out), totals: totalsOf(d, n) })
        : say("event.round_ended.draw_pile_empty", { round: d.round, totals: totalsOf(d, n) });
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

export const ekko = { Board, describeMove, describeEffect };
