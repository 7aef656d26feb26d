//! [`CallDeadline`]: the CPU-time budget of the call under way in one
//! store, judged at epoch ticks. A leaf beside `limits`.
//!
//! The epoch ticker only says *when to look*: each call is armed to be
//! looked at on the next tick. At that first look the deadline reads the
//! calling thread's own CPU time (`CLOCK_THREAD_CPUTIME_ID`) and the wall
//! clock as its baseline; at each later tick it compares them with the
//! budget. So a call stops only after it has itself used its budget of CPU
//! (plus at most the one tick before the baseline), however long the
//! thread sat descheduled on a busy machine, and calls shorter than the
//! gap to the next tick (nearly all of them) never read a clock at all.
//! A wall-clock backstop, much longer than the CPU budget, stops a call
//! whose thread is not running it at all (a host call that waits).

use std::time::{Duration, Instant};

use wasmtime::UpdateDeadline;

use crate::limits::{ScriptLimits, TICK};

/// Why a call was stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Overrun {
    /// It used more CPU time than its budget.
    Cpu(Duration),
    /// It ran longer than the wall-clock backstop.
    Wall(Duration),
}

impl Overrun {
    /// The cause a script error states.
    pub fn cause(self) -> String {
        match self {
            Overrun::Cpu(budget) => format!(
                "ran past its CPU deadline of {} ms for one call and was stopped",
                millis(budget)
            ),
            Overrun::Wall(backstop) => format!(
                "ran past the wall-clock backstop of {} ms for one call and was stopped",
                millis(backstop)
            ),
        }
    }
}

fn millis(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1e3
}

/// The budget of one call into a script, kept in its store's data.
#[derive(Debug, Clone, Copy)]
pub(crate) struct CallDeadline {
    /// CPU time the call may use.
    cpu: Duration,
    /// Wall time the call may take, whatever its CPU time.
    wall: Duration,
    /// The thread's CPU time and the wall clock at the first tick seen
    /// during the call; `None` until then.
    baseline: Option<(Duration, Instant)>,
    /// Set when the call was stopped, and why.
    overrun: Option<Overrun>,
}

impl CallDeadline {
    /// A deadline for calls of `cpu` CPU time under `limits`' backstop.
    pub fn new(cpu: Duration, limits: &ScriptLimits) -> Self {
        CallDeadline {
            cpu,
            wall: limits.wall_deadline.max(cpu),
            baseline: None,
            overrun: None,
        }
    }

    /// The call waited `waited` for its turn in a parallel frame (see
    /// `guest::turns`): the wall-clock backstop does not count it, as the
    /// CPU clock does not.
    pub fn waited(&mut self, waited: Duration) {
        if let Some((_, wall_start)) = &mut self.baseline {
            *wall_start += waited;
        }
    }

    /// Starts a new call with a budget of `cpu`; the store is then set to
    /// call [`CallDeadline::on_tick`] at the next epoch tick.
    pub fn arm(&mut self, cpu: Duration, limits: &ScriptLimits) {
        *self = CallDeadline::new(cpu, limits);
    }

    /// Why the last call was stopped, if it was.
    pub fn overrun(&self) -> Option<Overrun> {
        self.overrun
    }

    /// The store's epoch-deadline callback: continue for as many ticks as
    /// the budget has left, or stop the call.
    pub fn on_tick(&mut self) -> wasmtime::Result<UpdateDeadline> {
        self.judge(thread_cpu_time(), Instant::now())
    }

    fn judge(&mut self, cpu_now: Duration, wall_now: Instant) -> wasmtime::Result<UpdateDeadline> {
        let Some((cpu_start, wall_start)) = self.baseline else {
            self.baseline = Some((cpu_now, wall_now));
            return Ok(UpdateDeadline::Continue(ScriptLimits::ticks(
                self.cpu.min(self.wall),
            )));
        };
        let used = cpu_now.saturating_sub(cpu_start);
        let waited = wall_now.saturating_duration_since(wall_start);
        if used >= self.cpu {
            self.overrun = Some(Overrun::Cpu(self.cpu));
            return Ok(UpdateDeadline::Interrupt);
        }
        if waited >= self.wall {
            self.overrun = Some(Overrun::Wall(self.wall));
            return Ok(UpdateDeadline::Interrupt);
        }
        let left = (self.cpu - used).min(self.wall - waited);
        // Look again when the budget could be spent: never sooner than the
        // next tick.
        Ok(UpdateDeadline::Continue(
            left.as_nanos().div_ceil(TICK.as_nanos()).max(1) as u64,
        ))
    }
}

