// The match page (/matches/{id}): the board of its game, the move panel, clocks, the log, the result.
import { post } from "./api.js";
import { ecos } from "./games/ecos.js";
import { ekko } from "./games/ekko.js";
import { eko } from "./games/eko.js";
import { enka } from "./games/enka.js";
import { Agreements } from "./agreements.js";
import { InvitePanel } from "./players.js";
import { ChatPanel, NotesPanel, NudgeButtons } from "./talk.js";
import { Countdown, ErrorNote, Link, gameName, html, navigate, seatName, useState } from "./ui.js";
import { useMatch } from "./useMatch.js";

export const GAMES = { ekko, enka, eko, ecos };

const RECORD_WORDS = {
  created: () => "Match created.",
  seat_taken: (r, n) => `${n(r.seat)} took a seat.`,
  seat_left: (r, n) => `${n(r.seat)} left.`,
  bot_added: (r) => `A ${r.data?.level || ""} bot took seat ${r.seat + 1}.`,
  started: () => "The match started.",
  resigned: (r, n) => `${n(r.seat)} resigned.`,
  drawn: () => "The players agreed to a draw.",
  conceded: (r, n) => `The players agreed that ${n(r.data?.seat)} wins.`,
  cancelled: () => "The players agreed to cancel the match (unrated).",
  time_granted: (r, n) => `${n(r.seat)} was given ${Math.round((r.data?.seconds || 0) / 60)} more minutes.`,
  undone: (r, n) => `${n(r.seat)} took the last move back (back to record ${r.data?.to_seq}).`,
  paused: (r, n) =>
    r.data?.reason === "agreement"
      ? `The players agreed to pause the clocks until ${new Date(r.data.until).toLocaleString()}.`
      : `${n(r.seat)} is away: their clock is frozen.`,
  resumed: (r, n) => `${n(r.seat)}'s clock runs again${r.data?.reason === "cap" ? " (the away limit)" : ""}.`,
  seat_returned: (r, n) => `${n(r.seat)} is back and takes the seat from the caretaker bot.`,
  timeout: (r, n) => `${n(r.seat)} ran out of time.`,
  expired: () => "The timer ran out.",
  aborted: () => "The match was aborted.",
  finished: () => "The match is over.",
};

export function describeRecord(record, game, names) {
  const lines = [];
  const head = RECORD_WORDS[record.type];
  if (head && record.type !== "move" && record.type !== "started") lines.push(head(record, names));
  if (record.type === "started") lines.push("The match started.");
  for (const e of record.data?.effects || []) {
    const text = game.describeEffect?.(e, names);
    if (text) lines.push(text);
  }
  if (!lines.length && record.type === "move") lines.push(`${names(record.seat)} moved.`);
  return lines;
}

export function resultWords(result, names) {
  if (!result) return "";
  const winners = (result.winners || []).map(names);
  const who =
    winners.length === 0
      ? "Nobody wins"
      : winners.length === 1
        ? `${winners[0]} wins`
        : `${winners.join(" and ")} share the win`;
  const reason = result.reason ? ` (${result.reason.replaceAll("_", " ")})` : "";
  const scores = (result.scores || []).map((s, i) => `${names(i)} ${s}`).join(", ");
  return `${who}${reason}. Scores: ${scores}.`;
}

function Seats({ summary, state, names, game }) {
  const awaiting = new Set(state?.awaiting || []);
  const deadlines = state?.deadlines?.seats || summary?.deadlines?.seats || {};
  return html`<ul class="seats" aria-label="Players">
    ${summary.seats.map(
      (s) => html`<li key=${s.index} class=${awaiting.has(s.index) ? "to-move" : ""}>
      <span class="dot seat-${s.index}" aria-hidden="true"></span>
      ${s.username ? html`<${Link} href=${`/users/${s.username}`}>${s.username}<//>` : names(s.index)}
      ${state?.you === s.index ? html` <span class="muted">(you)</span>` : ""}
      ${s.resigned ? html` <span class="muted">resigned</span>` : ""}
      ${state?.seats?.[s.index]?.away_until || s.away_until ? html` <span class="away" data-away=${s.index}>away until ${new Date(state?.seats?.[s.index]?.away_until || s.away_until).toLocaleDateString()}${s.caretaker ? " (a bot keeps the seat)" : ""}</span>` : ""}
      ${awaiting.has(s.index) ? html` <span class="turn">to move</span>` : ""}
      ${game?.seatExtra?.(state?.view, s.index)}
      ${deadlines[String(s.index)]?.deadline && html` <${Countdown} deadline=${deadlines[String(s.index)].deadline} />`}
    </li>`,
    )}
  </ul>`;
}

