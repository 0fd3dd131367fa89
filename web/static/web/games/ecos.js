// Ecos: the hex map (terrain, mountains, forests, animals), each seat's tableau of cards with
// their element slots and energy cubes, the tokens drawn, the prompt to answer and the scores.
// Every word, the cards' names and effect texts included, comes from the game's catalogue
// (`gameT("ecos")`); the components endpoint gives only what is printed as icons (slots, back).
import { get } from "../api.js";
import { formatList, gameT } from "../i18n.js";
import { Pick, html, movesByItem, useEffect, useState } from "../ui.js";
import { HexMenu, center, corners, parseKey, viewBox } from "./hex.js";

const SIZE = 22;
const ELEMENTS = ["sun", "water", "grass", "animal", "earth", "air", "fire", "wild"];
const SPECIES = [
  "antelope",
  "bear",
  "camel",
  "cheetah",
  "dolphin",
  "eagle",
  "elephant",
  "goat",
  "lion",
  "manatee",
  "rabbit",
  "shark",
  "stork",
];
const TERRAINS = ["desert", "grassland", "water"];
const PHASES = ["draft", "choose_active", "respond", "resolve", "finished"];
const PROMPTS = [
  "respond",
  "draft_pick",
  "choose_active",
  "eco_confirm",
  "effect_choice",
  "dial_gain_card",
  "dial_reward",
  "gain_card_source",
  "gain_card_keep",
];
const BACKS = ["blue", "brown"];
const RESULTS = ["target_score", "round_limit", "resignation"];

const T = () => gameT("ecos");
// Letters or signs on coloured chips rather than emoji, so that every browser font draws them.
const elementIcon = (e) => (ELEMENTS.includes(e) ? T()(`element.${e}.icon`) : e);
const elementWord = (e) => (ELEMENTS.includes(e) ? T()(`element.${e}`) : String(e));
const speciesWord = (s) => (SPECIES.includes(s) ? T()(`species.${s}`) : String(s));
const speciesAbbr = (s) => (SPECIES.includes(s) ? T()(`species.${s}.abbr`) : String(s).slice(0, 2));
const terrainWord = (t) => (TERRAINS.includes(t) ? T()(`terrain.${t}`) : String(t));
const phaseWord = (p) => (PHASES.includes(p) ? T()(`phase.${p}`) : String(p));
const resultWord = (r) => (RESULTS.includes(r) ? T()(`result.${r}`) : String(r || ""));
const cards = (ids) => formatList((ids || []).map(cardName));
const tokens = (list) => formatList((list || []).map(elementWord));

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
const CARD_ID = /^(blu|brn)-\d\d$/;
/** A card's name in the reader's language (the id itself for an id the game does not have). */
export const cardName = (id) => (CARD_ID.test(id || "") ? T()(`card.${id}.name`) : String(id));
/** What a card does when completed, as printed on it. */
export const cardText = (id) => (CARD_ID.test(id || "") ? T()(`card.${id}.text`) : "");

function Element({ e, filled }) {
  const t = T();
  const name = elementWord(e);
  return html`<span class=${`slot el-${e}${filled ? " filled" : ""}`} title=${filled ? t("slot.title.filled", { element: name }) : name} aria-label=${filled ? t("slot.aria.filled", { element: name }) : t("slot.aria", { element: name })}>${filled ? html`<span class="cube" aria-hidden="true"></span>` : elementIcon(e)}</span>`;
}

function TableauCard({ entry, cards }) {
  const c = cards[entry.card];
  const slots = c?.slots || entry.cubes.map(() => "wild");
  return html`<div class=${`ecos-card ${c?.back || ""}`} title=${cardText(entry.card)}>
    <div class="name">${cardName(entry.card)}</div>
    <div class="slots">${slots.map((e, i) => html`<${Element} key=${i} e=${e} filled=${entry.cubes[i]} />`)}</div>
    <div class="muted small">${T()("tableau.uses_left", { count: entry.uses_left })}</div>
    <div class="effect small">${cardText(entry.card)}</div>
  </div>`;
}

