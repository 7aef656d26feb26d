//! Test script: computes `fib(25)` by naive recursion on every update and
//! keeps the result: compute-heavy guest code with many calls, for
//! measuring the cost of the epoch checks behind CPU deadlines.

use script::Script;

struct Fib {
    last: u64,
}

fn fib(n: u64) -> u64 {
    if n < 2 { n } else { fib(n - 1) + fib(n - 2) }
}

impl Script for Fib {
    fn entrypoint() -> Self {
        script::update::subscribe();
        Fib { last: 0 }
    }

    fn on_update(&mut self) {
        self.last = fib(std::hint::black_box(25));
        assert_eq!(self.last, 75_025);
    }
}

script::export!(Fib);
