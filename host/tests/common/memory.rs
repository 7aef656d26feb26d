//! This process's memory, from `/proc/self/status` (Linux), for tests and
//! benches that report or bound it.

/// A `/proc/self/status` field in KiB: `VmRSS` (resident now) or `VmHWM`
/// (peak resident).
pub fn status_kib(field: &str) -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    status
        .lines()
        .find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or_else(|| panic!("{field} in /proc/self/status"))
}
