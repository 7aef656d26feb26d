/**
 * A typed client for game-host worlds' player streams.
 *
 * ```ts
 * import { GameClient } from "@game-host/client";
 *
 * const client = new GameClient({ server: "http://127.0.0.1:9464", world: 1, token });
 * client.on("enter", (e) => console.log(`${e.name} came into view`));
 * client.on("message", (channel, payload) => console.log(channel, payload));
 * await client.connect();
 * client.press("left");
 * requestAnimationFrame(function draw() {
 *   for (const id of client.entities.keys()) render(id, client.pose(id));
 *   requestAnimationFrame(draw);
 * });
 * ```
 */

export { GameClient, type Format, type GameClientEvents, type GameClientOptions, type Status, type WebSocketConstructor } from "./client.js";
export { decodeDelta, unpackRotation, ROTATION_BITS } from "./delta.js";
export {
  DELTA_PROTOCOL,
  parseJson,
  ProtocolError,
  type ClientMessage,
  type EntityChange,
  type EntityData,
  type EntityState,
  type FieldValue,
  type Quat,
  type ServerMessage,
  type Vec3,
} from "./protocol.js";
export { EntityTable, type Applied, type Entity, type Pose } from "./table.js";
