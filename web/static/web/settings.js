// Settings (issue 28): notices on this device (Web Push, through the service worker sw.js), which
// channel carries each kind of notice, quiet hours in one's time zone, and the e-mail digest; then
// the account (account.js): e-mail, away, password, tokens, blocks, deleting it.
import { del, get, patch, post } from "./api.js";
import { AccountPanels } from "./account.js";
import { ErrorNote, html, useEffect, useRef, useState, when } from "./ui.js";

const CHANNELS = [
  ["stream", "Live"],
  ["webhook", "Webhooks"],
  ["email", "E-mail"],
  ["push", "Push"],
];
const DIGESTS = [
  ["immediate", "as things happen"],
  ["hourly", "at most hourly"],
  ["every_6_hours", "at most every 6 hours"],
  ["daily", "once a day"],
  ["off", "never"],
];
const WORDS = {
  your_turn: "Your turn",
  match_started: "A match started",
  match_finished: "A match ended",
  clock_low: "Your clock runs low",
  timed_out: "Your clock ran out",
  bot_took_over: "A bot took your seat",
  invited: "Invitations",
  chat: "Chat messages",
  nudged: "Nudges",
  followed: "New followers",
  proposal: "Proposals to you",
  proposal_result: "Proposals decided",
  away_started: "Your absence began",
  away_ended: "Your absence ended",
  opponent_away: "An opponent went away",
  opponent_back: "An opponent came back",
  webhook_disabled: "A webhook was turned off",
};

const b64 = (text) =>
  Uint8Array.from(atob(text.replace(/-/g, "+").replace(/_/g, "/") + "=".repeat((4 - (text.length % 4)) % 4)), (c) =>
    c.charCodeAt(0),
  );
// The browser's zones, with the one chosen (or the browser's own: "UTC" is not in Chrome's list) first.
const zones = (current) => {
  const list = Intl.supportedValuesOf ? Intl.supportedValuesOf("timeZone") : [];
  return list.includes(current) ? list : [current, ...list];
};

function PushPanel() {
  const [subs, setSubs] = useState([]);
  const [note, setNote] = useState(null);
  const [error, setError] = useState(null);
  const supported = "serviceWorker" in navigator && "PushManager" in window && "Notification" in window;
  const load = () => get("me/push-subscriptions").then(setSubs).catch(setError);
  useEffect(() => {
    load();
  }, []);
  // Permission is asked only here, after a click (browsers refuse a prompt nobody asked for).
  const enable = async () => {
    setError(null);
    try {
      const permission = await Notification.requestPermission();
      if (permission !== "granted") {
        setNote("Notices are blocked for this site in your browser's settings.");
        return;
      }
      const registration = await navigator.serviceWorker.register("/sw.js", { scope: "/" });
      await navigator.serviceWorker.ready;
      const { key } = await get("push/vapid-public-key");
      const sub = await registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: b64(key) });
      const json = sub.toJSON();
      await post("me/push-subscriptions", {
        endpoint: json.endpoint,
        keys: json.keys,
        label: navigator.platform || "this browser",
      });
      setNote("Notices are on for this device.");
      load();
    } catch (e) {
      setError(e);
    }
  };
  const remove = (s) => del(`me/push-subscriptions/${s.id}`).then(load).catch(setError);
  return html`<section aria-labelledby="push-h">
    <h2 id="push-h">Notices on this device</h2>
    ${
      supported
        ? html`<p><button type="button" data-push-enable onClick=${enable}>Turn on notices on this device</button>
          <span class="muted"> A notice says only that something happened (never a card), and opens the match.</span></p>`
        : html`<p class="muted">This browser has no Web Push. On an iPhone, add Tabula to the Home Screen first.</p>`
    }
    ${note && html`<p role="status">${note}</p>`}
    <${ErrorNote} error=${error} onDismiss=${() => setError(null)} />
    ${
      subs.length > 0 &&
      html`<ul>${subs.map(
        (s) => html`<li key=${s.id}>${s.label || "A browser"} · since ${when(s.created_at)}
      <button type="button" class="link" onClick=${() => remove(s)}>Remove</button></li>`,
      )}</ul>`
    }
  </section>`;
}