// A card on offer (a pack, the face-up pool, revealed cards, the hand): its name, slots and effect
// printed on it, so nothing needs a hover (touch screens have none).
function OfferCard({ id, cards }) {
  const c = cards[id];
  return html`<div class=${`ecos-card offer ${c?.back || ""}`}>
    <div class="name">${cardName(id)}</div>
    ${c && html`<div class="slots">${c.slots.map((e, i) => html`<${Element} key=${i} e=${e} />`)}</div>`}
    <div class="effect small">${cardText(id)}</div>
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
  const t = T();
  const p = view.prompt;
  if (!p) return view.result ? t("prompt.over") : "";
  const who = formatList((p.seats || []).map(names));
  const words =
    p.type === "respond"
      ? t("prompt.respond", { tokens: tokens(p.tokens || view.current_draw) })
      : PROMPTS.includes(p.type)
        ? t(`prompt.${p.type}`)
        : p.type;
  return t("prompt.line", { prompt: words, names: who });
}

function tileTitle(k, tile) {
  const t = T();
  if (!tile) return t("tile.empty", { hex: k });
  const parts = [t("tile.label", { hex: k, terrain: terrainWord(tile.terrain) })];
  if (tile.mountain) parts.push(t("tile.mountain"));
  if (tile.forests) parts.push(t("tile.forests", { count: tile.forests }));
  if (tile.animal) parts.push(speciesWord(tile.animal));
  return parts.join(", ");
}

export function Board({ view, names, moves = [], onMove, busy, selected, onSelect, last }) {
  const t = T();
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
      <span>${t("board.round", { round: view.round, draw: view.draw })}</span><span>${t("board.harbinger", { name: names(view.harbinger) })}</span>
      <span>${t("board.target", { score: view.target_score })}</span>${view.phase ? html`<span>${t("board.phase", { phase: phaseWord(view.phase) })}</span>` : ""}${view.tiebreak ? html`<span>${t("board.tiebreak")}</span>` : ""}
    </div>
    <div class="row drawn" aria-label=${t("board.drawn_aria")}>
      <span>${t("board.drawn")}</span>${(view.current_draw || []).map((tok, i) => html`<span key=${i} class=${`token el-${tok}`} role="img" aria-label=${elementWord(tok)}>${elementIcon(tok)} ${elementWord(tok)}</span>`)}
      <span class="muted">${t("board.bag", { count: view.bag?.size ?? 0 })}</span>
    </div>
    <p class="prompt" role="status">${promptWords(view, names)}
      ${items.get("prompt") && html` ${pick("prompt", t("board.choose"), html`<span class="pass">${items.get("prompt").length === 1 ? describe(items.get("prompt")[0]) : t("board.choose_more")}</span>`)}`}</p>
    ${offered.length > 0 && html`<div class="offer-row" aria-label=${t("board.offer_aria")}>${offered.map((id) => html`<span key=${id}>${pick(`card:${id}`, t("board.moves_with", { card: cardName(id) }), html`<${OfferCard} id=${id} cards=${cards} />`)}</span>`)}</div>`}
    <svg class="hexmap ecos-map" viewBox=${viewBox(all, SIZE)} role="group" aria-label=${t("board.map_aria", { count: keys.length })}>
      ${all.map((k) => {
        const tile = map[k] || { terrain: "ghost" };
        const [x, y] = center(...parseKey(k), SIZE);
        const here = hexMoves(k);
        const one = here?.length === 1 ? here[0] : null;
        const act =
          here && !busy
            ? () => (one ? onMove(one) : onSelect?.(selected === `hex:${k}` ? null : `hex:${k}`))
            : undefined;
        return html`<g key=${k} class=${`tile ${tile.terrain}${here ? " choosable" : ""}${selected === `hex:${k}` ? " selected" : ""}${changed.has(k) ? " last-move" : ""}`}
            data-select=${here ? `hex:${k}` : undefined} data-move=${one ? JSON.stringify(one) : undefined}
            role=${here ? "button" : undefined} tabindex=${here ? 0 : undefined} aria-label=${here ? (one ? describe(one) : t("board.choices_at", { space: k })) : undefined}
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
          <title>${tileTitle(k, map[k])}</title>
          <polygon points=${corners(x, y, SIZE - 0.8)} />
          ${tile.mountain && html`<polygon class="mountain" points=${`${x - 13},${y - 1} ${x - 7},${y - 12} ${x - 1},${y - 1}`} />`}
          ${Array.from({ length: tile.forests || 0 }, (_, i) => html`<circle class="forest" cx=${x + 4 + i * 7} cy=${y - 6} r="3.5" />`)}
          ${tile.animal && html`<circle class="animal-chip" cx=${x} cy=${y + 7} r="7.5" /><text x=${x} y=${y + 10} text-anchor="middle" class="animal">${speciesAbbr(tile.animal)}</text>`}
          ${here && html`<text x=${x} y=${y + 17} text-anchor="middle" class="coord">${k}</text>`}
        </g>`;
      })}
    </svg>
    <${HexMenu} id=${selected} moves=${selected?.startsWith("hex:") ? items.get(selected) : null} describe=${describe} onMove=${onMove} busy=${busy} game="ecos" />
    <div class="tableaux">${(view.seats || []).map(
      (
        s,
      ) => html`<section key=${s.seat} class=${"tableau" + (s.seat === view.you ? " mine" : "")} aria-label=${t("board.tableau_aria", { name: names(s.seat) })}>
      <h3>${names(s.seat)}: ${t("seat.points", { count: s.score })} <span class="muted">· ${t("seat.cubes", { count: s.energy_available })} · ${t("seat.dial", { dial: s.dial })}${s.status !== "active" ? ` · ${s.status === "resigned" ? t("status.resigned") : s.status}` : ""}</span></h3>
      <div class="cards">${(s.tableau || []).map((entry, i) =>
        s.seat === view.you
          ? html`<span key=${i}>${pick(`card:${entry.card}`, t("board.moves_with", { card: cardName(entry.card) }), html`<${TableauCard} entry=${entry} cards=${cards} />`)}</span>`
          : html`<${TableauCard} key=${i} entry=${entry} cards=${cards} />`,
      )}</div>
    </section>`,
    )}</div>
    ${view.hand?.length ? html`<div class="muted">${t("board.hand", { cards: view.hand.map(cardName).join(", ") })}</div>` : ""}
  </div>`;
}

