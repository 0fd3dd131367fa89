// Ecos: the hex map (terrain, mountains, forests, animals), each seat's tableau of cards with
// their element slots and energy cubes, the tokens drawn, the prompt to answer and the scores.
import { get } from "../api.js";
import { Pick, html, movesByItem, useEffect, useState } from "../ui.js";
import { HexMenu, center, corners, parseKey, viewBox } from "./hex.js";

const SIZE = 22;
// Letters on coloured chips rather than emoji, so that every browser font draws them.
const ELEMENT = { sun: "☀", water: "≈", grass: "♣", animal: "A", earth: "E", air: "~", fire: "F", wild: "✱" };
const ANIMAL = {
  antelope: "An",
  bear: "Be",
  camel: "Ca",
  cheetah: "Ch",
  dolphin: "Do",
  eagle: "Ea",
  elephant: "El",
  goat: "Go",
  lion: "Li",
  manatee: "Ma",
  rabbit: "Ra",
  shark: "Sh",
  stork: "St",
};

let catalogue = null;
let loading = null;
function useCards() {
  const [cards, setCards] = useState(catalogue);
  useEffect(() => {
    if (catalogue) return;
    loading =
      loading ||
      get("games/ecos/components").then((c) => {
        catalogue = Object.fromEntries((c.cards || []).map((x) => [x.id, x]));
        return catalogue;
      });
    loading.then(setCards).catch(() => setCards({}));
  }, []);
  return cards || {};
}
const cardName = (id) => catalogue?.[id]?.name || id;

function Element({ e, filled }) {
  return html`<span class=${`slot el-${e}${filled ? " filled" : ""}`} title=${`${e}${filled ? " (cube)" : ""}`} aria-label=${`${e} slot${filled ? " with a cube" : ", empty"}`}>${filled ? html`<span class="cube" aria-hidden="true"></span>` : ELEMENT[e] || e}</span>`;
}

function effectText(step) {
  const op = String(step.op).replaceAll("_", " ");
  if (step.op === "score") return step.vp ? `score ${step.vp}` : "score per count";
  return `${step.optional ? "may " : ""}${op}${step.count && step.count > 1 ? ` ×${step.count}` : ""}`;
}

function TableauCard({ entry, cards }) {
  const c = cards[entry.card];
  const slots = c?.slots || entry.cubes.map(() => "wild");
  return html`<div class=${`ecos-card ${c?.back || ""}`} title=${c ? c.effects.map(effectText).join("; ") : entry.card}>
    <div class="name">${c?.name || entry.card}</div>
    <div class="slots">${slots.map((e, i) => html`<${Element} key=${i} e=${e} filled=${entry.cubes[i]} />`)}</div>
    <div class="muted small">${entry.uses_left} use${entry.uses_left === 1 ? "" : "s"} left</div>
    ${c && html`<div class="effect small">${c.effects.map(effectText).join("; ")}</div>`}
  </div>`;
}

// A card on offer (a pack, the face-up pool, revealed cards, the hand): its name, slots and effect
// printed on it, so nothing needs a hover (touch screens have none).
function OfferCard({ id, cards }) {
  const c = cards[id];
  return html`<div class=${`ecos-card offer ${c?.back || ""}`}>
    <div class="name">${c?.name || id}</div>
    ${
      c &&
      html`<div class="slots">${c.slots.map((e, i) => html`<${Element} key=${i} e=${e} />`)}</div>
      <div class="effect small">${c.effects.map(effectText).join("; ")}</div>`
    }
  </div>`;
}

// The board item a move starts from: a card (an answer's card, a pick, a reward, a card to gain or
// keep), a hex of the map (an effect's choice), or the prompt itself (the dial, the ECO, stop, yes/no).
function itemOf(m) {
  switch (m.type) {
    case "respond": {
      const a = m.answers.find((x) => x.card);
      return a ? `card:${a.card}` : "prompt";
    }
    case "draft_pick":
    case "choose_active":
      return m.cards.length ? `card:${m.cards[0]}` : "prompt";
    case "effect": {
      const c = m.choice || {};
      const h = m.stop ? null : c.hex || c.from || c.tile;
      return h ? `hex:${h}` : "prompt";
    }
    case "dial_reward":
      return m.card ? `card:${m.card}` : "prompt";
    case "gain_card":
      return m.source === "faceup" && m.card ? `card:${m.card}` : "prompt";
    case "gain_card_keep":
      return m.card ? `card:${m.card}` : "prompt";
    default:
      return "prompt";
  }
}

