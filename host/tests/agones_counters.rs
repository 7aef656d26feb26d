//! `host serve --agones` keeps Agones' Counter `worlds` (the beta API) at
//! the worlds it holds, of a capacity of those and its free slots, for a
//! Counter `FleetAutoscaler`; a GameServer that declares no such Counter,
//! or an SDK server without Counters, gets one warning, the server going
//! on without them. dummy-agones serves no beta API: this test serves the
//! two Counter calls beside it, keeping the Counter in the GameServer's
//! status and answering as Agones' SDK server does (`pkg/sdkserver`: a
//! Counter not declared, or a count outside `0..=capacity`, is an error of
//! code Unknown naming it; a capacity below the count cuts the count).

mod common;

use std::convert::Infallible;
use std::time::Duration;

use common::agones::{game_server, wait_for};
use common::serve::request;
use dummy_agones::AgonesServer;
use dummy_agones::sdk::game_server::Status;
use dummy_agones::sdk::game_server::status::CounterStatus;
use dummy_agones::sdk::sdk_server::SdkServer;
use tonic09::codec::ProstCodec;
use tonic09::codegen::{BoxFuture, Context, Poll, Service, http};
use tonic09::server::{Grpc, NamedService, UnaryService};
use tonic09::{Code, Status as Refusal};

/// `agones.dev.sdk.beta.Counter`.
#[derive(Clone, PartialEq, prost::Message)]
struct Counter {
    #[prost(string, tag = "1")]
    name: String,
    #[prost(int64, tag = "2")]
    count: i64,
    #[prost(int64, tag = "3")]
    capacity: i64,
}

/// `agones.dev.sdk.beta.GetCounterRequest`.
#[derive(Clone, PartialEq, prost::Message)]
struct GetCounterRequest {
    #[prost(string, tag = "1")]
    name: String,
}

/// `agones.dev.sdk.beta.CounterUpdateRequest` (count and capacity are
/// `google.protobuf.Int64Value`s).
#[derive(Clone, PartialEq, prost::Message)]
struct CounterUpdateRequest {
    #[prost(string, tag = "1")]
    name: String,
    #[prost(message, optional, tag = "2")]
    count: Option<i64>,
    #[prost(message, optional, tag = "3")]
    capacity: Option<i64>,
    #[prost(int64, tag = "4")]
    count_diff: i64,
}

/// `agones.dev.sdk.beta.UpdateCounterRequest`.
#[derive(Clone, PartialEq, prost::Message)]
struct UpdateCounterRequest {
    #[prost(message, optional, tag = "1")]
    counter_update_request: Option<CounterUpdateRequest>,
}

/// The beta SDK's Counter calls, on the GameServer `AgonesServer` holds.
#[derive(Clone)]
struct Beta(AgonesServer);

impl NamedService for Beta {
    const NAME: &'static str = "agones.dev.sdk.beta.SDK";
}

impl Beta {
    fn counter(&self, name: &str) -> Result<Counter, Box<Refusal>> {
        let status = self.0.game_server().status.unwrap_or_default();
        let counter = status
            .counters
            .get(name)
            .ok_or_else(|| Box::new(Refusal::unknown(format!("counter not found: {name}"))))?;
        Ok(Counter {
            name: name.to_owned(),
            count: counter.count,
            capacity: counter.capacity,
        })
    }

    fn update(&self, update: CounterUpdateRequest) -> Result<Counter, Box<Refusal>> {
        let mut counter = self.counter(&update.name)?;
        let out_of_range = |count: i64, capacity: i64| {
            Box::new(Refusal::unknown(format!(
                "out of range. Count must be within range [0,Capacity]. Found Count: {count}, \
                 Capacity: {capacity}"
            )))
        };
        if let Some(capacity) = update.capacity {
            if capacity < 0 {
                return Err(Box::new(Refusal::unknown("out of range. Capacity below 0")));
            }
            counter.capacity = capacity;
            counter.count = counter.count.min(capacity);
        }
        if let Some(count) = update.count {
            if !(0..=counter.capacity).contains(&count) {
                return Err(out_of_range(count, counter.capacity));
            }
            counter.count = count;
        }
        let count = counter.count + update.count_diff;
        if !(0..=counter.capacity).contains(&count) {
            return Err(out_of_range(count, counter.capacity));
        }
        counter.count = count;
        let mut server = self.0.game_server();
        let mut status = server.status.take().unwrap_or_default();
        status.counters.insert(
            counter.name.clone(),
            CounterStatus {
                count: counter.count,
                capacity: counter.capacity,
            },
        );
        server.status = Some(status);
        self.0.set_game_server(server);
        Ok(counter)
    }
}