function answerWords(a, view) {
  const t = T();
  const drawn = (view?.prompt?.tokens || view?.current_draw || [])[a.token];
  const token = drawn ? elementWord(drawn) : t("answer.the_token");
  if (a.type === "rotate") return t("answer.rotate", { token });
  const params = { token, card: cardName(a.card), slot: a.slot + 1 };
  return a.move_cube_from
    ? t("answer.place.moved", { ...params, from: cardName(a.move_cube_from.card) })
    : t("answer.place", params);
}

function choiceWords(c) {
  const t = T();
  if (!c) return "";
  if (c.from && c.to) return t("choice.move", { from: c.from, to: c.to });
  if (c.hex) return t("choice.hex", { hex: c.hex });
  if (c.species) return t("choice.species", { species: speciesWord(c.species), tile: c.tile });
  if (c.tile) return t("choice.tile", { tile: c.tile });
  return JSON.stringify(c);
}

const SOURCES = ["blue_blue", "blue_brown", "brown_brown"];

export function describeMove(m, view) {
  const t = T();
  switch (m.type) {
    case "respond":
      return t("move.respond", { answers: m.answers.map((a) => answerWords(a, view)).join("; ") });
    case "draft_pick":
      return t("move.draft_pick", { cards: cards(m.cards) });
    case "choose_active":
      return t("move.choose_active", { cards: cards(m.cards) });
    case "eco":
      return m.resolve ? t("move.eco") : t("move.eco.retract");
    case "effect":
      return m.stop ? t("move.effect.stop") : t("move.effect", { choice: choiceWords(m.choice) });
    case "dial_gain_card":
      return m.accept ? t("move.dial_gain_card") : t("move.dial_gain_card.decline");
    case "dial_reward":
      return m.reward === "energy" ? t("move.dial_reward") : t("move.dial_reward.play", { card: cardName(m.card) });
    case "gain_card": {
      if (m.source === "faceup") return t("move.gain_card", { card: cardName(m.card) });
      const source = [...(m.from || [])].sort().join("_");
      return SOURCES.includes(source) ? t(`move.gain_card.deck.${source}`) : JSON.stringify(m);
    }
    case "gain_card_keep":
      return t("move.gain_card_keep", { card: cardName(m.card) });
    default:
      return JSON.stringify(m);
  }
}