function promptWords(view, names) {
  const p = view.prompt;
  if (!p) return view.result ? "The game is over." : "";
  const who = (p.seats || []).map(names).join(", ");
  const words =
    {
      respond: `Place a cube for ${(p.tokens || view.current_draw || []).join(" and ")}, or turn your dial`,
      draft_pick: "Pick cards from your pack",
      choose_active: "Choose the cards for your tableau",
      eco_confirm: "Resolve the ECO?",
      effect_choice: "Choose where the card's effect goes",
      dial_gain_card: "Your dial reached 2: gain a card?",
      dial_reward: "Your dial reached 3: choose a reward",
      gain_card_source: "Gain a card: from a deck or the face-up pool",
      gain_card_keep: "Keep one of the revealed cards",
    }[p.type] || p.type.replaceAll("_", " ");
  return `${words} (${who}).`;
}

export function Board({ view, names, moves = [], onMove, busy, selected, onSelect, last }) {
  const changed = touched(last);
  const cards = useCards();
  const map = view.map || {};
  const keys = Object.keys(map);
  const items = movesByItem(moves, itemOf);
  const describe = (m) => describeMove(m, view);
  const pick = (
    id,
    label,
    face,
  ) => html`<${Pick} id=${id} moves=${items.get(id)} selected=${selected} onSelect=${onSelect}
    onMove=${onMove} busy=${busy} describe=${describe} label=${label}>${face}<//>`;
  const mine = new Set(((view.seats || []).find((s) => s.seat === view.you)?.tableau || []).map((e) => e.card));
  // Cards a move names that are not in my tableau: shown on offer, each with its moves.
  const offered = [...items.keys()]
    .filter((k) => k.startsWith("card:") && !mine.has(k.slice(5)))
    .map((k) => k.slice(5));
  const hexMoves = (k) => items.get(`hex:${k}`);
  // A new tile goes where no tile is yet: those places are drawn too, dashed, with their coordinates.
  const ghosts = [...items.keys()].filter((k) => k.startsWith("hex:") && !map[k.slice(4)]).map((k) => k.slice(4));
  const all = [...keys, ...ghosts];
  return html`<div class="ecos">
    <div class="row info">
      <span>Round ${view.round}, draw ${view.draw}</span><span>Harbinger: ${names(view.harbinger)}</span>
      <span>Target: ${view.target_score}</span>${view.tiebreak ? html`<span>Tiebreak</span>` : ""}
    </div>
    <div class="row drawn" aria-label="Tokens drawn">
      <span>Drawn:</span>${(view.current_draw || []).map((t, i) => html`<span key=${i} class=${`token el-${t}`} role="img" aria-label=${t}>${ELEMENT[t] || t} ${t}</span>`)}
      <span class="muted">bag: ${view.bag?.size ?? "?"}</span>
    </div>
    <p class="prompt" role="status">${promptWords(view, names)}
      ${items.get("prompt") && html` ${pick("prompt", "Choose", html`<span class="pass">${items.get("prompt").length === 1 ? describe(items.get("prompt")[0]) : "Choose…"}</span>`)}`}</p>
    ${offered.length > 0 && html`<div class="offer-row" aria-label="Cards to choose">${offered.map((id) => html`<span key=${id}>${pick(`card:${id}`, `Moves with ${cardName(id)}`, html`<${OfferCard} id=${id} cards=${cards} />`)}</span>`)}</div>`}
    <svg class="hexmap ecos-map" viewBox=${viewBox(all, SIZE)} role="group" aria-label=${`Map of ${keys.length} tiles`}>
      ${all.map((k) => {
        const t = map[k] || { terrain: "ghost" };
        const [x, y] = center(...parseKey(k), SIZE);
        const here = hexMoves(k);
        const one = here?.length === 1 ? here[0] : null;
        const act =
          here && !busy
            ? () => (one ? onMove(one) : onSelect?.(selected === `hex:${k}` ? null : `hex:${k}`))
            : undefined;
        return html`<g key=${k} class=${`tile ${t.terrain}${here ? " choosable" : ""}${selected === `hex:${k}` ? " selected" : ""}${changed.has(k) ? " last-move" : ""}`}
            data-select=${here ? `hex:${k}` : undefined} data-move=${one ? JSON.stringify(one) : undefined}
            role=${here ? "button" : undefined} tabindex=${here ? 0 : undefined} aria-label=${here ? (one ? describe(one) : `Choices at ${k}`) : undefined}
            onClick=${act} onKeyDown=${
              act
                ? (e) => {
                    if (e.key === "Enter" || e.key === " ") {
                      e.preventDefault();
                      act();
                    }
                  }
                : undefined
            }>
          <title>${`${k}: ${t.terrain}${t.mountain ? ", mountain" : ""}${t.forests ? `, ${t.forests} forest(s)` : ""}${t.animal ? `, ${t.animal}` : ""}`}</title>
          <polygon points=${corners(x, y, SIZE - 0.8)} />
          ${t.mountain && html`<polygon class="mountain" points=${`${x - 13},${y - 1} ${x - 7},${y - 12} ${x - 1},${y - 1}`} />`}
          ${Array.from({ length: t.forests || 0 }, (_, i) => html`<circle class="forest" cx=${x + 4 + i * 7} cy=${y - 6} r="3.5" />`)}
          ${t.animal && html`<circle class="animal-chip" cx=${x} cy=${y + 7} r="7.5" /><text x=${x} y=${y + 10} text-anchor="middle" class="animal">${ANIMAL[t.animal] || t.animal.slice(0, 2)}</text>`}
          ${here && html`<text x=${x} y=${y + 17} text-anchor="middle" class="coord">${k}</text>`}
        </g>`;
      })}
    </svg>
    <${HexMenu} id=${selected} moves=${selected?.startsWith("hex:") ? items.get(selected) : null} describe=${describe} onMove=${onMove} busy=${busy} />
    <div class="tableaux">${(view.seats || []).map(
      (
        s,
      ) => html`<section key=${s.seat} class=${"tableau" + (s.seat === view.you ? " mine" : "")} aria-label=${`${names(s.seat)}'s tableau`}>
      <h3>${names(s.seat)}: ${s.score} points <span class="muted">· ${s.energy_available} cubes · dial ${s.dial}/3${s.status !== "active" ? ` · ${s.status}` : ""}</span></h3>
      <div class="cards">${(s.tableau || []).map((entry, i) =>
        s.seat === view.you
          ? html`<span key=${i}>${pick(`card:${entry.card}`, `Moves with ${cardName(entry.card)}`, html`<${TableauCard} entry=${entry} cards=${cards} />`)}</span>`
          : html`<${TableauCard} key=${i} entry=${entry} cards=${cards} />`,
      )}</div>
    </section>`,
    )}</div>
    ${view.hand?.length ? html`<div class="muted">Your hand: ${view.hand.map((id) => cards[id]?.name || id).join(", ")}</div>` : ""}
  </div>`;
}

