// Shared bits: the Preact + htm binding, routing, time formatting, small components.
export {
  html,
  render,
  useState,
  useEffect,
  useRef,
  useCallback,
  useMemo,
} from "./vendor/htm-preact-standalone-3.1.1.js";
import { html, useEffect, useState } from "./vendor/htm-preact-standalone-3.1.1.js";
import { formatDate, formatNumber, t } from "./i18n.js";

export function navigate(path, { replace = false } = {}) {
  if (replace) history.replaceState(null, "", path);
  else history.pushState(null, "", path);
  window.dispatchEvent(new Event("tabula:navigate"));
  window.scrollTo(0, 0);
}

export function usePath() {
  // The state is the whole address, so that a change of the query alone (a replay's `?at=`) renders too.
  const [where, setWhere] = useState({ path: location.pathname, search: location.search });
  const path = where.path;
  useEffect(() => {
    const update = () => setWhere({ path: location.pathname, search: location.search });
    window.addEventListener("popstate", update);
    window.addEventListener("tabula:navigate", update);
    return () => {
      window.removeEventListener("popstate", update);
      window.removeEventListener("tabula:navigate", update);
    };
  }, []);
  return path;
}

export function Link({ href, children, ...rest }) {
  const onClick = (e) => {
    if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    navigate(href);
  };
  return html`<a href=${href} onClick=${onClick} ...${rest}>${children}</a>`;
}

// A clock that re-renders once a second.
export function useNow(period = 1000) {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), period);
    return () => clearInterval(t);
  }, [period]);
  return now;
}

export function left(deadline, now = Date.now()) {
  if (!deadline) return null;
  let s = Math.max(0, Math.round((new Date(deadline).getTime() - now) / 1000));
  const d = Math.floor(s / 86400);
  s -= d * 86400;
  const h = Math.floor(s / 3600);
  s -= h * 3600;
  const m = Math.floor(s / 60);
  s -= m * 60;
  // Compact, as a clock reads, with the language's own unit abbreviations; seconds stay "m:ss".
  const two = (n) => formatNumber(n, { minimumIntegerDigits: 2 });
  if (d) return t("ui.time.days_hours", { days: d, hours: h });
  if (h) return t("ui.time.hours_minutes", { hours: h, minutes: two(m) });
  return t("ui.time.minutes_seconds", { minutes: m, seconds: two(s) });
}

/**
 * A clock counting down to `deadline`: "2d 3h left". `label` replaces the "left" phrase: either a
 * function of the remaining time that returns the whole phrase (the time may go anywhere in it),
 * or words put after the time.
 */
export function Countdown({ deadline, label = null }) {
  const now = useNow();
  if (!deadline) return null;
  const text = left(deadline, now);
  const low = new Date(deadline).getTime() - now < 60000;
  return html`<span class=${"clock" + (low ? " low" : "")} role="timer" title=${formatDate(deadline)}>${
    label === null ? t("ui.time.left", { time: text }) : typeof label === "function" ? label(text) : `${text} ${label}`
  }</span>`;
}

export function ErrorNote({ error, onDismiss }) {
  if (!error) return null;
  return html`<p class="error" role="alert">${String(error.message || error)}
    ${onDismiss && html` <button type="button" class="link" onClick=${onDismiss}>${t("ui.common.dismiss")}</button>`}</p>`;
}

export const GAME_NAMES = { ekko: "EKKO", enka: "Enka", eko: "Ekö", ecos: "Ecos" };
// A game's name is a name in every language, but it still goes through the catalogue (the
// pseudo-locale shows it wrapped like any other word of the interface).
export const gameName = (g) => (g in GAME_NAMES ? t(`ui.game.${g}`) : g);

export const BOT_LEVELS = ["random", "greedy", "strong"];
/** A bot's level in words: "random" → "random" / "losowy" / "aleatorio". */
export const botLevel = (level) => (BOT_LEVELS.includes(level) ? t(`ui.bot.${level}`) : level);

export function seatName(summary, seat) {
  const s = summary?.seats?.find((x) => x.index === seat);
  if (!s) return t("ui.seat.numbered", { n: seat + 1 });
  if (s.username) return s.username;
  if (s.bot) return t("ui.seat.bot", { name: botLevel(s.bot) });
  return t("ui.seat.free", { n: seat + 1 });
}

export const mySeat = (summary, username) =>
  summary?.seats?.find((s) => s.username && s.username === username)?.index ?? null;

/**
 * A message with elements in it: each `{name}` left in `text` (t() keeps a placeholder it was not
 * given) becomes `parts[name]`, a link for instance, so a sentence keeps its own word order.
 */
export function withParts(text, parts) {
  return String(text)
    .split(/\{(\w+)\}/)
    .map((piece, i) => (i % 2 ? (parts[piece] ?? `{${piece}}`) : piece));
}

/** A date and time in the language's own form (i18n.js `formatDate`). */
export const when = (iso) => formatDate(iso);

// Play on the board (issue 32): a piece, card or pile a person can select carries `data-select`.
// With one move starting there a click makes it (the item carries that move in `data-move`, as the
// move panel's buttons do); with several, a click opens a small menu of them, each with its
// `data-move`. The move panel stays beside the board for keyboard and screen-reader play.
export function Pick({ id, moves, selected, onSelect, onMove, busy, describe, label, children }) {
  if (!moves?.length) return children;
  if (moves.length === 1) {
    const m = moves[0];
    return html`<button type="button" class="pick" data-select=${id} data-move=${JSON.stringify(m)} disabled=${busy}
      title=${describe(m)} aria-label=${describe(m)} onClick=${() => onMove(m)}>${children}</button>`;
  }
  const open = selected === id;
  return html`<span class="pick-wrap">
    <button type="button" class=${"pick" + (open ? " selected" : "")} data-select=${id} disabled=${busy} aria-expanded=${open}
      aria-label=${label} title=${label} onClick=${() => onSelect?.(open ? null : id)}>${children}</button>
    ${
      open &&
      html`<span class="pick-menu" role="menu" aria-label=${label}>${moves.map(
        (m) => html`<button type="button" role="menuitem"
      key=${JSON.stringify(m)} data-move=${JSON.stringify(m)} disabled=${busy} onClick=${() => onMove(m)}>${describe(m)}</button>`,
      )}</span>`
    }
  </span>`;
}

/** Moves grouped by the board item they start from: `keyOf(move)` names it (null: none on the board). */
export function movesByItem(moves, keyOf) {
  const out = new Map();
  for (const m of moves) {
    const key = keyOf(m);
    if (key === null || key === undefined) continue;
    if (!out.has(key)) out.set(key, []);
    out.get(key).push(m);
  }
  return out;
}
