//! Test script: asks the host's job pool for an expensive computation
//! through an extension interface (`test:compute/primes`, bound here with
//! wit-bindgen beside the SDK's bindings) and logs the answer when its wait
//! completes.

use script::Script;

mod compute {
    wit_bindgen::generate!({ path: "wit", world: "compute-script" });
}

use compute::test::compute::primes;

struct Compute;

impl Script for Compute {
    fn entrypoint() -> Self {
        for below in [100_000, 200_000] {
            script::task::spawn(async move {
                script::wait::host_wait(move |token| primes::count_primes(token, below)).await;
                let count = primes::prime_count(below).expect("a finished job's output is kept");
                script::log::info(&format!(
                    "{count} primes below {below} at frame {}",
                    script::time::frame()
                ));
            })
            .detach();
        }
        Compute
    }
}

script::export!(Compute);
