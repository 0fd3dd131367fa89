// Away (issue 25): go away without losing. The page sets or ends an absence and the two
// preferences (auto-away, the caretaker); the match page marks away seats (match.js).
import { del, get, patch, put } from "./api.js";
import { ErrorNote, html, useEffect, useState } from "./ui.js";

const DAY_MS = 24 * 3600 * 1000;
const days = (s) => `${(s / 86400).toFixed(1)} days`;
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
    return html`<main><h1>Away</h1>${error ? html`<${ErrorNote} error=${error} />` : html`<p>Loading…</p>`}</main>`;
  return html`<main class="away">
    <h1>Away</h1>
    <p data-away-status>${
      status.active
        ? html`You are away until <strong>${new Date(status.until).toLocaleString()}</strong>${status.auto ? " (started automatically)" : ""}. Your clocks are frozen.`
        : "You are here: your clocks run."
    }</p>
    <p class="muted">Balance: <span data-away-balance>${days(status.balance_s)}</span> of away time. It grows by a day every week.</p>
    <${ErrorNote} error=${error} />
    ${
      status.active
        ? html`<button type="button" onClick=${end} disabled=${busy}>I am back</button>`
        : html`<form onSubmit=${start}>
          <label>Back on <input type="datetime-local" name="until" value=${until} onInput=${(e) => setUntil(e.target.value)} required /></label>
          <button type="submit" disabled=${busy}>Go away</button>
        </form>`
    }
    <h2>When you forget</h2>
    <label><input type="checkbox" name="auto_away" checked=${!!prefs.auto_away} onChange=${(e) => setPref("auto_away", e.target.checked)} disabled=${busy} />
      Auto-away: when a clock of mine runs out, start an absence instead (a day at most, from my balance)</label>
    <p><label>Caretaker after a match's away cap:
      <select name="caretaker" value=${prefs.caretaker || "off"} onChange=${(e) => setPref("caretaker", e.target.value)} disabled=${busy}>
        <option value="off">none (the match's timeout rules apply)</option>
        <option value="random">a random bot</option>
        <option value="greedy">a greedy bot</option>
        <option value="strong">a strong bot</option>
      </select></label></p>
  </main>`;
}
