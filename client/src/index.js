/**
 * A typed client for game-host worlds' player streams.
 *
 * ```js
 * import { GameClient } from "@game-host/client";
 *
 * const client = new GameClient({ server: "http://127.0.0.1:9464", world: 1, token });
 * // or, on a server that lets players join from pages (`host serve --play arena`):
 * // const client = await join("https://play.example", "arena");
 * client.on("enter", (e) => console.log(`${e.name} came into view`));
 * client.on("message", (channel, payload) => console.log(channel, payload));
 * await client.connect();
 * client.press("left");
 * requestAnimationFrame(function draw() {
 *   for (const id of client.entities.keys()) render(id, client.pose(id));
 *   requestAnimationFrame(draw);
 * });
 * ```
 *
 * The sources are JavaScript with JSDoc types, checked by `tsc` in strict
 * mode, which writes the declarations (`dist/*.d.ts`): the server serves
 * these very files to its view page (`/client/*.js`), with no build step
 * inside `cargo build`.
 */

export { GameClient } from "./client.js";
export { join, JoinError } from "./join.js";
export { decodeDelta, unpackRotation, ROTATION_BITS, SCALE_STEP } from "./delta.js";
export { DELTA_PROTOCOL, parseJson, ProtocolError } from "./protocol.js";
export { EntityTable } from "./table.js";
export { Prediction, loadPredictor } from "./predict.js";
export { predictorImports } from "./predictor_imports.js";

/**
 * @typedef {import("./client.js").Format} Format
 * @typedef {import("./client.js").GameClientEvents} GameClientEvents
 * @typedef {import("./client.js").GameClientOptions} GameClientOptions
 * @typedef {import("./client.js").Status} Status
 * @typedef {import("./client.js").WebSocketConstructor} WebSocketConstructor
 * @typedef {import("./client.js").SocketLike} SocketLike
 * @typedef {import("./protocol.js").ClientMessage} ClientMessage
 * @typedef {import("./protocol.js").EntityChange} EntityChange
 * @typedef {import("./protocol.js").EntityData} EntityData
 * @typedef {import("./protocol.js").EntityState} EntityState
 * @typedef {import("./protocol.js").FieldValue} FieldValue
 * @typedef {import("./protocol.js").Quat} Quat
 * @typedef {import("./protocol.js").ServerMessage} ServerMessage
 * @typedef {import("./protocol.js").Vec3} Vec3
 * @typedef {import("./table.js").Applied} Applied
 * @typedef {import("./table.js").Entity} Entity
 * @typedef {import("./table.js").Pose} Pose
 * @typedef {import("./protocol.js").Command} Command
 * @typedef {import("./predict.js").PredictOptions} PredictOptions
 * @typedef {import("./predict.js").PredictionStats} PredictionStats
 */