export function describeEffect(e, n) {
  const t = T();
  const d = e.data || {};
  const name = d.seat !== undefined && d.seat !== null ? n(d.seat) : t("event.someone");
  const card = d.card ? cardName(d.card) : t("event.a_card");
  const back = BACKS.includes(d.back) ? d.back : null;
  switch (e.kind) {
    case "game_started":
      return t("event.game_started", { name: n(d.harbinger) });
    case "hand_dealt":
      return t("event.hand_dealt", { count: (d.cards || []).length });
    case "pack_received":
      return t("event.pack_received", { count: (d.cards || []).length });
    case "draft_picked":
      return d.cards
        ? t("event.draft_picked.cards", { name, cards: cards(d.cards) })
        : t("event.draft_picked", { name });
    case "draft_pick":
      return t("event.draft_pick", { cards: cards(d.cards) });
    case "active_picked":
      return t("event.active_picked", { name });
    case "active_pick":
      return t("event.active_pick", { cards: cards(d.cards) });
    case "draft_passed":
      return back
        ? t(`event.draft_passed.${back}`, {
            direction: d.direction === "left" ? t("direction.left") : t("direction.right"),
          })
        : null;
    case "draft_ended":
      return back ? t(`event.draft_ended.${back}`) : null;
    case "active_chosen":
      return t("event.active_chosen", { name, cards: cards(d.cards) });
    case "round_started":
      return t("event.round_started", { round: d.round, name: n(d.harbinger) });
    case "token_drawn":
    case "tokens_drawn":
    case "drawn":
      return t("event.token_drawn", { tokens: (d.tokens || []).map(elementWord).join(", ") });
    case "respond_answered":
      return t(d.replacement ? "event.respond_answered.again" : "event.respond_answered", { name });
    case "respond_answer":
      return null;
    case "respond_closed":
      return t("event.respond_closed");
    case "auto_rotated":
      return t("event.auto_rotated", { name, tokens: tokens(d.tokens) });
    case "cube_placed":
      return d.from
        ? t("event.cube_placed.moved", { name, card, slot: (d.slot ?? 0) + 1, from: cardName(d.from.card) })
        : t("event.cube_placed", { name, card, slot: (d.slot ?? 0) + 1 });
    case "dial_rotated":
      return t("event.dial_rotated", { name, dial: d.dial });
    case "dial_reset":
      return t("event.dial_reset", { name });
    case "dial_gain_declined":
      return t("event.dial_gain_declined", { name });
    case "dial_reward":
      return d.reward === "energy" ? t("event.dial_reward", { name }) : t("event.dial_reward.play", { name, card });
    case "dial_reward_none":
      return t("event.dial_reward_none", { name });
    case "eco":
      return d.cubes_returned
        ? t("event.eco.cubes", { name, card, count: d.cubes_returned })
        : t("event.eco", { name, card });
    case "eco_retracted":
      return t("event.eco_retracted", { name, card });
    case "card_used":
      return t("event.card_used", { card, count: d.uses_left ?? 0 });
    case "card_discarded":
      return t("event.card_discarded", { name, card });
    case "scored":
      return t("event.scored", { name, vp: d.vp, card, score: d.score });
    case "energy_gained":
      return t("event.energy_gained", { name, count: d.count ?? 1 });
    case "tile_added":
      return t("event.tile_added", { terrain: terrainWord(d.terrain), hex: d.hex });
    case "tile_flipped":
      return t("event.tile_flipped", { tile: d.tile, from: terrainWord(d.from), to: terrainWord(d.to) });
    case "tile_converted":
      return t("event.tile_converted", { tile: d.tile, to: terrainWord(d.to) });
    case "mountain_added":
      return t("event.mountain_added", { tile: d.tile });
    case "forest_added":
      return t("event.forest_added", { tile: d.tile });
    case "forest_removed":
      return t("event.forest_removed", { tile: d.tile });
    case "animal_added":
      return t("event.animal_added", { species: speciesWord(d.species), tile: d.tile });
    case "animal_moved":
      return t("event.animal_moved", { species: speciesWord(d.species), from: d.from, to: d.to });
    case "animal_removed":
      return t("event.animal_removed", { species: speciesWord(d.species), tile: d.tile });
    case "step_no_target":
      return t("event.step_no_target", { card });
    case "step_stopped":
      return t("event.step_stopped", { name, card });
    case "cards_revealed":
      return d.cards
        ? t("event.cards_revealed", { name, cards: cards(d.cards) })
        : t("event.cards_revealed.backs", { name, count: (d.backs || []).length });
    case "card_kept":
      return d.card ? t("event.card_kept", { name, card }) : back ? t(`event.card_kept.${back}`, { name }) : null;
    case "card_taken":
      return t("event.card_taken", { name, card });
    case "faceup_added":
      return t("event.faceup_added", { card });
    case "deck_rebuilt":
      return back ? t(`event.deck_rebuilt.${back}`, { count: d.size ?? 0 }) : null;
    case "gain_nothing":
      return t("event.gain_nothing", { name });
    case "tiebreak_started":
      return t("event.tiebreak_started", { names: formatList((d.tied || []).map(n)) });
    case "round_ended":
      return t("event.round_ended", { round: d.round ?? "" });
    case "seat_resigned":
      return t("event.seat_resigned", { name });
    case "game_over":
    case "game_ended":
      return d.reason ? t("event.game_over.reason", { reason: resultWord(d.reason) }) : t("event.game_over");
    default:
      return t("event.other", { name, kind: e.kind.replaceAll("_", " ") });
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
  return s ? html` <span class="muted">${T()("seat.points", { count: s.score })}</span>` : null;
}

export const ecos = { Board, describeMove, describeEffect, seatExtra, touched };
