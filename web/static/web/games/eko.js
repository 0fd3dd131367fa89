// Ekö: the hex board as SVG (terrain, stacks with their height, buildings, Emperors).
// Selecting one of your stacks highlights its legal targets; clicking a target plays that move.
// Every word comes from the game's catalogue (`gameT("eko")`), so a log reads the same here as in
// any client that fetches `games/eko/i18n/{lang}`.
import { gameT } from "../i18n.js";
import { Pick, html, useEffect, useState } from "../ui.js";
import { HexMenu, center, corners, parseKey, viewBox } from "./hex.js";

const SIZE = 20;
const TERRAIN = { sand: "sand", chasm: "chasm", reg: "reg", gorge: "gorge", capital: "capital", mountain: "mountain" };
const BUILDING = { camp: "▲", tower: "♜", castle: "♛" };
const T = () => gameT("eko");
const terrainWord = (type) => (type in TERRAIN ? T()(`terrain.${type}`) : type);
const buildingWord = (kind) => (kind in BUILDING ? T()(`building.${kind}`) : kind);
// A building as a sentence's object ("a camp", "wieś", "un campamento").
const aBuilding = (kind) => (kind in BUILDING ? T()(`building.a.${kind}`) : kind);
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
  // Moves that stay on the selected stack (reinforce with one disc or two, with the Emperor or
  // without): a menu on the board, as a space with several moves has.
  const inPlace = fromSelected.filter((m) => !targetOf(m));
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
  const t = T();
  return html`<div class="eko">
    <div class="row info">
      <span>${t("board.turn", { turn: view.turn, max: view.max_turns })}</span>
      <span>${t("board.phase", { phase: phaseWord(view.phase) })}</span>
      ${view.active !== null && view.active !== undefined && html`<span>${t("board.active", { name: names(view.active) })}</span>`}
      ${view.emperor_swap && html`<span>${t("board.swap_answered", { count: view.emperor_swap.answered?.length || 0 })}</span>`}
    </div>
    <svg class="hexmap" viewBox=${viewBox(keys, SIZE)} role="group" aria-label=${t("board.aria")}>
      ${keys.map((k) => {
        const s = spaces[k];
        const [x, y] = center(...parseKey(k), SIZE);
        const stack = s.stack;
        const b = s.building;
        const isSource = sources.has(k);
        const isTarget = targets.has(k);
        const cls = `hex ${TERRAIN[s.type] || ""}${k === selected ? " selected" : ""}${isTarget ? " target" : ""}${isSource ? " source" : ""}${changed.has(k) ? " last-move" : ""}`;
        const label = spaceLabel(k, s, names, isTarget);
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
    <${HexMenu} id=${menu || (inPlace.length ? selected : null)} moves=${menu ? targets.get(menu) : inPlace} least=${menu ? 2 : 1}
      describe=${describeMove} onMove=${onMove} busy=${busy} />
    ${
      elsewhere.length > 0 &&
      html`<p class="board-actions">${html`<${Pick} id="actions" moves=${elsewhere} selected=${selected}
      onSelect=${onSelect} onMove=${onMove} busy=${busy} describe=${describeMove} label=${t("board.other_moves")}><span class="pass">${elsewhere.length === 1 ? describeMove(elsewhere[0]) : t("board.other_moves_more")}</span><//>`}</p>`
    }
    <p class="muted hint">${you !== null ? `${t("hint.rings")} ` : ""}${
      !selected || selected === "actions"
        ? t("hint.select")
        : t(targets.size ? "hint.selected" : "hint.selected_in_place", { space: selected })
    }</p>
    <p class="muted legend">${legend()}</p>
    <table class="scores"><thead><tr><th>${t("table.player")}</th><th>${t("table.colour")}</th><th>${t("table.vp")}</th><th>${t("table.on_board")}</th><th>${t("table.reserve")}</th><th>${t("table.prisoners")}</th><th>${t("table.buildings_left")}</th></tr></thead>
      <tbody>${(view.seats || []).map(
        (
          s,
        ) => html`<tr key=${s.seat}><td>${names(s.seat)}${s.status !== "active" ? ` ${statusWord(s.status)}` : ""}${s.has_palace ? ` ${t("table.palace")}` : ""}</td>
        <td><span class=${`swatch c-${s.color}`}></span> ${colorWord(s.color)}</td><td>${s.vp}</td><td>${s.discs_on_board}</td>
        <td>${s.reserve?.discs ?? 0}${s.reserve?.emperor ? ` ${t("table.reserve_emperor")}` : ""}</td>
        <td>${s.prisoners?.length ? s.prisoners.map((p) => t("table.prisoner", { name: names(p) })).join(", ") : "—"}</td>
        <td>${Object.entries(s.supply || {})
          .map(([k, v]) => supplyWord(k, v))
          .join(", ")}</td></tr>`,
      )}</tbody></table>
  </div>`;
}

