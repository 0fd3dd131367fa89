// Table talk (issue 27): the chat beside the board (channel tabs, an unread count that clears once
// read), private notes, and a Nudge button for a seat that has been awaited long. Chat messages
// arrive as `chat` events on the match stream (live.js dispatches "tabula:chat"); the panel also
// looks every 15 s, for a page whose stream is down.
import { get, post, put } from "./api.js";
import { formatDate, formatNumber, t } from "./i18n.js";
import { ErrorNote, html, useEffect, useRef, useState, when } from "./ui.js";

// The channels this reader may open: the players talk at the table and seal notes; those who watch
// talk among themselves; after the end, everything is open to everyone.
function channelsFor(seated, ended) {
  if (ended) return ["table", "spectators", "sealed"];
  return seated ? ["table", "sealed"] : ["spectators"];
}

export function ChatPanel({ id, state, me, names }) {
  const seated = state.you !== null && state.you !== undefined;
  const ended = state.status === "finished" || state.status === "aborted";
  const channels = channelsFor(seated, ended);
  const [channel, setChannel] = useState(channels[0]);
  const [open, setOpen] = useState(false);
  const [messages, setMessages] = useState({});
  const [read, setRead] = useState({});
  const [text, setText] = useState("");
  const [error, setError] = useState(null);
  const [busy, setBusy] = useState(false);
  const last = useRef({});

  async function load(ch) {
    try {
      const after = last.current[ch] || 0;
      const page = await get(`matches/${id}/chat?channel=${ch}&after=${after}&limit=200`);
      if (page.messages.length) {
        last.current[ch] = Math.max(last.current[ch] || 0, page.messages[page.messages.length - 1].seq);
        // Two reads may overlap (a stream event and one's own send): keep each message once, in order.
        setMessages((old) => {
          const bySeq = new Map((old[ch] || []).map((m) => [m.seq, m]));
          for (const m of page.messages) bySeq.set(m.seq, m);
          return { ...old, [ch]: [...bySeq.values()].sort((a, b) => a.seq - b.seq) };
        });
      }
      setRead((old) => ({ ...old, [ch]: Math.max(old[ch] || 0, page.read) }));
    } catch (e) {
      if (e.status !== 403) setError(e);
    }
  }
  const loadAll = () => channels.forEach(load);
  useEffect(() => {
    last.current = {};
    setMessages({});
    loadAll();
    const onChat = (e) => {
      if (e.detail === id) loadAll();
    };
    window.addEventListener("tabula:chat", onChat);
    const timer = setInterval(loadAll, 15000);
    return () => {
      window.removeEventListener("tabula:chat", onChat);
      clearInterval(timer);
    };
  }, [id, channels.join(",")]);

  const list = messages[channel] || [];
  const unread = (ch) => (messages[ch] || []).filter((m) => m.seq > (read[ch] || 0) && m.author !== me).length;
  const total = channels.reduce((n, ch) => n + unread(ch), 0);

  // Read while open: the newest message seen marks the channel read (and the inbox's chat entry done).
  useEffect(() => {
    if (!open || !list.length) return;
    const top = list[list.length - 1].seq;
    if (top > (read[channel] || 0)) {
      setRead((old) => ({ ...old, [channel]: top }));
      put(`matches/${id}/chat/read`, { channel, seq: top }).catch(() => {});
    }
  }, [open, channel, list.length]);

  const send = async (e) => {
    e.preventDefault();
    if (!text.trim()) return;
    setBusy(true);
    setError(null);
    try {
      await post(`matches/${id}/chat`, { channel, text });
      setText("");
      await load(channel);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const report = (m) => {
    const reason = window.prompt(t("ui.chat.report_prompt"));
    if (reason)
      post(`matches/${id}/chat/${m.channel}/${m.seq}/report`, { reason })
        .then(() => setError(new Error(t("ui.chat.reported"))))
        .catch(setError);
  };
  const mayWrite = !(channel === "sealed" && ended) && !(channel === "table" && !seated && !ended);

  return html`<section class="chat" aria-labelledby="chat-h">
    <h2 id="chat-h"><button type="button" class="link" aria-expanded=${open} data-chat-toggle onClick=${() => setOpen(!open)}>
      ${t("ui.chat.title")}${total ? html` <span class="badge" data-unread=${total} aria-label=${t("ui.chat.unread", { count: total })}>${formatNumber(total)}</span>` : ""}</button></h2>
    ${
      open &&
      html`<div>
      ${
        channels.length > 1 &&
        html`<div role="tablist" class="tabs">${channels.map(
          (ch) => html`<button type="button" role="tab" key=${ch}
        aria-selected=${ch === channel} onClick=${() => setChannel(ch)}>${t(`ui.chat.channel.${ch}`)}${unread(ch) ? ` (${formatNumber(unread(ch))})` : ""}</button>`,
        )}</div>`
      }
      ${channel === "sealed" && !ended && html`<p class="muted">${t("ui.chat.sealed_hint")}</p>`}
      <ol class="messages" aria-live="polite" tabindex="0" aria-label=${t("ui.chat.history")} data-channel=${channel}>
        ${list.length === 0 && html`<li class="muted">${t("ui.chat.empty")}</li>`}
        ${list.map(
          (m) => html`<li key=${m.seq} data-seq=${m.seq}>
          <strong>${m.author}</strong>${m.seat !== null && names(m.seat) !== m.author ? html` <span class="muted">(${names(m.seat)})</span>` : ""}${m.to !== null ? html` <span class="muted">${t("ui.chat.to", { name: names(m.to) })}</span>` : ""}:${" "}
          ${m.hidden ? html`<em class="muted">${t("ui.chat.hidden")}</em>` : m.text}
          <span class="muted" title=${when(m.at)}> · ${formatDate(m.at, { timeStyle: "medium" })}</span>
          ${m.author !== me && !m.hidden && html` <button type="button" class="link" onClick=${() => report(m)}>${t("ui.chat.report")}</button>`}
        </li>`,
        )}
      </ol>
      <${ErrorNote} error=${error} onDismiss=${() => setError(null)} />
      ${
        mayWrite &&
        html`<form onSubmit=${send} class="say">
        <label>${t("ui.chat.message")} <input name="chat" maxlength="1000" value=${text} onInput=${(e) => setText(e.target.value)} /></label>
        <button type="submit" disabled=${busy || !text.trim()}>${t("ui.chat.send")}</button>
      </form>`
      }
    </div>`
    }
  </section>`;
}

export function NotesPanel({ id }) {
  const [text, setText] = useState("");
  const [saved, setSaved] = useState(null);
  const [error, setError] = useState(null);
  const [loaded, setLoaded] = useState(false); // the box waits for the stored notes: typing first would lose them
  useEffect(() => {
    setLoaded(false);
    get(`matches/${id}/notes`)
      .then((n) => {
        setText(n.text);
        setSaved(n.updated_at);
        setLoaded(true);
      })
      .catch(setError);
  }, [id]);
  const save = (e) => {
    e.preventDefault();
    put(`matches/${id}/notes`, { text })
      .then((n) => setSaved(n.updated_at || "cleared"))
      .catch(setError);
  };
  return html`<section class="notes" aria-labelledby="notes-h">
    <h2 id="notes-h">${t("ui.notes.title")}</h2>
    <form onSubmit=${save}>
      <textarea name="notes" rows="4" maxlength="10000" aria-label=${t("ui.notes.label")} disabled=${!loaded}
        value=${text} onInput=${(e) => setText(e.target.value)}></textarea>
      <p><button type="submit" disabled=${!loaded}>${t("ui.notes.save")}</button> <span class="muted">${t("ui.notes.private")}${saved && saved !== "cleared" ? ` ${t("ui.notes.saved", { when: when(saved) })}` : ""}</span></p>
    </form>
    <${ErrorNote} error=${error} onDismiss=${() => setError(null)} />
  </section>`;
}

// A Nudge button for each other person the match has been waiting for long enough (the server says
// when it is too soon, with how long to wait).
export function NudgeButtons({ id, state, summary, names }) {
  const [note, setNote] = useState(null);
  if (state.status !== "active" || state.you === null || state.you === undefined) return null;
  // Long enough: max(12 h, 25 % of the per-move time) since the seat became awaited (the server also
  // allows one nudge per turn and per day, and says so).
  const since = summary.awaited_since || {};
  const wait = Math.max(12 * 3600, 0.25 * (summary.time_control?.per_move_s || 0)) * 1000;
  const targets = summary.seats.filter(
    (s) =>
      s.username &&
      s.index !== state.you &&
      state.awaiting.includes(s.index) &&
      !s.resigned &&
      !s.away_until &&
      since[String(s.index)] &&
      Date.now() - new Date(since[String(s.index)]).getTime() >= wait,
  );
  if (!targets.length) return null;
  const nudge = (seat) =>
    post(`matches/${id}/nudges`, { seat })
      .then(() => setNote(t("ui.nudge.done", { name: names(seat) })))
      .catch((e) =>
        setNote(
          e.code === "nudge_too_soon"
            ? t("ui.nudge.too_soon", { name: names(seat), count: Math.ceil(e.problem.retry_after / 3600) })
            : e.message,
        ),
      );
  return html`<p class="nudges">${targets.map(
    (s) => html`<button type="button" key=${s.index} data-nudge=${s.index}
    onClick=${() => nudge(s.index)}>${t("ui.nudge.button", { name: names(s.index) })}</button> `,
  )}${note && html`<span role="status">${note}</span>`}</p>`;
}