function answerWords(a, view) {
  const token = (view?.prompt?.tokens || view?.current_draw || [])[a.token];
  if (a.type === "rotate") return `turn the dial for ${token || "the token"}`;
  const from = a.move_cube_from ? ` (moving a cube from ${cardName(a.move_cube_from.card)})` : "";
  return `${token ? `${token}: ` : ""}cube on ${cardName(a.card)}, slot ${a.slot + 1}${from}`;
}

function choiceWords(c) {
  if (!c) return "";
  if (c.from && c.to) return `move the animal ${c.from} → ${c.to}`;
  if (c.hex) return `a new tile at ${c.hex}`;
  if (c.species) return `${c.species} on ${c.tile}`;
  if (c.tile) return `tile ${c.tile}`;
  return JSON.stringify(c);
}

export function describeMove(m, view) {
  switch (m.type) {
    case "respond":
      return m.answers
        .map((a) => answerWords(a, view))
        .join("; ")
        .replace(/^./, (x) => x.toUpperCase());
    case "draft_pick":
      return `Pick ${m.cards.map(cardName).join(", ")}`;
    case "choose_active":
      return `Put ${m.cards.map(cardName).join(", ")} in play`;
    case "eco":
      return m.resolve ? "Resolve the ECO" : "Take the cube back and turn the dial";
    case "effect":
      return m.stop ? "Stop here" : `Choose ${choiceWords(m.choice)}`;
    case "dial_gain_card":
      return m.accept ? "Gain a card (dial back to 0)" : "No card";
    case "dial_reward":
      return m.reward === "energy" ? "Take an energy cube" : `Play ${cardName(m.card)} from your hand`;
    case "gain_card":
      return m.source === "faceup"
        ? `Take ${cardName(m.card)} from the face-up pool`
        : `Reveal the top ${m.from.join(" and ")} cards`;
    case "gain_card_keep":
      return `Keep ${cardName(m.card)}`;
    default:
      return JSON.stringify(m);
  }
}

const BACK = { blue: "blue", brown: "brown" };
const plural = (k, one, many = `${one}s`) => `${k} ${k === 1 ? one : many}`;

