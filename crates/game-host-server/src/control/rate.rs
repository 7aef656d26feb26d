//! How often one client address may join (`POST /play`): a token bucket
//! per address ([`JoinRate`]), so a page reloaded in a loop, or a script
//! asking for seats, takes a few and is then told when to come back, while
//! every other address joins as before. The table of addresses is bounded:
//! idle ones (whose bucket is full again) make room, swept out at most once
//! a second, and when none is idle a new address waits a second.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use game_host::sync::LockExt;

/// The address of the client a request came from (the other end of its
/// connection: a proxy in front of the server counts as one client).
#[derive(Debug, Clone, Copy)]
pub(crate) struct ClientAddress(pub IpAddr);

/// How often one client address may join.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct JoinRate {
    /// Joins one address may make at once.
    pub burst: u32,
    /// Joins one address may make per minute after its burst.
    pub per_minute: u32,
}

impl Default for JoinRate {
    fn default() -> Self {
        JoinRate {
            burst: 10,
            per_minute: 30,
        }
    }
}

/// Addresses whose joins are counted at once, at most.
const MOST_ADDRESSES: usize = 65_536;

/// What one address has left, as of `at`.
struct Bucket {
    joins: f64,
    at: Instant,
}

/// The buckets of every address that joined lately, and when the idle
/// ones were last swept out.
pub(crate) struct Buckets {
    rate: JoinRate,
    by_address: Mutex<(HashMap<IpAddr, Bucket>, Option<Instant>)>,
}

impl Buckets {
    pub fn new(rate: JoinRate) -> Self {
        Buckets {
            rate,
            by_address: Mutex::new((HashMap::new(), None)),
        }
    }

    /// Takes one join for `address` at `now`, or says how long until it
    /// has one.
    pub fn take(&self, address: IpAddr, now: Instant) -> Result<(), Duration> {
        let burst = f64::from(self.rate.burst.max(1));
        let per_second = f64::from(self.rate.per_minute) / 60.0;
        let refill = |bucket: &Bucket| {
            let gained = now.saturating_duration_since(bucket.at).as_secs_f64() * per_second;
            (bucket.joins + gained).min(burst)
        };
        let mut table = self.by_address.lock_unpoisoned();
        let (buckets, swept) = &mut *table;
        let key = client_of(address);
        if !buckets.contains_key(&key) && buckets.len() >= MOST_ADDRESSES {
            // A sweep reads every bucket: at most once a second, so a flood
            // of new addresses costs a lookup each in between.
            if swept.is_none_or(|at| now.saturating_duration_since(at) >= Duration::from_secs(1)) {
                *swept = Some(now);
                buckets.retain(|_, bucket| refill(bucket) < burst);
            }
            if buckets.len() >= MOST_ADDRESSES {
                return Err(Duration::from_secs(1));
            }
        }
        let bucket = buckets.entry(key).or_insert(Bucket {
            joins: burst,
            at: now,
        });
        bucket.joins = refill(bucket);
        bucket.at = now;
        if bucket.joins >= 1.0 {
            bucket.joins -= 1.0;
            return Ok(());
        }
        if per_second == 0.0 {
            return Err(Duration::from_secs(60));
        }
        Err(Duration::from_secs_f64((1.0 - bucket.joins) / per_second))
    }
}

/// The address a client is counted by: an IPv4 address, or an IPv6
/// address's /64 (what one subscriber is given, so its 2^64 addresses
/// count as one).
fn client_of(address: IpAddr) -> IpAddr {
    match address {
        IpAddr::V4(_) => address,
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => {
                let prefix = u128::from(v6) & !((1u128 << 64) - 1);
                IpAddr::V6(prefix.into())
            }
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn address(text: &str) -> IpAddr {
        text.parse().unwrap()
    }

    #[test]
    fn an_address_joins_its_burst_then_at_its_rate_and_others_are_untouched() {
        let buckets = Buckets::new(JoinRate {
            burst: 3,
            per_minute: 60,
        });
        let start = Instant::now();
        let one = address("192.0.2.1");
        for _ in 0..3 {
            assert_eq!(buckets.take(one, start), Ok(()));
        }
        let wait = buckets.take(one, start).unwrap_err();
        assert!(wait > Duration::from_millis(900) && wait <= Duration::from_secs(1));
        // Another address has its whole burst.
        assert_eq!(buckets.take(address("192.0.2.2"), start), Ok(()));
        // A second later, one more join (60 a minute), and not two.
        let later = start + Duration::from_secs(1);
        assert_eq!(buckets.take(one, later), Ok(()));
        assert!(buckets.take(one, later).is_err());
        // Never more than the burst, however long it waited.
        let much_later = start + Duration::from_secs(3600);
        for _ in 0..3 {
            assert_eq!(buckets.take(one, much_later), Ok(()));
        }
        assert!(buckets.take(one, much_later).is_err());
    }

    #[test]
    fn an_ipv6_clients_addresses_count_as_one() {
        let buckets = Buckets::new(JoinRate {
            burst: 1,
            per_minute: 0,
        });
        let now = Instant::now();
        assert_eq!(buckets.take(address("2001:db8:1:2::1"), now), Ok(()));
        assert_eq!(
            buckets.take(address("2001:db8:1:2:ffff::7"), now),
            Err(Duration::from_secs(60))
        );
        assert_eq!(buckets.take(address("2001:db8:1:3::1"), now), Ok(()));
        // A v4-mapped address is its v4 address.
        assert_eq!(buckets.take(address("::ffff:192.0.2.9"), now), Ok(()));
        assert!(buckets.take(address("192.0.2.9"), now).is_err());
    }

    #[test]
    fn the_table_of_addresses_is_bounded_and_idle_ones_make_room() {
        let buckets = Buckets::new(JoinRate {
            burst: 1,
            per_minute: 60,
        });
        let now = Instant::now();
        for n in 0..MOST_ADDRESSES as u32 {
            assert_eq!(buckets.take(IpAddr::V4(n.into()), now), Ok(()));
        }
        // Full, and none idle: a new address waits.
        let new = address("198.51.100.1");
        assert_eq!(buckets.take(new, now), Err(Duration::from_secs(1)));
        // A second later every bucket is full again: they make room.
        let later = now + Duration::from_secs(1);
        assert_eq!(buckets.take(new, later), Ok(()));
        assert_eq!(buckets.by_address.lock_unpoisoned().0.len(), 1);
    }
}
