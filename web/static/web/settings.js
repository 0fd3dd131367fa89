// Settings (issue 28): the account's language (issue 33), notices on this device (Web Push, through
// the service worker sw.js), which channel carries each kind of notice, quiet hours in one's time
// zone, and the e-mail digest; then the account (account.js): e-mail, away, password, tokens,
// blocks, deleting it.
import { del, get, patch, post } from "./api.js";
import { AccountPanels } from "./account.js";
import { LANGUAGES, LANGUAGE_NAMES, formatDate, lang, setLanguage, t } from "./i18n.js";
import { ErrorNote, html, useEffect, useRef, useState, when } from "./ui.js";

// Codes the API knows; their words are the catalogue's (account.channel.*, account.digest.*).
const CHANNELS = ["stream", "webhook", "email", "push"];
const DIGESTS = ["immediate", "hourly", "every_6_hours", "daily", "off"];
// The inbox entry types that have words; a type added later shows its code until it has some.
const NOTICES = [
  "your_turn",
  "match_started",
  "match_finished",
  "clock_low",
  "timed_out",
  "bot_took_over",
  "invited",
  "chat",
  "nudged",
  "followed",
  "proposal",
  "proposal_result",
  "away_started",
  "away_ended",
  "opponent_away",
  "opponent_back",
  "webhook_disabled",
  "tournament_started",
  "tournament_paired",
  "tournament_finished",
];
const notice = (type) => (NOTICES.includes(type) ? t(`account.notice.${type}`) : type);
const channel = (c) => t(`account.channel.${c}`);

/** "22:00" as the language writes a time of day ("10:00 PM", "22:00"). */
const clock = (hhmm) => {
  const [h, m] = String(hhmm).split(":").map(Number);
  return formatDate(new Date(2000, 0, 1, h, m || 0), { hour: "numeric", minute: "2-digit" });
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
        setNote(t("account.push.blocked"));
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
        label: navigator.platform || t("account.push.this_browser"),
      });
      setNote(t("account.push.enabled"));
      load();
    } catch (e) {
      setError(e);
    }
  };
  const remove = (s) => del(`me/push-subscriptions/${s.id}`).then(load).catch(setError);
  return html`<section aria-labelledby="push-h">
    <h2 id="push-h">${t("account.push.heading")}</h2>
    ${
      supported
        ? html`<p><button type="button" data-push-enable onClick=${enable}>${t("account.push.enable")}</button>
          <span class="muted"> ${t("account.push.explain")}</span></p>`
        : html`<p class="muted">${t("account.push.unsupported")}</p>`
    }
    ${note && html`<p role="status">${note}</p>`}
    <${ErrorNote} error=${error} onDismiss=${() => setError(null)} />
    ${
      subs.length > 0 &&
      html`<ul>${subs.map(
        (
          s,
        ) => html`<li key=${s.id}>${t("account.push.since", { label: s.label || t("account.push.a_browser"), date: when(s.created_at) })}
      <button type="button" class="link" onClick=${() => remove(s)}>${t("account.push.remove")}</button></li>`,
      )}</ul>`
    }
  </section>`;
}

