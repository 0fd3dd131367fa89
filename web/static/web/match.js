// The match page (/matches/{id}): the board of its game, the move panel, clocks, the log, the result.
import { post } from "./api.js";
import { ecos } from "./games/ecos.js";
import { ekko } from "./games/ekko.js";
import { eko } from "./games/eko.js";
import { enka } from "./games/enka.js";
import { Agreements } from "./agreements.js";
import { InvitePanel } from "./players.js";
import { ChatPanel, NotesPanel, NudgeButtons } from "./talk.js";
import { formatDate, formatList, gameHas, gameT, t } from "./i18n.js";
import { Countdown, ErrorNote, Link, botLevel, gameName, html, navigate, seatName, useState, withParts } from "./ui.js";
import { useMatch } from "./useMatch.js";

export const GAMES = { ekko, enka, eko, ecos };

// A record's words: `record.<type>` in the interface's catalogue, filled with who and what.
const RECORD_WORDS = {
  created: () => t("ui.record.created"),
  seat_taken: (r, n) => t("ui.record.seat_taken", { name: n(r.seat) }),
  seat_left: (r, n) => t("ui.record.seat_left", { name: n(r.seat) }),
  bot_added: (r) => t("ui.record.bot_added", { level: botLevel(r.data?.level || ""), n: r.seat + 1 }),
  started: () => t("ui.record.started"),
  resigned: (r, n) => t("ui.record.resigned", { name: n(r.seat) }),
  drawn: () => t("ui.record.drawn"),
  conceded: (r, n) => t("ui.record.conceded", { name: n(r.data?.seat) }),
  cancelled: () => t("ui.record.cancelled"),
  time_granted: (r, n) =>
    t("ui.record.time_granted", { name: n(r.seat), count: Math.round((r.data?.seconds || 0) / 60) }),
  undone: (r, n) => t("ui.record.undone", { name: n(r.seat), seq: r.data?.to_seq }),
  paused: (r, n) =>
    r.data?.reason === "agreement"
      ? t("ui.record.paused_agreement", { until: formatDate(r.data.until) })
      : t("ui.record.paused_away", { name: n(r.seat) }),
  resumed: (r, n) =>
    r.data?.reason === "cap"
      ? t("ui.record.resumed_cap", { name: n(r.seat) })
      : t("ui.record.resumed", { name: n(r.seat) }),
  seat_returned: (r, n) => t("ui.record.seat_returned", { name: n(r.seat) }),
  timeout: (r, n) => t("ui.record.timeout", { name: n(r.seat) }),
  expired: () => t("ui.record.expired"),
  aborted: () => t("ui.record.aborted"),
  bot_took_over: (r, n) => t("ui.record.bot_took_over", { name: n(r.seat) }),
  adjudicated: () => t("ui.record.adjudicated"),
  finished: () => t("ui.record.finished"),
};

export function describeRecord(record, game, names) {
  const lines = [];
  const head = RECORD_WORDS[record.type];
  if (head && record.type !== "move") lines.push(head(record, names));
  for (const e of record.data?.effects || []) {
    const text = game.describeEffect?.(e, names);
    if (text) lines.push(text);
  }
  if (!lines.length && record.type === "move") lines.push(t("ui.record.moved", { name: names(record.seat) }));
  return lines;
}

// Why a match ended: the game's own words (`result.<reason>` in its catalogue), else the
// platform's (a draw or concession by agreement, a resignation, a tournament's adjudication).
const RESULT_REASONS = ["draw", "conceded", "adjudicated", "resignation", "resigned", "timeout", "cancelled"];
function reasonWords(reason, game) {
  if (game && gameHas(game, `result.${reason}`)) return gameT(game)(`result.${reason}`);
  if (RESULT_REASONS.includes(reason)) return t(`ui.result.reason.${reason}`);
  return reason.replaceAll("_", " ");
}

export function resultWords(result, names, game = null) {
  if (!result) return "";
  const winners = (result.winners || []).map(names);
  const who =
    winners.length === 0
      ? t("ui.result.nobody")
      : winners.length === 1
        ? t("ui.result.wins", { name: winners[0] })
        : t("ui.result.share", { names: formatList(winners) });
  const scores = formatList((result.scores || []).map((s, i) => t("ui.result.score", { name: names(i), score: s })));
  return result.reason
    ? t("ui.result.line_reason", { who, reason: reasonWords(result.reason, game), scores })
    : t("ui.result.line", { who, scores });
}

function awayWords(until, caretaker) {
  const date = formatDate(until, { dateStyle: "medium" });
  return caretaker ? t("ui.match.away_caretaker", { date }) : t("ui.match.away_until", { date });
}

