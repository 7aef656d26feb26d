//! The server's Prometheus metrics: a registry with one series per loop
//! thread (label `thread`), updated by the loop threads and encoded in the
//! text exposition format for `/metrics`.

use std::sync::atomic::AtomicU64;

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::Registry;

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ThreadLabel {
    thread: String,
}

type Histograms = Family<ThreadLabel, Histogram, fn() -> Histogram>;

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ScriptLabel {
    script: String,
}

/// Seconds in each script's calls, by script name. The label's values are
/// bounded: a server runs only the scripts it was started with.
#[derive(Clone, Default)]
pub struct ScriptSeconds(Family<ScriptLabel, Counter<f64, AtomicU64>>);

impl ScriptSeconds {
    /// Adds `seconds` to script `script`'s series.
    pub fn add(&self, script: &str, seconds: f64) {
        self.0
            .get_or_create(&ScriptLabel {
                script: script.to_owned(),
            })
            .inc_by(seconds);
    }
}

fn frame_histogram() -> Histogram {
    // 50 µs to ~0.8 s, doubling: a 60 Hz budget (16.7 ms) falls between
    // 12.8 and 25.6 ms, a 10 Hz one (100 ms) between 51 and 102 ms.
    Histogram::new(exponential_buckets(50e-6, 2.0, 15))
}

/// Every metric the server exports.
pub struct Metrics {
    registry: Registry,
    frame_seconds: Histograms,
    overruns: Family<ThreadLabel, Counter>,
    updates: Family<ThreadLabel, Counter>,
    script_errors: Family<ThreadLabel, Counter>,
    lost_writes: Family<ThreadLabel, Counter>,
    evicted: Family<ThreadLabel, Counter>,
    worlds: Family<ThreadLabel, Gauge>,
    instances: Family<ThreadLabel, Gauge>,
    free_slots: Gauge,
    ready: Gauge,
    streams: StreamMetrics,
    script_seconds: ScriptSeconds,
    durable: DurableMetrics,
    fleet: FleetMetrics,
}

/// A node of a fleet: its Redis, its log's lag, and the worlds that moved
/// (set by the fleet's node: see [`WorldDirectory`](crate::WorldDirectory)).
#[derive(Clone, Default)]
pub struct FleetMetrics {
    /// 1 while the fleet's Redis answers this node.
    pub redis_up: Gauge,
    /// Bytes of the worlds' logs waiting for the fleet's Redis: its lag.
    pub log_buffered_bytes: Gauge,
    /// Worlds whose log no longer fit in the buffer for the fleet's Redis.
    pub logs_lost: Gauge,
    /// Worlds this node handed out from nodes whose lease lapsed.
    pub failovers: Counter,
    /// Worlds handed to this node that run here now.
    pub moved_in: Counter,
    /// Worlds this node handed to other nodes as it drained.
    pub moved_out: Counter,
    /// Worlds handed to this node that could not be resumed.
    pub claim_failures: Counter,
    /// Copies of worlds stopped here because another node holds them.
    pub fenced: Counter,
    /// Seconds from a world's hand-off to this node to its running here.
    pub claim_seconds: Gauge<f64, AtomicU64>,
}

impl FleetMetrics {
    fn register(&self, registry: &mut Registry) {
        let fleet = registry.sub_registry_with_prefix("fleet");
        fleet.register(
            "redis_up",
            "1 while the fleet's Redis answers this node",
            self.redis_up.clone(),
        );
        fleet.register(
            "log_buffered_bytes",
            "Bytes of the worlds' logs waiting for the fleet's Redis: its lag",
            self.log_buffered_bytes.clone(),
        );
        fleet.register(
            "logs_lost",
            "Worlds whose log no longer fit in the buffer for the fleet's Redis: they play on, \
             kept on this node alone",
            self.logs_lost.clone(),
        );
        fleet.register(
            "failovers",
            "Worlds this node handed out from nodes whose lease lapsed",
            self.failovers.clone(),
        );
        fleet.register(
            "worlds_moved_in",
            "Worlds handed to this node (by a drain or a failover) that run here now",
            self.moved_in.clone(),
        );
        fleet.register(
            "worlds_moved_out",
            "Worlds this node handed to other nodes as it drained",
            self.moved_out.clone(),
        );
        fleet.register(
            "claim_failures",
            "Worlds handed to this node that could not be resumed",
            self.claim_failures.clone(),
        );
        fleet.register(
            "fenced",
            "Copies of worlds stopped on this node because another node holds them",
            self.fenced.clone(),
        );
        fleet.register(
            "last_claim_seconds",
            "Seconds from a world's hand-off to this node to its running here, for the last one",
            self.claim_seconds.clone(),
        );
    }
}

