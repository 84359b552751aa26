//! `date-time`: RFC 3339 section 5.6 `date-time`.

fn digits(bytes: &[u8]) -> Option<u32> {
    if bytes.is_empty() || !bytes.iter().all(u8::is_ascii_digit) {
        return None;
    }
    Some(bytes.iter().fold(0, |n, b| n * 10 + u32::from(b - b'0')))
}

fn days_in_month(year: u32, month: u32) -> u32 {
    match month {
        2 if year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// `YYYY-MM-DDTHH:MM:SS[.fraction](Z|+HH:MM|-HH:MM)`; `T` and `Z` may be lower case. Dates
/// must exist (leap years included); a leap second (`:60`) is accepted only at 23:59 UTC.
pub fn is_date_time(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() < 20 || b[4] != b'-' || b[7] != b'-' || !matches!(b[10], b'T' | b't') {
        return false;
    }
    let (Some(year), Some(month), Some(day)) =
        (digits(&b[0..4]), digits(&b[5..7]), digits(&b[8..10]))
    else {
        return false;
    };
    if !(1..=12).contains(&month) || day == 0 || day > days_in_month(year, month) {
        return false;
    }
    if b[13] != b':' || b[16] != b':' {
        return false;
    }
    let (Some(hour), Some(minute), Some(second)) =
        (digits(&b[11..13]), digits(&b[14..16]), digits(&b[17..19]))
    else {
        return false;
    };
    if hour > 23 || minute > 59 || second > 60 {
        return false;
    }
    let mut i = 19;
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
    let rest = &b[i..];
    let offset_minutes: i64 = match rest {
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

#[cfg(test)]
mod tests {
    use super::is_date_time;

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
}
