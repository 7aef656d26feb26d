//! [`CallDeadline`]: the CPU-time budget of the call under way in one
//! store, judged at epoch ticks, and the credit an instance saves for the
//! call that needs a little more. A leaf beside `limits`.
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
//!
//! **Credit.** One call past its budget is not always the script's doing:
//! one-time work in a first call (a JavaScript function compiled when first
//! called), a garbage collection in a Python or JavaScript runtime, or the
//! first touches of memory after the thread slept (on a virtual machine
//! these can cost a hundred times more after 100 ms idle) put an
//! occasional call of an innocent script over. So an instance starts with
//! [`CREDIT_CAP`] budgets of credit; an update, wake or message call past
//! its budget goes on while there is credit to spend, and is stopped when
//! there is none; and each such call that ends within its budget saves a
//! tenth of the budget, up to the cap. A script over its budget call after
//! call saves nothing and soon has nothing to spend; an endless loop is
//! stopped after its budget and the credit (about five budgets of CPU
//! time, within a tick). Entry points (`entrypoint`, `save-state`,
//! `restore-state`) have their own, longer budget and neither save nor
//! spend. Credit is counted without a clock: calls are numbered, and the
//! credit saved since the last call that spent some is worked out only when
//! a call runs past its budget.

use std::time::{Duration, Instant};

use wasmtime::UpdateDeadline;

use crate::limits::{ScriptLimits, TICK};

/// A call that ends within its budget saves the budget divided by this.
const CREDIT_DIVISOR: u32 = 10;

/// The most credit an instance holds, in budgets; it starts with this.
const CREDIT_CAP: u32 = 4;

/// Why a call was stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Overrun {
    /// It used more CPU time than its budget and the credit it had.
    Cpu {
        /// The call's budget.
        budget: Duration,
        /// The credit it spent past the budget.
        credit: Duration,
    },
    /// It ran longer than the wall-clock backstop.
    Wall(Duration),
}