export function describeEffect(e, n) {
  const d = e.data || {};
  const who = d.seat !== undefined && d.seat !== null ? n(d.seat) : "Someone";
  const card = d.card ? cardName(d.card) : "a card";
  switch (e.kind) {
    case "game_started":
      return `The game started; ${n(d.harbinger)} is the harbinger.`;
    case "hand_dealt":
      return `You were dealt ${plural((d.cards || []).length, "card")}.`;
    case "pack_received":
      return `You received a pack of ${plural((d.cards || []).length, "card")}.`;
    case "draft_picked":
      return `${who} picked ${d.cards ? d.cards.map(cardName).join(" and ") : "from their pack"}.`;
    case "draft_passed":
      return `The ${BACK[d.back] || d.back} packs were passed to the ${d.direction}.`;
    case "draft_ended":
      return `The ${BACK[d.back] || d.back} draft ended.`;
    case "active_chosen":
      return `${who} put ${(d.cards || []).map(cardName).join(" and ") || "their cards"} in play.`;
    case "round_started":
      return `Round ${d.round} started; ${n(d.harbinger)} is the harbinger.`;
    case "tokens_drawn":
    case "drawn":
      return `Drawn from the bag: ${(d.tokens || []).join(", ")}.`;
    case "respond_answered":
      return `${who} answered${d.replacement ? " again" : ""}.`;
    case "respond_answer":
      return null;
    case "respond_closed":
      return "Every player has answered: the answers are revealed.";
    case "auto_rotated":
      return `${who} had no place for ${(d.tokens || []).join(" and ")}: their dial turned.`;
    case "cube_placed":
      return `${who} placed a cube on ${card}, slot ${(d.slot ?? 0) + 1}${d.from ? ` (moved from ${cardName(d.from.card)})` : ""}.`;
    case "dial_rotated":
      return `${who}'s dial turned to ${d.dial}.`;
    case "dial_reset":
      return `${who}'s dial went back to 0.`;
    case "dial_gain_declined":
      return `${who} took no card.`;
    case "dial_reward":
      return d.reward === "energy" ? `${who} took an energy cube.` : `${who} played ${card} from their hand.`;
    case "dial_reward_none":
      return `${who} had no reward to take.`;
    case "eco":
      return `${who} resolved the ECO on ${card}${d.cubes_returned ? ` and took back ${plural(d.cubes_returned, "cube")}` : ""}.`;
    case "eco_retracted":
      return `${who} took the cube back from ${card}.`;
    case "card_used":
      return `${card} was used (${plural(d.uses_left ?? 0, "use")} left).`;
    case "card_discarded":
      return `${who}'s ${card} was used up and discarded.`;
    case "scored":
      return `${who} scored ${d.vp} with ${card} (now ${d.score}).`;
    case "energy_gained":
      return `${who} gained ${plural(d.count ?? 1, "energy cube")}.`;
    case "tile_added":
      return `A ${d.terrain} tile was added at ${d.hex}.`;
    case "tile_flipped":
      return `The tile at ${d.tile} turned from ${d.from} to ${d.to}.`;
    case "tile_converted":
      return `The tile at ${d.tile} became ${d.to}.`;
    case "mountain_added":
      return `A mountain rose at ${d.tile}.`;
    case "forest_added":
      return `A forest grew at ${d.tile}.`;
    case "forest_removed":
      return `A forest was cleared at ${d.tile}.`;
    case "animal_added":
      return `A ${d.species} arrived at ${d.tile}.`;
    case "animal_moved":
      return `The ${d.species} moved from ${d.from} to ${d.to}.`;
    case "animal_removed":
      return `The ${d.species} left ${d.tile}.`;
    case "step_no_target":
      return `${card}'s effect had nowhere to go.`;
    case "step_stopped":
      return `${who} stopped ${card}'s effect there.`;
    case "cards_revealed":
      return `${who} revealed ${d.cards ? d.cards.map(cardName).join(" and ") : plural((d.backs || []).length, "card")}.`;
    case "card_kept":
      return `${who} kept ${d.card ? card : `a ${d.back} card`}.`;
    case "card_taken":
      return `${who} took ${card} from the face-up pool.`;
    case "faceup_added":
      return `${card} joined the face-up pool.`;
    case "deck_rebuilt":
      return `The ${d.back} deck was reshuffled (${plural(d.size ?? 0, "card")}).`;
    case "gain_nothing":
      return `${who} gained no card: none was left.`;
    case "tiebreak_started":
      return `A tie: tiebreak draws begin between ${(d.tied || []).map(n).join(" and ")}.`;
    case "round_ended":
      return `Round ${d.round ?? ""} ended.`;
    case "seat_resigned":
      return `${who} resigned.`;
    case "game_ended":
      return "The game ended.";
    default:
      return `${who}: ${e.kind.replaceAll("_", " ")}${d.card ? ` (${card})` : ""}.`;
  }
}

// The hexes a record's effects changed: the board outlines them (the last move).
export function touched(record) {
  const out = new Set();
  for (const e of record?.data?.effects || []) {
    const d = e.data || {};
    for (const k of [d.hex, d.tile, e.kind === "animal_moved" ? d.from : null, e.kind === "animal_moved" ? d.to : null])
      if (k) out.add(k);
  }
  return out;
}

function seatExtra(view, seat) {
  const s = view?.seats?.[seat];
  return s ? html` <span class="muted">${s.score} points</span>` : null;
}

export const ecos = { Board, describeMove, describeEffect, seatExtra, touched };