impl UnaryService<GetCounterRequest> for Beta {
    type Response = Counter;
    type Future = BoxFuture<tonic09::Response<Counter>, Refusal>;

    fn call(&mut self, request: tonic09::Request<GetCounterRequest>) -> Self::Future {
        let answer = self.counter(&request.into_inner().name);
        Box::pin(async move {
            answer
                .map(tonic09::Response::new)
                .map_err(|refusal| *refusal)
        })
    }
}

impl UnaryService<UpdateCounterRequest> for Beta {
    type Response = Counter;
    type Future = BoxFuture<tonic09::Response<Counter>, Refusal>;

    fn call(&mut self, request: tonic09::Request<UpdateCounterRequest>) -> Self::Future {
        let answer = match request.into_inner().counter_update_request {
            Some(update) => self.update(update),
            None => Err(Box::new(Refusal::invalid_argument(
                "no counterUpdateRequest",
            ))),
        };
        Box::pin(async move {
            answer
                .map(tonic09::Response::new)
                .map_err(|refusal| *refusal)
        })
    }
}

impl Service<http::Request<tonic09::transport::Body>> for Beta {
    type Response = http::Response<tonic09::body::BoxBody>;
    type Error = Infallible;
    type Future = BoxFuture<Self::Response, Infallible>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: http::Request<tonic09::transport::Body>) -> Self::Future {
        let beta = self.clone();
        match request.uri().path() {
            "/agones.dev.sdk.beta.SDK/GetCounter" => Box::pin(async move {
                let codec = ProstCodec::<Counter, GetCounterRequest>::default();
                Ok(Grpc::new(codec).unary(beta, request).await)
            }),
            "/agones.dev.sdk.beta.SDK/UpdateCounter" => Box::pin(async move {
                let codec = ProstCodec::<Counter, UpdateCounterRequest>::default();
                Ok(Grpc::new(codec).unary(beta, request).await)
            }),
            path => {
                let refusal = Refusal::new(Code::Unimplemented, format!("no {path}"));
                Box::pin(async move { Ok(refusal.to_http()) })
            }
        }
    }
}

/// The Counter `worlds` as the SDK server holds it: (count, capacity).
fn worlds(agones: &AgonesServer) -> Option<(i64, i64)> {
    let status = agones.game_server().status?;
    let counter = status.counters.get("worlds")?;
    Some((counter.count, counter.capacity))
}

