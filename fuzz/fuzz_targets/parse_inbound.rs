//! Fuzz the inbound-mail reader: any bytes that reach the inbox must give
//! an `InboundParsed` (and go through quote stripping, PASSWORD lines,
//! classification and bounce reading) without a panic.
//! Run: `RUSTC_BOOTSTRAP=1 cargo fuzz run parse_inbound`.
#![no_main]

use adjutant::mail::auth::extract_password;
use adjutant::mail::bounce::read_bounce;
use adjutant::mail::classify::classify;
use adjutant::mail::parse::{Limits, parse_inbound};
use adjutant::mail::quote::strip_quotes;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let p = parse_inbound(data, &Limits::default());
    let ours = vec!["adjutant@example.test".to_string()];
    let _ = classify(&p, &ours, "example.test");
    let _ = read_bounce(&p, true);
    let (text, _) = strip_quotes(&p.text);
    let _ = extract_password(&text);
});