function MovePanel({ moves, describe, onMove, busy, highlight }) {
  if (!moves.length) return html`<p class="muted">No move for you right now.</p>`;
  const groups = new Map();
  for (const m of moves) {
    const key = m.type;
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key).push(m);
  }
  return html`${[...groups.entries()].map(
    ([type, list]) => html`<div class="move-group" key=${type}>
    <h3>${type.replaceAll("_", " ")}</h3>
    <div class="moves">${list.map((m) => {
      const json = JSON.stringify(m);
      return html`<button type="button" class=${"move" + (highlight?.(m) ? " hl" : "")} data-move=${json} disabled=${busy}
        onClick=${() => onMove(m)}>${describe(m)}</button>`;
    })}</div></div>`,
  )}`;
}

export function MatchPage({ id, me }) {
  const [selected, setSelected] = useState(null);
  const [confirmResign, setConfirmResign] = useState(false);
  const { summary, state, records, error, setError, fatal, busy, act, play, undo, command, refresh } = useMatch(id, {
    onPlayed: () => setSelected(null),
  });

  if (fatal)
    return html`<main><h1>Match</h1><${ErrorNote} error=${fatal} /><p><${Link} href="/lobby">Back to the lobby<//></p></main>`;
  if (!summary || !state) return html`<main><p>Loading…</p></main>`;

  const game = GAMES[summary.game] || {
    Board: () => null,
    describeMove: (m) => JSON.stringify(m),
    describeEffect: () => null,
  };
  const names = (seat) => (seat === null || seat === undefined ? "Someone" : seatName(summary, seat));
  const view = state.view;
  const moves = state.legal_moves || [];
  const seated = state.you !== null && state.you !== undefined;

  const freeSeats = summary.seats.filter((s) => !s.username && !s.bot);
  // The last move (or timeout) and what it did: outlined on the board, in words under it, marked in the log.
  const lastPlay = records.filter((r) => r.type === "move" || r.type === "timeout").at(-1) || null;
  const names2 = names;
  const log = records
    .slice()
    .reverse()
    .flatMap((r) => describeRecord(r, game, names2).map((line, i) => ({ key: `${r.seq}.${i}`, line, seq: r.seq })));
  const turnWords =
    state.status === "active"
      ? state.awaiting.length
        ? `Waiting for ${state.awaiting.map((s) => (s === state.you ? "you" : names(s))).join(", ")}`
        : "Waiting for the server"
      : state.status === "open"
        ? "Waiting for players"
        : state.status === "finished"
          ? "The match is over"
          : state.status;
  const youToMove = seated && state.awaiting.includes(state.you);
  // A takeback by consent goes back to just before my last move (the server refuses one that would cross a reveal).
  const myLast = records.filter((r) => r.seat === state.you && r.type === "move").at(-1);
  const takebackTo = summary.options?.takebacks === "by_consent" && myLast ? myLast.seq - 1 : null;

  return html`<main class=${`match game-${summary.game}`} data-version=${state.version} data-status=${state.status}>
    <header class="match-head">
      <h1>${gameName(summary.game)} <small><${Link} href=${`/rules/${summary.game}`} data-rules-link>How to play<//></small></h1>
      <p class="status" aria-live="polite">${youToMove ? html`<strong class="your-turn">Your turn.</strong> ` : ""}${turnWords}.
        ${state.deadlines?.timer && html` <span>Timer: <${Countdown} deadline=${state.deadlines.timer} /></span>`}</p>
    </header>
    <${Seats} summary=${summary} state=${state} names=${names} game=${game} />
    <${NudgeButtons} id=${id} state=${state} summary=${summary} names=${names} />
    ${
      state.since_your_last &&
      state.since_your_last.records.length > 0 &&
      html`<section class="since" data-since aria-labelledby="since-h">
      <h2 id="since-h">Since your last move</h2>
      ${state.since_your_last.more > 0 && html`<p class="muted">…and ${state.since_your_last.more} earlier record(s), in the log.</p>`}
      <ol>${state.since_your_last.records.flatMap((r) => describeRecord(r, game, names).map((line, i) => html`<li key=${`${r.seq}.${i}`}>${line}</li>`))}</ol>
    </section>`
    }
    <${ErrorNote} error=${error} onDismiss=${() => setError(null)} />
    ${
      state.result &&
      html`<section class="result" data-result=${JSON.stringify(state.result)} aria-live="polite">
      <h2>Result</h2><p>${resultWords(state.result, names)}</p>
      ${
        summary.rematch
          ? html`<p><${Link} href=${`/matches/${summary.rematch}`} data-rematch-link>Go to the rematch<//></p>`
          : seated &&
            state.status === "finished" &&
            html`<p><button type="button" data-rematch disabled=${busy}
          onClick=${() =>
            act(async () => {
              const next = await post(`matches/${id}/rematch`, {});
              navigate(`/matches/${next.id}`);
            })}>Rematch</button></p>`
      }
    </section>`
    }
    ${
      summary.status === "open" &&
      html`<section class="open-match">
      <h2>Waiting for players</h2>
      <p>Share this link to invite someone: <code class="share">${location.origin}/matches/${id}</code></p>
      ${
        !seated &&
        freeSeats.length > 0 &&
        (me
          ? html`<button type="button" onClick=${() => command("join")} disabled=${busy}>Join this match</button>`
          : html`<p><${Link} href=${`/signin?next=${encodeURIComponent(location.pathname)}`}>Sign in<//> to join this match.</p>`)
      }
      ${seated && html`<button type="button" onClick=${() => command("leave")} disabled=${busy}>Leave</button>`}
      ${seated && html`<${InvitePanel} id=${id} />`}
      ${summary.created_by === me && freeSeats.length > 0 && html` <button type="button" onClick=${() => command("bots", { seat: freeSeats[0].index, level: "random" })} disabled=${busy}>Add a bot to seat ${freeSeats[0].index + 1}</button>`}
    </section>`
    }
    <div class="table">
      <section class="board" aria-label="Board" data-board=${summary.game} tabindex="0">
        ${
          view &&
          html`<${game.Board} view=${view} state=${state} summary=${summary} names=${names} moves=${moves}
          selected=${selected} onSelect=${setSelected} onMove=${play} busy=${busy} last=${lastPlay} />`
        }
        ${lastPlay && html`<p class="last-words" data-last-move=${lastPlay.seq}><strong>Last:</strong> ${describeRecord(lastPlay, game, names).join(" ")}</p>`}
      </section>
      <aside class="panel" aria-label="Your moves" data-panel="moves">
        <h2>Moves</h2>
        ${
          seated
            ? html`<${MovePanel} moves=${moves} describe=${(m) => game.describeMove(m, view, names)} onMove=${play} busy=${busy}
          highlight=${game.highlight ? (m) => game.highlight(m, selected) : null} />`
            : html`<p class="muted" data-watching>You are watching: this is the public view.${me ? "" : html` <${Link} href=${`/signin?next=${encodeURIComponent(location.pathname)}`}>Sign in<//> to play.`}</p>`
        }
        ${seated && state.can_undo && html`<p><button type="button" data-undo onClick=${undo} disabled=${busy}>Undo my last move</button></p>`}
        ${
          seated &&
          state.status === "active" &&
          !summary.seats[state.you]?.resigned &&
          html`<div class="resign">
          ${
            confirmResign
              ? html`<p>Resign this match?</p><button type="button" class="danger" onClick=${() => {
                  setConfirmResign(false);
                  command("resign");
                }}>Yes, resign</button>
               <button type="button" onClick=${() => setConfirmResign(false)}>Keep playing</button>`
              : html`<button type="button" class="danger" onClick=${() => setConfirmResign(true)}>Resign</button>`
          }
        </div>`
        }
      </aside>
    </div>
    ${
      seated &&
      state.status === "active" &&
      !summary.seats[state.you]?.resigned &&
      html`<${Agreements} id=${id} state=${state}
      names=${names} seats=${summary.seats} takebackTo=${takebackTo}
      onChange=${refresh} />`
    }
    ${
      me &&
      html`<div class="talk">
      <${ChatPanel} id=${id} state=${state} me=${me} names=${names} />
      <${NotesPanel} id=${id} />
    </div>`
    }
    <section class="log" aria-labelledby="log-h">
      <h2 id="log-h">Log</h2>
      ${state.version > 0 && html`<p><${Link} href=${`/matches/${id}?at=${state.version}`} data-replay-link>Replay this match, step by step<//></p>`}
      <ol reversed tabindex="0" aria-labelledby="log-h">${log.slice(0, 60).map((l) => html`<li key=${l.key} class=${l.seq === lastPlay?.seq ? "last" : ""}>${l.line}</li>`)}</ol>
    </section>
  </main>`;
}