function Seats({ summary, state, names, game }) {
  const awaiting = new Set(state?.awaiting || []);
  const deadlines = state?.deadlines?.seats || summary?.deadlines?.seats || {};
  return html`<ul class="seats" aria-label=${t("ui.match.players")}>
    ${summary.seats.map(
      (s) => html`<li key=${s.index} class=${awaiting.has(s.index) ? "to-move" : ""}>
      <span class="dot seat-${s.index}" aria-hidden="true"></span>
      ${s.username ? html`<${Link} href=${`/users/${s.username}`}>${s.username}<//>` : names(s.index)}
      ${state?.you === s.index ? html` <span class="muted">${t("ui.match.you_mark")}</span>` : ""}
      ${s.resigned ? html` <span class="muted">${t("ui.match.resigned_mark")}</span>` : ""}
      ${state?.seats?.[s.index]?.away_until || s.away_until ? html` <span class="away" data-away=${s.index}>${awayWords(state?.seats?.[s.index]?.away_until || s.away_until, s.caretaker)}</span>` : ""}
      ${awaiting.has(s.index) ? html` <span class="turn">${t("ui.match.to_move")}</span>` : ""}
      ${game?.seatExtra?.(state?.view, s.index)}
      ${deadlines[String(s.index)]?.deadline && html` <${Countdown} deadline=${deadlines[String(s.index)].deadline} />`}
    </li>`,
    )}
  </ul>`;
}

// A group of moves is headed by its type in the game's words (`group.<type>`, a short name without
// parameters), else by the code.
const groupName = (game, type) =>
  gameHas(game, `group.${type}`) ? gameT(game)(`group.${type}`) : type.replaceAll("_", " ");

