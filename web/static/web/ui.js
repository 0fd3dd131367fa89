// Shared bits: the Preact + htm binding, routing, time formatting, small components.
export { html, render, useState, useEffect, useRef, useCallback, useMemo } from "./vendor/htm-preact-standalone-3.1.1.js";
import { html, useEffect, useState } from "./vendor/htm-preact-standalone-3.1.1.js";

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
    return () => { window.removeEventListener("popstate", update); window.removeEventListener("tabula:navigate", update); };
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
  useEffect(() => { const t = setInterval(() => setNow(Date.now()), period); return () => clearInterval(t); }, [period]);
  return now;
}

export function left(deadline, now = Date.now()) {
  if (!deadline) return null;
  let s = Math.max(0, Math.round((new Date(deadline).getTime() - now) / 1000));
  const d = Math.floor(s / 86400); s -= d * 86400;
  const h = Math.floor(s / 3600); s -= h * 3600;
  const m = Math.floor(s / 60); s -= m * 60;
  if (d) return `${d}d ${h}h`;
  if (h) return `${h}h ${String(m).padStart(2, "0")}m`;
  return `${m}:${String(s).padStart(2, "0")}`;
}

export function Countdown({ deadline, label = "left" }) {
  const now = useNow();
  if (!deadline) return null;
  const text = left(deadline, now);
  const low = new Date(deadline).getTime() - now < 60000;
  return html`<span class=${"clock" + (low ? " low" : "")} role="timer" title=${new Date(deadline).toLocaleString()}>${text} ${label}</span>`;
}

export function ErrorNote({ error, onDismiss }) {
  if (!error) return null;
  return html`<p class="error" role="alert">${String(error.message || error)}
    ${onDismiss && html` <button type="button" class="link" onClick=${onDismiss}>Dismiss</button>`}</p>`;
}

export const GAME_NAMES = { ekko: "EKKO", enka: "Enka", eko: "Ekö", ecos: "Ecos" };
export const gameName = (g) => GAME_NAMES[g] || g;

export function seatName(summary, seat) {
  const s = summary?.seats?.find((x) => x.index === seat);
  if (!s) return `Seat ${seat + 1}`;
  if (s.username) return s.username;
  if (s.bot) return `Bot (${s.bot})`;
  return `Seat ${seat + 1} (free)`;
}

export const mySeat = (summary, username) => summary?.seats?.find((s) => s.username && s.username === username)?.index ?? null;

export function when(iso) {
  if (!iso) return "";
  const d = new Date(iso);
  return d.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
}
