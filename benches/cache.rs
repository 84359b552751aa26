//! Cache throughput, per eviction policy: operations per second for
//! - `get` hits (10,000 entries, random keys),
//! - `insert` into a full cache (every insertion evicts one entry),
//! - `get_or_compute` hits (on a current-thread runtime).
//!
//! Key canonicalization is included: callers pass a tool name and arguments.
//! Run with `cargo bench --bench cache`; not part of `cargo test`. Wall-clock figures vary
//! from run to run on a shared machine: each figure is the median of 5 runs.

use std::hint::black_box;
use std::time::Instant;

use serde_json::{json, Value};
use typed_mcp::cache::{Cache, CachePolicy};
use typed_mcp::generated::limits::EvictionPolicy;

const KEYS: usize = 10_000;
const OPS: usize = 200_000;
const RUNS: usize = 5;

fn arguments(i: usize) -> Value {
    json!({"query": "rust cache", "page": i, "filters": {"lang": "en", "safe": true}})
}

fn result(i: usize) -> Value {
    json!({"content": [{"type": "text", "text": format!("result number {i} of the search")}]})
}

fn cache(policy: EvictionPolicy, max_entries: u64) -> Cache {
    Cache::builder()
        .eviction_policy(policy)
        .max_entries(max_entries)
        .max_size_bytes(1 << 30)
        .high_water_mark(100)
        .cleanup_task(false)
        .build()
        .expect("valid limits")
}

/// A fixed pseudo-random sequence of key indexes.
fn indexes() -> Vec<usize> {
    let mut x: u64 = 0x2545_F491_4F6C_DD1D;
    (0..OPS)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x % KEYS as u64) as usize
        })
        .collect()
}

fn median_ops_per_sec(mut run: impl FnMut() -> f64) -> f64 {
    let mut rates: Vec<f64> = (0..RUNS).map(|_| run()).collect();
    rates.sort_by(f64::total_cmp);
    rates[RUNS / 2]
}

fn rate(ops: usize, start: Instant) -> f64 {
    ops as f64 / start.elapsed().as_secs_f64()
}

fn main() {
    let args: Vec<Value> = (0..KEYS).map(arguments).collect();
    let results: Vec<Value> = (0..KEYS).map(result).collect();
    let order = indexes();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("runtime");
    println!("cache throughput ({OPS} operations per run, median of {RUNS} runs)");
    for policy in [
        EvictionPolicy::Lru,
        EvictionPolicy::Lfu,
        EvictionPolicy::Fifo,
    ] {
        let warm = cache(policy, 2 * KEYS as u64);
        for (a, r) in args.iter().zip(&results) {
            warm.insert("search", a, r.clone(), CachePolicy::cacheable());
        }
        let get = median_ops_per_sec(|| {
            let start = Instant::now();
            for &i in &order {
                black_box(warm.get("search", &args[i]));
            }
            rate(OPS, start)
        });
        let insert = median_ops_per_sec(|| {
            // Half the keys fit: at steady state every insertion evicts.
            let full = cache(policy, KEYS as u64 / 2);
            let start = Instant::now();
            for &i in &order {
                black_box(full.insert(
                    "search",
                    &args[i],
                    results[i].clone(),
                    CachePolicy::cacheable(),
                ));
            }
            rate(OPS, start)
        });
        let computed = median_ops_per_sec(|| {
            runtime.block_on(async {
                let start = Instant::now();
                for &i in &order {
                    let got = warm
                        .get_or_compute("search", &args[i], CachePolicy::cacheable(), || async {
                            Ok::<_, String>(results[i].clone())
                        })
                        .await;
                    black_box(got.is_ok());
                }
                rate(OPS, start)
            })
        });
        println!(
            "{:>4}: get (hit) {get:>10.0} ops/s   insert (evicting) {insert:>10.0} ops/s   \
             get_or_compute (hit) {computed:>10.0} ops/s",
            policy.to_string()
        );
    }
}
