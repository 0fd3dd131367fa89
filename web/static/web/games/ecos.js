// Ecos: the hex map (terrain, mountains, forests, animals), each seat's tableau of cards with
// their element slots and energy cubes, the tokens drawn, the prompt to answer and the scores.
import { get } from "../api.js";
import { html, useEffect, useState } from "../ui.js";
import { center, corners, parseKey, viewBox } from "./hex.js";

const SIZE = 22;
// Letters on coloured chips rather than emoji, so that every browser font draws them.
const ELEMENT = { sun: "☀", water: "≈", grass: "♣", animal: "A", earth: "E", air: "~", fire: "F", wild: "✱" };
const ANIMAL = { antelope: "An", bear: "Be", camel: "Ca", cheetah: "Ch", dolphin: "Do", eagle: "Ea", elephant: "El", goat: "Go", lion: "Li", manatee: "Ma", rabbit: "Ra", shark: "Sh", stork: "St" };

let catalogue = null;
let loading = null;
function useCards() {
  const [cards, setCards] = useState(catalogue);
  useEffect(() => {
    if (catalogue) return;
    loading = loading || get("games/ecos/components").then((c) => { catalogue = Object.fromEntries((c.cards || []).map((x) => [x.id, x])); return catalogue; });
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
  </div>`;
}

function promptWords(view, names) {
  const p = view.prompt;
  if (!p) return view.result ? "The game is over." : "";
  const who = (p.seats || []).map(names).join(", ");
  const words = {
    respond: `Place a cube for ${(p.tokens || view.current_draw || []).join(" and ")}, or turn your dial`,
    draft_pick: "Pick cards from your pack", choose_active: "Choose the cards for your tableau",
    eco_confirm: "Resolve the ECO?", effect_choice: "Choose where the card's effect goes",
    dial_gain_card: "Your dial reached 2: gain a card?", dial_reward: "Your dial reached 3: choose a reward",
    gain_card_source: "Gain a card: from a deck or the face-up pool", gain_card_keep: "Keep one of the revealed cards",
  }[p.type] || p.type.replaceAll("_", " ");
  return `${words} (${who}).`;
}

export function Board({ view, names }) {
  const cards = useCards();
  const map = view.map || {};
  const keys = Object.keys(map);
  return html`<div class="ecos">
    <div class="row info">
      <span>Round ${view.round}, draw ${view.draw}</span><span>Harbinger: ${names(view.harbinger)}</span>
      <span>Target: ${view.target_score}</span>${view.tiebreak ? html`<span>Tiebreak</span>` : ""}
    </div>
    <div class="row drawn" aria-label="Tokens drawn">
      <span>Drawn:</span>${(view.current_draw || []).map((t, i) => html`<span key=${i} class=${`token el-${t}`} role="img" aria-label=${t}>${ELEMENT[t] || t} ${t}</span>`)}
      <span class="muted">bag: ${view.bag?.size ?? "?"}</span>
    </div>
    <p class="prompt" role="status">${promptWords(view, names)}</p>
    <svg class="hexmap ecos-map" viewBox=${viewBox(keys, SIZE)} role="img" aria-label=${`Map of ${keys.length} tiles`}>
      ${keys.map((k) => {
        const t = map[k];
        const [x, y] = center(...parseKey(k), SIZE);
        return html`<g key=${k} class=${`tile ${t.terrain}`}><title>${`${k}: ${t.terrain}${t.mountain ? ", mountain" : ""}${t.forests ? `, ${t.forests} forest(s)` : ""}${t.animal ? `, ${t.animal}` : ""}`}</title>
          <polygon points=${corners(x, y, SIZE - 0.8)} />
          ${t.mountain && html`<polygon class="mountain" points=${`${x - 13},${y - 1} ${x - 7},${y - 12} ${x - 1},${y - 1}`} />`}
          ${Array.from({ length: t.forests || 0 }, (_, i) => html`<circle class="forest" cx=${x + 4 + i * 7} cy=${y - 6} r="3.5" />`)}
          ${t.animal && html`<circle class="animal-chip" cx=${x} cy=${y + 7} r="7.5" /><text x=${x} y=${y + 10} text-anchor="middle" class="animal">${ANIMAL[t.animal] || t.animal.slice(0, 2)}</text>`}
        </g>`;
      })}
    </svg>
    <div class="tableaux">${(view.seats || []).map((s) => html`<section key=${s.seat} class=${"tableau" + (s.seat === view.you ? " mine" : "")} aria-label=${`${names(s.seat)}'s tableau`}>
      <h3>${names(s.seat)}: ${s.score} points <span class="muted">· ${s.energy_available} cubes · dial ${s.dial}/3${s.status !== "active" ? ` · ${s.status}` : ""}</span></h3>
      <div class="cards">${(s.tableau || []).map((entry, i) => html`<${TableauCard} key=${i} entry=${entry} cards=${cards} />`)}</div>
    </section>`)}</div>
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
    case "respond": return m.answers.map((a) => answerWords(a, view)).join("; ").replace(/^./, (x) => x.toUpperCase());
    case "draft_pick": return `Pick ${m.cards.map(cardName).join(", ")}`;
    case "choose_active": return `Put ${m.cards.map(cardName).join(", ")} in play`;
    case "eco": return m.resolve ? "Resolve the ECO" : "Take the cube back and turn the dial";
    case "effect": return m.stop ? "Stop here" : `Choose ${choiceWords(m.choice)}`;
    case "dial_gain_card": return m.accept ? "Gain a card (dial back to 0)" : "No card";
    case "dial_reward": return m.reward === "energy" ? "Take an energy cube" : `Play ${cardName(m.card)} from your hand`;
    case "gain_card": return m.source === "faceup" ? `Take ${cardName(m.card)} from the face-up pool` : `Reveal the top ${m.from.join(" and ")} cards`;
    case "gain_card_keep": return `Keep ${cardName(m.card)}`;
    default: return JSON.stringify(m);
  }
}

export function describeEffect(e, n) {
  const d = e.data || {};
  const who = d.seat !== undefined ? n(d.seat) : "";
  switch (e.kind) {
    case "tokens_drawn": case "drawn": return `Drawn: ${(d.tokens || []).join(", ")}.`;
    case "respond_answered": return `${who} answered${d.replacement ? " again" : ""}.`;
    case "respond_answer": return null;
    case "round_ended": return `Round ${d.round ?? ""} ended.`;
    case "game_ended": return "The game ended.";
    default: return `${who ? `${who}: ` : ""}${e.kind.replaceAll("_", " ")}${d.card ? ` (${cardName(d.card)})` : ""}${d.vp ? ` +${d.vp}` : ""}.`;
  }
}

function seatExtra(view, seat) {
  const s = view?.seats?.[seat];
  return s ? html` <span class="muted">${s.score} points</span>` : null;
}

export const ecos = { Board, describeMove, describeEffect, seatExtra };