impl Overrun {
    /// The cause a script error states.
    pub fn cause(self) -> String {
        match self {
            Overrun::Cpu { budget, credit } => {
                let mut cause = format!(
                    "ran past its CPU deadline of {} ms for one call and was stopped",
                    millis(budget)
                );
                if !credit.is_zero() {
                    cause += &format!(" (after spending its {} ms of credit)", millis(credit));
                }
                cause
            }
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
    /// Wall time the call may take, whatever its CPU time (the game's
    /// backstop: see [`CallDeadline::backstop`]).
    wall: Duration,
    /// The thread's CPU time and the wall clock at the first tick seen
    /// during the call; `None` until then.
    baseline: Option<(Duration, Instant)>,
    /// Set when the call was stopped, and why.
    overrun: Option<Overrun>,
    /// Whether the call may spend credit (updates, wakes and messages).
    spends: bool,
    /// Calls armed so far that may spend credit; the one under way (if it
    /// may) is number `call`.
    call: u64,
    /// The credit left when call `credit_as_of` ended (`Duration::MAX`:
    /// full, the cap of whatever the budget is); every call since, up to the
    /// one under way, ended within its budget and saved some.
    credit: Duration,
    credit_as_of: u64,
}

impl CallDeadline {
    /// A deadline for calls of `cpu` CPU time under `limits`' backstop.
    pub fn new(cpu: Duration, limits: &ScriptLimits) -> Self {
        CallDeadline {
            cpu,
            wall: limits.wall_deadline,
            baseline: None,
            overrun: None,
            spends: false,
            call: 0,
            credit: Duration::MAX,
            credit_as_of: 0,
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

    /// Starts a new call with a budget of `cpu`, which may spend the
    /// instance's credit if `spends`; the store is then set to call
    /// [`CallDeadline::on_tick`] at the next epoch tick.
    #[inline]
    pub fn arm(&mut self, cpu: Duration, limits: &ScriptLimits, spends: bool) {
        self.cpu = cpu;
        self.wall = limits.wall_deadline;
        self.baseline = None;
        self.overrun = None;
        self.spends = spends;
        self.call += u64::from(spends);
    }

    /// The call has ended (not stopped): a call that ran long enough to be
    /// looked at settles its credit.
    #[inline]
    pub fn end_call(&mut self) {
        if self.baseline.is_some() {
            self.settle(thread_cpu_time());
        }
    }

    /// Spends what the call used past its budget from the credit; a call
    /// within its budget leaves the credit to be worked out later.
    #[cold]
    fn settle(&mut self, cpu_now: Duration) {
        let Some((cpu_start, _)) = self.baseline.take() else {
            return;
        };
        let used = cpu_now.saturating_sub(cpu_start);
        if self.spends && used > self.cpu {
            self.credit = self.credit_now().saturating_sub(used - self.cpu);
            self.credit_as_of = self.call;
        }
    }

    /// The credit the call under way may spend: what was left, plus what
    /// the calls since saved, up to the cap.
    fn credit_now(&self) -> Duration {
        if !self.spends {
            return Duration::ZERO;
        }
        let saving = self.call.saturating_sub(self.credit_as_of + 1);
        let saving = u32::try_from(saving).unwrap_or(u32::MAX);
        let saved = (self.cpu / CREDIT_DIVISOR).saturating_mul(saving);
        self.credit
            .saturating_add(saved)
            .min(self.cpu.saturating_mul(CREDIT_CAP))
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

    /// The wall-clock backstop of the call: never shorter than the CPU
    /// time it may use.
    fn backstop(&self) -> Duration {
        let most = if self.spends {
            self.cpu.saturating_mul(1 + CREDIT_CAP)
        } else {
            self.cpu
        };
        self.wall.max(most)
    }

    fn judge(&mut self, cpu_now: Duration, wall_now: Instant) -> wasmtime::Result<UpdateDeadline> {
        let wall = self.backstop();
        let Some((cpu_start, wall_start)) = self.baseline else {
            self.baseline = Some((cpu_now, wall_now));
            return Ok(UpdateDeadline::Continue(ScriptLimits::ticks(
                self.cpu.min(wall),
            )));
        };
        let used = cpu_now.saturating_sub(cpu_start);
        let waited = wall_now.saturating_duration_since(wall_start);
        let credit = if used >= self.cpu {
            self.credit_now()
        } else {
            Duration::ZERO
        };
        let allowed = self.cpu.saturating_add(credit);
        if used >= allowed {
            self.overrun = Some(Overrun::Cpu {
                budget: self.cpu,
                credit,
            });
            return Ok(UpdateDeadline::Interrupt);
        }
        if waited >= wall {
            self.overrun = Some(Overrun::Wall(wall));
            return Ok(UpdateDeadline::Interrupt);
        }
        let left = (allowed - used).min(wall - waited);
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
        assert_eq!(
            deadline.overrun(),
            Some(Overrun::Cpu {
                budget: ms(5),
                credit: ms(0)
            })
        );
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
        deadline.arm(ms(1), &l, true);
        assert_eq!(deadline.overrun(), None);
        assert!(deadline.baseline.is_none());
    }

    /// Arms `calls` update calls of `budget` that each end within it
    /// without a tick.
    fn quick_calls(deadline: &mut CallDeadline, budget: Duration, calls: u32) {
        for _ in 0..calls {
            deadline.arm(budget, &limits(1000), true);
            deadline.end_call();
        }
    }

    /// Arms an update call of `budget` and runs it for `cpu` of CPU time,
    /// judged at each millisecond; returns whether it was stopped.
    fn run_call(deadline: &mut CallDeadline, budget: Duration, cpu: Duration) -> bool {
        deadline.arm(budget, &limits(1000), true);
        let t0 = Instant::now();
        let start = ms(1000);
        deadline.judge(start, t0).unwrap();
        let mut spent = ms(0);
        while spent < cpu {
            spent = (spent + ms(1)).min(cpu);
            if ticks(deadline.judge(start + spent, t0 + spent)).is_none() {
                return true;
            }
        }
        deadline.settle(start + spent);
        false
    }

    /// The credit the stopped call (of a 5 ms budget) spent.
    fn spent(deadline: &CallDeadline) -> Duration {
        match deadline.overrun() {
            Some(Overrun::Cpu { budget, credit }) if budget == ms(5) => credit,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn an_instance_starts_with_four_budgets_of_credit() {
        let mut deadline = CallDeadline::new(ms(5), &limits(1000));
        assert!(!run_call(&mut deadline, ms(5), ms(24)));
        let mut deadline = CallDeadline::new(ms(5), &limits(1000));
        assert!(run_call(&mut deadline, ms(5), ms(30)));
        assert_eq!(spent(&deadline), ms(20));
        let cause = deadline.overrun().unwrap().cause();
        assert_eq!(
            cause,
            "ran past its CPU deadline of 5 ms for one call and was stopped \
             (after spending its 20 ms of credit)"
        );
    }

    #[test]
    fn calls_within_their_budget_save_credit_that_a_longer_call_spends() {
        let mut deadline = CallDeadline::new(ms(5), &limits(1000));
        assert!(!run_call(&mut deadline, ms(5), ms(24))); // 1 ms left
        // Ten quick calls save half a budget each.
        quick_calls(&mut deadline, ms(5), 10);
        assert!(!run_call(&mut deadline, ms(5), ms(8)), "{deadline:?}");
        assert_eq!(deadline.overrun(), None);
        // 3 ms of the 6 were spent: 3 ms are left.
        assert!(run_call(&mut deadline, ms(5), ms(9)));
        assert_eq!(spent(&deadline), ms(3));
    }

    #[test]
    fn a_call_looked_at_within_its_budget_saves_too() {
        let mut deadline = CallDeadline::new(ms(5), &limits(1000));
        assert!(!run_call(&mut deadline, ms(5), ms(24))); // 1 ms left
        assert!(!run_call(&mut deadline, ms(5), ms(4))); // saves 0.5
        assert!(!run_call(&mut deadline, ms(5), ms(6))); // spends 1 of 1.5
        assert!(run_call(&mut deadline, ms(5), ms(6)));
        assert_eq!(spent(&deadline), Duration::from_micros(500));
    }

    #[test]
    fn credit_stops_at_four_budgets() {
        let mut deadline = CallDeadline::new(ms(5), &limits(1000));
        assert!(!run_call(&mut deadline, ms(5), ms(24)));
        quick_calls(&mut deadline, ms(5), 10_000);
        assert!(!run_call(&mut deadline, ms(5), ms(24)));
        quick_calls(&mut deadline, ms(5), 10_000);
        assert!(run_call(&mut deadline, ms(5), ms(26)));
        assert_eq!(spent(&deadline), ms(20));
    }

    #[test]
    fn a_script_over_its_budget_call_after_call_runs_out_of_credit() {
        let mut deadline = CallDeadline::new(ms(5), &limits(1000));
        // 20 ms of credit, 2 ms spent a call, nothing saved by calls past
        // their budget: the tenth has only its last 2 ms, which its budget's
        // end reaches.
        for _ in 0..9 {
            assert!(!run_call(&mut deadline, ms(5), ms(7)));
        }
        assert!(run_call(&mut deadline, ms(5), ms(7)));
        assert_eq!(spent(&deadline), ms(2));
    }

    #[test]
    fn entry_points_neither_save_nor_spend_credit() {
        let l = limits(1000);
        let mut deadline = CallDeadline::new(ms(5), &l);
        assert!(!run_call(&mut deadline, ms(5), ms(24))); // 1 ms left
        for _ in 0..100 {
            deadline.arm(ms(100), &l, false);
            deadline.end_call();
        }
        // An entry point past its own budget is stopped at it.
        deadline.arm(ms(100), &l, false);
        let t0 = Instant::now();
        deadline.judge(ms(0), t0).unwrap();
        assert_eq!(ticks(deadline.judge(ms(100), t0 + ms(100))), None);
        assert_eq!(
            deadline.overrun(),
            Some(Overrun::Cpu {
                budget: ms(100),
                credit: ms(0)
            })
        );
        // And the entry points saved nothing for an update.
        assert!(run_call(&mut deadline, ms(5), ms(7)));
        assert_eq!(spent(&deadline), ms(1));
    }

    #[test]
    fn a_call_spending_credit_is_not_stopped_by_the_backstop_before_its_end() {
        // A 300 ms budget with its 1,200 ms of credit, under a 1 s backstop.
        let mut deadline = CallDeadline::new(ms(300), &limits(1000));
        deadline.arm(ms(300), &limits(1000), true);
        let t0 = Instant::now();
        deadline.judge(ms(0), t0).unwrap();
        assert!(ticks(deadline.judge(ms(1200), t0 + ms(1200))).is_some());
        assert_eq!(deadline.overrun(), None);
        assert_eq!(ticks(deadline.judge(ms(1500), t0 + ms(1500))), None);
        assert!(matches!(deadline.overrun(), Some(Overrun::Cpu { .. })));
    }

    #[test]
    fn the_backstop_outlasts_a_call_spending_all_its_credit() {
        let mut deadline = CallDeadline::new(ms(300), &limits(1000));
        deadline.arm(ms(300), &limits(1000), true);
        assert_eq!(deadline.backstop(), ms(1500));
        deadline.arm(ms(300), &limits(1000), false);
        assert_eq!(deadline.backstop(), ms(1000));
    }

    #[test]
    fn the_backstop_is_never_shorter_than_the_cpu_budget() {
        let deadline = CallDeadline::new(ms(500), &limits(100));
        assert_eq!(deadline.backstop(), ms(500));
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