/// CPU time the calling thread has used. Through the C library, not
/// rustix: rustix finds the vDSO by parsing the ELF auxiliary vector, which
/// crashes under valgrind (whose auxv names no vDSO), and callgrind is how
/// this project counts instructions.
fn thread_cpu_time() -> Duration {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `t` is a valid, writable `timespec` for the whole call, and
    // `CLOCK_THREAD_CPUTIME_ID` is a clock every Linux provides.
    let status = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    debug_assert_eq!(status, 0, "clock_gettime(CLOCK_THREAD_CPUTIME_ID) failed");
    Duration::new(t.tv_sec as u64, t.tv_nsec as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    fn limits(wall: u64) -> ScriptLimits {
        ScriptLimits {
            wall_deadline: ms(wall),
            ..ScriptLimits::default()
        }
    }

    fn ticks(update: wasmtime::Result<UpdateDeadline>) -> Option<u64> {
        match update.unwrap() {
            UpdateDeadline::Continue(n) => Some(n),
            UpdateDeadline::Interrupt => None,
            _ => unreachable!(),
        }
    }

    #[test]
    fn a_descheduled_call_is_not_stopped_while_its_cpu_time_holds() {
        let mut deadline = CallDeadline::new(ms(5), &limits(1000));
        let t0 = Instant::now();
        // The first tick only takes the baseline.
        assert_eq!(ticks(deadline.judge(ms(100), t0)), Some(6));
        // 50 ms of wall time later the thread had 1 ms of CPU: go on, and
        // look again once the 4 ms left could be spent.
        assert_eq!(ticks(deadline.judge(ms(101), t0 + ms(50))), Some(4));
        assert_eq!(deadline.overrun(), None);
        // Its own CPU time reaches the budget: stopped.
        assert_eq!(ticks(deadline.judge(ms(105), t0 + ms(60))), None);
        assert_eq!(deadline.overrun(), Some(Overrun::Cpu(ms(5))));
    }

    #[test]
    fn the_wall_clock_backstop_stops_a_call_that_does_not_run() {
        let mut deadline = CallDeadline::new(ms(5), &limits(200));
        let t0 = Instant::now();
        deadline.judge(ms(0), t0).unwrap();
        assert_eq!(ticks(deadline.judge(ms(0), t0 + ms(199))), Some(1));
        assert_eq!(ticks(deadline.judge(ms(0), t0 + ms(200))), None);
        assert_eq!(deadline.overrun(), Some(Overrun::Wall(ms(200))));
        assert!(
            Overrun::Wall(ms(200))
                .cause()
                .contains("wall-clock backstop of 200 ms")
        );
    }

    #[test]
    fn arming_forgets_the_last_call() {
        let l = limits(1000);
        let mut deadline = CallDeadline::new(ms(1), &l);
        deadline.judge(ms(0), Instant::now()).unwrap();
        deadline.judge(ms(2), Instant::now()).unwrap();
        assert!(deadline.overrun().is_some());
        deadline.arm(ms(1), &l);
        assert_eq!(deadline.overrun(), None);
        assert!(deadline.baseline.is_none());
    }

    #[test]
    fn the_backstop_is_never_shorter_than_the_cpu_budget() {
        let deadline = CallDeadline::new(ms(500), &limits(100));
        assert_eq!(deadline.wall, ms(500));
    }

    #[test]
    fn thread_cpu_time_advances_with_work() {
        let before = thread_cpu_time();
        let mut x = 0u64;
        while thread_cpu_time() - before < ms(2) {
            x = std::hint::black_box(x.wrapping_add(1));
        }
        assert!(thread_cpu_time() - before >= ms(2));
    }
}