// The account's language: the pages, the e-mails, the pushes and the API's problem documents speak
// it. The account is told first, then the page reloads in it (every module renders anew).
function LanguagePanel({ me }) {
  const [error, setError] = useState(null);
  const [busy, setBusy] = useState(false);
  const chosen = LANGUAGES.includes(me.language) ? me.language : lang();
  const choose = (e) => {
    const code = e.target.value;
    setError(null);
    setBusy(true);
    patch("me", { language: code })
      .then(() => setLanguage(code))
      .catch((err) => {
        setError(err);
        setBusy(false);
      });
  };
  return html`<section aria-labelledby="language-h">
    <h2 id="language-h">${t("account.language.heading")}</h2>
    <p class="muted">${t("account.language.explain")}</p>
    <label>${t("account.language.label")} <select name="language" data-account-language value=${chosen} disabled=${busy}
      onChange=${choose}>${LANGUAGES.map((code) => html`<option key=${code} value=${code} lang=${code}>${LANGUAGE_NAMES[code]}</option>`)}</select></label>
    <${ErrorNote} error=${error} onDismiss=${() => setError(null)} />
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
    return html`<main><h1>${t("account.settings.title")}</h1>${
      error ? html`<${ErrorNote} error=${error} />` : html`<p>${t("account.common.loading")}</p>`
    }</main>`;
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
  const toggle = (type, c, on) => {
    const current = me.channels[type];
    const picked = on ? [...new Set([...current, c])] : current.filter((x) => x !== c);
    const next = CHANNELS.filter((x) => picked.includes(x));
    setMe({ ...me, channels: { ...me.channels, [type]: next } }); // the box shows the click at once; the answer confirms it
    save({ channels: { ...(latest.current.channels || {}), [type]: next } });
  };
  const quiet = prefs.quiet_hours || null;
  const tz = prefs.timezone || Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";
  return html`<main class="settings">
    <h1>${t("account.settings.title")}</h1>
    <${ErrorNote} error=${error} onDismiss=${() => setError(null)} />
    ${saved && html`<p role="status" class="muted">${t("account.settings.saved")}</p>`}
    <${LanguagePanel} me=${me} />
    <${PushPanel} />
    <section aria-labelledby="channels-h">
      <h2 id="channels-h">${t("account.channels.heading")}</h2>
      <table class="channels"><thead><tr><th>${t("account.channels.notice")}</th>${CHANNELS.map((c) => html`<th>${channel(c)}</th>`)}</tr></thead><tbody>
        ${Object.keys(me.channels).map(
          (type) => html`<tr key=${type}><th scope="row">${notice(type)}</th>
          ${CHANNELS.map(
            (c) => html`<td><input type="checkbox" data-channel=${`${type}:${c}`}
            aria-label=${t("account.channels.box", { notice: notice(type), channel: channel(c) })}
            checked=${me.channels[type].includes(c)} onChange=${(e) => toggle(type, c, e.target.checked)} /></td>`,
          )}</tr>`,
        )}
      </tbody></table>
    </section>
    <section aria-labelledby="quiet-h">
      <h2 id="quiet-h">${t("account.quiet.heading")}</h2>
      <p class="muted">${t("account.quiet.explain")}</p>
      <label>${t("account.quiet.timezone")} <select name="timezone" value=${tz} onChange=${(e) => save({ timezone: e.target.value })}>
        ${zones(tz).map((z) => html`<option key=${z} value=${z}>${z}</option>`)}</select></label>
      <form onSubmit=${(e) => {
        e.preventDefault();
        const f = new FormData(e.target);
        save({ timezone: tz, quiet_hours: { start: f.get("start"), end: f.get("end") } });
      }}>
        <label>${t("account.quiet.from")} <input type="time" name="start" defaultValue=${quiet?.start || "22:00"} /></label>
        <label> ${t("account.quiet.to")} <input type="time" name="end" defaultValue=${quiet?.end || "07:30"} /></label>
        <button type="submit">${t("account.quiet.set")}</button>
        ${quiet && html` <button type="button" class="link" onClick=${() => save({ quiet_hours: null })}>${t("account.quiet.none")}</button>`}
      </form>
      ${quiet && html`<p data-quiet>${t("account.quiet.summary", { start: clock(quiet.start), end: clock(quiet.end), zone: tz })}</p>`}
    </section>
    <section aria-labelledby="digest-h">
      <h2 id="digest-h">${t("account.digest.heading")}</h2>
      ${me.email ? "" : html`<p class="muted">${t("account.digest.no_email")}</p>`}
      <label>${t("account.digest.send")} <select name="email_digest" value=${prefs.email_digest || "every_6_hours"} onChange=${(e) => save({ email_digest: e.target.value })}>
        ${DIGESTS.map((v) => html`<option key=${v} value=${v}>${t(`account.digest.option.${v}`)}</option>`)}</select></label>
      ${
        prefs.email_digest === "daily" &&
        html`<label> ${t("account.digest.at")} <select name="email_digest_hour" value=${prefs.email_digest_hour ?? 8}
        onChange=${(e) => save({ email_digest_hour: Number(e.target.value) })}>${[...Array(24).keys()].map(
          (h) => html`<option key=${h} value=${h}>${clock(`${h}:00`)}</option>`,
        )}</select></label>`
      }
    </section>
    <${AccountPanels} me=${me} onSaved=${(m) => {
      latest.current = m.preferences || {};
      setMe(m);
    }} />
  </main>`;
}