function MovePanel({ game, moves, describe, onMove, busy, highlight }) {
  if (!moves.length) return html`<p class="muted">${t("ui.match.no_move")}</p>`;
  const groups = new Map();
  for (const m of moves) {
    const key = m.type;
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key).push(m);
  }
  return html`${[...groups.entries()].map(
    ([type, list]) => html`<div class="move-group" key=${type}>
    <h3>${groupName(game, type)}</h3>
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
    return html`<main><h1>${t("ui.match.title")}</h1><${ErrorNote} error=${fatal} /><p><${Link} href="/lobby">${t("ui.match.back_to_lobby")}<//></p></main>`;
  if (!summary || !state) return html`<main><p>${t("ui.common.loading")}</p></main>`;

  const game = GAMES[summary.game] || {
    Board: () => null,
    describeMove: (m) => JSON.stringify(m),
    describeEffect: () => null,
  };
  const names = (seat) => (seat === null || seat === undefined ? t("ui.match.someone") : seatName(summary, seat));
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
        ? t("ui.match.waiting_for", {
            names: formatList(state.awaiting.map((s) => (s === state.you ? t("ui.match.you") : names(s)))),
          })
        : t("ui.match.waiting_for_server")
      : state.status === "open"
        ? t("ui.match.status_open")
        : state.status === "finished"
          ? t("ui.match.over")
          : state.status === "aborted"
            ? t("ui.match.aborted")
            : state.status;
  const youToMove = seated && state.awaiting.includes(state.you);
  // A takeback by consent goes back to just before my last move (the server refuses one that would cross a reveal).
  const myLast = records.filter((r) => r.seat === state.you && r.type === "move").at(-1);
  const takebackTo = summary.options?.takebacks === "by_consent" && myLast ? myLast.seq - 1 : null;

  return html`<main class=${`match game-${summary.game}`} data-version=${state.version} data-status=${state.status}>
    <header class="match-head">
      <h1>${gameName(summary.game)} <small><${Link} href=${`/rules/${summary.game}`} data-rules-link>${t("ui.lobby.how_to_play")}<//></small></h1>
      <p class="status" aria-live="polite">${youToMove ? html`<strong class="your-turn">${t("ui.match.your_turn")}</strong> ` : ""}${turnWords}
        ${state.deadlines?.timer && html` <span>${withParts(t("ui.match.timer"), { clock: html`<${Countdown} deadline=${state.deadlines.timer} />` })}</span>`}</p>
    </header>
    <${Seats} summary=${summary} state=${state} names=${names} game=${game} />
    <${NudgeButtons} id=${id} state=${state} summary=${summary} names=${names} />
    ${
      state.since_your_last &&
      state.since_your_last.records.length > 0 &&
      html`<section class="since" data-since aria-labelledby="since-h">
      <h2 id="since-h">${t("ui.match.since_your_last")}</h2>
      ${state.since_your_last.more > 0 && html`<p class="muted">${t("ui.match.since_more", { count: state.since_your_last.more })}</p>`}
      <ol>${state.since_your_last.records.flatMap((r) => describeRecord(r, game, names).map((line, i) => html`<li key=${`${r.seq}.${i}`}>${line}</li>`))}</ol>
    </section>`
    }
    <${ErrorNote} error=${error} onDismiss=${() => setError(null)} />
    ${
      state.result &&
      html`<section class="result" data-result=${JSON.stringify(state.result)} aria-live="polite">
      <h2>${t("ui.match.result")}</h2><p>${resultWords(state.result, names, summary.game)}</p>
      ${
        summary.rematch
          ? html`<p><${Link} href=${`/matches/${summary.rematch}`} data-rematch-link>${t("ui.match.go_to_rematch")}<//></p>`
          : seated &&
            state.status === "finished" &&
            html`<p><button type="button" data-rematch disabled=${busy}
          onClick=${() =>
            act(async () => {
              const next = await post(`matches/${id}/rematch`, {});
              navigate(`/matches/${next.id}`);
            })}>${t("ui.match.rematch")}</button></p>`
      }
    </section>`
    }
    ${
      summary.status === "open" &&
      html`<section class="open-match">
      <h2>${t("ui.match.waiting_for_players")}</h2>
      <p>${withParts(t("ui.match.share"), { link: html`<code class="share">${location.origin}/matches/${id}</code>` })}</p>
      ${
        !seated &&
        freeSeats.length > 0 &&
        (me
          ? html`<button type="button" onClick=${() => command("join")} disabled=${busy}>${t("ui.match.join")}</button>`
          : html`<p>${withParts(t("ui.match.sign_in_to_join"), { link: html`<${Link} href=${`/signin?next=${encodeURIComponent(location.pathname)}`}>${t("ui.nav.sign_in")}<//>` })}</p>`)
      }
      ${seated && html`<button type="button" onClick=${() => command("leave")} disabled=${busy}>${t("ui.match.leave")}</button>`}
      ${seated && html`<${InvitePanel} id=${id} />`}
      ${summary.created_by === me && freeSeats.length > 0 && html` <button type="button" onClick=${() => command("bots", { seat: freeSeats[0].index, level: "random" })} disabled=${busy}>${t("ui.match.add_bot", { n: freeSeats[0].index + 1 })}</button>`}
    </section>`
    }
    <div class="table">
      <section class="board" aria-label=${t("ui.match.board")} data-board=${summary.game} tabindex="0">
        ${
          view &&
          html`<${game.Board} view=${view} state=${state} summary=${summary} names=${names} moves=${moves}
          selected=${selected} onSelect=${setSelected} onMove=${play} busy=${busy} last=${lastPlay} />`
        }
        ${lastPlay && html`<p class="last-words" data-last-move=${lastPlay.seq}><strong>${t("ui.match.last")}</strong> ${describeRecord(lastPlay, game, names).join(" ")}</p>`}
      </section>
      <aside class="panel" aria-label=${t("ui.match.your_moves")} data-panel="moves">
        <h2>${t("ui.match.moves")}</h2>
        ${
          seated
            ? html`<${MovePanel} game=${summary.game} moves=${moves} describe=${(m) => game.describeMove(m, view, names)} onMove=${play} busy=${busy}
          highlight=${game.highlight ? (m) => game.highlight(m, selected) : null} />`
            : html`<p class="muted" data-watching>${t("ui.match.watching")}${me ? "" : html` ${withParts(t("ui.match.sign_in_to_play"), { link: html`<${Link} href=${`/signin?next=${encodeURIComponent(location.pathname)}`}>${t("ui.nav.sign_in")}<//>` })}`}</p>`
        }
        ${seated && state.can_undo && html`<p><button type="button" data-undo onClick=${undo} disabled=${busy}>${t("ui.match.undo")}</button></p>`}
        ${
          seated &&
          state.status === "active" &&
          !summary.seats[state.you]?.resigned &&
          html`<div class="resign">
          ${
            confirmResign
              ? html`<p>${t("ui.match.resign_confirm")}</p><button type="button" class="danger" onClick=${() => {
                  setConfirmResign(false);
                  command("resign");
                }}>${t("ui.match.resign_yes")}</button>
               <button type="button" onClick=${() => setConfirmResign(false)}>${t("ui.match.keep_playing")}</button>`
              : html`<button type="button" class="danger" onClick=${() => setConfirmResign(true)}>${t("ui.match.resign")}</button>`
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
      <h2 id="log-h">${t("ui.match.log")}</h2>
      ${state.version > 0 && html`<p><${Link} href=${`/matches/${id}?at=${state.version}`} data-replay-link>${t("ui.match.replay_link")}<//></p>`}
      <ol reversed tabindex="0" aria-labelledby="log-h">${log.slice(0, 60).map((l) => html`<li key=${l.key} class=${l.seq === lastPlay?.seq ? "last" : ""}>${l.line}</li>`)}</ol>
    </section>
  </main>`;
}