/// Durable worlds: their resumes and their logs.
#[derive(Clone, Default)]
struct DurableMetrics {
    resumed: Counter,
    resume_failures: Counter,
    resume_seconds: Gauge<f64, AtomicU64>,
    resuming: Gauge,
    log_bytes: Gauge,
    log_batches_waiting: Gauge,
    logs_lost: Gauge,
}

impl DurableMetrics {
    fn register(&self, registry: &mut Registry) {
        registry.register(
            "worlds_resumed",
            "Worlds resumed from the state directory at the server's start",
            self.resumed.clone(),
        );
        registry.register(
            "resume_failures",
            "Worlds of the state directory that could not be resumed",
            self.resume_failures.clone(),
        );
        registry.register(
            "resume_seconds",
            "Seconds the last resume of every world in the state directory took",
            self.resume_seconds.clone(),
        );
        registry.register(
            "resuming",
            "1 while worlds are being resumed from the state directory",
            self.resuming.clone(),
        );
        registry.register(
            "log_bytes",
            "Bytes written to the worlds' logs in the state directory since the start",
            self.log_bytes.clone(),
        );
        registry.register(
            "log_batches_waiting",
            "Batches of log lines handed to the log writer and not yet written: its lag",
            self.log_batches_waiting.clone(),
        );
        registry.register(
            "logs_lost",
            "Worlds whose log stopped (a write failed, or it fell too far behind the disk): \
             they play on, no longer durable",
            self.logs_lost.clone(),
        );
    }
}

/// The players' streams, over all worlds.
#[derive(Clone, Default)]
pub struct StreamMetrics {
    /// Streams open now.
    pub open: Gauge,
    /// Streams the server closed because the client fell behind, stopped
    /// reading or broke the protocol.
    pub dropped: Counter,
    /// Bytes of messages sent to clients.
    pub bytes: Counter,
    /// Messages sent to clients.
    pub messages: Counter,
}

/// The metrics of one loop thread, held by it (clones share the series).
#[derive(Clone)]
pub struct ThreadMetrics {
    pub frame_seconds: Histogram,
    pub overruns: Counter,
    pub updates: Counter,
    pub script_errors: Counter,
    pub lost_writes: Counter,
    pub evicted: Counter,
    pub worlds: Gauge,
    pub instances: Gauge,
    pub script_seconds: ScriptSeconds,
}

impl Metrics {
    /// A registry with every metric, each prefixed `game_server_`, and
    /// the scripts' own, prefixed `game_script_`.
    pub fn new() -> Self {
        let mut root = Registry::default();
        let script_seconds = ScriptSeconds::default();
        root.sub_registry_with_prefix("game_script").register(
            "cpu_seconds",
            "Wall-clock time in each script's calls (updates and wakes) on the loop threads, all \
             its instances in every world",
            script_seconds.0.clone(),
        );
        let registry = root.sub_registry_with_prefix("game_server");
        let frame_seconds = Histograms::new_with_constructor(frame_histogram);
        let overruns = Family::default();
        let updates = Family::default();
        let script_errors = Family::default();
        let lost_writes = Family::default();
        let evicted = Family::default();
        let worlds = Family::default();
        let instances = Family::default();
        let free_slots = Gauge::default();
        let ready = Gauge::default();
        registry.register(
            "frame_seconds",
            "Time a loop thread takes to tick all of its worlds once",
            frame_seconds.clone(),
        );
        registry.register(
            "overruns",
            "Frames that took longer than the frame budget (one timestep)",
            overruns.clone(),
        );
        registry.register(
            "world_updates",
            "World frames run (one per world per thread frame)",
            updates.clone(),
        );
        registry.register(
            "script_errors",
            "Script instances that failed (trap, deadline, limit, quota)",
            script_errors.clone(),
        );
        registry.register(
            "lost_writes",
            "Writes to an entity's field lost to a later script's write of the same field in \
             the same frame (each pair of scripts and entity is also logged once)",
            lost_writes.clone(),
        );
        registry.register(
            "worlds_evicted",
            "Worlds stopped for overrunning their budget frame after frame",
            evicted.clone(),
        );
        registry.register("worlds", "Worlds running on a loop thread", worlds.clone());
        registry.register(
            "instances",
            "Script instances running on a loop thread",
            instances.clone(),
        );
        registry.register(
            "world_slots_free",
            "Worlds the server would still accept (-1: no limit)",
            free_slots.clone(),
        );
        registry.register(
            "ready",
            "1 while the server accepts worlds, 0 while it drains",
            ready.clone(),
        );
        let streams = StreamMetrics::default();
        registry.register("streams", "Players' streams open", streams.open.clone());
        registry.register(
            "streams_dropped",
            "Players' streams closed by the server: the client fell behind, stopped reading \
             or broke the protocol",
            streams.dropped.clone(),
        );
        registry.register(
            "stream_bytes",
            "Bytes of messages sent on players' streams",
            streams.bytes.clone(),
        );
        registry.register(
            "stream_messages",
            "Messages sent on players' streams",
            streams.messages.clone(),
        );
        let durable = DurableMetrics::default();
        durable.register(registry);
        let fleet = FleetMetrics::default();
        fleet.register(registry);
        Metrics {
            durable,
            fleet,
            registry: root,
            script_seconds,
            streams,
            frame_seconds,
            overruns,
            updates,
            script_errors,
            lost_writes,
            evicted,
            worlds,
            instances,
            free_slots,
            ready,
        }
    }

