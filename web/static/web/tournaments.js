// Tournaments (issue 29): the list with a create form, and a page per tournament with its standings,
// its rounds (tables, seats, match links) and your next match. Join and withdraw from either.
import { get, post, results } from "./api.js";
import { ErrorNote, Link, gameName, html, navigate, useEffect, useState, when } from "./ui.js";

const FORMATS = { round_robin: "Round robin", swiss: "Swiss", elimination: "Single elimination" };
const STATUS = { open: "taking entries", running: "running", finished: "finished", cancelled: "cancelled" };

function JoinButton({ t, me, onDone, onError }) {
  const [busy, setBusy] = useState(false);
  if (!me) return null;
  const act = (what) => {
    setBusy(true);
    post(`tournaments/${t.id}/${what}`)
      .then(onDone)
      .catch(onError)
      .finally(() => setBusy(false));
  };
  if (t.entered && (t.status === "open" || t.status === "running")) {
    return html`<button type="button" data-withdraw disabled=${busy} onClick=${() => act("withdraw")}>Withdraw</button>`;
  }
  if (t.status === "open" && !t.entered && t.players < t.max_players) {
    return html`<button type="button" data-join disabled=${busy} onClick=${() => act("join")}>Join</button>`;
  }
  return null;
}

function Row({ t, me, reload, setError }) {
  return html`<li data-tournament=${t.id}>
    <${Link} href=${`/tournaments/${t.id}`}>${t.name}<//> · ${gameName(t.game)} · ${FORMATS[t.format]}, tables of ${t.table_size}
    · ${t.players}/${t.max_players} players · ${STATUS[t.status]}${t.private ? " · private" : ""}
    ${" "}<${JoinButton} t=${t} me=${me} onDone=${reload} onError=${setError} />
  </li>`;
}

