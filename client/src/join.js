/**
 * {@link join}: lets a player in from any page, with no operator token: the
 * server seats the player in a world of the game with room, or starts one
 * (`POST /play`, on a server started with `host serve --play GAME`; a page
 * of another site needs `--allow-origin` for its origin).
 */

import { GameClient } from "./client.js";

/**
 * @typedef {import("./client.js").GameClientOptions} GameClientOptions
 * @typedef {(url: string, init: { method: string, headers: Record<string, string>, body: string }) =>
 *   Promise<{ status: number, headers: { get(name: string): string | null }, text(): Promise<string> }>} FetchLike
 *   What `join` needs of `fetch` (the platform's, or a package's).
 */

/**
 * `join`'s options: the client's, but for what the server's answer gives.
 * @typedef {Omit<GameClientOptions, "server" | "world" | "token"> & { fetch?: FetchLike }} JoinOptions
 */

/**
 * The server did not let the player in: its status, and when to try again
 * (with a 429). A page of an origin the server does not allow sees status 0:
 * the browser withholds the server's answer (403) from it.
 */
export class JoinError extends Error {
  /**
   * @param {string} message
   * @param {number} status
   * @param {number | undefined} retryAfterSeconds
   */
  constructor(message, status, retryAfterSeconds) {
    super(message);
    this.name = "JoinError";
    /** The server's HTTP status (0: it could not be reached). */
    this.status = status;
    /** Seconds the server asked to wait before joining again, if it said. */
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/**
 * Joins `game` on `server` and connects: resolves with the player's
 * connected client (its `player` set by the first snapshot), or rejects with
 * a {@link JoinError} that says why the server refused.
 *
 * ```js
 * const client = await join("https://play.example", "arena");
 * client.on("enter", (e) => console.log(`${e.name} came into view`));
 * ```
 * @param {string} server The server: `http://HOST:PORT` (or `https:`, `ws:`, `wss:`).
 * @param {string} game The game's name, as the server was started with (`--play NAME`).
 * @param {JoinOptions} [options]
 * @returns {Promise<GameClient>}
 */
export async function join(server, game, options = {}) {
  const { fetch: fetchOption, ...clientOptions } = options;
  const url = new URL("/play", server);
  url.protocol = url.protocol === "wss:" ? "https:" : url.protocol === "ws:" ? "http:" : url.protocol;
  const send = fetchOption ?? /** @type {{ fetch?: FetchLike }} */ (globalThis).fetch;
  if (send === undefined) throw new JoinError("no fetch: give one in the options", 0, undefined);
  let response;
  try {
    response = await send(url.toString(), {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ game }),
    });
  } catch (error) {
    throw new JoinError(`${url.origin} could not be reached: ${error instanceof Error ? error.message : error}`, 0, undefined);
  }
  const text = await response.text();
  /** @type {{ world?: unknown, token?: unknown, error?: unknown }} */
  let body = {};
  try {
    body = JSON.parse(text);
  } catch {
    // Not the server's JSON (a proxy's page): said below.
  }
  if (response.status !== 201 || typeof body.world !== "number" || typeof body.token !== "string") {
    const why = typeof body.error === "string" ? body.error : text.slice(0, 200);
    const retry = Number(response.headers.get("retry-after"));
    throw new JoinError(
      `joining ${game} at ${url.origin} failed (${response.status}): ${why}`,
      response.status,
      Number.isFinite(retry) && retry > 0 ? retry : undefined,
    );
  }
  const client = new GameClient({ ...clientOptions, server, world: body.world, token: body.token });
  try {
    await client.connect();
  } catch (error) {
    // No retries: the seat, never streamed for, goes to another player
    // once it has stayed away a minute.
    client.close();
    throw new JoinError(
      `joined ${game} at ${url.origin}, but its stream did not open: ${error instanceof Error ? error.message : error}`,
      0,
      undefined,
    );
  }
  return client;
}