export function describeMove(m) {
  const t = T();
  switch (m.type) {
    case "move":
      return m.expect && m.expect !== "simple"
        ? t("move.move.kind", { from: m.from, to: m.to, kind: expectWord(m.expect) })
        : t("move.move", { from: m.from, to: m.to });
    case "construct":
      return t(m.sacrifice_emperor ? "move.construct.emperor" : "move.construct", {
        building: aBuilding(m.building),
        space: m.space,
        stack: m.from_stack,
      });
    case "forced_march":
      return t("move.forced_march");
    case "end_actions":
      return t("move.end_actions");
    case "reinforce":
      return t(m.include_emperor ? "move.reinforce.emperor" : "move.reinforce", { stack: m.stack, count: m.count });
    case "emperor_swap":
      return m.with === null ? t("move.emperor_swap.keep") : t("move.emperor_swap", { space: m.with });
    default:
      return JSON.stringify(m);
  }
}

export function describeEffect(e, n) {
  const t = T();
  const d = e.data || {};
  const name = d.seat !== undefined ? n(d.seat) : t("event.someone");
  switch (e.kind) {
    case "turn_started":
      return t("event.turn_started", { turn: d.turn, name });
    case "stack_moved":
      return t("event.stack_moved", { name, from: d.from, to: d.to });
    case "stacks_regrouped":
      return t("event.stacks_regrouped", { name, from: d.from, to: d.to });
    case "stack_attacked":
      return t(d.captured_emperor || d.emperor_captured ? "event.stack_attacked.emperor" : "event.stack_attacked", {
        name,
        from: d.from ?? "",
        to: d.to ?? "",
      });
    case "kamikaze_struck":
      return t("event.kamikaze_struck", { name, to: d.to ?? "" });
    case "building_built":
      return t("event.building_built", { name, building: aBuilding(d.building ?? d.kind), space: d.space ?? "" });
    case "forced_march":
      return t("event.forced_march", { name });
    case "actions_ended":
      return t("event.actions_ended", { name });
    case "reinforced":
      return t("event.reinforced", { name, stack: d.stack, count: d.count ?? 0 });
    case "no_legal_action":
      return t("event.no_legal_action", { name });
    case "emperor_swap_answered":
      return t("event.emperor_swap_answered", { name });
    case "emperor_swap_chosen":
      return d.with ? t("event.emperor_swap_chosen", { space: d.with }) : t("event.emperor_swap_chosen.keep");
    case "emperor_swap_closed":
      return t("event.emperor_swap_closed");
    case "emperors_exchanged":
      return t("event.emperors_exchanged");
    case "seat_eliminated":
      return t("event.seat_eliminated", { name });
    case "seat_resigned":
      return t("event.seat_resigned", { name });
    case "game_ended":
      return t("event.game_ended", { reason: resultWord(d.reason) });
    default:
      return t("event.other", { name, kind: e.kind.replaceAll("_", " ") });
  }
}

const EXPECTS = ["simple", "regroup", "attack", "kamikaze"];
const expectWord = (x) => (EXPECTS.includes(x) ? T()(`expect.${x}`) : x);
const PHASES = ["emperor_swap", "action", "action2", "post_action", "reinforcement", "finished"];
const phaseWord = (p) => (PHASES.includes(p) ? T()(`phase.${p}`) : String(p));
const STATUSES = ["eliminated", "resigned"];
const statusWord = (s) => (STATUSES.includes(s) ? T()(`status.${s}`) : `(${s})`);
const COLORS = ["sky", "ink", "violet", "grey"];
const colorWord = (c) => (COLORS.includes(c) ? T()(`color.${c}`) : c);
const RESULTS = ["vp_with_palace", "last_standing", "resignation", "turn_cap", "wipeout"];
const resultWord = (r) => (RESULTS.includes(r) ? T()(`result.${r}`) : String(r || ""));
const supplyWord = (kind, count) => (kind in BUILDING ? T()(`supply.${kind}`, { count }) : `${count} ${kind}`);

// A space for a screen reader: its terrain, then the stack and building on it, then whether it is a target.
function spaceLabel(k, s, names, isTarget) {
  const t = T();
  const parts = [t("space.label", { space: k, terrain: terrainWord(s.type) })];
  const stack = s.stack;
  if (stack)
    parts.push(
      t(stack.emperor ? "space.stack.emperor" : "space.stack", { name: names(stack.owner), count: stack.height }),
    );
  if (s.building)
    parts.push(t("space.building", { name: names(s.building.owner), building: buildingWord(s.building.kind) }));
  if (isTarget) parts.push(t("space.target"));
  return parts.join(", ");
}

function legend() {
  const t = T();
  return [
    `${BUILDING.camp} ${t("building.camp")}`,
    `${BUILDING.tower} ${t("building.tower")}`,
    `${BUILDING.castle} ${t("building.castle")}`,
    `♔ ${t("piece.emperor")}`,
    `● ${t("piece.stack")}: ${t("legend.height")}`,
  ].join(" · ");
}

function seatExtra(view, seat) {
  const s = view?.seats?.[seat];
  return s
    ? html` <span class=${`swatch c-${s.color}`} aria-hidden="true"></span> <span class="muted">${T()("seat.vp", { vp: s.vp })}</span>`
    : null;
}

export const eko = { Board, describeMove, describeEffect, highlight, seatExtra, touched };