function CreateTournament({ games, onCreated }) {
  const [game, setGame] = useState(games[0]?.id);
  const spec = games.find((g) => g.id === game);
  const [format, setFormat] = useState("swiss");
  const [size, setSize] = useState(2);
  const [max, setMax] = useState(8);
  const [rounds, setRounds] = useState(3);
  const [hours, setHours] = useState(72);
  const [entry, setEntry] = useState("open");
  const [invite, setInvite] = useState("");
  const [name, setName] = useState("");
  const [error, setError] = useState(null);
  const [busy, setBusy] = useState(false);
  if (!spec) return null;
  const tableSize = format === "elimination" ? 2 : Math.min(Math.max(size, spec.min_players), spec.max_players);
  const submit = async (e) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    const body = {
      name,
      game,
      format,
      table_size: tableSize,
      max_players: max,
      time_control: { per_move_s: Math.round(hours * 3600) },
      entry,
    };
    if (format === "swiss") body.rounds = rounds;
    if (entry === "invite") body.invite = invite.split(/[\s,]+/).filter(Boolean);
    try {
      const t = await post("tournaments", body);
      onCreated?.(t);
      navigate(`/tournaments/${t.id}`);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return html`<form class="create stack" onSubmit=${submit} aria-labelledby="new-t-h">
    <h2 id="new-t-h">Create a tournament</h2>
    <div><label for="t-name">Name</label>
      <input id="t-name" name="name" required maxlength="100" value=${name} onInput=${(e) => setName(e.target.value)} /></div>
    <div><label for="t-game">Game</label>
      <select id="t-game" value=${game} onChange=${(e) => setGame(e.target.value)}>
        ${games.map((g) => html`<option value=${g.id}>${g.name}</option>`)}
      </select></div>
    <div><label for="t-format">Format</label>
      <select id="t-format" value=${format} onChange=${(e) => setFormat(e.target.value)}>
        ${Object.entries(FORMATS).map(([k, v]) => html`<option value=${k}>${v}</option>`)}
      </select></div>
    <div><label for="t-size">Players per table</label>
      <input id="t-size" type="number" min=${spec.min_players} max=${format === "elimination" ? 2 : spec.max_players}
        value=${tableSize} disabled=${format === "elimination"} onInput=${(e) => setSize(Number(e.target.value))} /></div>
    <div><label for="t-max">Most players</label>
      <input id="t-max" type="number" min=${tableSize} max="256" value=${max} onInput=${(e) => setMax(Number(e.target.value))} />
      <small class="muted">It starts when full.</small></div>
    ${
      format === "swiss" &&
      html`<div><label for="t-rounds">Rounds</label>
      <input id="t-rounds" type="number" min="1" max="50" value=${rounds} onInput=${(e) => setRounds(Number(e.target.value))} /></div>`
    }
    <div><label for="t-hours">Hours per move</label>
      <input id="t-hours" type="number" min="1" max="720" value=${hours} onInput=${(e) => setHours(Number(e.target.value))} />
      <small class="muted">A timeout forfeits; away does not stop tournament clocks.</small></div>
    <div><label for="t-entry">Entry</label>
      <select id="t-entry" value=${entry} onChange=${(e) => setEntry(e.target.value)}>
        <option value="open">Open to everyone</option><option value="invite">By invitation (private)</option>
      </select></div>
    ${
      entry === "invite" &&
      html`<div><label for="t-invite">Invite (usernames)</label>
      <input id="t-invite" value=${invite} onInput=${(e) => setInvite(e.target.value)} /></div>`
    }
    <${ErrorNote} error=${error} onDismiss=${() => setError(null)} />
    <button type="submit" disabled=${busy}>Create tournament</button>
  </form>`;
}

export function TournamentsPage({ me }) {
  const [status, setStatus] = useState("");
  const [list, setList] = useState(null);
  const [mine, setMine] = useState([]);
  const [games, setGames] = useState(null);
  const [error, setError] = useState(null);
  const reload = () => {
    get(`tournaments${status ? `?status=${status}` : ""}`)
      .then((p) => setList(results(p)))
      .catch(setError);
    if (me) get("me/tournaments").then(setMine).catch(setError);
  };
  useEffect(reload, [status, me]);
  useEffect(() => {
    get("games").then(setGames).catch(setError);
  }, []);
  return html`<main class="tournaments">
    <h1>Tournaments</h1>
    <${ErrorNote} error=${error} onDismiss=${() => setError(null)} />
    ${
      me &&
      mine.length > 0 &&
      html`<section aria-labelledby="mine-h"><h2 id="mine-h">Yours</h2>
      <ul>${mine.map(
        (t) => html`<li key=${t.id}><${Link} href=${`/tournaments/${t.id}`}>${t.name}<//> · ${STATUS[t.status]}
        ${t.next_match && html` · <${Link} href=${`/matches/${t.next_match}`} data-next-match>your match<//>`}</li>`,
      )}</ul>
    </section>`
    }
    <section aria-labelledby="all-h"><h2 id="all-h">All tournaments</h2>
      <label for="t-status">Show</label>
      <select id="t-status" value=${status} onChange=${(e) => setStatus(e.target.value)}>
        <option value="">all</option>${Object.entries(STATUS).map(([k, v]) => html`<option value=${k}>${v}</option>`)}
      </select>
      ${
        list === null
          ? html`<p>Loading…</p>`
          : list.length === 0
            ? html`<p class="muted">None yet.</p>`
            : html`<ul class="matches">${list.map((t) => html`<${Row} key=${t.id} t=${t} me=${me} reload=${reload} setError=${setError} />`)}</ul>`
      }
    </section>
    ${
      me && games
        ? html`<${CreateTournament} games=${games} />`
        : !me && html`<p><${Link} href="/signin?next=/tournaments">Sign in<//> to create or join a tournament.</p>`
    }
  </main>`;
}

function Standings({ rows, size }) {
  if (!rows.length) return html`<p class="muted">No entrants yet.</p>`;
  return html`<table class="standings" data-standings>
    <thead><tr><th>#</th><th>Player</th><th>Points</th><th title="Buchholz">Buchholz</th>
      <th title="Sonneborn–Berger">S–B</th><th>Played</th><th>Seats (1–${size})</th></tr></thead>
    <tbody>${rows.map(
      (r) => html`<tr key=${r.username} data-standing=${r.username}>
      <td>${r.rank}</td><td><${Link} href=${`/users/${r.username}`}>${r.username}<//>${r.withdrawn ? " (withdrawn)" : ""}</td>
      <td data-points>${r.points}</td><td>${r.buchholz}</td><td>${r.sonneborn_berger}</td><td>${r.played}</td>
      <td>${r.seats.join(" / ")}</td></tr>`,
    )}</tbody>
  </table>`;
}

function RoundView({ id, number }) {
  const [r, setR] = useState(null);
  const [error, setError] = useState(null);
  useEffect(() => {
    get(`tournaments/${id}/rounds/${number}`).then(setR).catch(setError);
  }, [id, number]);
  if (error) return html`<${ErrorNote} error=${error} />`;
  if (!r) return html`<p>Loading round ${number}…</p>`;
  return html`<section data-round=${number} aria-label=${`Round ${number}`}>
    <h3>Round ${number}</h3>
    <p class="muted">Paired ${when(r.paired_at)} · deadline ${when(r.deadline)}${r.finished_at ? " · finished" : ""}</p>
    <ol>${r.tables.map(
      (tb) => html`<li key=${tb.index} data-table=${tb.index}>
      ${tb.seats.map((name, i) => html`${i ? ", " : ""}${name}${tb.points ? ` (${tb.points[i]})` : ""}`)}${" · "}<${Link} href=${`/matches/${tb.match}`}>${tb.status === "active" ? "watch" : "see"} the match<//>
      ${tb.adjudicated ? " · adjudicated" : ""}</li>`,
    )}</ol>
    ${r.byes.length > 0 && html`<p>Byes: ${r.byes.map((b) => `${b.username} (${b.points})`).join(", ")}</p>`}
  </section>`;
}

export function TournamentPage({ id, me }) {
  const [t, setT] = useState(null);
  const [rows, setRows] = useState([]);
  const [error, setError] = useState(null);
  const load = () => {
    get(`tournaments/${id}`).then(setT).catch(setError);
    get(`tournaments/${id}/standings`).then(setRows).catch(setError);
  };
  useEffect(load, [id]);
  if (!t) return html`<main>${error ? html`<${ErrorNote} error=${error} />` : html`<p>Loading…</p>`}</main>`;
  const rounds = Array.from({ length: t.round }, (_, i) => t.round - i);
  return html`<main class="tournament" data-tournament-status=${t.status}>
    <h1>${t.name}</h1>
    <p>${gameName(t.game)} · ${FORMATS[t.format]}, tables of ${t.table_size} · ${t.players}/${t.max_players} players
      · <strong>${STATUS[t.status]}</strong>${t.round ? ` · round ${t.round}${t.format === "swiss" ? ` of ${t.rounds}` : ""}` : ""}
      ${t.round_deadline && t.status === "running" ? ` · round deadline ${when(t.round_deadline)}` : ""}</p>
    <p class="muted">Points by place: ${t.points.join(" / ")} · ties broken by Buchholz, then Sonneborn–Berger.
      A timeout ${t.time_control.on_timeout === "forfeit" ? "forfeits" : "plays the default move"}.</p>
    <${ErrorNote} error=${error} onDismiss=${() => setError(null)} />
    <p class="actions"><${JoinButton} t=${t} me=${me} onDone=${load} onError=${setError} />
      ${t.next_match && html` <${Link} href=${`/matches/${t.next_match}`} data-next-match>Your match<//>`}</p>
    <section aria-labelledby="standings-h"><h2 id="standings-h">Standings</h2><${Standings} rows=${rows} size=${t.table_size} /></section>
    ${
      rounds.length > 0 &&
      html`<section aria-labelledby="rounds-h"><h2 id="rounds-h">Rounds</h2>
      ${rounds.map((n) => html`<${RoundView} key=${n} id=${id} number=${n} />`)}</section>`
    }
    ${t.status === "open" && html`<section><h2>Entrants</h2><ul>${t.entrants.map((e) => html`<li key=${e.username}>${e.username}</li>`)}</ul></section>`}
  </main>`;
}
