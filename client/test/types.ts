// A TypeScript game's use of the library, checked by `tsc -p test` (in
// strict mode): the declarations give every event its arguments.

import { type Entity, GameClient, type GameClientOptions, join, JoinError, type Pose } from "../src/index.js";

const options: GameClientOptions = { server: "http://127.0.0.1:9464", world: 1, token: "t", format: "delta" };
const client = new GameClient(options);
const off: () => void = client.on("enter", (entity: Entity) => {
  const hp: unknown = entity.data["Health"]?.["hp"];
  console.log(entity.name, entity.position[0], hp);
});
off();
client.on("message", (channel: string, payload: string, frame: number) => console.log(channel, payload, frame));
client.on("leave", (id: number) => console.log(id));
client.on("status", (status) => {
  const known: "connecting" | "open" | "reconnecting" | "closed" = status;
  console.log(known);
});
const pose: Pose | undefined = client.pose(0);
const pressed: boolean = client.press("left");
console.log(pose, pressed, client.entities.size);
// @ts-expect-error: a handler of the wrong shape is refused.
client.on("leave", (entity: Entity) => console.log(entity));

// The public join: a connected client, or a JoinError that says why.
async function play(): Promise<number | undefined> {
  try {
    const joined: GameClient = await join("https://play.example", "arena", { format: "json" });
    return joined.player;
  } catch (error) {
    if (error instanceof JoinError) {
      const status: number = error.status;
      const retry: number | undefined = error.retryAfterSeconds;
      console.log(status, retry);
    }
    return undefined;
  }
}
void play();
// @ts-expect-error: the server's answer gives the world and the token.
void join("https://play.example", "arena", { world: 1 });
