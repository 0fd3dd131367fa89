// Players (issue 13 in the API, issue 14 in the browser): leaderboards, invitations, joining by invitation link.
import { get, post, results } from "./api.js";
import { ErrorNote, Link, gameName, html, navigate, useEffect, useState, when } from "./ui.js";

export function Leaderboard({ game }) {
  const [games, setGames] = useState([]);
  const [rows, setRows] = useState(undefined);
  const [next, setNext] = useState(null);
  const [error, setError] = useState(null);
  const chosen = game || "ekko";
  const load = (cursor) =>
    get(`leaderboards/${chosen}?limit=50${cursor ? `&cursor=${cursor}` : ""}`)
      .then((b) => {
        setRows((old) => (cursor ? [...(old || []), ...b.results] : b.results));
        setNext(b.next);
      })
      .catch(setError);
  useEffect(() => {
    get("games")
      .then(setGames)
      .catch(() => setGames([]));
  }, []);
  useEffect(() => {
    setRows(undefined);
    setError(null);
    load(null);
  }, [chosen]);
  return html`<main>
    <h1>Leaderboards</h1>
    <nav aria-label="Games" class="tabs">${games.map((g) => html`<${Link} href=${`/leaderboards/${g.id}`} aria-current=${g.id === chosen ? "page" : undefined}>${g.name}<//>`)}</nav>
    ${error ? html`<${ErrorNote} error=${error} />` : null}
    ${
      rows === undefined
        ? html`<p>Loading…</p>`
        : !rows.length
          ? html`<p class="muted">No ranked player in ${gameName(chosen)} yet.</p>`
          : html`<table data-board=${chosen}><thead><tr><th>#</th><th>Player</th><th>Rating</th><th>Games</th></tr></thead><tbody>
          ${rows.map(
            (
              row,
            ) => html`<tr key=${row.rank}><td>${row.rank}</td><td><${Link} href=${`/users/${row.username}`}>${row.username}<//></td>
            <td>${row.rating}${row.provisional ? "?" : ""}</td><td>${row.games}</td></tr>`,
          )}</tbody></table>`
    }
    ${next ? html`<button type="button" onClick=${() => load(next)}>More</button>` : null}
  </main>`;
}

export function Invitations() {
  const [list, setList] = useState(undefined);
  const [error, setError] = useState(null);
  const load = () =>
    get("me/invitations")
      .then((l) => setList(results(l)))
      .catch(setError);
  useEffect(() => {
    load();
  }, []);
  const accept = (id) =>
    post(`matches/${id}/join`, {})
      .then(() => navigate(`/matches/${id}`))
      .catch(setError);
  const decline = (id) => post(`matches/${id}/decline`).then(load).catch(setError);
  return html`<main>
    <h1>Invitations</h1>
    ${error ? html`<${ErrorNote} error=${error} onDismiss=${() => setError(null)} />` : null}
    ${
      list === undefined
        ? html`<p>Loading…</p>`
        : !list.length
          ? html`<p class="muted">No invitation waiting.</p>`
          : html`<ul class="matches">${list.map(
              (i) => html`<li key=${i.match.id} data-invitation=${i.match.id}>
          ${gameName(i.match.game)}, ${i.match.players} players, from ${i.invited_by} (${when(i.created_at)}), seat ${i.seat === null || i.seat === undefined ? "any" : i.seat + 1}
          <button type="button" onClick=${() => accept(i.match.id)}>Accept</button>
          <button type="button" onClick=${() => decline(i.match.id)}>Decline</button></li>`,
            )}</ul>`
    }
  </main>`;
}

// An invitation link is /join#<code>: the code stays in the fragment, which browsers never send.
export function JoinByCode() {
  const code = decodeURIComponent(location.hash.slice(1));
  const [match, setMatch] = useState(null);
  const [error, setError] = useState(null);
  useEffect(() => {
    post("invites", { code }).then(setMatch).catch(setError);
  }, [code]);
  const join = () =>
    post(`matches/${match.id}/join`, { code })
      .then(() => navigate(`/matches/${match.id}`))
      .catch(setError);
  return html`<main>
    <h1>Invitation</h1>
    ${error ? html`<${ErrorNote} error=${error} />` : null}
    ${
      match
        ? html`<p>${gameName(match.game)}, created by ${match.created_by}, ${match.status}.</p>
      <button type="button" onClick=${join}>Join this match</button>`
        : error
          ? null
          : html`<p>Loading…</p>`
    }
  </main>`;
}

const fixed = (n) => (n === null || n === undefined ? "–" : Number(n).toFixed(2));

export function PlayerStats({ stats }) {
  const games = Object.entries(stats || {});
  if (!games.length) return null;
  return html`<section aria-labelledby="stats-h"><h2 id="stats-h">Statistics</h2>
    <table data-stats><thead><tr><th>Game</th><th>Played</th><th>Won</th><th>Drawn</th><th>Lost</th>
      <th>Average place</th><th>Average score</th><th>Longest streak</th></tr></thead><tbody>
      ${games.map(
        ([
          game,
          s,
        ]) => html`<tr key=${game}><td>${gameName(game)}</td><td>${s.played}</td><td>${s.won}</td><td>${s.drawn}</td>
        <td>${s.lost}</td><td>${fixed(s.average_placement)}</td><td>${fixed(s.average_score)}</td><td>${s.longest_streak}</td></tr>`,
      )}
    </tbody></table></section>`;
}

// On an open match's page, for its seated players: the invitation link and inviting by username.
export function InvitePanel({ id }) {
  const [info, setInfo] = useState(null);
  const [name, setName] = useState("");
  const [error, setError] = useState(null);
  const load = () => get(`matches/${id}/invitations`).then(setInfo).catch(setError);
  useEffect(() => {
    load();
  }, [id]);
  const invite = (e) => {
    e.preventDefault();
    post(`matches/${id}/invitations`, { username: name.trim() })
      .then(() => {
        setName("");
        load();
      })
      .catch(setError);
  };
  if (!info) return error ? html`<${ErrorNote} error=${error} />` : null;
  return html`<div class="invite">
    <p>Invitation link (it also opens a private match): <code class="invite-link">${location.origin}/join#${info.invite_code}</code></p>
    ${info.invitations.length ? html`<ul>${info.invitations.map((i) => html`<li key=${i.username}>${i.username}: ${i.status}${i.seat !== null ? `, seat ${i.seat + 1}` : ""}</li>`)}</ul>` : null}
    <form aria-label="Invite a player" onSubmit=${invite}>
      <label for="invite-name">Invite by username</label>
      <input id="invite-name" value=${name} onInput=${(e) => setName(e.target.value)} autocomplete="off" required />
      <button type="submit">Invite</button>
    </form>
    <${ErrorNote} error=${error} onDismiss=${() => setError(null)} />
  </div>`;
}