#[test]
fn a_server_keeps_the_counter_worlds_at_its_worlds_and_capacity() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let agones = AgonesServer::default();
    // As the Fleet declares it; the count left at 5 as by a server that
    // ran in this pod before, above the capacity this one has.
    agones.set_game_server(dummy_agones::sdk::GameServer {
        status: Some(Status {
            state: "Scheduled".into(),
            counters: [(
                "worlds".to_owned(),
                CounterStatus {
                    count: 5,
                    capacity: 64,
                },
            )]
            .into(),
            ..Status::default()
        }),
        ..Default::default()
    });
    let listener = runtime
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .unwrap();
    let port = listener.local_addr().unwrap().port();
    let incoming =
        tonic09::transport::server::TcpIncoming::from_listener(listener, true, None).unwrap();
    runtime.spawn(
        tonic09::transport::Server::builder()
            .add_service(SdkServer::new(agones.clone()))
            .add_service(Beta(agones.clone()))
            .serve_with_incoming(incoming),
    );
    let mut serve = common::agones::serve(
        port,
        &["--worlds", "1", "--max-worlds", "3", "--summary-every", "0"],
    );
    let seen = || format!("{:?}\n{}", worlds(&agones), serve.stderr());
    wait_for("1 world of 3", || worlds(&agones) == Some((1, 3)), seen);
    let (status, body) = request("POST", &serve.url("/worlds"), None);
    assert_eq!(status, 201, "{body}");
    wait_for("2 worlds of 3", || worlds(&agones) == Some((2, 3)), seen);
    let (status, body) = request("POST", &serve.url("/worlds"), None);
    assert_eq!(status, 201, "{body}");
    wait_for("3 worlds of 3", || worlds(&agones) == Some((3, 3)), seen);
    // Full: Allocated as before, so that no scale-down removes it.
    wait_for(
        "Allocated once full",
        || agones.game_server().status.unwrap_or_default().state == "Allocated",
        seen,
    );
    let (status, body) = request("DELETE", &serve.url("/worlds/2"), None);
    assert_eq!(status, 200, "{body}");
    wait_for(
        "2 worlds of 3 again",
        || worlds(&agones) == Some((2, 3)),
        seen,
    );
    serve.terminate();
    assert_eq!(serve.wait(Duration::from_secs(30)), 0, "{}", serve.stderr());
    let stderr = serve.stderr();
    assert!(
        stderr.contains("Agones: counting worlds in the Counter `worlds` (1 of 3)"),
        "{stderr}"
    );
    assert!(!stderr.contains("the Counter `worlds` failed"), "{stderr}");
    assert!(!stderr.contains("not counted"), "{stderr}");
}

/// A GameServer's status that declares the Counter `worlds`, in
/// dummy-agones' YAML.
const DECLARED: &str = "status:
  state: Scheduled
  address: 127.0.0.1
  addresses: []
  ports: []
  counters:
    worlds:
      count: 0
      capacity: 64
  lists: {}
";

/// Starts `host serve --agones` against dummy-agones on `port` until it
/// warns that the worlds are not counted; that warning, after a world
/// was started (its label still kept) and the server stopped.
fn not_counted(port: u16) -> String {
    let mut serve = common::agones::serve(port, &["--worlds", "1", "--max-worlds", "3"]);
    wait_for(
        "the warning",
        || {
            serve
                .stderr()
                .contains("Agones: the worlds are not counted")
        },
        || serve.stderr(),
    );
    let (status, body) = request("POST", &serve.url("/worlds"), None);
    assert_eq!(status, 201, "{body}");
    wait_for(
        "one free slot in the label",
        || game_server(port).contains("world-slots-free: \"1\""),
        || format!("{}\n{}", game_server(port), serve.stderr()),
    );
    serve.terminate();
    assert_eq!(serve.wait(Duration::from_secs(30)), 0, "{}", serve.stderr());
    let stderr = serve.stderr();
    assert_eq!(stderr.matches("not counted").count(), 1, "{stderr}");
    assert!(!stderr.contains("the Counter `worlds` failed"), "{stderr}");
    let warning = stderr
        .lines()
        .find(|line| line.contains("Agones: the worlds are not counted"))
        .unwrap();
    assert!(warning.contains("deploy/fleet.yaml"), "{warning}");
    warning.to_owned()
}

#[test]
fn without_the_counter_or_counters_a_server_says_so_once_and_goes_on() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    // dummy-agones alone: its GameServer declares no Counter, and it
    // serves no beta API.
    let port = runtime
        .block_on(dummy_agones::Server::default().spawn_on_random_port())
        .unwrap();
    let warning = not_counted(port);
    assert!(
        warning.contains("the GameServer declares no Counter `worlds`"),
        "{warning}"
    );
    // Declared, but no beta API to keep it with.
    common::agones::set_game_server(port, DECLARED);
    let warning = not_counted(port);
    assert!(warning.contains("Unimplemented"), "{warning}");
}
