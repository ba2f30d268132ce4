// A strict TypeScript client of castle-referee, typed only by the types
// openapi-typescript generates from /openapi.json (./api.d.ts, made by the test)
// and called through openapi-fetch. It must compile with `tsc --strict` and no
// cast, then it plays a whole game of King of Danger against the server named on
// its command line, exports the log and audits it. tests/test_openapi_typescript.py
// runs it; docs/api.md says how to by hand.
import createClient from "openapi-fetch";
import type { components, paths } from "./api.js";

type Move = components["schemas"]["Move"];
type Summary = components["schemas"]["Summary"];

const base = process.argv[2];
if (base === undefined) throw new Error("usage: node play_a_game.js BASE_URL");
const api = createClient<paths>({ baseUrl: base });

// Every move type narrows to its own fields: the union is discriminated by `type`.
function say(move: Move): string {
  switch (move.type) {
    case "play": return ["play", move.card, move.suit ?? "", move.take ?? ""].join(" ").trim();
    case "move": return `${move.from}-${move.to}`;
    case "add": case "smuggle": return `${move.type} ${move.piece}`;
    case "build": case "demolish": case "reveal": return `${move.type} ${move.at}`;
    case "fire": return `fire ${move.from} ${move.at}`;
    case "discard": return `discard ${move.cards.join(" ")}`;
    case "react": return `react ${move.card}`;
    case "choose": return `choose ${move.squires?.join(" ") ?? move.take ?? ""}`;
    case "standing": return `standing ${move.answer}`;
    default: return move.type;
  }
}

let state = 12345;
function pick<T>(items: T[]): T {
  state = (state * 1103515245 + 12345) % 2147483648;
  const item = items[state % items.length];
  if (item === undefined) throw new Error("nothing to pick from");
  return item;
}

function bearer(token: string): { Authorization: string } {
  return { Authorization: `Bearer ${token}` };
}

async function summary(game_id: string): Promise<Summary> {
  const { data, error } = await api.GET("/v1/games/{game_id}", { params: { path: { game_id } } });
  if (data === undefined) throw new Error(`summary: ${error?.code}`);
  return data;
}

async function main(): Promise<void> {
  const created = await api.POST("/v1/games", {
    body: { game: "king-of-danger", players: ["Ann", { name: "Bob" }, "Cy"], options: { target: 12, seed: "ts" } },
  });
  if (created.data === undefined) throw new Error(`create: ${created.error?.detail}`);
  const game_id = created.data.id;
  const tokens = new Map<number, string>();
  for (const seat of created.data.seats) {
    if (seat.token !== undefined) tokens.set(seat.seat, seat.token);
  }
  let version: number = created.data.version;
  let moves = 0;
  for (let s = await summary(game_id); s.status === "active"; s = await summary(game_id)) {
    if (s.version !== version) throw new Error(`the last answer said version ${version}, the game is at ${s.version}`);
    const seat = pick(s.to_act);
    const token = tokens.get(seat);
    if (token === undefined) throw new Error(`no token for seat ${seat}`);
    const legal = await api.GET("/v1/games/{game_id}/legal", { params: { path: { game_id } }, headers: bearer(token) });
    if (legal.data === undefined) throw new Error(`legal: ${legal.error?.code}`);
    const choices = legal.data.moves.filter((m) => m.type !== "resign");
    const move = pick(choices);
    const done = await api.POST("/v1/games/{game_id}/moves", {
      params: { path: { game_id }, header: { "Idempotency-Key": `ts-${moves}` } },
      headers: bearer(token),
      body: { move, expected_version: version },
    });
    if (done.data === undefined) throw new Error(`${say(move)}: ${done.error?.code} ${done.error?.detail}`);
    version = done.data.version;
    moves += 1;
  }
  const end = await summary(game_id);
  if (end.status !== "finished" || end.result === null) throw new Error(`the game did not finish: ${end.status}`);
  const winners: number[] = end.result.winners;
  const exported = await api.GET("/v1/games/{game_id}/export", { params: { path: { game_id } }, parseAs: "text" });
  if (exported.data === undefined) throw new Error("export refused");
  const report = await api.POST("/v1/audit", {
    body: exported.data,
    bodySerializer: (body: string) => body,
    headers: { "Content-Type": "application/octet-stream" },
  });
  if (report.data === undefined) throw new Error(`audit: ${report.error?.code}`);
  if (!report.data.valid || report.data.first_error !== null) throw new Error("the export does not audit");
  const events = await api.GET("/v1/games/{game_id}/events", { params: { path: { game_id }, query: { limit: 1000 } } });
  if (events.data === undefined) throw new Error("events refused");
  const referee = events.data.events.filter((e) => e.actor === "referee").length;
  console.log(JSON.stringify({ moves, version, winners, referee, audit: report.data.seed }));
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
