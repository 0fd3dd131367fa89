// Ekö: the hex board as SVG (terrain, stacks with their height, buildings, Emperors).
// Selecting one of your stacks highlights its legal targets; clicking a target plays that move.
import { Pick, html, useEffect, useState } from "../ui.js";
import { HexMenu, center, corners, parseKey, viewBox } from "./hex.js";

const SIZE = 20;
const TERRAIN = { sand: "sand", chasm: "chasm", reg: "reg", gorge: "gorge", capital: "capital", mountain: "mountain" };
const TERRAIN_WORDS = {
  sand: "sand",
  chasm: "chasm",
  reg: "plain",
  gorge: "gorge",
  capital: "capital",
  mountain: "mountain",
};
const BUILDING = { camp: "▲", tower: "♜", castle: "♛" };
const colorOf = (view, seat) => view.seats?.[seat]?.color || "grey";

function sourceOf(m) {
  return m.type === "move"
    ? m.from
    : m.type === "construct"
      ? m.from_stack
      : m.type === "reinforce"
        ? m.stack
        : m.type === "emperor_swap"
          ? m.with
          : null;
}
function targetOf(m) {
  return m.type === "move" ? m.to : m.type === "construct" ? m.space : null;
}

export function highlight(m, selected) {
  return selected && sourceOf(m) === selected;
}

// The spaces a record's effects changed: the board outlines them (the last move).
export function touched(record) {
  const out = new Set();
  for (const e of record?.data?.effects || []) {
    const d = e.data || {};
    for (const k of [d.from, d.to, d.space, d.stack, d.with]) if (typeof k === "string" && k.includes(",")) out.add(k);
  }
  return out;
}

export function Board({ view, state, moves, selected, onSelect, onMove, names, busy, last }) {
  const changed = touched(last);
  const [menu, setMenu] = useState(null); // a target with several moves, its menu open under the board
  useEffect(() => setMenu(null), [selected, state?.version]);
  const you = state?.you ?? null;
  const elsewhere = moves.filter((m) => !sourceOf(m)); // forced march, end actions: not tied to a space
  const spaces = view.board?.spaces || {};
  const keys = Object.keys(spaces);
  const sources = new Set(moves.map(sourceOf).filter(Boolean));
  const fromSelected = selected ? moves.filter((m) => sourceOf(m) === selected) : [];
  const targets = new Map();
  for (const m of fromSelected) {
    const t = targetOf(m);
    if (t) targets.set(t, [...(targets.get(t) || []), m]);
  }
  const soleOf = (k) => {
    const own = moves.filter((m) => sourceOf(m) === k);
    return own.length === 1 && !targetOf(own[0]) ? own[0] : null;
  };
  const click = (k) => {
    if (busy) return;
    if (targets.has(k) && targets.get(k).length === 1) {
      onMove(targets.get(k)[0]);
      return;
    }
    if (targets.has(k)) {
      setMenu(menu === k ? null : k);
      return;
    } // several moves to one space (buildings): a menu
    const own = moves.filter((m) => sourceOf(m) === k);
    if (own.length === 1 && !targetOf(own[0])) {
      onMove(own[0]);
      return;
    } // reinforce / swap: one click
    onSelect(sources.has(k) && k !== selected ? k : null);
  };
  return html`<div class="eko">
    <div class="row info">
      <span>Turn ${view.turn} of ${view.max_turns}</span>
      <span>Phase: ${String(view.phase).replaceAll("_", " ")}</span>
      ${view.active !== null && view.active !== undefined && html`<span>Active: ${names(view.active)}</span>`}
      ${view.emperor_swap && html`<span>Emperor swap: ${view.emperor_swap.answered?.length || 0} answered</span>`}
    </div>
    <svg class="hexmap" viewBox=${viewBox(keys, SIZE)} role="group" aria-label="Ekö board">
      ${keys.map((k) => {
        const s = spaces[k];
        const [x, y] = center(...parseKey(k), SIZE);
        const stack = s.stack;
        const b = s.building;
        const isSource = sources.has(k);
        const isTarget = targets.has(k);
        const cls = `hex ${TERRAIN[s.type] || ""}${k === selected ? " selected" : ""}${isTarget ? " target" : ""}${isSource ? " source" : ""}${changed.has(k) ? " last-move" : ""}`;
        const label = `${k}: ${TERRAIN_WORDS[s.type] || s.type}${stack ? `, ${names(stack.owner)}'s stack of ${stack.height}${stack.emperor ? " with the Emperor" : ""}` : ""}${b ? `, ${names(b.owner)}'s ${b.kind}` : ""}${isTarget ? ", a legal target" : ""}`;
        const interactive = isSource || isTarget;
        const only =
          isTarget && targets.get(k).length === 1
            ? targets.get(k)[0]
            : !isTarget && isSource && k !== selected
              ? soleOf(k)
              : null;
        return html`<g key=${k} class=${cls} data-space=${k} data-select=${interactive ? k : undefined}
            data-move=${only ? JSON.stringify(only) : undefined} role=${interactive ? "button" : "img"} tabindex=${interactive ? 0 : undefined} aria-label=${label}
            onClick=${interactive ? () => click(k) : undefined} onKeyDown=${
              interactive
                ? (e) => {
                    if (e.key === "Enter" || e.key === " ") {
                      e.preventDefault();
                      click(k);
                    }
                  }
                : undefined
            }>
          <polygon points=${corners(x, y, SIZE - 0.8)} />
          ${b && html`<text x=${x} y=${y + 5} class=${`building c-${colorOf(view, b.owner)}`} text-anchor="middle">${BUILDING[b.kind] || b.kind[0]}</text>`}
          ${
            stack &&
            html`<circle cx=${x} cy=${y} r=${SIZE * 0.62} class=${`disc c-${colorOf(view, stack.owner)}${stack.emperor ? " emperor" : ""}${stack.emperor && stack.owner === you ? " mine" : ""}`} />
            <text x=${x} y=${y + 4.5} text-anchor="middle" class="height">${stack.emperor ? "♔" : ""}${stack.height}</text>`
          }
          ${interactive && html`<text x=${x} y=${y + SIZE * 0.86} text-anchor="middle" class="coord">${k}</text>`}
        </g>`;
      })}
    </svg>
    <${HexMenu} id=${menu} moves=${menu ? targets.get(menu) : null} describe=${describeMove} onMove=${onMove} busy=${busy} />
    ${
      elsewhere.length > 0 &&
      html`<p class="board-actions">${html`<${Pick} id="actions" moves=${elsewhere} selected=${selected}
      onSelect=${onSelect} onMove=${onMove} busy=${busy} describe=${describeMove} label="Other moves"><span class="pass">${elsewhere.length === 1 ? describeMove(elsewhere[0]) : "Other moves…"}</span><//>`}</p>`
    }
    <p class="muted hint">${you !== null ? "Your Emperor has a pink ring; Emperors have a gold ring. " : ""}${selected && selected !== "actions" ? `Stack ${selected} selected: its targets are outlined. Click one, or use the move list.` : "Select one of your stacks to see where it can go."}</p>
    <table class="scores"><thead><tr><th>Player</th><th>Colour</th><th>VP</th><th>On board</th><th>Reserve</th><th>Prisoners</th><th>Buildings left</th></tr></thead>
      <tbody>${(view.seats || []).map(
        (
          s,
        ) => html`<tr key=${s.seat}><td>${names(s.seat)}${s.status !== "active" ? ` (${s.status})` : ""}${s.has_palace ? " (palace)" : ""}</td>
        <td><span class=${`swatch c-${s.color}`}></span> ${s.color}</td><td>${s.vp}</td><td>${s.discs_on_board}</td>
        <td>${s.reserve?.discs ?? 0}${s.reserve?.emperor ? " (Emperor)" : ""}</td>
        <td>${s.prisoners?.length ? s.prisoners.map((p) => `${names(p)}'s Emperor`).join(", ") : "—"}</td>
        <td>${Object.entries(s.supply || {})
          .map(([k, v]) => `${v} ${k}`)
          .join(", ")}</td></tr>`,
      )}</tbody></table>
  </div>`;
}