export function SettingsPage() {
  const [me, setMe] = useState(null);
  const [error, setError] = useState(null);
  const [saved, setSaved] = useState(null);
  const latest = useRef(/** @type {Record<string, any>} */ ({}));
  const pending = useRef(Promise.resolve());
  const load = () =>
    get("me")
      .then((m) => {
        latest.current = m.preferences || {};
        setMe(m);
      })
      .catch(setError);
  useEffect(() => {
    load();
  }, []);
  if (!me)
    return html`<main><h1>Settings</h1>${error ? html`<${ErrorNote} error=${error} />` : html`<p>Loading…</p>`}</main>`;
  const prefs = me.preferences || {};
  // Saves go one after another, each on top of what the previous one stored: two quick changes
  // (a box ticked, then quiet hours) never overwrite each other.
  const save = (changes) => {
    setError(null);
    pending.current = pending.current.then(() =>
      patch("me", { preferences: { ...latest.current, ...changes } })
        .then((m) => {
          latest.current = m.preferences || {};
          setMe(m);
          setSaved(new Date());
        })
        .catch(setError),
    );
    return pending.current;
  };
  const toggle = (type, channel, on) => {
    const current = me.channels[type];
    const picked = on ? [...new Set([...current, channel])] : current.filter((c) => c !== channel);
    const next = CHANNELS.map(([c]) => c).filter((c) => picked.includes(c));
    setMe({ ...me, channels: { ...me.channels, [type]: next } }); // the box shows the click at once; the answer confirms it
    save({ channels: { ...(latest.current.channels || {}), [type]: next } });
  };
  const quiet = prefs.quiet_hours || null;
  const tz = prefs.timezone || Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";
  return html`<main class="settings">
    <h1>Settings</h1>
    <${ErrorNote} error=${error} onDismiss=${() => setError(null)} />
    ${saved && html`<p role="status" class="muted">Saved.</p>`}
    <${PushPanel} />
    <section aria-labelledby="channels-h">
      <h2 id="channels-h">Which notices go where</h2>
      <table class="channels"><thead><tr><th>Notice</th>${CHANNELS.map(([, label]) => html`<th>${label}</th>`)}</tr></thead><tbody>
        ${Object.keys(me.channels).map(
          (type) => html`<tr key=${type}><th scope="row">${WORDS[type] || type}</th>
          ${CHANNELS.map(
            ([
              c,
              label,
            ]) => html`<td><input type="checkbox" data-channel=${`${type}:${c}`} aria-label=${`${WORDS[type] || type}: ${label}`}
            checked=${me.channels[type].includes(c)} onChange=${(e) => toggle(type, c, e.target.checked)} /></td>`,
          )}</tr>`,
        )}
      </tbody></table>
    </section>
    <section aria-labelledby="quiet-h">
      <h2 id="quiet-h">Quiet hours</h2>
      <p class="muted">No e-mail and no push in these hours (a clock running low still comes through); the inbox and live pages go on.</p>
      <label>Time zone <select name="timezone" value=${tz} onChange=${(e) => save({ timezone: e.target.value })}>
        ${zones(tz).map((z) => html`<option key=${z} value=${z}>${z}</option>`)}</select></label>
      <form onSubmit=${(e) => {
        e.preventDefault();
        const f = new FormData(e.target);
        save({ timezone: tz, quiet_hours: { start: f.get("start"), end: f.get("end") } });
      }}>
        <label>From <input type="time" name="start" defaultValue=${quiet?.start || "22:00"} /></label>
        <label> to <input type="time" name="end" defaultValue=${quiet?.end || "07:30"} /></label>
        <button type="submit">Set quiet hours</button>
        ${quiet && html` <button type="button" class="link" onClick=${() => save({ quiet_hours: null })}>No quiet hours</button>`}
      </form>
      ${quiet && html`<p data-quiet>Quiet from ${quiet.start} to ${quiet.end} (${tz}).</p>`}
    </section>
    <section aria-labelledby="digest-h">
      <h2 id="digest-h">E-mail digest</h2>
      ${me.email ? "" : html`<p class="muted">Add an e-mail address to your account to get one.</p>`}
      <label>Send it <select name="email_digest" value=${prefs.email_digest || "every_6_hours"} onChange=${(e) => save({ email_digest: e.target.value })}>
        ${DIGESTS.map(([v, label]) => html`<option key=${v} value=${v}>${label}</option>`)}</select></label>
      ${
        prefs.email_digest === "daily" &&
        html`<label> at <select name="email_digest_hour" value=${prefs.email_digest_hour ?? 8}
        onChange=${(e) => save({ email_digest_hour: Number(e.target.value) })}>${[...Array(24).keys()].map((h) => html`<option key=${h} value=${h}>${String(h).padStart(2, "0")}:00</option>`)}</select></label>`
      }
    </section>
    <${AccountPanels} me=${me} onSaved=${(m) => {
      latest.current = m.preferences || {};
      setMe(m);
    }} />
  </main>`;
}
