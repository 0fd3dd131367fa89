// Agreements (issue 26): the open proposals of a match with Accept/Decline, and buttons to propose
// a draw, a cancellation, a concession or more time. Undo is a button of the move panel (match.js).
import { del, get, post, put } from "./api.js";
import { ErrorNote, html, useEffect, useState } from "./ui.js";

const WORDS = {
  draw: () => "a draw",
  cancel: () => "cancelling the match (unrated)",
  concede_to: (p, names) => `conceding the match to ${names(p.seat)}`,
  extend: (p, names) => `${Math.round(p.seconds / 3600)} more hour(s) for ${names(p.seat)}`,
  pause: (p) => `pausing the clocks until ${new Date(p.until).toLocaleString()}`,
  takeback: (p) => `taking the moves after record ${p.to_seq} back`,
};

export function Agreements({ id, state, names, seats, takebackTo, onChange }) {
  const [list, setList] = useState([]);
  const [error, setError] = useState(null);
  const [busy, setBusy] = useState(false);
  const load = () =>
    get(`matches/${id}/proposals`)
      .then(setList)
      .catch(() => {});
  useEffect(() => {
    load();
    const timer = setInterval(load, 10000); // proposals make no record until they pass: look now and then
    return () => clearInterval(timer);
  }, [id, state.version]);
  const act = (promise) => {
    setBusy(true);
    setError(null);
    return promise
      .then(() => {
        load();
        onChange();
      })
      .catch(setError)
      .finally(() => setBusy(false));
  };
  const propose = (body) => act(post(`matches/${id}/proposals`, body));
  const vote = (p, accept) => act(put(`matches/${id}/proposals/${p.id}/vote`, { accept }));
  const withdraw = (p) => act(del(`matches/${id}/proposals/${p.id}`));
  const me = state.you;
  const others = seats.filter((s) => s.index !== me && !s.resigned);
  return html`<section class="agreements" aria-labelledby="agree-h">
    <h2 id="agree-h">Agreements</h2>
    <${ErrorNote} error=${error} onDismiss=${() => setError(null)} />
    ${
      list.length === 0
        ? html`<p class="muted">No open proposal.</p>`
        : html`<ul>
      ${list.map(
        (p) => html`<li key=${p.id} data-proposal=${p.kind}>
        ${names(p.by)} proposes ${(WORDS[p.kind] || (() => p.kind))(p, names)}.
        ${
          p.needed.includes(me) &&
          p.votes[String(me)] === undefined &&
          html`
          <button type="button" onClick=${() => vote(p, true)} disabled=${busy}>Accept</button>
          <button type="button" onClick=${() => vote(p, false)} disabled=${busy}>Decline</button>`
        }
        ${p.by === me && html`<button type="button" class="link" onClick=${() => withdraw(p)} disabled=${busy}>Withdraw</button>`}
      </li>`,
      )}
    </ul>`
    }
    <p class="propose">
      <button type="button" onClick=${() => propose({ kind: "draw" })} disabled=${busy}>Offer a draw</button>
      <button type="button" onClick=${() => propose({ kind: "cancel" })} disabled=${busy}>Propose to cancel</button>
      ${takebackTo !== null && takebackTo !== undefined && html`<button type="button" onClick=${() => propose({ kind: "takeback", to_seq: takebackTo })} disabled=${busy}>Ask to take back my last move</button>`}
      ${state.deadlines && Object.keys(state.deadlines.seats || {}).length > 0 && html`<button type="button" onClick=${() => propose({ kind: "pause", until: new Date(Date.now() + 86400000).toISOString() })} disabled=${busy}>Pause the clocks for a day</button>`}
      ${others.map((s) => html`<button type="button" key=${`c${s.index}`} onClick=${() => propose({ kind: "concede_to", seat: s.index })} disabled=${busy}>Concede to ${names(s.index)}</button>`)}
      ${state.deadlines && Object.keys(state.deadlines.seats || {}).length > 0 && others.map((s) => html`<button type="button" key=${`e${s.index}`} onClick=${() => propose({ kind: "extend", seat: s.index, seconds: 86400 })} disabled=${busy}>Give ${names(s.index)} a day</button>`)}
    </p>
  </section>`;
}
