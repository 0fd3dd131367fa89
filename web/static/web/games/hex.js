// Axial hex coordinates ("q,r", pointy-top) to SVG positions, shared by Ekö and Ecos.
import { gameT } from "../i18n.js";
import { html } from "../ui.js";
export const SQRT3 = Math.sqrt(3);
export const parseKey = (k) => k.split(",").map(Number);
export function center(q, r, size) {
  return [size * SQRT3 * (q + r / 2), size * 1.5 * r];
}
export function corners(x, y, size) {
  const pts = [];
  for (let i = 0; i < 6; i++) {
    const a = (Math.PI / 180) * (60 * i - 30);
    pts.push(`${(x + size * Math.cos(a)).toFixed(2)},${(y + size * Math.sin(a)).toFixed(2)}`);
  }
  return pts.join(" ");
}
export function viewBox(keys, size) {
  let x0 = Infinity,
    y0 = Infinity,
    x1 = -Infinity,
    y1 = -Infinity;
  for (const k of keys) {
    const [x, y] = center(...parseKey(k), size);
    x0 = Math.min(x0, x - size);
    y0 = Math.min(y0, y - size);
    x1 = Math.max(x1, x + size);
    y1 = Math.max(y1, y + size);
  }
  if (!Number.isFinite(x0)) return "0 0 10 10";
  return `${(x0 - 2).toFixed(1)} ${(y0 - 2).toFixed(1)} ${(x1 - x0 + 4).toFixed(1)} ${(y1 - y0 + 4).toFixed(1)}`;
}

// A hex with several moves, once selected: its moves in a small menu under the map, each with its
// `data-move` (an SVG group cannot hold buttons). One move on a hex is made by clicking the hex.
// `game` names the catalogue whose `board.choices_at` labels the menu (Ekö's or Ecos').
// `least`: the fewest moves that make a menu (1 for the moves staying on a selected Ekö stack).
export function HexMenu({ id, moves, describe, onMove, busy, game = "eko", least = 2 }) {
  if (!id || !moves || moves.length < least) return null;
  const label = gameT(game)("board.choices_at", { space: id.replace(/^hex:/, "") });
  return html`<div class="pick-menu hex-menu" role="menu" aria-label=${label}>
    ${moves.map(
      (m) => html`<button type="button" role="menuitem" key=${JSON.stringify(m)} data-move=${JSON.stringify(m)}
      disabled=${busy} onClick=${() => onMove(m)}>${describe(m)}</button>`,
    )}
  </div>`;
}
