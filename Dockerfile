# The server's image: `host` without the renderer (no wgpu, winit, Vulkan or
# X11 loader), with the fleet, Agones' SDK and TLS, and the game's script
# built into a component while the image is built: a pod never runs cargo.
#
#   podman build -t game-host .                       (or docker build)
#   podman run -p 9464:9464 -e GAME_HOST_CONTROL_TOKEN=a-long-secret game-host
#
# GAME picks the script: a Rust script crate in this checkout (an example's
# folder). The build stage has no componentize-py or -js: a Python,
# JavaScript or TypeScript script is built with `host build` beforehand and
# its .wasm copied in its place. The image listens on every
# address, so it needs a control token (GAME_HOST_CONTROL_TOKEN, or
# --control-token-file): without one it refuses to start, in one line.
# host/tests/image.rs checks this file: the last stage's command, run with
# the layout it gives, and the build's dependency tree.

FROM docker.io/library/rust:1.99-slim-trixie AS build
# protoc and the protos it imports: Agones' SDK compiles its gRPC
# definitions.
RUN apt-get update \
    && apt-get install -y --no-install-recommends protobuf-compiler libprotobuf-dev \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
# The toolchain rust-toolchain.toml pins, with its wasm32-wasip2 target, in
# a layer of its own (not fetched again when a source changes).
COPY rust-toolchain.toml .
RUN rustup toolchain install
COPY . .
RUN cargo build --release --locked -p game-host-cli --no-default-features --features fleet,agones,tls
ARG GAME=examples/arena
RUN mkdir -p /game && target/release/host build "$GAME" --no-cache --output /game/game.wasm

# glibc and libgcc, nothing else: no shell, no package manager.
FROM gcr.io/distroless/cc-debian13:nonroot
COPY --from=build /src/target/release/host /usr/local/bin/host
COPY --from=build /game /game
EXPOSE 9464
ENTRYPOINT ["/usr/local/bin/host"]
CMD ["serve", "/game/game.wasm", "--listen", "0.0.0.0:9464", "--max-worlds", "64"]
