// Play one match of every game with openapi-fetch and the types openapi-typescript generates
// from Tabula's OpenAPI document (schema.d.ts; see docs/clients.md). Two players register, one
// creates a two-seat match (short ones: SHORT), the other joins, and each plays the first of its
// legal moves, sent unchanged, until the match is over. Compiles under `tsc --strict`: no cast, no `any`.
//
//     node driver.js http://127.0.0.1:8000 [game ...]
import createClient, { type Client } from "openapi-fetch";
import type { components, paths } from "./schema.js";

type State = components["schemas"]["MatchState"];

// Options for short matches (still played to their end); any game not listed plays its defaults.
const SHORT: Record<string, Record<string, number>> = {
  ekko: { target_score: 5 },
  enka: { max_rounds: 1 },
  eko: { max_turns: 40 },
  ecos: { target_score: 3 },
};

async function register(baseUrl: string, name: string): Promise<Client<paths>> {
  const anonymous = createClient<paths>({ baseUrl });
  const { data, error } = await anonymous.POST("/api/v1/auth/register", {
    body: { username: name, password: "correct-horse-9" },
  });
  if (!data) throw new Error(`register ${name}: ${JSON.stringify(error)}`);
  return createClient<paths>({ baseUrl, headers: { Authorization: `Token ${data.token}` } });
}

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function stateOf(player: Client<paths>, matchId: string): Promise<State> {
  for (let tries = 1; ; tries += 1) {
    const { data, error, response } = await player.GET("/api/v1/matches/{match_id}/state", {
      params: { path: { match_id: matchId } },
    });
    if (data) return data;
    // a 503 (the database busy a moment) says: try again shortly
    if (response.status !== 503 || tries >= 5) throw new Error(`state of ${matchId}: ${JSON.stringify(error)}`);
    await pause(1000);
  }
}

async function play(baseUrl: string, game: string): Promise<number> {
  const tag = Math.random().toString(36).slice(2, 10);
  const players = [await register(baseUrl, `ann-${tag}`), await register(baseUrl, `ben-${tag}`)];
  const options = SHORT[game] ?? {};
  const created = await players[0].POST("/api/v1/matches", { body: { game, players: 2, options } });
  if (!created.data) throw new Error(`create a ${game} match: ${JSON.stringify(created.error)}`);
  const matchId = created.data.id;
  const joined = await players[1].POST("/api/v1/matches/{match_id}/join", {
    params: { path: { match_id: matchId } },
    body: {},
  });
  if (!joined.data) throw new Error(`join ${matchId}: ${JSON.stringify(joined.error)}`);
  let moves = 0;
  let unavailable = 0;
  for (;;) {
    const states = await Promise.all(players.map((player) => stateOf(player, matchId)));
    if (states[0].status !== "active") {
      const result = states[0].result;
      console.log(`${game}: ${moves} moves, ${states[0].status}, winners ${JSON.stringify(result?.winners)}`);
      return moves;
    }
    const seat = states.findIndex((state) => state.legal_moves.length > 0);
    if (seat < 0) throw new Error(`${matchId}: no seat can move (a timer is running)`);
    const state = states[seat];
    const move = state.legal_moves[0];
    const answer = await players[seat].POST("/api/v1/matches/{match_id}/moves", {
      params: { path: { match_id: matchId } },
      body: { move, expected_version: state.version },
    });
    if (!answer.data && answer.response.status === 503 && unavailable < 5) {
      unavailable += 1; // try again shortly: expected_version guards against a double move
      await pause(1000);
      continue;
    }
    if (!answer.data) throw new Error(`${matchId}: ${JSON.stringify(move)} refused: ${JSON.stringify(answer.error)}`);
    moves += 1;
  }
}

async function main(argv: string[]): Promise<void> {
  const baseUrl = argv[0] ?? "http://127.0.0.1:8000";
  const reader = await register(baseUrl, `reader-${Math.random().toString(36).slice(2, 10)}`);
  const catalogue = await reader.GET("/api/v1/games");
  if (!catalogue.data) throw new Error(`catalogue: ${JSON.stringify(catalogue.error)}`);
  const games = argv.length > 1 ? argv.slice(1) : catalogue.data.map((g) => g.id);
  let total = 0;
  for (const game of games) total += await play(baseUrl, game);
  console.log(`${games.length} games, ${total} moves`);
}

main(process.argv.slice(2)).catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