    /// The series of loop thread `thread`.
    pub fn thread(&self, thread: usize) -> ThreadMetrics {
        let label = ThreadLabel {
            thread: thread.to_string(),
        };
        ThreadMetrics {
            frame_seconds: self.frame_seconds.get_or_create(&label).clone(),
            overruns: self.overruns.get_or_create(&label).clone(),
            updates: self.updates.get_or_create(&label).clone(),
            script_errors: self.script_errors.get_or_create(&label).clone(),
            lost_writes: self.lost_writes.get_or_create(&label).clone(),
            evicted: self.evicted.get_or_create(&label).clone(),
            worlds: self.worlds.get_or_create(&label).clone(),
            instances: self.instances.get_or_create(&label).clone(),
            script_seconds: self.script_seconds.clone(),
        }
    }

    /// Sets the free world slots (-1: no limit) and readiness.
    /// The players' streams' metrics.
    pub fn streams(&self) -> StreamMetrics {
        self.streams.clone()
    }

    pub fn set_capacity(&self, free_slots: Option<usize>, ready: bool) {
        self.free_slots
            .set(free_slots.map_or(-1, |n| i64::try_from(n).unwrap_or(i64::MAX)));
        self.ready.set(i64::from(ready));
    }

    /// Notes a resume of the state directory's worlds: how many resumed,
    /// how many failed, and how long it took.
    pub fn resumed(&self, resumed: usize, failed: usize, seconds: f64) {
        self.durable.resumed.inc_by(resumed as u64);
        self.durable.resume_failures.inc_by(failed as u64);
        self.durable.resume_seconds.set(seconds);
    }

    /// Sets whether worlds are being resumed, and what the log writer did.
    pub fn set_durable(&self, resuming: bool, logs: game_host::record::log_writer::JournalStats) {
        let gauge = |n: u64| i64::try_from(n).unwrap_or(i64::MAX);
        self.durable.resuming.set(i64::from(resuming));
        self.durable.log_bytes.set(gauge(logs.bytes));
        self.durable.log_batches_waiting.set(gauge(logs.waiting));
        self.durable.logs_lost.set(gauge(logs.lost_logs));
    }

    /// A fleet node's metrics (see [`Server::fleet_metrics`](crate::Server::fleet_metrics)).
    pub(crate) fn fleet(&self) -> &FleetMetrics {
        &self.fleet
    }

    /// Every metric in the text exposition format.
    pub fn encode(&self) -> String {
        let mut text = String::new();
        prometheus_client::encoding::text::encode(&mut text, &self.registry)
            .expect("writing to a String cannot fail");
        text
    }
}

impl Default for Metrics {
    fn default() -> Self {
        Metrics::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thread_series_are_labelled_and_encoded() {
        let metrics = Metrics::new();
        let thread = metrics.thread(1);
        thread.frame_seconds.observe(0.002);
        thread.overruns.inc();
        thread.worlds.set(7);
        metrics.set_capacity(Some(3), true);
        let text = metrics.encode();
        assert!(
            text.contains("game_server_overruns_total{thread=\"1\"} 1"),
            "{text}"
        );
        assert!(
            text.contains("game_server_worlds{thread=\"1\"} 7"),
            "{text}"
        );
        assert!(
            text.contains("game_server_frame_seconds_count{thread=\"1\"} 1"),
            "{text}"
        );
        assert!(text.contains("game_server_world_slots_free 3"), "{text}");
        assert!(text.contains("game_server_ready 1"), "{text}");
        thread.script_seconds.add("cube", 0.25);
        let text = metrics.encode();
        assert!(
            text.contains("game_script_cpu_seconds_total{script=\"cube\"} 0.25"),
            "{text}"
        );
    }

    /// The book's metrics reference lists every family with its type, and
    /// no family the server does not have.
    #[test]
    fn the_books_metrics_reference_lists_every_family_and_only_those() {
        // A series in every family with labels, so each is written.
        let metrics = Metrics::new();
        metrics.thread(0).script_seconds.add("cube", 0.0);
        let text = metrics.encode();
        let encoded: Vec<(String, String)> = text
            .lines()
            .filter_map(|line| {
                let mut words = line.strip_prefix("# TYPE ")?.split(' ');
                Some((words.next()?.to_owned(), words.next()?.to_owned()))
            })
            .collect();
        assert!(encoded.len() > 20, "{text}");
        game_host::book_tables::assert_lists_exactly("metrics.md", None, &encoded);
    }
}
