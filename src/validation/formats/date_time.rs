//! `date-time`, `date`, `time` (RFC 3339 section 5.6) and `duration` (RFC 3339 appendix A).

fn digits(bytes: &[u8]) -> Option<u32> {
    if bytes.is_empty() || !bytes.iter().all(u8::is_ascii_digit) {
        return None;
    }
    Some(bytes.iter().fold(0, |n, b| n * 10 + u32::from(b - b'0')))
}

fn days_in_month(year: u32, month: u32) -> u32 {
    match month {
        2 if year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400)) => {
            29
        }
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// `full-date`: `YYYY-MM-DD` naming a day that exists.
fn full_date(b: &[u8]) -> bool {
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return false;
    }
    let (Some(year), Some(month), Some(day)) =
        (digits(&b[0..4]), digits(&b[5..7]), digits(&b[8..10]))
    else {
        return false;
    };
    (1..=12).contains(&month) && day != 0 && day <= days_in_month(year, month)
}

/// `full-time`: `HH:MM:SS[.fraction](Z|+HH:MM|-HH:MM)`, `Z` in either case; a leap second
/// (`:60`) only at 23:59 UTC.
fn full_time(b: &[u8]) -> bool {
    if b.len() < 9 || b[2] != b':' || b[5] != b':' {
        return false;
    }
    let (Some(hour), Some(minute), Some(second)) =
        (digits(&b[0..2]), digits(&b[3..5]), digits(&b[6..8]))
    else {
        return false;
    };
    if hour > 23 || minute > 59 || second > 60 {
        return false;
    }
    let mut i = 8;
    if b[i] == b'.' {
        let start = i + 1;
        i = start;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        if i == start {
            return false;
        }
    }
    let offset_minutes: i64 = match &b[i..] {
        [b'Z' | b'z'] => 0,
        [sign @ (b'+' | b'-'), h1, h2, b':', m1, m2] => {
            let (Some(oh), Some(om)) = (digits(&[*h1, *h2]), digits(&[*m1, *m2])) else {
                return false;
            };
            if oh > 23 || om > 59 {
                return false;
            }
            let total = i64::from(oh * 60 + om);
            if *sign == b'+' {
                total
            } else {
                -total
            }
        }
        _ => return false,
    };
    if second == 60 {
        let local = i64::from(hour * 60 + minute);
        let utc = (local - offset_minutes).rem_euclid(24 * 60);
        if utc != 23 * 60 + 59 {
            return false;
        }
    }
    true
}

/// `date-time`: `YYYY-MM-DDTHH:MM:SS[.fraction](Z|+HH:MM|-HH:MM)`; `T` and `Z` may be lower
/// case. Dates must exist (leap years included); a leap second (`:60`) is accepted only at
/// 23:59 UTC.
pub fn is_date_time(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() > 10 && matches!(b[10], b'T' | b't') && full_date(&b[..10]) && full_time(&b[11..])
}

/// `date`: RFC 3339 `full-date`, `YYYY-MM-DD`, a day that exists.
pub fn is_date(s: &str) -> bool {
    full_date(s.as_bytes())
}

/// `time`: RFC 3339 `full-time`, `HH:MM:SS[.fraction]` with a time-zone offset (`Z`,
/// `+HH:MM` or `-HH:MM`); a leap second only at 23:59 UTC.
pub fn is_time(s: &str) -> bool {
    full_time(s.as_bytes())
}

/// `duration`: RFC 3339 appendix A (ISO 8601) `P[nY][nM][nD][T[nH][nM][nS]]` or `PnW`: at
/// least one element, consecutive units in that order (`P1Y2M`, `PT2M3S`, not `P1Y3D` or
/// `PT1H3S`), `T` followed by at least one time element, weeks alone; ASCII digits only, no
/// fractions.
pub fn is_duration(s: &str) -> bool {
    let Some(rest) = s.strip_prefix('P') else {
        return false;
    };
    if let Some(weeks) = rest.strip_suffix('W') {
        return !weeks.is_empty() && weeks.bytes().all(|b| b.is_ascii_digit());
    }
    let (date, time) = match rest.split_once('T') {
        Some((date, time)) => (date, Some(time)),
        None => (rest, None),
    };
    let elements = |part: &str, units: &[u8]| -> Option<usize> {
        let mut next_unit = 0;
        let mut count = 0;
        let mut number = 0;
        for b in part.bytes() {
            if b.is_ascii_digit() {
                number += 1;
                continue;
            }
            let position = units.iter().position(|&u| u == b)?;
            // The first element may be any unit; each further one is the next unit
            // (`1Y2M3D`, `2M3D`, not `1Y3D`), as RFC 3339's grammar nests them.
            if number == 0 || position < next_unit || (count > 0 && position != next_unit) {
                return None;
            }
            next_unit = position + 1;
            number = 0;
            count += 1;
        }
        (number == 0).then_some(count)
    };
    let Some(date_elements) = elements(date, b"YMD") else {
        return false;
    };
    match time {
        None => date_elements > 0,
        Some(time) => elements(time, b"HMS").is_some_and(|n| n > 0),
    }
}

#[cfg(test)]
mod tests {
    use super::{is_date, is_date_time, is_duration, is_time};

    #[test]
    fn rfc3339_date_times() {
        for ok in [
            "2026-07-28T12:00:00Z",
            "2024-02-29t23:59:60z",
            "2026-01-01T00:00:00.123456+05:30",
            "2026-12-31T18:59:60-05:00",
        ] {
            assert!(is_date_time(ok), "{ok} should be accepted");
        }
        for bad in [
            "2023-02-29T00:00:00Z",
            "2026-13-01T00:00:00Z",
            "2026-01-01 00:00:00Z",
            "2026-01-01T24:00:00Z",
            "2026-01-01T00:00:00",
            "2026-01-01T00:00:00.Z",
            "2026-01-01T12:00:60Z",
            "2026-01-01T00:00:00+2400",
            "2026-1-01T00:00:00Z",
        ] {
            assert!(!is_date_time(bad), "{bad} should be rejected");
        }
    }

    #[test]
    fn dates_times_and_durations() {
        for ok in ["2020-02-29", "1963-06-19"] {
            assert!(is_date(ok), "{ok}");
        }
        for bad in [
            "2021-02-29",
            "1963-6-19",
            "1998-13-01",
            "2020-01-32",
            "06/19/1963",
            "2020-01-01T",
        ] {
            assert!(!is_date(bad), "{bad}");
        }
        for ok in [
            "08:30:06Z",
            "23:59:60Z",
            "15:59:60-08:00",
            "08:30:06.283185+01:00",
            "08:30:06z",
        ] {
            assert!(is_time(ok), "{ok}");
        }
        for bad in [
            "08:30:06",
            "22:59:60Z",
            "24:00:00Z",
            "08:30:06+24:00",
            "8:30:06Z",
            "08:30:06 Z",
        ] {
            assert!(!is_time(bad), "{bad}");
        }
        for ok in [
            "P4DT12H30M5S",
            "P4Y",
            "PT0S",
            "P0D",
            "P1M",
            "PT1M",
            "PT36H",
            "P1Y2M3D",
            "P2W",
        ] {
            assert!(is_duration(ok), "{ok}");
        }
        for bad in [
            "PT1D",
            "P",
            "P1YT",
            "PT",
            "P2D1Y",
            "P1D2H",
            "P2S",
            "P1Y2W",
            "P1",
            "4DT12H30M5S",
            "P1.5D",
            "P১Y",
            "P0Y0D",
            "PT1H1S",
        ] {
            assert!(!is_duration(bad), "{bad}");
        }
    }
}
