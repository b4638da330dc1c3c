//! serde-sarif next to stalecheck's own SARIF code, on one SARIF file that stalecheck wrote:
//! reading (stalecheck-sarif's `read::parse_log` versus serde-sarif's typed model), writing
//! (serde-sarif's model serialized the way stalecheck writes, pretty-printed JSON) and whether
//! the bytes stay the same. Prints figures; see README.md.
//!
//!     serde-sarif-eval FILE.sarif

use std::time::{Duration, Instant};

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn time<T>(runs: usize, mut f: impl FnMut() -> T) -> (Duration, T) {
    let mut times = Vec::new();
    let mut last = None;
    for _ in 0..runs {
        let t = Instant::now();
        let out = f();
        times.push(t.elapsed());
        last = Some(out);
    }
    (median(times), last.expect("at least one run"))
}

fn main() {
    let path = std::env::args()
        .nth(1)
        .expect("usage: serde-sarif-eval FILE.sarif");
    let text = std::fs::read_to_string(&path).expect("read the SARIF file");
    let runs = 5;
    let (ours_read, ours) = time(runs, || {
        stalecheck_sarif::read::parse_log(&text).expect("stalecheck reads its own SARIF")
    });
    let (theirs_read, typed) = time(runs, || {
        serde_json::from_str::<serde_sarif::sarif::Sarif>(&text)
    });
    let typed = match typed {
        Ok(t) => t,
        Err(e) => {
            println!("serde-sarif cannot read the file: {e}");
            std::process::exit(1);
        }
    };
    // Writing: the same document from each model, pretty-printed as stalecheck writes it.
    let (ours_write, _) = time(runs, || {
        serde_json::to_string_pretty(&ours).expect("serialize")
    });
    let (theirs_write, theirs_text) = time(runs, || {
        serde_json::to_string_pretty(&typed).expect("serialize")
    });
    let results: usize = ours["runs"]
        .as_array()
        .map(|r| {
            r.iter()
                .map(|r| r["results"].as_array().map_or(0, Vec::len))
                .sum()
        })
        .unwrap_or(0);
    println!(
        "file                      {path} ({:.1} MB, {results} results)",
        text.len() as f64 / 1e6
    );
    println!(
        "read:  stalecheck (Value)  {:>8.1} ms",
        ours_read.as_secs_f64() * 1e3
    );
    println!(
        "read:  serde-sarif (typed) {:>8.1} ms  ({:+.0}%)",
        theirs_read.as_secs_f64() * 1e3,
        (theirs_read.as_secs_f64() / ours_read.as_secs_f64() - 1.0) * 100.0
    );
    println!(
        "write: JSON of the Value   {:>8.1} ms",
        ours_write.as_secs_f64() * 1e3
    );
    println!(
        "write: serde-sarif (typed) {:>8.1} ms  ({:+.0}%)",
        theirs_write.as_secs_f64() * 1e3,
        (theirs_write.as_secs_f64() / ours_write.as_secs_f64() - 1.0) * 100.0
    );
    let trimmed = text.trim_end();
    let same_bytes = theirs_text == trimmed;
    println!("serde-sarif output is byte-identical to stalecheck's: {same_bytes}");
    if !same_bytes {
        let back: serde_json::Value = serde_json::from_str(&theirs_text).expect("its own output");
        println!(
            "  same JSON value (ignoring key order and layout): {}",
            back == ours
        );
        println!(
            "  sizes: stalecheck {} bytes, serde-sarif {} bytes",
            trimmed.len(),
            theirs_text.len()
        );
        if let Some((i, (a, b))) = trimmed
            .lines()
            .zip(theirs_text.lines())
            .enumerate()
            .find(|(_, (a, b))| a != b)
        {
            println!(
                "  first difference at line {}:\n    stalecheck:  {}\n    serde-sarif: {}",
                i + 1,
                a.trim(),
                b.trim()
            );
        }
        if back != ours {
            // What serde-sarif loses or adds: the first differing path.
            fn diff(a: &serde_json::Value, b: &serde_json::Value, path: &str) -> Option<String> {
                use serde_json::Value as V;
                match (a, b) {
                    (V::Object(x), V::Object(y)) => {
                        for (k, v) in x {
                            match y.get(k) {
                                None => return Some(format!("{path}/{k}: dropped by serde-sarif")),
                                Some(w) => {
                                    if let Some(d) = diff(v, w, &format!("{path}/{k}")) {
                                        return Some(d);
                                    }
                                }
                            }
                        }
                        y.keys()
                            .find(|k| !x.contains_key(*k))
                            .map(|k| format!("{path}/{k}: added by serde-sarif"))
                    }
                    (V::Array(x), V::Array(y)) => {
                        if x.len() != y.len() {
                            return Some(format!("{path}: {} items versus {}", x.len(), y.len()));
                        }
                        x.iter()
                            .zip(y)
                            .enumerate()
                            .find_map(|(i, (v, w))| diff(v, w, &format!("{path}/{i}")))
                    }
                    _ if a == b => None,
                    _ => Some(format!("{path}: {a} versus {b}")),
                }
            }
            if let Some(d) = diff(&ours, &back, "") {
                println!("  first semantic difference: {d}");
            }
        }
    }
}
