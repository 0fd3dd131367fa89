// Away (issue 25): go away without losing. The page sets or ends an absence and the two
// preferences (auto-away, the caretaker); the match page marks away seats (match.js).
import { del, get, patch, put } from "./api.js";
import { formatDate, formatNumber, t } from "./i18n.js";
import { BOT_LEVELS, ErrorNote, html, useEffect, useState, withParts } from "./ui.js";

const DAY_MS = 24 * 3600 * 1000;
// A fractional count of days: CLDR's `other` form ("1.5 days", "1,5 dnia", "1,5 días").
const days = (s) =>
  t("ui.away.days", {
    count: s / 86400,
    days: formatNumber(s / 86400, { minimumFractionDigits: 1, maximumFractionDigits: 1 }),
  });
// A datetime-local input's value (local time, minutes) for a Date.
const localInput = (d) => new Date(d.getTime() - d.getTimezoneOffset() * 60000).toISOString().slice(0, 16);

export function AwayPage() {
  const [status, setStatus] = useState(null);
  const [prefs, setPrefs] = useState(/** @type {Record<string, any>} */ ({}));
  const [until, setUntil] = useState(localInput(new Date(Date.now() + 3 * DAY_MS)));
  const [error, setError] = useState(null);
  const [busy, setBusy] = useState(false);
  const load = () =>
    Promise.all([get("me/away"), get("me")])
      .then(([a, me]) => {
        setStatus(a);
        setPrefs(me.preferences || {});
      })
      .catch(setError);
  useEffect(() => {
    load();
  }, []);
  const act = (promise) => {
    setBusy(true);
    setError(null);
    return promise
      .then(load)
      .catch(setError)
      .finally(() => setBusy(false));
  };
  const start = (e) => {
    e.preventDefault();
    act(put("me/away", { until: new Date(until).toISOString() }));
  };
  const end = () => act(del("me/away"));
  const setPref = (name, value) => {
    const next = { ...prefs, [name]: value };
    setPrefs(next); // shown at once; the reload after the PATCH says what the server kept
    act(patch("me", { preferences: next }));
  };
  if (!status)
    return html`<main><h1>${t("ui.nav.away")}</h1>${error ? html`<${ErrorNote} error=${error} />` : html`<p>${t("ui.common.loading")}</p>`}</main>`;
  return html`<main class="away">
    <h1>${t("ui.nav.away")}</h1>
    <p data-away-status>${
      status.active
        ? withParts(status.auto ? t("ui.away.away_until_auto") : t("ui.away.away_until"), {
            until: html`<strong>${formatDate(status.until)}</strong>`,
          })
        : t("ui.away.here")
    }</p>
    <p class="muted">${withParts(t("ui.away.balance"), { days: html`<span data-away-balance>${days(status.balance_s)}</span>` })}</p>
    <${ErrorNote} error=${error} />
    ${
      status.active
        ? html`<button type="button" onClick=${end} disabled=${busy}>${t("ui.away.back")}</button>`
        : html`<form onSubmit=${start}>
          <label>${t("ui.away.back_on")} <input type="datetime-local" name="until" value=${until} onInput=${(e) => setUntil(e.target.value)} required /></label>
          <button type="submit" disabled=${busy}>${t("ui.away.go")}</button>
        </form>`
    }
    <h2>${t("ui.away.forget")}</h2>
    <label><input type="checkbox" name="auto_away" checked=${!!prefs.auto_away} onChange=${(e) => setPref("auto_away", e.target.checked)} disabled=${busy} />
      ${t("ui.away.auto")}</label>
    <p><label>${t("ui.away.caretaker")}
      <select name="caretaker" value=${prefs.caretaker || "off"} onChange=${(e) => setPref("caretaker", e.target.value)} disabled=${busy}>
        <option value="off">${t("ui.away.caretaker_off")}</option>
        ${BOT_LEVELS.map((level) => html`<option value=${level} key=${level}>${t(`ui.away.caretaker_bot.${level}`)}</option>`)}
      </select></label></p>
  </main>`;
}