export function describeMove(m) {
  switch (m.type) {
    case "move":
      return `Move ${m.from} → ${m.to}${m.expect && m.expect !== "simple" ? ` (${m.expect})` : ""}`;
    case "construct":
      return `Build a ${m.building} on ${m.space}, paid by ${m.from_stack}${m.sacrifice_emperor ? " with the Emperor" : ""}`;
    case "forced_march":
      return "Forced march: box 3 reserve discs for a second action";
    case "end_actions":
      return "End actions";
    case "reinforce":
      return `Reinforce ${m.stack} with ${m.count} disc${m.count === 1 ? "" : "s"}${m.include_emperor ? " (the Emperor first)" : ""}`;
    case "emperor_swap":
      return m.with === null ? "Keep the Emperor where it is" : `Swap the Emperor with your disc at ${m.with}`;
    default:
      return JSON.stringify(m);
  }
}

export function describeEffect(e, n) {
  const d = e.data || {};
  const who = d.seat !== undefined ? n(d.seat) : "";
  switch (e.kind) {
    case "turn_started":
      return `Turn ${d.turn}: ${who} to play.`;
    case "stack_moved":
      return `${who} moved ${d.from} → ${d.to}.`;
    case "stacks_regrouped":
      return `${who} regrouped ${d.from} onto ${d.to}.`;
    case "stack_attacked":
      return `${who} attacked ${d.to ?? ""} from ${d.from ?? ""}${d.captured_emperor || d.emperor_captured ? ", capturing an Emperor" : ""}.`;
    case "kamikaze_struck":
      return `${who} struck a kamikaze on ${d.to ?? ""}.`;
    case "building_built":
      return `${who} built a ${d.building ?? d.kind ?? "building"} on ${d.space ?? ""}.`;
    case "forced_march":
      return `${who} made a forced march.`;
    case "actions_ended":
      return `${who} ended their actions.`;
    case "reinforced":
      return `${who} reinforced ${d.stack} with ${d.count}.`;
    case "no_legal_action":
      return `${who} had no legal action.`;
    case "emperor_swap_answered":
      return `${who} answered the Emperor swap.`;
    case "emperor_swap_chosen":
      return d.with ? `You chose to swap your Emperor with ${d.with}.` : "You kept your Emperor in place.";
    case "emperor_swap_closed":
      return "Every Emperor swap was revealed.";
    case "emperors_exchanged":
      return "Two captured Emperors were exchanged.";
    case "seat_eliminated":
      return `${who} was eliminated.`;
    case "seat_resigned":
      return `${who} resigned.`;
    case "game_ended":
      return `The game ended (${String(d.reason || "").replaceAll("_", " ")}).`;
    default:
      return `${who ? `${who}: ` : ""}${e.kind.replaceAll("_", " ")}.`;
  }
}

function seatExtra(view, seat) {
  const s = view?.seats?.[seat];
  return s
    ? html` <span class=${`swatch c-${s.color}`} aria-hidden="true"></span> <span class="muted">${s.vp} VP</span>`
    : null;
}

export const eko = { Board, describeMove, describeEffect, highlight, seatExtra, touched };
