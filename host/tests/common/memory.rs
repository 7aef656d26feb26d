//! This process's memory, from `/proc` (Linux), for tests and benches that
//! report or bound it: resident size and the calling thread's page faults.

#![allow(dead_code)] // each test binary and bench uses a different subset

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

/// Minor page faults of the calling thread so far, from
/// `/proc/thread-self/stat` (Linux).
pub fn thread_minor_faults() -> u64 {
    let stat = std::fs::read_to_string("/proc/thread-self/stat").expect("/proc/thread-self/stat");
    // The command name (field 2) is in parentheses and may hold spaces;
    // `minflt` is field 10, the 8th after it.
    let after_name = &stat[stat.rfind(')').expect("a command name") + 1..];
    after_name
        .split_whitespace()
        .nth(7)
        .and_then(|n| n.parse().ok())
        .expect("minflt in /proc/thread-self/stat")
}
